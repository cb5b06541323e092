"""Faults of the place the index lives in: each cause named truly, nothing lost.

A read-only directory or file, a full disk (before and during a sync), a disk
that fails with EIO, another process holding the lock: every one gets its own
one-line message with its own remedy, never "damaged: rebuild it" (which needs
more disk, not less, and throws away a sound index). The index answers before
and after. Real mounts: tmpfs for a full disk, read-only bind mounts, an ext4
image on a loop device shut down by ``EXT4_IOC_SHUTDOWN`` for real EIO; as
root only (skipped, with the reason, where mounting is not permitted).
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from hookgraph.store import StoreError, db_path, faults
from hookgraph.sync import read_target, sync
from tests.conftest import TINY_APP, clean_env, commit_all, git, make_repo, run_cli, write_files
from tests.helpers.reliability import record, store_state, tree

READERS = (("ask", "fetch page", "--no-semantic"), ("status",), ("status", "--json"), ("callers", "fetch_page"),
           ("callees", "fetch_page"), ("graph", "fetch_page"))


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), capture_output=True, text=True)


def _can_mount() -> str | None:
    """Why mounts cannot be used here (None when they can)."""
    if os.geteuid() != 0:
        return "mounting tmpfs / bind mounts needs root (not available here, e.g. GitHub Actions without sudo)"
    if shutil.which("mount") is None or shutil.which("umount") is None:
        return "mount/umount are not installed"
    return None


def _mount(*args: str) -> None:
    proc = _run("mount", *args)
    if proc.returncode != 0:
        pytest.skip(f"mount {' '.join(args)} is not permitted here: {proc.stderr.strip()}")


def _umount(path: Path) -> None:
    for _ in range(50):
        if _run("umount", str(path)).returncode == 0:
            return
        time.sleep(0.1)  # a process of ours may still be closing a file there
    _run("umount", "-l", str(path))


@contextmanager
def tmpfs(path: Path, size: str) -> Iterator[Path]:
    reason = _can_mount()
    if reason:
        pytest.skip(reason)
    path.mkdir(parents=True, exist_ok=True)
    _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path))
    try:
        yield path
    finally:
        _umount(path)


@contextmanager
def read_only(path: Path) -> Iterator[Path]:
    """``path`` (a file or directory) bind-mounted read-only over itself."""
    reason = _can_mount()
    if reason:
        pytest.skip(reason)
    _mount("--bind", str(path), str(path))
    try:
        proc = _run("mount", "-o", "remount,ro,bind", str(path))
        if proc.returncode != 0:
            pytest.skip(f"a read-only bind mount is not permitted here: {proc.stderr.strip()}")
        yield path
    finally:
        _umount(path)


def fill(directory: Path, leave: int) -> Path:
    """Take all but about ``leave`` bytes of ``directory``'s file system (a real file, like any other program's)."""
    filler = directory / f"filler-{len(list(directory.glob('filler-*')))}"
    free = faults.free_bytes(directory) or 0
    size = max(free - leave, 0)
    with open(filler, "wb") as f:
        if size:
            os.posix_fallocate(f.fileno(), 0, size)
    return filler


def one_line(proc: subprocess.CompletedProcess[str]) -> str:
    """The single stderr line of a command (no traceback, nothing else)."""
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def leftovers(root: Path) -> set[str]:
    """SQLite sidecars and temporary files in ``.hookgraph/`` (none may be left by a failed command)."""
    return {p.name for p in (root / ".hookgraph").iterdir()
            if p.name.endswith(("-wal", "-shm", "-journal")) or p.name.startswith((".index.db.", ".shared.db."))}


def settle(root: Path) -> None:
    """Close the last (read-only) reader's ``-wal``/``-shm`` the way SQLite does: a writer's last close removes them.

    ``store_state`` reads read-only, and a read-only connection may not
    remove them; the faults below must be judged on what *they* leave.
    """
    import apsw

    con = apsw.Connection(str(db_path(root)))
    con.execute("SELECT count(*) FROM sqlite_master").fetchall()
    con.close()
    assert not leftovers(root)


def indexed_app(parent: Path) -> Path:
    root = make_repo(parent / "repo", {"app.py": TINY_APP})
    run_cli(root, "index", "--wait", check=True)
    return root


def answers(root: Path) -> None:
    """The previous index still answers, whole."""
    proc = run_cli(root, "ask", "fetch page", "--no-semantic", "--json")
    assert proc.returncode == 0 and "fetch_page" in proc.stdout, proc.stderr
    assert store_state(root)


# -- read-only --------------------------------------------------------------------------


@pytest.mark.parametrize("what", ["directory", "file"])
def test_a_read_only_index_is_read_and_never_called_damaged(what: str, tmp_path: Path) -> None:
    root = indexed_app(tmp_path)
    db = db_path(root)
    before = sorted(p.name for p in db.parent.iterdir())
    target = db.parent if what == "directory" else db
    why = "its directory is read-only" if what == "directory" else "the file is read-only"
    expected = (f"hookgraph: {db} cannot be updated: {why} (read-only file system): make it writable, "
                "then run `hookgraph index` (reading the index still works)")
    with read_only(target):
        for args in READERS:
            proc = run_cli(root, *args)
            assert proc.returncode == 0, (args, proc.stderr)
            assert one_line(proc) == (f"hookgraph: note: .hookgraph/index.db cannot be updated: {why} "
                                      "(read-only file system); answering from it as it is"), args
        assert "fetch_page" in run_cli(root, "ask", "fetch page", "--no-semantic").stdout
        for args in (("index",), ("index", "--full")):
            proc = run_cli(root, *args)
            assert proc.returncode == 2 and one_line(proc) == expected, (args, proc.stderr)
        hook = run_cli(root, "hook", "post-commit")
        assert hook.returncode == 0
        assert one_line(hook) == f"{expected.replace('hookgraph: ', 'hookgraph: warning: post-commit hook skipped: ', 1)} (git goes on)"
        strict = run_cli(root, "hook", "post-commit", "--strict")
        assert strict.returncode == 1 and "cannot be updated" in one_line(strict)
        if what == "directory":  # the lock file cannot be opened: the directory is the cause, not the file
            from hookgraph.store.lock import write_lock

            with pytest.raises(StoreError) as caught:
                with write_lock(db.parent, timeout=1):
                    pass
            assert caught.value.cause == "read-only" and "remove" not in str(caught.value), caught.value
            assert str(caught.value) == expected.removeprefix("hookgraph: ")
        assert sorted(p.name for p in db.parent.iterdir()) == before  # nothing created, nothing moved aside
    assert not leftovers(root)
    answers(root)
    write_files(root, {"more.py": "def extra():\n    return 1\n"})
    commit_all(root, "more")
    run_cli(root, "index", "--wait", check=True)  # writable again: it catches up
    assert store_state(root) == tree(root)
    record(f"read-only {what}", 1, "readers answered with one note line; index/--full/hook refused in one line "
           "naming the read-only place, nothing moved aside or created; caught up once writable")


# -- no space left ------------------------------------------------------------------------


def _space_message(db: Path) -> re.Pattern[str]:
    return re.compile(rf"hookgraph: no space left for {re.escape(str(db))} \(\d+(\.\d)? (bytes|KB|MB) free, this needs "
                      r"about \d+(\.\d)? (KB|MB)\): free some space, then run `hookgraph index`; the index was not changed")


def test_a_full_disk_refuses_a_sync_before_any_work_and_a_hook_fails_open_fast(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "disk", "4m") as disk:
        root = indexed_app(disk)
        db = db_path(root)
        good = store_state(root)
        settle(root)
        write_files(root, {f"pkg/mod{i}.py": f"def handler_{i}(request):\n    return request\n" for i in range(30)})
        git(root, "add", "-A")
        filler = fill(disk, 200_000)

        index = run_cli(root, "index")
        assert index.returncode == 2 and _space_message(db).fullmatch(one_line(index)), index.stderr
        full = run_cli(root, "index", "--full")
        assert full.returncode == 2 and _space_message(db).fullmatch(one_line(full)), full.stderr

        started = time.perf_counter()
        hook = run_cli(root, "hook", "pre-commit")
        hook_seconds = time.perf_counter() - started
        assert hook.returncode == 0 and hook_seconds <= 2.0, (hook_seconds, hook.stderr)
        line = one_line(hook)
        assert line.startswith("hookgraph: warning: pre-commit hook skipped: no space left for") and \
            line.endswith("(git goes on)"), line

        # git goes on: a real commit with the plain hooks installed
        run_cli(root, "install", check=True)
        started = time.perf_counter()
        commit = subprocess.run(["git", "commit", "-q", "-m", "thirty handlers"], cwd=root, env=clean_env(),
                                capture_output=True, text=True)
        commit_seconds = time.perf_counter() - started
        assert commit.returncode == 0, commit.stderr
        assert commit.stderr.count("no space left") == 2 and "Traceback" not in commit.stderr, commit.stderr

        # nothing lost, nothing left behind; readers still answer, and leave nothing either
        for args in READERS:
            proc = run_cli(root, *args)
            assert proc.returncode == 0 and "Traceback" not in proc.stderr, (args, proc.stderr)
        assert not leftovers(root) and store_state(root) == good
        settle(root)
        # not a byte left: SQLite could not even create its -shm; readers still answer, saying so
        last = fill(disk, 0)
        assert (faults.free_bytes(disk) or 0) < 64 * 1024
        for args in READERS:
            proc = run_cli(root, *args)
            assert proc.returncode == 0 and "Traceback" not in proc.stderr, (args, proc.stderr)
            assert proc.stderr.splitlines()[0] == ("hookgraph: note: .hookgraph/index.db cannot be updated: no space "
                                                   "left on its file system; answering from it as it is"), args
        assert not leftovers(root)
        last.unlink()
        filler.unlink()
        run_cli(root, "index", "--wait", check=True)
        assert store_state(root) == tree(root)
    record("disk full before a sync (4 MB tmpfs, 200 KB left)", 1,
           f"index, --full and hooks refused before any work, one line naming the space needed; pre-commit hook "
           f"{hook_seconds:.2f}s, a real commit with both hooks {commit_seconds:.2f}s; index unchanged, "
           "no -wal/-shm left; with 0 bytes free readers answered read-only with one note; caught up once space "
           "was freed", hook_seconds=round(hook_seconds, 3))


def test_a_first_index_on_a_full_disk_leaves_nothing(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "disk", "3m") as disk:
        root = make_repo(disk / "repo", {"app.py": TINY_APP})
        fill(disk, 300_000)
        proc = run_cli(root, "index")
        assert proc.returncode == 2 and _space_message(db_path(root)).fullmatch(one_line(proc)), proc.stderr
        assert not (root / ".hookgraph").exists()
        ask = run_cli(root, "ask", "fetch")
        assert ask.returncode == 2 and one_line(ask) == f"hookgraph: no index in {root}: run `hookgraph index` first"
    record("first index on a full disk", 1, "refused before anything was created (no .hookgraph/, no -wal)")


class _FillsTheDisk:
    """The sync's progress sink: after its first file, another program takes the rest of the disk."""

    def __init__(self, disk: Path) -> None:
        self.disk = disk
        self.filler: Path | None = None

    def __call__(self, total: int) -> _FillsTheDisk:
        return self

    def advance(self, n: int = 1) -> None:
        if self.filler is None:
            self.filler = fill(self.disk, 0)

    def close(self) -> None:
        pass


