"""Embeddings kept outside any one index, so the same text is embedded once per machine.

A vector's key is the hash of the embedding recipe (model SHA-256, document
prefix, window size, windowing) and the composed text
(:func:`hookgraph.parse.compose.text_hash`), so a vector found here under a key
is exactly what the model would compute again, for that model only: vectors
of another model can never be picked up. Two caches use this one format:

* the **repository cache**, ``<git common dir>/hookgraph/vectors.db``: every
  worktree of the repository finds it (``git worktree add`` embeds nothing);
* the **user cache**, ``$XDG_CACHE_HOME/hookgraph/vectors.db`` (default
  ``~/.cache``): a second clone, a re-clone or another repository with the
  same code embeds nothing either.

Both are bounded (least recently used rows go first) and safe under
concurrent writers: WAL, short transactions, ``INSERT OR IGNORE`` (two
processes embedding one text store the same bytes), and a cache that is busy
beyond a short wait is skipped rather than waited for - a cache only ever
saves work, it must never cost a hook time. A cache is not trusted blindly,
just as a committed snapshot is not (:class:`hookgraph.store.Store`): no
symlinks, no object its schema would not create, ``trusted_schema`` off, and
every vector's size checked against the index's dimensions before use. A
cache that fails a check is left alone and reported (``problem``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import apsw

from hookgraph.store.connection import close_quietly

__all__ = ["CachedVector", "VectorCache", "repo_cache", "user_cache", "DEFAULT_USER_MB", "DEFAULT_REPO_MB"]

CACHE_FILENAME = "vectors.db"
#: Default bounds; ``HOOKGRAPH_CACHE_MB`` / ``HOOKGRAPH_REPO_CACHE_MB`` (or
#: ``[cache] user_mb`` / ``repo_mb`` in config.toml) change them, 0 turns a cache off.
DEFAULT_USER_MB = 512
DEFAULT_REPO_MB = 256
#: Identifies our caches (``PRAGMA application_id``), "hgvc".
APPLICATION_ID = 0x68677663
SCHEMA = (
    "CREATE TABLE vectors(key BLOB PRIMARY KEY, dims INTEGER NOT NULL, windows INTEGER NOT NULL, "
    "truncated INTEGER NOT NULL, embedding BLOB NOT NULL, used INTEGER NOT NULL) WITHOUT ROWID",
    "CREATE INDEX vectors_used ON vectors(used)",
)
#: How long a writer waits for another before giving up on the cache for now (ms).
BUSY_MS = 1500


@dataclass(frozen=True)
class CachedVector:
    """One text's vectors as a cache holds them: int8 windows of ``dims`` each."""

    key: bytes
    dims: int
    windows: int
    truncated: bool
    embedding: bytes  # windows * dims int8 values, window after window

    def arrays(self) -> Any:
        """The windows as an ``(windows, dims)`` int8 array."""
        import numpy as np

        return np.frombuffer(self.embedding, dtype=np.int8).reshape(self.windows, self.dims)


@contextmanager
def _writing(db: apsw.Connection) -> Iterator[None]:
    """A write transaction that takes the write lock first (``BEGIN IMMEDIATE``).

    A deferred one that reads and then writes fails at once with
    SQLITE_BUSY_SNAPSHOT when another writer committed in between, without
    waiting: with several writers that lost every other batch.
    """
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _tick(db: apsw.Connection) -> int:
    """The next value of the cache's use clock: later than every use so far (``used`` is indexed)."""
    return int(db.execute("SELECT coalesce(max(used), 0) + 1 FROM vectors").fetchall()[0][0])  # type: ignore[arg-type]


