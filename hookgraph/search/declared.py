"""The type a call's receiver is declared with, as the code writes it (``types`` edges).

A statically typed language shows what a variable is: ``scoped_ptr<LoudsTrie> temp``,
``JsonWriter writer``, ``val req: HttpRequest``, ``park: IoStack`` (a field). Reading the
receiver of ``temp.get()`` by that declaration names the one method it runs, where the
receiver's name alone (``temp``, ``trie_``) says nothing, or worse, looks like another class
(``trie_.swap()`` is no ``Trie.swap``). The parser records each declaration as a ``types`` edge
(:data:`hookgraph.parse.units.EDGE_KINDS`): from the unit that declares the variable (a class
for its fields), ``target`` the variable, ``target_full`` the type as written.
"""

from __future__ import annotations

import re

from hookgraph.parse.written_types import type_names
from hookgraph.store import Store, UnitRow

__all__ = ["declared_type", "type_names"]

_IDENTIFIER = re.compile(r"^[A-Za-z_]\w*$")
#: Receivers that name the calling object (``this->trie_``, ``self.park``).
_SELF = frozenset({"self", "this"})
_JOINS = ("->", ".")


def _split_receiver(receiver: str) -> tuple[str, str] | None:
    """``(first, rest)`` of a receiver written ``first.rest`` or ``first->rest`` with ``rest`` one name."""
    for join in _JOINS:
        if join in receiver:
            first, _, rest = receiver.partition(join)
            return (first, rest) if _IDENTIFIER.match(first) and _IDENTIFIER.match(rest) else None
    return None


def _written_types(rows: list[str]) -> str | None:
    """The one type the rows declare, else the one class they build (``=Reader``); several different ones
    (a variable shadowed or assigned a subclass: ``self._resolver = DefaultResolver()``) answer nothing."""
    declared = {full for full in rows if not full.startswith("=")}
    built = {full[1:] for full in rows if full.startswith("=")}
    types = declared or built
    return types.pop() if len(types) == 1 else None


def declared_type(store: Store, origin: UnitRow, receiver: str, own_receiver: bool,
                  bare_fields: bool) -> str | None:
    """The type ``receiver`` is declared with in ``origin``, as written, or None where the code does not say.

    A plain name (``temp``) is a local or parameter of ``origin``, else, where the language reaches fields
    without ``this`` (``bare_fields``: C++, Java, Kotlin; not Python, whose ``cli`` is a module), a field of
    its class; ``this->trie_`` / ``self.park`` (or Go's named receiver: ``own_receiver`` says the first part
    names the calling object) is a field of the class. The class is the unit named by ``origin``'s parent,
    wherever it is defined (a C++ method defined in a ``.cc`` file, its class in the header).
    """
    if _IDENTIFIER.match(receiver):
        found = _written_types(store.types_declared_in(origin.id, receiver))
        if found is not None or not bare_fields:
            return found
        field = receiver
    else:
        parts = _split_receiver(receiver)
        if parts is None or not (parts[0] in _SELF or own_receiver):
            return None
        field = parts[1]
    if not origin.parent:
        return None
    # declared in the class's body, or (Python) as ``self.field`` in any method of the class
    return _written_types(store.types_of_field(origin.parent, field))


