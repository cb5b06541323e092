"""Language support as data: a JSON registry plus one tree-sitter query per language.

Nothing in this package (or in :mod:`hookgraph.parse`) branches on a language
name. Adding a language means adding an entry to ``languages.json`` and a query
file; the parser stays the same.

Registry (``languages.json``)
=============================

Each key is a hookgraph language id; its object has:

``grammar``
    tree-sitter-language-pack grammar name (absent for document languages).
``name``
    how people write the language's name (``C++``, ``C#``), for ``status`` and
    ``ask``'s notes; defaults to the id.
``extensions`` / ``filenames``
    how :func:`language_for_path` recognises a file (extensions are matched
    case-insensitively, longest first; file names exactly). An extension
    listed by one language may be *claimed* by others (``claims``).
``claims``
    ``{extension: [regex, ...]}``: files with that extension, although another
    language lists it, may be this language, decided by content
    (:func:`language_for`). Each claimant's score is how many of its regexes
    (Python ``re``, multi-line, on the first 16 KB) match; the highest score
    wins, the language that lists the extension in ``extensions`` wins ties
    and files that no regex matches. ``.h`` is C unless C++ (``namespace``,
    ``class X {``, ``template <``, ``public:``, ``std::``) or Objective-C
    (``@interface``, ``#import``) claim it. A language may list claims for its
    own extension too, to defend it against a claimant.
``interpreters``
    program names on a ``#!`` line that mean this language (``["python",
    "pypy"]``; ``["bash", "sh", "zsh"]``), for files whose name says
    nothing: ``#!/usr/bin/env python3``, ``#!/usr/bin/perl -w`` and
    ``#!/usr/bin/env -S node --flag`` give ``python3``, ``perl``, ``node``. A
    name matches itself followed by a version (``python`` matches
    ``python3.12``, ``ruby`` matches ``ruby2.7``), so list base names only.
``modelines``
    editor mode names that mean this language (``["sh", "shell-script",
    "bash"]``), for files whose name and ``#!`` line say nothing: an Emacs
    ``-*- shell-script -*-`` / ``-*- mode: sh -*-`` in the first two lines or a
    vim ``vim: ft=sh`` / ``filetype=sh`` in the first or last five lines
    (bash-completion's ``completions/ssh`` says only ``-*- shell-script -*-``).
``fallback``
    set only by ``fallback.json``, for formats that are indexed but not
    first-class: ``"blocks"`` (a pack grammar with no query: units of kind
    ``block`` from the top-level nodes) or ``"chunks"`` (plain text: line
    windows of kind ``chunk``); see :mod:`hookgraph.parse.fallback`.
``data``
    ``true`` for a fallback format of settings, data, markup or prose (YAML,
    JSON, INI, HTML, plain text) rather than code: when ``ask`` is asked
    for an identifier defined nowhere, its note lists code that is not
    parsed, and leaves these out.
``mask``
    regexes whose matches (group 1 when the regex has one) are blanked to
    spaces before tree-sitter parses the file; byte offsets and lines stay
    exact and every text shown comes from the real bytes. For what a grammar
    cannot know without the preprocessor: C++ macros between ``class`` and
    the name (``class GTEST_API_ TestPartResult {``, ``class SCOPED_LOCKABLE
    MutexLock {``) and annotation macros after a signature
    (``MutexLock(Mutex* mu) EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) {``,
    ``void Recover() EXCLUSIVE_LOCKS_REQUIRED(mutex_);``).
``mask_blocks``
    regexes for a wrapper whose match (group 1) ends with ``{``: the match
    and the brace that closes it (counted outside strings, character
    literals and comments) are blanked, so the code inside is parsed where
    the wrapper stands. Rust's ``cfg_rt! { ... }`` (tokio keeps most of its
    code in such macros, at the top level and inside ``impl`` blocks). An
    unbalanced wrapper is left as it is. See :mod:`hookgraph.parse.masking`.
``doc_strip``
    regexes removed from leading-comment docstrings (C#'s XML doc tags
    ``<summary>``, ``<param name="x">``); the text of a group a regex
    captures stays (``<see cref="PyObject"/>`` -> ``PyObject``). JavaScript
    and TypeScript drop lint pragmas (``eslint-disable-next-line``), JSDoc's
    tag-only lines (``@private``, ``@override``) and tag markup
    (``@param {number} ts - Epoch`` -> ``number ts - Epoch``).
``self_names``
    names a definition or container takes in the query when it stands for
    the module itself (JavaScript's ``export default function () {}`` is
    captured on ``default``, ``module.exports = {...}`` on ``exports``): such
    a unit, or a container's members, are named after the file instead, its
    stem (``resolveConfig.js`` -> ``resolveConfig``), or its folder's name for
    ``index``/``main``/``mod`` files (``defaults/index.js`` -> ``defaults``).
``overload_signatures``
    node types of bodiless declarations that overload the definition right
    after them (TypeScript's ``function f(a: A): R;`` lines, and
    ``method_signature`` in a class, before ``function f(a) {...}``): where the
    definition has no leading comment of its own, the comments above its
    overloads are its doc, in source order (rxjs documents ``timer`` on its
    first overload only).
``reparse_with``
    ``{extension: [language id, ...]}``: a file with that extension that
    this language parses with syntax errors is parsed as each of these
    languages too, and the parse that finds the most definitions is kept
    (:func:`hookgraph.parse.parse_file`). For a dialect no grammar knows
    whole: an Objective-C++ ``.mm`` file mixes ``@implementation`` blocks
    with C++ classes; as Objective-C, a file that is mostly
    ``jsi::HostObject`` methods loses them all, as C++ the reverse.
``query``
    the ``.scm`` file in this folder, or a list of them concatenated in order
    (``tsx`` is ``typescript.scm`` + ``jsx.scm``).
``line_comments`` / ``block_comments``
    comment markers stripped from leading-comment docstrings, longest first
    (``["///", "//!", "//"]``; ``[["/**", "*/"], ["/*", "*/"]]``).
``doc_comments``
    markers that open a documentation comment (``["/**", "///"]``): such a comment documents the
    definition below it across up to two blank lines, as javadoc, scaladoc, dokka and rustdoc read
    it; any other comment must touch the definition.
``wrappers``
    node types that wrap a definition and belong to it (Python
    ``decorated_definition``, JS ``export_statement``, Go ``type_declaration``):
    a definition node climbs into such a parent when it is the parent's only
    child of its type, so the unit's lines include decorators / ``export`` and
    its leading comment is found above the wrapper.
``qualname_separator``
    joins a definition to the container it is qualified by: ``"."`` (the
    default: ``Session.request``) or the language's own, ``"::"`` for Ruby,
    C++, Perl and Rust (``Net::HTTP::get``). :mod:`hookgraph.parse.qualnames`
    lets every lookup (``ask``, ``callers``, ``callees``, ``graph``) accept
    both that form and the dotted one.
``namespace_separator``
    joins namespace parts where it differs from ``qualname_separator``
    (PHP: ``Foo\\Bar::baz``); defaults to ``qualname_separator``.
    Used for whatever is qualified by a ``@namespace`` (below).
``import_separator``
    joins ``@module.reference.import`` and ``@name.reference.import`` into an
    import edge's ``target_full`` (``requests.adapters`` + ``.`` + ``HTTPAdapter``).
``join_clauses``
    ``true`` when a definition is written as several adjacent top-level nodes
    of one name (Haskell's type signature and equations ``f 0 = ..; f n = ..``):
    they become one unit, from the first to the last, whose signature is the
    first one's.
``blocks``
    for files that embed code in elements (Vue and Svelte single-file
    components): ``{"attribute": "lang", "default": "javascript",
    "languages": {"ts": "typescript", ...}}``. The language's query finds the
    blocks (``@block.tag``: the element's start tag, ``@block.code``: its
    code); each block is parsed as the registry language its ``attribute``
    names (``<script lang="ts">``), or ``default`` without one, with the rest
    of the file blanked so lines and byte offsets stay the whole file's. A
    block in a language not listed (``lang="coffee"``) is skipped.
``bare_calls_reach_methods``
    ``true`` where a call without a receiver may run a method of the calling
    object (Ruby's ``helper(x)`` is ``self.helper(x)``; Java, Kotlin, Swift,
    C#, Scala, C++ and Dart call their own class's methods so): callers/callees look
    for the calling class's own method first. Default ``false``: a bare call
    names a function or class.
``constructor_method``
    the name of the class method that builds an object, where the language
    has one instead of calling the class (Ruby ``new``): ``GzipStream.new(x)``
    is a call of the class ``GzipStream``. Default: none.
``functions_are_methods``
    ``true`` where every function of a package may also be called as a method
    (Perl: a ``sub`` of ``package Foo`` answers ``$self->f``, ``Foo->f`` and
    inherited calls from subclasses): such functions are methods to receivers.
    Default ``false``.
``self_receivers``
    receivers that, besides ``self``/``this``/``cls``/``super``, name the calling
    object or its class (PHP ``static``, ``parent``; Perl ``$class``). Sigils
    (``$this``, ``@config``) are dropped from receivers before any of this.
``final_newline``
    ``true`` where the grammar must see a newline at the end of the file:
    tree-sitter-perl 0.13 loops forever on a comment that ends the file
    (``return $x # done`` with no newline). The parser adds one (offsets and
    lines are unchanged).
``sections``
    for documents: the heading syntax (``markdown-headings``: ATX and setext;
    ``rst-titles``: reST underlined/overlined titles) used to split the file into
    ``section`` units instead of running a query.

Capture convention (the ``*.scm`` files)
========================================

Modelled on the ``@name.definition.*`` / ``@name.reference.*`` style of
tree-sitter ``tags.scm`` files, extended with what hookgraph needs for
signatures, docstrings and scoping. One match carries at most one definition.

Definitions (units)

``@definition.<kind>``
    the whole definition node; ``<kind>`` is a unit kind: ``function``,
    ``method``, ``class``, ``interface``, ``struct``, ``enum``, ``trait``,
    ``type`` (a named type that is none of those: Go's ``type WalkFunc func()``),
    ``constant`` / ``variable`` (a named value at file, package or type level:
    Go ``const`` / ``var``, Rust ``const`` / ``static``, exported JavaScript
    ``const``), ``module``. Captured on two sibling nodes of one match (Dart writes a
    method as ``method_signature`` followed by ``function_body``), the
    definition runs from the first to the last.
``@name.definition.<kind>``
    its name (required, same match). Several patterns may match one name node
    (e.g. with and without a body); they are merged and the largest definition
    node wins; between equal ones, the pattern written first in the query
    names the kind (so specific patterns go before general ones).
``@body``
    optional, same match: the body. The signature is the text from the start of
    the name's line up to the body (or the whole definition when absent),
    whitespace-collapsed, trailing ``:``/``{``/``;`` dropped.
``@name.scope``
    optional, same match: a type name that qualifies the definition although it
    does not enclose it (Go method receivers). The unit becomes a method,
    ``Scope.name``, with ``parent = Scope``. When the scope node contains the
    name (C++ out-of-line ``void net::Client::send() {}``: the scope is the
    whole ``qualified_identifier``), the scope is its text before the name,
    without the separator, and type arguments (``Vec<T>::push``) are dropped.

Scoping is derived from node nesting, not from the query: a ``function``
directly inside a class-like unit (class, interface, struct, enum, trait, type) or a
container is a ``method`` named ``Class.method``; classes nest as
``Outer.Inner``; anything inside a function or method is *not* a unit (it is
part of that function's text, and its calls are attributed to that function);
definitions inside a ``module`` unit are prefixed with its name.

Containers and namespaces

``@container`` + ``@name.container``
    a node that prefixes the qualnames of the definitions inside it without
    being a unit itself (Rust ``impl Foo``). References inside it (e.g. the
    trait of ``impl Trait for Foo``) come from ``Foo``.
``@name.namespace`` (+ optional ``@namespace``, ``@body``)
    a namespace declaration that prefixes the qualnames of the definitions it
    covers, joined with ``namespace_separator``. ``@namespace`` is the whole
    declaration (default: the name's parent node). With a ``@body`` in the
    match it covers just itself (``namespace Foo { ... }``); without, it is a
    statement that covers the rest of the block or file it stands in, up to
    the next such statement there (PHP ``namespace Foo\\Bar;``, Perl
    ``package Foo::Bar;``, Erlang ``-module(foo).``; also C# file-scoped
    namespaces and Kotlin/Java packages). It is not a unit: references under
    it come from the enclosing unit, or the file. Definitions directly inside
    a ``module`` unit join with ``namespace_separator`` too; members of a type
    with ``qualname_separator`` (PHP: ``Foo\\Bar\\Baz::run``).

Documentation

``@doc``
    a docstring literal (Python's first string statement); it belongs to the
    innermost definition containing it, or to the file when there is none.
``@comment``
    every comment. A definition without ``@doc`` takes the contiguous block of
    whole-line comments directly above it (or above its wrapper).
``@annotation``
    nodes that may stand between such a comment block and its definition
    without breaking it (Rust ``#[derive(...)]``, Elixir ``@spec``). What an
    annotation names is no reference: calls inside it make no edges (Elixir's
    ``@spec f(x) :: t`` names ``f`` without calling it).

References (edges); the source is the innermost enclosing unit (or container),
else the file

Edge kinds: ``reference.call`` -> ``calls``, ``reference.import`` -> ``imports``,
``reference.inherits`` -> ``inherits``, ``reference.types`` -> ``types``.

``@name.reference.call`` (+ optional ``@reference.call``)
    the called name's last identifier; ``target_full`` is the text from the
    start of ``@reference.call`` (a node containing the name, or the receiver
    just before it) to the end of the name (``self.adapter.send``), with
    argument lists and trailing lambdas emptied (``Object.keys().map``).
``@name.reference.import`` (+ optional ``@module.reference.import``)
    an imported module or name, as written (quotes stripped); with a module in
    the same match, ``target_full`` is module + ``import_separator`` + name.
    A name or module captured on several nodes of one match (Scala writes
    ``scala.collection.mutable`` as one identifier per segment:
    ``. (identifier) @module.reference.import (identifier) @module.reference.import .``)
    is the source text from the first to the last.
``@name.reference.inherits`` (+ optional ``@reference.inherits``)
    a base class / implemented interface / implemented trait / embedded type /
    mixed-in module; ``target_full`` as for calls (``hooks.Hookable``, ``fmt::Display``).
``@name.reference.types`` + ``@module.reference.types``
    a variable, parameter or field and the type it is declared with, as written
    (``scoped_ptr<grimoire::LoudsTrie> temp``, ``writer: Writer``): an edge of kind
    ``types`` from the enclosing unit (a class for its fields), ``target`` the
    variable, ``target_full`` the type. The graph reads a call's receiver by it.
    Inferred declarations (``var``, ``auto``) are skipped. A Python attribute
    (``self._writer: Writer``) is recorded as written, ``self._writer``.
``@name.reference.builds`` + ``@module.reference.builds``
    the same for a variable whose type is the class its value is built as
    (``var r = new Reader()``, ``w = StreamWriter()``, ``Timer::new()``): ``target_full``
    is ``=Reader``; a declared type of the same variable goes before it.

A call or base captured as one token that is itself qualified (Perl's
``Carp::croak``, the string ``'Base::Class'`` of ``use parent``) is known by
its last part (``croak``); ``target_full`` keeps the whole name.

Exports

``@name.export``
    a name the file exports without defining it as a unit here (an exported
    constant, a re-export, a barrel's ``export * from "./core"``, CommonJS
    ``module.exports = { parse }``): the file unit lists these after its
    definitions (``exports: ...``), so a file that only passes names on
    still says what it offers.

Embedded blocks (``blocks`` languages only)

``@block.tag`` + ``@block.code``
    an element's start tag (its attributes name the language) and the code in it.

Captures whose name starts with ``_`` are helpers for predicates and ignored.
"""