def test_a_disk_filling_up_during_a_sync_rolls_back_and_keeps_the_index(tmp_path: Path, embedder) -> None:
    with tmpfs(tmp_path / "disk", "6m") as disk:
        root = make_repo(disk / "repo", {"app.py": TINY_APP})
        sync(root, read_target(root, "head"), embedder=embedder)
        good = store_state(root)
        settle(root)
        write_files(root, {"calls.py": "def caller():\n" + "".join(f"    callee_{i}()\n" for i in range(12000)),
                           "more.py": "def extra():\n    return 1\n"})
        commit_all(root, "a call-dense file")
        filler = _FillsTheDisk(disk)
        with pytest.raises(StoreError) as caught:
            sync(root, read_target(root, "head"), embedder=embedder, progress=filler)
        assert filler.filler is not None, "the sync never got to its files"
        assert caught.value.cause == "no-space"
        assert _space_message(db_path(root)).fullmatch(f"hookgraph: {caught.value}"), str(caught.value)
        assert not leftovers(root) and store_state(root) == good
        answers(root)
        filler.filler.unlink()
        run_cli(root, "index", "--wait", check=True)
        assert store_state(root) == tree(root)
    record("disk filled by another program during a sync", 1,
           "SQLITE_FULL at commit: rolled back, one line naming the space needed, previous index whole and "
           "answering, no -wal/-shm left; next sync completed")


