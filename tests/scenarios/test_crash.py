"""Crash safety: kill -9 and Ctrl-C at random points of real ``hookgraph`` processes.

Each round commits new code (texts the model has never seen, so the kill can
land while the sync embeds and writes), starts the real command, kills it at
a random moment, and checks that the store opens read-only, passes every
invariant, and describes either the previous or the new tree, never a mix;
then the next sync completes. Half the rounds wait until the process holds
the write lock (it is inside the sync) before choosing the moment, so the
kills are not all spent on interpreter start-up.
"""

from __future__ import annotations

import os
import random
import signal
import time
from pathlib import Path

import pytest

from hookgraph.store import db_path
from tests.conftest import index_now, commit_all, git, make_repo, write_files
from tests.helpers.reliability import Budget, record, spawn, store_state, tree, wait_for_lock

BASE = {
    "pkg/core.py": '"""Core helpers."""\n\n\ndef double(x):\n    """Twice x."""\n    return 2 * x\n',
    "pkg/text.py": 'def shout(s):\n    """Loud."""\n    return s.upper()\n',
    "README.md": "# Demo\n\nA tiny project.\n",
}


def generated(round_: int, n: int = 8) -> str:
    """A module whose functions are new text every round (so they must be embedded)."""
    rng = random.Random(round_)
    words = ["parse", "render", "merge", "fetch", "store", "score", "split", "join", "scan", "load"]
    out = [f'"""Generated module, round {round_}."""\n']
    for i in range(n):
        a, b = rng.sample(words, 2)
        out.append(
            f"\n\ndef {a}_{b}_{round_}_{i}(items, limit={rng.randint(1, 99)}):\n"
            f'    """{a.title()} then {b} the items of round {round_}, step {i}."""\n'
            f"    return [{b}(x) for x in items[:limit] if {a}(x)]\n"
        )
    return "".join(out)


def next_commit(root: Path, round_: int, n: int = 8) -> dict[str, str]:
    files: dict[str, str | bytes] = {"pkg/gen.py": generated(round_, n)}
    if round_ % 3 == 1:
        (root / "pkg/text.py").unlink(missing_ok=True)
    else:
        files["pkg/text.py"] = BASE["pkg/text.py"] + f"\n\ndef whisper_{round_}(s):\n    return s.lower()\n"
    write_files(root, files)
    commit_all(root, f"round {round_}")
    return tree(root)


@pytest.fixture
def crash_repo(tmp_path: Path, embedder) -> Path:
    root = make_repo(tmp_path / "repo", dict(BASE))
    index_now(root, embedder)
    return root


_START: list[float] = []


def _interpreter_start() -> float:
    """Seconds until ``python -m hookgraph.cli`` runs our code here and now (0.1 s at least)."""
    if not _START:
        import subprocess
        import sys

        started = time.monotonic()
        subprocess.run([sys.executable, "-c", "import hookgraph"], check=True)
        _START.append(max(0.1, 1.5 * (time.monotonic() - started)))
    return _START[0]


def _kill_at_random(proc, root: Path, rng: random.Random, span: float, sig: int, group: bool) -> str:
    """Wait a random moment (after the write lock is taken, or from the start) and signal ``proc``."""
    if rng.random() < 0.5:
        where = "in-sync" if wait_for_lock(proc, root) else "after-sync"
        time.sleep(rng.uniform(0, span))
    else:
        # Once the interpreter is up: before that no program's code runs yet
        # (Python's own default handling applies). On a loaded machine that
        # takes longer than the 0.1 s of an idle one, so it is measured.
        where = "anywhere"
        time.sleep(rng.uniform(_interpreter_start(), max(span, _interpreter_start())))
    if proc.poll() is None:
        if group:
            os.killpg(proc.pid, sig)
        else:
            os.kill(proc.pid, sig)
    return where


