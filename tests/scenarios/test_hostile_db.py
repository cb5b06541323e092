"""A hostile committed database: planted SQL never runs, nothing outside the
repository is ever opened or printed, and the user is told the database is not trustworthy.

How "planted" is detected: :class:`hookgraph.store.Store` compares
``sqlite_master`` object for object with the schema our own migrations build in
memory, and ``check_contents`` refuses stored paths that leave the repository.
A teammate's repository commits the crafted ``.hookgraph/shared.db`` (shared
mode); the victim clones it with real git and runs the real commands, while an
inotify watch on a directory beside the repository records every open.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import apsw
import pytest

from hookgraph.store import snapshot as snapfiles
from hookgraph.store import Store, db_path
from hookgraph.store.connection import load_vec
from tests.conftest import index_now, git, make_repo, run_cli
from tests.helpers.reliability import OpenWatcher, record, store_state, tree
from tests.helpers.snapshot_helpers import export_database_snapshot

#: The watch on the directory beside the repository uses inotify.
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs inotify (Linux)")

SECRET = "TOP-SECRET-TOKEN-4f1d"
CODE = {
    "app/auth.py": 'def login(user, password):\n    """Check a password."""\n    return user == password\n',
    "app/util.py": 'def slug(text):\n    """Dashes."""\n    return "-".join(text.split())\n',
}


@pytest.fixture(scope="module")
def legit_snapshot(tmp_path_factory: pytest.TempPathFactory, embedder) -> bytes:
    """A genuine shared-mode snapshot of CODE in the SQLite format an older hookgraph committed (still read)."""
    root = make_repo(tmp_path_factory.mktemp("legit") / "repo", CODE)
    snapfiles.write_shared_setting(root, True)
    index_now(root, embedder)
    return export_database_snapshot(root).read_bytes()


@pytest.fixture
def outside(tmp_path: Path, legit_snapshot: bytes) -> Path:
    """A directory beside the repositories with things worth stealing."""
    d = tmp_path / "outside"
    d.mkdir()
    (d / "secret.txt").write_text(f"{SECRET}\n" * 50)
    (d / "secret.db").write_bytes(legit_snapshot)  # a valid hookgraph database, outside the repo
    (d / "evil.so").write_bytes(os.urandom(256))
    (d / "victim-bashrc").write_text("echo hello\n")
    return d


def _craft(snapshot: bytes, path: Path, *statements: str) -> None:
    path.write_bytes(snapshot)
    con = apsw.Connection(str(path))
    load_vec(con)
    con.execute("PRAGMA trusted_schema=ON")  # we are the attacker here
    for statement in statements:
        con.execute(statement)
    con.close()


def _plant(path_sql: str) -> tuple[str, ...]:
    """Rows naming ``path`` as if it were an indexed file with a unit."""
    return (
        f"INSERT INTO files(path, blob, language, status, units) VALUES ({path_sql}, "
        f"'{'a' * 40}', 'python', 'indexed', 1)",
        f"INSERT INTO units(path, kind, name, qualname, start_line, end_line, language, signature, docstring) "
        f"VALUES ({path_sql}, 'function', 'login', 'login', 1, 50, 'python', 'def login()', 'password check')",
    )


# name -> (what the teammate commits, given (repo root, outside dir, legit snapshot bytes))
Attack = Callable[[Path, Path, bytes], None]


def _snapshot_with(*statements: str) -> Attack:
    def attack(root: Path, outside: Path, snapshot: bytes) -> None:
        _craft(snapshot, snapfiles.snapshot_path(root), *(s.replace("{outside}", str(outside)) for s in statements))

    return attack


def _symlinked_snapshot(root: Path, outside: Path, snapshot: bytes) -> None:
    snap = snapfiles.snapshot_path(root)
    snap.unlink(missing_ok=True)
    snap.symlink_to(outside / "secret.db")


def _symlinked_wal(root: Path, outside: Path, snapshot: bytes) -> None:
    snapfiles.snapshot_path(root).write_bytes(snapshot)
    (root / ".hookgraph" / "index.db-wal").symlink_to(outside / "victim-bashrc")


def _symlinked_config(root: Path, outside: Path, snapshot: bytes) -> None:
    snapfiles.snapshot_path(root).write_bytes(snapshot)
    config = snapfiles.config_path(root)
    config.unlink()
    config.symlink_to(outside / "secret.txt")


def _symlinked_lock(root: Path, outside: Path, snapshot: bytes) -> None:
    snapfiles.snapshot_path(root).write_bytes(snapshot)
    (root / ".hookgraph" / "lock").symlink_to(outside / "victim-bashrc")


def _symlinked_directory(root: Path, outside: Path, snapshot: bytes) -> None:
    shutil.rmtree(root / ".hookgraph")
    (root / ".hookgraph").symlink_to(outside)


def _symlinked_path_row(root: Path, outside: Path, snapshot: bytes) -> None:
    (root / "docs").symlink_to(outside)  # a committed symlink leaving the repo
    _craft(snapshot, snapfiles.snapshot_path(root), *_plant("'docs/secret.txt'"))


ATTACKS: dict[str, Attack] = {
    "trigger with plain SQL": _snapshot_with(
        "CREATE TRIGGER evil AFTER INSERT ON files BEGIN DELETE FROM units; "
        "INSERT INTO meta VALUES('pwned', 'trigger ran'); END"),
    "trigger calling load_extension": _snapshot_with(
        "CREATE TRIGGER evil BEFORE INSERT ON units BEGIN SELECT load_extension('{outside}/evil.so'); END"),
    "view calling load_extension": _snapshot_with(
        "CREATE VIEW evil AS SELECT load_extension('{outside}/evil.so')"),
    "table swapped for a view": _snapshot_with(
        "ALTER TABLE edges RENAME TO edges_old",
        "CREATE VIEW edges AS SELECT * FROM edges_old WHERE load_extension('{outside}/evil.so') IS NULL"),
    "altered table with a DEFAULT": _snapshot_with(
        "DROP TABLE meta",
        "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL DEFAULT (load_extension('{outside}/evil.so')))",
        "INSERT INTO meta(key, value) VALUES ('dims', '384')"),
    "path ../../outside/secret.txt": _snapshot_with(*_plant("'../outside/secret.txt'")),
    "absolute path": _snapshot_with(*_plant("'{outside}/secret.txt'")),
    "path into .git": _snapshot_with(*_plant("'.git/config'")),
    "non-hex blob (cat-file expression)": _snapshot_with(
        "UPDATE files SET blob = 'HEAD:app/auth.py' WHERE path = 'app/auth.py'"),
    "path through a committed symlink": _symlinked_path_row,
    "snapshot is a symlink to a database outside": _symlinked_snapshot,
    "index.db-wal is a symlink outside": _symlinked_wal,
    ".hookgraph/ is a symlink outside": _symlinked_directory,
    "config.toml is a symlink outside": _symlinked_config,
    "the lock file is a symlink outside": _symlinked_lock,
}


#: Attacks on files beside a sound snapshot (settings, lock): queries need neither, hooks refuse them.
ASK_MAY_ANSWER = {"config.toml is a symlink outside", "the lock file is a symlink outside"}
#: Attacks on the working index's own place: every command refuses before anything is built.
ASK_REFUSES = {"index.db-wal is a symlink outside", ".hookgraph/ is a symlink outside"}


def _teammate_repo(tmp_path: Path, outside: Path, snapshot: bytes, attack: Attack) -> Path:
    root = make_repo(tmp_path / "teammate", CODE)
    snapfiles.write_shared_setting(root, True)
    snapfiles.snapshot_path(root).write_bytes(snapshot)
    attack(root, outside, snapshot)
    git(root, "add", "-f", "-A")
    git(root, "commit", "-q", "-m", "innocent-looking commit")
    return root


@pytest.mark.parametrize("name", list(ATTACKS))
def test_a_hostile_committed_database_is_refused(name: str, tmp_path: Path, outside: Path,
                                                 legit_snapshot: bytes) -> None:
    teammate = _teammate_repo(tmp_path, outside, legit_snapshot, ATTACKS[name])
    victim = tmp_path / "victim"
    git(tmp_path, "clone", "-q", str(teammate), str(victim))
    before = {p.name: p.read_bytes() for p in outside.iterdir()}

    with OpenWatcher(outside) as watcher:
        ask = run_cli(victim, "ask", "password check", "--no-semantic", "--context", "400")
        hook = run_cli(victim, "hook", "post-checkout")
        status = run_cli(victim, "status")
        opened = watcher.drain()

    assert opened == [], f"opened outside the repository: {opened}"
    assert {p.name: p.read_bytes() for p in outside.iterdir()} == before, "a file outside was written"
    output = ask.stdout + ask.stderr + hook.stdout + hook.stderr + status.stdout + status.stderr
    assert SECRET not in output and "Traceback" not in output
    # the user is told, in one line per command
    # (plus, at a clone's first hook, the line saying it configured the merge driver)
    said = [line for line in hook.stderr.splitlines() if "configured git's merge driver" not in line]
    assert hook.returncode == 0 and len(said) <= 2, hook.stderr
    told = ("not trustworthy", "symlink")
    if name in ASK_MAY_ANSWER:  # the snapshot itself is sound: ask answers, or refuses in one line (no index yet)
        assert ask.returncode in (0, 1) or (ask.returncode == 2 and len(ask.stderr.splitlines()) == 1), ask.stderr
        assert any(t in hook.stderr for t in told), hook.stderr  # the hook says it
    elif name in ASK_REFUSES:  # the working index itself would be written through a link: nothing runs
        assert ask.returncode == 2 and len(ask.stderr.splitlines()) == 1, ask.stderr
        assert any(t in ask.stderr for t in told), ask.stderr
    else:  # a snapshot gives vectors only: the index is built from the source, the snapshot named in one line
        assert ask.returncode in (0, 1) and "login" in ask.stdout, ask.stderr
        warning = [line for line in ask.stderr.splitlines() if "snapshot" in line]
        assert len(warning) == 1 and any(t in warning[0] for t in told), ask.stderr
    # the planted database never became the working index
    live = db_path(victim)
    if live.exists() and not live.parent.is_symlink() and not Path(f"{live}-wal").is_symlink():
        with Store(live, readonly=True) as store:
            assert store.get_meta("pwned") is None
            store.check_contents()
        # a symlinked config.toml stops every sync (the hook says so): nothing of the snapshot was taken either
        assert store_state(victim) == ({} if name == "config.toml is a symlink outside" else tree(victim))
    record(f"hostile committed database: {name}", 1,
           "the snapshot's vectors refused with a one-line 'not trustworthy'/'symlink' message and the index "
           "built from the source; nothing outside opened or written; no planted SQL ran")


def test_a_planted_working_index_is_refused_and_rebuilt(tmp_path: Path, outside: Path,
                                                        legit_snapshot: bytes) -> None:
    """The same database copied in as the working index.db: refused by every command, --full rebuilds."""
    root = make_repo(tmp_path / "repo", CODE)
    (root / ".hookgraph").mkdir()
    _craft(legit_snapshot, db_path(root),
           "CREATE TRIGGER evil AFTER DELETE ON files BEGIN INSERT INTO meta VALUES('pwned', 'ran'); END",
           *_plant(f"'{outside}/secret.txt'"))
    with OpenWatcher(outside) as watcher:
        ask = run_cli(root, "ask", "password", "--no-semantic")
        index = run_cli(root, "index")
        full = run_cli(root, "index", "--full")
        after = run_cli(root, "ask", "password", "--no-semantic")
        opened = watcher.drain()
    assert opened == []
    for proc in (ask, index):
        assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1, proc.stderr
        assert "not trustworthy" in proc.stderr and "hookgraph index --full" in proc.stderr
    assert full.returncode == 0 and "moved it aside" in full.stderr, full.stderr
    assert after.returncode == 0 and "app/auth.py" in after.stdout and SECRET not in after.stdout
    assert store_state(root) == tree(root)
    broken = next((root / ".hookgraph").glob("index.db.broken-*"))
    con = apsw.Connection(str(broken), flags=apsw.SQLITE_OPEN_READONLY)
    assert con.execute("SELECT count(*) FROM meta WHERE key = 'pwned'").fetchall() == [(0,)], "the trigger ran"
    con.close()
    record("planted trigger + outside path in the working index.db", 1,
           "every command refused it in one line; --full moved it aside and rebuilt; trigger never ran")


def test_defence_in_depth_readers_refuse_hostile_rows(tmp_path: Path, outside: Path) -> None:
    """Below the store's checks, the readers themselves refuse what a hostile row names."""
    from hookgraph import git as g

    root = make_repo(tmp_path / "repo", CODE)
    (root / "link").symlink_to(outside)
    (root / "secret-link.txt").symlink_to(outside / "secret.txt")
    os.mkfifo(root / "fifo.py")
    with OpenWatcher(outside) as watcher:
        for path in ("../outside/secret.txt", str(outside / "secret.txt"), "link/secret.txt",
                     "secret-link.txt", ".git/config", "app/../../outside/secret.txt", "", "fifo.py"):
            assert g.read_worktree_file(root, path) is None, path
        assert g.read_worktree_file(root, "app/auth.py") is not None
        with g.BlobReader(root) as reader:
            for name in ("HEAD:app/auth.py", "HEAD", "a" * 40 + "\nHEAD:app/auth.py", "../x"):
                assert reader.read(name) is None, name
            blob = g.tree_map(root)["app/auth.py"].blob
            assert reader.read(blob) == CODE["app/auth.py"].encode()
        assert watcher.drain() == []
    record("hostile paths/blob names handed straight to the readers (defence in depth)", 12,
           "every one refused; nothing outside opened")