def test_a_first_index_that_the_disk_cannot_take_leaves_no_file(tmp_path: Path, embedder) -> None:
    with tmpfs(tmp_path / "disk", "6m") as disk:
        root = make_repo(disk / "repo", {"app.py": TINY_APP, "calls.py": "def caller():\n" + "".join(
            f"    callee_{i}()\n" for i in range(12000))})
        filler = _FillsTheDisk(disk)
        with pytest.raises(StoreError) as caught:
            sync(root, read_target(root, "head"), embedder=embedder, progress=filler)
        assert filler.filler is not None and caught.value.cause == "no-space", caught.value
        left = sorted(p.name for p in (root / ".hookgraph").iterdir())
        assert left == [".gitignore", "lock"], left  # no index.db, no -wal, no -shm
        filler.filler.unlink()
        run_cli(root, "index", "--wait", check=True)
        assert store_state(root) == tree(root)
    record("disk filled during a first index", 1, "rolled back; the half-made index.db and its -wal/-shm removed; "
           "the next index completed")


# -- I/O error ---------------------------------------------------------------------------------


EXT4_IOC_SHUTDOWN = 0x8004587D  # _IOR('X', 125, __u32)
EXT4_GOING_FLAGS_NOLOGFLUSH = 2


@contextmanager
def ext4_image(mountpoint: Path, image: Path) -> Iterator[Path]:
    reason = _can_mount()
    if reason:
        pytest.skip(reason)
    if shutil.which("mkfs.ext4") is None:
        pytest.skip("mkfs.ext4 is not installed: no file system to fail")
    with open(image, "wb") as f:
        f.truncate(16 << 20)
    if _run("mkfs.ext4", "-q", "-F", str(image)).returncode != 0:
        pytest.skip("mkfs.ext4 failed")
    mountpoint.mkdir(parents=True, exist_ok=True)
    _mount("-o", "loop", str(image), str(mountpoint))
    try:
        yield mountpoint
    finally:
        _umount(mountpoint)


