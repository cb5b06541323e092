"""How sure a ranking is: a calibrated confidence per answer, and a strong/weak verdict.

(placeholder: calibrated in a later commit)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Evidence", "features", "score_results", "score_files", "verdict", "MATCH_THRESHOLD"]

#: The verdict is "strong" when the best answer's confidence reaches this.
MATCH_THRESHOLD = 0.0


@dataclass
class Evidence:
    """What the query showed as a whole: its kind, its words and how many the index knows, the best meaning match."""

    intent: str
    words: list[str] = field(default_factory=list)
    known_words: list[str] = field(default_factory=list)
    best_similarity: float | None = None
    exact: bool = False
    graph_answered: bool = False


def features(rank: int, score: float, top_score: float, exact: bool, graph: bool, e: Evidence) -> dict[str, float]:
    """The numbers a confidence is computed from (also what eval/calibrate.py fits)."""
    n = len(e.words)
    return {
        "share_of_top": score / top_score if top_score > 0 else 0.0,
        "first": 1.0 if rank == 1 else 0.0,
        "log_rank": math.log(rank),
        "exact": 1.0 if exact else 0.0,
        "graph": 1.0 if graph else 0.0,
        "known_share": len(e.known_words) / n if n else 1.0,
        "similarity": e.best_similarity if e.best_similarity is not None else 0.0,
        "no_vectors": 1.0 if e.best_similarity is None else 0.0,
        "identifier": 1.0 if e.intent == "identifier" else 0.0,
    }


#: Logistic weights over :func:`features` (intercept under "bias").
WEIGHTS: dict[str, float] = {"bias": 0.0}


def _logistic(values: dict[str, float]) -> float:
    z = WEIGHTS.get("bias", 0.0) + sum(WEIGHTS.get(k, 0.0) * v for k, v in values.items())
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def score_results(ranked: list[Any], evidence: Evidence) -> None:
    """Set ``confidence`` on every ranked result, in place."""
    top_score = ranked[0].score if ranked else 0.0
    for i, r in enumerate(ranked, 1):
        r.features = features(i, r.score, top_score, r.exact, r.graph == 1.0, evidence)
        r.confidence = _logistic(r.features)


def score_files(files: list[Any], results: list[Any]) -> None:
    """Set ``confidence`` on ranked files, in place (placeholder)."""
    for f in files:
        f.confidence = max((u.confidence for u in f.units), default=0.0)


def verdict(results: list[Any]) -> str:
    """``"strong"`` when any answer's confidence reaches ``MATCH_THRESHOLD``, else ``"weak"``."""
    return "strong" if any(r.confidence >= MATCH_THRESHOLD for r in results) and results else "weak"
