"""Language support as data: a JSON registry plus one tree-sitter query per language.

Nothing in this package (or in :mod:`hookgraph.parse`) branches on a language
name. Adding a language means adding an entry to ``languages.json`` and a query
file; the parser stays the same.

Registry (``languages.json``)
=============================

Each key is a hookgraph language id; its object has:

``grammar``
    tree-sitter-language-pack grammar name (absent for document languages).
``extensions`` / ``filenames``
    how :func:`language_for_path` recognises a file (extensions are matched
    case-insensitively, longest first; file names exactly).
``query``
    the ``.scm`` file in this folder, or a list of them concatenated in order
    (``tsx`` is ``typescript.scm`` + ``jsx.scm``).
``line_comments`` / ``block_comments``
    comment markers stripped from leading-comment docstrings, longest first
    (``["///", "//!", "//"]``; ``[["/**", "*/"], ["/*", "*/"]]``).
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
``import_separator``
    joins ``@module.reference.import`` and ``@name.reference.import`` into an
    import edge's ``target_full`` (``requests.adapters`` + ``.`` + ``HTTPAdapter``).
``bare_calls_reach_methods``
    ``true`` where a call without a receiver may run a method of the calling
    object (Ruby's ``helper(x)`` is ``self.helper(x)``): callers/callees look
    for the calling class's own method first. Default ``false``: a bare call
    names a function or class.
``self_receivers``
    receivers that, besides ``self``/``this``/``cls``/``super``, name the calling
    object or its class (PHP ``static``, ``parent``; Perl ``$class``). Sigils
    (``$this``, ``@config``) are dropped from receivers before any of this.
``final_newline``
    ``true`` where the grammar must see a newline at the end of the file:
    tree-sitter-perl 0.13 loops forever on a comment that ends the file
    (``return $x # done`` with no newline). The parser adds one (offsets and
    lines are unchanged).
``interpreters``
    program names on a ``#!`` line that mean this language (``bash``,
    ``ruby``, ``escript``), for files without an extension.
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
    ``module``.
``@name.definition.<kind>``
    its name (required, same match). Several patterns may match one name node
    (e.g. with and without a body); they are merged and the largest definition
    node wins.
``@body``
    optional, same match: the body. The signature is the text from the start of
    the name's line up to the body (or the whole definition when absent),
    whitespace-collapsed, trailing ``:``/``{``/``;`` dropped.
``@name.scope``
    optional, same match: a type name that qualifies the definition although it
    does not enclose it (Go method receivers). The unit becomes a method,
    ``Scope.name``, with ``parent = Scope``.

Scoping is derived from node nesting, not from the query: a ``function``
directly inside a class-like unit (class, interface, struct, enum, trait) or a
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
``reference.inherits`` -> ``inherits``.

``@name.reference.call`` (+ optional ``@reference.call``)
    the called name's last identifier; ``target_full`` is the text from the
    start of ``@reference.call`` to the end of the name (``self.adapter.send``),
    with argument lists emptied (``Object.keys().map``).
``@name.reference.import`` (+ optional ``@module.reference.import``)
    an imported module or name, as written (quotes stripped); with a module in
    the same match, ``target_full`` is module + ``import_separator`` + name.
``@name.reference.inherits`` (+ optional ``@reference.inherits``)
    a base class / implemented interface / implemented trait / embedded type /
    mixed-in module; ``target_full`` as for calls (``hooks.Hookable``, ``fmt::Display``).

A call or base captured as one token that is itself qualified (Perl's
``Carp::croak``, the string ``'Base::Class'`` of ``use parent``) is known by
its last part (``croak``); ``target_full`` keeps the whole name.

Captures whose name starts with ``_`` are helpers for predicates and ignored.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:  # tree-sitter is imported when a language is loaded
    import tree_sitter
    from tree_sitter_language_pack import SupportedLanguage

__all__ = [
    "REGISTRY",
    "LanguageSpec",
    "Language",
    "language_for_path",
    "load_language",
    "languages",
]

_HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class LanguageSpec:
    """One entry of ``languages.json``."""

    id: str
    grammar: str | None = None
    extensions: tuple[str, ...] = ()
    filenames: tuple[str, ...] = ()
    query: tuple[str, ...] = ()
    line_comments: tuple[str, ...] = ()
    block_comments: tuple[tuple[str, str], ...] = ()
    wrappers: frozenset[str] = frozenset()
    import_separator: str = "."
    qualname_separator: str = "."
    namespace_separator: str = ""
    sections: str | None = None
    bare_calls_reach_methods: bool = False
    final_newline: bool = False
    self_receivers: frozenset[str] = frozenset()


def _as_tuple(value) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    return tuple(value)


def _load_registry() -> dict[str, LanguageSpec]:
    raw = json.loads((_HERE / "languages.json").read_text(encoding="utf-8"))
    out: dict[str, LanguageSpec] = {}
    for lang_id, entry in raw.items():
        if lang_id.startswith("_"):
            continue
        out[lang_id] = LanguageSpec(
            id=lang_id,
            grammar=entry.get("grammar"),
            extensions=tuple(e.lower() for e in entry.get("extensions", ())),
            filenames=tuple(entry.get("filenames", ())),
            query=_as_tuple(entry.get("query")),
            # longest marker first so "///" is stripped before "//"
            line_comments=tuple(sorted(entry.get("line_comments", ()), key=len, reverse=True)),
            block_comments=tuple(
                tuple(pair) for pair in sorted(entry.get("block_comments", ()), key=lambda p: len(p[0]), reverse=True)
            ),
            wrappers=frozenset(entry.get("wrappers", ())),
            import_separator=entry.get("import_separator", "."),
            qualname_separator=entry.get("qualname_separator", "."),
            namespace_separator=entry.get("namespace_separator") or entry.get("qualname_separator", "."),
            sections=entry.get("sections"),
            bare_calls_reach_methods=bool(entry.get("bare_calls_reach_methods", False)),
            final_newline=bool(entry.get("final_newline", False)),
            self_receivers=frozenset(entry.get("self_receivers", ())),
        )
    return out


#: language id -> :class:`LanguageSpec`, from ``languages.json``.
REGISTRY: dict[str, LanguageSpec] = _load_registry()

_BY_FILENAME: dict[str, str] = {}
_BY_EXTENSION: list[tuple[str, str]] = []
for _spec in REGISTRY.values():
    for _name in _spec.filenames:
        _BY_FILENAME.setdefault(_name, _spec.id)
    for _ext in _spec.extensions:
        _BY_EXTENSION.append((_ext, _spec.id))
_BY_EXTENSION.sort(key=lambda item: len(item[0]), reverse=True)


def languages() -> list[str]:
    """All registered language ids."""
    return list(REGISTRY)


def language_for_path(path: str) -> str | None:
    """The language id for a repository path, or ``None`` when it is unknown."""
    base = os.path.basename(path.replace("\\", "/"))
    if not base:
        return None
    lang = _BY_FILENAME.get(base)
    if lang is not None:
        return lang
    lower = base.lower()
    for ext, lang_id in _BY_EXTENSION:
        if lower.endswith(ext) and len(lower) > len(ext):
            return lang_id
    return None


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
        query = tree_sitter.Query(ts_language, source)
    return Language(spec=spec, ts_language=ts_language, query=query)
