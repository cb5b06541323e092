"""Parsing on every core: serial against threads against processes, and where processes start to pay (issue 32).

    python benchmarks/parallel_parse_bench.py [--repo PATH] [--rounds 3] [--sizes 8,16,32,64,128,256,0]
                                             [--baseline REF] [--no-write]

Two measurements on a real project (default: a copy of /work/bench/repos/tokio
as a fresh git repository):

1. reading and parsing alone (:func:`hookgraph.sync.parallel.read_files`,
   results consumed, nothing stored) for the first N files of the tree in
   path order, in-process, in a 2-thread pool and in 2 forked processes;
   medians of ``--rounds``, the three modes alternating;
2. the whole first index (``hookgraph index``, no background embedder,
   no vector cache): the baseline (``git archive REF``, serial parse) and
   this checkout, alternating, medians of ``--rounds``.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import PYTHON, REPO, git, load, machine, machine_line, measured, median, write_section  # noqa: E402

TOKIO = Path("/work/bench/repos/tokio")
MODES = ("serial", "threads", "processes")


def fresh_copy(source: Path, where: Path) -> Path:
    """``source``'s files as a new one-commit git repository (no history, no index of its own)."""
    shutil.copytree(source, where, ignore=shutil.ignore_patterns(".git", ".hookgraph"))
    git(where, "init", "-q", "-b", "main")
    git(where, "add", "-A")
    git(where, "commit", "-q", "-m", "import")
    return where


def cpu_seconds() -> float:
    """CPU seconds of this process and of its children waited for (the pool's workers, git)."""
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def parse_seconds(root: Path, size: int, mode: str, workers: int) -> tuple[float, float, int]:
    """Wall and CPU seconds to read and parse the first ``size`` files (0: all) in ``mode``; the units found."""
    from hookgraph import git as hgit
    from hookgraph.sync.parallel import read_files
    from hookgraph.sync.target import read_target

    target = read_target(root, "head")
    paths = sorted(target.entries)[: size or None]
    started, cpu = time.perf_counter(), cpu_seconds()
    units = 0
    with hgit.BlobReader(root) as reader:
        for _, read in read_files(root, target, paths, target.entries, True, reader,
                                  workers=1 if mode == "serial" else workers, threads=mode == "threads"):
            units += len(read.parsed.units) if read.parsed else 0
    return time.perf_counter() - started, cpu_seconds() - cpu, units


def index_seconds(code: Path, root: Path, workers: str) -> tuple[float, float]:
    """Wall and CPU seconds (the command and every process it waited for) of a first ``hookgraph index``."""
    shutil.rmtree(root / ".hookgraph", ignore_errors=True)
    run = measured([PYTHON, "-m", "hookgraph.cli", "index"], root, PYTHONPATH=str(code), HOOKGRAPH_NO_BACKGROUND="1",
                   HOOKGRAPH_CACHE_MB="0", HOOKGRAPH_PARSE_WORKERS=workers)
    return run.wall, run.cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, default=TOKIO)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--sizes", default="8,16,32,64,128,256,0", help="files parsed (0: all)")
    parser.add_argument("--baseline", default="main")
    parser.add_argument("--index-rounds", type=int, help="rounds of the whole first index (default: --rounds)")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    load_before = load()
    work = Path(tempfile.mkdtemp(prefix="hookgraph-parallel-"))
    try:
        root = fresh_copy(args.repo, work / args.repo.name)
        files = int(git(root, "ls-files", "-z").stdout.count("\0"))
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
        table: dict[tuple[int, str], list[float]] = {}
        cpu: dict[tuple[int, str], list[float]] = {}
        units: dict[int, set[int]] = {}
        for _ in range(args.rounds):
            for size in sizes:
                for mode in MODES:
                    seconds, spent, found = parse_seconds(root, size, mode, args.workers)
                    table.setdefault((size, mode), []).append(seconds)
                    cpu.setdefault((size, mode), []).append(spent)
                    units.setdefault(size, set()).add(found)
            print(f"parse round done: {', '.join(f'{k}={v[-1]:.2f}' for k, v in table.items())}", flush=True)
        assert all(len(found) == 1 for found in units.values()), f"modes found different units: {units}"
        old = work / "baseline"
        old.mkdir()
        archive = subprocess.run(["git", "archive", args.baseline], cwd=REPO, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
        variants = {"baseline": (old, ""), "this, in-process": (REPO, "1"), "this": (REPO, "")}
        index: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
        for _ in range(args.index_rounds or args.rounds):
            for name, (code, workers) in variants.items():
                index[name].append(index_seconds(code, root, workers))
            print("index: " + ", ".join(f"{n} {v[-1][0]:.2f}s" for n, v in index.items()), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    m = machine()
    rows = []
    index_rows = []
    for name, runs in index.items():
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        index_rows.append(f"| {name} | {median(walls):.2f} s ({min(walls):.2f}-{max(walls):.2f}) | {median(cpus):.2f} s |")
    for size in sizes:
        serial = median(table[(size, "serial")])
        cells = [f"{median(table[(size, mode)]):.2f} s (x{serial / median(table[(size, mode)]):.2f}), "
                 f"CPU {median(cpu[(size, mode)]):.2f} s" for mode in MODES]
        rows.append(f"| {size or files} | {len(units[size]) and next(iter(units[size])):,} | " + " | ".join(cells) + " |")
    name = f"Parsing on every core: {args.repo.name}"
    parse_part = (
        f"Reading and parsing only (`hookgraph.sync.parallel.read_files`, nothing stored), the first N files in "
        f"path order, in-process, in {args.workers} threads and in {args.workers} forked processes; medians of "
        f"{args.rounds}, the modes alternating (speed-up against in-process in brackets). Every mode found the "
        "same units. CPU: user + system seconds of the process and its workers (what the other engineers' "
        "load cannot change, unlike wall time: the extra work forking and pickling cost).\n\n"
        "| files | units | in-process | threads | processes |\n|---:|---:|---:|---:|---:|\n" + "\n".join(rows) + "\n\n"
    ) if rows else ""
    section = (
        f"## {name}\n\n"
        f"`python benchmarks/parallel_parse_bench.py --repo {args.repo} --rounds {args.rounds} --workers {args.workers} "
        f"--sizes {args.sizes} --index-rounds {args.index_rounds or args.rounds} --baseline {args.baseline}`, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. {machine_line(m, load_before)} Project: "
        f"{args.repo.name} ({files} files) copied into a fresh git repository. "
        + parse_part
        + f"Whole first index (`hookgraph index`, no background embedder, no vector cache), medians of "
        f"{args.index_rounds or args.rounds}; baseline {args.baseline} parses in-process, \"this, in-process\" is "
        "this checkout with `HOOKGRAPH_PARSE_WORKERS=1`; CPU: the command and every process it waited for.\n\n"
        "| code | wall | CPU |\n|---|---:|---:|\n" + "\n".join(index_rows) + "\n"
    )
    if not args.no_write:
        write_section(name, section)
    print(section)


if __name__ == "__main__":
    os.environ.setdefault("HOOKGRAPH_NO_BACKGROUND", "1")
    main()