def test_kill_9_during_index_leaves_previous_or_new_state(crash_repo: Path, embedder) -> None:
    root = crash_repo
    rng = random.Random(7)
    prev = store_state(root)
    assert prev == tree(root)
    # calibration: one undisturbed run gives the time span to aim the kills at
    new = next_commit(root, 0)
    started = time.monotonic()
    proc = spawn(root, "index")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    span = time.monotonic() - started
    prev = store_state(root)
    assert prev == new
    outcomes = {"previous": 0, "new": 0, "no store yet": 0}
    budget = Budget(count=16, seconds=45, minimum=4)
    for round_ in budget:
        fresh_db = round_ % 6 == 5  # the very first index: killed while the database is created
        full = round_ % 4 == 3
        if fresh_db:
            for suffix in ("", "-wal", "-shm"):
                Path(str(db_path(root)) + suffix).unlink(missing_ok=True)
            prev = None
        new = next_commit(root, round_ + 1)
        proc = spawn(root, "index", *(["--full"] if full else []))
        _kill_at_random(proc, root, rng, span, signal.SIGKILL, group=False)
        proc.communicate(timeout=120)
        if prev is None and not _has_schema(root):  # killed before the new file's first commit
            outcomes["no store yet"] += 1
        else:
            state = store_state(root)  # opens, read-only, after the kill; every invariant holds
            if prev is None and state == {}:
                outcomes["no store yet"] += 1
            else:
                assert state in (prev, new), "the store is neither the previous nor the new state"
                outcomes["previous" if state == prev and state != new else "new"] += 1
        # the next sync completes and describes HEAD
        index_now(root, embedder)
        prev = store_state(root)
        assert prev == new
    record("kill -9 during `hookgraph index`", budget.done, "store opened read-only at the previous or the new "
           "state every time; next sync completed", **outcomes)
    assert budget.done >= 4


def _snapshot_problem(path: Path, root: Path | None = None) -> tuple[str | None, bool]:
    """Why the snapshot at ``path`` must not be used (one line, or None), and whether it is untrusted.

    Untrusted: a symlink, planted SQL, or stored paths leaving the repository
    (see :class:`hookgraph.store.Store`; with ``root``, also paths through a
    symlink of that work tree). A snapshot is somebody else's data.
    """
    if path.is_symlink():
        return f"{path}: is a symlink", True
    from hookgraph.store import Store, StoreError, UntrustedStoreError, vector_file
    from hookgraph.store.snapshot import current_schema

    if vector_file.is_vector_file(path):
        try:
            vector_file.read(path)
            return None, False
        except vector_file.VectorFileError as exc:
            return f"{path}: {exc}", True
        except OSError as exc:
            return f"{path}: cannot be read ({exc.strerror or exc})", False
    try:
        with current_schema(path) as readable, Store(readable, readonly=True) as store:
            store.get_meta("model_sha256")
            store.check_contents(root)
        return None, False
    except UntrustedStoreError as exc:
        return str(exc), True
    except (StoreError, OSError) as exc:
        return str(exc), False


def test_kill_9_during_a_shared_mode_pre_commit_hook(tmp_path: Path, embedder) -> None:
    """The hook that writes the working index, exports the snapshot and ``git add``s it."""
    from hookgraph.store import snapshot
    from hookgraph.sync import hooks, shared

    root = make_repo(tmp_path / "repo", dict(BASE))
    snapshot.write_shared_setting(root, True)
    git(root, "add", "-A")
    hooks.run_hook("pre-commit", cwd=root, embedder=embedder)
    git(root, "commit", "-q", "--no-verify", "-m", "shared")
    rng = random.Random(11)
    span = 2.5
    outcomes = {"previous": 0, "new": 0}
    budget = Budget(count=10, seconds=35, minimum=3)
    for round_ in budget:
        prev = store_state(root)
        write_files(root, {"pkg/gen.py": generated(100 + round_)})
        git(root, "add", "-A")
        index_map = {p: b for p, b in _index_map(root).items() if not p.startswith(".hookgraph/")}
        proc = spawn(root, "hook", "pre-commit")
        _kill_at_random(proc, root, rng, span, signal.SIGKILL, group=False)
        proc.communicate(timeout=120)
        _wait_for_git(root)
        state = store_state(root)
        assert state in (prev, index_map)
        outcomes["previous" if state == prev else "new"] += 1
        snap = snapshot.snapshot_path(root)
        problem, _ = _snapshot_problem(snap)
        assert problem is None, problem  # the snapshot is whole: replaced atomically or not at all
        # the next hook completes; the commit carries a snapshot that describes it
        outcome = hooks.run_hook("pre-commit", cwd=root, embedder=embedder)
        assert outcome.action in ("synced", "fresh")
        git(root, "commit", "-q", "--no-verify", "-m", f"round {round_}")
        verdict = shared.verify_committed(root)  # whole and readable; nothing here embeds, so it lacks vectors
        assert verdict.ok or "lacks vectors for" in verdict.message, verdict.message
        assert store_state(root) == tree(root)
    leftovers = [p.name for p in (root / ".hookgraph").iterdir() if p.name.startswith(".shared.db.")]
    record("kill -9 during a shared-mode pre-commit hook (sync, export, git add)", budget.done,
           "store and snapshot whole every time; next hook and commit fresh; verify passes",
           leftover_temp_files=len(leftovers), **outcomes)
    assert git(root, "status", "--porcelain") == ""


