"""First answer: ``hookgraph index`` on a fresh checkout, then one ``hookgraph ask``, side by side with a baseline (issue 32).

    python benchmarks/first_answer_bench.py --repo DIR [--repo DIR ...] [--baseline main] [--rounds 3]
                                            [--ask "how are errors reported"] [--no-write]

Each ``--repo`` folder (for issue 32: Django 5.1.4's PyPI sdist unpacked, and
a folder holding abseil-cpp's ``absl/``) is copied into a fresh one-commit git
repository. Then, per round, the baseline (``git archive REF`` of this
repository) and this checkout, alternating so both meet the same load:

1. ``hookgraph index`` from nothing (no ``.hookgraph/``, no repository or user
   vector cache, no background embedder: the embedder would compete with the
   ``ask`` beside it, and its nice level is issue 32's item 4);
2. ``hookgraph ask QUESTION`` right after it.

Wall and CPU seconds (the command and every process it waited for) of each,
medians and ranges over the rounds. After the first round both stores are
compared table by table - files, units, edges, the queue, meta (less the
parser fingerprint, a hash of the code itself), vectors, and the full-text
index's every term, column and position (``fts5vocab``): a faster first
index must store exactly what the baseline stored.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import PYTHON, REPO, git, load, machine, machine_line, measured, median, write_section  # noqa: E402

#: What is compared between the two stores (ordered, so equal content gives equal digests).
CONTENT = {
    "files": "SELECT path, blob, language, status, units, truncated FROM files ORDER BY path",
    "units": "SELECT id, path, kind, name, qualname, parent, start_line, end_line, language, signature, docstring, "
             "vector_id, text_hash FROM units ORDER BY id",
    "edges": "SELECT id, source_unit, kind, target, target_full, line FROM edges ORDER BY id",
    "pending": "SELECT text_hash, language, text, priority, seq FROM pending ORDER BY seq",
    "meta": "SELECT key, value FROM meta WHERE key <> 'parser' ORDER BY key",
    "vectors": "SELECT id, text_hash, head, windows, truncated FROM vectors ORDER BY id",
    "full text": "SELECT term, doc, col, offset FROM temp.fts_terms ORDER BY doc, col, offset",
}
ENV = {"HOOKGRAPH_NO_BACKGROUND": "1", "HOOKGRAPH_CACHE_MB": "0", "HOOKGRAPH_REPO_CACHE_MB": "0"}


def fresh_copy(source: Path, where: Path) -> Path:
    """``source``'s files as a new one-commit git repository."""
    shutil.copytree(source, where, ignore=shutil.ignore_patterns(".git", ".hookgraph"), symlinks=True)
    git(where, "init", "-q", "-b", "main")
    git(where, "add", "-A")
    git(where, "commit", "-q", "-m", "import")
    return where


def content(database: Path) -> dict[str, tuple[int, str]]:
    """``{table: (rows, digest)}`` of a store, read with this checkout's code."""
    from hookgraph.store import Store

    out: dict[str, tuple[int, str]] = {}
    with Store(database, readonly=True) as store:
        store.db.execute("CREATE VIRTUAL TABLE temp.fts_terms USING fts5vocab(main, fts_units, instance)")
        for name, sql in CONTENT.items():
            digest, rows = hashlib.sha256(), 0
            for row in store.db.execute(sql):
                digest.update(repr(tuple(row)).encode())
                rows += 1
            out[name] = (rows, digest.hexdigest()[:16])
    return out


