"""The SQLite store: schema, migrations, writes of one sync, and the raw queries.

One file, ``.hookgraph/index.db``. The stdlib ``sqlite3`` here cannot load
extensions, so we use apsw (which bundles a recent SQLite with FTS5 and
``contentless_delete``) and load sqlite-vec into it. A committed database comes
from other people, so after sqlite-vec is loaded extension loading is switched
off and ``trusted_schema`` is OFF: nothing planted in the schema can call a
function with side effects.

"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import apsw

from hookgraph.store import faults
from hookgraph.store.connection import connect
from hookgraph.store.errors import REBUILD, SchemaUpgradeNeeded, StoreError, UntrustedStoreError, damaged
from hookgraph.store.paths import (
    DB_DIRNAME, DB_FILENAME, SIDECARS, check_no_links, db_path, quarantine, remove_database,
)
from hookgraph.store.schema import (
    INT8_SCHEMA, MIGRATIONS, SCHEMA_VERSION, VEC_TABLE_RE, check_schema, check_version, migrate, user_version,
    vec_table_sql,
)
from hookgraph.store.vectors import dequantize, quantize, window_key

__all__ = [
    "DB_DIRNAME", "DB_FILENAME", "INT8_SCHEMA", "MIGRATIONS", "REBUILD", "SCHEMA_VERSION", "SIDECARS", "SchemaUpgradeNeeded", "StoreError", "UntrustedStoreError",
    "check_no_links", "damaged", "db_path", "dequantize", "quantize", "quarantine", "remove_database", "window_key",
]

if TYPE_CHECKING:  # numpy is imported where vectors are handled: a hook that
    import numpy as np  # touches no code must not pay ~80 ms for it


#: Meta keys that change without the indexed content changing (the embedder's
#: progress, bookkeeping): never part of a store's identity (snapshot export,
#: the MCP server's copy).
VOLATILE_META = frozenset({
    "synced_commit", "embedder_rate", "embedder_updated", "embedder_done", "repo_cache_seeded",
    "vector_sources_rejected", "reembed_no_cache",  # hookgraph.sync.adopt, hookgraph.embed.queue
})

#: How many orphaned embeddings to keep for revival (oldest dropped first).
VECTOR_CACHE_LIMIT = 2000

#: FTS column weights for bm25(): a hit in the name outweighs one in the body.
FTS_WEIGHTS = (10.0, 6.0, 2.0, 3.0, 2.0, 1.0)


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


class Store:
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
        self._db: apsw.Connection | None = None
        try:
            self._db = connect(path, readonly=readonly, immutable=self.immutable)
            version = check_version(self.db, path)
            check_schema(self.db, path, version)
            if not readonly:
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=NORMAL")
            migrate(self.db, path, readonly)
            self._check_vectors()
        except apsw.Error as exc:
            self._close_quietly()
            raise StoreError.of(faults.diagnose(path, exc)) from None
        except StoreError:
            self._close_quietly()
            raise

    @property
    def db(self) -> apsw.Connection:
        """The open connection; using it after :meth:`close` is a bug and raises RuntimeError."""
        if self._db is None:
            raise RuntimeError(f"{self.path}: the store was used after it was closed")
        return self._db

    def _close_quietly(self) -> None:
        if self._db is not None:
            try:
                self._db.close()
            except apsw.Error:
                pass
            self._db = None

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

    # -- schema -----------------------------------------------------------------

    def _version(self) -> int:
        return user_version(self.db)

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

    # -- meta -------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        rows = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchall()
        return cast(str, rows[0][0]) if rows else None  # meta.value is TEXT NOT NULL

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def all_meta(self) -> dict[str, str]:
        return dict(cast("list[tuple[str, str]]", self.db.execute("SELECT key, value FROM meta").fetchall()))

    def has_vector_table(self) -> bool:
        rows = self.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'vec_units'").fetchall()
        return bool(rows)

    def ensure_vector_table(self, dims: int) -> None:
        """Create the vec0 table for ``dims``-dimensional vectors (first index only)."""
        if not self.has_vector_table():
            self.db.execute(vec_table_sql(dims, int8=True))

    def vector_dims(self) -> int | None:
        """Dimensions of the vec table, from its definition (None when there is none)."""
        rows = self.db.execute("SELECT sql FROM sqlite_master WHERE name = 'vec_units'").fetchall()
        match = VEC_TABLE_RE.fullmatch(" ".join(str(rows[0][0]).split())) if rows else None
        return int(match.group(2)) if match else None

    # -- files ------------------------------------------------------------------

    def file_map(self) -> dict[str, str]:
        """``{path: blob}`` of everything the last sync saw."""
        # files: path TEXT PRIMARY KEY, blob TEXT NOT NULL
        return dict(cast("list[tuple[str, str]]", self.db.execute("SELECT path, blob FROM files").fetchall()))

    def paths_with_status(self, status: str) -> list[str]:
        """The paths whose file row has this status (``skipped:parser-crash``), sorted."""
        rows = cast("list[tuple[str]]", self.db.execute(
            "SELECT path FROM files WHERE status = ? ORDER BY path", (status,)).fetchall())
        return [path for (path,) in rows]

    def upsert_file(self, path: str, blob: str, language: str | None, status: str, units: int, truncated: int) -> None:
        self.db.execute(
            "INSERT INTO files(path, blob, language, status, units, truncated) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(path) DO UPDATE SET blob=excluded.blob, language=excluded.language, "
            "status=excluded.status, units=excluded.units, truncated=excluded.truncated",
            (path, blob, language, status, units, truncated),
        )

    def delete_file(self, path: str) -> None:
        self.delete_units_of(path)
        self.db.execute("DELETE FROM files WHERE path = ?", (path,))

    # -- units, text, edges -----------------------------------------------------

    def delete_units_of(self, path: str) -> None:
        ids = [r[0] for r in self.db.execute("SELECT id FROM units WHERE path = ?", (path,))]
        if ids:
            self.db.executemany("DELETE FROM fts_units WHERE rowid = ?", ((i,) for i in ids))
            # Every edge's source is a unit of its own file: edges_source finds them (no index on path).
            self.db.executemany("DELETE FROM edges WHERE source_unit = ?", ((i,) for i in ids))
        self.db.execute("DELETE FROM units WHERE path = ?", (path,))

    def insert_unit(self, values: Sequence[Any], fts: Sequence[str], text_hash: bytes | None = None) -> int:
        """Insert one unit (columns of UNIT_COLUMNS without id, plus vector_id) and its FTS row.

        ``text_hash``: the key of the vector it waits for (``vector_id`` None).
        """
        self.db.execute(
            "INSERT INTO units(path, kind, name, qualname, parent, start_line, end_line, language, "
            "signature, docstring, vector_id, text_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (*values, text_hash),
        )
        unit_id = int(self.db.last_insert_rowid())
        self.db.execute(
            "INSERT INTO fts_units(rowid, name, words, path, signature, docstring, body) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (unit_id, *fts),
        )
        return unit_id

    def insert_edges(self, rows: Iterable[tuple[int, str, str, str, int]]) -> None:
        """``(source unit, kind, target, target_full, line)`` rows; ``target_full`` is kept only where it differs."""
        self.db.executemany(
            "INSERT INTO edges(source_unit, kind, target, target_full, line) VALUES (?1, ?2, ?3, nullif(?4, ?3), ?5)",
            rows,
        )

    # -- vectors ----------------------------------------------------------------

    def vector_ids(self, text_hashes: Iterable[bytes]) -> dict[bytes, int]:
        """Which of these text hashes already have a vector, and its id."""
        return {
            text_hash: int(vid)
            for text_hash, vid in self.rows_in("SELECT text_hash, id FROM vectors WHERE text_hash IN ({in})", text_hashes)
        }

    def vector_info(self, text_hashes: Iterable[bytes]) -> dict[bytes, tuple[int, int, bool]]:
        """``{text hash: (first window's vector id, windows, truncated)}`` for the known ones."""
        return {
            text_hash: (int(vid), int(windows), bool(truncated))
            for text_hash, vid, windows, truncated in self.rows_in(
                "SELECT text_hash, id, windows, truncated FROM vectors WHERE text_hash IN ({in})", text_hashes
            )
        }

    def insert_vector(
        self,
        text_hash: bytes,
        vector: np.ndarray,
        language: str,
        *,
        head: int | None = None,
        windows: int = 1,
        truncated: bool = False,
    ) -> int:
        self.db.execute(
            "INSERT INTO vectors(text_hash, head, windows, truncated) VALUES (?, ?, ?, ?)",
            (text_hash, head, int(windows), int(truncated)),
        )
        vid = int(self.db.last_insert_rowid())
        self.db.execute(
            "INSERT INTO vec_units(rowid, embedding, language) VALUES (?, vec_int8(?), ?)",
            (vid, quantize(vector), language),
        )
        return vid

    def insert_windows(self, text_hash: bytes, vectors: np.ndarray, language: str, truncated: bool) -> int:
        """One text's window vectors (``(n, dims)``); returns the first window's id, the one units point at."""
        head = self.insert_vector(text_hash, vectors[0], language, windows=len(vectors), truncated=truncated)
        for n in range(1, len(vectors)):
            self.insert_vector(window_key(text_hash, n), vectors[n], language, head=head)
        return head

    def iter_vectors(self) -> Iterator[tuple[bytes, int, bool, bytes]]:
        """Every stored text as ``(key, windows, truncated, int8 embedding of its windows in order)``."""
        if not self.has_vector_table():
            return
        heads = self.db.execute("SELECT id, text_hash, windows, truncated FROM vectors WHERE head IS NULL").fetchall()
        for vid, key, windows, truncated in heads:
            ids = [int(vid)]  # type: ignore[arg-type]
            if int(windows) > 1:  # type: ignore[arg-type]
                ids += [int(cast(int, r[0])) for r in self.db.execute(
                    "SELECT id FROM vectors WHERE head = ? ORDER BY id", (vid,))]
            parts = []
            for rowid in ids:
                rows = self.db.execute("SELECT embedding FROM vec_units WHERE rowid = ?", (rowid,)).fetchall()
                if not rows or not isinstance(rows[0][0], bytes):
                    break
                parts.append(rows[0][0])
            if len(parts) == len(ids) and isinstance(key, bytes):
                yield key, len(parts), bool(truncated), b"".join(parts)

    def collect_orphan_vectors(self) -> int:
        """Take vectors no live unit points to out of the KNN index; a stale vector must never be ranked.

        A text's later windows go with its first. Their embeddings move to
        ``vector_cache`` (bounded), so a reverted edit or a file deleted and
        restored is revived instead of re-embedded. Returns how many texts.
        """
        heads = self.db.execute(
            "SELECT v.id, v.text_hash, v.windows, v.truncated FROM vectors v "
            "WHERE v.head IS NULL AND NOT EXISTS (SELECT 1 FROM units u WHERE u.vector_id = v.id)"
        ).fetchall()
        orphans = [(r[0], r[1], r[2], r[3]) for r in heads]
        if self.db.execute("SELECT 1 FROM vectors WHERE head IS NOT NULL LIMIT 1").fetchall():
            orphans += [
                (r[0], r[1], 1, 0)
                for r in self.db.execute(
                    "SELECT w.id, w.text_hash FROM vectors w WHERE w.head IS NOT NULL AND NOT EXISTS "
                    "(SELECT 1 FROM units u WHERE u.vector_id = w.head)"
                )
            ]
        if not orphans:
            return 0
        seq = self.integer("SELECT coalesce(max(orphaned_seq), 0) FROM vector_cache")
        for vid, text_hash, windows, truncated in orphans:
            rows = self.db.execute("SELECT embedding, language FROM vec_units WHERE rowid = ?", (vid,)).fetchall()
            if rows:
                seq += 1
                self.db.execute(
                    "INSERT OR REPLACE INTO vector_cache(text_hash, language, embedding, orphaned_seq, windows, "
                    "truncated) VALUES (?, ?, ?, ?, ?, ?)",
                    (text_hash, rows[0][1], rows[0][0], seq, windows, truncated),
                )
        self.db.executemany("DELETE FROM vec_units WHERE rowid = ?", ((o[0],) for o in orphans))
        self.db.executemany("DELETE FROM vectors WHERE id = ?", ((o[0],) for o in orphans))
        self.db.execute(
            "DELETE FROM vector_cache WHERE orphaned_seq <= ?", (seq - VECTOR_CACHE_LIMIT,)
        )
        return len(heads)

    def revive_vector(self, text_hash: bytes) -> int | None:
        """Bring a cached text (all its windows) back into the index; its first window's id, or None.

        A text whose windows are not all cached any more counts as not cached.
        """
        rows = self.db.execute(
            "SELECT embedding, language, windows, truncated FROM vector_cache WHERE text_hash = ?", (text_hash,)
        ).fetchall()
        if not rows:
            return None
        embedding, language, windows, truncated = rows[0]
        language, windows = cast(str, language), cast(int, windows)  # TEXT NOT NULL, INTEGER NOT NULL
        keys = [window_key(text_hash, n) for n in range(1, int(windows))]
        parts = {k: e for k, e in self.db.execute(
            f"SELECT text_hash, embedding FROM vector_cache WHERE text_hash IN ({','.join('?' * len(keys))})", keys
        )} if keys else {}
        self.db.executemany("DELETE FROM vector_cache WHERE text_hash = ?", ((k,) for k in [text_hash, *keys]))
        if len(parts) != len(keys):
            return None
        dims = self.vector_dims()
        sizes = {len(e) if isinstance(e, bytes) else -1 for e in [embedding, *parts.values()]}
        if dims is None or sizes != {dims}:
            return None  # another model's, an older schema's (float) or a planted vector: embed the text instead
        import numpy as np

        vectors = np.stack([np.frombuffer(e, dtype=np.int8) for e in [embedding, *(parts[k] for k in keys)]])
        return self.insert_windows(text_hash, vectors, language, bool(truncated))

    # -- the queue of texts without a vector --------------------------------------

    def queue_texts(self, rows: Iterable[tuple[bytes, str, str]], priority: int = 0) -> int:
        """Queue ``(text hash, language, composed text)`` rows not queued yet; returns how many were new."""
        seq = self.integer("SELECT coalesce(max(seq), 0) FROM pending")
        total = 0
        for text_hash, language, text in rows:
            seq += 1
            self.db.execute(
                "INSERT OR IGNORE INTO pending(text_hash, language, text, priority, seq) VALUES (?, ?, ?, ?, ?)",
                (text_hash, language, text, priority, seq),
            )
            total += self.db.changes()
        return total

    def pending_count(self) -> int:
        """Distinct texts waiting for a vector."""
        return self.integer("SELECT count(*) FROM pending")

    def next_pending(self, limit: int) -> list[tuple[bytes, str, str]]:
        """The next ``limit`` queued texts ``(hash, language, text)``: hooks' texts first, then in order."""
        rows = cast("list[tuple[bytes, str, str]]", self.db.execute(  # BLOB PRIMARY KEY, TEXT NOT NULL x2
            "SELECT text_hash, language, text FROM pending ORDER BY priority DESC, seq LIMIT ?", (int(limit),)
        ).fetchall())
        return [(bytes(h), str(lang), str(text)) for h, lang, text in rows]

    def pending_of_units(self, unit_ids: Iterable[int]) -> dict[int, tuple[bytes, str]]:
        """``{unit id: (text hash, composed text)}`` for these units that wait for a vector."""
        return {
            int(uid): (bytes(h), str(text))
            for uid, h, text in self.rows_in(
                "SELECT u.id, p.text_hash, p.text FROM units u JOIN pending p ON p.text_hash = u.text_hash "
                "WHERE u.id IN ({in})", unit_ids,
            )
        }

    def publish_vector(self, text_hash: bytes, vectors: Any, language: str, truncated: bool) -> int:
        """Store a queued text's window vectors and point its waiting units at them; 0 if nobody waits.

        Run inside the writer's transaction. A text whose units all went away
        before its turn (the sync dropped its queue row) is not stored.
        """
        if not self.db.execute("SELECT 1 FROM pending WHERE text_hash = ?", (text_hash,)).fetchall():
            return 0
        self.db.execute("DELETE FROM pending WHERE text_hash = ?", (text_hash,))
        known = self.vector_info([text_hash])
        vid = known[text_hash][0] if text_hash in known else self.insert_windows(text_hash, vectors, language, truncated)
        if (known[text_hash][2] if text_hash in known else truncated):
            # files count their units cut after the last window (status, and what a sync records when known)
            self.db.execute(
                "UPDATE files SET truncated = truncated + (SELECT count(*) FROM units u WHERE u.path = files.path "
                "AND u.text_hash = ?1) WHERE path IN (SELECT path FROM units WHERE text_hash = ?1)", (text_hash,)
            )
        self.db.execute("UPDATE units SET vector_id = ?, text_hash = NULL WHERE text_hash = ?", (vid, text_hash))
        return self.db.changes()

    def link_waiting_units(self, text_hash: bytes, vector_id: int) -> None:
        """Units waiting for ``text_hash`` get the vector ``vector_id`` (it is known now)."""
        self.db.execute("UPDATE units SET vector_id = ?, text_hash = NULL WHERE text_hash = ?", (vector_id, text_hash))
        self.db.execute("DELETE FROM pending WHERE text_hash = ?", (text_hash,))

    def drop_unwanted_pending(self) -> int:
        """Forget queued texts no unit waits for any more (their file changed again or went away)."""
        self.db.execute(
            "DELETE FROM pending WHERE text_hash NOT IN (SELECT text_hash FROM units WHERE text_hash IS NOT NULL)"
        )
        return self.db.changes()

    def clear_all(self) -> None:
        """Remove every file, unit, edge and vector (a full rebuild, inside a transaction)."""
        self.db.execute("DELETE FROM files")
        self.db.execute("DELETE FROM units")
        self.db.execute("DELETE FROM edges")
        self.db.execute("DELETE FROM fts_units")
        self.db.execute("DELETE FROM vectors")
        self.db.execute("DELETE FROM vector_cache")
        self.db.execute("DELETE FROM pending")
        if self.has_vector_table():
            self.db.execute("DROP TABLE vec_units")

    # -- reads ------------------------------------------------------------------

    def units_by_ids(self, ids: Iterable[int]) -> dict[int, UnitRow]:
        return {row[0]: UnitRow(*row) for row in self.rows_in(f"SELECT {UNIT_COLUMNS} FROM units WHERE id IN ({{in}})", ids)}

    def units_where(self, clause: str, params: Sequence[Any] = ()) -> list[UnitRow]:
        return [UnitRow(*row) for row in self.db.execute(f"SELECT {UNIT_COLUMNS} FROM units WHERE {clause}", params)]

    def fts_search(self, match: str, limit: int) -> list[tuple[int, float]]:
        """``(unit id, bm25 score)`` best first; bm25() is negative, we return it positive."""
        weights = ", ".join(str(w) for w in FTS_WEIGHTS)
        try:
            rows = cast("list[tuple[int, float]]", self.db.execute(
                f"SELECT rowid, -bm25(fts_units, {weights}) AS score FROM fts_units "
                "WHERE fts_units MATCH ? ORDER BY score DESC LIMIT ?",
                (match, limit),
            ).fetchall())
        except apsw.SQLError:
            return []
        return [(int(r[0]), float(r[1])) for r in rows]

    def vector_distances(self, query: Sequence[float] | np.ndarray, vector_ids: Iterable[int]) -> dict[int, float]:
        """Cosine distance from ``query`` to each of these vectors, as ``knn`` measures it.

        A text split into windows is at the distance of its nearest window,
        under its first window's id, like in ``knn``.
        """
        if not self.has_vector_table():
            return {}
        blob = quantize(query)
        ids = list(vector_ids)
        windows: dict[int, int] = dict(self.rows_in("SELECT id, head FROM vectors WHERE head IN ({in})", ids))
        best: dict[int, float] = {}
        # One point query per vector: vec0 answers ``rowid = ?`` from its
        # rowid map, but ``rowid IN (...)`` scans every chunk (30 ms at 100k).
        for rowid in ids + list(windows):
            rows = cast("list[tuple[float | None]]", self.db.execute(
                "SELECT vec_distance_cosine(embedding, vec_int8(?)) FROM vec_units WHERE rowid = ?",
                (blob, rowid),
            ).fetchall())
            head = windows.get(rowid, rowid)
            for (distance,) in rows:
                if distance is not None and float(distance) < best.get(head, 3.0):
                    best[head] = float(distance)
        return best

    def vector_ids_of_units(self, unit_ids: Iterable[int]) -> dict[int, int]:
        """``{unit id: vector id}`` for the units that have a vector."""
        return dict(self.rows_in("SELECT id, vector_id FROM units WHERE id IN ({in}) AND vector_id IS NOT NULL", unit_ids))

    def knn(self, query: Sequence[float] | np.ndarray, k: int, language: str | None = None) -> list[tuple[int, float]]:
        """``(vector id, cosine distance)`` nearest first, optionally within one language.

        A text split into windows counts once, at its best window, under its
        first window's id (the one units point at).
        """
        if not self.has_vector_table():
            return []
        extra = 0
        if self.db.execute("SELECT 1 FROM vectors WHERE head IS NOT NULL LIMIT 1").fetchall():
            extra = self.integer("SELECT count(*) FROM vectors WHERE head IS NOT NULL")
        blob = quantize(query)
        sql = "SELECT rowid, distance FROM vec_units WHERE embedding MATCH vec_int8(?) AND k = ?"
        params: list[Any] = [blob, min(int(k) + extra, 4096)]  # 4096: sqlite-vec's largest k
        if language:
            sql += " AND language = ?"
            params.append(language)
        hits = [(int(r[0]), float(r[1])) for r in self.db.execute(sql, params)]
        if not extra:
            return hits
        heads: dict[int, int] = dict(self.rows_in(
            "SELECT id, head FROM vectors WHERE id IN ({in}) AND head IS NOT NULL", [v for v, _ in hits]
        ))
        best: dict[int, float] = {}
        for vid, distance in hits:  # nearest first: the first window seen is the best
            best.setdefault(heads.get(vid, vid), distance)
        return list(best.items())[: int(k)]

    def units_for_vectors(self, vector_ids: Iterable[int]) -> dict[int, list[int]]:
        """``{vector id: [unit ids]}``: several units may share one embedded text."""
        result: dict[int, list[int]] = {}
        for uid, vid in self.rows_in("SELECT id, vector_id FROM units WHERE vector_id IN ({in})", vector_ids):
            result.setdefault(vid, []).append(uid)
        return result

    def edges_from(self, unit_ids: Sequence[int], kind: str | None = None) -> list[tuple[int, str, str, str, int]]:
        """``(source unit, kind, target, target_full, line)`` for edges leaving these units."""
        sql = "SELECT source_unit, kind, target, coalesce(target_full, target), line FROM edges WHERE source_unit IN ({in})"
        if kind:
            return self.rows_in(sql + " AND kind = ?", unit_ids, after=[kind])
        return self.rows_in(sql, unit_ids)

    def edges_to(self, names: Sequence[str], kind: str) -> list[tuple[int, str, str, int]]:
        """``(source unit, target, target_full, line)`` for edges of ``kind`` naming any of ``names``."""
        return self.rows_in(
            "SELECT source_unit, target, coalesce(target_full, target), line FROM edges WHERE kind = ? AND target IN ({in})",
            names, before=[kind],
        )

    def counts(self) -> dict[str, Any]:
        """Numbers for ``status``: files by status, units by kind, vectors, edges by kind."""
        def grouped(sql: str) -> dict[str, int]:  # (status or kind: TEXT NOT NULL, count(*))
            return dict(cast("list[tuple[str, int]]", self.db.execute(sql).fetchall()))

        count = self.integer
        return {
            "files": grouped("SELECT status, count(*) FROM files GROUP BY status"),
            "units": grouped("SELECT kind, count(*) FROM units GROUP BY kind"),
            "vectors": count("SELECT count(*) FROM vectors WHERE head IS NULL"),
            "windows": count("SELECT count(*) FROM vectors"),
            "units_without_vector": count("SELECT count(*) FROM units WHERE vector_id IS NULL AND text_hash IS NULL"),
            "pending_texts": count("SELECT count(*) FROM pending"),
            "pending_units": count("SELECT count(*) FROM units WHERE text_hash IS NOT NULL"),
            "edges": grouped("SELECT kind, count(*) FROM edges GROUP BY kind"),
            "split_units": count(
                "SELECT count(*) FROM units u JOIN vectors v ON v.id = u.vector_id WHERE v.windows > 1"
            ),
            "truncated_units": count(
                "SELECT count(*) FROM units u JOIN vectors v ON v.id = u.vector_id WHERE v.truncated"
            ),
        }

    def iter_files(self) -> Iterator[tuple[str, str, str | None, str]]:
        yield from self.db.execute("SELECT path, blob, language, status FROM files ORDER BY path")