class VectorCache:
    """One cache file; every method is a no-op once the file turned out unusable (see ``problem``)."""

    def __init__(self, path: Path, max_bytes: int) -> None:
        self.path = path
        self.max_bytes = max(0, int(max_bytes))
        self.problem: str | None = None
        #: Why, as :mod:`hookgraph.store.faults` tells it: only a file that is itself unusable may be deleted.
        self.cause: str | None = None
        self._db: apsw.Connection | None = None

    # -- opening ----------------------------------------------------------------

    def _unusable(self, exc: BaseException) -> None:
        """Remember why the cache is not used now, and the real cause: a full disk or a read-only directory
        says "disk I/O error" or "unable to open" just as a damaged file does, and advice must follow the cause."""
        self.problem = f"{self.path}: not used ({' '.join(str(exc).split()) or type(exc).__name__})"
        if isinstance(exc, ValueError):  # a link, or not our schema: the file itself is the problem
            self.cause = "untrusted"
            return
        from hookgraph.store.faults import diagnose

        try:
            self.cause = diagnose(self.path, exc).cause
        except Exception:  # noqa: BLE001 - telling the cause must never fail a command; say nothing of deleting
            self.cause = "internal"

    def remedy(self) -> str:
        """What to do about this cache now (a clause), by cause: deleting it only when the file is unusable."""
        from hookgraph.store.faults import MOVABLE

        if self.cause is None or self.cause in MOVABLE:
            return f"delete it (`rm {self.path}`); hookgraph makes a fresh one"
        keep = "it is not deleted and is used again then (it only saves model time)"
        return {
            "no-space": f"free some space on its disk; {keep}",
            "read-only": f"make it and its folder writable; {keep}",
            "io-error": f"check the disk under it (dmesg, fsck); {keep}",
            "locked": f"another process holds it; {keep.replace('then', 'when it is free')}",
        }.get(self.cause, f"run the command again; {keep}")

    def _connection(self) -> apsw.Connection | None:
        if self._db is not None or self.problem is not None or self.max_bytes == 0:
            return self._db
        try:
            self._db = self._open()
        except apsw.BusyError:
            self._db = None  # another process is creating it or writing: tried again at the next call
        except (apsw.Error, OSError, ValueError) as exc:
            self._unusable(exc)
            self._db = None
        return self._db

    def _open(self) -> apsw.Connection:
        for candidate in (self.path.parent, self.path, *(self.path.with_name(self.path.name + s)
                                                          for s in ("-wal", "-shm", "-journal"))):
            if candidate.is_symlink():
                raise ValueError(f"{candidate} is a symlink")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        flags = apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE | getattr(apsw, "SQLITE_OPEN_NOFOLLOW", 0)
        db = apsw.Connection(str(self.path), flags=flags)
        try:
            db.setbusytimeout(BUSY_MS)
            db.execute("PRAGMA trusted_schema=OFF")
            db.execute("PRAGMA cell_size_check=ON")
            expected = {("table", "vectors", SCHEMA[0]), ("index", "vectors_used", SCHEMA[1])}
            rows = self._schema(db)
            if not rows:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("BEGIN IMMEDIATE")  # two processes may create it at once: one does, under the lock
                try:
                    if not self._schema(db):
                        for sql in SCHEMA:
                            db.execute(sql)
                        db.execute(f"PRAGMA application_id={APPLICATION_ID}")
                    db.execute("COMMIT")
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
                rows = self._schema(db)
            if rows:
                app = db.execute("PRAGMA application_id").fetchall()[0][0]
                if app != APPLICATION_ID or set(rows) != expected:
                    raise ValueError("it is not a hookgraph vector cache (schema or id differs)")
                db.execute("PRAGMA journal_mode=WAL")
        except BaseException:
            db.close()
            raise
        return db

    @staticmethod
    def _schema(db: apsw.Connection) -> set[tuple[str, str, str]]:
        return {(str(t), str(n), " ".join(str(s).split())) for t, n, s in
                db.execute("SELECT type, name, sql FROM sqlite_master")}

    def close(self) -> None:
        close_quietly(self._db)
        self._db = None

    # -- reads and writes ---------------------------------------------------------

    def get_many(self, keys: Iterable[bytes], dims: int) -> dict[bytes, CachedVector]:
        """The cached vectors among ``keys`` whose size fits ``dims``; marks them recently used."""
        db = self._connection()
        wanted = list(dict.fromkeys(keys))
        if db is None or not wanted:
            return {}
        found: dict[bytes, CachedVector] = {}
        try:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start:start + 500]
                for key, d, windows, truncated, embedding in db.execute(
                    "SELECT key, dims, windows, truncated, embedding FROM vectors WHERE key IN "
                    f"({','.join('?' * len(chunk))})", chunk,
                ):
                    if (isinstance(embedding, bytes) and d == dims and isinstance(windows, int) and windows >= 1
                            and len(embedding) == windows * dims and isinstance(key, bytes)):
                        found[key] = CachedVector(key, dims, windows, bool(truncated), embedding)
            if found:
                with _writing(db):
                    now = _tick(db)
                    db.executemany("UPDATE vectors SET used = ? WHERE key = ?", ((now, k) for k in found))
        except apsw.BusyError:
            pass  # another process is writing: what we read is still good
        except apsw.Error as exc:
            self._unusable(exc)
            self.close()
            return {}
        return found

    def put_many(self, vectors: Iterable[CachedVector]) -> int:
        """Remember these vectors (keys already there are left as they are); returns rows added."""
        db = self._connection()
        rows = [(v.key, v.dims, v.windows, int(v.truncated), v.embedding) for v in vectors
                if len(v.embedding) == v.windows * v.dims]
        if db is None or not rows:
            return 0
        added = 0
        try:
            with _writing(db):
                now = _tick(db)
                for key, dims, windows, truncated, embedding in rows:
                    db.execute("INSERT OR IGNORE INTO vectors(key, dims, windows, truncated, embedding, used) "
                               "VALUES (?, ?, ?, ?, ?, ?)", (key, dims, windows, truncated, embedding, now))
                    added += db.changes()
            if added:
                self._evict(db)
        except apsw.BusyError:
            return 0  # busy beyond BUSY_MS: the vectors stay in the index; another run caches them
        except apsw.FullError:
            return 0  # no space for a cache: it only saves work
        except apsw.Error as exc:
            self._unusable(exc)
            self.close()
            return 0
        return added

    def _evict(self, db: apsw.Connection) -> None:
        """Drop the least recently used tenth while the file's live pages exceed the bound."""
        page_size = int(db.execute("PRAGMA page_size").fetchall()[0][0])  # type: ignore[arg-type]
        for _ in range(20):
            pages = int(db.execute("PRAGMA page_count").fetchall()[0][0])  # type: ignore[arg-type]
            free = int(db.execute("PRAGMA freelist_count").fetchall()[0][0])  # type: ignore[arg-type]
            if (pages - free) * page_size <= self.max_bytes:
                return
            count = int(db.execute("SELECT count(*) FROM vectors").fetchall()[0][0])  # type: ignore[arg-type]
            if not count:
                return
            with _writing(db):
                db.execute("DELETE FROM vectors WHERE key IN (SELECT key FROM vectors ORDER BY used LIMIT ?)",
                           (max(1, count // 10),))

    def count(self) -> int:
        db = self._connection()
        if db is None:
            return 0
        try:
            return int(db.execute("SELECT count(*) FROM vectors").fetchall()[0][0])  # type: ignore[arg-type]
        except apsw.Error:
            return 0


#: The largest cache bound accepted (MB): a terabyte. Beyond it a value is a typo or ``inf``.
MAX_MB = 1_000_000


def _megabytes(env: str, setting: Any, default: int, key: str = "", root: Path | None = None) -> int:
    """A cache bound in bytes: ``$env`` wins over ``[cache] key``; a bad value is one line naming it.

    Untrusted input (a shared-mode config.toml is committed by anyone): ``inf``,
    ``nan``, a negative number or text raise :class:`hookgraph.config.ConfigError`
    with the key, where it was set and the remedy, never an OverflowError.
    """
    from hookgraph.config import ConfigError, config_path

    raw = os.environ.get(env, "").strip()
    if raw:
        try:
            value = float(raw)
        except ValueError:
            value = float("nan")
        if not 0 <= value <= MAX_MB:
            raise ConfigError(f"{env}={raw} (environment) is not a cache size: use megabytes from 0 (off) to "
                              f"{MAX_MB:,}, or unset it (default {default})")
        return int(value * 1024 * 1024)
    if setting is None:
        return default * 1024 * 1024
    if isinstance(setting, bool) or not isinstance(setting, (int, float)) or not 0 <= setting <= MAX_MB:
        where = config_path(root) if root is not None else "config.toml"
        raise ConfigError(f"{where}: [cache] {key} = {setting!r} is not a cache size: use megabytes from 0 (off) "
                          f"to {MAX_MB:,}, or remove the line (default {default})")
    return int(setting * 1024 * 1024)


def _cache_settings(root: Path | None) -> dict[str, Any]:
    if root is None:
        return {}
    from hookgraph import config

    try:
        return config.section(root, "cache")
    except config.ConfigError:
        return {}


def user_cache(root: Path | None = None) -> VectorCache:
    """The user-level cache (``$XDG_CACHE_HOME/hookgraph/vectors.db``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    bound = _megabytes("HOOKGRAPH_CACHE_MB", _cache_settings(root).get("user_mb"), DEFAULT_USER_MB, "user_mb", root)
    return VectorCache(Path(base) / "hookgraph" / CACHE_FILENAME, bound)


def repo_cache(root: Path) -> VectorCache | None:
    """The cache every worktree of ``root``'s repository shares, in the git common directory."""
    from hookgraph.git import common_dir

    try:
        directory = common_dir(root)
    except Exception:  # noqa: BLE001 - not a repository any more: no cache, nothing lost
        return None
    bound = _megabytes("HOOKGRAPH_REPO_CACHE_MB", _cache_settings(root).get("repo_mb"), DEFAULT_REPO_MB, "repo_mb",
                       root)
    return VectorCache(directory / "hookgraph" / CACHE_FILENAME, bound)
