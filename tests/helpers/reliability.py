"""Helpers for the reliability tests (crashes, concurrency, damage, hostile input): store invariants, bounded loops, and a
watcher that proves a directory outside the repository was never opened.

Every stress loop here is bounded twice, by a count and by a wall-clock budget
(:class:`Budget`), so CI time stays fixed on a slow or busy machine; each test
records what it tried in ``RELIABILITY_LOG`` (one JSON line per fault class)
so ``docs/RELIABILITY.md`` can be checked against a real run.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import select
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from hookgraph.store import Store, db_path
from tests.conftest import clean_env

PYTHON = sys.executable


# -- bounded loops -------------------------------------------------------------------


@dataclass
class Budget:
    """At most ``count`` rounds and at most ``seconds`` of wall time (after at least ``minimum`` rounds)."""

    count: int
    seconds: float
    minimum: int = 1
    started: float = field(default_factory=time.monotonic)
    done: int = 0

    def __iter__(self) -> Iterator[int]:
        while self.done < self.count:
            if self.done >= self.minimum and time.monotonic() - self.started > self.seconds:
                return
            yield self.done
            self.done += 1


def record(fault: str, tried: int, outcome: str, **extra: object) -> None:
    """Append one line to $RELIABILITY_LOG (if set): the numbers behind docs/RELIABILITY.md."""
    path = os.environ.get("RELIABILITY_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"fault": fault, "tried": tried, "outcome": outcome, **extra}) + "\n")


# -- the store's invariants ----------------------------------------------------------


def store_state(root: Path) -> dict[str, str]:
    """Open the store read-only, check every invariant of a committed sync, return its file map.

    All reads happen in one read transaction, so a concurrent writer cannot
    make a consistent store look torn (and a torn one cannot look whole).
    """
    with Store(db_path(root), readonly=True) as store:
        db = store.db
        with db:  # one snapshot for every query below
            problems = invariant_problems(store)
            files = store.file_map()
        assert not problems, problems
    return files


def invariant_problems(store: Store) -> list[str]:
    q = store.db.execute
    problems: list[str] = []
    integrity = q("PRAGMA quick_check").fetchall()
    if integrity != [("ok",)]:
        problems.append(f"quick_check: {integrity[:3]}")
    bad_counts = q(
        "SELECT f.path, f.units, (SELECT count(*) FROM units u WHERE u.path = f.path) AS n "
        "FROM files f WHERE f.units != n"
    ).fetchall()
    if bad_counts:
        problems.append(f"files.units disagree with units: {bad_counts[:3]}")
    stray = q("SELECT count(*) FROM units WHERE path NOT IN (SELECT path FROM files)").fetchall()[0][0]
    if stray:
        problems.append(f"{stray} units of unknown files")
    missing_file_unit = q(
        "SELECT path FROM files WHERE status LIKE 'indexed%' AND NOT EXISTS "
        "(SELECT 1 FROM units u WHERE u.path = files.path AND u.kind = 'file')"
    ).fetchall()
    if missing_file_unit:
        problems.append(f"indexed files without their file unit: {missing_file_unit[:3]}")
    dangling = q(
        "SELECT count(*) FROM units u WHERE u.vector_id IS NOT NULL AND NOT EXISTS "
        "(SELECT 1 FROM vectors v WHERE v.id = u.vector_id AND v.head IS NULL)"
    ).fetchall()[0][0]
    if dangling:
        problems.append(f"{dangling} units point at no vector")
    orphans = q(
        "SELECT count(*) FROM vectors v WHERE v.head IS NULL AND NOT EXISTS "
        "(SELECT 1 FROM units u WHERE u.vector_id = v.id)"
    ).fetchall()[0][0]
    if orphans:
        problems.append(f"{orphans} orphaned vectors left in the KNN index")
    if store.has_vector_table():
        vec_ids = {r[0] for r in q("SELECT rowid FROM vec_units")}
        ids = {r[0] for r in q("SELECT id FROM vectors")}
        if vec_ids != ids:
            problems.append(f"vectors and vec_units differ by {len(vec_ids ^ ids)} rows")
    elif q("SELECT 1 FROM vectors LIMIT 1").fetchall():
        problems.append("vectors without a vec table")
    units = q("SELECT count(*) FROM units").fetchall()[0][0]
    fts = q("SELECT count(*) FROM fts_units").fetchall()[0][0]
    if units != fts:
        problems.append(f"{units} units but {fts} FTS rows")
    bad_edges = q("SELECT count(*) FROM edges WHERE source_unit NOT IN (SELECT id FROM units)").fetchall()[0][0]
    if bad_edges:
        problems.append(f"{bad_edges} edges from no unit")
    return problems


def tree(root: Path, rev: str = "HEAD") -> dict[str, str]:
    from hookgraph import git as g

    return {p: e.blob for p, e in g.tree_map(root, rev).items() if not p.startswith(".hookgraph/")}


# -- processes -----------------------------------------------------------------------


def spawn(root: Path, *args: str, env: dict[str, str] | None = None, group: bool = False) -> subprocess.Popen[str]:
    """``hookgraph ARGS`` as a new process (its own process group when ``group``, like a terminal job).

    Ctrl-C is restored to its default in the child, as a terminal has it: a test
    run started in the background of a non-interactive shell inherits SIGINT
    ignored, and Python then keeps ignoring it.
    """
    return subprocess.Popen(
        [PYTHON, "-m", "hookgraph.cli", *args], cwd=root, env=env or clean_env(),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=group,
        preexec_fn=_default_ctrl_c,
    )


def _default_ctrl_c() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def lock_held(root: Path) -> bool:
    """Whether some process holds the store's write lock (it is inside a sync)."""
    import fcntl

    path = db_path(root).parent / "lock"
    try:
        fd = os.open(path, os.O_RDWR)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing drops our lock at once
    return False


def wait_for_lock(proc: subprocess.Popen[str], root: Path, timeout: float = 20.0) -> bool:
    """Poll until ``proc`` holds the write lock; False if it ended (or never took it) first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        if lock_held(root):
            return True
        time.sleep(0.005)
    return False


# -- "nothing outside the repository is ever opened" ------------------------------------

_IN_ACCESS, _IN_OPEN, _IN_ISDIR = 0x1, 0x20, 0x40000000
_EVENT = struct.Struct("iIII")


class OpenWatcher:
    """inotify on a directory: records every open or read of it or of a file in it.

    Stronger than checking output: a file read and never printed is caught too.
    """

    def __init__(self, directory: Path) -> None:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        self._fd = libc.inotify_init1(os.O_NONBLOCK)
        if self._fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        wd = libc.inotify_add_watch(self._fd, str(directory).encode(), _IN_ACCESS | _IN_OPEN)
        if wd < 0:
            raise OSError(ctypes.get_errno(), "inotify_add_watch")
        self.events: list[tuple[str, int]] = []

    def drain(self) -> list[tuple[str, int]]:
        while select.select([self._fd], [], [], 0.05)[0]:
            try:
                data = os.read(self._fd, 65536)
            except BlockingIOError:
                break
            offset = 0
            while offset < len(data):
                _wd, mask, _cookie, length = _EVENT.unpack_from(data, offset)
                name = data[offset + _EVENT.size : offset + _EVENT.size + length].rstrip(b"\0").decode(errors="replace")
                self.events.append((name or ".", mask))
                offset += _EVENT.size + length
        return self.events

    def close(self) -> None:
        os.close(self._fd)

    def __enter__(self) -> OpenWatcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
