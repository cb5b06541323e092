"""Why a store cannot be used or written, told truthfully: one cause, one line, one remedy.

SQLite reports a handful of result codes, and the same code can have several
causes ("unable to open database file" is a read-only directory as often as a
missing one; "disk I/O error" is often a full disk). Advice must follow the
cause: telling someone whose disk is full, or whose directory is read-only, to
rebuild the index (``index --full``) needs more space and destroys nothing
wrong but loses the index they have. So every failure is classified here,
looking at the file system itself (free space, read-only mounts, access) and,
before anything is called damaged, at ``PRAGMA quick_check``.

Causes (:data:`CAUSES`):

============== =================================================================
read-only      the file, or the directory SQLite must create its ``-wal``/``-shm``
               in, cannot be written (read-only mount, permissions); readers
               still work (:func:`can_read_immutable`)
no-space       the file system is full (or nearly: SQLite says "disk I/O error"
               when it cannot grow its ``-shm``)
io-error       the storage itself failed (EIO)
locked         another process holds the database or hookgraph's write lock (a stopped
               holder is named, :mod:`hookgraph.store.lock_holder`)
newer-schema   written by a newer hookgraph
not-a-database not an SQLite file at all (garbage, zeros)
damaged        an SQLite file whose pages (``quick_check``) or vector chunks are broken
untrusted      holds what hookgraph never writes (decided by the store itself)
============== =================================================================

Only ``not-a-database``, ``damaged``, ``untrusted`` and ``newer-schema``
files are ever moved aside by ``hookgraph index --full`` (:data:`MOVABLE`);
for the others the file is fine and the remedy is elsewhere.

A leaf module: it imports apsw, the standard library and
:mod:`hookgraph.store.lock_holder` (a leaf too), so the store, the sync, the
lock and the CLI can all use it.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from pathlib import Path

CAUSES = ("read-only", "no-space", "io-error", "locked", "newer-schema", "not-a-database", "damaged", "untrusted",
          "internal")

#: The causes for which the file itself is unusable, so ``index --full`` moves it aside and rebuilds.
MOVABLE = frozenset({"not-a-database", "damaged", "untrusted", "newer-schema"})

#: No sync starts with less free space than this: SQLite needs room for its
#: ``-shm`` (32 KB) and the first ``-wal`` frames before any estimate matters.
MIN_FREE = 1 << 20

#: Growth of the store per byte of changed source, and a fixed allowance per
#: sync (a new vec chunk is 96 KB, the WAL's first frames). Measured here: the
#: requests fixture (210 KB of source) peaks at 0.9 MB of database + WAL
#: (4.3x) and ends at 0.8 MB; a call-dense file (750 KB, 40,000 calls) ends at
#: 3.6 MB (4.8x). The estimate is what typical code needs, not the worst case:
#: a sync that needs more fails later, rolls back and says so the same way.
BYTES_PER_SOURCE_BYTE = 5
FIXED_GROWTH = 512 << 10

#: OS errors that are the storage's, not ours: diagnosed like SQLite's own.
STORAGE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO, errno.EACCES, errno.EPERM})

REBUILD = "rebuild it with `hookgraph index --full`"
CATCH_UP = "then run `hookgraph index`"


@dataclass(frozen=True)
class StoreFault:
    """One diagnosed failure: its cause (one of :data:`CAUSES`), what is wrong, and what to do."""

    cause: str
    problem: str
    remedy: str

    @property
    def message(self) -> str:
        return f"{self.problem}: {self.remedy}"

    @property
    def movable(self) -> bool:
        return self.cause in MOVABLE


# -- the file system ------------------------------------------------------------


def size_text(n: int) -> str:
    """Bytes for people: ``72 KB``, ``2.1 MB``, ``3 GB``."""
    if n < 1000 * 1000:
        return f"{max(n, 0) // 1000} KB" if n >= 1000 else f"{max(n, 0)} bytes"
    if n < 1000 ** 3:
        return f"{n / 1e6:.1f} MB"
    return f"{n / 1e9:.1f} GB"


def _existing(path: Path) -> Path:
    """``path`` or its nearest ancestor that exists (statvfs needs one)."""
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def free_bytes(path: Path) -> int | None:
    """Bytes this process may still write on ``path``'s file system (None if unknown)."""
    try:
        st = os.statvfs(_existing(path))
    except OSError:
        return None
    # root may also use the blocks ext4 reserves for it (5% by default); nobody else may
    blocks = st.f_bfree if hasattr(os, "geteuid") and os.geteuid() == 0 else st.f_bavail
    return blocks * st.f_frsize


