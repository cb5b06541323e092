"""Two speeds, one store: text and graph at once, vectors from a detached background embedder.

Real git repositories, the real `hookgraph` command and the real background
process (`python -m hookgraph.embed.worker`), the real model. The rest of the
suite runs with HOOKGRAPH_NO_BACKGROUND=1; these tests turn the embedder on.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hookgraph.embed.queue import BATCH_SECONDS
from hookgraph.store import Store, db_path
from tests.conftest import REQUESTS_FIXTURE, TINY_APP, clean_env, commit_all, git, make_repo, run_cli


def background_env(**extra: str) -> dict[str, str]:
    env = clean_env(**extra)
    env.pop("HOOKGRAPH_NO_BACKGROUND", None)
    return env


def requests_copy(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(REQUESTS_FIXTURE, root)
    make_repo(root)
    commit_all(root, "import requests 2.32.3")
    return root


def status(root: Path, env: dict[str, str] | None = None) -> dict:
    proc = run_cli(root, "status", "--json", env=env or clean_env())
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def worker_pid(root: Path) -> int | None:
    """The background embedder's pid, from its lock file, while it holds the lock."""
    from hookgraph.embed import worker

    if not worker.running(root):
        return None
    text = (root / ".git" / "hookgraph" / worker.LOCK_FILE).read_text().strip()
    return int(text) if text.isdigit() else None


def wait_until(predicate, timeout: float, step: float = 0.2) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


def queue_is_consistent(root: Path) -> None:
    """Every waiting unit's text is queued, every queued text has a waiting unit, no unit has both states."""
    with Store(db_path(root), readonly=True) as store:
        db = store.db
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        waiting = {r[0] for r in db.execute("SELECT text_hash FROM units WHERE text_hash IS NOT NULL")}
        queued = {r[0] for r in db.execute("SELECT text_hash FROM pending")}
        assert waiting == queued
        assert not db.execute("SELECT 1 FROM units WHERE text_hash IS NOT NULL AND vector_id IS NOT NULL").fetchall()
        # a published vector is stored once: no key twice
        assert not db.execute("SELECT text_hash FROM vectors GROUP BY text_hash HAVING count(*) > 1").fetchall()


