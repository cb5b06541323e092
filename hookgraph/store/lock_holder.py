"""Which process holds SQLite's exclusive lock on a database, and whether it is stopped.

SQLite reports a lock it cannot get as "database is locked" or, when a reader
gives up on the WAL's read marks, "locking protocol"; neither names the holder.
A process stopped while it holds such a lock (``kill -STOP``, a debugger, a
frozen container) blocks every other command until it resumes or ends, and
"wait for it to finish" is then advice that never comes true. The kernel knows
the holder: ``/proc/locks`` lists every POSIX lock with its pid and inode.

Read from ``/proc/locks`` only: opening and closing the database file in this
process would drop the POSIX locks this process's own SQLite connections hold on
it (POSIX ties locks to the process, not to the descriptor). Linux only; elsewhere
nothing is found and the message stays as SQLite gave it.

A leaf module: the standard library only.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

#: The kernel's table of file locks (see proc(5)).
PROC_LOCKS = Path("/proc/locks")


@dataclass(frozen=True)
class Holder:
    """A process holding an exclusive lock on the database or its ``-shm``."""

    pid: int
    stopped: bool


def _file_ids(path: Path) -> set[tuple[int, int, int]]:
    """``(major, minor, inode)`` of the database and its ``-shm`` (where SQLite's WAL locks live)."""
    ids = set()
    for candidate in (path, Path(f"{path}-shm")):
        try:
            st = candidate.stat()
        except OSError:
            continue
        ids.add((os.major(st.st_dev), os.minor(st.st_dev), st.st_ino))
    return ids


def _write_lock_pids(text: str, ids: set[tuple[int, int, int]]) -> list[int]:
    """Pids of POSIX write locks on ``ids`` in ``/proc/locks`` text (waiters, ``->``, left out)."""
    pids = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 8 or fields[1] == "->" or fields[1] != "POSIX" or fields[3] != "WRITE":
            continue
        try:
            major, minor, inode = fields[5].split(":")
            key = (int(major, 16), int(minor, 16), int(inode))
            pid = int(fields[4])
        except ValueError:
            continue
        if key in ids and pid > 0 and pid != os.getpid():
            pids.append(pid)
    return pids


def is_stopped(pid: int) -> bool:
    """True when ``pid`` is stopped by a signal or a tracer (state ``T`` or ``t`` in ``/proc/PID/stat``)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    state = stat.rsplit(")", 1)[-1].split()
    return bool(state) and state[0] in ("T", "t")


def lock_holder(path: Path) -> Holder | None:
    """The process holding an exclusive SQLite lock on ``path`` (a stopped one first), or None when none is seen."""
    ids = _file_ids(path)
    if not ids:
        return None
    try:
        text = PROC_LOCKS.read_text()
    except OSError:
        return None
    holders = [Holder(pid, is_stopped(pid)) for pid in dict.fromkeys(_write_lock_pids(text, ids))]
    holders.sort(key=lambda h: not h.stopped)
    return holders[0] if holders else None