from __future__ import annotations

import json
import os
import re
import signal
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:  # tree-sitter is imported when a language is loaded
    import tree_sitter
    from tree_sitter_language_pack import SupportedLanguage

__all__ = [
    "REGISTRY",
    "Blocks",
    "TEXT_LANGUAGE",
    "LanguageSpec",
    "Language",
    "language_for_path",
    "reparse_languages",
    "language_for",
    "interpreter_language",
    "display_name",
    "load_language",
    "languages",
]

_HERE = Path(__file__).resolve().parent
#: How much of a file content rules (``claims``) look at.
CLAIM_WINDOW = 16_384
#: The ``fallback.json`` entry whose units text of no known format becomes (line-window chunks).
TEXT_LANGUAGE = "text"


@dataclass(frozen=True)
class Blocks:
    """How a file embeds code blocks (``blocks`` in ``languages.json``)."""

    #: the start-tag attribute naming a block's language (``lang``)
    attribute: str = "lang"
    #: the registry language of a block without that attribute
    default: str | None = None
    #: attribute value (lower case) -> registry language id
    languages: tuple[tuple[str, str], ...] = ()

    def language_of(self, value: str | None) -> str | None:
        """The registry language for an attribute value (``None``: absent), or
        ``None`` when the block is in a language we do not parse."""
        if value is None:
            return self.default
        value = value.strip().lower()
        for name, lang in self.languages:
            if name == value:
                return lang
        return None


