"""Typed search on the field's benchmark repositories: every result has the asked kind, and the top 10 is full.

    python -m eval.kinds [--only fastapi,sinatra] [--kinds class,function,method,section,file,test,doc]

For each repository of ``../shared/filebench`` whose index eval/filebench.py built (the ``-pending.db`` in
the eval cache), a copy is completed with vectors from the eval's vector cache (``CachingEmbedder``: texts
seen before cost no model time), then every question is asked once per kind with ``kinds=``, and once
without a filter, its top 100 filtered afterwards (what a filter after the cut gives). Reported per kind:

* ``wrong``: results whose unit is not of the asked kind (must be 0);
* ``full``: questions answered with 10 results, among those where the index has at least 10 units of that
  kind with a vector (the acceptance: 10 whenever the index has 10 of that kind within reach);
* ``after the cut``: the same share for the unfiltered top 100 filtered afterwards.

Results go to stdout as a Markdown table (eval/RESULTS.md, "Typed search").
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

BENCH = HERE.parent.parent / "shared" / "filebench"
#: A repository is left out when more of its texts than this are missing from the vector cache (the model
#: would take minutes on two cores).
MAX_NEW_TEXTS = 300


def main() -> None:
    from eval.run import CachingEmbedder, cache_dir
    from hookgraph.embed import Embedder
    from hookgraph.embed.queue import drain
    from hookgraph.search import search
    from hookgraph.search.kinds import read_kinds
    from hookgraph.store import Store

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", type=Path, default=BENCH)
    ap.add_argument("--kinds", default="class,function,method,section,file,test,doc")
    ap.add_argument("--only", default="", help="these repositories only (comma-separated)")
    ap.add_argument("--max-new", type=int, default=MAX_NEW_TEXTS,
                    help="leave out a repository with more texts than this missing from the vector cache")
    args = ap.parse_args()
    embedder = CachingEmbedder(Embedder(), cache_dir() / "vectors.sqlite")
    kinds = args.kinds.split(",")
    totals = {k: {"asked": 0, "results": 0, "wrong": 0, "reach": 0, "full": 0, "cut_full": 0} for k in kinds}
    repos = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for annotations in sorted((args.bench / "annotations").glob("*.json")):
            name = annotations.stem
            if args.only and name not in args.only.split(","):
                continue
            built = sorted((cache_dir() / "filebench").glob(f"{name}-*-pending.db"))
            if not built:
                continue
            db = Path(tmp) / f"{name}.db"
            shutil.copy(built[-1], db)
            before = embedder.embedded
            drained = drain(db, embedder)
            if embedder.embedded - before > args.max_new:
                print(f"{name}: {embedder.embedded - before} texts not in the vector cache; left out", file=sys.stderr)
                continue
            repos.append(name)
            questions = json.loads(annotations.read_text())
            with Store(db, readonly=True) as store:
                embedded = store.units_where("vector_id IS NOT NULL")
                reachable = {k: sum(read_kinds(k).admits(u) for u in embedded) for k in kinds}
                for q in questions:
                    query = q["query"]
                    unfiltered = search(store, query, top=100, embedder=embedder)
                    for kind in kinds:
                        wanted = read_kinds(kind)
                        results = search(store, query, top=10, embedder=embedder, kinds=wanted)
                        t = totals[kind]
                        t["asked"] += 1
                        t["results"] += len(results)
                        t["wrong"] += sum(not wanted.admits(r.unit) for r in results)
                        if reachable[kind] >= 10:
                            t["reach"] += 1
                            t["full"] += len(results) == 10
                            t["cut_full"] += sum(wanted.admits(r.unit) for r in unfiltered) >= 10
            print(f"{name}: {len(questions)} questions ({drained.embedded} texts drained)", file=sys.stderr)
    print(f"Repositories: {', '.join(repos)} ({time.perf_counter() - started:.0f} s)\n")
    print("| kind | questions | results | wrong kind | top 10 full (index has >= 10 with vectors) | "
          "filtered after the cut of 100 |")
    print("|---|---:|---:|---:|---:|---:|")
    for kind, t in totals.items():
        reach = t["reach"] or 1
        print(f"| `{kind}` | {t['asked']} | {t['results']} | {t['wrong']} | {t['full']} / {t['reach']} "
              f"({t['full'] / reach:.3f}) | {t['cut_full']} / {t['reach']} ({t['cut_full'] / reach:.3f}) |")


if __name__ == "__main__":
    main()
