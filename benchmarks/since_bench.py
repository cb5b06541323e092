"""``hookgraph ask --since REV`` on a 1,000-commit history: as a new process, beside the same ``ask`` without it.

    python benchmarks/since_bench.py [--commits 1000] [--runs 5] [--keep DIR] [--no-write]

The repository is the ask benchmark's synthetic Python code (``_common.build_sources``, 44 modules, about
1,000 units), then ``--commits`` commits on top: most edit one function, every 50th deletes one, every
100th renames a module, and every 100th merges a side branch of 3 commits (edits in other files). It is
indexed by hookgraph's own sync (vectors from ``_common.fake_embedder``: the query is embedded by the real
model). Each question is asked with ``--since`` the root commit (the whole history) and ``--since HEAD~100``,
alternating with the same ``ask`` without ``--since``; medians over every run. Also timed in-process:
``hookgraph.search.since.changes_since`` alone for the same answers.

Writes the "ask --since" section of ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    PYTHON, REPO, build_sources, fake_embedder, git, load, machine, machine_line, measured, median, precompile,
    spread, write_repo, write_section,
)

sys.path.insert(0, str(REPO))

QUESTIONS = [
    "how are expired invoices validated before they are saved?",
    "send the monthly report to a remote customer",
    "where is the refund balance computed",
]


def _blocks(text: str) -> list[str]:
    return text.split("\n\n\n")


def build(root: Path, commits: int) -> Path:
    """The repository with ``commits`` commits of history, indexed (reused when ``root`` has it)."""
    from hookgraph.embed.queue import drain
    from hookgraph.store import db_path
    from hookgraph.sync import read_target, sync

    repo = root / f"history-{commits}"
    marker = repo / ".hookgraph" / "built.json"
    if marker.exists():
        return repo
    if repo.exists():
        shutil.rmtree(repo)
    sources = {p: t for p, t in build_sources(44).items() if p.endswith(".py")}
    write_repo(repo, sources)
    rng = random.Random(11)
    files = {p: _blocks(t) for p, t in sources.items()}

    def write(path: str) -> None:
        (repo / path).write_text("\n\n\n".join(files[path]))

    def edit(c: int, among: list[str]) -> None:
        path = rng.choice(among)
        blocks = files[path]
        i = rng.randrange(1, len(blocks))
        blocks[i] = blocks[i].replace("result = []", f"result = []  # revision {c}", 1) \
            if "# revision" not in blocks[i] else blocks[i].replace("# revision", f"# revision {c} after", 1)
        write(path)

    made = 0
    while made < commits:
        paths = sorted(files)
        if made % 100 == 10 and made + 5 <= commits:  # a side branch of 3 commits, merged
            side, main_only = paths[: len(paths) // 2], paths[len(paths) // 2:]
            git(repo, "checkout", "-q", "-b", f"side-{made}")
            for k in range(3):
                edit(made + k, side)
                git(repo, "commit", "-q", "-am", f"side edit {made + k}")
            side_blocks = {p: list(files[p]) for p in side}
            git(repo, "checkout", "-q", "main")
            for p in side:  # the working tree is main's again: read back main's blocks for those files
                files[p] = _blocks((repo / p).read_text())
            edit(made + 3, main_only)
            git(repo, "commit", "-q", "-am", f"main edit {made + 3}")
            git(repo, "merge", "-q", "--no-edit", f"side-{made}")
            for p in side:
                files[p] = side_blocks[p]
            made += 5
            continue
        if made % 100 == 50:
            old = rng.choice(paths)
            new = old.replace(".py", f"_r{made}.py")
            git(repo, "mv", old, new)
            files[new] = files.pop(old)
            git(repo, "commit", "-q", "-m", f"rename {old}")
        elif made % 50 == 25:
            path = rng.choice(paths)
            if len(files[path]) > 3:
                files[path].pop(rng.randrange(2, len(files[path])))
                write(path)
            git(repo, "commit", "-q", "-am", f"delete a function ({made})", "--allow-empty")
        else:
            edit(made, paths)
            git(repo, "commit", "-q", "-am", f"edit {made}")
        made += 1
    fake = fake_embedder()
    sync(repo, read_target(repo, "head"), full=True, embedder=fake)
    drain(db_path(repo), fake)
    marker.write_text(json.dumps({"commits": commits}))
    return repo


def in_process(repo: Path, revs: list[str], runs: int) -> list[float]:
    """``changes_since`` alone (no ranking) for each question's top 10, seconds."""
    from hookgraph.search import search
    from hookgraph.search.result import query_words
    from hookgraph.search.since import changes_since
    from hookgraph.store import Store, db_path

    head = git(repo, "rev-parse", "HEAD").stdout.strip()
    times = []
    with Store(db_path(repo), readonly=True) as store:
        answers = {q: search(store, q, top=10) for q in QUESTIONS}
        for _ in range(runs):
            for rev in revs:
                for q, results in answers.items():
                    t = time.perf_counter()
                    changes_since(repo, store, rev, results, query_words(q), head)
                    times.append(time.perf_counter() - t)
    return times


