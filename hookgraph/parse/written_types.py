"""A type as the code writes it, read down to the class it names (``scoped_ptr<grimoire::LoudsTrie>``).

Declarations record types as written (``types`` edges, :data:`hookgraph.parse.units.EDGE_KINDS`); both the
graph (a call's receiver by its declared type, :mod:`hookgraph.search.declared`) and the embedding queue's
order (how much the code uses a name, :mod:`hookgraph.embed.order`) need the one class such a text names.
"""

from __future__ import annotations

import re

__all__ = ["type_names"]

_WORD = re.compile(r"[A-Za-z_]\w*")
#: Words of a written type that qualify it and name no type (``const Keyset``, ``&mut Handle``, ``dyn Read``).
_QUALIFIERS = frozenset({"const", "volatile", "struct", "class", "enum", "union", "typename", "mut", "dyn",
                         "impl", "final", "readonly", "unsigned", "signed", "register", "static", "inline"})
#: What an optional type is besides its one type (``X | None``, ``Optional[X]``).
_NOTHING = frozenset({"None", "null", "undefined"})
_OPTIONAL = frozenset({"Optional"})


def type_names(written: str) -> tuple[str, list[str]] | None:
    """The type's own last name and its type arguments' (``scoped_ptr<grimoire::LoudsTrie>`` ->
    ``("scoped_ptr", ["LoudsTrie"])``, ``*RouterGroup`` -> ``("RouterGroup", [])``, ``HttpRequest?`` ->
    ``("HttpRequest", [])``); None for what names no one class (arrays, functions, unions, tuples)."""
    text = written.strip().strip("'\"").rstrip("?")
    kept = [part.strip() for part in text.split("|") if part.strip() not in _NOTHING]
    if "<" not in text and "[" not in text and len(kept) == 1:
        text = kept[0]  # WebSocketWriter | None: the writer, when there is one
    if not text or any(mark in text for mark in ("[]", "=>", "->", "(", "|", "&&", ",")) and "<" not in text:
        return None
    head, _, rest = text.partition("<")
    if "[" in head:  # Go generics: List[T]; a Go slice or map ([]T, map[K]V) is no class
        if head.lstrip("*&").startswith(("[", "map[")):
            return None
        head, _, rest = head.partition("[")
    words = [w for w in _WORD.findall(head) if w not in _QUALIFIERS]
    if not words:
        return None
    arguments = []
    depth = 0
    for part in re.split(r"([<>,\[\]])", rest):
        if part in ("<", "["):
            depth += 1
        elif part in (">", "]"):
            depth -= 1
        elif part != "," and depth == 0:
            names = [w for w in _WORD.findall(part) if w not in _QUALIFIERS]
            if names:
                arguments.append(names[-1])
    if words[-1] in _OPTIONAL and len(arguments) == 1:
        return arguments[0], []  # Optional[AbstractResolver]: the resolver, when there is one
    return words[-1], arguments
