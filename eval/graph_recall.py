"""The eval's callers/callees questions alone, on indexes without vectors (the graph needs none).

``eval/run.py`` answers these questions too, but first embeds all 24 projects
(tens of minutes on two cores). A change to call resolution only needs the
graph: this script fetches each project exactly as run.py does (the same
pinned, checked archives, the same cache), indexes a copy of it with the code
on the path and no vectors, and scores ``callers``/``callees`` R@5 per project
with run.py's own scoring. Run it with two checkouts on PYTHONPATH to compare::

    PYTHONPATH=/path/to/old python eval/graph_recall.py > old.json
    PYTHONPATH=$PWD python eval/graph_recall.py > new.json

marisa-trie's pinned sdist makes pip build Cython to read its metadata (minutes on two cores): ``--skip``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # after PYTHONPATH: the code compared

from eval import run  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--project", action="append", help="only this project (repeatable)")
    parser.add_argument("--skip", action="append", default=[], help="not this project (repeatable)")
    args = parser.parse_args()
    specs = [s for s in json.loads((Path(__file__).with_name("projects.json")).read_text())["projects"]
             if (not args.project or s["name"] in args.project) and s["name"] not in args.skip]
    out: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="hookgraph-graph-recall-") as tmp:
        for spec in specs:
            questions = [q for q in run.load_questions(spec["name"], spec.get("held_out", False))
                         if q.kind in run.GRAPH_KINDS]
            if not questions:
                continue
            source = run.prepare_repo(spec)
            copy = Path(tmp) / spec["name"]
            shutil.copytree(source, copy, symlinks=True, ignore=shutil.ignore_patterns(".hookgraph"))
            env = {**os.environ, "HOOKGRAPH_NO_BACKGROUND": "1"}
            subprocess.run([sys.executable, "-m", "hookgraph.cli", "index", "--no-wait"], cwd=copy, env=env,
                           check=True, stdout=subprocess.DEVNULL)
            from hookgraph.store import Store, db_path

            with Store(db_path(copy), readonly=True) as store:
                scored = [run.score(q, "graph", run.rank_graph(store, q)) for q in questions]
            out[spec["name"]] = {
                "questions": len(scored),
                "R@5": round(sum(s.recall[5] for s in scored) / len(scored), 3),
                "misses": [s.question.id for s in scored if s.recall[5] < 1.0],  # type: ignore[dict-item]
            }
            print(spec["name"], out[spec["name"]], file=sys.stderr)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
