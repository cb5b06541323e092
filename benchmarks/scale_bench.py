"""Memory of a first index as the repository grows to 50,000 files: bounded, not proportional.

    python benchmarks/scale_bench.py [--files 5000,20000,50000] [--no-write]

Each size is a synthetic repository of small Python modules (a docstring, a
class with one method, one function: 4 units per file), committed, then
indexed from HEAD by hookgraph's own ``sync(full=True)`` in a fresh child
process, whose peak resident memory (``ru_maxrss``) is recorded. The vectors
come from ``_common.fake_embedder`` (the shipped model's identity,
pseudo-random vectors): embedding 200,000 texts with the real model would
take hours here (see "First full index" for the model's own rate), and the
question is what the rest of the pipeline holds in memory. For first indexes
that size, ``hookgraph index --embed-url`` sends the embedding to a
llama.cpp server on a bigger machine (README). Writes the "Scale" section.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    ADJ, NOUNS, PYTHON, REPO, VERBS, checkpointed_bytes, fake_embedder, git, load, machine, machine_line, measured,
    precompile, write_section,
)

sys.path.insert(0, str(REPO))


def module(i: int) -> str:
    noun, verb, adj = NOUNS[i % len(NOUNS)], VERBS[(i // 3) % len(VERBS)], ADJ[(i // 7) % len(ADJ)]
    return (
        f'"""{noun.capitalize()} {verb} helpers, part {i}."""\n\n\n'
        f"class {adj.capitalize()}{noun.capitalize()}{i}:\n"
        f'    """Holds {adj} {noun}s."""\n\n'
        f"    def {verb}(self, items):\n"
        f'        """{verb.capitalize()} the {noun}s."""\n'
        f"        return [x for x in items if x]\n\n\n"
        f"def {verb}_{adj}_{noun}_{i}(items, limit=None):\n"
        f'    """{verb.capitalize()} {adj} {noun}s, at most limit."""\n'
        f"    return {adj.capitalize()}{noun.capitalize()}{i}().{verb}(items)[:limit]\n"
    )


def build(repo: Path, n_files: int) -> None:
    repo.mkdir(parents=True)
    for i in range(n_files):
        path = repo / "pkg" / f"d{i // 500}" / f"m{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(module(i))
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"{n_files} modules")


def child(repo: Path, out: Path) -> None:
    import resource

    from hookgraph.sync import read_target, sync

    started = time.perf_counter()
    report = sync(repo, read_target(repo, "head"), full=True, embedder=fake_embedder())
    out.write_text(json.dumps({
        "seconds": time.perf_counter() - started,
        "files": report.added,
        "units": report.units_written,
        "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", default="5000,20000,50000")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--keep", type=Path)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(Path(args.child[0]), Path(args.child[1]))
        return
    precompile()
    load_before = load()
    work = args.keep or Path(tempfile.mkdtemp(prefix="hookgraph-scale-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    for n in (int(x) for x in args.files.split(",")):
        repo = work / f"repo-{n}"
        if not (repo / ".git").is_dir():
            shutil.rmtree(repo, ignore_errors=True)
            build(repo, n)
        shutil.rmtree(repo / ".hookgraph", ignore_errors=True)
        out = work / "out.json"
        m = measured([PYTHON, str(Path(__file__).resolve()), "--child", str(repo), str(out)], work)
        data = json.loads(out.read_text())
        data["peak_mb"] = m.peak_mb
        data["db_bytes"] = checkpointed_bytes(repo / ".hookgraph" / "index.db")
        rows.append(data)
        print(f"{n} files: {data['units']} units in {data['seconds']:.0f}s, peak {m.peak_mb:.0f} MB, "
              f"{data['db_bytes'] / data['units']:.0f} B/unit", flush=True)
    lines = [
        "## Scale",
        "",
        f"Command: `python benchmarks/scale_bench.py --files {args.files}` ({time.strftime('%Y-%m-%d')}); one run "
        "per size (a peak, not a timing).",
        machine_line(machine(), load_before),
        "",
        "First index (`sync --full` from HEAD, a fresh process per size) of synthetic repositories of small "
        "modules, 4 units each; vectors pseudo-random (the shipped model's identity, no model run), so this "
        "measures what parsing, hashing and the store hold, not the model's 25-60 MB.",
        "",
        "| files | units | peak RSS | time (no model) | DB bytes/unit |",
        "|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(f"| {r['files']:,} | {r['units']:,} | **{r['peak_mb']:.0f} MB** | {r['seconds']:.0f} s | "
                     f"{r['db_bytes'] / r['units']:,.0f} |")
    lines.append("")
    section = "\n".join(lines)
    print(section)
    if not args.no_write:
        write_section("Scale", section)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

