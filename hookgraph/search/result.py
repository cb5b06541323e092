"""One ranked unit (:class:`Result`) and the query's words, shared by every ranking step.

The words BM25 looks for (:func:`query_words`, :func:`fts_query`) and the
path/language filter each step applies (:func:`_passes`).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from hookgraph.parse.words import identifier_words
from hookgraph.store import UnitRow

STOPWORDS = frozenset(
    """a an and are as at be by can do does for from get gets how i if in into is it its
    of on or so that the their them then there these this to was what when where which
    who why will with you your we our me my code function method class""".split()
)


@dataclass
class Result:
    """One ranked unit with the part each signal played."""

    unit: UnitRow
    score: float = 0.0
    lexical: float | None = None
    semantic: float | None = None
    graph: float | None = None
    exact: bool = False
    reasons: list[str] = field(default_factory=list)
    #: How likely this result is a right answer, 0..1 (see :mod:`hookgraph.search.confidence`).
    confidence: float = 0.0
    #: What ``confidence`` was computed from (:func:`hookgraph.search.confidence.features`).
    features: dict[str, float] = field(default_factory=dict)
    #: ``ask --since``: how the unit changed since that revision (:class:`hookgraph.search.since.UnitChange`).
    change: Any = None


def query_words(query: str) -> list[str]:
    """The words BM25 looks for: identifier-split, lower-case, without filler words."""
    words = [w for w in identifier_words(query) if w not in STOPWORDS and len(w) > 1]
    return list(dict.fromkeys(words))


def fts_query(words: Iterable[str]) -> str:
    """An FTS5 MATCH expression OR-ing the words (quoted: no operator injection)."""
    return " OR ".join(f'"{w}"' for w in words)


def _passes(unit: UnitRow, path_glob: str | None, language: str | None) -> bool:
    if language and unit.language != language:
        return False
    if path_glob and not (fnmatch.fnmatch(unit.path, path_glob) or unit.path.startswith(path_glob.rstrip("/") + "/")):
        return False
    return True