def test_pending_units_are_found_by_words_and_graph_at_once(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app", {"app.py": TINY_APP})
    index = run_cli(repo, "index", check=True)  # not a terminal, no background: everything stays queued
    assert "waiting for vectors" in index.stdout
    st = status(repo)
    assert st["pending_vectors"] == st["pending_units"] == 6 and st["vectors"] == 0
    out = run_cli(repo, "ask", "fetch_page", "--json", check=True)
    payload = json.loads(out.stdout)
    assert payload["pending_vectors"] == 6
    assert payload["results"][0]["symbol"] == "fetch_page"
    # a question: the best waiting candidates are embedded on the spot, so meaning still counts
    out = run_cli(repo, "ask", "download a page and try again when the network fails", "--json", check=True)
    first = json.loads(out.stdout)["results"][0]
    assert first["symbol"] == "fetch_page" and first["semantic"] is not None
    plain = run_cli(repo, "ask", "fetch_page", check=True)
    assert "still waiting for vectors" in plain.stderr and plain.stderr.count("\n") == 1
    callers = json.loads(run_cli(repo, "callers", "fetch_page", "--json", check=True).stdout)
    assert [c["symbol"] for c in callers] == ["Cache.lookup"]
    # index --wait empties the queue, and says so
    run_cli(repo, "index", "--wait", check=True)
    st = status(repo)
    assert st["pending_vectors"] == 0 and st["vectors"] == 6 and st["units_without_vector"] == 0


def test_the_background_embedder_drains_the_queue_and_exits(tmp_path: Path) -> None:
    root = requests_copy(tmp_path)
    env = background_env()
    started = time.monotonic()
    proc = run_cli(root, "index", env=env)
    assert proc.returncode == 0 and "in the background" in proc.stdout, proc.stdout
    returned = time.monotonic() - started
    first = status(root, env)
    assert first["pending_vectors"] > 250 and first["embedder"]["running"]
    ask = run_cli(root, "ask", "rebuild_auth", "--json", env=env)
    assert json.loads(ask.stdout)["results"][0]["symbol"] == "SessionRedirectMixin.rebuild_auth"
    assert wait_until(lambda: status(root, env)["pending_vectors"] == 0, timeout=600, step=1.0)
    assert wait_until(lambda: not status(root, env)["embedder"]["running"], timeout=30), "the embedder did not exit"
    done = status(root, env)
    # every unit has its vector, but those the no-embed rule keeps from the model (chunks, one-liners)
    assert done["units_without_vector"] == sum(done["not_embedded"].values()) and done["pending_units"] == 0
    assert done["embedder"]["rate"] and done["embedder"]["rate"] > 0
    queue_is_consistent(root)
    print(f"index returned in {returned:.2f}s; {first['pending_vectors']} texts embedded in the background")


def test_two_embedders_never_run_at_once(tmp_path: Path) -> None:
    root = requests_copy(tmp_path)
    run_cli(root, "index", check=True)  # queued only
    from hookgraph.embed.worker import register

    register(root, db_path(root))
    cmd = [sys.executable, "-m", "hookgraph.embed.worker", str(root)]
    first = subprocess.Popen(cmd, cwd=root, env=background_env())
    assert wait_until(lambda: worker_pid(root) == first.pid, timeout=30)
    second = subprocess.run(cmd, cwd=root, env=background_env(), timeout=60)
    assert second.returncode == 0
    assert first.poll() is None, "the second embedder returned only after the first had finished"
    first.kill()
    first.wait()


def test_a_hook_during_embedding_waits_at_most_one_batch(tmp_path: Path) -> None:
    root = requests_copy(tmp_path)
    env = background_env()
    run_cli(root, "index", env=env, check=True)
    assert wait_until(lambda: worker_pid(root) is not None, timeout=30)
    waits = []
    for n in range(3):
        (root / "requests" / f"extra_{n}.py").write_text(f"def extra_{n}():\n    return {n}\n")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", f"extra {n}")
        hook = run_cli(root, "hook", "post-commit", env=env)
        assert hook.returncode == 0 and hook.stderr.startswith("hookgraph: 1 file synced"), hook.stderr
        # the hook's own clock, from its start to its last line (lock wait included; the
        # interpreter's start-up, which only the machine's load decides, left out)
        waits.append(float(hook.stderr.rstrip().rsplit("(", 1)[1].rstrip("s)")))
        assert worker_pid(root) is not None, "the embedder should still be at work"
    # A hook never waits for the model: at most one publish (ms) plus its own work; the margin
    # is for this shared 2-core machine (the embedder runs at the same time).
    assert max(waits) < BATCH_SECONDS + 1.0, waits
    pid = worker_pid(root)
    if pid:
        os.kill(pid, signal.SIGKILL)


def test_kill_9_of_the_embedder_leaves_a_consistent_store_and_the_next_command_resumes(tmp_path: Path) -> None:
    root = requests_copy(tmp_path)
    log = tmp_path / "embed.log"
    env = background_env(HOOKGRAPH_EMBED_LOG=str(log))
    run_cli(root, "index", env=env, check=True)
    with Store(db_path(root), readonly=True) as store:  # the embedder may have published a batch already
        store.db.execute("BEGIN")  # one snapshot for both numbers
        total = store.pending_count() + int(store.get_meta("embedder_done") or 0)
        store.db.execute("COMMIT")
    kills = 0
    for _ in range(3):
        # the worker drains a small queue in seconds: one that finished between two kills has nothing left
        assert wait_until(lambda: worker_pid(root) is not None or status(root, env)["pending_vectors"] == 0,
                          timeout=30), status(root, env)
        before = status(root, env)["pending_vectors"]
        if before == 0:
            break
        if not wait_until(lambda: status(root, env)["pending_vectors"] < before, timeout=120):
            break
        pid = worker_pid(root)
        if pid is None:
            break
        os.kill(pid, signal.SIGKILL)
        kills += 1
        assert wait_until(lambda: worker_pid(root) is None, timeout=10)
        queue_is_consistent(root)
        # the next command that opens the index starts the embedder again
        status(root, env)
    assert kills >= 1
    assert wait_until(lambda: status(root, env)["pending_vectors"] == 0, timeout=600, step=1.0)
    queue_is_consistent(root)
    with Store(db_path(root), readonly=True) as store:
        published = int(store.get_meta("embedder_done") or 0)
    assert published == total  # every text published once
    # model work: a kill loses at most the batch it was embedding (logged before its publish)
    batches = [int(line.split()[1]) for line in log.read_text().splitlines()]
    twice = sum(batches) - total
    assert 0 <= twice <= kills * max(batches), (twice, kills, batches)


def test_a_crash_inside_the_embedder_is_told_in_one_line_and_the_next_command_resumes(tmp_path: Path) -> None:
    """A segfault in llama.cpp kills the worker before it can log anything: faulthandler leaves the stack in
    embedder.log, and ``status`` tells it in one line (here the signal is sent from outside, the same death)."""
    from hookgraph.embed import worker

    root = requests_copy(tmp_path)
    env = background_env()
    run_cli(root, "index", env=env, check=True)
    assert wait_until(lambda: worker_pid(root) is not None, timeout=30)
    pid = worker_pid(root)
    assert pid is not None
    os.kill(pid, signal.SIGSEGV)
    assert wait_until(lambda: worker_pid(root) is None, timeout=10)
    line = worker.last_error(root)
    assert line is not None and line.startswith("the background embedder died (Segmentation fault) at File \""), line
    assert "embedder.log" in line and "\n" not in line
    queue_is_consistent(root)
    payload = status(root, env)  # opens the index: starts the embedder again
    assert payload["embedder"]["last_error"] == line
    run_cli(root, "index", "--wait", env=env, check=True)
    assert status(root, env)["pending_vectors"] == 0
    queue_is_consistent(root)


def test_index_wait_returns_only_with_an_empty_queue(tmp_path: Path) -> None:
    root = requests_copy(tmp_path)
    proc = run_cli(root, "index", "--wait", check=True)
    assert "embedded" in proc.stdout.splitlines()[-1]
    st = status(root)
    assert st["pending_vectors"] == 0 and st["vectors"] > 250
    assert st["units_without_vector"] == sum(st["not_embedded"].values())  # only what the no-embed rule keeps out
    again = run_cli(root, "index", "--wait", check=True)
    assert again.stdout.startswith("0 added, 0 modified, 0 deleted files")


def test_git_worktree_add_embeds_nothing(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "main", {"app.py": TINY_APP, "lib/more.py": "def helper(x):\n    return x * 2\n"})
    assert run_cli(root, "install").returncode == 0
    run_cli(root, "index", "--wait", check=True)
    log = tmp_path / "hooks.jsonl"
    env = clean_env(HOOKGRAPH_HOOK_LOG=str(log))
    subprocess.run(["git", "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "feature"], cwd=root, env=env,
                   check=True, capture_output=True)
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    (checkout,) = [e for e in entries if e["hook"] == "post-checkout"]
    assert checkout["action"] == "synced" and checkout["queued"] == 0 and checkout["pending"] == 0
    assert checkout["from_cache"] == 8  # every unit of the new worktree: from the repository's cache
    st = status(tmp_path / "wt")
    assert st["vectors"] == 8 and st["pending_vectors"] == 0


def test_a_worktree_removed_as_its_embedder_starts_is_no_failure(tmp_path: Path) -> None:
    """``git worktree add`` then ``remove`` at once: the embedder its checkout started found its directory gone,
    wrote a traceback in the shared embedder.log, and every worktree's ``status`` then said "git is not
    installed or not on PATH" (found by trying, stop 57). Nothing is left of it to embed: it ends quietly."""
    root = make_repo(tmp_path / "main", {"app.py": TINY_APP})
    assert run_cli(root, "install").returncode == 0
    env = background_env()
    run_cli(root, "index", env=env, check=True)
    assert wait_until(lambda: worker_pid(root) is None and status(root)["pending_vectors"] == 0, timeout=120)
    for i in range(3):  # each new worktree's checkout starts an embedder (to check what it took from the cache)
        wt = tmp_path / f"wt{i}"
        for args in (["worktree", "add", "-q", str(wt), "-b", f"feature{i}"], ["worktree", "remove", "--force", str(wt)]):
            subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    assert wait_until(lambda: worker_pid(root) is None, timeout=120)
    time.sleep(1)  # a worker started for a removed worktree may still be starting: give it time to speak
    log = root / ".git" / "hookgraph" / "embedder.log"
    text = log.read_text() if log.exists() else ""
    assert "Traceback" not in text and "not installed" not in text, text
    assert status(root)["embedder"]["last_error"] is None

    from hookgraph import git as git_module
    from hookgraph.embed import worker

    gone = tmp_path / "wt0"
    with pytest.raises(git_module.GitError, match="no longer exists"):
        git_module.run(["status"], gone)
    assert worker.main([str(gone)]) == 0


def test_a_second_clone_embeds_nothing(tmp_path: Path) -> None:
    cache = tmp_path / "xdg-cache"
    env = clean_env(XDG_CACHE_HOME=str(cache), HOOKGRAPH_CACHE_MB="64")
    first = make_repo(tmp_path / "first", {"app.py": TINY_APP})
    run_cli(first, "index", "--wait", env=env, check=True)
    subprocess.run(["git", "clone", "-q", str(first), str(tmp_path / "second")], env=env, check=True)
    second = tmp_path / "second"
    proc = run_cli(second, "index", "--wait", env=env, check=True)
    assert "6 vectors from cache" in proc.stdout and "embedded" not in proc.stdout, proc.stdout
    assert status(second, env)["pending_vectors"] == 0


def test_a_switched_model_queues_every_text_again_and_never_mixes(tmp_path: Path) -> None:
    """--reembed under another recipe: the old vectors go at once, the new model's come from the queue."""
    repo = make_repo(tmp_path / "app", {"app.py": TINY_APP})
    run_cli(repo, "index", "--wait", check=True)
    (repo / ".hookgraph" / "config.toml").write_text("[model]\nmax_tokens = 64\n")
    refused = run_cli(repo, "index")
    assert refused.returncode == 2 and "--reembed" in refused.stderr
    run_cli(repo, "index", "--reembed", check=True)
    st = status(repo)
    assert st["vectors"] == 0 and st["pending_vectors"] == 6 and st["model"]["window_tokens"] == 64
    run_cli(repo, "index", "--wait", check=True)
    assert status(repo)["vectors"] == 6


def test_a_text_whose_unit_went_away_is_not_embedded(tmp_path: Path, embedder) -> None:
    from hookgraph.embed.queue import drain
    from hookgraph.sync import read_target, sync

    repo = make_repo(tmp_path / "app", {"app.py": TINY_APP})
    sync(repo, read_target(repo, "head"), embedder=embedder)
    (repo / "app.py").write_text('"""Tiny web app."""\n')
    commit_all(repo, "empty it")
    report = sync(repo, read_target(repo, "head"), embedder=embedder)
    assert report.pending == 1  # only the file unit's new text
    before = embedder.texts_embedded
    assert drain(db_path(repo), embedder).published == 1
    assert embedder.texts_embedded - before == 1
    queue_is_consistent(repo)


def test_the_queue_survives_a_store_that_is_not_ours_to_write(tmp_path: Path) -> None:
    """A publish that cannot take the lock in time leaves the queue as it was."""
    from hookgraph.embed.queue import drain
    from hookgraph.store.lock import LockTimeout, write_lock

    repo = make_repo(tmp_path / "app", {"app.py": TINY_APP})
    run_cli(repo, "index", check=True)
    from hookgraph.embed import Embedder

    with write_lock(db_path(repo).parent, timeout=5):
        with pytest.raises(LockTimeout):
            drain(db_path(repo), Embedder(), lock_timeout=0.2)
    queue_is_consistent(repo)
    assert status(repo)["pending_vectors"] == 6


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SCHED_IDLE and autogroup are Linux's")
def test_the_background_embedder_runs_in_the_idle_class_with_an_idle_autogroup(tmp_path: Path) -> None:
    """Issue 32: with autogroup, nice alone gave the foreground nothing; the worker now asks for SCHED_IDLE."""
    root = requests_copy(tmp_path)
    proc = run_cli(root, "index", env=background_env())
    assert proc.returncode == 0 and "in the background" in proc.stdout, proc.stdout
    assert wait_until(lambda: worker_pid(root) is not None, timeout=30), "no background embedder started"
    pid = worker_pid(root)
    assert pid is not None
    try:
        assert wait_until(lambda: os.sched_getscheduler(pid) == os.SCHED_IDLE, timeout=10)
        policy = [line for line in Path(f"/proc/{pid}/sched").read_text().splitlines() if line.startswith("policy")]
        assert policy and policy[0].split()[-1] == str(os.SCHED_IDLE)
        assert os.getsid(pid) == pid, "the worker is not in a session of its own"
        autogroup = Path(f"/proc/{pid}/autogroup")
        if autogroup.exists():  # a kernel built with autogroup
            assert autogroup.read_text().split()[-1] == "19"
        # the model's threads were started after the switch and inherit the class
        for task in Path(f"/proc/{pid}/task").iterdir():
            assert os.sched_getscheduler(int(task.name)) == os.SCHED_IDLE, task
    finally:
        os.kill(pid, signal.SIGKILL)
    assert os.sched_getscheduler(0) != os.SCHED_IDLE  # what started it was left as it was