def test_a_failing_disk_is_an_io_error_not_damage(tmp_path: Path) -> None:
    root = indexed_app(tmp_path)
    saved = tmp_path / "saved"
    shutil.copytree(root / ".hookgraph", saved)
    shutil.rmtree(root / ".hookgraph")
    db = db_path(root)
    with ext4_image(root / ".hookgraph", tmp_path / "disk.img") as mnt:
        for p in saved.iterdir():
            shutil.copy2(p, mnt / p.name)
        answers(root)
        settle(root)
        os.sync()  # what was written so far is on the disk: only what comes next is lost to the failure
        fd = os.open(mnt, os.O_RDONLY)
        try:  # the storage fails from here on: every read and write of it is EIO, as on a dying disk
            fcntl.ioctl(fd, EXT4_IOC_SHUTDOWN, struct.pack("I", EXT4_GOING_FLAGS_NOLOGFLUSH))
        except OSError as exc:
            pytest.skip(f"EXT4_IOC_SHUTDOWN is not permitted here: {exc}")
        finally:
            os.close(fd)
        ask = run_cli(root, "ask", "fetch page", "--no-semantic")
        line = one_line(ask)
        assert ask.returncode == 2 and re.fullmatch(
            rf"hookgraph: disk I/O error on {re.escape(str(db))} \((unable to open database file|disk I/O error)\): "
            r"the disk or file system under it is failing: check it \(dmesg, fsck\), then run `hookgraph index`",
            line), line
        hook = run_cli(root, "hook", "post-commit")
        assert hook.returncode == 0 and "(git goes on)" in one_line(hook) and "damaged" not in hook.stderr
        full = run_cli(root, "index", "--full")
        assert full.returncode == 2 and "damaged" not in one_line(full) and "moved it aside" not in full.stderr
    # the same disk, mounted again (the journal replays): the index answers as before
    with ext4_image_again(root / ".hookgraph", tmp_path / "disk.img"):
        answers(root)
        assert not list((root / ".hookgraph").glob("index.db.broken-*"))
    record("disk I/O error (ext4 image shut down under the index)", 1,
           "ask, a hook and index --full each one line naming the disk, never 'damaged', nothing moved aside; "
           "the index answered again after a remount")


