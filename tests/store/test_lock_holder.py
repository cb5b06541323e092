"""Who holds SQLite's lock: read from /proc/locks, a stopped holder named first, this process never."""

from __future__ import annotations

import fcntl
import os
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

from hookgraph.store.lock_holder import _write_lock_pids, is_stopped, lock_holder

_HOLD = ("import fcntl, os, struct, sys, time; fd = os.open(sys.argv[1], os.O_RDWR); "
         "fcntl.fcntl(fd, fcntl.F_SETLK, struct.pack('hhqqi4x', fcntl.F_WRLCK, 0, 120, 9, 0)); "
         "print('held', flush=True); time.sleep(60)")


def test_only_write_locks_on_our_files_count_and_waiters_do_not() -> None:
    text = ("1: POSIX  ADVISORY  WRITE 4242 fe:00:77 120 128\n"
            "1: -> POSIX  ADVISORY  WRITE 5151 fe:00:77 120 128\n"  # a waiter, not a holder
            "2: POSIX  ADVISORY  READ  6161 fe:00:77 1073741826 1073742335\n"  # a reader shares
            "3: OFDLCK ADVISORY  WRITE -1 fe:00:77 0 EOF\n"  # no pid to name
            "4: POSIX  ADVISORY  WRITE 7171 fe:00:78 0 EOF\n"  # another file
            f"5: POSIX  ADVISORY  WRITE {os.getpid()} fe:00:77 0 EOF\n")  # our own connection's
    assert _write_lock_pids(text, {(0xFE, 0, 77)}) == [4242]


def test_a_stopped_holder_is_found_and_said_stopped(tmp_path: Path) -> None:
    database = tmp_path / "index.db"
    database.write_bytes(b"")
    shm = Path(f"{database}-shm")
    shm.write_bytes(bytes(32768))
    assert lock_holder(database) is None
    holder = subprocess.Popen([sys.executable, "-c", _HOLD, str(shm)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        found = lock_holder(database)
        assert found is not None and found.pid == holder.pid and not found.stopped
        os.kill(holder.pid, signal.SIGSTOP)  # delivered soon, not at once: /proc says "stopped" a moment later
        deadline = time.monotonic() + 10
        while not is_stopped(holder.pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        found = lock_holder(database)
        assert found is not None and found.pid == holder.pid and found.stopped and is_stopped(holder.pid)
        fd = os.open(shm, os.O_RDWR)  # a lock this process holds is never "another process"
        fcntl.fcntl(fd, fcntl.F_SETLK, struct.pack("hhqqi4x", fcntl.F_WRLCK, 0, 0, 8, 0))
        found = lock_holder(database)
        assert found is not None and found.pid == holder.pid
        os.close(fd)
    finally:
        holder.kill()
        holder.wait()
    assert lock_holder(database) is None and not is_stopped(holder.pid)
