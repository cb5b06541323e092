"""Files that are not first-class: top-level blocks of a known format, line windows of plain text.

A repository holds more than its code: CI and deployment configs, build
files, schemas, templates, notes. They answer questions too ("where is the
database URL set?"), so they are indexed, cheaply and honestly marked
(``indexed:fallback`` in ``status``):

* **blocks**: a format whose grammar tree-sitter-language-pack has but for
  which hookgraph has no query (YAML, TOML, Dockerfile, Makefile, .proto,
  HCL, ... listed in ``fallback.json``) is cut at its top-level nodes: the
  keys of a YAML/JSON document, TOML tables, Dockerfile instructions, make
  rules, proto messages (below a root that has one child, like a YAML
  document, the cut goes one level down; a big node may also be cut at its
  own children). Units of kind ``block``.
* **chunks**: text of no known format (and ``.txt``) is cut into line
  windows, at blank lines when one is near. Units of kind ``chunk``.

Both use the same packer: windows of at most :data:`WINDOW_LINES` lines and
:data:`WINDOW_BYTES` bytes, cut at the last natural boundary (a node's start,
a paragraph's start; of those, the least indented) past the first
:data:`MIN_LINES` lines, else hard with
:data:`OVERLAP` lines repeated so a setting or sentence cut there is whole in
one of the two windows. Why these numbers: the embedded text of a unit takes
its first 30 lines (:data:`hookgraph.parse.compose.BODY_LINES`), so a longer
window would leave lines no vector sees; 2,400 bytes are ~600 tokens, at most
three windows of the shipped model. Small neighbours are packed together
(a Dockerfile is not 40 one-line units), and a file gives at most
:data:`MAX_UNITS` windows: a bigger file gets proportionally longer windows
(their first 30 lines are embedded, every line is in the full-text index), so
a 900 KB log costs 40 units, not 2,000. A unit is named by its first line
(``[database]``, ``services:``, ``FROM python:3.12-slim``).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from typing import TYPE_CHECKING

from .fingerprint import file_unit
from .text import _basename, _LineIndex
from .units import CodeUnit, Edge, ParsedFile

if TYPE_CHECKING:
    from .languages import Language

__all__ = ["parse_fallback", "WINDOW_LINES", "WINDOW_BYTES", "MAX_UNITS"]

WINDOW_LINES = 30
WINDOW_BYTES = 2400
MIN_LINES = 8
OVERLAP = 3
MAX_UNITS = 40
NAME_MAX = 80
#: How far below the root a single-child chain is followed (a YAML stream > document > mapping).
DESCEND_MAX = 5
#: How many syntax nodes are looked at for cut points, at most.
WALK_NODES = 20_000

_WS = re.compile(r"\s+")


def parse_fallback(path: str, data: bytes, language: Language) -> ParsedFile:
    """``block`` units (a grammar, no query) or ``chunk`` units (plain text), plus the file unit."""
    spec = language.spec
    lines = _LineIndex(data)
    starts, count = lines.starts, lines.count
    sizes = [(starts[i + 1] if i + 1 < len(starts) else len(data)) - starts[i] for i in range(count)]
    had_errors = False
    if language.ts_language is not None:
        kind = "block"
        tree = language.parser.parse(data)
        had_errors = bool(tree.root_node.has_error)
        breaks = _node_breaks(tree.root_node)
    else:
        kind = "chunk"
        breaks = _paragraph_breaks(data, starts, count)
    base = _basename(path)
    units: list[CodeUnit] = []
    edges: list[Edge] = []
    for first, last in _pack(data, starts, sizes, count, breaks):
        text = _lines_text(data, starts, first, last)
        name = _name(text) or f"{base}:{first + 1}"
        units.append(CodeUnit(
            path=path, kind=kind, name=name, qualname=name, start_line=first + 1, end_line=last + 1,
            language=spec.id, text=text, parent=None,
        ))
        edges.append(Edge(source=path, kind="contains", target=name, line=first + 1, target_full=name))
    names = [u.name for u in units]
    shown = ", ".join(names[:20]) + (f" (+{len(names) - 20} more)" if len(names) > 20 else "")
    fingerprint = f"{path}\n{spec.display_name} {'blocks' if kind == 'block' else 'text'}: {shown}" if names else path
    unit = file_unit(path, spec.id, count, fingerprint)
    return ParsedFile(path=path, language=spec.id, units=[unit] + units, edges=edges, had_errors=had_errors,
                      fallback=True)


def _lines_text(data: bytes, starts: list[int], first: int, last: int) -> str:
    begin = starts[first]
    end = starts[last + 1] - 1 if last + 1 < len(starts) else len(data)
    return data[begin:max(begin, end)].decode("utf-8", "replace").replace("\r\n", "\n").rstrip("\r")


def _is_comment(node) -> bool:
    return "comment" in node.type


def _node_breaks(root) -> dict[int, int]:
    """Rows where a node starts a line -> how good a cut there is (its column: 0 is best).

    Below a root with one child (a YAML stream > document > mapping) the walk
    starts lower; a comment block right above a node moves that node's cut
    above the comment. At most :data:`WALK_NODES` nodes are looked at, so a
    huge JSON file costs no more than a big one.
    """
    node = root
    for _ in range(DESCEND_MAX):
        named = [c for c in node.named_children if not _is_comment(c)]
        if len(named) != 1 or named[0].named_child_count == 0:
            break
        node = named[0]
    # Hot on a first index (Django's 1,750 .po files): the comment test inlined and the budget taken per
    # parent, both checked only between levels as before - the same rows, 40% less CPU.
    rows: dict[int, int] = {}
    known = rows.get
    level = [node]
    budget = WALK_NODES
    while level and budget > 0:
        below = []
        for parent in level:
            comment_start: int | None = None
            last_end = -2
            children = parent.named_children
            budget -= len(children)
            for child in children:
                row, col = child.start_point
                if "comment" in child.type:
                    if comment_start is None or row > last_end + 1:
                        comment_start = row
                else:
                    cut = comment_start if comment_start is not None and row <= last_end + 1 else row
                    comment_start = None
                    best = known(cut)
                    if best is None or col < best:
                        rows[cut] = col
                    if child.named_child_count:
                        below.append(child)
                last_end = child.end_point[0]
        level = below
    return rows


def _paragraph_breaks(data: bytes, starts: list[int], count: int) -> dict[int, int]:
    """Rows that follow a blank line (all equally good cuts)."""
    rows: dict[int, int] = {}
    blank_before = False
    for i in range(count):
        end = starts[i + 1] if i + 1 < len(starts) else len(data)
        blank = not data[starts[i]:end].strip()
        if blank_before and not blank:
            rows[i] = 0
        blank_before = blank
    return rows


def _pack(data: bytes, starts: list[int], sizes: list[int], count: int, breaks: dict[int, int]) -> list[tuple[int, int]]:
    """Windows ``(first, last)`` (0-based, inclusive) covering every non-blank line."""
    total = sum(sizes)
    estimate = max(count / (WINDOW_LINES - OVERLAP), total / WINDOW_BYTES)
    scale = max(1, -(-int(estimate) // MAX_UNITS))
    rows = sorted(breaks)
    while True:
        windows = _windows(data, starts, sizes, count, rows, breaks, WINDOW_LINES * scale, WINDOW_BYTES * scale,
                           MIN_LINES * scale)
        if len(windows) <= MAX_UNITS:
            return windows
        scale *= 2


def _blank(data: bytes, starts: list[int], sizes: list[int], i: int) -> bool:
    return not data[starts[i]:starts[i] + sizes[i]].strip()


def _windows(data: bytes, starts: list[int], sizes: list[int], count: int, rows: list[int], quality: dict[int, int],
             max_lines: int, max_bytes: int, min_lines: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    start = 0
    while start < count and _blank(data, starts, sizes, start):
        start += 1
    while start < count:
        limit = start
        used = 0
        while limit < count and limit - start < max_lines and (limit == start or used + sizes[limit] <= max_bytes):
            used += sizes[limit]
            limit += 1
        natural = True
        if limit < count:
            # the best cut (lowest column) among rows [start + min_lines, limit]; the last of equals
            low = start + max(1, min(min_lines, limit - start))
            best = None
            for i in range(bisect_left(rows, low), bisect_right(rows, limit)):
                row = rows[i]
                if best is None or quality[row] <= quality[best]:
                    best = row
            if best is not None:
                limit = best
            else:
                natural = False
        last = limit - 1
        while last > start and _blank(data, starts, sizes, last):
            last -= 1
        out.append((start, last))
        start = limit if natural or limit >= count else max(start + 1, limit - OVERLAP)
        while start < count and _blank(data, starts, sizes, start):
            start += 1
    return out


def _name(text: str) -> str:
    for line in text.split("\n"):
        line = _WS.sub(" ", line).strip().rstrip("{").strip()
        if line:
            return line if len(line) <= NAME_MAX else line[: NAME_MAX - 1].rstrip() + "\u2026"
    return ""