@dataclass(frozen=True)
class LanguageSpec:
    """One entry of ``languages.json`` (or ``fallback.json``)."""

    id: str
    grammar: str | None = None
    name: str = ""
    extensions: tuple[str, ...] = ()
    filenames: tuple[str, ...] = ()
    interpreters: tuple[str, ...] = ()
    modelines: tuple[str, ...] = ()
    claims: tuple[tuple[str, tuple[re.Pattern[bytes], ...]], ...] = ()
    query: tuple[str, ...] = ()
    line_comments: tuple[str, ...] = ()
    block_comments: tuple[tuple[str, str], ...] = ()
    doc_comments: tuple[str, ...] = ()
    wrappers: frozenset[str] = frozenset()
    import_separator: str = "."
    qualname_separator: str = "."
    namespace_separator: str = ""
    join_clauses: bool = False
    blocks: Blocks | None = None
    sections: str | None = None
    bare_calls_reach_methods: bool = False
    functions_are_methods: bool = False
    constructor_method: str = ""
    final_newline: bool = False
    self_receivers: frozenset[str] = frozenset()
    fallback: str | None = None
    data: bool = False
    mask: tuple[re.Pattern[bytes], ...] = ()
    mask_blocks: tuple[re.Pattern[bytes], ...] = ()
    doc_strip: re.Pattern[str] | None = None
    self_names: frozenset[str] = frozenset()
    overload_signatures: frozenset[str] = frozenset()
    reparse_with: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def display_name(self) -> str:
        return self.name or self.id


