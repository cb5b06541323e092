"""Which file takes which path (name, content claims, ``#!`` lines) and the fallback for the rest.

Real tree-sitter grammars throughout; the chunking is checked for its
promises: every non-blank line is in some unit, windows stay within their
size, natural boundaries are preferred, a big file never explodes into
thousands of units.
"""

from __future__ import annotations

import pytest

from hookgraph.parse import parse_file
from hookgraph.parse.fallback import MAX_UNITS, WINDOW_LINES
from hookgraph.parse.languages import REGISTRY, interpreter_language, language_for, language_for_path, modeline_language

# --------------------------------------------------------------------------- #! lines


@pytest.mark.parametrize(
    ("first_line", "lang"),
    [
        (b"#!/usr/bin/env python3", "python"),
        (b"#!/usr/bin/python3.12 -u", "python"),
        (b"#! /usr/bin/env pypy3", "python"),
        (b"#!/usr/bin/env -S node --experimental-vm-modules", "javascript"),
        (b"#!/usr/bin/env NODE_ENV=production node", "javascript"),
        (b"#!/usr/local/bin/node", "javascript"),
        (b"#!/usr/bin/make -f", "make"),
        (b"#!/usr/bin/env fish", "fish"),
        (b"#!/usr/bin/env", None),
        (b"#!/opt/unknown-interpreter", None),
        (b"# not a shebang", None),
    ],
)
def test_interpreter_of_a_shebang_line(first_line: bytes, lang: str | None) -> None:
    assert interpreter_language(first_line + b"\nrest of the file\n") == lang


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        (b"# ssh(1) completion                                       -*- shell-script -*-\n_ssh() { :; }\n", "bash"),
        (b"#!/bin/false\n# -*- mode: sh; indent-tabs-mode: nil -*-\n", "bash"),
        (b"# -*- coding: utf-8; mode: python -*-\nx = 1\n", "python"),
        (b"x = 1\n" * 20 + b"# vim: set ft=ruby ts=2:\n", "ruby"),
        (b"# -*- coding: utf-8 -*-\nx = 1\n", None),  # a coding line names no mode
        (b"-*- fundamental -*-\n", None),  # a mode no language lists
        (b"x\n" * 20 + b"# -*- shell-script -*-\n", None),  # Emacs reads only the first two lines
    ],
)
def test_an_editor_modeline_names_the_language(text: bytes, lang: str | None) -> None:
    assert modeline_language(text) == lang


def test_a_file_without_a_known_name_or_shebang_is_decided_by_its_modeline() -> None:
    # bash-completion 2.11's completions/ssh begins so (no #! line, no extension)
    source = b"# ssh(1) completion                                       -*- shell-script -*-\n\n_ssh_queries()\n{\n    COMPREPLY+=($(compgen -W \"cipher mac\" -- \"${cur,,}\"))\n}\n"
    assert language_for("completions/ssh", source) == "bash"
    pf = parse_file("completions/ssh", source)
    assert pf is not None and pf.language == "bash" and not pf.fallback
    assert [u.qualname for u in pf.units if u.kind == "function"] == ["_ssh_queries"]
    assert language_for("docs/notes.py", b"# -*- shell-script -*-\n") == "python"  # a code extension wins


def test_a_file_without_a_known_name_is_decided_by_its_shebang() -> None:
    script = b"#!/usr/bin/env python3\n\ndef main():\n    return deploy()\n"
    assert language_for_path("bin/deploy") is None
    assert language_for("bin/deploy", script) == "python"
    pf = parse_file("bin/deploy", script)
    assert pf is not None and pf.language == "python" and not pf.fallback
    assert [u.qualname for u in pf.units if u.kind == "function"] == ["main"]
    # a plain-text name says little: its #! line decides; a code extension is never overridden
    assert language_for("tools/run.txt", script) == "python"
    assert language_for("tools/run.js", script) == "javascript"


def test_every_interpreter_is_claimed_by_one_language() -> None:
    seen: dict[str, str] = {}
    for lang, spec in REGISTRY.items():
        for program in spec.interpreters:
            assert program not in seen, f"{program} claimed by {seen.get(program)} and {lang}"
            seen[program] = lang


# --------------------------------------------------------------------------- .h and .m


