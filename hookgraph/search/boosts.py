"""Lifts added to the fused score: exact names, query words in names and file names, the call graph.

Each is a bonus on top of fusion (see the steps in :mod:`hookgraph.search`):
an exact identifier match +1 (and, for an identifier query, above every other
candidate by ``EXACT_MARGIN``), ``KEYWORD_BOOST`` per query word in a name,
signature or module, and the best hits passing ``GRAPH_DECAY`` of their score
to their callers and callees. A boost for a unit defining a name written in a
question and one for question words in a unit's path and folders were measured
and not kept (eval/RESULTS.md, "Dropped"): the exact-name, keyword and files
ranking's path rules already carry what they would add.
"""

from __future__ import annotations

from hookgraph.parse.qualnames import last_part, spellings
from hookgraph.parse.words import identifier_words
from hookgraph.search.graph import resolve_call
from hookgraph.search.intent import looks_like_identifier
from hookgraph.search.result import Result, _passes
from hookgraph.store import Store, UnitRow

#: Bonus per query word found in a unit's name or signature.
KEYWORD_BOOST = 0.05
#: The keyword boost also counts words of the unit's module (file name).
KEYWORD_MODULE = True
#: How many top hits seed graph expansion, and how much of their score flows on.
GRAPH_SEEDS = 5
GRAPH_DECAY = 0.1
#: How far the weakest exact-name match stands above the best other candidate for an identifier query.
EXACT_MARGIN = 0.01


def _exact_matches(store: Store, query: str) -> list[int]:
    """Units whose name or qualified name is exactly the query (an identifier search)."""
    q = query.strip()
    if not looks_like_identifier(q):
        return []
    names = spellings(q)
    rows = store.units_named_any(names)
    if not rows and len(names) > 1:
        rows = store.units_named(last_part(q))
    if not rows and len(names) == 1 and not any(ch in q for ch in "*?[]"):
        # a name that is itself dotted (Elixir's ``defmodule Phoenix.Router``) asked by its last part
        rows = store.units_dotted_ending(q)
    # Prefer code definitions over file units and doc sections of the same name.
    return [r.id for r in rows if r.kind not in ("file", "section")] or [r.id for r in rows]


def _exact_above_the_rest(results: dict[int, Result]) -> None:
    """Lift every exact-name match above the best other candidate, in place, keeping their own order.

    ``+1`` for the name assumes the other signals stay within 1; with the
    vectors still pending, words stand in for meaning and a unit that only
    mentions the name (``EitherT.transform``) reaches 1.2 while the class
    ``EitherT``, whose one word is rare in its own text, has its 1.1 from the
    name alone.
    """
    exact = [r for r in results.values() if r.exact]
    others = [r.score for r in results.values() if not r.exact]
    if not exact or not others:
        return
    gap = max(others) - min(r.score for r in exact)
    if gap >= 0:
        for r in exact:
            r.score += gap + EXACT_MARGIN


def _keyword_boost(results: dict[int, Result], words: list[str]) -> None:
    """A small bonus per query word in the name or signature: lifts 2nd to 1st, no more."""
    if not words:
        return
    wanted = set(words)
    for r in results.values():
        u = r.unit
        text = f"{u.qualname} {u.signature}"
        if KEYWORD_MODULE and u.kind != "section":
            text += " " + u.path.rsplit("/", 1)[-1].split(".", 1)[0]
        hit = wanted & set(identifier_words(text))
        if hit:
            r.score += KEYWORD_BOOST * len(hit)


class GraphMemo:
    """What one query's graph expansions looked up, kept for the next ranking of the same candidates.

    ``ask --files`` scores one query's candidates three ways (fused, by words, by meaning); their seeds
    overlap, and resolving a call (imports, declared types) is most of an expansion's time.
    """

    def __init__(self) -> None:
        self.definitions: dict[str, list[UnitRow]] = {}
        self.runs: dict[tuple[str, str, int], list[UnitRow]] = {}

    def resolved(self, store: Store, target: str, full: str, origin: UnitRow) -> list[UnitRow]:
        """:func:`hookgraph.search.graph.resolve_call`, remembered."""
        key = (target, full, origin.id)
        runs = self.runs.get(key)
        if runs is None:
            runs = self.runs[key] = resolve_call(store, target, full, origin, self.definitions)
        return runs


def _expand_graph(store: Store, results: dict[int, Result], path_glob: str | None, language: str | None,
                  memo: GraphMemo | None = None) -> None:
    """Let the best hits lift what they call and what calls them."""
    seeds = sorted(results.values(), key=lambda r: -r.score)[:GRAPH_SEEDS]
    seed_ids = [r.unit.id for r in seeds]
    seed_score = {r.unit.id: r.score for r in seeds}
    flows: dict[int, float] = {}
    memo = memo or GraphMemo()
    # Callees: what a seed calls, resolved to definitions.
    for source, _kind, target, full, _line in store.edges_from(seed_ids, "calls"):
        for callee in memo.resolved(store, target, full, results[source].unit):
            flows[callee.id] = max(flows.get(callee.id, 0.0), GRAPH_DECAY * seed_score[source])
    # Callers: units whose calls resolve to a seed.
    names = list({results[s].unit.name for s in seed_ids})
    edges = store.edges_to(names, "calls")
    origins = store.units_by_ids({e[0] for e in edges})
    for source, target, full, _line in edges:
        origin = origins.get(source)
        if origin is None:
            continue
        hit = [seed_score[u.id] for u in memo.resolved(store, target, full, origin) if u.id in seed_score]
        if hit:
            flows[source] = max(flows.get(source, 0.0), GRAPH_DECAY * max(hit))
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
