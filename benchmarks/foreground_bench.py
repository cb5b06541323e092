"""Does the background embedder give the CPU away? A foreground job's speed beside a draining embedder (issue 32).

    python benchmarks/foreground_bench.py [--baseline REF] [--rounds 3] [--work 6000000] [--no-write]

A fixed CPU-bound foreground job (a pure-Python loop, ``--jobs`` processes,
one per core by default) is timed alone and then beside the real background
embedder (``python -m hookgraph.embed.worker``, started detached in a session
of its own exactly as ``hookgraph index`` starts it) while it drains the
requests fixture's queue. The baseline's worker (``git archive REF``) and this
checkout's are measured one after the other in one run, ``--rounds`` times
each, alternating; the foreground job runs in this script's session, as a
user's build would run in their terminal's. Reports the median share of the
solo speed the foreground job keeps (target >= 90%).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import PYTHON, REPO, env, git, load, machine, machine_line, median, write_section  # noqa: E402

FIXTURE = REPO / "tests" / "fixtures" / "requests_repo"
#: The foreground job: a loop with no I/O and no allocation worth counting.
FOREGROUND = "n = int(__import__('sys').argv[1])\nx = 0\nfor i in range(n):\n    x = (x * 31 + i) % 1000003\n"


def foreground(work: int, jobs: int) -> float:
    """Wall seconds until all ``jobs`` processes of the fixed loop are done."""
    started = time.perf_counter()
    procs = [subprocess.Popen([PYTHON, "-c", FOREGROUND, str(work)]) for _ in range(jobs)]
    for proc in procs:
        proc.wait()
    return time.perf_counter() - started


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process and all its threads so far (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def prepared_index(code: Path, work_dir: Path) -> Path:
    """The requests fixture as a git repository with every text queued (no background embedder yet)."""
    root = work_dir / "requests"
    shutil.copytree(FIXTURE, root)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "import")
    proc = subprocess.run([PYTHON, "-m", "hookgraph.cli", "index"], cwd=root, capture_output=True, text=True,
                          env=env(PYTHONPATH=str(code), HOOKGRAPH_NO_BACKGROUND="1", HOOKGRAPH_CACHE_MB="0"))
    if proc.returncode != 0:
        raise SystemExit(f"hookgraph index failed in {root}:\n{proc.stderr}")
    return root


def start_worker(code: Path, template: Path, work_dir: Path, log: Path) -> tuple[subprocess.Popen[bytes], Path]:
    """A fresh copy of the queued index and its embedder, started as ``start_background`` starts it."""
    root = work_dir / f"run-{time.monotonic_ns()}"
    shutil.copytree(template, root, symlinks=True)
    subprocess.run([PYTHON, "-c", "import sys; from pathlib import Path; from hookgraph.embed.worker import register; "
                    "from hookgraph.store import db_path; r = Path(sys.argv[1]); register(r, db_path(r))", str(root)],
                   check=True, env=env(PYTHONPATH=str(code)))
    log.write_text("")
    proc = subprocess.Popen([PYTHON, "-m", "hookgraph.embed.worker", str(root)], cwd=root,
                            env=env(PYTHONPATH=str(code), HOOKGRAPH_WORKER="1", HOOKGRAPH_CACHE_MB="0",
                                    HOOKGRAPH_EMBED_LOG=str(log)),
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True, close_fds=True)
    deadline = time.monotonic() + 120
    while not log.read_text().strip():  # the model is loaded and the first batch started
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the embedder of {code} never started a batch (exit {proc.poll()})")
        time.sleep(0.2)
    time.sleep(1.0)  # well inside its first batches
    return proc, root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="main", help="git ref of the old code (default: main)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--work", type=int, default=6_000_000, help="loop iterations per foreground process")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="foreground processes")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    load_before = load()
    work_dir = Path(tempfile.mkdtemp(prefix="hookgraph-fg-"))
    old = work_dir / "baseline"
    old.mkdir()
    archive = subprocess.run(["git", "archive", args.baseline], cwd=REPO, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
    codes = {"baseline": old, "this": REPO}
    templates = {name: prepared_index(code, work_dir / name / "t") for name, code in codes.items()}
    log = work_dir / "embed.log"
    solo: dict[str, list[float]] = {name: [] for name in codes}
    beside: dict[str, list[float]] = {name: [] for name in codes}
    taken: dict[str, list[float]] = {name: [] for name in codes}
    try:
        foreground(args.work // 10, args.jobs)  # warm the interpreter's files
        for r in range(args.rounds):
            for name, code in codes.items():
                solo[name].append(foreground(args.work, args.jobs))  # right before: the same load from others
                proc, root = start_worker(code, templates[name], work_dir, log)
                try:
                    before = cpu_seconds(proc.pid)
                    beside[name].append(foreground(args.work, args.jobs))
                    taken[name].append(cpu_seconds(proc.pid) - before)
                finally:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                    shutil.rmtree(root, ignore_errors=True)
                print(f"round {r + 1}, {name}: solo {solo[name][-1]:.2f}s, beside the embedder "
                      f"{beside[name][-1]:.2f}s, embedder CPU meanwhile {taken[name][-1]:.2f}s", flush=True)
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)
    m = machine()
    rows = []
    for name in codes:
        label = "baseline (" + args.baseline + ")" if name == "baseline" else "this checkout"
        shares = [a / b for a, b in zip(solo[name], beside[name])]
        rows.append(f"| {label} | {median(solo[name]):.2f} s | {median(beside[name]):.2f} s "
                    f"| **{median(shares):.0%}** ({min(shares):.0%}-{max(shares):.0%}) "
                    f"| {median(taken[name]):.2f} s |")
        print(f"{name}: {median(shares):.0%} of solo speed")
    section = (
        "## The background embedder yields the CPU\n\n"
        f"`python benchmarks/foreground_bench.py --baseline {args.baseline} --rounds {args.rounds} --work {args.work}`, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. {machine_line(m, load_before)} "
        f"Autogroup: {Path('/proc/sys/kernel/sched_autogroup_enabled').read_text().strip() if Path('/proc/sys/kernel/sched_autogroup_enabled').exists() else 'absent'} "
        f"(1 = on). The foreground job is {args.jobs} processes of a fixed pure-Python loop ({args.work:,} iterations "
        "each), in this script's session; the embedder is the real worker, started detached in a session of its "
        "own as `hookgraph index` starts it, draining the requests fixture's queue (timing starts once its first "
        "batch began). Each run beside the embedder follows a solo run of the same job (the share is their "
        f"ratio, so the others' load drifts out); medians of {args.rounds} rounds (range in brackets). The last "
        "column is the CPU time the embedder process (all its threads) used while the foreground job ran.\n\n"
        "| embedder | foreground alone | beside the embedder | share of solo speed kept | embedder CPU meanwhile |\n"
        "|---|---:|---:|---:|---:|\n" + "\n".join(rows) + "\n\nTarget: >= 90% beside the new embedder.\n"
    )
    if not args.no_write:
        write_section("The background embedder yields the CPU", section)
    print(section)


if __name__ == "__main__":
    main()
