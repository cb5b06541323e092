"""Parser behaviour that does not depend on one language: the registry, documents,
broken input, deep nesting, file fingerprints, speed. Per-language snippets are in
``tests/parse/test_languages*.py``. Real tree-sitter throughout, no mocks."""

from __future__ import annotations

import inspect
import logging
import random
import re
import sys
import time
from pathlib import Path

import pytest

import hookgraph.parse as parse_module
from hookgraph.parse.code import EDGE_KIND_OF_REFERENCE
from hookgraph.parse.languages import REGISTRY, language_for_path, load_language
from hookgraph.parse.scopes import _role
from hookgraph.parse import parse_file
from hookgraph.parse.units import EDGE_KINDS, UNIT_KINDS


def units_of(pf):
    return {(u.kind, u.qualname, u.start_line, u.end_line) for u in pf.units if u.kind != "file"}


@pytest.fixture(autouse=True)
def _no_parse_fallback(caplog):
    """parse_file falls back to a bare file unit on internal errors; that must not happen here."""
    with caplog.at_level(logging.WARNING, logger="hookgraph.parse"):
        yield
    assert not [r for r in caplog.records if r.name == "hookgraph.parse"]


# --------------------------------------------------------------------------- registry


@pytest.mark.parametrize(
    ("path", "lang"),
    [
        ("a/b/c.py", "python"),
        ("stubs/x.pyi", "python"),
        ("SConstruct", "python"),
        ("web/app.js", "javascript"),
        ("web/App.jsx", "javascript"),
        ("web/lib.mjs", "javascript"),
        ("src/x.ts", "typescript"),
        ("types/index.d.ts", "typescript"),
        ("ui/View.tsx", "tsx"),
        ("cmd/main.go", "go"),
        ("src/lib.rs", "rust"),
        ("src/Main.java", "java"),
        ("README.md", "markdown"),
        ("docs/Guide.MARKDOWN", "markdown"),
        ("docs/index.rst", "rst"),
        ("windows\\style\\path.py", "python"),
    ],
)
def test_language_for_path(path, lang):
    assert language_for_path(path) == lang


@pytest.mark.parametrize("path", ["logo.png", "noext", ".py", "dir/", "x.pyc", ""])
def test_unknown_language_gives_none(path):
    assert language_for_path(path) is None
    assert parse_file(path, b"def f():\n    pass\n", text_chunks=False) is None


def test_every_registered_language_loads_once():
    for lang in REGISTRY:
        loaded = load_language(lang)
        assert load_language(lang) is loaded  # cached: the query is compiled once per process
        spec = REGISTRY[lang]
        if spec.fallback == "blocks":  # a pack grammar without a query
            assert loaded.parser is not None and loaded.query is None, lang
        elif spec.fallback == "chunks":
            assert loaded.parser is None, lang
        elif spec.grammar:
            assert loaded.query is not None and loaded.parser is not None
        else:
            assert spec.sections


def test_query_captures_follow_the_convention():
    """Every capture name in every query is one the parser understands."""
    for lang, spec in REGISTRY.items():
        if not spec.grammar or spec.fallback:
            continue
        query = load_language(lang).query
        for i in range(query.capture_count):
            name = query.capture_name(i)
            role, kind = _role(name)
            assert role != "ignore" or name.startswith("_"), (lang, name)
            if role in ("def", "defname"):
                assert kind in UNIT_KINDS, (lang, name)
            if role in ("refname", "ref", "refmodule"):
                assert EDGE_KIND_OF_REFERENCE[kind] in EDGE_KINDS, (lang, name)


#: The modules of the parser (once all of parse/__init__.py): none of them may name a language.
PARSER_MODULES = (
    "__init__", "dispatch", "code", "scopes", "comments", "references", "signatures", "text", "fingerprint",
    "documents", "blocks",
)


def test_parser_has_no_language_branches():
    """Language support is data: the parser's modules never name a language."""
    package = Path(parse_module.__file__).parent
    for module in PARSER_MODULES:
        source = (package / f"{module}.py").read_text()
        for lang in REGISTRY:
            assert not re.search(rf"[\"']{re.escape(lang)}[\"']", source), (module, lang)


