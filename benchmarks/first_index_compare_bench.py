"""A first ``hookgraph index`` of the baseline and of this checkout, side by side (the static vectors' cost).

    python benchmarks/first_index_compare_bench.py [--baseline 2a88433] [--runs 5] [--repos tokio cats aiohttp]

Each project under ``/work/bench/repos`` (the filebench checkouts prepared by
``../shared/filebench/prepare.py``) becomes a fresh one-commit repository per
side; then, alternating sides, ``--runs`` times: the index removed and
``hookgraph index`` run from empty as a whole process (no background
embedder, no vector cache: the time until text, graph and static vectors are
written, the time a user waits). Medians, their ratio, and wall and CPU
seconds: on a loaded 2-core machine the wall ratio is the noisier of the two.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import PYTHON, REPO, baseline_code, load, machine, machine_line, measured, median, precompile, write_section  # noqa: E402
from parallel_parse_bench import fresh_copy  # noqa: E402

BENCH = Path("/work/bench/repos")
SECTION = "First index side by side with the baseline"


def index_once(repo: Path, code: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one ``hookgraph index`` from an empty index."""
    shutil.rmtree(repo / ".hookgraph", ignore_errors=True)
    shutil.rmtree(repo / ".git" / "hookgraph", ignore_errors=True)
    run = measured([PYTHON, "-m", "hookgraph.cli", "index"], repo, PYTHONPATH=str(code),
                   HOOKGRAPH_NO_BACKGROUND="1", HOOKGRAPH_CACHE_MB="0")
    return run.wall, run.cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="2a88433")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--repos", nargs="+", default=["tokio", "cats", "aiohttp"])
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    load_before = load()
    precompile()
    work = Path(tempfile.mkdtemp(prefix="hookgraph-first-index-"))
    old = baseline_code(args.baseline, work / "baseline")
    codes = {"baseline": old, "this": REPO}
    repos = {(name, project): fresh_copy(BENCH / project, work / name / project)
             for name in codes for project in args.repos}
    for (name, project), repo in repos.items():  # warm the page cache and the .pyc files once
        index_once(repo, codes[name])
    walls: dict[tuple[str, str], list[float]] = {}
    cpus: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.runs):
        for project in args.repos:
            for name, code in codes.items():
                wall, cpu = index_once(repos[(name, project)], code)
                walls.setdefault((name, project), []).append(wall)
                cpus.setdefault((name, project), []).append(cpu)
    shutil.rmtree(work, ignore_errors=True)
    m = machine()
    rows = []
    for project in args.repos:
        base_wall, this_wall = median(walls[("baseline", project)]), median(walls[("this", project)])
        base_cpu, this_cpu = median(cpus[("baseline", project)]), median(cpus[("this", project)])
        rows.append(f"| {project} | {base_wall:.2f} s | {this_wall:.2f} s | **{this_wall / base_wall:.2f}x** | "
                    f"{base_cpu:.2f} s | {this_cpu:.2f} s | {this_cpu / base_cpu:.2f}x |")
    section = (
        f"## {SECTION}\n\n"
        f"`python benchmarks/first_index_compare_bench.py --baseline {args.baseline} --runs {args.runs} "
        f"--repos {' '.join(args.repos)}`, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. "
        f"{machine_line(m, load_before)} `hookgraph index` from empty (whole process, no background embedder, "
        f"no vector cache) in a fresh copy of each filebench project per side, sides alternating; medians of "
        f"{args.runs}.\n\n"
        f"| project | wall, {args.baseline} | wall, this checkout | ratio | CPU, {args.baseline} | "
        f"CPU, this checkout | ratio |\n|---|---:|---:|---:|---:|---:|---:|\n" + "\n".join(rows) + "\n"
    )
    if not args.no_write:
        write_section(SECTION, section)
    print(section)


if __name__ == "__main__":
    main()