def new_process(repo: Path, revs: list[str], runs: int) -> tuple[list[float], list[float], dict[str, int]]:
    """Wall seconds of ``ask --json`` without and with ``--since``, alternating; and the statuses seen."""
    plain, since = [], []
    statuses: dict[str, int] = {}
    for _ in range(runs):
        for rev in revs:
            for q in QUESTIONS:
                for with_since in (False, True):
                    args = [PYTHON, "-m", "hookgraph.cli", "ask", q, "--json", *(["--since", rev] if with_since else [])]
                    m = measured(args, repo, check=False)
                    if m.returncode not in (0, 1):
                        raise SystemExit(f"ask failed ({m.returncode}): {m.stderr.strip()[-300:]}")
                    payload = json.loads(m.stdout)
                    (since if with_since else plain).append(m.wall)
                    if with_since:
                        for r in payload["results"]:
                            statuses[r["change"]["status"]] = statuses.get(r["change"]["status"], 0) + 1
                        statuses["deleted"] = statuses.get("deleted", 0) + len(payload["since"]["deleted"])
    return plain, since, statuses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commits", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="build the repository here and keep it (reused next time)")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    precompile()
    load_before = load()
    work = args.keep or Path(tempfile.mkdtemp(prefix="hookgraph-since-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    repo = build(work, args.commits)
    built = time.perf_counter() - started
    root = git(repo, "rev-list", "--max-parents=0", "HEAD").stdout.split()[0]
    total = int(git(repo, "rev-list", "--count", "HEAD").stdout)
    revs = [root, "HEAD~100"]
    inproc = in_process(repo, revs, args.runs)
    plain, since, statuses = new_process(repo, revs, args.runs)
    print(f"{total} commits (built in {built:.0f} s): ask p50 {median(plain) * 1000:.0f} ms, "
          f"ask --since p50 {median(since) * 1000:.0f} ms; changes_since in-process p50 "
          f"{median(inproc) * 1000:.0f} ms; statuses {statuses}", flush=True)
    section = "\n".join([
        "## ask --since",
        "",
        f"Command: `python benchmarks/since_bench.py --commits {args.commits} --runs {args.runs}` "
        f"({time.strftime('%Y-%m-%d')}); {total} commits of history on ~1,000 synthetic units (edits, a deletion "
        "every 50 commits, a rename every 100, a merged 3-commit side branch every 100); 3 questions, each with "
        f"`--since` the root commit and `--since HEAD~100`, {args.runs} rounds, alternating with the same `ask` "
        "without `--since`; medians.",
        machine_line(machine(), load_before),
        "",
        "| | p50 | runs |",
        "|---|---:|---|",
        f"| `hookgraph ask Q --json` (new process) | {median(plain) * 1000:.0f} ms | {spread(plain, 1000)} ms |",
        f"| `hookgraph ask Q --json --since REV` (new process) | **{median(since) * 1000:.0f} ms** "
        f"({'meets' if median(since) <= 0.5 else 'MISSES'} <= 0.5 s) | {spread(since, 1000)} ms |",
        f"| `changes_since` alone, in-process (top 10) | {median(inproc) * 1000:.0f} ms | "
        f"{spread(inproc, 1000)} ms |",
        "",
        f"Statuses over all `--since` answers: {', '.join(f'{n} {s}' for s, n in sorted(statuses.items()))}.",
        "",
    ])
    print(section)
    if not args.no_write:
        write_section("ask --since", section)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