# --------------------------------------------------------------------------- broken input


BROKEN = {
    "broken.py": (
        b"import os\n"
        b"\n"
        b"class Broken(Base:\n"
        b"    def ok(self):\n"
        b"        return os.getcwd()\n"
        b"\n"
        b"def after(x):\n"
        b"    return x +\n"
        b"\n"
        b"def last():\n"
        b"    return 1\n"
    ),
    "broken.js": b"function good() { return 1; }\nfunction bad( { \nclass K { m() { call(); } }\n",
    "broken.go": b"package p\n\nfunc Good() int { return 1 }\n\nfunc Bad( {\n\nfunc (s *S) M() { s.x() }\n",
    "Broken.java": b"class A {\n  void ok() { run(); }\n  void bad( {\n}\n",
    "broken.rs": b"fn good() -> u32 { 1 }\nfn bad( {\nstruct S { a: u32 }\n",
    "broken.ts": b"export function good(): number { return 1; }\nexport class C { m(: void {} }\n",
}


@pytest.mark.parametrize("path", sorted(BROKEN))
def test_syntax_errors_still_yield_units(path):
    pf = parse_file(path, BROKEN[path])
    assert pf.had_errors
    names = {u.name for u in pf.units}
    assert pf.units[0].kind == "file"
    assert len(pf.units) >= 2, names
    assert names & {"good", "Good", "ok", "last", "after"}, names


def test_python_syntax_error_details():
    pf = parse_file("broken.py", BROKEN["broken.py"])
    assert pf.had_errors
    qualnames = {u.qualname for u in pf.units}
    assert {"Broken", "Broken.ok", "last"} <= qualnames
    assert any(e.kind == "calls" and e.target == "getcwd" for e in pf.edges)


def test_invalid_utf8_keeps_lines_right():
    data = (
        b'"""Caf\xe9 module \xff."""\n'
        b"\n"
        b"def caf\xc3\xa9(x):\n"
        b'    """D\xfe doc."""\n'
        b"    return x\n"
        b"\n"
        b"# \xff\xfe comment\n"
        b"def after():\n"
        b"    return caf\xc3\xa9(1)\n"
    )
    pf = parse_file("latin1.py", data)
    assert units_of(pf) == {("function", "café", 3, 5), ("function", "after", 8, 9)}
    cafe = [u for u in pf.units if u.name == "café"][0]
    assert cafe.docstring == "D\ufffd doc."
    assert cafe.text == 'def café(x):\n    """D\ufffd doc."""\n    return x'
    after = [u for u in pf.units if u.name == "after"][0]
    assert after.docstring == "\ufffd\ufffd comment"
    assert pf.units[0].docstring == "Caf\ufffd module \ufffd."
    assert any(e.kind == "calls" and e.source == "after" and e.target == "café" and e.line == 9 for e in pf.edges)


@pytest.mark.parametrize("path", ["x.py", "x.js", "x.ts", "x.tsx", "x.go", "x.rs", "X.java", "x.md", "x.rst"])
def test_arbitrary_bytes_never_raise(path):
    rng = random.Random(path)
    samples = [b"", b"\n", b"\r\n\r\n", b"\x00" * 10, b"\xff\xfe\xfd", b"{" * 100, b")" * 100, b"'''", b"/*", b'"']
    alphabet = b"(){}[]<>;:,.=+-*/\\\"'`#@!&|^%$ \n\tabcdefxyz0123456789\xff\xc3"
    for _ in range(30):
        samples.append(bytes(rng.choice(alphabet) for _ in range(rng.randint(1, 400))))
    for data in samples:
        pf = parse_file(path, data)
        assert pf is not None and pf.units[0].kind == "file"
        for u in pf.units:
            assert 1 <= u.start_line <= u.end_line
        for e in pf.edges:
            assert e.kind in EDGE_KINDS and e.line >= 1


