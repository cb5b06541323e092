"""Hooks no slower: ``hookgraph hook post-commit`` of the baseline and of this checkout, side by side (issue 32).

    python benchmarks/hook_compare_bench.py [--repo PATH] [--baseline REF] [--runs 7] [--no-write]

Two copies of a real project (default: /work/bench/repos/tokio as a fresh git
repository), each indexed by its own code; then, alternating, ``--runs``
times: the post-commit hook after a commit that changes no file of the index
(a no-op for hookgraph), and after a commit that adds a function to 3 files.
Whole processes, no background embedder, no vector cache; medians.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import PYTHON, REPO, baseline_code, env, git, load, machine, machine_line, median, precompile, write_section  # noqa: E402
from parallel_parse_bench import TOKIO, fresh_copy  # noqa: E402

EDITED = ("tokio/src/lib.rs", "tokio/src/io/mod.rs", "tokio/src/net/mod.rs")


def hook(repo: Path, code: Path) -> float:
    started = time.perf_counter()
    subprocess.run([PYTHON, "-m", "hookgraph.cli", "hook", "post-commit"], cwd=repo, check=True, capture_output=True,
                   env=env(PYTHONPATH=str(code), HOOKGRAPH_NO_BACKGROUND="1", HOOKGRAPH_CACHE_MB="0"))
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, default=TOKIO)
    parser.add_argument("--baseline", default="main")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--edited", default=",".join(EDITED), help="files a function is added to (comma-separated)")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    load_before = load()
    precompile()
    work = Path(tempfile.mkdtemp(prefix="hookgraph-hooks-"))
    old = baseline_code(args.baseline, work / "baseline")
    codes = {"baseline": old, "this": REPO}
    repos = {}
    for name, code in codes.items():
        repos[name] = fresh_copy(args.repo, work / name / args.repo.name)
        subprocess.run([PYTHON, "-m", "hookgraph.cli", "index"], cwd=repos[name], check=True, capture_output=True,
                       env=env(PYTHONPATH=str(code), HOOKGRAPH_NO_BACKGROUND="1", HOOKGRAPH_CACHE_MB="0"))
    times: dict[tuple[str, str], list[float]] = {}
    edited = args.edited.split(",")
    for run in range(args.runs):
        for name, code in codes.items():
            repo = repos[name]
            (repo / "NOTES.unindexed.txt").write_text(f"run {run}\n")
            git(repo, "add", "-A")
            git(repo, "commit", "-q", "-m", f"notes {run}")
            times.setdefault((name, "no change to the index"), []).append(hook(repo, code))
            for path in edited:
                with open(repo / path, "a") as f:
                    f.write(f"\n// edit {run}\npub fn edited_{run}() -> u32 {{\n    {run}\n}}\n")
            git(repo, "commit", "-qam", f"edit {run}")
            times.setdefault((name, f"{len(edited)} files changed"), []).append(hook(repo, code))
    m = machine()
    kinds = list(dict.fromkeys(kind for _, kind in times))
    rows = [f"| {kind} | " + " | ".join(f"{median(times[(n, kind)]):.3f} s ({min(times[(n, kind)]):.3f}-"
                                        f"{max(times[(n, kind)]):.3f})" for n in codes) + " |" for kind in kinds]
    section = (
        "## Hooks side by side with the baseline\n\n"
        f"`python benchmarks/hook_compare_bench.py --baseline {args.baseline} --runs {args.runs}`, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. {machine_line(m, load_before)} "
        f"`hookgraph hook post-commit` (whole process) in a copy of {args.repo.name} indexed by each code, "
        f"alternating, medians of {args.runs} (range in brackets).\n\n"
        f"| commit | baseline ({args.baseline}) | this checkout |\n|---|---:|---:|\n" + "\n".join(rows) + "\n"
    )
    if not args.no_write:
        write_section("Hooks side by side with the baseline", section)
    print(section)


if __name__ == "__main__":
    main()
