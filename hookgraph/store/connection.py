"""Opening a database: apsw with sqlite-vec loaded, and the safety settings before anything runs.

The stdlib ``sqlite3`` cannot load extensions, so we use apsw (which bundles a
recent SQLite with FTS5 and ``contentless_delete``) and load sqlite-vec into
it. A committed database comes from other people, so after sqlite-vec is
loaded extension loading is switched off and ``trusted_schema`` is OFF:
nothing planted in the schema can call a function with side effects.
"""

from __future__ import annotations

from pathlib import Path

import apsw

from hookgraph.store.unusable import StoreError

#: How long a reader or writer waits for another process's lock before SQLite gives up (ms).
BUSY_TIMEOUT_MS = 30_000


def vec_extension_path() -> str:
    """sqlite-vec's loadable library, found without importing ``sqlite_vec``.

    Importing it pulls in numpy and the stdlib sqlite3 (~80-150 ms), which a
    hook for a commit without code changes must not pay.
    """
    import importlib.util

    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or not spec.submodule_search_locations:
        raise StoreError("the sqlite-vec package is missing: reinstall hookgraph")
    return str(Path(next(iter(spec.submodule_search_locations))) / "vec0")


def load_vec(db: apsw.Connection) -> None:
    """Load sqlite-vec into ``db``, then switch extension loading off again."""
    db.enable_load_extension(True)
    try:
        db.load_extension(vec_extension_path())
    finally:
        db.enable_load_extension(False)


def connect(path: Path, *, readonly: bool, immutable: bool) -> apsw.Connection:
    """A connection to ``path`` with sqlite-vec loaded and ``trusted_schema`` OFF; nothing else read yet.

    ``immutable`` (read-only only): opened as ``immutable=1``, no ``-shm``, for
    a file nothing can write or create a ``-shm`` beside. Symlinks are never
    followed (``SQLITE_OPEN_NOFOLLOW``). The connection is closed again if
    any step fails.
    """
    flags = apsw.SQLITE_OPEN_READONLY if readonly else apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE
    flags |= getattr(apsw, "SQLITE_OPEN_NOFOLLOW", 0)
    name = str(path)
    if immutable:
        from urllib.parse import quote

        name, flags = f"file:{quote(str(path.absolute()))}?immutable=1", flags | apsw.SQLITE_OPEN_URI
    db = apsw.Connection(name, flags=flags)
    try:
        db.setbusytimeout(BUSY_TIMEOUT_MS)
        load_vec(db)
        db.execute("PRAGMA trusted_schema=OFF")
        db.execute("PRAGMA cell_size_check=ON")
    except BaseException:
        close_quietly(db)
        raise
    return db


def close_quietly(db: apsw.Connection | None) -> None:
    """Close ``db`` on a path that is already failing or closing: a second error would hide the first."""
    if db is not None:
        try:
            db.close()
        except apsw.Error:
            pass
