"""The field's file-level benchmark, in process: NDCG@10 with vectors pending and complete (issue 30).

    python -m eval.filebench --bench /work/bench                 # every prepared repository, both states
    python -m eval.filebench --bench B --only tokio --misses     # one repository, the questions it misses
    python -m eval.filebench --bench B --set search.files.FILE_STEM_BOOST=0.1 --state complete

The benchmark (``../shared/filebench/``: MinishLab's questions and gold files for semble's public
benchmark) is scored by its own ``score.py`` through the CLI, one new process per question. That is
the number we report; this runner gives the same number in seconds, so a ranking idea can be tried
on all repositories between two thoughts:

1. each repository laid out by ``prepare.py`` under ``BENCH/repos/NAME`` is indexed once per
   *recipe* (eval.run's hash of what decides an index's content) with hookgraph's own ``sync``,
   giving two indexes: right after the sync (every vector pending: what ``ask`` answers in the first
   seconds) and after draining the queue (every vector in). Vectors are cached by exact input
   string (eval.run's ``CachingEmbedder``), so a new recipe embeds only texts that changed;
2. every question is asked through ``hookgraph.search.search_files`` with the shipped model as the
   query embedder, exactly as ``ask --files --top 10`` does (pending units: on-the-spot embedding
   and words standing in for meaning);
3. NDCG@10 is computed with ``score.py``'s own functions (imported, not copied): every gold file
   gain 1, suffix path matching, mean over a repository's questions, then over repositories.

``--set module.NAME=value`` overrides a ranking constant for the run (``search.CONST`` or
``search.files.CONST``), so an idea is measured before it is written as code.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import shutil
import sqlite3
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from eval.run import CachingEmbedder, cache_dir, log, parse_setting, recipe_hash, set_constant

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "filebench"
STATES = ("pending", "complete")
#: ``--recipe``: rank on the indexes built for another recipe (a ranking change measured while the
#: indexes of a parse change are still being embedded); None: the current recipe's.
RECIPE: str | None = None


def load_score_module(folder: Path) -> Any:
    """The benchmark's own score.py (its metric functions), imported from the shared folder."""
    spec = importlib.util.spec_from_file_location("filebench_score", folder / "score.py")
    if spec is None or spec.loader is None:
        raise SystemExit(f"error: no score.py in {folder}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@contextmanager
def vector_caches_off() -> Iterator[None]:
    """hookgraph's own vector caches (the user's and the repository's) off for a benchmark's sync.

    The pending index is "no model vector yet". A vector this machine's cache kept from an earlier
    ``hookgraph`` run on the same text fills its unit at sync time and lifts the pending figure: 128
    cached vectors from a README try-out on aiohttp took its pending NDCG from 0.892 to 0.911 (2026-12-07).
    """
    names = ("HOOKGRAPH_CACHE_MB", "HOOKGRAPH_REPO_CACHE_MB")
    before = {n: os.environ.get(n) for n in names}
    os.environ.update({n: "0" for n in names})
    try:
        yield
    finally:
        for n, value in before.items():
            if value is None:
                os.environ.pop(n, None)
            else:
                os.environ[n] = value


def build_indexes(name: str, repo: Path, embedder: CachingEmbedder, states: tuple[str, ...] = STATES) -> dict[str, Path]:
    """The repository's pending and complete indexes for the current recipe (built once, then reused).

    Only ``pending`` asked for: the sync runs in a copy of the repository (no model work, and no clash
    with another run draining the same repository's queue). Both syncs run with hookgraph's vector
    caches off (:func:`vector_caches_off`).
    """
    from hookgraph.embed.queue import drain
    from hookgraph.store import db_path
    from hookgraph.sync import read_target, sync

    recipe = RECIPE or recipe_hash(getattr(embedder, "recipe", None) or embedder.model_sha256)
    folder = cache_dir() / "filebench"
    folder.mkdir(parents=True, exist_ok=True)
    if recipe == "latest":  # each repository's newest complete pair, whatever its recipe
        built = sorted(folder.glob(f"{name}-*-complete.db"), key=lambda p: p.stat().st_mtime)
        recipe = built[-1].name.split("-")[-2] if built else recipe_hash(embedder.model_sha256)
    paths = {state: folder / f"{name}-{recipe}-{state}.db" for state in STATES}
    if all(paths[s].exists() for s in states):
        return paths
    started = time.perf_counter()
    if states == ("pending",):
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / name
            shutil.copytree(repo, copy, ignore=shutil.ignore_patterns(".hookgraph"))
            with vector_caches_off():
                sync(copy, read_target(copy, "head"), full=True, embedder=embedder._real, background=False)
            _copy_db(db_path(copy), paths["pending"])
        log(f"{name}: parsed in {time.perf_counter() - started:.1f}s (vectors pending)")
        return paths
    db = db_path(repo)
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    with vector_caches_off():
        report = sync(repo, read_target(repo, "head"), full=True, embedder=embedder._real, background=False)
    _copy_db(db, paths["pending"])
    parsed = time.perf_counter() - started
    if report.pending:
        drain(db, embedder._real)
    embedder.commit()
    _copy_db(db, paths["complete"])
    log(f"{name}: indexed ({parsed:.1f}s parse, {time.perf_counter() - started:.0f}s in all, "
        f"{embedder.embedded} new texts embedded)")
    return paths


def _copy_db(db: Path, dest: Path) -> None:
    with sqlite3.connect(db) as plain:  # fold the WAL in so the copy is complete
        plain.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    partial = dest.with_name(dest.name + ".partial")
    shutil.copyfile(db, partial)
    os.replace(partial, dest)


def apply_sets(settings: list[str]) -> None:
    """``module.NAME=value`` for hookgraph.<module> constants, also where the package's modules read them."""
    for item in settings:
        set_constant(*parse_setting(item))


def ask_files(store: Any, query: str, embedder: Any, top: int = 10) -> tuple[list[str], bool]:
    """The files ``ask --files --top 10`` lists, and whether it calls the answer weak."""
    from hookgraph.search import answer_match, search_files

    files = search_files(store, query, top=top, embedder=embedder)
    return [f.path for f in files], answer_match(files) == "weak"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", required=True, help="the folder prepare.py wrote (BENCH/repos/NAME)")
    ap.add_argument("--shared", default=str(SHARED), help="the benchmark folder (repos.json, annotations, score.py)")
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--state", choices=(*STATES, "both"), default="both")
    ap.add_argument("--set", action="append", default=[], dest="sets")
    ap.add_argument("--misses", action="store_true", help="print each question below NDCG 1 with its ranking")
    ap.add_argument("--dump", help="write every question's ranking and score as JSON here")
    ap.add_argument("--recipe", help="use the indexes built for this recipe hash (see the cache folder's names); "
                    "'latest': each repository's newest")
    ap.add_argument("--try", action="append", default=[], dest="tries",
                    help="a configuration to compare (comma-separated module.NAME=value); repeat to compare several")
    args = ap.parse_args(argv)
    global RECIPE
    RECIPE = args.recipe

    from hookgraph.embed import Embedder
    from hookgraph.store import Store

    shared = Path(args.shared)
    score = load_score_module(shared)
    # ``ask`` embeds up to ON_THE_SPOT waiting candidates within ON_THE_SPOT_SECONDS; on a busy machine
    # the deadline makes the pending numbers wander from run to run. The runner lets all of them finish
    # (what an idle machine does), so two configurations differ only by their ranking.
    apply_sets(["search.ON_THE_SPOT_SECONDS=60", *args.sets])
    manifest = {r["name"]: r for r in json.loads((shared / "repos.json").read_text())}
    names = [n for n in manifest if not args.only or n in args.only]
    real = Embedder()
    embedder = CachingEmbedder(real, cache_dir() / "vectors.sqlite")
    states = STATES if args.state == "both" else (args.state,)
    stores: dict[tuple[str, str], Any] = {}
    for name in names:
        repo = Path(args.bench) / "repos" / name
        if not repo.is_dir():
            log(f"{name}: not prepared under {repo}; skipped")
            continue
        indexes = build_indexes(name, repo, embedder, states)
        for state in states:
            stores[(name, state)] = Store(indexes[state])
    names = [n for n in names if (n, states[0]) in stores]
    # Asking only reads the vector cache (and adds the few on-the-spot texts): never wait long for a run
    # that is building another repository's index and holds the cache's write lock.
    embedder._db.execute("PRAGMA busy_timeout=1000")
    tasks = {n: json.loads((shared / "annotations" / f"{n}.json").read_text()) for n in names}
    published = json.loads((shared / "published.json").read_text())
    configs = [[item for item in c.split(",") if item] for c in args.tries] or [[]]
    dump: list[dict[str, Any]] = []
    for config in configs:
        saved = snapshot_constants(config)
        apply_sets(config)
        if len(configs) > 1:
            print(f"== {' '.join(config) or 'as shipped'}")
        per_repo, per_cat = run_config(names, states, stores, tasks, score, embedder, dump, args.misses)
        restore_constants(saved)
        report(per_repo, per_cat, states, manifest, published, brief=len(configs) > 1)
    if args.dump:
        Path(args.dump).write_text(json.dumps(dump, indent=1))
    return 0


def run_config(names: list[str], states: tuple[str, ...], stores: dict[tuple[str, str], Any],
               tasks: dict[str, list[dict[str, Any]]], score: Any, embedder: Any, dump: list[dict[str, Any]],
               misses: bool) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, list[float]]]]:
    """Every question of every repository asked in every state under the constants now set."""
    per_repo: dict[str, dict[str, float]] = defaultdict(dict)
    per_cat: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for name in names:
        for state in states:
            values = []
            for task in tasks[name]:
                gold = [t if isinstance(t, str) else t["path"] for t in task.get("relevant", []) + task.get("secondary", [])]
                files, weak = ask_files(stores[(name, state)], task["query"], embedder)
                per_cat[state]["weak"].append(float(weak))
                ranks = [r for g in gold if (r := score.file_rank(files, g, score.path_matches_suffix)) is not None]
                value = score.ndcg_at_k(ranks, len(gold), 10)
                values.append(value)
                per_cat[state][task.get("category") or "unknown"].append(value)
                dump.append({"repo": name, "state": state, "query": task["query"], "category": task.get("category"),
                             "gold": gold, "files": files, "ndcg": value, "weak": weak})
                if misses and state == states[-1] and value < 1.0:
                    print(f"[{name} {value:.2f}] {task['query']}\n    gold: {gold}\n    got:  {files[:10]}")
            per_repo[name][state] = statistics.mean(values) if values else 0.0
    return per_repo, per_cat