def _read_only_why(path: Path) -> str | None:
    """Why ``path`` (an existing file or directory) cannot be written, or None."""
    try:
        if os.statvfs(path).f_flag & os.ST_RDONLY:
            return "read-only file system"
    except OSError:
        return None
    if not os.access(path, os.W_OK):
        return "permission denied"
    return None


def read_only_fault(path: Path) -> StoreFault | None:
    """The database at ``path`` (or the directory it would be created in) cannot be written, or None.

    SQLite writes the file and creates ``-wal``/``-shm`` beside it, so both
    must be writable. A directory on a read-only mount is found by ``statvfs``
    (root passes ``access`` checks but not a read-only mount).
    """
    directory = _existing(path.parent)
    why = _read_only_why(directory)
    if why is not None:
        where = "its directory" if directory == path.parent else str(directory)
        return StoreFault("read-only", f"{path} cannot be updated: {where} is read-only ({why})",
                          f"make it writable, {CATCH_UP} (reading the index still works)")
    if path.exists():
        why = _read_only_why(path)
        if why is not None:
            return StoreFault("read-only", f"{path} cannot be updated: the file is read-only ({why})",
                              f"make it writable, {CATCH_UP} (reading the index still works)")
    return None


def space_fault(path: Path, needed: int) -> StoreFault | None:
    """Not enough free space beside ``path`` for ``needed`` bytes of growth, or None."""
    free = free_bytes(path.parent)
    if free is None or free >= needed:
        return None
    return no_space(path, free, needed)


def no_space(path: Path, free: int | None, needed: int) -> StoreFault:
    free_text = size_text(free) if free is not None else "little"
    return StoreFault(
        "no-space",
        f"no space left for {path} ({free_text} free, this needs about {size_text(_round_up(needed))})",
        f"free some space, {CATCH_UP}; the index was not changed",
    )


