"""``hookgraph ask`` at 1k, 10k and 100k units: as a new process and in-process.

    python benchmarks/ask_bench.py [--sizes 1000,10000,100000] [--runs 5] [--keep DIR] [--no-write] [--kind KIND]

For each size, a synthetic Python repository (the hook benchmark's generator:
modules of 2 classes x 5 methods + 10 functions, docstrings, calls) is
committed and indexed by hookgraph's own ``sync`` — parsing, FTS, edges and
the store are real, but the vectors are pseudo-random unit vectors made from
each text's hash (``_common.fake_embedder``, same model identity), because
embedding 100,000 texts would take an hour here. Search time does not depend
on what the vectors mean (sqlite-vec scans every vector); the query itself is
embedded by the real model.

Measured, median over ``--runs`` rounds of every query:

* **new process**: ``hookgraph ask QUERY --json`` — start-up, model load,
  query embedding, search, freshness check against HEAD, output; with its peak
  memory;
* **in-process**: ``hookgraph.search.search`` on an open store with the model
  loaded (what an editor plug-in or the MCP server pays per question), split
  into query embedding, full-text search, vector KNN and the rest (fusion,
  exact names, graph expansion, unit reads);
* database bytes per unit.

``--kind KIND`` asks every query as ``ask --kind KIND`` (typed search: the filter inside the KNN and
full-text queries) and writes the "ask --kind" section instead.

Writes the "ask" section of ``benchmarks/RESULTS.md``.
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
    PYTHON, REPO, build_sources, checkpointed_bytes, fake_embedder, load, machine, machine_line, measured, median,
    precompile, spread, write_repo, write_section,
)

sys.path.insert(0, str(REPO))

#: Natural-language questions and identifiers; identifiers are filled in from the generated code.
QUESTIONS = [
    "how are expired invoices validated before they are saved?",
    "send the monthly report to a remote customer",
    "where is the refund balance computed",
]


def build(root: Path, units_wanted: int) -> tuple[Path, int, float, list[str]]:
    """The repository and index for about ``units_wanted`` units (reused when ``root`` has them)."""
    from hookgraph.embed.queue import drain
    from hookgraph.store import Store, db_path
    from hookgraph.sync import read_target, sync

    repo = root / f"repo-{units_wanted}"
    marker = repo / ".hookgraph" / "built.json"
    if marker.exists():
        info = json.loads(marker.read_text())
        return repo, info["units"], info["seconds"], info["identifiers"]
    if repo.exists():
        shutil.rmtree(repo)
    n_files = max(1, round(units_wanted / 23))
    sources = build_sources(n_files)
    write_repo(repo, sources)
    started = time.perf_counter()
    fake = fake_embedder()
    sync(repo, read_target(repo, "head"), full=True, embedder=fake)
    drain(db_path(repo), fake)  # a sync only queues texts (issue 12): fill them, or every ask embeds on the spot
    seconds = time.perf_counter() - started
    with Store(db_path(repo), readonly=True) as store:
        units = store.db.execute("SELECT count(*) FROM units").fetchall()[0][0]
        mid = store.db.execute(
            "SELECT name, qualname FROM units WHERE kind = 'method' ORDER BY id LIMIT 1 OFFSET ?", (units // 3,)
        ).fetchall()[0]
        fn = store.db.execute(
            "SELECT name FROM units WHERE kind = 'function' ORDER BY id LIMIT 1 OFFSET ?", (units // 5,)
        ).fetchall()[0][0]
    identifiers = [fn, mid[1]]
    marker.write_text(json.dumps({"units": units, "seconds": seconds, "identifiers": identifiers}))
    return repo, units, seconds, identifiers


def db_bytes(repo: Path) -> int:
    from hookgraph.store import db_path

    return checkpointed_bytes(db_path(repo))


def in_process(repo: Path, queries: list[str], runs: int, files: bool = False,
               kind: str | None = None) -> dict[str, list[float]]:
    """Search times with the model loaded, split by step (seconds)."""
    from hookgraph import search as search_mod
    from hookgraph.embed.choice import embedder_for_repo
    from hookgraph.store import Store, db_path

    times: dict[str, list[float]] = {k: [] for k in ("total", "embed", "fts", "knn", "rest")}
    extra = {}
    if kind:
        from hookgraph.search.kinds import read_kinds

        extra["kinds"] = read_kinds(kind)
    with Store(db_path(repo), readonly=True) as store:
        embedder = embedder_for_repo(repo)
        embedder.embed_query("warm up")
        step: dict[str, float] = {}

        def timing(name: str, func):  # type: ignore[no-untyped-def]
            def wrapper(*a, **k):  # type: ignore[no-untyped-def]
                t = time.perf_counter()
                try:
                    return func(*a, **k)
                finally:
                    step[name] = step.get(name, 0.0) + time.perf_counter() - t
            return wrapper

        store.fts_search = timing("fts", store.fts_search)  # type: ignore[method-assign]
        store.knn = timing("knn", store.knn)  # type: ignore[method-assign]
        embedder.embed_query = timing("embed", embedder.embed_query)  # type: ignore[method-assign]
        for _ in range(runs):
            for q in queries:
                step.clear()
                t = time.perf_counter()
                if files:
                    search_mod.search_files(store, q, top=10, embedder=embedder, **extra)
                else:
                    search_mod.search(store, q, top=10, embedder=embedder, **extra)
                total = time.perf_counter() - t
                times["total"].append(total)
                for k in ("embed", "fts", "knn"):
                    times[k].append(step.get(k, 0.0))
                times["rest"].append(total - sum(step.values()))
        embedder.close()
    return times


def new_process(repo: Path, queries: list[str], runs: int, files: bool = False,
                kind: str | None = None) -> tuple[list[float], list[float]]:
    walls, peaks = [], []
    for _ in range(runs):
        for q in queries:
            # exit 1 is "no strong match" (the pseudo-random vectors make any verdict possible): still an answer
            m = measured([PYTHON, "-m", "hookgraph.cli", "ask", q, "--json", *(["--files"] if files else []),
                          *(["--kind", kind] if kind else [])], repo, check=False)
            if m.returncode not in (0, 1):
                raise SystemExit(f"ask {q!r} failed ({m.returncode}): {m.stderr.strip()[-300:]}")
            json.loads(m.stdout)
            walls.append(m.wall)
            peaks.append(m.peak_mb)
    return walls, peaks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="build the repositories here and keep them (reused next time)")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--files", action="store_true", help="ask --files (files ranked by each half, fused)")
    parser.add_argument("--kind", default=None, help="ask --kind KIND (typed search)")
    args = parser.parse_args()
    precompile()
    load_before = load()
    work = args.keep or Path(tempfile.mkdtemp(prefix="hookgraph-ask-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        repo, units, build_seconds, identifiers = build(work, size)
        queries = QUESTIONS + identifiers
        size_bytes = db_bytes(repo)
        inproc = in_process(repo, queries, args.runs, args.files, args.kind)
        walls, peaks = new_process(repo, queries, args.runs, args.files, args.kind)
        row = {"size": size, "units": units, "build": build_seconds, "bytes": size_bytes, "queries": len(queries),
               "inproc": inproc, "walls": walls, "peaks": peaks}
        rows.append(row)
        print(f"{units} units: new process p50 {median(walls) * 1000:.0f} ms (peak {max(peaks):.0f} MB); "
              f"in-process p50 {median(inproc['total']) * 1000:.1f} ms (embed {median(inproc['embed']) * 1000:.1f}, "
              f"fts {median(inproc['fts']) * 1000:.1f}, knn {median(inproc['knn']) * 1000:.1f}, "
              f"rest {median(inproc['rest']) * 1000:.1f}); {size_bytes / units:.0f} B/unit", flush=True)
    section = render(rows, args, machine_line(machine(), load_before))
    print(section)
    if not args.no_write:
        write_section("ask --files" if args.files else f"ask --kind {args.kind}" if args.kind else "ask", section)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


def render(rows: list[dict], args: argparse.Namespace, machine_text: str) -> str:
    def ms(v: float) -> str:
        return f"{v * 1000:.0f} ms" if v >= 0.01 else f"{v * 1000:.1f} ms"

    target_new = {10000: 0.5}
    target_in = {10000: 0.05, 100000: 0.3}
    lines = [
        "## ask --files" if args.files else f"## ask --kind {args.kind}" if args.kind else "## ask",
        "",
        f"Command: `python benchmarks/ask_bench.py --sizes {args.sizes} --runs {args.runs}"
        f"{' --files' if args.files else ''}{f' --kind {args.kind}' if args.kind else ''}` "
        f"({time.strftime('%Y-%m-%d')}); each size asks {rows[0]['queries'] if rows else 0} queries "
        f"(3 questions, a function name, a `Class.method`) {args.runs} times; medians (p50) over all of them.",
        machine_text,
        "",
        "Synthetic units at every size (the hook benchmark's generator, parsed and stored by hookgraph's own "
        "sync; vectors pseudo-random from each text's hash instead of the model, so 100k units build in minutes; "
        "the query is embedded by the real model). Search cost does not depend on what the vectors mean.",
        "",
        "| units | `hookgraph ask` new process p50 | runs | peak RSS | in-process search p50 | "
        "of which: query embedding / FTS / KNN / rest | DB bytes/unit |",
        "|---:|---:|---|---:|---:|---|---:|",
    ]
    for r in rows:
        i = r["inproc"]
        tn = target_new.get(r["size"])
        ti = target_in.get(r["size"])
        new = f"**{ms(median(r['walls']))}**" + (
            f" ({'meets' if median(r['walls']) <= tn else 'MISSES'} <= {tn} s)" if tn else "")
        inp = f"**{ms(median(i['total']))}**" + (
            f" ({'meets' if median(i['total']) <= ti else 'MISSES'} <= {ti * 1000:.0f} ms)" if ti else "")
        lines.append(
            f"| {r['units']:,} | {new} | {spread(r['walls'], 1000)} ms | {max(r['peaks']):.0f} MB | {inp} | "
            f"{ms(median(i['embed']))} / {ms(median(i['fts']))} / {ms(median(i['knn']))} / {ms(median(i['rest']))} "
            f"| {r['bytes'] / r['units']:,.0f} |"
        )
    lines += [
        "",
        f"New process: the whole `hookgraph ask QUERY --json{' --files' if args.files else ''}` (Python start-up, "
        "imports, model load, query embedding, search, the freshness check against HEAD, JSON output). In-process: "
        f"`hookgraph.search.{'search_files' if args.files else 'search'}(store, query, embedder=...)` with the "
        "store open and the model loaded. "
        "The split is measured inside the same calls (step medians do not add up to the total median exactly).",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
