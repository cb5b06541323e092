"""What the per-language parse tests ask of a ParsedFile, written once.

Each test module imports what it uses; importing ``no_parse_fallback``
makes that autouse fixture apply to the module: parse_file falls back to a
bare file unit on internal errors, which must never happen in these tests.
"""

from __future__ import annotations

import logging

import pytest

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
