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
``--without FEATURE`` fits without one feature (an ablation).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from eval.run import EVAL_DIR, CachingEmbedder, cache_dir, index_project, load_questions

#: L2 penalty per question (the features are of order 1; this only keeps the fit finite when a class separates).
L2 = 1e-3


def collect(projects: list[str] | None = None) -> list[tuple[str, dict[str, float], int]]:
    """``(project, features, label)`` for every tuned question whose confidence the model gives."""
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
                    rows.append((spec["name"], ranked[0].features, 0 if q.kind == "absent" else 1))
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
    args = parser.parse_args(argv)

    rows = collect(args.project)
    names = [k for k in rows[0][1] if k not in args.without]
    x = np.array([[f[k] for k in names] for _, f, _ in rows])
    y = np.array([label for _, _, label in rows], dtype=float)
    where = np.array([p for p, _, _ in rows])
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
    weights = {"bias": round(float(b[0]), 2)} | {k: round(float(v), 2) for k, v in zip(names, b[1:])}
    print("WEIGHTS =", json.dumps(weights))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