@contextmanager
def ext4_image_again(mountpoint: Path, image: Path) -> Iterator[Path]:
    _mount("-o", "loop", str(image), str(mountpoint))
    try:
        yield mountpoint
    finally:
        _umount(mountpoint)


# -- locked --------------------------------------------------------------------------------


def test_an_index_locked_by_another_process_says_wait_and_run_index(tmp_path: Path) -> None:
    root = indexed_app(tmp_path)
    good = store_state(root)
    write_files(root, {"more.py": "def extra():\n    return 1\n"})
    commit_all(root, "more")
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, sys, time; f = open(sys.argv[1], 'a'); "
         "fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)",
         str(root / ".hookgraph" / "lock")], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        env = clean_env(HOOKGRAPH_LOCK_TIMEOUT="1")
        hook = run_cli(root, "hook", "post-commit", env=env)
        expected = (f"another hookgraph process is writing {root / '.hookgraph'} (waited 1s): this update was "
                    "skipped; run `hookgraph index` once it is done")
        assert hook.returncode == 0
        assert one_line(hook) == f"hookgraph: warning: post-commit hook skipped: {expected} (git goes on)"
        strict = run_cli(root, "hook", "post-commit", "--strict", env=env)
        assert strict.returncode == 1 and one_line(strict) == f"hookgraph: post-commit hook failed: {expected}"
        answers(root)  # readers never wait for the lock
        assert store_state(root) == good
    finally:
        holder.kill()
        holder.wait()
    run_cli(root, "index", "--wait", check=True)
    assert store_state(root) == tree(root)
    record("write lock held by another process", 1, "hook: one line saying to run `hookgraph index` (exit 0; "
           "--strict exit 1); readers answered; index caught up after")


def test_sqlite_busy_is_diagnosed_as_locked(tmp_path: Path) -> None:
    import apsw

    root = indexed_app(tmp_path)
    db = db_path(root)
    holder = apsw.Connection(str(db))
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        other = apsw.Connection(str(db))
        other.setbusytimeout(0)
        with pytest.raises(apsw.Error) as caught:
            other.execute("BEGIN IMMEDIATE")
        fault = faults.diagnose(db, caught.value)
        other.close()
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert fault.cause == "locked" and not fault.movable
    assert fault.message == (f"{db} is locked by another process (database is locked): wait for it "
                             "to finish, then run `hookgraph index`")


_SQLITE_LOCK_HOLDER = """
import apsw, fcntl, os, struct, sys, time
db = apsw.Connection(sys.argv[1])
db.execute("SELECT count(*) FROM units").fetchall()  # a real connection: the WAL index is set up and kept
fd = os.open(sys.argv[2], os.O_RDWR)
# SQLite's own lock bytes, as a process that stops inside SQLite holds them: the -shm's WAL locks (120-128),
# or the database's shared range (SHARED_FIRST, 510 bytes)
fcntl.fcntl(fd, fcntl.F_SETLK, struct.pack("hhqqi4x", fcntl.F_WRLCK, 0, int(sys.argv[3]), int(sys.argv[4]), 0))
print("held", flush=True)
time.sleep(120)
"""