def _as_tuple(value) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    return tuple(value)


def _blocks(entry) -> Blocks | None:
    if not entry:
        return None
    languages = tuple((str(k).lower(), str(v)) for k, v in entry.get("languages", {}).items())
    return Blocks(attribute=entry.get("attribute", "lang"), default=entry.get("default"), languages=languages)


def _spec(lang_id: str, entry: dict, fallback: str | None) -> LanguageSpec:
    doc_strip = entry.get("doc_strip") or ()
    return LanguageSpec(
        id=lang_id,
        grammar=entry.get("grammar"),
        name=entry.get("name", ""),
        extensions=tuple(e.lower() for e in entry.get("extensions", ())),
        filenames=tuple(entry.get("filenames", ())),
        interpreters=tuple(entry.get("interpreters", ())),
        modelines=tuple(entry.get("modelines", ())),
        claims=tuple(
            (ext.lower(), tuple(re.compile(rx.encode(), re.MULTILINE) for rx in rules))
            for ext, rules in entry.get("claims", {}).items()
        ),
        query=_as_tuple(entry.get("query")),
        # longest marker first so "///" is stripped before "//"
        line_comments=tuple(sorted(entry.get("line_comments", ()), key=len, reverse=True)),
        block_comments=tuple(
            tuple(pair) for pair in sorted(entry.get("block_comments", ()), key=lambda p: len(p[0]), reverse=True)
        ),
        doc_comments=tuple(entry.get("doc_comments", ())),
        wrappers=frozenset(entry.get("wrappers", ())),
        import_separator=entry.get("import_separator", "."),
        qualname_separator=entry.get("qualname_separator", "."),
        namespace_separator=entry.get("namespace_separator") or entry.get("qualname_separator", "."),
        join_clauses=bool(entry.get("join_clauses", False)),
        blocks=_blocks(entry.get("blocks")),
        sections=entry.get("sections"),
        fallback=fallback or entry.get("fallback"),
        data=bool(entry.get("data", False)),
        mask=tuple(re.compile(rx.encode(), re.MULTILINE) for rx in entry.get("mask", ())),
        mask_blocks=tuple(re.compile(rx.encode(), re.MULTILINE) for rx in entry.get("mask_blocks", ())),
        doc_strip=re.compile("|".join(f"(?:{rx})" for rx in doc_strip)) if doc_strip else None,
        bare_calls_reach_methods=bool(entry.get("bare_calls_reach_methods", False)),
        functions_are_methods=bool(entry.get("functions_are_methods", False)),
        constructor_method=str(entry.get("constructor_method", "")),
        final_newline=bool(entry.get("final_newline", False)),
        self_receivers=frozenset(entry.get("self_receivers", ())),
        self_names=frozenset(entry.get("self_names", ())),
        overload_signatures=frozenset(entry.get("overload_signatures", ())),
        reparse_with=tuple((ext.lower(), tuple(ids)) for ext, ids in entry.get("reparse_with", {}).items()),
    )