C_HEADER = b"""#ifndef BUF_H
#define BUF_H
#ifdef __cplusplus
extern "C" {
#endif
typedef struct { char *ptr; int size; } buf;
int buf_grow(buf *b, int size);
#endif
"""
CPP_NAMESPACE = b"#pragma once\n#include <string>\nnamespace net {\nint port();\n}\n"
CPP_CLASS = b"#pragma once\nclass Client : public Base {\n public:\n  void send();\n};\n"
CPP_TEMPLATE = b"#pragma once\ntemplate <typename T>\nT clamp(T v, T lo, T hi);\n"
#: A C struct definition (lz4hc.h, xxhash.h) is not C++: only one with a base list or ``final`` is.
C_STRUCT = b"struct buf_s\n{\n  char *ptr;\n};\nLZ4LIB_API int buf_grow(struct buf_s *b, int size);\n"
CPP_STRUCT_BASE = b"#pragma once\nstruct Options : public Base {\n  int level;\n};\n"
CPP_STRUCT_NESTED = b"#pragma once\nstruct SkipList::Node {\n  int key;\n};\n"
OBJC_HEADER = b"#import <Foundation/Foundation.h>\n@interface Client : NSObject\n- (void)send;\n@end\n"
OBJC_CLASS_WORD = b"#import <Foundation/Foundation.h>\n@class Widget;\n@protocol Drawing\n- (void)draw;\n@end\n"


@pytest.mark.parametrize(
    ("data", "lang"),
    [(C_HEADER, "c"), (b"", "c"), (C_STRUCT, "c"), (CPP_NAMESPACE, "cpp"), (CPP_CLASS, "cpp"), (CPP_TEMPLATE, "cpp"),
     (CPP_STRUCT_BASE, "cpp"), (CPP_STRUCT_NESTED, "cpp"),
     (OBJC_HEADER, "objc"), (OBJC_CLASS_WORD, "objc")],
)
def test_a_header_is_c_cpp_or_objc_by_content(data: bytes, lang: str) -> None:
    assert language_for_path("include/x.h") == "c"  # without the bytes: the language that lists .h
    assert language_for("include/x.h", data) == lang
    pf = parse_file("include/x.h", data)
    assert pf is not None and pf.language == lang


def test_dot_m_is_objective_c_unless_matlab_claims_it() -> None:
    objc = b"#import \"Foo.h\"\n@implementation Foo\n- (void)run\n{\n  if (x)\n  {\n  }\n}\n@end\n"
    matlab = b"function y = double_it(x)\n% Double the input.\n  y = 2 * x;\nend\n"
    assert language_for("src/Foo.m", objc) == "objc"
    assert language_for("src/double_it.m", matlab) == "matlab"
    assert language_for("src/Foo.mm", objc) == "objc"


# --------------------------------------------------------------------------- fallback: blocks


COMPOSE = """# Services of the local stack.
services:
  web:
    image: nginx:1.27
    ports:
      - "8080:80"
    depends_on:
      - api
  api:
    build: ./api
    environment:
      DATABASE_URL: postgres://db:5432/app
      WORKERS: "4"
  db:
    image: postgres:16
    volumes:
      - data:/var/lib/postgresql/data
volumes:
  data: {}
"""


def test_a_format_with_a_grammar_becomes_blocks_at_its_top_level_nodes() -> None:
    small = parse_file("deploy/compose.yaml", COMPOSE.encode())
    assert small is not None and small.language == "yaml" and small.fallback
    # 19 lines fit one window: one block, named by its first line
    assert [(u.kind, u.name, u.start_line, u.end_line) for u in small.units] == [
        ("file", "compose.yaml", 1, 19), ("block", "# Services of the local stack.", 1, 19)]
    services = "".join(
        f"  svc{i}:\n    image: app:{i}\n    environment:\n      LEVEL: \"{i}\"\n      MODE: fast\n    ports:\n"
        f"      - \"80{i:02d}:80\"\n" for i in range(8))
    big = f"# Services of the local stack.\nservices:\n{services}volumes:\n  data: {{}}\n".encode()
    pf = parse_file("deploy/compose.yaml", big)
    assert pf is not None
    blocks = [u for u in pf.units if u.kind == "block"]
    # cut where a service starts (the children of the one top-level key); the comment stays with its key
    assert blocks[0].name == "# Services of the local stack." and blocks[0].start_line == 1
    assert all(b.name.startswith("svc") or b.name == "volumes:" for b in blocks[1:]), [b.name for b in blocks]
    assert all(b.end_line - b.start_line + 1 <= WINDOW_LINES for b in blocks)
    assert {(e.source, e.kind) for e in pf.edges} == {("deploy/compose.yaml", "contains")}
    _covers_every_line(pf, big)