@contextmanager
def _sqlite_lock_held(db: Path, on: str, start: int, length: int) -> Iterator[int]:
    holder = subprocess.Popen([sys.executable, "-c", _SQLITE_LOCK_HOLDER, str(db), on, str(start), str(length)],
                              stdout=subprocess.PIPE, text=True, env=clean_env(PYTHONPATH=os.getcwd()))
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield holder.pid
    finally:
        holder.kill()
        holder.wait()


def test_a_stopped_process_holding_the_wal_locks_is_named_never_called_damaged(tmp_path: Path) -> None:
    """A process stopped inside SQLite with the WAL's locks (an embedder frozen while it recovered the WAL) made
    readers fail with SQLITE_PROTOCOL ("locking protocol"), which status called damage: "rebuild it with
    `hookgraph index --full`" (seen in a fresh-clone CI run). It is a lock, its holder is named, and resuming
    it is the remedy; the index answers after."""
    root = indexed_app(tmp_path)
    db = db_path(root)
    with _sqlite_lock_held(db, f"{db}-shm", 120, 9) as pid:
        os.kill(pid, signal.SIGSTOP)
        started = time.monotonic()
        proc = run_cli(root, "status")
        took = time.monotonic() - started
        assert proc.returncode == 2 and "damaged" not in proc.stderr and "--full" not in proc.stderr, proc.stderr
        assert one_line(proc) == (f"hookgraph: {db} is locked by process {pid}, which is stopped (locking protocol): "
                                  f"resume it with `kill -CONT {pid}` (`ps -p {pid}` shows what it is; a stopped "
                                  f"hookgraph embedder may be ended with `kill {pid}`), then run `hookgraph index`")
        os.kill(pid, signal.SIGCONT)
    answers(root)
    record("SQLite's WAL locks held by a stopped process", 1, f"status: one line naming the pid and `kill -CONT` "
           f"after {took:.0f}s, never 'damaged'; answered once it ended")


def test_a_running_holder_of_the_database_lock_is_named_with_wait_and_waited_for(tmp_path: Path) -> None:
    """A holder that is working is named with "wait", and waited for as SQLite would: giving up early
    (below) is for a stopped holder only."""
    import apsw

    from hookgraph.store.connection import connect

    root = indexed_app(tmp_path)
    db = db_path(root)
    with _sqlite_lock_held(db, str(db), 0x40000002, 510) as pid:
        reader = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
        reader.setbusytimeout(0)
        with pytest.raises(apsw.Error) as caught:
            reader.execute("SELECT count(*) FROM units").fetchall()
        reader.close()
        fault = faults.diagnose(db, caught.value)
        waiting = connect(db, readonly=True, immutable=False)  # the store's own busy wait
        ending = subprocess.Popen(["sh", "-c", f"sleep 2.5; kill {pid}"])
        started = time.monotonic()
        try:
            count = waiting.execute("SELECT count(*) FROM units").fetchall()[0][0]
        except apsw.BusyError as gave_up:
            pytest.fail(f"a running holder was not waited for: {gave_up}")
        finally:
            ending.wait()
            waiting.close()
    assert fault.cause == "locked" and not fault.movable
    assert fault.message == (f"{db} is locked by process {pid} (database is locked): wait for it to finish "
                             f"(`ps -p {pid}` shows it), then run `hookgraph index`")
    assert count > 0 and time.monotonic() - started >= 2