def first_answer(code: Path, root: Path, question: str) -> tuple[float, float, float, float, str]:
    """(index wall, index CPU, ask wall, ask CPU, index's summary line) from nothing."""
    shutil.rmtree(root / ".hookgraph", ignore_errors=True)
    shutil.rmtree(root / ".git" / "hookgraph", ignore_errors=True)
    index = measured([PYTHON, "-m", "hookgraph.cli", "index"], root, PYTHONPATH=str(code), **ENV)
    ask = measured([PYTHON, "-m", "hookgraph.cli", "ask", question, "--top", "5"], root, check=False,
                   PYTHONPATH=str(code), **ENV)
    if ask.returncode not in (0, 1):
        raise SystemExit(f"ask failed ({ask.returncode}): {ask.stderr}")
    return index.wall, index.cpu, ask.wall, ask.cpu, index.stdout.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, action="append", required=True, help="a project folder (repeatable)")
    parser.add_argument("--baseline", default="main")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ask", default="how are errors reported")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    load_before = load()
    work = Path(tempfile.mkdtemp(prefix="hookgraph-first-answer-"))
    rows: list[str] = []
    checks: list[str] = []
    try:
        old = work / "baseline"
        old.mkdir()
        archive = subprocess.run(["git", "archive", args.baseline], cwd=REPO, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
        baseline_commit = git(REPO, "rev-parse", "--short", args.baseline).stdout.strip()
        this_commit = git(REPO, "rev-parse", "--short", "HEAD").stdout.strip()
        import compileall

        for code in (old, REPO):  # bytecode first, as any install has it
            compileall.compile_dir(str(code / "hookgraph"), quiet=1)
        variants = {f"baseline ({baseline_commit})": old, f"this ({this_commit})": REPO}
        for source in args.repo:
            root = fresh_copy(source, work / source.name)
            files = git(root, "ls-files", "-z").stdout.count("\0")
            runs: dict[str, list[tuple[float, float, float, float, str]]] = {name: [] for name in variants}
            stores: dict[str, dict[str, tuple[int, str]]] = {}
            for round_number in range(args.rounds):
                for name, code in variants.items():
                    runs[name].append(first_answer(code, root, args.ask))
                    if round_number == 0:
                        stores[name] = content(root / ".hookgraph" / "index.db")
                print(f"{source.name}: " + ", ".join(f"{n} {r[-1][0]:.2f}+{r[-1][2]:.2f}s" for n, r in runs.items()),
                      flush=True)
            (first, one), (_, two) = stores.items()
            differ = [t for t in CONTENT if one[t] != two[t]]
            units = one["units"][0]
            checks.append(f"{source.name}: " + (f"the two stores differ in {', '.join(differ)}" if differ else
                          "both stores identical (" + ", ".join(f"{t} {one[t][0]:,}" for t in CONTENT) + ")"))
            for name, measured_runs in runs.items():
                index_walls = [r[0] for r in measured_runs]
                totals = [r[0] + r[2] for r in measured_runs]
                rows.append(
                    f"| {source.name} ({files:,} files, {units:,} units) | {name} | "
                    f"{median(index_walls):.2f} s ({min(index_walls):.2f}-{max(index_walls):.2f}) | "
                    f"{median([r[2] for r in measured_runs]):.2f} s | "
                    f"**{median(totals):.2f} s** ({min(totals):.2f}-{max(totals):.2f}) | "
                    f"{median([r[1] for r in measured_runs]):.2f} s + {median([r[3] for r in measured_runs]):.2f} s |")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    m = machine()
    repos = " ".join(f"--repo {r}" for r in args.repo)
    section = (
        "## First answer side by side\n\n"
        f"`python benchmarks/first_answer_bench.py {repos} --baseline {args.baseline} --rounds {args.rounds} "
        f"--ask \"{args.ask}\"`, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. {machine_line(m, load_before)} "
        "Each project copied into a fresh one-commit git repository; per round the baseline and this checkout "
        "alternate: `hookgraph index` from nothing (no vector cache, no background embedder), then `hookgraph ask` "
        f"(\"{args.ask}\"); medians of {args.rounds} (range). First answer: index + ask. CPU: user + system "
        "seconds of the command and every process it waited for (the parse workers), index + ask.\n\n"
        "| project | code | index | ask | first answer | CPU |\n|---|---|---:|---:|---:|---:|\n"
        + "\n".join(rows) + "\n\n"
        "Stores compared after the first round (files, units, edges, queue, meta less the parser fingerprint, "
        "vectors, and every full-text term with its column and position): " + "; ".join(checks) + ".\n"
    )
    if not args.no_write:
        write_section("First answer side by side", section)
    print(section)


if __name__ == "__main__":
    os.environ.setdefault("HOOKGRAPH_NO_BACKGROUND", "1")
    main()