def _load_registry() -> dict[str, LanguageSpec]:
    """First-class languages (``languages.json``), then the fallback formats
    (``fallback.json``); a fallback entry never replaces a first-class one."""
    out: dict[str, LanguageSpec] = {}
    for file_name in ("languages.json", "fallback.json"):
        raw = json.loads((_HERE / file_name).read_text(encoding="utf-8"))
        for lang_id, entry in raw.items():
            if lang_id.startswith("_") or lang_id in out:
                continue
            default = None if file_name == "languages.json" else entry.get("fallback", "blocks")
            out[lang_id] = _spec(lang_id, entry, default)
    return out


#: language id -> :class:`LanguageSpec`, from ``languages.json`` and ``fallback.json``.
REGISTRY: dict[str, LanguageSpec] = _load_registry()

_BY_FILENAME: dict[str, str] = {}
_BY_EXTENSION: list[tuple[str, str]] = []
_BY_INTERPRETER: dict[str, str] = {}
_BY_MODELINE: dict[str, str] = {}
#: extension -> [(claimant id, its regexes)] in registry order.
_CLAIMS: dict[str, list[tuple[str, tuple[re.Pattern[bytes], ...]]]] = {}
for _spec_entry in REGISTRY.values():
    for _name in _spec_entry.filenames:
        _BY_FILENAME.setdefault(_name, _spec_entry.id)
    for _ext in _spec_entry.extensions:
        _BY_EXTENSION.append((_ext, _spec_entry.id))
    for _program in _spec_entry.interpreters:
        _BY_INTERPRETER.setdefault(_program, _spec_entry.id)
    for _mode in _spec_entry.modelines:
        _BY_MODELINE.setdefault(_mode.lower(), _spec_entry.id)
    for _ext, _rules in _spec_entry.claims:
        _CLAIMS.setdefault(_ext, []).append((_spec_entry.id, _rules))
