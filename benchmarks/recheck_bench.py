"""What checking every adopted vector costs a clone, side by side with another hookgraph checkout (by hand).

    python benchmarks/recheck_bench.py --source DIR --base-code /tmp/main-hookgraph [--runs 3]

``--source``: the project to share (requests 2.32.3's sdist, unpacked:
``pip download --no-deps --no-binary :all: requests==2.32.3``). For each of two
hookgraph checkouts (``--base-code``, e.g. an export of main, and this one),
an author's repository in shared mode with every vector in its snapshot
(``install --shared``, ``index --wait``, a commit), then ``--runs`` rounds,
the two checkouts interleaved in each round, of:

* **commit**: wall time of ``git commit -a`` adding 3 functions to 3 files
  (hooks included; off the clock afterwards, ``index --wait`` embeds them);
* **clone**: ``git clone`` then ``ask`` with the background embedder on:
  seconds to the first answer; seconds until the snapshot's vectors are
  adopted (fewer texts wait); in the first ``--done-runs`` rounds, seconds
  until the background embedder is done (no text waits and, here, every
  adopted vector is checked: at idle priority, so on a busy machine mostly
  waiting for free cores), and the model CPU seconds that check took
  (``status --json``: ``adopted_vectors``); in the others the embedder is
  stopped once the snapshot is adopted, so it does not load the next round.

Then, for this checkout only, the CPU time of the full check against the
CPU time of embedding the same texts locally, both ``index --wait`` in the
foreground (process start and model load included), alternated ``--runs``
times: a clone that adopted the snapshot (``index`` first, off the count)
and a clone with no snapshot and no cache (parsed by ``index`` first, off
the count). Every command gets a private user cache
switched off and a fresh repository cache (its clone's own).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import load, machine, machine_line  # noqa: E402

PYTHON = sys.executable
HERE = Path(__file__).resolve().parent.parent
QUESTION = "where are credentials dropped on redirect?"


def _env(code: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "HOOKGRAPH_"))}
    env.update(PYTHONPATH=str(code), HOOKGRAPH_CACHE_MB="0", HOOKGRAPH_NO_BACKGROUND="1", GIT_AUTHOR_NAME="b",
               GIT_AUTHOR_EMAIL="b@x", GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@x", GIT_CONFIG_NOSYSTEM="1")
    env.update(extra)
    return env


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def _hookgraph(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return _run([PYTHON, "-m", "hookgraph.cli", *args], cwd, env)


def _status(cwd: Path, env: dict[str, str]) -> dict:
    return json.loads(_hookgraph(cwd, env, "status", "--json").stdout)


def _author(source: Path, repo: Path, env: dict[str, str]) -> None:
    shutil.copytree(source, repo)
    _run(["git", "init", "-q", "-b", "main"], repo, env)
    _run(["git", "add", "-A"], repo, env)
    _run(["git", "commit", "-q", "-m", "base"], repo, env)
    _hookgraph(repo, env, "install", "--shared")
    _hookgraph(repo, env, "index", "--wait", "--quiet")
    _run(["git", "add", "-A"], repo, env)
    _run(["git", "commit", "-q", "-m", "hookgraph"], repo, env)


def _commit(repo: Path, env: dict[str, str], n: int) -> float:
    files = sorted(p for p in repo.rglob("*.py") if ".hookgraph" not in p.parts)[:3]
    nonce = os.urandom(4).hex()
    for k, path in enumerate(files):
        with open(path, "a", encoding="utf-8") as f:
            f.write(f'\n\ndef bench_added_{n}_{k}_{nonce}(value):\n    """Add {n} to a value ({k}, {nonce})."""\n'
                    f"    return value + {n}\n")
    started = time.perf_counter()
    _run(["git", "commit", "-q", "-a", "-m", f"three functions {n}"], repo, env)
    seconds = time.perf_counter() - started
    _hookgraph(repo, env, "index", "--wait", "--quiet")  # the background embedder's work, off the clock
    return seconds


def _stop_embedder(dest: Path, env: dict[str, str]) -> None:
    """End the clone's background embedder (started by this script's ``ask``), so it loads no later run."""
    import signal

    try:
        pid = int((dest / ".git" / "hookgraph" / "embedder.lock").read_text().strip() or 0)
    except (OSError, ValueError):
        return
    if pid:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        while _status(dest, env)["embedder"]["running"]:
            time.sleep(0.2)


def _clone(repo: Path, dest: Path, env: dict[str, str], wait_done: bool) -> dict[str, float]:
    """Seconds from ``git clone`` to the first answer, to the snapshot adopted and (``wait_done``) to the
    background embedder done, with the check's model CPU seconds; without ``wait_done`` the embedder is
    stopped once the snapshot is adopted."""
    env = dict(env)
    env.pop("HOOKGRAPH_NO_BACKGROUND")
    started = time.perf_counter()
    _run(["git", "clone", "-q", str(repo), str(dest)], dest.parent, env)
    proc = _hookgraph(dest, env, "ask", "--json", QUESTION)
    answered = time.perf_counter()
    pending = int(json.loads(proc.stdout)["pending_vectors"])
    adopted = done = None
    while time.perf_counter() - answered < 3600:
        status = _status(dest, env)
        now = time.perf_counter()
        if adopted is None and status["pending_vectors"] < pending:
            adopted = now
            if not wait_done:
                break
        unchecked = status.get("adopted_vectors", {}).get("unchecked", 0)
        if status["pending_vectors"] == 0 and unchecked == 0 and not status["embedder"]["running"]:
            done = now
            break
        time.sleep(0.5)
    if not wait_done:
        _stop_embedder(dest, env)
    final = _status(dest, env)
    adopted_info = final.get("adopted_vectors", {})
    return {"first": answered - started, "adopted": (adopted or answered) - started,
            "done": (done or float("nan")) - started,
            "model": float(adopted_info.get("model_seconds", 0.0)) if wait_done else float("nan"),
            "checked": float(adopted_info.get("checked", 0)), "texts": float(final["vectors"])}


def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _model_time(repo: Path, where: Path, env: dict[str, str], runs: int) -> tuple[list[float], list[float], int]:
    """CPU seconds of ``index --wait`` in the foreground: a clone checking every adopted vector, and a clone
    with no snapshot embedding the same texts (each includes its process start and model load)."""
    checks, embeds, texts = [], [], 0
    for n in range(runs):
        adopted = where / f"adopted-{n}"
        _run(["git", "clone", "-q", str(repo), str(adopted)], where, env)
        _hookgraph(adopted, env, "index", "--quiet")  # sampled check in the foreground, every vector adopted
        before = _children_cpu()
        _hookgraph(adopted, env, "index", "--wait", "--quiet")  # the full check, in the foreground
        checks.append(_children_cpu() - before)
        texts = int(_status(adopted, env)["adopted_vectors"]["checked"])
        bare = where / f"bare-{n}"
        _run(["git", "clone", "-q", str(repo), str(bare)], where, env)
        (bare / ".hookgraph" / "shared.db").unlink()
        _hookgraph(bare, env, "index", "--quiet")  # the parse, off this count as for the other clone
        before = _children_cpu()
        _hookgraph(bare, dict(env, HOOKGRAPH_REPO_CACHE_MB="0"), "index", "--wait", "--quiet")
        embeds.append(_children_cpu() - before)
    return checks, embeds, texts


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", type=Path, required=True)
    parser.add_argument("--base-code", type=Path, required=True, help="the other checkout (e.g. main, exported)")
    parser.add_argument("--base-label", default="main 2a88433")
    parser.add_argument("--label", default="this branch")
    parser.add_argument("--code", type=Path, default=HERE, help="this side's checkout (default: this one)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--done-runs", type=int, default=1,
                        help="runs that wait for the background embedder to finish (at idle priority on a busy "
                             "machine: minutes); the others stop it once the snapshot is adopted")
    args = parser.parse_args()
    before = load()
    versions = [(args.base_label, args.base_code.resolve()), (args.label, args.code.resolve())]
    results: dict[str, dict[str, list[float]]] = {label: {} for label, _ in versions}
    with tempfile.TemporaryDirectory(prefix="hookgraph-recheck-bench-") as tmp:
        authors = {}
        for label, code in versions:
            repo = Path(tmp) / f"author-{len(authors)}"
            _author(args.source, repo, _env(code))
            authors[label] = repo
        for n in range(args.runs):
            for label, code in versions:
                env = _env(code)
                got = results[label]
                got.setdefault("commit", []).append(_commit(authors[label], env, n))
                dest = Path(tmp) / f"clone-{label.split()[0]}-{n}"
                for key, value in _clone(authors[label], dest, env, wait_done=n < args.done_runs).items():
                    got.setdefault(key, []).append(value)
                print(label, {k: round(v[-1], 2) for k, v in got.items()}, flush=True)
        where = Path(tmp) / "model-time"
        where.mkdir()
        checks, embeds, texts = _model_time(authors[args.label], where, _env(args.code.resolve()), args.runs)
    print(machine_line(machine(), before))
    print("| hookgraph | commit (3 functions), wall | clone -> first answer | clone -> snapshot adopted | "
          "clone -> embedder done (first run) | full check, model CPU s (background, idle) |")
    print("|---|---|---|---|---|---|")
    for label, _ in versions:
        got = results[label]

        def cell(key: str, got: dict[str, list[float]] = got) -> str:
            values = [v for v in got[key] if v == v]  # runs that did not wait for it are NaN
            if not values:
                return "-"
            return f"{statistics.median(values):.2f} s ({', '.join(f'{v:.2f}' for v in values)})"

        print(f"| {label} | {cell('commit')} | {cell('first')} | {cell('adopted')} | {cell('done')} | "
              f"{cell('model')} |")
    print(f"\n`index --wait` in the foreground, {texts} adopted texts: the full check took "
          f"{statistics.median(checks):.1f} CPU s ({', '.join(f'{c:.1f}' for c in checks)}); embedding the same "
          f"texts with no snapshot {statistics.median(embeds):.1f} CPU s ({', '.join(f'{e:.1f}' for e in embeds)}).")


if __name__ == "__main__":
    main()