def _deep(open_: bytes, close: bytes, n: int = 5000) -> bytes:
    return open_ * n + b"1" + close * n


DEEP = {
    "deep.py": b"x = " + _deep(b"(", b")") + b"\ny = " + _deep(b"[", b"]") + b"\n\ndef f():\n    return g(" + _deep(b"h(", b")") + b")\n",
    "deep.js": b"const x = " + _deep(b"(", b")") + b";\nconst y = " + _deep(b"[", b"]") + b";\nfunction f() { return 1; }\n",
    "deep.ts": b"let x = " + _deep(b"(", b")") + b";\nexport function f(): number { return 1; }\n",
    "deep.tsx": b"let x = " + _deep(b"[", b"]") + b";\nexport function f() { return 1; }\n",
    "deep.go": b"package p\n\nvar x = " + _deep(b"(", b")") + b"\n\nfunc f() int { return 1 }\n",
    "deep.rs": b"const X: u32 = " + _deep(b"(", b")") + b";\nfn f() -> u32 { 1 }\n",
    "Deep.java": b"class Deep {\n  int x = " + _deep(b"(", b")") + b";\n  int f() { return 1; }\n}\n",
    "unbalanced.py": b"(" * 20000,
    "unbalanced.js": b"{[(" * 7000,
}


@pytest.mark.parametrize("path", sorted(DEEP))
def test_deep_nesting_does_not_crash(path):
    # prove the parser does not recurse over the tree: leave it little Python stack
    depth = len(inspect.stack(0))
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + 120)
    try:
        start = time.perf_counter()
        pf = parse_file(path, DEEP[path])
        elapsed = time.perf_counter() - start
    finally:
        sys.setrecursionlimit(old)
    assert pf is not None
    assert elapsed < 5.0
    if not path.startswith("unbalanced"):
        assert "f" in {u.name for u in pf.units}


def test_deeply_nested_classes_make_long_qualnames():
    n = 300
    data = b"".join(b"    " * i + b"class C%d:\n" % i for i in range(n)) + b"    " * n + b"pass\n"
    pf = parse_file("nest.py", data)
    assert len(pf.units) == n + 1
    assert pf.units[-1].qualname == ".".join(f"C{i}" for i in range(n))
    assert pf.units[-1].parent == ".".join(f"C{i}" for i in range(n - 1))


# --------------------------------------------------------------------------- structure rules


def test_nested_functions_are_not_units_and_their_calls_go_up():
    src = b'''\
def outer():
    def inner():
        """Inner doc must not become outer's."""
        helper()

    class Local:
        def m(self):
            deep_call()

    return inner


class A:
    # Comment above the first method.
    def f(self):
        async def g():
            await other()
        return g
'''
    pf = parse_file("nest.py", src)
    assert units_of(pf) == {
        ("function", "outer", 1, 10),
        ("class", "A", 13, 18),
        ("method", "A.f", 15, 18),
    }
    outer = [u for u in pf.units if u.qualname == "outer"][0]
    assert outer.docstring == ""
    calls = {(e.source, e.target) for e in pf.edges if e.kind == "calls"}
    assert calls == {("outer", "helper"), ("outer", "deep_call"), ("A.f", "other")}
    assert [u.docstring for u in pf.units if u.qualname == "A.f"] == ["Comment above the first method."]


def test_module_level_calls_and_imports_come_from_the_file():
    src = b"import sys\n\nif __name__ == '__main__':\n    from app import main\n    sys.exit(main())\n"
    pf = parse_file("pkg/__main__.py", src)
    edges = {(e.kind, e.source, e.target, e.line) for e in pf.edges}
    assert ("imports", "pkg/__main__.py", "sys", 1) in edges
    assert ("imports", "pkg/__main__.py", "main", 4) in edges
    assert ("calls", "pkg/__main__.py", "exit", 5) in edges
    assert ("calls", "pkg/__main__.py", "main", 5) in edges


