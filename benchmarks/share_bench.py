"""What sharing costs and what a teammate gets, on a real project, by hand (not a test).

    python benchmarks/share_bench.py [--source DIR] [--commits 3] [--code DIR] [--label NAME]

Copies ``--source`` (default: aiohttp's package under /work/bench/repos, ~2,000
units) into a fresh git repository twice, one in shared mode and one not,
each with ``hookgraph install`` hooks, embeds everything (``index --wait``;
a private user cache, ``--cache-dir``, so only the first setup ever runs the
model for the base), and then, per mode:

* **commit**: the wall time of ``git commit -a`` of a commit adding 3 functions
  to 3 files (hooks included: in shared mode the pre-commit hook exports and
  stages the snapshot; before issue 31 item 7 it also embedded the new texts),
  median of ``--commits``; between two commits, off the clock, ``index --wait``
  embeds what the commit queued (the background embedder's job);
* **growth**: ``size-pack`` after ``git gc`` before and after those commits,
  per commit;

and for the shared repository, a teammate's **clone** (empty caches): the
seconds from ``git clone`` to the first ``ask`` answering, and how many texts
it left waiting for vectors, then the seconds from ``git clone`` until no text
waits (the background embedder on, as on any machine: it may adopt the
snapshot's vectors after the first answer) and how many texts the clone's
model embedded as the queue's embedder (0: every vector taken from the
snapshot; the sampled check is not counted).

``--code DIR``: run that checkout's hookgraph (PYTHONPATH), so two versions
can be measured side by side. Prints one Markdown row per mode: label, mode, units, commit wall
time (median; runs), commit CPU time (median), pack growth per commit, snapshot size, clone -> first
answer, clone -> the snapshot's vectors adopted, clone -> no text waits (texts the clone embedded).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PYTHON = sys.executable
DEFAULT_SOURCE = Path("/work/bench/repos/aiohttp/aiohttp")


def _env(code: Path, cache: Path) -> dict[str, str]:
    """The commands' environment: ``code``'s hookgraph, a private user cache (``cache``), no background embedder."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") and not k.startswith("HOOKGRAPH_")}
    env.update(PYTHONPATH=str(code), XDG_CACHE_HOME=str(cache), HOOKGRAPH_NO_BACKGROUND="1", GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@x", GIT_COMMITTER_NAME="b",
               GIT_COMMITTER_EMAIL="b@x", GIT_CONFIG_NOSYSTEM="1")
    return env


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    if proc.returncode not in (0, 1) or (proc.returncode == 1 and args[:2] != [PYTHON, "-m"]):
        raise SystemExit(f"{' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def _hookgraph(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return _run([PYTHON, "-m", "hookgraph.cli", *args], cwd, env)


def _pack_bytes(repo: Path, env: dict[str, str]) -> int:
    _run(["git", "gc", "-q"], repo, env)
    out = _run(["git", "count-objects", "-v"], repo, env).stdout
    return 1024 * int(dict(line.split(": ") for line in out.splitlines())["size-pack"])


def _setup(source: Path, repo: Path, env: dict[str, str], shared: bool) -> int:
    shutil.copytree(source, repo / source.name)
    _run(["git", "init", "-q", "-b", "main"], repo, env)
    _run(["git", "add", "-A"], repo, env)
    _run(["git", "commit", "-q", "-m", "base"], repo, env)
    _hookgraph(repo, env, "install", *(["--shared"] if shared else []))
    _hookgraph(repo, env, "index", "--wait", "--quiet")
    _run(["git", "add", "-A"], repo, env)
    _run(["git", "commit", "-q", "--allow-empty", "-m", "hookgraph"], repo, env)  # default mode: nothing to add
    status = json.loads(_hookgraph(repo, env, "status", "--json").stdout)
    return sum(status["units"].values())


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _commits(repo: Path, env: dict[str, str], n: int) -> tuple[list[float], int, list[float]]:
    """Wall seconds of each commit, packed-history growth per commit, and each commit's CPU seconds (user +
    system of git and its hooks: what other sessions' load on a shared machine cannot inflate)."""
    files = sorted(p for p in repo.rglob("*.py") if ".hookgraph" not in p.parts)[:3]
    before = _pack_bytes(repo, env)
    seconds, cpu = [], []
    # new texts in every run: a text the kept user cache already holds would be checked against the model
    # inside the hook (default mode too), which is not what a commit of new code costs
    nonce = os.urandom(4).hex()
    for i in range(n):
        for k, path in enumerate(files):
            with open(path, "a", encoding="utf-8") as f:
                f.write(f'\n\ndef bench_added_{i}_{k}_{nonce}(value):\n    """Add {i} to a value ({k}, {nonce})."""\n'
                        f"    return value + {i}\n")
        started, cpu_before = time.perf_counter(), _children_cpu()
        _run(["git", "commit", "-q", "-a", "-m", f"three functions {i}"], repo, env)
        seconds.append(time.perf_counter() - started)
        cpu.append(_children_cpu() - cpu_before)
        # the background embedder's work between two commits (off the clock): since issue 31 item 7 the
        # next commit's snapshot carries these vectors, so growth measures real vectors, not an unchanged file
        _hookgraph(repo, env, "index", "--wait", "--quiet")
    return seconds, (_pack_bytes(repo, env) - before) // n, cpu


def _clone_first_ask(repo: Path, dest: Path, env: dict[str, str]) -> tuple[float, int, float, float, int, float]:
    """``(seconds to the first answer, texts waiting in it, seconds of git clone, seconds until no text waits,
    texts the clone's model embedded as the queue's embedder, seconds until the snapshot's vectors were
    adopted)`` (adoption publishes them all in one transaction: the first time fewer texts wait).

    The teammate's caches are empty and their background embedder is on (as on any machine): a snapshot's
    vectors may be adopted by the first command or by that embedder after it answered.
    """
    log = dest.parent / "mate-embedded.log"
    env = dict(env, HOOKGRAPH_CACHE_MB="0", HOOKGRAPH_REPO_CACHE_MB="0", HOOKGRAPH_EMBED_LOG=str(log))
    env.pop("HOOKGRAPH_NO_BACKGROUND")
    started = time.perf_counter()
    _run(["git", "clone", "-q", str(repo), str(dest)], dest.parent, env)
    cloned = time.perf_counter()
    proc = _hookgraph(dest, env, "ask", "--json", "read the body of a response")
    done = time.perf_counter()
    pending = int(json.loads(proc.stdout)["pending_vectors"])
    waiting, adopted = pending, done
    while waiting and time.perf_counter() - done < 600:
        time.sleep(0.2)
        waiting = int(json.loads(_hookgraph(dest, env, "status", "--json").stdout)["pending_vectors"])
        if waiting < pending and adopted == done:
            adopted = time.perf_counter()
    complete = time.perf_counter()
    embedded = sum(int(line.split()[1]) for line in log.read_text().splitlines()) if log.exists() else 0
    return done - started, pending, cloned - started, complete - started, embedded, adopted - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--commits", type=int, default=3)
    parser.add_argument("--code", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--label", default="this checkout")
    parser.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "hookgraph-share-bench-cache",
                        help="user cache kept between runs: the second setup and the next run embed nothing")
    parser.add_argument("--clone-only", action="store_true",
                        help="shared mode only, and --commits 0: just a teammate's clone")
    args = parser.parse_args()
    if args.clone_only:
        args.commits = 0
    env = _env(args.code.resolve(), args.cache_dir)
    with tempfile.TemporaryDirectory(prefix="hookgraph-share-bench-") as tmp:
        rows = []
        for shared in (True,) if args.clone_only else (False, True):
            repo = Path(tmp) / ("shared" if shared else "plain")
            repo.mkdir()
            units = _setup(args.source, repo, env, shared)
            snap = repo / ".hookgraph" / "shared.db"
            size = snap.stat().st_size if snap.exists() else 0
            seconds, growth, cpu = _commits(repo, env, args.commits) if args.commits else ([0.0], 0, [0.0])
            row = (f"| {args.label} | {'shared' if shared else 'default'} | {units:,} | "
                   f"{statistics.median(seconds):.2f} s ({', '.join(f'{s:.2f}' for s in seconds)}) | "
                   f"{statistics.median(cpu):.2f} s | {growth / 1024:.1f} KB | {size / 1e6:.2f} MB |")
            if shared:
                total, pending, clone_s, complete, embedded, adopted = _clone_first_ask(repo, Path(tmp) / "mate", env)
                row += (f" {total:.2f} s (clone {clone_s:.2f} s), {pending} waiting | {adopted:.2f} s | "
                        f"{complete:.2f} s, {embedded} embedded |")
            else:
                row += " - | - | - |"
            rows.append(row)
            print(row, flush=True)


if __name__ == "__main__":
    main()