def _round_up(n: int) -> int:
    """Round a need up to a figure worth printing (100 KB below 1 MB, else 1 MB)."""
    step = 100_000 if n < 1_000_000 else 1_000_000
    return -(-n // step) * step


def growth_estimate(changed_bytes: int, database_bytes: int = 0, *, full: bool = False) -> int:
    """About how many bytes a sync of ``changed_bytes`` of source will add, WAL included.

    A full rebuild rewrites everything: the WAL holds a second copy of the
    store until its checkpoint.
    """
    estimate = MIN_FREE + FIXED_GROWTH + BYTES_PER_SOURCE_BYTE * max(changed_bytes, 0)
    if full:
        estimate += database_bytes
    return estimate


def before_writing(path: Path) -> StoreFault | None:
    """What keeps a sync from writing ``path`` at all, checked before it touches anything."""
    return read_only_fault(path) or space_fault(path, MIN_FREE)


def wal_has_frames(path: Path) -> bool:
    """Whether ``path-wal`` holds frames (committed writes a checkpoint has not copied yet, maybe)."""
    try:
        return os.path.getsize(f"{path}-wal") > 0
    except OSError:
        return False


def can_read_immutable(path: Path) -> bool:
    """Whether ``path`` may be read as ``immutable=1``: nobody can write it, and no WAL holds newer pages.

    A WAL database needs its ``-shm``, which a read-only directory cannot hold
    and a full disk cannot grow; ``immutable`` reads the file without one.
    That is exact only while nothing writes the file, which a read-only
    directory or file guarantees (a full disk does: no write can succeed), and
    only if no ``-wal`` with frames is beside it.
    """
    return path.exists() and not wal_has_frames(path)


# -- what SQLite said ------------------------------------------------------------


def _first_bytes(path: Path) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(4096)
    except OSError:
        return b""


def quick_check(path: Path, pragma: str = "quick_check") -> str | None:
    """The first problem ``PRAGMA quick_check`` (or ``integrity_check``) finds in ``path`` (None when it says ok).

    Run on its own read-only connection: the failing one may be mid-transaction.
    An error raised by the check itself is its finding, except a lock it could not get: that is raised (SQLite's
    "database is locked" or "locking protocol" says nothing about the pages).
    """
    import apsw

    flags = apsw.SQLITE_OPEN_READONLY | getattr(apsw, "SQLITE_OPEN_NOFOLLOW", 0)
    try:
        db = apsw.Connection(str(path), flags=flags)
    except apsw.Error as exc:
        if _is_lock_error(exc):
            raise
        return _detail(exc)
    try:
        rows = db.execute(f"PRAGMA {pragma}(3)").fetchall()
    except apsw.Error as exc:
        if _is_lock_error(exc):
            raise
        return _detail(exc)
    finally:
        db.close()
    findings = [str(r[0]) for r in rows if str(r[0]) != "ok"]
    return " ".join(findings[0].split()) if findings else None


def _is_lock_error(exc: BaseException) -> bool:
    """SQLite could not get a lock: busy, locked, or a reader that gave up on the WAL's read marks (SQLITE_PROTOCOL,
    "locking protocol": another process holds them, typically one stopped while it recovered the WAL)."""
    import apsw

    return isinstance(exc, (apsw.BusyError, apsw.LockedError, apsw.ProtocolError))


def _locked(path: Path, detail: str) -> StoreFault:
    """The "locked" fault, naming the holder when the kernel shows one: a stopped holder never finishes by itself."""
    from hookgraph.store.lock_holder import lock_holder

    holder = lock_holder(path)
    if holder is None:
        return StoreFault("locked", f"{path} is locked by another process ({detail})",
                          f"wait for it to finish, {CATCH_UP}")
    if holder.stopped:
        return StoreFault("locked", f"{path} is locked by process {holder.pid}, which is stopped ({detail})",
                          f"resume it with `kill -CONT {holder.pid}` (`ps -p {holder.pid}` shows what it is; a "
                          f"stopped hookgraph embedder may be ended with `kill {holder.pid}`), {CATCH_UP}")
    return StoreFault("locked", f"{path} is locked by process {holder.pid} ({detail})",
                      f"wait for it to finish (`ps -p {holder.pid}` shows it), {CATCH_UP}")


def _detail(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _os_errno(exc: BaseException) -> int | None:
    if isinstance(exc, OSError):
        return exc.errno
    return None


def diagnose(path: Path, exc: BaseException) -> StoreFault:
    """The real cause of ``exc``, raised while opening, reading or writing the database ``path``.

    Looks at the file system before believing SQLite's code: a full disk and
    a read-only directory both show up as I/O or "cannot open" errors.
    Corruption is only claimed when ``quick_check`` (or sqlite-vec's own size
    checks, for vector chunks) says so.
    """
    import apsw

    detail = _detail(exc)
    code = _os_errno(exc)
    if code in (errno.ENOSPC, errno.EDQUOT) or isinstance(exc, apsw.FullError):
        return no_space(path, free_bytes(path.parent), _need_after_failure(path))
    if code in (errno.EROFS, errno.EACCES, errno.EPERM) or isinstance(exc, apsw.ReadOnlyError):
        fault = read_only_fault(path)
        if fault is not None:
            return fault
        return StoreFault("read-only", f"{path} cannot be written ({detail})",
                          f"check its permissions and mount, {CATCH_UP}")
    if _is_lock_error(exc):
        return _locked(path, detail)
    if code == errno.EIO or isinstance(exc, (apsw.IOError, apsw.CantOpenError)) or isinstance(exc, OSError):
        return _io_fault(path, exc, detail)
    if isinstance(exc, apsw.NotADBError):
        return _foreign(path)
    if isinstance(exc, apsw.SQLError) and _from_vec(detail):
        return StoreFault("damaged", f"{path} is damaged: its vector table fails sqlite-vec's checks ({detail})",
                          REBUILD)
    try:  # a check that cannot get the lock finds nothing about the pages: never "damaged" for it
        finding = quick_check(path)
    except apsw.Error as busy:
        return _locked(path, _detail(busy))
    if finding is not None:
        return StoreFault("damaged", f"{path} is damaged (quick_check: {finding})", REBUILD)
    if isinstance(exc, apsw.CorruptError):  # quick_check skips index contents: ask the thorough check
        try:
            finding = quick_check(path, "integrity_check")
        except apsw.Error as busy:
            return _locked(path, _detail(busy))
        if finding is not None:
            return StoreFault("damaged", f"{path} is damaged (integrity_check: {finding})", REBUILD)
        return StoreFault("internal", f"SQLite reported damage in {path} ({detail}) but integrity_check finds "
                                      "the file whole", "run the command again; if it fails the same way, "
                                      "rebuild with `hookgraph index --full`")
    return StoreFault("internal", f"SQLite failed on {path} ({type(exc).__name__}: {detail}) although quick_check "
                                  "finds the file whole", "this is a hookgraph bug: please report it "
                                  "(HOOKGRAPH_DEBUG=1 shows more)")


def _io_fault(path: Path, exc: BaseException, detail: str) -> StoreFault:
    """An I/O or open error: a full disk, a read-only place, a missing directory, or failing storage."""
    free = free_bytes(path.parent)
    if free is not None and free < MIN_FREE:
        return no_space(path, free, _need_after_failure(path))
    fault = read_only_fault(path)
    if fault is not None:
        return fault
    if path.exists() and not os.access(path, os.R_OK):
        return StoreFault("read-only", f"{path} cannot be read (permission denied)",
                          f"check its permissions, {CATCH_UP}")
    if not path.parent.is_dir():
        return StoreFault("io-error", f"{path} cannot be opened: {path.parent} is not a directory",
                          f"remove what is there, {CATCH_UP}")
    if _os_errno(exc) == errno.EIO or _storage_fails(path):
        return StoreFault("io-error", f"disk I/O error on {path} ({detail}): the disk or file system under it "
                                      "is failing", f"check it (dmesg, fsck), {CATCH_UP}")
    return StoreFault("io-error", f"{path} cannot be opened or written ({detail})",
                      f"check the disk and its free space, {CATCH_UP}")


def _storage_fails(path: Path) -> bool:
    """Whether reading the file or listing its directory fails with EIO right now."""
    try:
        os.listdir(path.parent)
        if path.exists():
            with open(path, "rb") as f:
                f.read(4096)
    except OSError as err:
        return err.errno == errno.EIO
    return False


def _foreign(path: Path) -> StoreFault:
    head = _first_bytes(path)
    if head and not head.strip(b"\0"):
        what = "only zero bytes"
    elif head.startswith(b"SQLite format 3\0"):
        what = "an SQLite header over unreadable pages"
    else:
        what = "not an SQLite file"
    return StoreFault("not-a-database", f"{path} is not a hookgraph database ({what})",
                      "move it away, or rebuild with `hookgraph index --full` (it is moved aside, not deleted)")


def _from_vec(detail: str) -> bool:
    """sqlite-vec's own consistency errors (a garbled chunk), as opposed to our SQL being wrong."""
    lowered = detail.lower()
    return "chunk" in lowered or "vec0" in lowered


def _need_after_failure(path: Path) -> int:
    """What a failed write needed, at least: room for a WAL as large as the store, and the margin."""
    try:
        size = os.path.getsize(path)
    except OSError:
        size = 0
    return MIN_FREE + FIXED_GROWTH + size