def _has_schema(root: Path) -> bool:
    """Whether a first index got as far as committing its schema (the file exists before that)."""
    import apsw

    if not db_path(root).exists():
        return False
    db = apsw.Connection(f"file:{db_path(root)}?mode=ro", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    try:
        return bool(db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall())
    finally:
        db.close()


def _index_map(root: Path) -> dict[str, str]:
    from hookgraph import git as g

    return {p: e.blob for p, e in g.index_map(root).items()}


def _wait_for_git(root: Path, timeout: float = 10.0) -> None:
    """A killed hook's ``git add`` child finishes on its own; wait until it let go of the index."""
    lock = root / ".git" / "index.lock"
    deadline = time.monotonic() + timeout
    while lock.exists() and time.monotonic() < deadline:
        time.sleep(0.02)


def test_ctrl_c_gives_one_line_and_keeps_a_consistent_store(crash_repo: Path, embedder) -> None:
    """SIGINT to the whole process group, as a terminal sends it: one line, exit 130, no traceback."""
    root = crash_repo
    rng = random.Random(3)
    next_commit(root, 199)  # calibration: how long an undisturbed run takes on this machine
    started = time.monotonic()
    proc = spawn(root, "index")
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    span = time.monotonic() - started
    prev = store_state(root)
    outcomes = {"interrupted": 0, "finished first": 0}
    budget = Budget(count=10, seconds=30, minimum=3)
    for round_ in budget:
        new = next_commit(root, 200 + round_)
        hook = round_ % 2 == 1
        proc = spawn(root, *(["hook", "post-commit"] if hook else ["index"]), group=True)
        _kill_at_random(proc, root, rng, span, signal.SIGINT, group=True)
        out, err = proc.communicate(timeout=120)
        assert "Traceback" not in err, err
        assert len(err.splitlines()) <= 1, err
        # 130 from our handler; -SIGINT when the signal lands as the interpreter exits
        # (a shell reports both as 130): either way one line and no traceback.
        assert proc.returncode in (0, 130, -signal.SIGINT), (proc.returncode, err)
        if err.startswith("hookgraph: interrupted"):
            outcomes["interrupted"] += 1
        else:
            outcomes["finished first"] += 1
            assert store_state(root) == new, err
        state = store_state(root)
        assert state in (prev, new)
        index_now(root, embedder)
        prev = store_state(root)
    # The syncs above no longer wait for the model, so their random moments may all come
    # too late; one sync of 4,000 new functions (seconds of parsing) is certainly cut short.
    next_commit(root, 999, n=4000)
    proc = spawn(root, "index", group=True)
    time.sleep(_interpreter_start() + 0.3)
    assert proc.poll() is None, "the big sync ended before the signal: make it bigger"
    os.killpg(proc.pid, signal.SIGINT)
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and err.startswith("hookgraph: interrupted") and len(err.splitlines()) == 1, err
    assert store_state(root) == prev
    outcomes["interrupted"] += 1
    record("Ctrl-C (SIGINT to the process group) during `index` and a hook", budget.done + 1,
           "exit 130 with one line and no traceback, or finished; store consistent", **outcomes)


def test_ctrl_c_while_a_query_with_a_regex_is_built_is_an_interruption_not_an_internal_error() -> None:
    """tree-sitter builds a ``#match?`` predicate by calling Python's ``re``: a KeyboardInterrupt inside that
    call came out as ``QueryError: regular expression error`` (seen once in the Ctrl-C test above, exit 2,
    "internal error"). ``_compile_query`` holds the signal back until the query is built."""
    import re
    import threading

    import tree_sitter

    from hookgraph.parse.languages import load_language
    from hookgraph.parse.languages.loading import _compile_query

    language = load_language("python").ts_language
    alternatives = "|".join(f"w{i}x{i * 7}" for i in range(30000))  # a regex that takes a while to compile
    source = f'((identifier) @x (#match? @x "^({alternatives})$"))'
    re.purge()
    started = time.monotonic()
    tree_sitter.Query(language, source)
    span = time.monotonic() - started
    during_build = 0
    for share in (0.2, 0.5, 0.8):

        def interrupt(delay: float = span * share) -> None:
            time.sleep(delay)
            os.kill(os.getpid(), signal.SIGINT)

        re.purge()  # Python's re caches compiled patterns: each build must compile the regex again
        thread = threading.Thread(target=interrupt)
        thread.start()
        with pytest.raises(KeyboardInterrupt):  # never QueryError
            try:
                _compile_query(tree_sitter, language, source)
            except KeyboardInterrupt:
                during_build += 1  # noted while building, handed on once the query existed
                raise
            time.sleep(span + 1.0)  # a signal sent after the build lands here
        thread.join()
    assert during_build >= 1  # at least one signal came while the query was being built
