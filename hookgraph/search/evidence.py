"""What the confidence model reads besides the ranking: word frequencies, coverage, similarity gap.

Small full-text lookups made after ranking (:mod:`hookgraph.search.confidence`
turns them into each result's ``confidence``).
"""

from __future__ import annotations

from hookgraph.parse.qualnames import last_part
from hookgraph.parse.words import identifier_words
from hookgraph.search import confidence as _confidence
from hookgraph.search.result import Result, fts_query
from hookgraph.store import Store

#: A word's document frequency is counted up to this many units (enough to tell common from rare).
FREQUENCY_CAP = 500


def _spelled_in_code(store: Store, name: str) -> bool:
    """Whether the indexed code writes ``name`` (as one token, or its words in a row), though no unit is named so.

    A type made by a macro (Rust's ``cfg_rt! { pub struct LocalSet }``), a value that is a plugin
    (a value made inside a function, Kotlin's local ``val HttpTimeout = createClientPlugin(...)``) or a definition the parser does not cut
    into a unit is still the project's own: asked by name, it is not an absent name.
    """
    last = last_part(name)
    token = "".join(ch for ch in last.lower() if ch.isalnum())
    parts = [w for w in identifier_words(last) if w]
    if not token:
        return False
    match = f'"{token}"' + (f' OR "{" ".join(parts)}"' if len(parts) > 1 else "")
    return store.fts_has_match(match)


def _unit_count(store: Store) -> int:
    """About how many units the index has (the largest id: one index lookup, not a count)."""
    return store.largest_unit_id() or 1


def _similarity_gap(similarities: list[float], best: float | None = None) -> float | None:
    """The best similarity less the ``GAP_RANK``-th best of the nearest vectors (or their last): how far the
    nearest stand out. ``best`` may be higher than any of ``similarities``: a unit embedded on the spot."""
    if not similarities:
        return None
    ranked = sorted(similarities, reverse=True)
    top = max(ranked[0], best) if best is not None else ranked[0]
    return top - ranked[min(_confidence.GAP_RANK, len(ranked)) - 1]


def _word_evidence(store: Store, words: list[str], top: list[Result]) -> tuple[list[int], list[list[bool]]]:
    """Per query word: in how many units it occurs (capped), and whether each top answer holds it.

    A few small full-text lookups per word (no scoring); what the confidence
    model reads (:mod:`hookgraph.search.confidence`).
    """
    frequencies: list[int] = []
    covered: list[list[bool]] = [[] for _ in top]
    for w in words:
        match = fts_query([w])
        n = store.fts_match_count(match, FREQUENCY_CAP)  # an odd word FTS5 refuses: 0, like one it does not have
        hits = [n > 0 and store.fts_unit_matches(match, r.unit.id) for r in top]
        frequencies.append(n)
        for cover, hit in zip(covered, hits):
            cover.append(bool(hit))
    return frequencies, covered