def test_many_small_top_level_nodes_are_packed_and_big_files_stay_bounded() -> None:
    makefile = "".join(f"target{i}: dep{i}\n\tcc -o target{i} dep{i}.c\n\n" for i in range(30))
    pf = parse_file("Makefile", makefile.encode())
    assert pf is not None and pf.language == "make"
    blocks = [u for u in pf.units if u.kind == "block"]
    assert 1 < len(blocks) < 30  # rules packed into windows, never one unit per line
    assert all(b.end_line - b.start_line + 1 <= WINDOW_LINES for b in blocks)
    assert all(b.name.startswith("target") for b in blocks)  # cut at rule starts
    huge = "".join(f"key_{i}: value {i}\n" for i in range(20_000)).encode()
    pf = parse_file("data/big.yaml", huge)
    assert pf is not None
    assert len(pf.units) - 1 <= MAX_UNITS
    _covers_every_line(pf, huge)


def test_toml_tables_and_a_dockerfile() -> None:
    toml = b"[project]\nname = 'x'\nversion = '1'\n\n[tool.ruff]\nline-length = 120\n" + b"# pad\n" * 40
    pf = parse_file("pyproject.toml", toml)
    assert pf is not None and pf.language == "toml"
    assert [u.name for u in pf.units if u.kind == "block"][0] == "[project]"
    docker = b"FROM python:3.12-slim\nWORKDIR /app\nCOPY . .\nRUN pip install .\nCMD [\"app\"]\n"
    pf = parse_file("Dockerfile", docker)
    assert pf is not None and pf.language == "dockerfile"
    assert [(u.name, u.start_line, u.end_line) for u in pf.units if u.kind == "block"] == [
        ("FROM python:3.12-slim", 1, 5)]


# --------------------------------------------------------------------------- fallback: chunks


def _covers_every_line(pf, data: bytes) -> None:
    lines = data.decode().split("\n")
    covered = set()
    for u in pf.units:
        if u.kind != "file":
            covered.update(range(u.start_line, u.end_line + 1))
    missing = [i + 1 for i, line in enumerate(lines) if line.strip() and i + 1 not in covered]
    assert not missing, missing[:10]


def test_text_of_no_known_format_becomes_line_window_chunks() -> None:
    paragraphs = [f"Paragraph {p} explains step {p} of the release.\n" + "More detail here.\n" * 6 for p in range(12)]
    text = "\n".join(paragraphs).encode()
    pf = parse_file("docs/RELEASING", text)
    assert pf is not None and pf.language is None and pf.fallback  # unknown language, text units
    chunks = [u for u in pf.units if u.kind == "chunk"]
    assert chunks and all(u.language == "text" for u in chunks)
    assert all(u.end_line - u.start_line + 1 <= WINDOW_LINES for u in chunks)
    assert all(u.name.startswith("Paragraph ") for u in chunks)  # cut at blank lines, named by first line
    _covers_every_line(pf, text)


def test_text_without_blank_lines_is_cut_hard_with_overlap() -> None:
    text = "".join(f"setting_{i} = {i}\n" for i in range(100)).encode()
    pf = parse_file("app.conf", text)
    assert pf is not None
    chunks = [u for u in pf.units if u.kind == "chunk"]
    assert len(chunks) >= 4
    for before, after in zip(chunks, chunks[1:]):
        assert after.start_line <= before.end_line  # the windows overlap
    _covers_every_line(pf, text)


def test_a_huge_text_file_gives_a_bounded_number_of_chunks() -> None:
    text = "".join(f"2024-01-01 12:00:{i % 60:02d} worker {i} finished job {i * 7}\n" for i in range(15_000)).encode()
    pf = parse_file("logs/run.log", text)
    assert pf is not None
    assert len(pf.units) - 1 <= MAX_UNITS
    _covers_every_line(pf, text)


def test_chunks_can_be_turned_off_but_blocks_stay() -> None:
    assert parse_file("notes/todo", b"buy milk\n", text_chunks=False) is None
    assert parse_file("notes/todo.txt", b"buy milk\n", text_chunks=False) is None
    pf = parse_file("ci.yml", b"jobs:\n  test: {}\n", text_chunks=False)
    assert pf is not None and pf.language == "yaml"


def test_an_empty_or_blank_text_file_has_only_its_file_unit() -> None:
    for data in (b"", b"\n\n   \n"):
        pf = parse_file("EMPTY", data)
        assert pf is not None and [u.kind for u in pf.units] == ["file"]
