"""What the call-graph tests ask of an indexed repository, written once: the qualified names of a symbol's
resolved callees and callers (units outside the repository, ``link.unit is None``, left out)."""

from __future__ import annotations

from pathlib import Path

from hookgraph.search import graph
from hookgraph.store import Store, db_path


def callee_names(repo: Path, symbol: str) -> set[str]:
    with Store(db_path(repo)) as store:
        return {link.unit.qualname for link in graph.callees(store, symbol) if link.unit is not None}


def caller_names(repo: Path, symbol: str) -> set[str]:
    with Store(db_path(repo)) as store:
        return {link.unit.qualname for link in graph.callers(store, symbol) if link.unit is not None}
