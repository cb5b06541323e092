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

from hookgraph.errors import HookgraphError


class LockTimeout(HookgraphError):
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
                    holder = _holder(fd)
                    who = f"another hookgraph process (pid {holder})" if holder else "another hookgraph process"
                    raise LockTimeout(
                        f"{who} is writing {directory} (waited {timeout:.0f}s): this update was skipped; run "
                        "`hookgraph index` once it is done"
                        + (f" (`ps -p {holder}` shows it; a stopped one resumes with `kill -CONT {holder}`)"
                           if holder else "")
                    ) from None
                time.sleep(0.05)
        try:  # the holder's pid, for the message of whoever waits on us
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        except OSError:
            pass
        try:
            yield
        finally:
            try:  # a pid stays in the file only while its process holds the lock
                os.ftruncate(fd, 0)
            except OSError:
                pass
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _holder(fd: int) -> int | None:
    """The pid the lock's holder wrote into the file, or None (an older hookgraph writes none)."""
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    if not text.isdigit():
        return None
    try:
        os.kill(int(text), 0)  # alive? (a holder that is not hookgraph writes nothing; an old pid means nothing)
    except ProcessLookupError:
        return None
    except OSError:
        pass
    return int(text)
