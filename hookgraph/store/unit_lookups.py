"""The store's lookups of units by name, by place and by file.

The ranking, the graph, context packs and ``status --languages`` ask these by name. Each keeps the
SQL text (and so the row order) the callers were tuned on: several of them break ties by the order
rows come back in.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from hookgraph.store.base import StoreBase


@dataclass(frozen=True)
class UnitRow:
    """A unit as read back from the store."""

    id: int
    path: str
    kind: str
    name: str
    qualname: str
    parent: str | None
    start_line: int
    end_line: int
    language: str
    signature: str
    docstring: str


UNIT_COLUMNS = "id, path, kind, name, qualname, parent, start_line, end_line, language, signature, docstring"


class UnitLookups(StoreBase):
    """Named lookups of ``units`` rows."""

    def units_where(self, clause: str, params: Sequence[Any] = ()) -> list[UnitRow]:
        """The units matching an SQL condition: the store's own building block (and evaluations' ad hoc
        questions); code outside the store asks through the named lookups below."""
        return [UnitRow(*row) for row in self.db.execute(f"SELECT {UNIT_COLUMNS} FROM units WHERE {clause}", params)]

    # -- by name ----------------------------------------------------------------------

    def units_named(self, name: str) -> list[UnitRow]:
        """Units whose own (last) name is ``name``, in any file: a bare name's candidates."""
        return self.units_where("name = ?", (name,))

    def units_with_qualnames(self, qualnames: Sequence[str]) -> list[UnitRow]:
        """Units whose qualified name is one of ``qualnames`` (one name in each language's spelling)."""
        return self.units_where(f"qualname IN ({','.join('?' * len(qualnames))})", qualnames)

    def units_named_any(self, names: Sequence[str]) -> list[UnitRow]:
        """Units whose qualified name or own name is one of ``names``: an identifier asked in any spelling."""
        marks = ",".join("?" * len(names))
        return self.units_where(f"qualname IN ({marks}) OR name IN ({marks})", (*names, *names))

    def units_dotted_ending(self, last: str) -> list[UnitRow]:
        """Units whose own name is dotted and ends in ``.last`` (Elixir's ``defmodule Phoenix.Router``
        asked as ``Router``); ``last`` is a GLOB pattern's tail."""
        return self.units_where("name GLOB ?", ("*." + last,))

    def same_definitions_elsewhere(self, name: str, qualname: str, path: str) -> list[UnitRow]:
        """Units of the same name and qualified name in files other than ``path`` (copies of one definition)."""
        return self.units_where("name = ? AND qualname = ? AND path != ?", (name, qualname, path))

    # -- by place ---------------------------------------------------------------------

    def units_at(self, path: str, qualname: str) -> list[UnitRow]:
        """The units of one file with this qualified name (a member's container is found so)."""
        return self.units_where("path = ? AND qualname = ?", (path, qualname))

    def members_of(self, path: str, parent: str) -> list[UnitRow]:
        """The units of one file whose parent is ``parent``: a container's direct members."""
        return self.units_where("path = ? AND parent = ?", (path, parent))

    def file_units_of(self, path: str) -> list[UnitRow]:
        """The file unit of ``path`` (none where the file has no unit of its own)."""
        return self.units_where("path = ? AND kind = 'file'", (path,))

    def file_units(self) -> list[UnitRow]:
        """Every file unit: what an import's module path is resolved against."""
        return self.units_where("kind = 'file'")

    # -- by file, lists of paths or ids -------------------------------------------------

    def units_of_files(self, paths: Iterable[str]) -> list[tuple[int, str, str]]:
        """``(id, path, kind)`` of every unit in these files (a file a question names brings its units)."""
        return self.rows_in("SELECT id, path, kind FROM units WHERE path IN ({in})", paths)

    def spans_in_files(self, paths: Iterable[str]) -> list[tuple[str, str | None, str, int, int]]:
        """``(path, parent, kind, start line, end line)`` of every unit in these files (by path: the index
        there; a file holds few units): which members a container has, and where they lie."""
        return self.rows_in("SELECT path, parent, kind, start_line, end_line FROM units WHERE path IN ({in})", paths)

    def units_not_waiting(self, unit_ids: Iterable[int]) -> set[int]:
        """Those of these units that wait for no vector (with none, the no-embed rule kept them from the model)."""
        return {int(uid) for (uid,) in self.rows_in("SELECT id FROM units WHERE id IN ({in}) AND text_hash IS NULL",
                                                    unit_ids)}
