"""Qualified names in every language's own spelling, and lookups that accept any of them.

The index keeps a unit's qualified name as its language writes it:
``Session.request`` in Python, ``Net::HTTP::get`` in Ruby or C++,
``Foo\\Bar::baz`` in PHP (the separators are data: ``qualname_separator`` and
``namespace_separator`` in ``languages.json``). People and agents type
whichever form they know, often the dotted one. So a looked-up symbol is
split on every separator a registered language uses, and matched against
each way the index could spell those parts.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["separators", "split_qualname", "last_part", "spellings", "same_symbol"]


@lru_cache(maxsize=1)
def _styles() -> tuple[tuple[str, str], ...]:
    """Every ``(namespace separator, member separator)`` pair the registry uses; dotted first."""
    from hookgraph.parse.languages import REGISTRY

    styles: dict[tuple[str, str], None] = {(".", "."): None}
    for spec in REGISTRY.values():
        styles[(spec.namespace_separator or spec.qualname_separator, spec.qualname_separator)] = None
    return tuple(styles)


@lru_cache(maxsize=1)
def separators() -> tuple[str, ...]:
    """Every separator a registered language uses, longest first (``::`` before ``.``)."""
    seps = {s for pair in _styles() for s in pair if s}
    return tuple(sorted(seps, key=len, reverse=True))


#: Also understood when typed, never written by the index: Ruby's ``Class#method``.
_TYPED_ONLY = ("#",)


@lru_cache(maxsize=1)
def _splitter() -> re.Pattern[str]:
    return re.compile("|".join(re.escape(s) for s in (*separators(), *_TYPED_ONLY)))


def split_qualname(qualname: str) -> list[str]:
    """``Foo\\Bar::baz`` / ``Foo::Bar.baz`` / ``Foo.Bar.baz`` -> ``["Foo", "Bar", "baz"]``."""
    return [part for part in _splitter().split(qualname.strip()) if part]


def last_part(qualname: str) -> str:
    """The name itself: ``Net::HTTP::get`` -> ``get``."""
    parts = split_qualname(qualname)
    return parts[-1] if parts else qualname


def spellings(symbol: str) -> list[str]:
    """How the index may spell ``symbol``: its parts joined in each registered language's style.

    ``Foo.bar`` -> ``Foo.bar``, ``Foo::bar``, ``Foo\\bar``...; the symbol as
    typed comes first.
    """
    parts = split_qualname(symbol)
    out: dict[str, None] = {symbol.strip(): None}
    if len(parts) > 1:
        for namespace, member in _styles():
            out[namespace.join(parts[:-1]) + member + parts[-1]] = None
            out[member.join(parts)] = None
    return [s for s in out if s]


def same_symbol(qualname: str, symbol: str) -> bool:
    """Whether two spellings name the same parts (``Net::HTTP.get`` == ``Net.HTTP.get``)."""
    return split_qualname(qualname) == split_qualname(symbol)


def ends_with(qualname: str, symbol: str) -> bool:
    """Whether ``qualname``'s parts end with ``symbol``'s (``a::B::c`` ends with ``B.c``)."""
    tail = split_qualname(symbol)
    return bool(tail) and split_qualname(qualname)[-len(tail):] == tail