# an extension belongs to the first language listing it (first-class before
# fallback); longest first, so ".d.ts" is tried before ".ts"
_BY_EXTENSION = sorted(dict(reversed(_BY_EXTENSION)).items(), key=lambda item: len(item[0]), reverse=True)
#: The same, looked up by each ending of a name (a sync asks for every tracked file: a scan of the list took
#: 0.2 ms a name).
_EXTENSION_LANGUAGE = dict(_BY_EXTENSION)
_SHEBANG = re.compile(rb"^#![ \t]*(\S+)((?:[ \t]+\S+)*)")
_EMACS_MODE = re.compile(rb"-\*-\s*(?:.*?\bmode:\s*)?([\w+.-]+)\s*;?.*?-\*-", re.IGNORECASE)
_VIM_MODE = re.compile(rb"\b(?:vim?|ex):.*?\b(?:ft|filetype)=([\w+.-]+)")
_VERSION_SUFFIX = re.compile(r"[-_]?[0-9][0-9.]*$")


def languages() -> list[str]:
    """All registered language ids."""
    return list(REGISTRY)


def display_name(lang: str | None) -> str:
    """How people write a language id's name (``cpp`` -> ``C++``); ``unknown`` for None."""
    if lang is None:
        return "unknown"
    spec = REGISTRY.get(lang)
    return spec.display_name if spec is not None else lang


