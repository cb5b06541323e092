"""Fuzzing the parser and the token-budget path in every supported language.

hypothesis builds source from each language's own tokens mixed with arbitrary
text and bytes. In process: ``parse_bytes`` never raises nor falls back, and
every unit's lines, composition and FTS columns are sane. In a subprocess
(so a llama.cpp abort — GGML_ASSERT on an over-long input, exit 134 — fails the
test instead of killing pytest): the same sources go through composition,
windowing and the real model at several token budgets, plus free text and
queries (lone surrogates included: ``hookgraph ask`` gets them from a
non-UTF-8 command line), and every window must fit its budget.

CI runs a fixed, derandomised set of examples; ``HOOKGRAPH_FUZZ_EXAMPLES=500``
and ``HOOKGRAPH_FUZZ_RANDOM=1`` fuzz harder and wider locally.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookgraph.parse.compose import embed_text, fts_columns
from hookgraph.parse.languages import REGISTRY
from hookgraph.parse import parse_bytes
from tests.helpers.reliability import record

EXAMPLES = int(os.environ.get("HOOKGRAPH_FUZZ_EXAMPLES", "60"))
RANDOM = bool(os.environ.get("HOOKGRAPH_FUZZ_RANDOM"))
REPO_ROOT = Path(__file__).resolve().parents[2]

COMMON = [" ", "  ", "    ", "\t", "\n", "\n\n", "\r\n", "(", ")", "{", "}", "[", "]", "<", ">", ";", ":", ",", ".",
          "=", "==", "+", "-", "*", "/", "\\", "'", '"', "`", "#", "@", "!", "&", "|", "?", "x", "foo", "Bar",
          "_private", "snake_case_name", "camelCaseName", "0", "42", "3.14", "0xff", "é", "名前", "🙂", "\u202e",
          "\x00", "\x1b[31m", "\ufeff"]
TOKENS = {
    "python": ["def ", "class ", "async def ", "lambda", "return ", "import ", "from ", "@decorator\n", '"""', "'''",
               "self.", "pass", "if ", "else:", "try:", "except ", "with ", "yield ", ":\n    "],
    "javascript": ["function ", "class ", "extends ", "=>", "const ", "let ", "var ", "export ", "default ",
                   "import ", "require(", "async ", "await ", "/**", "*/", "//", "<div>", "</div>", "${", "`"],
    "typescript": ["function ", "class ", "interface ", "type ", "enum ", "namespace ", "declare ", "export ",
                   "implements ", "extends ", "<T>", ": string", "readonly ", "abstract ", "/**", "*/", "=>"],
    "tsx": ["function ", "const ", "export default ", "<Comp ", "/>", "</Comp>", "props", "=>", ": React.FC",
            "interface ", "{...", "}", "<>", "</>"],
    "go": ["package ", "func ", "type ", "struct ", "interface ", "import ", "(s *S) ", "return ", "go ", "chan ",
           "defer ", "// ", "/*", "*/", "map[string]", ":="],
    "rust": ["fn ", "impl ", "trait ", "struct ", "enum ", "mod ", "pub ", "use ", "for ", "where ", "'a",
             "&mut ", "::", "///", "//!", "/*", "*/", "#[derive(Debug)]", "macro_rules! ", "=>"],
    "java": ["class ", "interface ", "enum ", "public ", "private ", "static ", "void ", "extends ",
             "implements ", "@Override\n", "/**", "*/", "//", "package ", "import ", "new ", "record "],
    "kotlin": ["fun ", "class ", "interface ", "object ", "companion object ", "enum class ", "data class ", "val ",
               "var ", "import ", "package ", ": Base()", " by ", "override ", "suspend ", "constructor(", "{ it }",
               "/**", "*/", "//", "@Annotation\n", "fun String.ext()", "?."],
    "swift": ["func ", "class ", "struct ", "enum ", "protocol ", "extension ", "actor ", "init(", "deinit ", "var ",
              "let ", "import ", ": Base", "{ get set }", "case ", "#if os(iOS)\n", "#endif\n", "@objc ", "///", "/*",
              "*/", "{ $0 }", "?."],
    "scala": ["def ", "class ", "case class ", "object ", "trait ", "enum ", "extends ", " with ", "val ", "var ",
              "import ", "package ", "new ", "=> ", "given ", "extension (s: S) ", "implicit ", "/**", "*/", "//",
              "_", "[T]", ":\n  "],
    "dart": ["class ", "abstract class ", "mixin ", "extension ", " on ", "enum ", "extends ", "implements ", " with ",
             "import '", "part '", "void ", "Future<void> ", "async ", "await ", "=> ", "factory ", "get ", "set ",
             "@override\n", "///", "/*", "*/", "this.", "super."],
    "zig": ["fn ", "pub fn ", "const ", "var ", "struct {", "enum {", "union(enum) {", "@import(\"std\")", "test \"x\" ",
            "comptime ", "return ", "try ", "catch ", "orelse ", "///", "//!", "//", ".{", "!void", "?*"],
    "ocaml": ["let ", "let rec ", " and ", "in ", "fun ", "function ", "match ", " with ", "| ", "module ",
              "module type ", "sig ", "struct ", "end", "open ", "include ", "class ", "object ", "method ",
              "inherit ", "type ", "val ", "(*", "(**", "*)", "->", "#"],
    "haskell": ["module ", "where", "import ", "qualified ", "class ", "instance ", "data ", "newtype ", "type ", "::",
                "->", "=>", "=", "| ", "let ", "in ", "case ", "of ", "do\n  ", "\\x -> ", "`f`", "-- |", "{-", "-}",
                "{-# LANGUAGE X #-}\n", "\n  "],
    "clojure": ["(ns ", "(defn ", "(defn- ", "(defmacro ", "(defprotocol ", "(defrecord ", "(deftype ", "(extend-type ",
                "(def ", "(fn [x] ", "(:require [", " :as ", "(:import (", "[", "]", "(", ")", "\"doc\" ", "^{:private true} ",
                ";; ", "#(", "%1", "'", "@", "#_", "(. x m)", "(Foo. )"],
    "sql": ["CREATE TABLE ", "CREATE VIEW ", "CREATE OR REPLACE FUNCTION ", "CREATE TRIGGER ", "CREATE TYPE ",
            " AS ENUM (", "CREATE PROCEDURE ", "SELECT ", " FROM ", " JOIN ", " ON ", " WHERE ", "INSERT INTO ",
            "UPDATE ", "DELETE FROM ", " REFERENCES ", "$$", " LANGUAGE plpgsql", "BEGIN ", "END;", "--", "/*", "*/",
            "'", "schema.", "f(x)", ";\n"],
    "vue": ["<template>", "</template>", "<script>", "<script setup lang=\"ts\">", "<script lang='tsx'>", "</script>",
            "<style>", "</style>", "export default {", "methods: {", "function f() {", "import x from 'y'", "{{ x }}",
            "v-if=\"a\"", "@click=\"go\"", "<!--", "-->"],
    "svelte": ["<script>", "<script context=\"module\" lang=\"ts\">", "</script>", "<style>", "</style>",
               "export let x;", "$: y = x * 2;", "function f() {", "import { onMount } from 'svelte'", "{#if a}",
               "{/if}", "{#each xs as x}", "{/each}", "on:click={go}", "<!--", "-->"],
    "markdown": ["# ", "## ", "### ", "\n===\n", "\n---\n", "```", "```python\n", "* ", "1. ", "> ", "[link](x)",
                 "<!--", "-->", "|a|b|", "    code"],
    "rst": ["Title\n=====\n", "Sub\n---\n", "=====\nOver\n=====\n", ".. code-block:: python\n", "::\n\n",
            ".. ", "`x`_", "**b**", "* ", "\n~~~~\n"],
    "c": ["int ", "void ", "struct ", "typedef ", "enum ", "union ", "static ", "#include <stdio.h>\n",
          "#include \"x.h\"\n", "#define F(x) ", "#ifdef X\n", "#endif\n", "/**", "*/", "//", "->", "*p", "(*f)(",
          "return ", "FOO_API\n", "\\\n"],
    "cpp": ["namespace ", "class ", "struct ", "template <typename T>", "public:", "private:", "virtual ", "override",
            "::", "~", "operator==", "operator<<", "const&", "std::vector<int>", "using namespace std;",
            "#include <vector>\n", "X_API ", "auto ", "[&](int x) {", "/**", "//", "Foo::bar() {"],
    "csharp": ["namespace ", "namespace A.B;\n", "class ", "interface ", "struct ", "record ", "enum ", "public ",
               "static ", "async ", "override ", "using System;\n", "=> ", "get; set;", "{ get { return x; } }",
               "[Serializable]\n", "/// <summary>", "</summary>", "<see cref=\"X\"/>", "new ", "this.", "<T>"],
    "objc": ["@interface ", "@implementation ", "@protocol ", "@end\n", "@property ", "@import ", "#import ",
             "- (void)", "+ (id)", "foo:(id)x ", "bar:(int)y", "[self ", "[super init]", "]", "<NSObject>",
             "(Category)", "@selector(", "@\"str\"", "^{", "NS_ASSUME_NONNULL_BEGIN"],
    "ruby": ["def ", "def self.", "class ", "module ", " < ", "::", "end\n", "do |x|", "include ", "extend ",
             "require '", "require_relative ", "attr_reader :", "@ivar", "&.", "=begin\n", "=end\n", "# ", "class << self\n"],
    "php": ["<?php\n", "namespace Foo\\Bar;\n", "namespace A {", "use ", "class ", "interface ", "trait ", "enum ",
            "extends ", "implements ", "function ", "public static ", "$this->", "self::", "parent::", "new ", "/**",
            "*/", "#[Attr]", "require_once '", "?>"],
    "lua": ["function ", "local ", "local function ", "end", "M.", "self:", "obj:m(", "require '", "require(\"",
            "--- ", "-- ", "--[[", "]]", "return ", "then", "do ", "= function(", "..."],
    "bash": ["#!/bin/bash\n", "function ", "() {\n", "}\n", "source ", ". ./", "local ", "$(", "${", "`", "if [ ",
             " ]; then\n", "fi\n", "case ", "esac\n", "<<EOF\n", "EOF\n", "| ", "&& ", "# "],
    "perl": ["package ", "Foo::Bar;\n", "sub ", "{ ", "}", "use ", "use parent -norequire, '", "use base qw(",
             "our @ISA = (", "require ", "$self->", "->new(", "my ", "=head1 NAME\n", "=cut\n", "__END__\n", "# ",
             "qw(", "bless "],
    "r": [" <- function(", " = function(", "<<-", "library(", "require(", "source(\"", "#' ", "#' @export\n", "::",
          "$", "R6Class(\"", "setClass(\"", "contains = \"", "inherit = ", "list(", "{", "}", "%>%"],
    "julia": ["module ", "end", "function ", "f(x) = ", "struct ", "mutable struct ", "abstract type ", " <: ",
              "using ", "import ", ": ", "include(\"", "macro ", "@inline ", '"""', "#= ", " =#", "where {T}",
              "Base."],
    "elixir": ["defmodule ", "def ", "defp ", "defmacro ", "defprotocol ", "defimpl ", ", for: ", " do\n", "end\n",
               ", do: ", "@moduledoc \"\"\"\n", "@doc \"", "@spec ", "@behaviour ", "alias ", "import ", "use ",
               "|> ", "fn x -> ", "Mod.f("],
    "erlang": ["-module(", "-behaviour(", "-export([", "-import(", "-include(\"", "-record(", "-spec ", "->", ";",
               ".\n", "fun(", "end", "case ", " of ", "receive ", "mod:f(", "%% ", "?MODULE", "#state{"],
}
#: Tokens for the formats indexed by fallback (blocks of a pack grammar, or plain-text chunks).
FALLBACK_TOKENS = [":", ": ", "- ", "=", " = ", "[section]\n", "[[table]]\n", "{", "}", "[", "]", "#", "# ", "//",
                   "<tag>", "</tag>", "<a b=\"c\"/>", "FROM x\n", "RUN ", "target: dep\n\t", "key: value\n",
                   "\"k\": 1,", "message M {", "resource \"a\" \"b\" {", "function ", "end\n", "(define ",
                   "\n\n", "    ", "\\\n", "${x}", "{{ x }}", "<%= x %>", "%", ";"]
