"""Fit the confidence model's weights (``hookgraph.search.confidence.WEIGHTS``) on eval/'s tuned projects.

``python -m eval.fit_confidence`` ranks every question of the tuned projects
(never the held-out ones) with the shipped ranking, takes the features the
best answer's confidence was computed from, and fits a logistic model:
absent questions (label 0) against every answerable one (label 1), the two
classes weighted equally, by Newton's method with a small L2 penalty (no
other dependency than numpy). It prints the weights to paste into
``confidence.py`` and, to show they carry over, the verdicts when each
project is left out of the fit in turn.

Questions a rule answers (an exact code name, a graph question answered
from the call graph) are left out: their confidence is not the model's.
``--without FEATURE`` fits without one feature (an ablation). ``--filebench BENCH`` adds the tuning
half of the field's file-level benchmark (``../shared/filebench``, laid out by its ``prepare.py``): its
questions are all answerable, asked as ``ask --files`` asks them, on the indexes ``eval.filebench`` built
(every vector in); each of its repositories is one more project to leave out. ``--threshold`` prints the
verdicts at another threshold too (per project, each left out).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from eval.run import EVAL_DIR, CachingEmbedder, cache_dir, index_project, load_questions

#: L2 penalty per question (the features are of order 1; this only keeps the fit finite when a class separates).
L2 = 1e-3


def collect(projects: list[str] | None = None) -> list[tuple[str, dict[str, float], int, str]]:
    """``(project, features, label, question)`` for every tuned question whose confidence the model gives."""
    from hookgraph.embed import Embedder
    from hookgraph.search import search
    from hookgraph.store import Store

    specs = [s for s in json.loads((EVAL_DIR / "projects.json").read_text())["projects"]
             if not s.get("held_out") and (not projects or s["name"] in projects)]
    embedder = CachingEmbedder(Embedder(), cache_dir() / "embeddings.sqlite")
    rows = []
    for spec in specs:
        with Store(index_project(spec, embedder)) as store:
            for q in load_questions(spec["name"]):
                ranked = search(store, q.q, top=10, embedder=embedder)  # type: ignore[arg-type]
                if ranked and not {"exact", "graph"} & set(ranked[0].features):
                    rows.append((spec["name"], ranked[0].features, 0 if q.kind == "absent" else 1, q.q))
    embedder.commit()
    return rows


def collect_filebench(bench: str) -> list[tuple[str, dict[str, float], int, str]]:
    """``("fb:REPO", features, 1, question)`` for every filebench question whose confidence the model gives."""
    from eval import filebench
    from hookgraph.embed import Embedder
    from hookgraph.search.ranking import rank
    from hookgraph.store import Store

    filebench.apply_sets(["search.ON_THE_SPOT_SECONDS=60"])
    embedder = filebench.CachingEmbedder(Embedder(), cache_dir() / "vectors.sqlite")
    manifest = json.loads((filebench.SHARED / "repos.json").read_text())
    rows = []
    for entry in manifest:
        name = entry["name"]
        repo = filebench.Path(bench) / "repos" / name
        if not repo.is_dir():
            continue
        paths = filebench.build_indexes(name, repo, embedder)
        with Store(paths["complete"]) as store:
            for q in json.loads((filebench.SHARED / "annotations" / f"{name}.json").read_text()):
                ranked = rank(store, q["query"], depth=200, embedder=embedder, for_files=True)  # type: ignore[arg-type]
                if ranked and not {"exact", "graph"} & set(ranked[0].features):
                    rows.append((f"fb:{name}", ranked[0].features, 1, q["query"]))
    embedder.commit()
    return rows


def fit(x: Any, y: Any) -> Any:
    """Logistic weights (intercept first), classes balanced, by Newton's method."""
    import numpy as np

    x = np.c_[np.ones(len(x)), x]
    w = np.where(y == 1, 0.5 / y.mean(), 0.5 / (1 - y.mean()))
    w = w / w.mean()
    penalty = L2 * len(x) * np.diag(np.r_[0.0, np.ones(x.shape[1] - 1)])
    b = np.zeros(x.shape[1])
    for _ in range(100):
        p = 1 / (1 + np.exp(-np.clip(x @ b, -30, 30)))
        step = np.linalg.solve((x * (w * p * (1 - p))[:, None]).T @ x + penalty, x.T @ ((p - y) * w) + penalty @ b)
        b -= step
        if np.abs(step).max() < 1e-9:
            break
    return b


def predict(b: Any, x: Any) -> Any:
    import numpy as np

    return 1 / (1 + np.exp(-np.clip(np.c_[np.ones(len(x)), x] @ b, -30, 30)))


def main(argv: list[str] | None = None) -> int:
    import numpy as np

    from hookgraph.search.confidence import MATCH_THRESHOLD

    parser = argparse.ArgumentParser(prog="python -m eval.fit_confidence", description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", action="append", help="only this tuned project (repeatable)")
    parser.add_argument("--without", action="append", default=[], help="leave this feature out (repeatable)")
    parser.add_argument("--filebench", metavar="BENCH", help="add filebench's tuning questions (see above)")
    parser.add_argument("--threshold", type=float, action="append", default=[], help="also report at this threshold")
    parser.add_argument("--rows", metavar="FILE", help="read the collected questions from FILE if it exists, "
                        "else collect them and write them there (to try fits without ranking again)")
    args = parser.parse_args(argv)

    if args.rows and Path(args.rows).exists():
        rows = [tuple(r) for r in json.loads(Path(args.rows).read_text())]
    else:
        rows = collect(args.project) + (collect_filebench(args.filebench) if args.filebench else [])
        if args.rows:
            Path(args.rows).write_text(json.dumps(rows))
    names = [k for k in rows[0][1] if k not in args.without]
    x = np.array([[f[k] for k in names] for _, f, _, _ in rows])
    y = np.array([label for _, _, label, _ in rows], dtype=float)
    where = np.array([p for p, _, _, _ in rows])
    left_out = np.zeros(len(rows))
    for project in sorted(set(where)):
        rest = where != project
        left_out[~rest] = predict(fit(x[rest], y[rest]), x[~rest])
    b = fit(x, y)
    fitted = predict(b, x)
    print(f"{int((y == 0).sum())} absent, {int((y == 1).sum())} answerable questions on {len(set(where))} tuned projects")
    for label, p in (("in sample", fitted), ("each project left out", left_out)):
        print(f"{label}: at threshold {MATCH_THRESHOLD}: absent flagged weak {(p[y == 0] < MATCH_THRESHOLD).mean():.3f}, "
              f"answerable flagged weak {(p[y == 1] < MATCH_THRESHOLD).mean():.3f}")
    for threshold in (MATCH_THRESHOLD, *args.threshold):
        flagged = {p: (left_out[where == p] < threshold)[y[where == p] == 1] for p in sorted(set(where))}
        rates = sorted(((v.mean(), p) for p, v in flagged.items() if len(v)), reverse=True)
        worst = rates[:6]
        print(f"each project left out, threshold {threshold}: absent flagged weak "
              f"{(left_out[y == 0] < threshold).mean():.3f}; answerable flagged weak, worst projects: "
              + ", ".join(f"{p} {m:.3f} ({int(flagged[p].sum())}/{len(flagged[p])})" for m, p in worst)
              + f"; projects over 3%: {sum(1 for m, _ in rates if m > 0.03)} of {len(rates)}")
    weights = {"bias": round(float(b[0]), 2)} | {k: round(float(v), 2) for k, v in zip(names, b[1:])}
    print("WEIGHTS =", json.dumps(weights))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
