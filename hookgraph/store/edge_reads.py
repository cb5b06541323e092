"""The store's questions about edges: who imports, inherits, declares or uses what.

The graph's resolution (:mod:`hookgraph.search.graph`, :mod:`hookgraph.search.declared`) and the
embedding queue's order (:mod:`hookgraph.embed.order`) ask these by name; each answer keeps the row
order of its query, which the callers' tie-breaking reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from hookgraph.store.base import StoreBase


class EdgeReads(StoreBase):
    """Named reads of ``edges`` joined with the units they leave."""

    # -- imports of one file --------------------------------------------------------

    def imports_of_file(self, path: str) -> list[str]:
        """The full target of every ``imports`` edge of the file's units (a file imports tens of names:
        the caller filters them)."""
        rows = cast("list[tuple[str]]", self.db.execute(
            "SELECT coalesce(e.target_full, e.target) FROM units u JOIN edges e ON e.source_unit = u.id "
            "WHERE u.path = ? AND e.kind = 'imports'",
            (path,),
        ).fetchall())
        return [full for (full,) in rows]

    def imports_of_name(self, path: str, name: str) -> list[str]:
        """The full target of each ``imports`` edge of the file whose short target is ``name`` (whether the
        module is imported by an absolute name)."""
        rows = cast("list[tuple[str]]", self.db.execute(  # target TEXT NOT NULL
            "SELECT coalesce(e.target_full, e.target) FROM units u JOIN edges e ON e.source_unit = u.id "
            "WHERE u.path = ? AND e.kind = 'imports' AND e.target = ?",
            (path, name),
        ).fetchall())
        return [full for (full,) in rows]

    def imports_everything(self, path: str) -> bool:
        """Whether the file imports a module's every name (``from x import *``, ``use super::*``,
        ``export * from``): any name may then come from there."""
        row = self.db.execute(
            "SELECT 1 FROM units u JOIN edges e ON e.source_unit = u.id WHERE u.path = ? AND e.kind = 'imports' "
            "AND (e.target = '*' OR e.target_full LIKE '%*') LIMIT 1",
            (path,),
        ).fetchone()
        return row is not None

    # -- inheritance --------------------------------------------------------------------

    def subclass_names(self, name: str) -> set[str]:
        """Names of the classes that declare ``name`` as a base (a call on a base may run an override)."""
        rows = self.db.execute(
            "SELECT u.name FROM edges e JOIN units u ON u.id = e.source_unit WHERE e.kind = 'inherits' AND e.target = ?",
            (name,),
        ).fetchall()
        return {cast(str, r[0]) for r in rows}  # units.name is TEXT NOT NULL

    def bases_of(self, names: Sequence[str]) -> list[tuple[str, str]]:
        """``(target, full target)`` of the ``inherits`` edges of the classes named (by name or qualified
        name) in ``names``: one generation of ancestors, in every language's spelling."""
        marks = ",".join("?" * len(names))
        return cast("list[tuple[str, str]]", self.db.execute(
            "SELECT e.target, coalesce(e.target_full, e.target) FROM edges e JOIN units u ON u.id = e.source_unit "
            f"WHERE e.kind = 'inherits' AND (u.name IN ({marks}) OR u.qualname IN ({marks}))",
            (*names, *names),
        ).fetchall())

    # -- declared types -----------------------------------------------------------------

    def types_declared_in(self, unit_id: int, variable: str) -> list[str]:
        """The types (as written; ``=T``: built as T) the unit declares ``variable`` with: a local or a
        parameter's type names the method a call on it runs."""
        rows = cast("list[tuple[str]]", self.db.execute(
            "SELECT coalesce(target_full, target) FROM edges WHERE source_unit = ? AND kind = 'types' "
            "AND target = ?", (unit_id, variable)).fetchall())
        return [full for (full,) in rows]

    def types_of_field(self, owner: str, field: str) -> list[str]:
        """The types (as written) the class ``owner`` declares ``field`` with, in its body or (Python) as
        ``self.field`` in any of its methods."""
        rows = cast("list[tuple[str]]", self.db.execute(
            "SELECT coalesce(e.target_full, e.target) FROM edges e JOIN units u ON u.id = e.source_unit "
            "WHERE e.kind = 'types' AND ((u.qualname = ? AND u.kind NOT IN ('function', 'method', 'file') "
            "AND e.target = ?) OR (u.parent = ? AND e.target = ?))",
            (owner, field, owner, f"self.{field}")).fetchall())
        return [full for (full,) in rows]

    # -- use counts ---------------------------------------------------------------------

    def use_counts(self, kinds: Sequence[str]) -> list[tuple[str, str, int]]:
        """``(edge kind, name used as written, edges)`` for edges of ``kinds``, counted in SQL (a repository
        has hundreds of thousands): a ``types`` edge counts its type (``target_full``), the others their
        target. The embedding queue embeds the most used code first."""
        return cast("list[tuple[str, str, int]]", self.db.execute(
            "SELECT kind, CASE kind WHEN 'types' THEN target_full ELSE target END AS used, count(*) FROM edges "
            f"WHERE kind IN ({', '.join('?' * len(kinds))}) GROUP BY kind, used", tuple(kinds)).fetchall())
