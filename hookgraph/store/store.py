"""The store itself: opening a database, the checks before its data is used, meta, closing.

:class:`Store` is one class; its queries and writes live in
:mod:`hookgraph.store.reads` and :mod:`hookgraph.store.writes`, the layers it is built on.
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

import apsw

from hookgraph.store import faults
from hookgraph.store.connection import close_quietly, connect
from hookgraph.store.database_files import check_no_links
from hookgraph.store.schema import check_schema, check_version, migrate
from hookgraph.store.unusable import REBUILD, StoreError, UntrustedStoreError
from hookgraph.store.writes import StoreWrites

#: Meta keys that change without the indexed content changing (the embedder's
#: progress, bookkeeping): never part of a store's identity (snapshot export,
#: the MCP server's copy).
VOLATILE_META = frozenset({
    "synced_commit", "synced_map", "embedder_rate", "embedder_updated", "embedder_done", "repo_cache_seeded",
    "vector_sources_rejected", "reembed_no_cache",  # hookgraph.embed.adopt, hookgraph.embed.queue
    "queue_rank_tier",  # hookgraph.embed.order
    "vector_sources_distrusted", "adopted_checked", "adopted_check_seconds",  # hookgraph.embed.recheck
})


class Store(StoreWrites):
    """An open ``index.db``. Use as a context manager or call ``close()``.

    Opening checks, before anything else touches the data: no symlinks
    (:func:`check_no_links`), a schema version this code knows, and a schema
    that is exactly the one our migrations create, so nothing planted in a
    committed database (triggers, views, altered tables) ever runs. Contents
    (stored paths) are checked by :meth:`check_contents` where they are used.
    """

    def __init__(self, path: Path, *, create: bool = False, readonly: bool = False,
                 immutable: bool | None = None) -> None:
        self.path = path
        check_no_links(path)
        if not path.exists():
            if not create:
                raise StoreError(f"no index at {path}: run `hookgraph index` first")
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError.of(faults.diagnose(path, exc)) from None
        #: Opened as ``immutable=1`` (read-only, no ``-shm``): by default where nothing can write the
        #: file or create a ``-shm`` beside it (:func:`faults.can_read_immutable`).
        if immutable is None:
            immutable = readonly and faults.read_only_fault(path) is not None and faults.can_read_immutable(path)
        self.immutable = bool(immutable and readonly)
        self._db = None
        try:
            self._db = connect(path, readonly=readonly, immutable=self.immutable)
            version = check_version(self.db, path)
            check_schema(self.db, path, version)
            if not readonly:
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=NORMAL")
            migrate(self.db, path, readonly)
            self._check_vectors()
        except (apsw.Error, StoreError) as exc:
            close_quietly(self._db)
            self._db = None
            if isinstance(exc, StoreError):
                raise
            raise StoreError.of(faults.diagnose(path, exc)) from None

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def transaction(self) -> apsw.Connection:
        """``with store.transaction():`` — all writes of one sync commit or none do."""
        return self.db

    def begin_read(self) -> None:
        """Open one read transaction that lasts until the store closes: every later read sees one sync's
        state, never parts of two while hooks write (WAL keeps the snapshot)."""
        self.db.execute("BEGIN")

    def copy_to(self, dest: Path) -> None:
        """Write a consistent copy of the database to ``dest`` with SQLite's online backup (writers may go on)."""
        target = apsw.Connection(str(dest))
        try:
            with target.backup("main", self.db, "main") as backup:
                while not backup.done:
                    backup.step(-1)
        finally:
            target.close()

    def page_counts(self) -> tuple[int, int, int]:
        """``(page size, pages, free pages)`` of the file: SQLite reuses free pages but never gives them back."""
        return (self.integer("PRAGMA page_size"), self.integer("PRAGMA page_count"),
                self.integer("PRAGMA freelist_count"))

    def vacuum(self) -> None:
        """Rewrite the file without its free pages and empty the WAL (under the writer's lock, outside a
        transaction): an index that lost most of its units shrinks on disk."""
        self.db.execute("VACUUM")
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


    # -- schema and contents ------------------------------------------------------

    def _check_vectors(self) -> None:
        """Vectors recorded but their vec table gone: every semantic result would silently vanish."""
        if not self.has_vector_table() and self.db.execute("SELECT 1 FROM vectors LIMIT 1").fetchall():
            raise StoreError(f"{self.path} is damaged: its vector table (vec_units) is missing: {REBUILD}",
                             cause="damaged")

    def check_contents(self, root: Path | None = None) -> None:
        """Refuse stored data no sync of ours writes: paths leaving the repository, unknown paths, odd blobs.

        Raises :class:`UntrustedStoreError`. Called where a database's
        contents are about to be used (a committed snapshot before it seeds
        the working index, the index before a query prints from it or a sync
        builds on it), so a ``../../etc/passwd`` row is never read or shown.
        With ``root`` (a snapshot about to seed that work tree), a path under
        a directory that is a symlink there is refused too: git never tracks
        files through a symlink, so such a row was planted.
        """
        from hookgraph.git import safe_relative_path

        parents: set[str] = set()
        for (path,) in self.db.execute("SELECT path FROM files"):
            if not isinstance(path, str) or not safe_relative_path(path):
                raise UntrustedStoreError(
                    f"{self.path} is not trustworthy: it names the path {path!r}, which leaves the "
                    f"repository; hookgraph will not use it: {REBUILD}"
                )
            if root is not None:
                parts = path.split("/")[:-1]
                parents.update("/".join(parts[: n + 1]) for n in range(len(parts)))
        for parent in sorted(parents):
            if root is not None and (root / parent).is_symlink():
                raise UntrustedStoreError(
                    f"{self.path} is not trustworthy: it names files under {parent!r}, a symlink git "
                    f"cannot track files through; hookgraph will not use it: {REBUILD}"
                )
        bad_blob = self.db.execute(
            "SELECT path FROM files WHERE typeof(blob) != 'text' OR length(blob) NOT IN (40, 64) "
            "OR blob GLOB '*[^0-9a-f]*' LIMIT 1"
        ).fetchall()
        if bad_blob:
            raise UntrustedStoreError(
                f"{self.path} is not trustworthy: the blob of {bad_blob[0][0]!r} is not an object name; "
                f"hookgraph will not use it: {REBUILD}"
            )
        stray = self.db.execute("SELECT path FROM units WHERE path NOT IN (SELECT path FROM files) LIMIT 1").fetchall()
        if stray:
            raise UntrustedStoreError(
                f"{self.path} is not trustworthy: units name the path {stray[0][0]!r}, which no "
                f"indexed file has; hookgraph will not use it: {REBUILD}"
            )
        # An edge names no path (schema 4): it belongs to its source unit's file.
        loose = self.db.execute(
            "SELECT source_unit FROM edges WHERE source_unit NOT IN (SELECT id FROM units) LIMIT 1"
        ).fetchall()
        if loose:
            raise UntrustedStoreError(
                f"{self.path} is not trustworthy: an edge leaves unit {loose[0][0]!r}, which it does not "
                f"hold; hookgraph will not use it: {REBUILD}"
            )


    # -- meta ---------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        rows = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchall()
        return cast(str, rows[0][0]) if rows else None  # meta.value is TEXT NOT NULL

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def delete_meta(self, key: str) -> None:
        """Forget a meta key (a flag or a record whose condition passed); no key, no change."""
        self.db.execute("DELETE FROM meta WHERE key = ?", (key,))

    def all_meta(self) -> dict[str, str]:
        return dict(cast("list[tuple[str, str]]", self.db.execute("SELECT key, value FROM meta").fetchall()))
