"""First full index of a real project, against the bare model on the same texts in the same run.

    python benchmarks/index_bench.py [--runs 5] [--threads 1] [--no-write]

The project is werkzeug 3.0.4 (PyPI sdist, pinned by SHA-256 like eval/'s
projects, fetched into eval/'s cache and committed there by eval/'s own code):
about 2,900 units in 190 indexed files (library, tests, docs). Each run has
two fresh child processes, in alternating order:

* **hookgraph**: ``sync(..., full=True)`` with the shipped model, exactly
  what ``hookgraph index --full`` runs, every step timed (parse, blob reads,
  text composition and hashing, tokenising and windowing, the model, SQLite
  writes, the commit);
* **bare model**: llama-cpp-python alone (``Llama(...).embed(text,
  normalize=True)``, same GGUF, same context, flash attention, same thread
  count) over the exact strings hookgraph sent to the model in the first run
  (prefix and windows included).

The ratio bare seconds / hookgraph seconds, per run, is the share of the
physical limit hookgraph reaches (target >= 0.85). Both use a fixed thread
count (``--threads``, passed to hookgraph as ``HOOKGRAPH_THREADS``): the
adaptive count would make the two sides differ when a neighbour's load comes
and goes. Also reported: units/s, the peak memory of each child, and the
database's bytes per unit. Writes the "First full index" section of RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    PYTHON, REPO, precompile, git, load, machine, machine_line, measured, median, spread, write_section,
)

sys.path.insert(0, str(REPO))

PROJECT = {
    "name": "werkzeug",
    "language": "python",
    "registry": "pypi",
    "package": "werkzeug",
    "version": "3.0.4",
    "archive": "werkzeug-3.0.4.tar.gz",
    "sha256": "34f2371506b250df4d4f84bfe7b0921e4762525762bbd936614909fe25cd7306",
    "root": "werkzeug-3.0.4",
    "drop": [],
}

#: Steps of the profile, in report order.
STEPS = ("model", "model load", "tokenize/windows", "parse", "blob read", "compose+hash", "sqlite", "commit",
         "other")


# -- child: hookgraph ------------------------------------------------------------------------


class Timers:
    """Exclusive step timers: time in a nested timed call counts for the inner step only."""

    def __init__(self) -> None:
        self.total: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self._stack: list[list] = []

    def wrap(self, name: str, func):  # type: ignore[no-untyped-def]
        timers = self

        def wrapper(*args, **kwargs):  # type: ignore[no-untyped-def]
            frame = [name, time.perf_counter(), 0.0]
            timers._stack.append(frame)
            try:
                return func(*args, **kwargs)
            finally:
                timers._stack.pop()
                spent = time.perf_counter() - frame[1]
                timers.total[name] = timers.total.get(name, 0.0) + spent - frame[2]
                timers.calls[name] = timers.calls.get(name, 0) + 1
                if timers._stack:
                    timers._stack[-1][2] += spent
        return wrapper


def child_index(repo: Path, out: Path, texts_out: Path | None) -> None:
    import resource

    started = time.perf_counter()
    from hookgraph.parse import compose
    from hookgraph import git as hgit, parse, store as store_mod, sync as sync_mod
    from hookgraph.embed import Embedder

    imported = time.perf_counter()
    t = Timers()
    parse.parse_file = t.wrap("parse", parse.parse_file)
    hgit.BlobReader.read = t.wrap("blob read", hgit.BlobReader.read)
    for name in ("embed_text", "text_hash", "fts_columns"):
        setattr(compose, name, t.wrap("compose+hash", getattr(compose, name)))
    S = store_mod.Store
    for name in ("insert_units", "insert_windows", "insert_vectors", "vector_info", "revive_vector",
                 "upsert_file", "delete_units_of", "insert_edges", "collect_orphan_vectors", "clear_all",
                 "file_map", "set_meta"):
        if hasattr(S, name):
            setattr(S, name, t.wrap("sqlite", getattr(S, name)))
    original_transaction = S.transaction

    class _TimedCommit:
        def __init__(self, db):  # type: ignore[no-untyped-def]
            self.db = db

        def __enter__(self):  # type: ignore[no-untyped-def]
            return self.db.__enter__()

        def __exit__(self, *exc):  # type: ignore[no-untyped-def]
            return t.wrap("commit", self.db.__exit__)(*exc)

    S.transaction = lambda self: _TimedCommit(original_transaction(self))  # type: ignore[method-assign]

    embedder = Embedder()
    embedder.embedded_log = []
    real_model = embedder._model

    def model():  # type: ignore[no-untyped-def]
        if embedder._llama is None:
            return t.wrap("model load", real_model)()
        return real_model()

    embedder._model = model  # type: ignore[method-assign]
    embedder._compute = t.wrap("model", embedder._compute)  # type: ignore[method-assign]
    embedder.windows = t.wrap("tokenize/windows", embedder.windows)  # type: ignore[method-assign]

    target = sync_mod.read_target(repo, "head")
    sync_started = time.perf_counter()
    report = sync_mod.sync(repo, target, full=True, embedder=embedder)
    sync_seconds = time.perf_counter() - sync_started
    steps = dict(t.total)
    steps["other"] = sync_seconds - sum(steps.values())
    if texts_out is not None:
        texts_out.write_text(json.dumps(embedder.embedded_log))
    out.write_text(json.dumps({
        "sync_seconds": sync_seconds,
        "import_seconds": imported - started,
        "process_seconds": time.perf_counter() - started,
        "units": report.units_written,
        "texts": len(embedder.embedded_log),
        "distinct_texts": report.texts_embedded,
        "threads": embedder.n_threads,
        "steps": steps,
        "calls": t.calls,
        "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }))


# -- child: the bare model ---------------------------------------------------------------------


def child_bare(texts_path: Path, out: Path, threads: int) -> None:
    started = time.perf_counter()
    import llama_cpp

    from hookgraph.embed import Embedder  # only to find the shipped file and its window size

    imported = time.perf_counter()
    info = Embedder()
    path, budget = str(info.model_path), info.max_tokens
    texts = json.loads(texts_path.read_text())
    t0 = time.perf_counter()
    llm = llama_cpp.Llama(model_path=path, embedding=True, n_ctx=budget, n_batch=budget, n_ubatch=budget,
                          n_threads=threads, n_threads_batch=threads, flash_attn=True, verbose=False)
    loaded = time.perf_counter()
    for text in texts:
        llm.embed(text, normalize=True, truncate=False)
    done = time.perf_counter()
    out.write_text(json.dumps({
        "seconds": done - t0, "load_seconds": loaded - t0, "embed_seconds": done - loaded,
        "import_seconds": imported - started, "texts": len(texts),
    }))


# -- parent -------------------------------------------------------------------------------------


def prepare(work: Path) -> Path:
    from eval.run import prepare_repo

    source = prepare_repo(PROJECT)  # pinned archive, checked, committed with a fixed identity and date
    repo = work / "werkzeug"
    git(work, "clone", "-q", str(source), str(repo))
    return repo


def fresh(repo: Path) -> None:
    shutil.rmtree(repo / ".hookgraph", ignore_errors=True)


def db_stats(repo: Path) -> dict:
    import apsw

    path = repo / ".hookgraph" / "index.db"
    db = apsw.Connection(str(path))
    try:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        units = db.execute("SELECT count(*) FROM units").fetchall()[0][0]
        vectors = db.execute("SELECT count(*) FROM vectors").fetchall()[0][0]
    finally:
        db.close()
    return {"bytes": path.stat().st_size, "units": units, "windows": vectors}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--threads", type=int, default=int(os.environ.get("HOOKGRAPH_THREADS") or 1))
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--keep", type=Path)
    parser.add_argument("--child-index", nargs=3, metavar=("REPO", "OUT", "TEXTS"), help=argparse.SUPPRESS)
    parser.add_argument("--child-bare", nargs=2, metavar=("TEXTS", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_index:
        repo, out, texts = args.child_index
        child_index(Path(repo), Path(out), Path(texts) if texts != "-" else None)
        return
    if args.child_bare:
        child_bare(Path(args.child_bare[0]), Path(args.child_bare[1]), args.threads)
        return

    precompile()
    load_before = load()
    work = args.keep or Path(tempfile.mkdtemp(prefix="hookgraph-index-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    if (work / "werkzeug").exists():
        shutil.rmtree(work / "werkzeug")
    repo = prepare(work)
    texts = work / "texts.json"
    texts.unlink(missing_ok=True)
    threads = {"HOOKGRAPH_THREADS": str(args.threads)}
    me = str(Path(__file__).resolve())
    runs: list[dict] = []
    stats: dict = {}

    def run_hookgraph(first: bool) -> dict:
        fresh(repo)
        out = work / "hg.json"
        m = measured([PYTHON, me, "--child-index", str(repo), str(out), str(texts) if first else "-"], work, **threads)
        data = json.loads(out.read_text())
        data["peak_mb"] = m.peak_mb
        data["wall"] = m.wall
        return data

    def run_bare() -> dict:
        out = work / "bare.json"
        m = measured([PYTHON, me, "--child-bare", str(texts), str(out), "--threads", str(args.threads)], work)
        data = json.loads(out.read_text())
        data["peak_mb"] = m.peak_mb
        data["wall"] = m.wall
        return data

    for i in range(args.runs):
        if i == 0:
            hg = run_hookgraph(True)
            stats = db_stats(repo)
            bare = run_bare()
        elif i % 2:
            bare = run_bare()
            hg = run_hookgraph(False)
        else:
            hg = run_hookgraph(False)
            bare = run_bare()
        ratio = bare["seconds"] / hg["sync_seconds"]
        runs.append({"hg": hg, "bare": bare, "ratio": ratio, "load": load()})
        print(f"run {i + 1}: hookgraph {hg['sync_seconds']:.1f}s ({hg['units'] / hg['sync_seconds']:.1f} units/s, "
              f"{hg['texts']} texts), bare {bare['seconds']:.1f}s, ratio {ratio:.3f}, load {load()}", flush=True)
    section = render(runs, stats, args, machine_line(machine(), load_before))
    print(section)
    if not args.no_write:
        write_section("First full index", section)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


def render(runs: list[dict], stats: dict, args: argparse.Namespace, machine_text: str) -> str:
    hg = [r["hg"] for r in runs]
    bare = [r["bare"] for r in runs]
    ratios = [r["ratio"] for r in runs]
    units = hg[0]["units"]
    texts = hg[0]["texts"]
    sync_s = [h["sync_seconds"] for h in hg]
    bare_s = [b["seconds"] for b in bare]
    ok = median(ratios) >= 0.85
    lines = [
        "## First full index",
        "",
        f"Command: `python benchmarks/index_bench.py --runs {args.runs} --threads {args.threads}` "
        f"({time.strftime('%Y-%m-%d')}); median of {args.runs} runs, hookgraph and the bare model in alternating "
        f"order, each a fresh process; {args.threads} llama.cpp thread(s) on both sides "
        f"(`HOOKGRAPH_THREADS={args.threads}`: fixed so the two sides compare; by default hookgraph adapts the "
        "count to the machine's load).",
        machine_text,
        "",
        f"Project: werkzeug {PROJECT['version']} (PyPI sdist, sha256 `{PROJECT['sha256'][:16]}…`, whole package: "
        f"library, tests, docs), {units:,} units, {texts:,} texts sent to the model "
        f"({hg[0]['distinct_texts']:,} distinct unit texts; long ones as several windows).",
        "",
        "| measure | median | runs |",
        "|---|---:|---|",
        f"| hookgraph first index (`sync --full`, model load included) | **{median(sync_s):.1f} s** "
        f"= {units / median(sync_s):.1f} units/s, {texts / median(sync_s):.1f} texts/s | {spread(sync_s, 1, '{:.1f}')} s |",
        f"| bare model, same texts, same process setup (load included) | {median(bare_s):.1f} s "
        f"= {texts / median(bare_s):.1f} texts/s | {spread(bare_s, 1, '{:.1f}')} s |",
        f"| **ratio bare / hookgraph** (target >= 0.85) | **{median(ratios):.3f}** ({'meets' if ok else 'MISSES'}) "
        f"| {spread(ratios, 1, '{:.3f}')} |",
        f"| whole `index` process (imports, start-up) | {median([h['process_seconds'] for h in hg]):.1f} s | |",
        f"| peak memory: hookgraph / bare model | {median([h['peak_mb'] for h in hg]):.0f} MB / "
        f"{median([b['peak_mb'] for b in bare]):.0f} MB | |",
        f"| database | {stats['bytes'] / 1e6:.1f} MB = **{stats['bytes'] / stats['units']:,.0f} bytes/unit** "
        f"({stats['windows']:,} vectors) | |",
        "",
        "Where hookgraph's time goes (median seconds per step, exclusive; share of the sync):",
        "",
        "| step | seconds | share |",
        "|---|---:|---:|",
    ]
    for step in STEPS:
        vals = [h["steps"].get(step, 0.0) for h in hg]
        lines.append(f"| {step} | {median(vals):.2f} | {median(vals) / median(sync_s) * 100:.1f}% |")
    lines += [
        "",
        "model = llama.cpp `embed` calls (and normalisation); tokenize/windows = counting tokens to keep every "
        "text within the window and to split long units (the bare model does not do this); parse = tree-sitter "
        "and unit extraction; blob read = `git cat-file --batch`; compose+hash = the embedded text, its SHA-256 "
        "key and the FTS columns; sqlite = every store call (units, FTS, edges, vectors, files); commit = the "
        "one transaction's commit; other = the rest of sync (filters, bookkeeping).",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
