"""One writer at a time: an advisory file lock beside the database.

Two hooks can run at once (an editor's git and a terminal's). SQLite would
serialise their transactions anyway, but each would compute its own diff
first; the lock makes the second one see the first one's result and find
little or nothing to do.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class LockTimeout(Exception):
    """Another hookgraph process held the lock for longer than we were willing to wait."""


@contextmanager
def write_lock(directory: Path, timeout: float = 60.0) -> Iterator[None]:
    """Hold ``directory/lock`` exclusively; raise LockTimeout after ``timeout`` seconds."""
    path = directory / "lock"
    try:  # O_NOFOLLOW: a planted symlink must not make us create or open a file elsewhere
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as exc:
        if path.is_symlink():
            raise LockTimeout(f"the lock file {path} is a symlink (committed by someone?): hookgraph never "
                              "follows it; remove it") from None
        # The file is not the problem (a read-only directory, a full disk): say what is, never "remove it".
        from hookgraph.store import StoreError, faults

        raise StoreError.of(faults.diagnose(directory / "index.db", exc)) from None
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockTimeout(
                        f"another hookgraph process is writing {directory} (waited {timeout:.0f}s): this update "
                        "was skipped; run `hookgraph index` once it is done"
                    ) from None
                time.sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
