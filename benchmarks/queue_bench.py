"""Hooks never wait for the model: a baseline hookgraph and this one, side by side in one run (issue 12).

    python benchmarks/queue_bench.py [--baseline REV] [--runs 5] [--files 50] [--no-write]

Builds a synthetic Python repository (``--files`` modules of 2 classes x 5
methods + 10 functions: 50 files = 1,000 functions and methods, ~1,150
units), indexes it completely, installs hookgraph's plain git hooks, and for
each version - the baseline (``git archive REV hookgraph``, run through
PYTHONPATH) and this checkout - measures, medians of ``--runs``:

* ``git commit`` of a change to 3 functions in 2 files, whole command
  (pre-commit and post-commit hooks included);
* ``git checkout`` of a branch on which every function and method body
  differs (1,000 functions): the wall time until git has its prompt back, and
  whether the index's file -> blob map equals the branch's tree at that
  moment; for this version also how long the background embedder then takes
  to fill the vectors (the baseline embeds inside the hook).

Each run starts from the same state (base commit checked out, index restored
from a saved copy). Writes the "Never wait for the model" section of
``benchmarks/RESULTS.md`` unless ``--no-write``.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    PYTHON,
    REPO,
    build_sources,
    git,
    load,
    machine,
    machine_line,
    measured,
    precompile,
    write_repo,
    write_section,
)


def baseline_tree(rev: str, into: Path) -> Path:
    """The baseline's package, unpacked from git (no checkout, no install): PYTHONPATH selects it."""
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "archive", rev, "hookgraph"], cwd=REPO, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def edit_bodies(text: str, tag: str, limit: int | None = None) -> str:
    """Change the body of every function/method (or the first ``limit``): one unit text each."""
    count = 0

    def bump(match: re.Match[str]) -> str:
        nonlocal count
        if limit is not None and count >= limit:
            return match.group(0)
        count += 1
        return f"{match.group(1)}result = []  # {tag}\n"

    return re.sub(r"^( +)result = \[\]\n", bump, text, flags=re.M)


class Version:
    """One hookgraph to run: its PYTHONPATH (None: this checkout) and a name for the report."""

    def __init__(self, name: str, pythonpath: Path | None) -> None:
        self.name = name
        self.pythonpath = pythonpath

    def env(self, **extra: str) -> dict[str, str]:
        out = {"HOOKGRAPH_CACHE_MB": "0", **extra}  # no user-level cache: every run embeds what it must
        if self.pythonpath is not None:
            out["PYTHONPATH"] = str(self.pythonpath)
        return out

    def hookgraph(self, repo: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        from _common import run

        return run([PYTHON, "-m", "hookgraph.cli", *args], repo, **self.env(**extra))


def pending(repo: Path, version: Version) -> int:
    out = version.hookgraph(repo, "status", "--json")
    return int(json.loads(out.stdout).get("pending_vectors", 0))


def store_map(repo: Path) -> dict[str, str]:
    """The index's file -> blob map, read with plain SQL (the baseline's schema is older than ours)."""
    import sqlite3

    db = sqlite3.connect(f"file:{repo / '.hookgraph' / 'index.db'}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT path, blob FROM files").fetchall()
    finally:
        db.close()
    return {p: b for p, b in rows if not p.startswith(".hookgraph/")}


def tree_map(repo: Path) -> dict[str, str]:
    out = git(repo, "ls-tree", "-r", "HEAD").stdout
    entries = {}
    for line in out.splitlines():
        meta, path = line.split("\t", 1)
        if not path.startswith(".hookgraph/"):
            entries[path] = meta.split()[2]
    return entries


def prepare(version: Version, workdir: Path, sources: dict[str, str]) -> tuple[Path, str, str, Path]:
    """A repo with everything embedded and the hooks installed; returns (repo, base, branch tip, saved index)."""
    repo = workdir / f"repo-{version.name}"
    base = write_repo(repo, sources)
    version.hookgraph(repo, "index", "--wait") if version.pythonpath is None else version.hookgraph(repo, "index")
    version.hookgraph(repo, "install")
    # the branch: every function and method body differs (1,000 functions at 50 files)
    git(repo, "checkout", "-q", "-b", "wide", HOOKGRAPH_SKIP="1")
    for rel in sources:
        if rel.endswith(".py"):
            (repo / rel).write_text(edit_bodies((repo / rel).read_text(), "wide"))
    git(repo, "commit", "-q", "-am", "touch every function", HOOKGRAPH_SKIP="1")
    tip = git(repo, "rev-parse", "HEAD").stdout.strip()
    git(repo, "checkout", "-q", "main", HOOKGRAPH_SKIP="1")
    saved = workdir / f"saved-{version.name}"
    shutil.rmtree(saved, ignore_errors=True)
    shutil.copytree(repo / ".hookgraph", saved)
    return repo, base, tip, saved


def restore(repo: Path, saved: Path, base: str) -> None:
    """The base commit and the saved index; no vector cache (a run must not find the last run's vectors)."""
    git(repo, "checkout", "-q", "-f", "main", HOOKGRAPH_SKIP="1")
    git(repo, "reset", "-q", "--hard", base, HOOKGRAPH_SKIP="1")
    shutil.rmtree(repo / ".hookgraph")
    shutil.copytree(saved, repo / ".hookgraph")
    shutil.rmtree(repo / ".git" / "hookgraph", ignore_errors=True)  # the repository's vector cache and queues


def bench_version(version: Version, workdir: Path, sources: dict[str, str], runs: int) -> dict:
    repo, base, tip, saved = prepare(version, workdir, sources)
    code = sorted(p for p in sources if p.endswith(".py"))[:2]
    # the background embedder on, as on a user's machine; no user-level cache (HOOKGRAPH_CACHE_MB=0)
    bg = {"HOOKGRAPH_NO_BACKGROUND": "", "HOOKGRAPH_CACHE_MB": "0"}
    commits, hooks, checkouts, fresh_at_prompt, fill = [], [], [], [], []

    def three_functions(i: int) -> None:
        restore(repo, saved, base)
        (repo / code[0]).write_text(edit_bodies((repo / code[0]).read_text(), f"c{i}", limit=2))
        (repo / code[1]).write_text(edit_bodies((repo / code[1]).read_text(), f"c{i}", limit=1))
        git(repo, "add", "-A")

    for i in range(runs):
        three_functions(i)  # the pre-commit hook alone, as git runs it (the staged change), whole process
        hooks.append(measured([PYTHON, "-m", "hookgraph.cli", "hook", "pre-commit"], repo,
                              **version.env(**{**bg, "HOOKGRAPH_NO_BACKGROUND": "1"})).wall)
        three_functions(i)
        commits.append(measured(["git", "commit", "-q", "-m", f"three functions {i}"], repo, **version.env(**bg)).wall)
        if version.pythonpath is None:
            while pending(repo, version):  # the next measurement must not share the cores with it
                time.sleep(0.2)
        restore(repo, saved, base)
        started = time.monotonic()
        moved = measured(["git", "checkout", "-q", "wide"], repo, **version.env(**bg))
        checkouts.append(moved.wall)
        fresh_at_prompt.append(store_map(repo) == tree_map(repo))
        if version.pythonpath is None:
            while pending(repo, version):
                time.sleep(0.5)
            fill.append(time.monotonic() - started)
        assert tree_map(repo)[code[0]] and git(repo, "rev-parse", "HEAD").stdout.strip() == tip
    return {"hook": hooks, "commit": commits, "checkout": checkouts, "fresh": fresh_at_prompt, "fill": fill}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="defe6c6", help="the hookgraph to compare with (a git revision)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--files", type=int, default=50)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    precompile()
    sources = build_sources(args.files)
    load_before = load()
    results = {}
    with tempfile.TemporaryDirectory(prefix="hookgraph-queue-bench-") as tmp:
        work = Path(tmp)
        versions = [Version("baseline", baseline_tree(args.baseline, work / "baseline")), Version("this", None)]
        for version in versions:
            print(f"{version.name}: preparing and measuring ({args.runs} runs)...", file=sys.stderr, flush=True)
            results[version.name] = bench_version(version, work, sources, args.runs)
            print(f"  {json.dumps({k: [round(x, 3) for x in v] if v and not isinstance(v[0], bool) else v for k, v in results[version.name].items()})}", file=sys.stderr)
    section = render(results, args, machine_line(machine(), load_before), load())
    print(section)
    if not args.no_write:
        write_section("Never wait for the model", section)


