"""Precision and recall of resolved call edges on a hand-checked sample (issue 30, item 4).

An agent reads ``callers``/``callees`` as facts, so the measure is: of the call
edges the graph states as definite (``resolve_call``), how many are true when
a reader checks the code. The sample was drawn once, from the code *before*
the receiver rule (every same-named method was an edge then), at random with a
fixed seed, per language, and each edge was labelled by reading the call site:
true when the call can run that definition given the receiver's type as the
code declares or builds it (an override in a subclass of that type counts).

Because the new rule only narrows what the old one stated, a random sample of
the old edges restricted to those still stated is a random sample of the new
ones: ``score`` re-resolves every labelled edge with the code on the path and
reports precision (true among still stated) and recall (true edges still stated).

    # draw a sample for labelling (prints JSON rows with the call line, label null)
    python eval/edge_precision.py sample gin go --n 40 --seed 30
    # score the stored labels with the current code
    python eval/edge_precision.py score
    # a second sample, drawn from the code *after* the rule (seed 31, 10 per language): out-of-sample precision
    python eval/edge_precision.py score --labels eval/edge_labels_after.json

The repositories are the benchmark's prepared copies under ``/work/bench/repos``
(``--repos``); each is copied to ``--workdir`` and indexed there without
vectors (the graph needs none), never inside the prepared copy.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

LABELS = Path(__file__).with_name("edge_labels.json")
DEFAULT_REPOS = Path("/work/bench/repos")
DEFAULT_WORKDIR = Path("/tmp/hookgraph-edge-precision")


def indexed_copy(name: str, repos: Path, workdir: Path) -> Path:
    """A copy of the prepared repository with a fresh index made by the code on the path (no vectors)."""
    source, copy = repos / name, workdir / name
    if not (copy / ".hookgraph" / "index.db").exists():
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(source, copy, symlinks=True, ignore=shutil.ignore_patterns(".hookgraph"))
        env = {**os.environ, "HOOKGRAPH_NO_BACKGROUND": "1"}
        subprocess.run([sys.executable, "-m", "hookgraph.cli", "index", "--no-wait"], cwd=copy, env=env,
                       check=True, stdout=subprocess.DEVNULL)
    return copy


def _line(copy: Path, path: str, line: int) -> str:
    try:
        return (copy / path).read_text(errors="replace").splitlines()[line - 1].strip()
    except (OSError, IndexError):
        return ""


def sample(name: str, language: str, n: int, seed: int, repos: Path, workdir: Path) -> list[dict[str, Any]]:
    """``n`` resolved call edges of ``language`` units, drawn with ``seed``."""
    from hookgraph.search.graph import resolve_call
    from hookgraph.store import Store, db_path

    copy = indexed_copy(name, repos, workdir)
    pairs = []
    with Store(db_path(copy), readonly=True) as store:
        units = {u.id: u for u in store.units_where("language = ? AND kind NOT IN ('file', 'section')", (language,))}
        cache: dict[str, Any] = {}
        for source, _kind, target, full, line in sorted(store.edges_from(list(units), "calls")):
            origin = units[source]
            found = resolve_call(store, target, full, origin, cache)
            for unit in found:
                pairs.append((origin, line, full, unit, len(found)))
    pairs.sort(key=lambda p: (p[0].path, p[0].qualname, p[1], p[2], p[3].path, p[3].qualname, p[3].start_line))
    chosen = random.Random(seed).sample(pairs, min(n, len(pairs)))
    return [{
        "repo": name, "language": language,
        "caller": origin.qualname, "call_path": origin.path, "call_line": line, "expression": full,
        "code": _line(copy, origin.path, line),
        "target": unit.qualname, "target_path": unit.path, "target_line": unit.start_line,
        "candidates": count, "label": None,
    } for origin, line, full, unit, count in chosen]


def stated(store: Any, row: dict[str, Any], cache: dict[str, Any]) -> bool | None:
    """Whether the code on the path still states this edge (None: the call site is gone)."""
    from hookgraph.search.graph import resolve_call

    origins = [u for u in store.units_where("path = ? AND qualname = ?", (row["call_path"], row["caller"]))]
    for origin in origins:
        for _source, _kind, target, full, line in store.edges_from([origin.id], "calls"):
            if line == row["call_line"] and full == row["expression"]:
                return any(u.path == row["target_path"] and u.qualname == row["target"]
                           and u.start_line == row["target_line"]
                           for u in resolve_call(store, target, full, origin, cache))
    return None


def score(rows: list[dict[str, Any]], repos: Path, workdir: Path) -> dict[str, dict[str, Any]]:
    from hookgraph.store import Store, db_path

    by_language: dict[str, dict[str, Any]] = {}
    for name in sorted({r["repo"] for r in rows}):
        copy = indexed_copy(name, repos, workdir)
        cache: dict[str, Any] = {}
        with Store(db_path(copy), readonly=True) as store:
            for row in (r for r in rows if r["repo"] == name):
                kept = stated(store, row, cache)
                tally = by_language.setdefault(row["language"], {"repo": name, "labelled": 0, "true": 0,
                                                                 "stated": 0, "stated_true": 0, "missing": 0})
                tally["labelled"] += 1
                tally["true"] += bool(row["label"])
                if kept is None:
                    tally["missing"] += 1
                elif kept:
                    tally["stated"] += 1
                    tally["stated_true"] += bool(row["label"])
    for tally in by_language.values():
        tally["precision_before"] = round(tally["true"] / tally["labelled"], 3) if tally["labelled"] else None
        tally["precision"] = round(tally["stated_true"] / tally["stated"], 3) if tally["stated"] else None
        tally["recall"] = round(tally["stated_true"] / tally["true"], 3) if tally["true"] else None
    return by_language


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--repos", type=Path, default=DEFAULT_REPOS)
    parser.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR)
    sub = parser.add_subparsers(dest="command", required=True)
    draw = sub.add_parser("sample")
    draw.add_argument("name")
    draw.add_argument("language")
    draw.add_argument("--n", type=int, default=40)
    draw.add_argument("--seed", type=int, default=30)
    scoring = sub.add_parser("score")
    scoring.add_argument("--labels", type=Path, default=LABELS,
                         help="edge_labels.json (drawn before the rule) or edge_labels_after.json (drawn after it)")
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    if args.command == "sample":
        print(json.dumps(sample(args.name, args.language, args.n, args.seed, args.repos, args.workdir), indent=1))
        return
    rows = json.loads(args.labels.read_text())
    result = score(rows, args.repos, args.workdir)
    total = {k: sum(t[k] for t in result.values()) for k in ("labelled", "true", "stated", "stated_true", "missing")}
    print(json.dumps({"languages": result, "all": {
        **total,
        "precision_before": round(total["true"] / total["labelled"], 3),
        "precision": round(total["stated_true"] / max(total["stated"], 1), 3),
        "recall": round(total["stated_true"] / max(total["true"], 1), 3),
    }}, indent=1))


if __name__ == "__main__":
    main()
