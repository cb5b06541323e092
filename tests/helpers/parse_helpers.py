"""What the per-language parse tests ask of a ParsedFile, written once.

Each test module imports what it uses; importing ``no_parse_fallback``
makes that autouse fixture apply to the module: parse_file falls back to a
bare file unit on internal errors, which must never happen in these tests.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Union

import pytest

from hookgraph.parse import parse_file
from hookgraph.parse.units import CodeUnit, ParsedFile


def units_of(pf: ParsedFile) -> set[tuple[str, str, int, int]]:
    return {(u.kind, u.qualname, u.start_line, u.end_line) for u in pf.units if u.kind != "file"}


def unit(pf: ParsedFile, qualname: str, start: int | None = None) -> CodeUnit:
    (found,) = [u for u in pf.units if u.qualname == qualname and (start is None or u.start_line == start)]
    return found


def has_edge(pf: ParsedFile, kind: str, source: str, target: str, full: str | None = None, line: int | None = None) -> bool:
    return any(
        e.kind == kind
        and e.source == source
        and e.target == target
        and (full is None or e.target_full == full)
        and (line is None or e.line == line)
        for e in pf.edges
    )


def edges_from(pf: ParsedFile, kind: str, source: str) -> set[str]:
    return {e.target for e in pf.edges if e.kind == kind and e.source == source}


@pytest.fixture(autouse=True)
def no_parse_fallback(caplog):
    """parse_file falls back to a bare file unit on internal errors; that must not happen here."""
    with caplog.at_level(logging.WARNING, logger="hookgraph.parse"):
        yield
    assert not [r for r in caplog.records if r.name == "hookgraph.parse"]


# --------------------------------------------------------------------------- the per-language table
#: Stands for the case's own path in a row (the file unit's qualified name, the source of its edges).
PATH = "<the case's path>"
#: Stands for the file unit (``pf.units[0]``) where a check names a unit.
FILE = None


class Edge(NamedTuple):
    """An edge the parse must have (:func:`has_edge`): ``full`` and ``line`` are checked when given."""

    kind: str
    source: str
    target: str
    full: str | None = None
    line: int | None = None


#: A unit named in a check: its qualified name, (qualified name, start line) where two share the name, or FILE.
UnitName = Union[str, tuple[str, int], None]


@dataclass(frozen=True)
class Case:
    """One file parsed as one repository path, and what the parse must hold (every field left out is not checked).

    The per-language tests are rows of this table rather than copies of one block of asserts: a new language
    or a new finding is a row, and every row is checked the same way by :func:`check_case`.
    """

    name: str
    path: str
    source: bytes | None = None  # the file's bytes, or
    fixture: str | None = None  # a file under tests/fixtures/languages/
    language: str | None = None
    clean: bool = False  # the grammar reported no syntax error
    units: set[tuple[str, str, int, int]] | None = None  # exactly these (kind, qualname, start, end), the file unit aside
    checks: list[tuple[UnitName, str, str, object]] = field(default_factory=list)  # (unit, attribute, op, expected)
    not_units: list[str] = field(default_factory=list)  # names that are no unit (part of the unit around them)
    edges: list[Edge] = field(default_factory=list)
    edge_sets: list[tuple[str, str, set[str]]] = field(default_factory=list)  # (kind, source, exactly these targets)
    absent: list[tuple[str, str, str]] = field(default_factory=list)  # (kind, source, a target it must not have)


def _here(value: Any, path: str) -> Any:
    return path if value == PATH else value


def check_case(case: Case, fixtures: Path) -> None:
    """Parse the case's file and assert each of its rows, naming the case and the row that fails."""
    source = case.source if case.source is not None else (fixtures / str(case.fixture)).read_bytes()
    pf = parse_file(case.path, source)
    assert pf is not None, case.path
    if case.language is not None:
        assert pf.language == case.language, case.name
    if case.clean:
        assert not pf.had_errors, case.name
    if case.units is not None:
        assert units_of(pf) == case.units, case.name
    for name, attribute, op, expected in case.checks:
        if name is FILE:
            found = pf.units[0]
        elif isinstance(name, tuple):
            found = unit(pf, name[0], name[1])
        else:
            found = unit(pf, name)
        value = getattr(found, attribute)
        if op == "==":
            assert value == expected, (case.name, name, attribute)
        elif op == "startswith":
            assert value.startswith(expected), (case.name, name, attribute, value)
        elif op == "endswith":
            assert value.endswith(expected), (case.name, name, attribute, value)
        else:
            raise AssertionError(f"{case.name}: unknown check {op!r}")
    for name in case.not_units:
        assert name not in {u.name for u in pf.units}, (case.name, name)
    for edge in case.edges:
        kind, source_name, target, full, line = (_here(v, case.path) for v in edge)
        assert has_edge(pf, kind, source_name, target, full, line), (case.name, edge)
    for kind, source_name, targets in case.edge_sets:
        assert edges_from(pf, kind, _here(source_name, case.path)) == targets, (case.name, kind, source_name)
    for kind, source_name, target in case.absent:
        assert target not in edges_from(pf, kind, _here(source_name, case.path)), (case.name, kind, source_name, target)