def report(per_repo: dict[str, dict[str, float]], per_cat: dict[str, dict[str, list[float]]], states: tuple[str, ...],
           manifest: dict[str, Any], published: dict[str, Any], brief: bool) -> None:
    """Per repository (unless ``brief``), the mean over repositories, and per category."""
    if not brief:
        print(f"{'repo':12s} {'lang':11s} " + " ".join(f"{s:>9s}" for s in states) + "   semble")
        for name, values in per_repo.items():
            print(f"{name:12s} {manifest[name]['language']:11s} " + " ".join(f"{values[s]:9.3f}" for s in states)
                  + f"   {published.get(name, {}).get('semble', float('nan')):.3f}")
    means = {s: statistics.mean(v[s] for v in per_repo.values()) for s in states}
    semble = statistics.mean(published[n]["semble"] for n in per_repo if n in published)
    print(f"{'MEAN':24s} " + " ".join(f"{means[s]:9.3f}" for s in states) + f"   {semble:.3f}")
    for state in states:
        cats = ", ".join(f"{c} {statistics.mean(v):.3f}" for c, v in sorted(per_cat[state].items())
                         if len(v) > 2 and c != "weak")
        cats += f"; answerable called weak {statistics.mean(per_cat[state]['weak']):.3f}"
        print(f"  {state}: {cats}")
    if brief:
        print("  " + " ".join(f"{n[:7]}={'/'.join(f'{v[s]:.2f}' for s in states)}" for n, v in per_repo.items()))


def snapshot_constants(config: list[str]) -> list[tuple[Any, str, Any]]:
    """The values ``config`` will change, in the package's face and in every module of it holding one."""
    saved = []
    for item in config:
        target = item.partition("=")[0]
        module_name, _, attr = target.rpartition(".")
        importlib.import_module(f"hookgraph.{module_name}")
        package = f"hookgraph.{module_name}"
        for name, module in list(sys.modules.items()):
            if (name == package or name.startswith(package + ".")) and hasattr(module, attr):
                saved.append((module, attr, getattr(module, attr)))
    return saved


def restore_constants(saved: list[tuple[Any, str, Any]]) -> None:
    for module, attr, value in saved:
        setattr(module, attr, value)


if __name__ == "__main__":
    sys.exit(main())
