""""What calls X?" / "what does X call?" answered from the call graph, ahead of the ranking."""

from __future__ import annotations

from hookgraph.search.graph import SymbolNotFound, callees_of, callers_of, find_symbol, possible_callers_of
from hookgraph.search.intent import Intent
from hookgraph.search.result import Result, _passes
from hookgraph.store import Store, UnitRow

#: "what calls X?" / "what does X call?" answered from the call graph (callers or callees of X first).
GRAPH_ANSWERS = True
#: A call that may run more than this many of our units (``@app.call`` in Rack: every
#: middleware's ``call``) is a guess: its units follow the calls that name one place.
AMBIGUOUS_CALL = 3


def _graph_answers(
    store: Store, intent: Intent, ranked: list[Result], path_glob: str | None, language: str | None
) -> list[Result] | None:
    """"What calls X?": X's callers (or callees) first, then X itself, then the rest; None if X is unknown.

    The answers keep the order the ranking gave them (the question's words
    still say which caller matters most), the others follow by how many call
    sites they have. Each carries ``graph`` 1.0: it is linked to X directly.
    """
    symbol = intent.symbol or ""
    for spelled in dict.fromkeys((symbol, symbol.rstrip("?"))):
        if not spelled:
            continue
        try:
            targets = find_symbol(store, spelled)
        except SymbolNotFound:
            continue
        links = (callers_of(store, targets) + possible_callers_of(store, targets) if intent.direction == "callers"
                 else callees_of(store, targets))
        # a call on a receiver of unknown type is no edge: what it may run (callees) or the unit making it
        # (callers) still answers, after the facts
        pairs = [(link, unit) for link in links
                 for unit in ([link.unit] if link.unit is not None and intent.direction == "callers" or not link.maybe
                              else link.maybe)]
        sites: dict[int, int] = {}
        linked: dict[int, UnitRow] = {}
        readings: dict[tuple[str, int, str], int] = {}  # call site -> how many units it may run
        for link, _unit in pairs:
            site = (link.call_path, link.call_line, link.expression)
            readings[site] = readings.get(site, 0) + 1
        ambiguous: dict[int, bool] = {}
        for link, unit in pairs:
            if unit is not None and _passes(unit, path_glob, language):
                sites[unit.id] = sites.get(unit.id, 0) + 1
                linked[unit.id] = unit
                unsure = bool(link.maybe) or readings[(link.call_path, link.call_line, link.expression)] > AMBIGUOUS_CALL
                ambiguous[unit.id] = ambiguous.get(unit.id, True) and unsure
        position = {r.unit.id: i for i, r in enumerate(ranked)}
        by_id = {r.unit.id: r for r in ranked}
        order = sorted(linked, key=lambda uid: (ambiguous[uid], position.get(uid, len(ranked)), -sites[uid],
                                                linked[uid].path))
        top_score = ranked[0].score if ranked else 1.0
        answers = []
        for i, uid in enumerate(order):
            r = by_id.get(uid) or Result(linked[uid])
            r.graph = 1.0
            r.score = top_score + 1.0 + 1.0 / (i + 2)
            r.reasons.append(f"{'calls' if intent.direction == 'callers' else 'called by'} {spelled}")
            answers.append(r)
        target_ids = [t.id for t in targets if t.id not in linked]
        defined = []
        for t in targets:
            if t.id in linked or not _passes(t, path_glob, language):
                continue
            r = by_id.get(t.id) or Result(t)
            r.score = top_score + 1.0
            r.reasons.append("the unit asked about")
            defined.append(r)
        shown = set(linked) | set(target_ids)
        return answers + defined + [r for r in ranked if r.unit.id not in shown]
    return None
