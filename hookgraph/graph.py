"""Structural questions over the edges: who calls this, what does it call.

Edges store target names; a name is resolved to definitions when asked
(same file first, then every definition of that name), so the answer always
reflects the current store without any global re-resolution at write time.
"""

from __future__ import annotations

from dataclasses import dataclass

from hookgraph.search import resolve_name
from hookgraph.store import Store, UnitRow


class SymbolNotFound(Exception):
    """No unit has that name; the message says so."""


@dataclass
class Link:
    """One caller or callee: the unit on the other side (if it is ours) and the call site."""

    unit: UnitRow | None
    name: str
    call_path: str
    call_line: int
    expression: str


def find_symbol(store: Store, symbol: str) -> list[UnitRow]:
    """Units named by ``symbol``: a qualified name (``Session.request``) or a bare name."""
    dotted = symbol.strip().replace("::", ".")
    rows = store.units_where("qualname = ?", (dotted,))
    if not rows:
        rows = store.units_where("name = ?", (dotted.rsplit(".", 1)[-1],))
        if "." in dotted:
            rows = [r for r in rows if r.qualname.endswith(dotted)] or rows
    rows = [r for r in rows if r.kind not in ("file", "section")]
    if not rows:
        raise SymbolNotFound(f"no function, method or class named {symbol!r} in the index")
    return rows


def callees(store: Store, symbol: str) -> list[Link]:
    """What the units named ``symbol`` call, resolved to our definitions where we have them."""
    units = find_symbol(store, symbol)
    by_id = {u.id: u for u in units}
    links: list[Link] = []
    seen: set[tuple[str, int, str]] = set()
    for source, _kind, target, full, line in store.edges_from(list(by_id), "calls"):
        origin = by_id[source]
        targets = resolve_name(store, target, prefer_path=origin.path)
        for unit in targets or [None]:
            key = (unit.qualname if unit else target, line, origin.path)
            if key in seen:
                continue
            seen.add(key)
            links.append(Link(unit, target, origin.path, line, full))
    return links


def callers(store: Store, symbol: str) -> list[Link]:
    """Units that call any unit named ``symbol`` (by its last name)."""
    units = find_symbol(store, symbol)
    names = list({u.name for u in units})
    edges = store.edges_to(names, "calls")
    sources = store.units_by_ids({e[0] for e in edges})
    links = []
    for source, target, full, line in edges:
        unit = sources.get(source)
        if unit is None:
            continue
        links.append(Link(unit, target, unit.path, line, full))
    links.sort(key=lambda link: (link.call_path, link.call_line))
    return links