def test_a_stopped_holder_of_the_database_lock_is_not_waited_for_by_commands_or_hooks(tmp_path: Path) -> None:
    """A process frozen while it holds the database's lock never lets go: `status` and a commit's hook waited
    SQLite's whole 30 s busy timeout before they said so (the hook then let git go on). They now give up once
    the kernel shows the holder stopped (three checks, half a second apart), and say whose lock it is."""
    root = indexed_app(tmp_path)
    db = db_path(root)
    write_files(root, {"more.py": "def extra():\n    return 1\n"})
    commit_all(root, "more")
    with _sqlite_lock_held(db, str(db), 0x40000002, 510) as pid:  # SQLite's shared range: nobody reads
        os.kill(pid, signal.SIGSTOP)
        locked = (f"{db} is locked by process {pid}, which is stopped (database is locked): resume it with "
                  f"`kill -CONT {pid}` (`ps -p {pid}` shows what it is; a stopped hookgraph embedder may be ended "
                  f"with `kill {pid}`), then run `hookgraph index`")
        started = time.monotonic()
        status = run_cli(root, "status")
        status_took = time.monotonic() - started
        started = time.monotonic()
        hook = run_cli(root, "hook", "post-commit")
        hook_took = time.monotonic() - started
        os.kill(pid, signal.SIGCONT)
    assert status.returncode == 2 and one_line(status) == f"hookgraph: {locked}"
    assert hook.returncode == 0 and one_line(hook) == f"hookgraph: warning: post-commit hook skipped: {locked} (git goes on)"
    assert status_took < 15 and hook_took < 15, (status_took, hook_took)  # SQLite's own wait alone is 30 s
    run_cli(root, "index", "--wait", check=True)
    assert store_state(root) == tree(root)
    record("SQLite's database lock held by a stopped process", 1, f"status in {status_took:.1f}s and the hook in "
           f"{hook_took:.1f}s (it was 30s each): one line naming the pid and `kill -CONT`; index caught up after")


# -- the file itself ------------------------------------------------------------------------


def _newer(db: Path) -> None:
    import apsw

    con = apsw.Connection(str(db))
    con.execute("PRAGMA user_version=99")
    con.close()


FOREIGN = {
    "garbage": (lambda db: db.write_bytes(os.urandom(64 * 1024)),
                "is not a hookgraph database (not an SQLite file): move it away, or rebuild with "
                "`hookgraph index --full` (it is moved aside, not deleted)"),
    "zeros": (lambda db: db.write_bytes(bytes(8 << 20)),
              "is not a hookgraph database (only zero bytes): move it away, or rebuild with "
              "`hookgraph index --full` (it is moved aside, not deleted)"),
    "newer schema": (_newer, "was written by a newer hookgraph (schema 99, this one knows "),
}


@pytest.mark.parametrize("name", list(FOREIGN))
def test_a_foreign_index_is_named_for_what_it_is_and_full_moves_it_aside(name: str, tmp_path: Path) -> None:
    root = indexed_app(tmp_path)
    db = db_path(root)
    damage, told = FOREIGN[name]
    damage(db)
    ask = run_cli(root, "ask", "fetch page", "--no-semantic")
    assert ask.returncode == 2 and one_line(ask).startswith(f"hookgraph: {db} {told}"), ask.stderr
    full = run_cli(root, "index", "--full")
    assert full.returncode == 0, full.stderr
    assert "moved it aside to index.db.broken-" in full.stderr and "Traceback" not in full.stderr
    assert len(list(db.parent.glob("index.db.broken-*"))) == 1
    answers(root)


# -- diagnose itself: only quick_check calls a file damaged -------------------------------------