def _extension_match(path: str) -> tuple[str | None, str | None]:
    """(language id, matched extension) from the file's name alone."""
    base = os.path.basename(path.replace("\\", "/"))
    if not base:
        return None, None
    lang = _BY_FILENAME.get(base)
    if lang is not None:
        return lang, None
    lower = base.lower()
    for start in range(1, len(lower)):  # the longest registered extension the name ends with (never all of it)
        lang_id = _EXTENSION_LANGUAGE.get(lower[start:])
        if lang_id is not None:
            return lang_id, lower[start:]
    return None, None


def reparse_languages(lang: str, path: str) -> tuple[str, ...]:
    """The languages a file of ``lang`` at ``path`` is parsed as too when ``lang`` finds syntax errors
    (``reparse_with``; empty for most files)."""
    rules = REGISTRY[lang].reparse_with
    if not rules:
        return ()
    lower = os.path.basename(path.replace("\\", "/")).lower()
    for ext, ids in rules:
        if lower.endswith(ext):
            return ids
    return ()


def language_for_path(path: str) -> str | None:
    """The language id a repository path's name gives, or ``None`` when it says nothing.

    Without the file's bytes, an extension claimed by several languages
    (``.h``) goes to the one that lists it; :func:`language_for` decides by content.
    """
    return _extension_match(path)[0]


def _compile_query(tree_sitter: Any, ts_language: Any, source: str) -> Any:
    """``tree_sitter.Query(ts_language, source)`` with Ctrl-C held back until it is built.

    The binding compiles each ``#match?`` regex by calling Python's ``re``;
    a KeyboardInterrupt raised inside that call becomes ``QueryError: regular
    expression error``, an "internal error" where the user pressed Ctrl-C.
    On the main thread (the only one Python runs signal handlers on) a
    SIGINT during the build is noted and handed to the previous handler
    once the query exists: the usual one-line interruption.
    """
    if threading.current_thread() is not threading.main_thread():
        return tree_sitter.Query(ts_language, source)
    noted: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, _frame: noted.append(number))
    try:
        return tree_sitter.Query(ts_language, source)
    finally:
        signal.signal(signal.SIGINT, previous)
        if noted:
            _replay_sigint(previous)


def _replay_sigint(handler: Any) -> None:
    """What SIGINT would have done under ``handler`` (Python's default raises KeyboardInterrupt)."""
    if callable(handler):
        handler(signal.SIGINT, None)
    elif handler == signal.SIG_DFL:
        os.kill(os.getpid(), signal.SIGINT)