def test_multiline_signature_is_collapsed_and_capped():
    params = ",\n".join(f"    argument_number_{i}: int = {i}" for i in range(40))
    src = f"def long(\n{params},\n) -> None:\n    pass\n".encode()
    pf = parse_file("long.py", src)
    sig = pf.units[1].signature
    assert sig.startswith("def long(argument_number_0: int = 0, argument_number_1: int = 1,")
    assert "\n" not in sig and "  " not in sig
    assert len(sig) <= parse_module.SIGNATURE_MAX


def test_crlf_line_endings():
    src = b"class A:\r\n    def m(self):\r\n        return 1\r\n\r\ndef f():\r\n    pass\r\n"
    pf = parse_file("crlf.py", src)
    assert units_of(pf) == {("class", "A", 1, 3), ("method", "A.m", 2, 3), ("function", "f", 5, 6)}
    assert pf.units[0].end_line == 6


def test_empty_file_has_a_file_unit():
    pf = parse_file("empty.go", b"")
    assert [(u.kind, u.qualname, u.start_line, u.end_line, u.text) for u in pf.units] == [
        ("file", "empty.go", 1, 1, "empty.go")
    ]
    assert pf.edges == [] and not pf.had_errors


# --------------------------------------------------------------------------- file fingerprints


def test_file_fingerprint_from_leading_comment():
    src = b"""\
// Copyright 2024 Example Inc. Licensed under the Apache License 2.0.

// Package auth verifies bearer tokens. It caches public keys.
package auth

func Verify(token string) error { return nil }

type Claims struct{ Sub string }
"""
    pf = parse_file("internal/auth/auth.go", src)
    f = pf.units[0]
    assert (f.kind, f.name, f.qualname, f.start_line, f.end_line) == ("file", "auth.go", "internal/auth/auth.go", 1, 8)
    assert f.docstring == "Package auth verifies bearer tokens. It caches public keys."
    assert f.text == "internal/auth/auth.go\ndefines: Verify, Claims\nPackage auth verifies bearer tokens."
    assert [(e.source, e.target) for e in pf.edges if e.kind == "contains"] == [
        ("internal/auth/auth.go", "Verify"),
        ("internal/auth/auth.go", "Claims"),
    ]


def test_file_fingerprint_caps_the_names():
    src = "".join(f"def f{i}():\n    pass\n" for i in range(100)).encode()
    text = parse_file("many.py", src).units[0].text
    assert text.splitlines()[1].endswith("f39 (+60 more)")


def test_shebang_and_coding_lines_are_not_the_file_doc():
    src = b"#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n\nimport os\n"
    assert parse_file("tool.py", src).units[0].docstring == ""


# --------------------------------------------------------------------------- documents


README = b"""\
---
title: demo
---
[![CI](https://ci.example/badge.svg)](https://ci.example)

hookgraph keeps a semantic map of your repository. It updates in git hooks.

# hookgraph

An always-fresh index.

## Install

```bash
pip install hookgraph
# not a heading
```

## Usage

Run `hookgraph ask`.

### Hooks
Configure pre-commit.

Advanced
--------

Text.

# API #
"""


def test_markdown_sections_with_heading_trail():
    pf = parse_file("docs/README.md", README)
    assert pf.language == "markdown" and not pf.had_errors
    assert units_of(pf) == {
        ("section", "README.md", 4, 6),  # the text before the first heading (front matter skipped)
        ("section", "hookgraph", 8, 10),
        ("section", "hookgraph > Install", 12, 17),  # '# not a heading' is inside a code fence
        ("section", "hookgraph > Usage", 19, 21),
        ("section", "hookgraph > Usage > Hooks", 23, 24),
        ("section", "hookgraph > Advanced", 26, 29),  # setext heading
        ("section", "API", 31, 31),
    }
    hooks = [u for u in pf.units if u.qualname == "hookgraph > Usage > Hooks"][0]
    assert hooks.name == "Hooks"
    assert hooks.parent == "hookgraph > Usage"
    assert hooks.text == "### Hooks\nConfigure pre-commit."
    assert hooks.docstring == "Configure pre-commit."
    install = [u for u in pf.units if u.name == "Install"][0]
    assert "pip install hookgraph" in install.text
    edges = {(e.kind, e.source, e.target) for e in pf.edges}
    assert ("contains", "docs/README.md", "hookgraph") in edges
    assert ("contains", "hookgraph", "hookgraph > Usage") in edges
    assert ("contains", "hookgraph > Usage", "hookgraph > Usage > Hooks") in edges

    f = pf.units[0]
    assert (f.kind, f.qualname, f.start_line, f.end_line) == ("file", "docs/README.md", 1, 31)
    assert f.docstring == "hookgraph keeps a semantic map of your repository. It updates in git hooks."
    assert f.text == (
        "docs/README.md\n"
        "sections: hookgraph, Install, Usage, Hooks, Advanced, API\n"
        "hookgraph keeps a semantic map of your repository."
    )


