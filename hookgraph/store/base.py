"""What every part of the store stands on: the open connection and the query helpers they share.

:class:`~hookgraph.store.Store` is one class, built in layers by job:
:class:`StoreBase` (this), :class:`~hookgraph.store.reads.StoreReads` (the
queries), :class:`~hookgraph.store.writes.StoreWrites` (the writes of one
sync and of the embedder) and :class:`~hookgraph.store.store.Store` (opening,
checking, closing, meta).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, cast

import apsw

from hookgraph.store.schema import VEC_TABLE_RE


class StoreBase:
    """An open database (``db``) and the helpers every query goes through."""

    path: Path
    _db: apsw.Connection | None = None

    @property
    def db(self) -> apsw.Connection:
        """The open connection; using it after :meth:`close` is a bug and raises RuntimeError."""
        if self._db is None:
            raise RuntimeError(f"{self.path}: the store was used after it was closed")
        return self._db

    def rows_in(
        self, sql: str, values: Iterable[Any], before: Sequence[Any] = (), after: Sequence[Any] = ()
    ) -> list[tuple[Any, ...]]:
        """The rows of ``sql`` with its ``{in}`` bound to ``values``, asked 500 at a time.

        SQLite builds may cap bound variables at 999; every lookup by a list
        of ids, names or keys goes through here. ``before``/``after`` are the
        parameters around the list.
        """
        items = list(values)
        rows: list[tuple[Any, ...]] = []
        for start in range(0, len(items), 500):
            chunk = items[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows.extend(self.db.execute(sql.replace("{in}", marks), [*before, *chunk, *after]).fetchall())
        return rows

    def integer(self, sql: str) -> int:
        """The one value of a query that cannot give NULL: a PRAGMA, ``count(*)``, ``coalesce(max(..), 0)``."""
        return int(cast(int, self.db.execute(sql).fetchall()[0][0]))

    def has_vector_table(self) -> bool:
        rows = self.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'vec_units'").fetchall()
        return bool(rows)

    def vector_dims(self) -> int | None:
        """Dimensions of the vec table, from its definition (None when there is none)."""
        rows = self.db.execute("SELECT sql FROM sqlite_master WHERE name = 'vec_units'").fetchall()
        match = VEC_TABLE_RE.fullmatch(" ".join(str(rows[0][0]).split())) if rows else None
        return int(match.group(2)) if match else None