FIRST_CLASS = sorted(lang for lang, spec in REGISTRY.items() if not spec.fallback)
FALLBACK = sorted(lang for lang, spec in REGISTRY.items() if spec.fallback)
assert set(TOKENS) == set(FIRST_CLASS), "a new language needs fuzz tokens"
EXTENSION = {lang: (spec.extensions[0] if spec.extensions else "") for lang, spec in REGISTRY.items()}
#: Fallback formats get fewer examples each: there are a hundred of them and one code path.
FALLBACK_EXAMPLES = max(4, EXAMPLES // 6)
#: Every code point, lone surrogates included (hypothesis leaves them out by default).
ANY_CHAR = st.characters(exclude_categories=())


def sources(lang: str) -> st.SearchStrategy[bytes]:
    """Source-shaped bytes: the language's tokens, common punctuation, any text, raw bytes."""
    piece = st.one_of(
        st.sampled_from(TOKENS.get(lang, FALLBACK_TOKENS)).map(str.encode),
        st.sampled_from(COMMON).map(str.encode),
        st.text(ANY_CHAR, max_size=12).map(lambda t: t.encode("utf-8", "surrogatepass")),
        st.binary(max_size=6),
        st.integers(min_value=1, max_value=400).map(lambda n: b"(" * n),  # deep nesting, unbalanced
    )
    return st.lists(piece, max_size=120).map(b"".join)


def _settings(examples: int) -> settings:
    return settings(max_examples=examples, deadline=None, derandomize=not RANDOM, database=None,
                    suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("lang", sorted(REGISTRY))
def test_parser_survives_generated_source(lang: str, caplog: pytest.LogCaptureFixture) -> None:
    path = f"fuzz/sample{EXTENSION[lang]}"
    tried = 0

    @_settings(EXAMPLES if lang in TOKENS else FALLBACK_EXAMPLES)
    @given(data=sources(lang))
    def check(data: bytes) -> None:
        nonlocal tried
        tried += 1
        with caplog.at_level(logging.WARNING, logger="hookgraph.parse"):
            caplog.clear()
            parsed = parse_bytes(path, data, lang)
            fallback = [r for r in caplog.records if r.name == "hookgraph.parse"]
        assert not fallback, f"the parser fell back to a bare file: {fallback[0].exc_text}"
        lines = max(1, data.count(b"\n") + (0 if data.endswith(b"\n") else 1))
        assert parsed.units and parsed.units[0].kind == "file"
        calls = [e.target for e in parsed.edges if e.kind == "calls"]
        for unit in parsed.units:
            assert 1 <= unit.start_line <= unit.end_line <= max(lines, 1), (unit.start_line, unit.end_line, lines)
            for text in (embed_text(unit, calls[:5]), *fts_columns(unit)):
                text.encode("utf-8")  # storable: no lone surrogates
        for edge in parsed.edges:
            assert edge.line >= 1

    check()
    record(f"fuzz: parser, {lang}", tried, "no exception, no fallback, lines within the file")


EMBED_FUZZ = textwrap.dedent(
    """
    import faulthandler, json, os, sys
    # A crash inside llama.cpp prints where Python was: on a copy of stderr, because llama-cpp-python
    # points fd 2 at /dev/null while it loads the model (a crash there would say nothing).
    crash_stream = os.fdopen(os.dup(2), "w")
    faulthandler.enable(file=crash_stream)
    sys.path.insert(0, sys.argv[1])
    examples, random_, last_input = int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4]

    def note_input(text):
        # The input at hand (a source file's bytes, or a text for the model), for the failure message should
        # the process crash on it.
        with open(last_input, "wb") as f:
            f.write(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
    from hypothesis import HealthCheck, given, settings, strategies as st
    from hookgraph.parse.compose import embed_text
    from hookgraph.embed import Embedder
    from hookgraph.parse.languages import REGISTRY
    from hookgraph.parse import parse_bytes
    from tests.parse.test_fuzz import ANY_CHAR, EXTENSION, FIRST_CLASS, sources

    base = Embedder()
    base._model()
    embedders = []
    for budget in (12, 40, None):  # tiny windows, small, the model's own (256)
        e = Embedder(max_tokens=budget)
        e._llama = base._llama  # one loaded model (n_ubatch = 256) serves every smaller budget
        embedders.append(e)
    counts = {"texts": 0, "windows": 0, "queries": 0}

    def check_text(text):
        note_input(text)
        for e in embedders:
            wins, _cut, ns = e.windows(text)
            assert 1 <= len(wins) <= e.max_windows
            for w, n in zip(wins, ns):
                assert n <= e.max_tokens and e.count_tokens(e.document_prefix + w) <= e.max_tokens, (len(w), n)
            counts["windows"] += len(wins)
        vectors, _cut = base.embed_windows([text])[0]
        assert vectors.shape[1] == base.dims and abs(float((vectors[0] ** 2).sum()) - 1) < 1e-3
        counts["texts"] += 1

    S = dict(max_examples=examples, deadline=None, derandomize=not random_, database=None,
             suppress_health_check=list(HealthCheck))

    for lang in FIRST_CLASS + ["text", "yaml"]:  # the fallback's two paths: chunks and blocks
        @settings(**S)
        @given(data=sources(lang))
        def pipeline(data):
            note_input(data)  # a crash may be the parser's
            parsed = parse_bytes("fuzz/sample" + EXTENSION[lang], data, lang)
            for unit in parsed.units[:4]:
                check_text(embed_text(unit, []))
        pipeline()

    free = st.one_of(
        st.text(max_size=3000),
        st.text(alphabet=st.characters(codec="utf-8"), min_size=500, max_size=4000),
        st.builds(lambda w, n: (w + " ") * n, st.text(min_size=1, max_size=30), st.integers(1, 3000)),
        st.builds(lambda c, n: c * n, st.characters(), st.integers(1, 20000)),
    )

    @settings(**S)
    @given(text=free)
    def free_text(text):
        text = text.encode("utf-8", "replace").decode("utf-8")  # documents are composed from decoded source
        check_text(text)

    free_text()

    @settings(**S)
    # lone surrogates on purpose (hypothesis rarely draws them): a non-UTF-8 command line or JSON gives them
    @given(query=st.lists(st.one_of(st.text(max_size=60), st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)),
                          max_size=40).map("".join))
    def queries(query):
        note_input(query)
        vec = base.embed_query(query)
        assert len(vec) == base.dims
        counts["queries"] += 1

    queries()
    print(json.dumps(counts))
    """
)


def test_token_budget_never_aborts_in_any_language(tmp_path: Path) -> None:
    examples = max(4, EXAMPLES // 4)
    last_input = tmp_path / "last-input.txt"  # kept by pytest's tmp_path retention, to replay a crash
    proc = subprocess.run(
        [sys.executable, "-c", EMBED_FUZZ, str(REPO_ROOT), str(examples), "1" if RANDOM else "0", str(last_input)],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=600,
    )
    if proc.returncode != 0:
        if last_input.exists():
            text = last_input.read_text(encoding="utf-8", errors="replace")
            where = f"on an input of {len(text)} characters kept in {last_input} (starts {text[:300]!r})"
        else:
            where = "before the first input (loading the model)"
        pytest.fail(
            f"the embedding fuzz {'aborted (llama.cpp GGML_ASSERT?)' if proc.returncode < 0 or proc.returncode == 134 else 'failed'} "
            f"with exit {proc.returncode} {where}:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
        )
    import json

    counts = json.loads(proc.stdout.strip().splitlines()[-1])
    assert counts["texts"] > 0 and counts["queries"] > 0
    record("fuzz: compose + windows + real model at budgets 12/40/256, every language, free text, queries",
           counts["texts"] + counts["queries"], "no abort; every window within its budget; unit vectors", **counts)
