"""The package's imports point one way along the stages, never in a circle, and no two modules share a name.

A newcomer reads hookgraph/ stage by stage (docs/architecture.md): a module that imports a later stage, or
two modules that import each other, make the reader jump back and forth; two modules with one base name
(``hooks.py`` in two packages) make every "open hooks.py" ambiguous. Every import counts: at the top of a
module, inside a function (a lazy import is still a dependency), under ``TYPE_CHECKING``, relative or absolute.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "hookgraph"

#: Each top-level module or package of hookgraph/ and its stage: a module may import its own stage or a lower
#: one. The foundation (settings, wording, the error root, llama.cpp's bindings) sits under everything. The
#: store sits under embed/: the embedding queue and its worker read texts from the store and write vectors
#: into it, while the store knows nothing of models. search/ and sync/ share a stage and import neither
#: each other's modules nor anything above them; cli/ is the top.
STAGES: dict[str, int] = {
    "hookgraph": 0,  # the package's __init__
    "hookgraph.config": 0,
    "hookgraph.plural": 0,
    "hookgraph.errors": 0,
    "hookgraph.llama": 0,
    "hookgraph.git": 1,
    "hookgraph.parse": 2,
    "hookgraph.store": 3,
    "hookgraph.models": 4,
    "hookgraph.embed": 5,
    "hookgraph.search": 6,
    "hookgraph.sync": 6,
    "hookgraph.cli": 7,
    "hookgraph.__main__": 8,
}

#: Packages on one stage that still must not import each other (ranking never syncs; a sync never ranks).
APART: set[frozenset[str]] = {frozenset({"hookgraph.search", "hookgraph.sync"})}


def _modules() -> dict[str, tuple[Path, bool]]:
    """Every module of the package by dotted name, with its file and whether it is a package's ``__init__``."""
    found: dict[str, tuple[Path, bool]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        found[".".join(parts)] = (path, is_package)
    return found


def _known(name: str, modules: dict[str, tuple[Path, bool]]) -> str | None:
    """The module an imported name lives in: ``hookgraph.store.Store`` -> ``hookgraph.store``."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _imported(tree: ast.AST, module: str, is_package: bool) -> list[tuple[str, int]]:
    """``(dotted name, line)`` of every import in ``tree``, wherever it sits, relative ones made absolute;
    ``importlib.import_module("hookgraph.x")`` with a constant name counts too."""
    package = module if is_package else module.rpartition(".")[0]
    names: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            names += [(f"{source}.{alias.name}", node.lineno) for alias in node.names]
        elif (isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name))
              and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id) == "import_module"
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            names.append((node.args[0].value, node.lineno))
    return names


def import_graph() -> dict[str, dict[str, int]]:
    """``{module: {imported hookgraph module: first line}}`` over every module of hookgraph/."""
    modules = _modules()
    graph: dict[str, dict[str, int]] = {name: {} for name in modules}
    for name, (path, is_package) in modules.items():
        for imported, line in _imported(ast.parse(path.read_text(encoding="utf-8")), name, is_package):
            if imported != "hookgraph" and not imported.startswith("hookgraph."):
                continue
            target = _known(imported, modules)
            if target is not None and target != name:
                graph[name].setdefault(target, line)
    return graph


def stage_of(module: str) -> tuple[str, int]:
    """The top-level part of hookgraph/ a module belongs to, and that part's stage."""
    top = ".".join(module.split(".")[:2])
    assert top in STAGES, f"{module}: a new top-level part of hookgraph/; give it a stage in STAGES"
    return top, STAGES[top]


def circles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def test_no_import_circle() -> None:
    found = circles(import_graph())
    assert found == [], "modules that import each other (directly or around a circle): " + "; ".join(
        " <-> ".join(group) for group in found)


def test_imports_follow_the_stages() -> None:
    graph = import_graph()
    against = []
    for module, targets in sorted(graph.items()):
        top, stage = stage_of(module)
        for target, line in sorted(targets.items()):
            target_top, target_stage = stage_of(target)
            if target_stage > stage or (target_top != top and frozenset({top, target_top}) in APART):
                against.append(f"{module}:{line} imports {target}")
    assert against == [], "imports against the stage order:\n" + "\n".join(against)


def test_no_two_modules_share_a_base_name() -> None:
    by_name: dict[str, list[str]] = defaultdict(list)
    for name, (path, is_package) in _modules().items():
        if not is_package and path.name != "__main__.py":
            by_name[path.stem].append(name)
    shared = {stem: names for stem, names in sorted(by_name.items()) if len(names) > 1}
    assert shared == {}, f"modules that share a base name: {shared}"


def test_the_checks_see_what_they_must() -> None:
    """The graph holds lazy, relative and TYPE_CHECKING imports (else every check above passes vacuously)."""
    graph = import_graph()
    assert len(graph) > 90
    assert "hookgraph.store" in graph["hookgraph.sync.reconcile"]  # a top-level absolute import
    lazy = ast.parse("def f():\n    from ..store import Store\n")
    assert _imported(lazy, "hookgraph.sync.x", False) == [("hookgraph.store.Store", 2)]
    assert _imported(ast.parse("from . import a\n"), "hookgraph.sync", True) == [("hookgraph.sync.a", 1)]
    assert circles({"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}) == [["a", "b", "c"]]
