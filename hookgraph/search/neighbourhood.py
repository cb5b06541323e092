"""The neighbourhood of a unit, as nodes and labelled edges: what ``hookgraph graph`` draws.

Around the focal unit(s) (every unit the symbol names, as ``callers`` does):

* ``calls``: its callers and their callers, up to ``depth`` levels, and what
  it calls (resolved to this repository's definitions, see
  :mod:`hookgraph.search.graph`) and what those call, up to ``depth`` levels; calls
  into code that is not in the repository are left out;
* ``contains``: the class that contains it and the file that contains that
  (or the unit), and, for a class, its members;
* ``inherits``: for a class, its bases (when defined here) and its subclasses;
* ``imports``: the modules its file imports, pointing at our file when the
  module's whole path is one of ours (``import http.client`` is never ``lexers/http.py``).

Structure (contains, inherits, imports) is drawn for the focal units only;
``depth`` follows calls. A node with more than ``max_fan`` neighbours of one
kind in one direction keeps the first ``max_fan - 1`` and one collapsed node
("12 more callers") stands for the rest; past ``MAX_NODES`` nodes everything
further is collapsed the same way, so a picture stays a picture.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from hookgraph.search.graph import callees_of, callers_of, find_symbol
from hookgraph.search.imports import ImportResolver
from hookgraph.store import Store, UnitRow

#: Neighbours of one kind and direction drawn per node before the rest collapse into one.
MAX_FAN = 8
#: Nodes drawn at most; beyond this, neighbours only appear as counts.
MAX_NODES = 120
_CONTAINERS = ("class", "interface", "struct", "trait", "enum", "type", "impl", "module", "namespace", "object")


@dataclass
class Node:
    """One box: a unit of ours, a module we import, or a count standing for collapsed neighbours."""

    id: str
    label: str
    kind: str
    path: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    focal: bool = False
    #: For a collapsed node: how many neighbours it stands for.
    collapsed: int = 0
    #: A module that is not a file of this repository.
    external: bool = False


@dataclass
class Edge:
    """``source`` -> ``target``: calls, contains, imports or inherits."""

    source: str
    target: str
    kind: str


@dataclass
class Neighbourhood:
    symbol: str
    depth: int
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)

    @property
    def focus(self) -> list[str]:
        return [n.id for n in self.nodes if n.focal]

    def to_json(self) -> dict[str, Any]:
        return {
            "symbol": self.symbol,
            "depth": self.depth,
            "focus": self.focus,
            "nodes": [asdict(n) for n in self.nodes],
            "edges": [asdict(e) for e in self.edges],
        }


class _Builder:
    def __init__(self, store: Store, hood: Neighbourhood, max_fan: int, max_nodes: int) -> None:
        self.store = store
        self.hood = hood
        self.max_fan = max(2, max_fan)
        self.max_nodes = max_nodes
        self.by_unit: dict[int, Node] = {}
        self.by_module: dict[str, Node] = {}
        self.edge_keys: set[tuple[str, str, str]] = set()
        self.files: ImportResolver | None = None

    def _add(self, node: Node) -> Node:
        self.hood.nodes.append(node)
        return node

    def unit(self, unit: UnitRow, focal: bool = False) -> Node:
        node = self.by_unit.get(unit.id)
        if node is None:
            node = self._add(Node(f"n{len(self.hood.nodes) + 1}", unit.qualname, unit.kind, unit.path,
                                  unit.start_line, unit.end_line))
            self.by_unit[unit.id] = node
        node.focal = node.focal or focal
        return node

    def module(self, name: str) -> Node:
        node = self.by_module.get(name)
        if node is None:
            node = self._add(Node(f"n{len(self.hood.nodes) + 1}", name, "module", external=True))
            self.by_module[name] = node
        return node

    def edge(self, source: Node, target: Node, kind: str) -> None:
        key = (source.id, target.id, kind)
        if key not in self.edge_keys:
            self.edge_keys.add(key)
            self.hood.edges.append(Edge(*key))

    def fan(self, centre: Node, neighbours: list[UnitRow], kind: str, outgoing: bool, what: str) -> list[UnitRow]:
        """Draw edges to ``neighbours`` (deduplicated, in order), collapsing the excess; returns the newly drawn."""
        seen: set[int] = set()
        unique = [u for u in neighbours if not (u.id in seen or seen.add(u.id))]  # type: ignore[func-returns-value]
        keep = unique if len(unique) <= self.max_fan else unique[: self.max_fan - 1]
        drawn: list[UnitRow] = []
        hidden = unique[len(keep):]
        for u in keep:
            if u.id not in self.by_unit and len(self.hood.nodes) >= self.max_nodes:
                hidden.append(u)
                continue
            new = u.id not in self.by_unit
            node = self.unit(u)
            self.edge(centre, node, kind) if outgoing else self.edge(node, centre, kind)
            if new:
                drawn.append(u)
        if hidden:
            self.more(centre, len(hidden), kind, outgoing, what)
        return drawn

    def more(self, centre: Node, count: int, kind: str, outgoing: bool, what: str) -> None:
        if count == 1:  # "1 more callers" reads as a bug: callers -> caller, subclasses -> subclass
            what = what[:-2] if what.endswith("sses") else what[:-1]
        node = self._add(Node(f"m{len(self.hood.nodes) + 1}", f"{count} more {what}", "more", collapsed=count))
        self.edge(centre, node, kind) if outgoing else self.edge(node, centre, kind)

    # -- structure -----------------------------------------------------------------

    def container_chain(self, unit: UnitRow) -> None:
        """The class holding ``unit`` (and the class holding that), then the file."""
        child, current = self.unit(unit), unit
        for _ in range(8):  # nested classes; a cycle in a planted database must not loop
            if not current.parent:
                break
            owners = [c for c in self.store.units_at(current.path, current.parent)
                      if c.kind not in ("file", "section") and c.start_line <= current.start_line <= c.end_line]
            if not owners:
                break
            owner = self.unit(owners[0])
            self.edge(owner, child, "contains")
            child, current = owner, owners[0]
        files = self.store.file_units_of(unit.path)
        if files and files[0].id != current.id:
            self.edge(self.unit(files[0]), child, "contains")

    def members(self, unit: UnitRow) -> None:
        if unit.kind not in _CONTAINERS:
            return
        rows = self.store.members_of(unit.path, unit.qualname)
        rows = [r for r in rows if unit.start_line <= r.start_line <= unit.end_line]
        rows.sort(key=lambda r: r.start_line)
        self.fan(self.unit(unit), rows, "contains", True, "members")

    def inheritance(self, unit: UnitRow) -> None:
        node = self.unit(unit)
        bases: list[UnitRow] = []
        for _source, _kind, target, _full, _line in self.store.edges_from([unit.id], "inherits"):
            found = [r for r in self.store.units_named(target) if r.kind in _CONTAINERS]
            local = [r for r in found if r.path == unit.path]
            bases.extend(local or found)
        self.fan(node, bases, "inherits", True, "bases")
        subclass_ids = [source for source, _t, _f, _l in self.store.edges_to([unit.name], "inherits")]
        subclasses = self.store.units_by_ids(subclass_ids)
        self.fan(node, [subclasses[i] for i in subclass_ids if i in subclasses], "inherits", False, "subclasses")

    def imports(self, unit: UnitRow) -> None:
        files = self.store.file_units_of(unit.path)
        if not files:
            return
        file_node = self.unit(files[0])
        by_line: dict[int, list[str]] = {}
        for _source, _kind, _target, full, line in self.store.edges_from([files[0].id], "imports"):
            by_line.setdefault(line, []).append(full)
        modules: list[str] = []
        for line in sorted(by_line):
            names = by_line[line]
            for name in names:  # ``from http import client`` stores http and http.client: keep the longest
                if not any(other != name and other.startswith(name + ".") for other in names) and name not in modules:
                    modules.append(name)
        keep = len(modules) if len(modules) <= self.max_fan else self.max_fan - 1
        drawn = 0
        for name in modules[:keep]:
            ours = self._our_file(name, unit.path)
            if (ours is None or ours.id not in self.by_unit) and len(self.hood.nodes) >= self.max_nodes:
                break
            self.edge(file_node, self.unit(ours) if ours is not None else self.module(name), "imports")
            drawn += 1
        if drawn < len(modules):
            self.more(file_node, len(modules) - drawn, "imports", True, "imports")

    def _our_file(self, module: str, importer: str) -> UnitRow | None:
        """The file of this repository a module name points at, when its whole path does (see :mod:`.imports`)."""
        if self.files is None:
            self.files = ImportResolver(self.store.file_units())
        return self.files.our_file(module, importer)


def neighbourhood(store: Store, symbol: str, depth: int = 1, max_fan: int = MAX_FAN,
                  max_nodes: int = MAX_NODES) -> Neighbourhood:
    """Build the picture's model for ``symbol`` (raises :class:`hookgraph.search.graph.SymbolNotFound`)."""
    hood = Neighbourhood(symbol, depth)
    build = _Builder(store, hood, max_fan, max_nodes)
    focal = find_symbol(store, symbol)
    for unit in focal:
        build.unit(unit, focal=True)
    up: list[UnitRow] = list(focal)
    down: list[UnitRow] = list(focal)
    for _level in range(max(depth, 0)):
        next_up: list[UnitRow] = []
        for unit in up:
            callers = [link.unit for link in callers_of(store, [unit]) if link.unit is not None]
            next_up += build.fan(build.unit(unit), callers, "calls", False, "callers")
        next_down: list[UnitRow] = []
        for unit in down:
            callees = [link.unit for link in callees_of(store, [unit]) if link.unit is not None]
            next_down += build.fan(build.unit(unit), callees, "calls", True, "callees")
        up, down = next_up, next_down
    for unit in focal:
        build.container_chain(unit)
        build.members(unit)
        if unit.kind in _CONTAINERS:
            build.inheritance(unit)
        build.imports(unit)
    return hood