def test_quick_check_decides_damage(tmp_path: Path) -> None:
    import apsw

    root = indexed_app(tmp_path)
    db = db_path(root)
    assert faults.quick_check(db) is None
    fault = faults.diagnose(db, apsw.CorruptError("database disk image is malformed"))
    assert fault.cause == "internal" and not fault.movable and "damaged" not in fault.problem.split("(")[0]
    assert fault.message == (f"SQLite reported damage in {db} (database disk image is malformed) but integrity_check "
                             "finds the file whole: run the command again; if it fails the same way, rebuild with "
                             "`hookgraph index --full`")
    data = bytearray(db.read_bytes())
    for n in range(2, len(data) // 4096, 3):
        data[n * 4096:(n + 1) * 4096] = bytes(4096)
    db.write_bytes(bytes(data))
    finding = faults.quick_check(db)
    assert finding is not None
    fault = faults.diagnose(db, apsw.CorruptError("database disk image is malformed"))
    assert fault.cause == "damaged" and fault.movable
    assert fault.message == f"{db} is damaged (quick_check: {finding}): rebuild it with `hookgraph index --full`"


# -- a committed snapshot that cannot be used (shared mode) --------------------------------------


def _newer_snapshot(tmp_path: Path) -> bytes:
    import apsw

    source = indexed_app(tmp_path / "newer")
    copy = tmp_path / "newer.db"
    shutil.copy(db_path(source), copy)
    con = apsw.Connection(str(copy))
    con.execute("PRAGMA journal_mode=DELETE")
    con.execute("PRAGMA user_version=99")
    con.close()
    return copy.read_bytes()


SNAPSHOTS = {
    "garbage": (lambda tmp: os.urandom(256 * 1024), "is not a hookgraph database (not an SQLite file)"),
    "zeros": (lambda tmp: bytes(64 << 20), "is not a hookgraph database (only zero bytes)"),
    "newer schema": (_newer_snapshot, "was written by a newer hookgraph (schema 99, this one knows "),
}


@pytest.mark.parametrize("name", list(SNAPSHOTS))
def test_an_unusable_committed_snapshot_explains_itself(name: str, tmp_path: Path) -> None:
    from hookgraph.store import MIGRATIONS
    from hookgraph.store import snapshot

    make_snapshot, reason = SNAPSHOTS[name]
    if name == "newer schema":
        reason += f"{len(MIGRATIONS)})"
    teammate = make_repo(tmp_path / "teammate", {"app.py": TINY_APP})
    snapshot.write_shared_setting(teammate, True)
    snapshot.snapshot_path(teammate).write_bytes(make_snapshot(tmp_path))
    git(teammate, "add", "-f", "-A")
    git(teammate, "commit", "-q", "-m", f"a {name} snapshot")
    short = git(teammate, "rev-parse", "HEAD").strip()[:12]
    victim = tmp_path / "victim"
    git(tmp_path, "clone", "-q", str(teammate), str(victim))

    remedy = ("upgrade hookgraph, or run `hookgraph index` to build the index from the source" if name == "newer schema"
              else "run `hookgraph index` to build the index from the source (your next commit replaces the snapshot)")
    # a snapshot gives vectors only: the first command builds the index from the source and says why none came
    brought = git(victim, "log", "-1", "--format=%h", "--", ".hookgraph/shared.db").strip()
    first = run_cli(victim, "ask", "fetch page", "--no-semantic")
    assert first.returncode == 0 and "fetch_page" in first.stdout, first.stderr
    assert "Traceback" not in first.stderr
    assert first.stderr.splitlines()[0] == (f"hookgraph: warning: ignored the committed snapshot .hookgraph/shared.db of commit "
                               f"{brought}: it {reason}; your next commit replaces it")
    for args in (("status",), ("callers", "fetch_page"), ("graph", "fetch_page")):
        proc = run_cli(victim, *args)
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, (args, proc.stderr)
    verify = run_cli(victim, "verify")
    line = one_line(verify)
    assert verify.returncode == 1 and "/tmp" not in line and tempfile_free(line), line
    assert line == f"hookgraph: the committed snapshot {short}:.hookgraph/shared.db {reason}: {remedy}"
    hook = run_cli(victim, "hook", "post-checkout")
    driver = [line for line in hook.stderr.splitlines() if "configured git's merge driver" in line]
    assert len(driver) == 1  # a clone without the merge driver gets it at its first hook, and is told
    assert hook.returncode == 0 and "Traceback" not in hook.stderr
    answers(victim)
    record(f"committed snapshot: {name}", 1, "the first command builds the index from the source and answers, with "
           "one line naming the snapshot and its commit; verify names it as <commit>:.hookgraph/shared.db "
           "(never a temporary file)")


def tempfile_free(line: str) -> bool:
    import tempfile

    return tempfile.gettempdir() not in line and "hookgraph-snapshot-" not in line and "hookgraph-upgrade-" not in line