def test_restructuredtext_sections():
    src = b"""\
=====
Guide
=====

The guide explains everything.

Install
-------

Use pip::

    pip install x
    -------------

Details
~~~~~~~

More.

Usage
-----

Go.
"""
    pf = parse_file("docs/guide.rst", src)
    assert pf.language == "rst"
    assert units_of(pf) == {
        ("section", "Guide", 1, 5),
        ("section", "Guide > Install", 7, 13),
        ("section", "Guide > Install > Details", 15, 18),
        ("section", "Guide > Usage", 20, 23),
    }
    assert pf.units[0].docstring == "The guide explains everything."


def test_markdown_without_headings_is_one_section():
    pf = parse_file("NOTES.md", b"Just a note.\n\nSecond paragraph.\n")
    assert units_of(pf) == {("section", "NOTES.md", 1, 3)}
    assert pf.units[0].docstring == "Just a note."


# --------------------------------------------------------------------------- speed


def test_thousand_line_python_file_parses_fast():
    block = '''\
class Handler{i}(BaseHandler):
    """Handle requests of kind {i}."""

    def __init__(self, app, retries=3):
        super().__init__(app)
        self.retries = retries

    def handle(self, request):
        """Dispatch one request."""
        for attempt in range(self.retries):
            try:
                return self.app.dispatch(request, attempt=attempt)
            except TimeoutError as exc:
                log.warning("retry %s: %s", attempt, exc)
        raise GiveUp(request)


def make_handler_{i}(app):
    return Handler{i}(app)


'''
    src = ("import logging\n\nlog = logging.getLogger(__name__)\n\n\n" + "".join(block.format(i=i) for i in range(46))).encode()
    assert 950 <= src.count(b"\n") <= 1100
    parse_file("warm.py", src)
    best = min(_timed(lambda: parse_file("big.py", src)) for _ in range(5))
    pf = parse_file("big.py", src)
    assert len(pf.units) == 1 + 46 * 4
    assert best < 0.25, f"{best:.3f}s for ~1,000 lines"


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def test_rust_impl_blocks_of_every_shape_prefix_their_methods():
    src = b"""\
impl<'de, R: Read<'de>> de::Deserializer<'de> for &mut Deserializer<R> {
    fn deserialize_any(self) {}
}
impl Pattern for str {
    fn matches(&self) -> bool { true }
}
impl<T> From<T> for crate::value::Value {
    fn from(t: T) -> Self { convert(t) }
}
"""
    pf = parse_file("src/de.rs", src)
    assert units_of(pf) == {
        ("method", "Deserializer::deserialize_any", 2, 2),
        ("method", "str::matches", 5, 5),
        ("method", "Value::from", 8, 8),
    }
    edges = {(e.kind, e.source, e.target, e.target_full) for e in pf.edges}
    assert ("inherits", "Deserializer", "Deserializer", "de::Deserializer") in edges
    assert ("inherits", "str", "Pattern", "Pattern") in edges
    assert ("inherits", "Value", "From", "From") in edges
    assert ("calls", "Value::from", "convert", "convert") in edges
    # the impl's type is not a unit of this file: its methods hang off the file
    assert ("contains", "src/de.rs", "Value::from", "Value::from") in edges
