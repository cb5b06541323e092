"""Many writers and readers at once, as real processes for a bounded time.

A driver thread moves HEAD among a few commits; eight writer slots run
``hookgraph hook post-commit`` (and now and then ``hookgraph index``) in a loop,
each syncing to whatever HEAD is when it starts; eight reader slots run
``hookgraph ask``/``status`` and a checker process that reads the store in one
read transaction after another. Readers must only ever see a store that passes
every invariant and describes one of the commits (never half a sync), no
process may fail or report "database is locked", and at the end one more
hook leaves the store exactly at HEAD, with nothing lost.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

from hookgraph.store import Store, db_path
from tests.conftest import index_now, clean_env, commit_all, git, make_repo, write_files
from tests.helpers.reliability import PYTHON, record, store_state, tree
from tests.scenarios.test_crash import BASE, generated

SECONDS = 6.0  # how long new processes keep being started
COMMITS = 4
REPO_ROOT = Path(__file__).resolve().parents[2]

CHECKER = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    sys.path.insert(0, sys.argv[4])
    from hookgraph.store import Store, db_path
    from tests.helpers.reliability import invariant_problems

    root, deadline = Path(sys.argv[1]), time.monotonic() + float(sys.argv[2])
    valid = json.loads(Path(sys.argv[3]).read_text())
    checks, bad = 0, []
    while time.monotonic() < deadline or checks == 0:
        with Store(db_path(root), readonly=True) as store:
            with store.db:  # one read transaction: one snapshot
                problems = invariant_problems(store)
                files = store.file_map()
        if problems:
            bad.append(problems)
        if files not in valid:
            bad.append("the file map is not one of the commits")
        checks += 1
    print(json.dumps({"checks": checks, "bad": bad[:5]}))
    """
)


def test_eight_writers_and_eight_readers(tmp_path: Path, embedder) -> None:
    root = make_repo(tmp_path / "repo", dict(BASE))
    shas, maps, counts_of = [], [], []
    for n in range(COMMITS):
        write_files(root, {"pkg/gen.py": generated(500 + n, n=4), f"pkg/extra_{n}.py": f"def extra_{n}():\n    return {n}\n"})
        shas.append(commit_all(root, f"state {n}"))
        maps.append(tree(root))
        index_now(root, embedder)  # vectors of every state exist (or are cached)
        with Store(db_path(root), readonly=True) as store:
            c = store.counts()
        counts_of.append((c["files"], c["units"], c["edges"]))
    valid = tmp_path / "valid.json"
    valid.write_text(json.dumps(maps))
    log = tmp_path / "hooks.jsonl"
    env = clean_env(HOOKGRAPH_HOOK_LOG=str(log), HOOKGRAPH_LOCK_TIMEOUT="60")
    deadline = time.monotonic() + SECONDS
    results: list[tuple[str, subprocess.CompletedProcess[str]]] = []
    lock = threading.Lock()

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([PYTHON, "-m", "hookgraph.cli", *args], cwd=root, env=env,
                              capture_output=True, text=True, timeout=180)

    def loop(kind: str, slot: int) -> None:
        n = 0
        while time.monotonic() < deadline:
            if kind == "writer":
                args = ("index", "--quiet") if (slot + n) % 5 == 4 else ("hook", "post-commit")
            else:
                args = ("status", "--json") if (slot + n) % 2 else ("ask", "merge the items", "--json", "--no-semantic")
            proc = cli(*args)
            with lock:
                results.append((" ".join(args[:2]), proc))
            n += 1

    def checker() -> None:
        proc = subprocess.run([PYTHON, "-c", CHECKER, str(root), str(SECONDS), str(valid), str(REPO_ROOT)],
                              cwd=root, env=env, capture_output=True, text=True, timeout=180)
        with lock:
            results.append(("checker", proc))

    stop = threading.Event()

    def driver() -> None:
        i = 0
        while not stop.is_set():
            i += 1
            git(root, "update-ref", "refs/heads/main", shas[i % COMMITS])
            stop.wait(0.25)

    threads = [threading.Thread(target=loop, args=("writer", s)) for s in range(8)]
    threads += [threading.Thread(target=loop, args=("reader", s)) for s in range(6)]
    threads += [threading.Thread(target=checker) for _ in range(2)]
    moving = threading.Thread(target=driver)
    moving.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=240)
    stop.set()
    moving.join()

    failures = []
    for what, proc in results:
        if "database is locked" in proc.stderr or "Traceback" in proc.stderr or proc.returncode not in (0, 1):
            failures.append((what, proc.returncode, proc.stderr[-300:]))
            continue
        if what == "checker":
            report = json.loads(proc.stdout)
            assert report["checks"] > 0 and not report["bad"], report
        elif what.startswith(("status", "ask")):
            payload = json.loads(proc.stdout)
            if what.startswith("status"):  # every count from one and the same sync
                seen = (payload["files"], payload["units"], payload["edges"])
                assert seen in counts_of, seen
    assert not failures, failures
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert entries and all(e["action"] in ("synced", "fresh") for e in entries), [e for e in entries if e["error"]]

    # nothing lost: one more hook at the final HEAD, and the store is exactly it
    git(root, "update-ref", "refs/heads/main", shas[-1])
    final = cli("hook", "post-commit")
    assert final.returncode == 0 and not final.stderr.strip().startswith("hookgraph: warning"), final.stderr
    assert store_state(root) == maps[-1]
    counts = {k: sum(1 for w, _ in results if w.startswith(k)) for k in ("hook", "index", "ask", "status", "checker")}
    checks = sum(json.loads(p.stdout)["checks"] for w, p in results if w == "checker")
    record("8 writers + 8 readers for 6 s (hooks, index, ask, status, read-transaction checkers)",
           sum(counts.values()), "no failure, no 'database is locked', every read a whole sync; final store = HEAD",
           store_checks=checks, **counts)
    print(counts, "store checks:", checks, file=sys.stderr)
