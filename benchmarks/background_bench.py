"""Wall time from ``hookgraph index`` returning until the background worker has embedded every text (issue 32).

    python benchmarks/background_bench.py --baseline REF [--repos ktor,httpie] [--rounds 2] [--no-write]

The whole product as a user runs it: a fresh clone of each repository (a prepared file-level
benchmark repository under /work/bench/repos, or httpie 3.2.4's PyPI sdist), ``hookgraph index``
with the background embedder on, then the store is read every 0.2 s until no text is pending.
No vector cache (``HOOKGRAPH_CACHE_MB=0``), so every text is computed. The baseline
(``git archive REF``) and this checkout alternate for ``--rounds`` rounds; medians. Unlike
quality_time_bench.py, whose time axis is a fitted per-window cost, this counts what the worker
really does: its contexts, its threads, its batches, its writes.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import PYTHON, REPO, env, load, machine, machine_line, write_section  # noqa: E402
from quality_time_bench import BENCH, httpie_repo  # noqa: E402


def drain_seconds(code: Path, source: Path, work: Path) -> tuple[float, float, int]:
    """(index seconds, seconds after it until nothing is pending, texts embedded) for a fresh clone."""
    clone = Path(tempfile.mkdtemp(dir=work)) / source.name
    subprocess.run(["git", "clone", "-q", str(source), str(clone)], check=True, env=env())
    variables = env(PYTHONPATH=str(code), HOOKGRAPH_CACHE_MB="0")
    started = time.perf_counter()
    subprocess.run([PYTHON, "-m", "hookgraph", "index"], cwd=clone, env=variables, check=True,
                   capture_output=True)
    indexed = time.perf_counter()
    database = clone / ".hookgraph" / "index.db"
    queued = None
    while True:
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30) as db:
            pending = db.execute("SELECT count(*) FROM pending").fetchone()[0]
        queued = pending if queued is None else queued
        if pending == 0:
            return indexed - started, time.perf_counter() - indexed, queued
        if time.perf_counter() - indexed > 1800:
            raise SystemExit(f"error: {clone}: still {pending} texts pending after 30 minutes")
        time.sleep(0.2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True)
    parser.add_argument("--repos", default="ktor,httpie")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    before = load()
    work = Path(tempfile.mkdtemp(prefix="hookgraph-background-"))
    old = work / "baseline"
    old.mkdir()
    archive = subprocess.run(["git", "archive", args.baseline], cwd=REPO, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
    sources = {name: (httpie_repo(work) if name == "httpie" else BENCH / "repos" / name)
               for name in args.repos.split(",")}
    runs: dict[tuple[str, str], list[float]] = {}
    texts: dict[tuple[str, str], int] = {}
    for _ in range(args.rounds):
        for name, source in sources.items():
            for label, code in (("baseline", old), ("this", REPO)):
                _index, seconds, queued = drain_seconds(code, source, work)
                runs.setdefault((name, label), []).append(seconds)
                texts[(name, label)] = queued
                print(f"{name} {label}: {seconds:.1f} s ({queued} texts)", flush=True)
    rows = []
    for name in sources:
        base, this = (statistics.median(runs[(name, label)]) for label in ("baseline", "this"))
        rows.append(f"| {name} | {texts[(name, 'baseline')]:,} | "
                    f"{base:.1f} s ({', '.join(f'{s:.1f}' for s in runs[(name, 'baseline')])}) | "
                    f"{this:.1f} s ({', '.join(f'{s:.1f}' for s in runs[(name, 'this')])}) | {base / this:.2f}x |")
    section = (
        f"`python benchmarks/background_bench.py --baseline {args.baseline} --repos {args.repos} --rounds "
        f"{args.rounds}`, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. {machine_line(machine(), before)} "
        "A fresh clone, `hookgraph index` with the background embedder on, no vector cache; seconds from `index` "
        "returning until no text is pending (medians, rounds in brackets), the baseline and this checkout "
        "alternating.\n\n"
        "| repository | texts queued | baseline | this checkout | sooner |\n|---|---:|---:|---:|---:|\n"
        + "\n".join(rows) + "\n"
    )
    print(section)
    if not args.no_write:
        write_section("Every vector in, as the background worker runs (issue 32)", section)


if __name__ == "__main__":
    main()
