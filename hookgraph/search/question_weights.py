"""How much a question trusts each kind of unit: score factors applied after fusion.

Tests, doc sections, release notes, types, named values and unparsed blocks
mention what the code does in its words, so for a question (not an
identifier) they are weighed down; a wrapper around one member adds no
place of its own. (A file with several strong units lifting its best one lost
on 8 of 10 eval/ projects at the unit level, eval/RESULTS.md "Dropped"; the
files ranking keeps that rule, :mod:`hookgraph.search.files`.)
"""

from __future__ import annotations

from hookgraph.search.paths import is_test_path
from hookgraph.search.result import Result
from hookgraph.store import Store, UnitRow

#: Score factor for units in test files when the query is a question, not an identifier.
TEST_WEIGHT = 0.8
#: Score factor for doc sections (Markdown/reST) when the query is a question.
DOC_WEIGHT = 0.8
#: Score factor for the blocks and text windows of files hookgraph has no code parser for, for questions.
FALLBACK_WEIGHT = 0.8
#: Score factor for type declarations (struct, enum, interface, trait, named type) when the query is a question:
#: a type shares the words of what it configures or carries, but the behaviour asked about is code.
TYPE_WEIGHT = 0.8
TYPE_KINDS = "struct,enum,interface,trait,type"
#: Score factor for named values (constants, package variables, statics) when the query is a
#: question: one line that shares a word with the question (``errTimedOut``, ``MousetrapHelpText``) is
#: rarely the behaviour asked about; asked by name, a value ranks like any other unit.
VALUE_WEIGHT = 0.7
VALUE_KINDS = "constant,variable"
#: Score factor for release notes (CHANGES, CHANGELOG, HISTORY, NEWS) when the query is a question.
CHANGELOG_WEIGHT = 0.5
#: Score factor for a wrapper when the query is a question: a container whose one member is
#: another container spanning nearly all of it (``module Rack`` around ``class Static``) adds no
#: place of its own; its member is the answer. 1.0: off.
WRAPPER_WEIGHT = 0.5
#: Share of the wrapper's lines its one member must span (before it may come comments, requires, constants).
WRAPPER_SPAN = 0.3
_CHANGELOG_STEMS = frozenset({"changes", "changelog", "history", "news", "releases", "release-notes"})


def secondary_weight(unit: UnitRow) -> tuple[float, str]:
    """How much a question should trust this unit as an answer: code first; tests, docs, release notes less."""
    stem = unit.path.rsplit("/", 1)[-1].split(".", 1)[0].lower()
    if stem in _CHANGELOG_STEMS:
        return CHANGELOG_WEIGHT, "release notes"
    if is_test_path(unit.path):
        return TEST_WEIGHT, "test code"
    if unit.kind == "section":
        return DOC_WEIGHT, "documentation"
    if FALLBACK_WEIGHT != 1.0 and unit.kind in ("block", "chunk"):
        return FALLBACK_WEIGHT, "not code: a block of markup, config or text"
    if TYPE_WEIGHT != 1.0 and unit.kind in TYPE_KINDS.split(","):
        return TYPE_WEIGHT, "a type, not behaviour"
    if VALUE_WEIGHT != 1.0 and unit.kind in VALUE_KINDS.split(","):
        return VALUE_WEIGHT, "a named value, not behaviour"
    return 1.0, ""


_NOT_CONTAINERS = frozenset({"file", "function", "method", "section", "block", "chunk"})


def _weigh_wrappers(store: Store, results: dict[int, Result], candidates: int) -> None:
    """Weigh down the wrappers among the best candidates (see ``WRAPPER_WEIGHT``).

    ``module Rack`` around ``class URLMap`` holds the class's doc comment as
    well as its code, so it matched a question as well as the class did and
    took a place that shows nothing new (rack: 19 of 215 NL top-5 places). Only the
    best ``candidates`` are looked at (the ranking passes its ``CANDIDATES``).
    """
    best = sorted(results.values(), key=lambda r: -r.score)[:candidates]
    wrappers = _wrappers(store, best)
    for r in best:
        if r.unit.id in wrappers:
            r.score *= WRAPPER_WEIGHT
            r.reasons.append("a wrapper around its one member")


def _wrappers(store: Store, candidates: list[Result]) -> set[int]:
    """The ids of the candidates that are wrappers: a container whose one member is a container ending with it.

    A container with several members, or with code of its own around one
    member (at least ``WRAPPER_SPAN`` of it is the member), is not a wrapper.
    """
    members = _members(store, candidates)
    found = set()
    for r in candidates:
        u = r.unit
        own = members.get(u.id, [])
        if len(own) != 1 or own[0][0] in _NOT_CONTAINERS:
            continue
        _, start, end = own[0]
        # the member ends where the wrapper does; before it may come only comments and constants
        if end >= u.end_line - 2 and end - start + 1 >= WRAPPER_SPAN * (u.end_line - u.start_line + 1):
            found.add(u.id)
    return found


def _members(store: Store, candidates: list[Result]) -> dict[int, list[tuple[str, int, int]]]:
    """Per container among ``candidates`` (by unit id): its direct members' kinds and lines."""
    containers = [r.unit for r in candidates if r.unit.kind not in _NOT_CONTAINERS]
    if not containers:
        return {}
    rows = store.spans_in_files({u.path for u in containers})  # by path: the index there
    by_parent: dict[tuple[str, str], list[tuple[str, int, int]]] = {}
    for path, parent, kind, start, end in rows:
        if parent is not None:
            by_parent.setdefault((path, parent), []).append((kind, start, end))
    return {u.id: by_parent.get((u.path, u.qualname), []) for u in containers}

