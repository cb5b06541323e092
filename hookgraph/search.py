"""Hybrid ranking: lexical (BM25 over identifier words), semantic (KNN), graph.

Each signal alone fails somewhere: BM25 misses questions phrased in other
words than the code's, embeddings blur exact identifiers, and neither knows
that the function you want is the one the best hit calls. So we take the top
candidates of both lists, fuse them, put exact identifier matches first, and
let the best hits lift their callers and callees a little.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hookgraph.store import Store, UnitRow, identifier_words

if TYPE_CHECKING:
    from hookgraph.embed import Embedder

#: How many candidates each list contributes before fusion.
CANDIDATES = 100
#: Reciprocal rank fusion constant (the usual 60 flattens a short list too much).
RRF_K = 20
#: Weights of the normalised-score fusion (one reference design's 0.4 / 0.6).
LEXICAL_WEIGHT = 0.4
SEMANTIC_WEIGHT = 0.6
#: Bonus per query word found in a unit's name or signature.
KEYWORD_BOOST = 0.05
#: How many top hits seed graph expansion, and how much of their score flows on.
GRAPH_SEEDS = 5
GRAPH_DECAY = 0.25

STOPWORDS = frozenset(
    """a an and are as at be by can do does for from get gets how i if in into is it its
    of on or so that the their them then there these this to was what when where which
    who why will with you your we our me my code function method class""".split()
)

_IDENTIFIER_RE = re.compile(r"^[A-Za-z_][\w]*(?:[.:]{1,2}[A-Za-z_][\w]*)*$")


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


def query_words(query: str) -> list[str]:
    """The words BM25 looks for: identifier-split, lower-case, without filler words."""
    words = [w for w in identifier_words(query) if w not in STOPWORDS and len(w) > 1]
    return list(dict.fromkeys(words))


def fts_query(words: Iterable[str]) -> str:
    """An FTS5 MATCH expression OR-ing the words (quoted: no operator injection)."""
    return " OR ".join(f'"{w}"' for w in words)


def looks_like_identifier(query: str) -> bool:
    return bool(_IDENTIFIER_RE.match(query.strip()))


def search(
    store: Store,
    query: str,
    *,
    top: int = 10,
    embedder: Embedder | None = None,
    path_glob: str | None = None,
    language: str | None = None,
    fusion: str = "weighted",
    use_graph: bool = True,
) -> list[Result]:
    """Rank units for ``query``; ``embedder`` None means lexical and graph only."""
    words = query_words(query)
    lexical = store.fts_search(fts_query(words), CANDIDATES) if words else []
    semantic: list[tuple[int, float]] = []
    if embedder is not None:
        vector = embedder.embed_query(query)
        hits = store.knn(vector, CANDIDATES, language)
        by_vector = store.units_for_vectors(v for v, _ in hits)
        for vid, distance in hits:
            for uid in by_vector.get(vid, []):
                semantic.append((uid, 1.0 - distance))
    exact_ids = _exact_matches(store, query)

    ids = {uid for uid, _ in lexical} | {uid for uid, _ in semantic} | set(exact_ids)
    units = store.units_by_ids(ids)
    keep = {uid for uid, u in units.items() if _passes(u, path_glob, language)}

    results: dict[int, Result] = {}
    lexical = [(u, s) for u, s in lexical if u in keep]
    semantic = [(u, s) for u, s in semantic if u in keep]
    _fuse(results, units, lexical, semantic, fusion)
    for uid in exact_ids:
        if uid in keep:
            r = results.setdefault(uid, Result(units[uid]))
            r.exact = True
            r.score += 1.0
            r.reasons.append("exact name")
    _keyword_boost(results, words)
    if use_graph and results:
        _expand_graph(store, results, path_glob, language)
    ranked = sorted(results.values(), key=lambda r: (-r.score, r.unit.path, r.unit.start_line))
    return ranked[:top]


def _passes(unit: UnitRow, path_glob: str | None, language: str | None) -> bool:
    if language and unit.language != language:
        return False
    if path_glob and not (fnmatch.fnmatch(unit.path, path_glob) or unit.path.startswith(path_glob.rstrip("/") + "/")):
        return False
    return True


def _exact_matches(store: Store, query: str) -> list[int]:
    """Units whose name or qualified name is exactly the query (an identifier search)."""
    q = query.strip()
    if not looks_like_identifier(q):
        return []
    dotted = q.replace("::", ".")
    rows = store.units_where("qualname = ? OR name = ?", (dotted, dotted))
    if not rows and "." in dotted:
        rows = store.units_where("name = ?", (dotted.rsplit(".", 1)[1],))
    # Prefer code definitions over file units and doc sections of the same name.
    return [r.id for r in rows if r.kind not in ("file", "section")] or [r.id for r in rows]


def _fuse(
    results: dict[int, Result],
    units: dict[int, UnitRow],
    lexical: list[tuple[int, float]],
    semantic: list[tuple[int, float]],
    fusion: str,
) -> None:
    if fusion == "rrf":
        for rank, (uid, score) in enumerate(lexical):
            r = results.setdefault(uid, Result(units[uid]))
            r.lexical = score
            r.score += 1.0 / (RRF_K + rank + 1)
        for rank, (uid, sim) in enumerate(semantic):
            r = results.setdefault(uid, Result(units[uid]))
            r.semantic = sim
            r.score += 1.0 / (RRF_K + rank + 1)
        # Put RRF on the same 0..1-ish scale as the boosts.
        for r in results.values():
            r.score *= RRF_K / 2
        return
    if fusion != "weighted":
        raise ValueError(f"unknown fusion {fusion!r}")
    best_lexical = max((s for _, s in lexical), default=0.0) or 1.0
    for uid, score in lexical:
        r = results.setdefault(uid, Result(units[uid]))
        r.lexical = score
        r.score += LEXICAL_WEIGHT * (score / best_lexical)
    if semantic:
        sims = [s for _, s in semantic]
        floor = min(sims)
        spread = (max(sims) - floor) or 1.0
        for uid, sim in semantic:
            r = results.setdefault(uid, Result(units[uid]))
            r.semantic = sim
            r.score += SEMANTIC_WEIGHT * ((sim - floor) / spread)


def _keyword_boost(results: dict[int, Result], words: list[str]) -> None:
    """A small bonus per query word in the name or signature: lifts 2nd to 1st, no more."""
    if not words:
        return
    wanted = set(words)
    for r in results.values():
        u = r.unit
        hit = wanted & set(identifier_words(f"{u.qualname} {u.signature}"))
        if hit:
            r.score += KEYWORD_BOOST * len(hit)


def _expand_graph(store: Store, results: dict[int, Result], path_glob: str | None, language: str | None) -> None:
    """Let the best hits lift what they call and what calls them."""
    seeds = sorted(results.values(), key=lambda r: -r.score)[:GRAPH_SEEDS]
    seed_ids = [r.unit.id for r in seeds]
    seed_score = {r.unit.id: r.score for r in seeds}
    flows: dict[int, float] = {}
    # Callees: names called by a seed, resolved to definitions.
    for source, _kind, target, _full, _line in store.edges_from(seed_ids, "calls"):
        for unit in resolve_name(store, target, prefer_path=results[source].unit.path):
            flows[unit.id] = max(flows.get(unit.id, 0.0), GRAPH_DECAY * seed_score[source])
    # Callers: units that call a seed by name.
    names = list({results[s].unit.name for s in seed_ids})
    by_name: dict[str, list[int]] = {}
    for s in seed_ids:
        by_name.setdefault(results[s].unit.name, []).append(s)
    for source, target, _full, _line in store.edges_to(names, "calls"):
        best = max(seed_score[s] for s in by_name.get(target, []))
        flows[source] = max(flows.get(source, 0.0), GRAPH_DECAY * best)
    flows = {uid: f for uid, f in flows.items() if uid not in seed_score}
    if not flows:
        return
    units = store.units_by_ids(flows)
    for uid, flow in flows.items():
        unit = units.get(uid)
        if unit is None or not _passes(unit, path_glob, language):
            continue
        r = results.setdefault(uid, Result(unit))
        r.graph = flow
        r.score += flow


def resolve_name(store: Store, name: str, prefer_path: str | None = None) -> list[UnitRow]:
    """Definitions a called name may refer to: same file first, else all of that name."""
    rows = [r for r in store.units_where("name = ?", (name,)) if r.kind not in ("file", "section")]
    if prefer_path:
        local = [r for r in rows if r.path == prefer_path]
        if local:
            return local
    return rows