def render(results: dict, args: argparse.Namespace, machine_text: str, load_after: str) -> str:
    def med(values: list[float]) -> str:
        return f"{statistics.median(values):.2f} s" if values else "-"

    def spread(values: list[float]) -> str:
        return f"{min(values):.2f}-{max(values):.2f}" if values else ""

    b, t = results["baseline"], results["this"]
    functions = args.files * 20
    lines = [
        "## Never wait for the model",
        "",
        f"`python benchmarks/queue_bench.py --baseline {args.baseline} --runs {args.runs} --files {args.files}`: "
        f"a synthetic repository of {args.files} modules ({functions} functions and methods, about "
        f"{functions + args.files * 3} units), fully embedded, plain git hooks installed; the baseline "
        f"({args.baseline}, embedding inside the hooks) and this checkout measured one after the other in one run, "
        f"medians of {args.runs} (range in brackets). {machine_text}",
        "",
        "| what git did | baseline | this | target |",
        "|---|---:|---:|---|",
        f"| pre-commit hook for a commit changing 3 functions (whole hook process) | {med(b['hook'])} "
        f"({spread(b['hook'])}) | {med(t['hook'])} ({spread(t['hook'])}) | <= 0.3 s |",
        f"| `git commit` of the same change (whole command: git, pre-commit and post-commit hooks) "
        f"| {med(b['commit'])} ({spread(b['commit'])}) | {med(t['commit'])} ({spread(t['commit'])}) | |",
        f"| `git checkout` of a branch changing {functions} functions, until the prompt | {med(b['checkout'])} "
        f"({spread(b['checkout'])}) | {med(t['checkout'])} ({spread(t['checkout'])}) | <= 2 s |",
        f"| index file map = the branch's tree when git returned | {sum(b['fresh'])}/{len(b['fresh'])} "
        f"| {sum(t['fresh'])}/{len(t['fresh'])} | every run |",
        f"| vectors complete after the checkout (background embedder) | (inside the hook) | {med(t['fill'])} "
        f"({spread(t['fill'])}) | reported |",
        "",
        f"Ratio, checkout: the baseline held git {statistics.median(b['checkout']) / statistics.median(t['checkout']):.0f}x "
        f"as long; commit: {statistics.median(b['commit']) / statistics.median(t['commit']):.1f}x.",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
