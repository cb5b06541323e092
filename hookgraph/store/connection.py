"""Opening a database: apsw with sqlite-vec loaded, and the safety settings before anything runs.

The stdlib ``sqlite3`` cannot load extensions, so we use apsw (which bundles a
recent SQLite with FTS5 and ``contentless_delete``) and load sqlite-vec into
it. A committed database comes from other people, so after sqlite-vec is
loaded extension loading is switched off and ``trusted_schema`` is OFF:
nothing planted in the schema can call a function with side effects.
"""

from __future__ import annotations

import time
from pathlib import Path

import apsw

from hookgraph.store.unusable import StoreError

#: How long a reader or writer waits for another process's lock before SQLite gives up (ms).
BUSY_TIMEOUT_MS = 30_000
#: While it waits, how often it asks the kernel whether the lock's holder is stopped (s). A stopped holder
#: never lets go, so waiting out the whole timeout for it (a hook too) only delays the error that names it.
HOLDER_CHECK_S = 0.5
#: Checks in a row that must see the holder stopped: a traced process (strace, a debugger stepping) is
#: stopped for moments at a time, a frozen one at every check.
STOPPED_CHECKS = 3
#: SQLite's own waits between tries (its default busy handler's), in ms; the last one repeats.
RETRY_DELAYS_MS = (1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100)


class BusyWait:
    """SQLite's busy wait for ``path``, given up early when the lock's holder is a stopped process.

    Installed with ``Connection.setbusyhandler``: SQLite calls it with the number of tries so far (0 on a new
    wait); it sleeps and returns True to try again, or False to let the statement fail with SQLITE_BUSY,
    which the store reports as "locked", naming the holder (``hookgraph.store.faults``).
    """

    def __init__(self, path: Path, timeout_ms: int = BUSY_TIMEOUT_MS) -> None:
        self.path = path
        self.timeout_s = timeout_ms / 1000
        self.started = self.next_check = 0.0
        self.stopped_seen = 0

    def __call__(self, tries: int) -> bool:
        now = time.monotonic()
        if tries == 0:
            self.started, self.next_check, self.stopped_seen = now, now + HOLDER_CHECK_S, 0
        left = self.started + self.timeout_s - now
        if left <= 0:
            return False
        if now >= self.next_check:
            from hookgraph.store.lock_holder import lock_holder  # only ever needed while waiting

            self.next_check = now + HOLDER_CHECK_S
            holder = lock_holder(self.path)
            self.stopped_seen = self.stopped_seen + 1 if holder is not None and holder.stopped else 0
            if self.stopped_seen >= STOPPED_CHECKS:
                return False
        time.sleep(min(RETRY_DELAYS_MS[min(tries, len(RETRY_DELAYS_MS) - 1)] / 1000, left))
        return True


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
        if not immutable:  # an immutable file takes no locks, so nothing ever waits on one
            db.setbusyhandler(BusyWait(path))
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