def language_for(path: str, data: bytes) -> str | None:
    """The language of a file from its name and its bytes, or ``None`` when unknown.

    Name first (file name, then extension); for an extension other languages
    claim, the content decides (``claims``); a file whose name says nothing,
    or only that it is plain text, is decided by its ``#!`` line
    (``interpreters``).
    """
    lang, ext = _extension_match(path)
    if ext is not None and ext in _CLAIMS:
        lang = _claimed(lang, _CLAIMS[ext], data[:CLAIM_WINDOW])
    if lang is None or REGISTRY[lang].fallback == "chunks":
        by_shebang = interpreter_language(data)
        if by_shebang is not None:
            return by_shebang
        by_modeline = modeline_language(data)
        if by_modeline is not None:
            return by_modeline
    return lang


def modeline_language(data: bytes) -> str | None:
    """The language an editor modeline names (Emacs ``-*- sh -*-``, vim ``ft=sh``), or ``None``."""
    head = data[:1024].split(b"\n", 2)[:2]
    for line in head:
        m = _EMACS_MODE.search(line)
        if m is not None:
            lang = _BY_MODELINE.get(m.group(1).decode("ascii", "replace").lower())
            if lang is not None:
                return lang
    lines = data[:4096].split(b"\n", 5)[:5] + data[-4096:].rsplit(b"\n", 5)[-5:]
    for line in lines:
        m = _VIM_MODE.search(line)
        if m is not None:
            lang = _BY_MODELINE.get(m.group(1).decode("ascii", "replace").lower())
            if lang is not None:
                return lang
    return None


def _claimed(owner: str | None, claimants: list[tuple[str, tuple[re.Pattern[bytes], ...]]], head: bytes) -> str | None:
    best, best_score = owner, 0
    for lang_id, rules in claimants:
        score = sum(1 for rule in rules if rule.search(head))
        if score > best_score or (score == best_score and score and lang_id == owner):
            best, best_score = lang_id, score
    return best


def interpreter_language(data: bytes) -> str | None:
    """The language a ``#!`` first line names, or ``None``."""
    if not data.startswith(b"#!"):
        return None
    m = _SHEBANG.match(data[:256])
    if m is None:
        return None
    words = [m.group(1)] + m.group(2).split()
    program = os.path.basename(words[0].decode("utf-8", "replace"))
    if program == "env":  # /usr/bin/env [-S] [VAR=x] [-opts] program
        rest = [w.decode("utf-8", "replace") for w in words[1:]]
        rest = [w for w in rest if not w.startswith("-") and "=" not in w]
        if not rest:
            return None
        program = os.path.basename(rest[0])
    return _BY_INTERPRETER.get(program) or _BY_INTERPRETER.get(_VERSION_SUFFIX.sub("", program))


@dataclass
class Language:
    """A loaded language: its spec, tree-sitter language, compiled query.

    ``parser`` is per thread (tree-sitter parsers must not be shared between
    threads); the compiled ``query`` is shared. Document languages (``sections``)
    have neither.
    """

    spec: LanguageSpec
    ts_language: tree_sitter.Language | None = None
    query: tree_sitter.Query | None = None
    _local: threading.local = field(default_factory=threading.local, repr=False)

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def parser(self):
        if self.ts_language is None:
            return None
        parser = getattr(self._local, "parser", None)
        if parser is None:
            import tree_sitter

            parser = tree_sitter.Parser(self.ts_language)
            self._local.parser = parser
        return parser


@lru_cache(maxsize=None)
def load_language(lang: str) -> Language:
    """The cached :class:`Language` for a registry id (query compiled once per process).

    Raises ``KeyError`` for an unknown id.
    """
    spec = REGISTRY[lang]
    if spec.grammar is None:
        return Language(spec=spec)
    import tree_sitter
    from tree_sitter_language_pack import get_language

    ts_language = get_language(cast("SupportedLanguage", spec.grammar))  # a name from languages.json
    query = None
    if spec.query:
        source = "\n".join((_HERE / name).read_text(encoding="utf-8") for name in spec.query)
        query = _compile_query(tree_sitter, ts_language, source)
    return Language(spec=spec, ts_language=ts_language, query=query)
