"""A context pack: the best units and their nearest graph neighbours, within a token budget.

What a reader (a person or a model) needs to understand an answer is its
code, the class it lives in and what the functions it calls look like — not
their bodies. So, best result first, each answer contributes:

1. its own code (cut to the lines that fit when it does not fit whole);
2. the header of its enclosing class (the lines before the first member:
   ``class X(Base):``, docstring, class attributes), once per class;
3. the signatures (and first docstring line) of the functions it calls that
   are defined in this repository, at most ``MAX_CALLEES`` per answer: those
   the search ranked for the question first, then in call order.

The pack is filled in that order until the budget is spent; an answer that
overlaps one already packed (a method inside a packed class) is skipped, and
a neighbour already packed in full is not repeated. Tokens are estimated as
characters / 4 (the usual rule of thumb for code in LLM tokenizers; the
budget is for the *reader's* model, not our embedder). The pack is printed
grouped by file — files in the order of their best answer — and in line
order within a file, because that is how code is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hookgraph import git
from hookgraph.parse.filters import DEFAULT_MAX_BYTES
from hookgraph.search.graph import resolve_call
from hookgraph.search import Result
from hookgraph.store import Store, UnitRow

CHARS_PER_TOKEN = 4
#: Callee signatures packed per answer.
MAX_CALLEES = 6
#: Lines of a class header at most (decorators, bases, docstring, attributes).
MAX_HEADER_LINES = 12
_CONTAINERS = ("class", "interface", "struct", "trait", "enum", "type")


def estimate_tokens(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


@dataclass
class Piece:
    path: str
    start_line: int
    end_line: int
    symbol: str
    kind: str
    code: str
    cut: bool = False
    #: What the piece is: "code" (an answer), "header" (its class), "signature" (a callee).
    role: str = "code"
    #: Rank of the answer that brought the piece in (0 = best).
    rank: int = 0

    def render(self) -> str:
        note = {"code": "", "header": ", class header", "signature": ", signature"}[self.role]
        cut = "  (cut to fit)" if self.cut else ""
        lines = f"{self.start_line}-{self.end_line}" if self.end_line != self.start_line else f"{self.start_line}"
        return f"## {self.path}:{lines}  {self.symbol}  ({self.kind}{note}){cut}\n{self.code}"

    def cost(self) -> int:
        return estimate_tokens(self.render()) + 1  # +1: the blank line between pieces


class SourceReader:
    """Reads a stored file's lines at the blob the store indexed (working tree as fallback)."""

    def __init__(self, root: Path, store: Store) -> None:
        self.root = root
        self.blobs = store.file_map()
        self.reader = git.BlobReader(root)
        self.cache: dict[str, list[str]] = {}

    def lines(self, path: str) -> list[str]:
        if path not in self.cache:
            data = None
            blob = self.blobs.get(path)
            if blob:
                data = self.reader.read(blob)
            if data is None:
                data = git.read_worktree_file(self.root, path, DEFAULT_MAX_BYTES) or b""  # grown since: not read
            self.cache[path] = data.decode("utf-8", "replace").splitlines()
        return self.cache[path]

    def close(self) -> None:
        self.reader.close()


class _Packer:
    def __init__(self, store: Store, source: SourceReader, budget: int) -> None:
        self.store = store
        self.source = source
        self.budget = budget
        self.used = 0
        self.pieces: list[Piece] = []

    def covered(self, path: str, start: int, end: int) -> bool:
        """Some packed piece shows all of these lines already."""
        return any(p.path == path and p.start_line <= start and end <= p.end_line and not p.cut for p in self.pieces)

    def overlaps(self, path: str, start: int, end: int, roles: tuple[str, ...] = ("code",)) -> bool:
        return any(p.path == path and p.start_line <= end and start <= p.end_line and p.role in roles
                   for p in self.pieces)

    def add(self, piece: Piece, *, may_cut: bool, min_lines: int = 3) -> bool:
        cost = piece.cost()
        if self.used + cost <= self.budget:
            self.pieces.append(piece)
            self.used += cost
            return True
        if not may_cut:
            return False
        lines = piece.code.splitlines()
        room = self.budget - self.used - estimate_tokens(piece.render().split("\n", 1)[0] + "  (cut to fit)") - 2
        kept: list[str] = []
        for line in lines:
            if estimate_tokens("\n".join([*kept, line])) > room:
                break
            kept.append(line)
        if len(kept) < min(min_lines, len(lines)):
            return False
        cut = Piece(piece.path, piece.start_line, piece.start_line + len(kept) - 1, piece.symbol, piece.kind,
                    "\n".join(kept), cut=True, role=piece.role, rank=piece.rank)
        self.pieces.append(cut)
        self.used += cut.cost()
        return True

    def answer(self, unit: UnitRow, rank: int) -> bool:
        if self.overlaps(unit.path, unit.start_line, unit.end_line):
            return False
        # A header or signature of this unit packed earlier gives way to the whole code.
        for p in [p for p in self.pieces if p.path == unit.path and p.role != "code"
                  and unit.start_line <= p.start_line and p.end_line <= unit.end_line]:
            self.pieces.remove(p)
            self.used -= p.cost()
        lines = self.source.lines(unit.path)[unit.start_line - 1 : unit.end_line]
        if not any(line.strip() for line in lines):
            return False  # an empty file (``__init__.py``) has nothing to show
        piece = Piece(unit.path, unit.start_line, unit.end_line, unit.qualname, unit.kind, "\n".join(lines),
                      rank=rank)
        # The best answer is worth even its first lines; later ones need a few to say anything.
        return self.add(piece, may_cut=True, min_lines=1 if not self.pieces else 3)

    def class_header(self, unit: UnitRow, rank: int) -> None:
        if not unit.parent:
            return
        owners = [c for c in self.store.units_where("path = ? AND qualname = ?", (unit.path, unit.parent))
                  if c.kind in _CONTAINERS and c.start_line <= unit.start_line <= c.end_line]
        if not owners:
            return
        owner = owners[0]
        members = self.store.units_where("path = ? AND parent = ?", (owner.path, owner.qualname))
        first = min((m.start_line for m in members if m.start_line > owner.start_line), default=owner.end_line + 1)
        end = min(first - 1, owner.start_line + MAX_HEADER_LINES - 1, owner.end_line)
        lines = self.source.lines(owner.path)[owner.start_line - 1 : end]
        while len(lines) > 1 and not lines[-1].strip():
            lines.pop()
        end = owner.start_line + len(lines) - 1
        if self.covered(owner.path, owner.start_line, end) or self.overlaps(owner.path, owner.start_line, end,
                                                                             ("header",)):
            return
        self.add(Piece(owner.path, owner.start_line, end, owner.qualname, owner.kind, "\n".join(lines),
                       role="header", rank=rank), may_cut=False)

    def callee_signatures(self, unit: UnitRow, rank: int, relevance: dict[int, float]) -> None:
        """Signatures of what ``unit`` calls: those the search also found first, then in call order."""
        found: list[UnitRow] = []
        for _source, _kind, target, full, _line in self.store.edges_from([unit.id], "calls"):
            targets = resolve_call(self.store, target, full, unit)
            # An ambiguous name (several definitions) says little: take it only when resolved.
            if len(targets) == 1 and targets[0].id != unit.id and all(t.id != targets[0].id for t in found):
                found.append(targets[0])
        order = {c.id: i for i, c in enumerate(found)}
        found.sort(key=lambda c: (-relevance.get(c.id, 0.0), order[c.id]))
        added = 0
        for callee in found:
            if added >= MAX_CALLEES:
                return
            if self.covered(callee.path, callee.start_line, callee.end_line) or self.overlaps(
                callee.path, callee.start_line, callee.start_line, ("code", "signature")
            ):
                continue
            text = _signature_text(self.source.lines(callee.path), callee)
            summary = next((line.strip() for line in callee.docstring.splitlines() if line.strip()), "")
            if summary:
                mark = "#" if callee.language == "python" else "//"
                text += f"\n    {mark} {summary[:160]}"
            piece = Piece(callee.path, callee.start_line, callee.start_line, callee.qualname, callee.kind, text,
                          role="signature", rank=rank)
            if self.add(piece, may_cut=False):
                added += 1


def _signature_text(lines: list[str], unit: UnitRow) -> str:
    """The source lines of ``unit``'s signature as written (decorators skipped), else the stored one."""
    wanted = " ".join(unit.signature.split())
    if not wanted:
        return unit.qualname
    taken: list[str] = []
    for line in lines[unit.start_line - 1 : unit.start_line + 11]:
        if not taken and line.lstrip().startswith("@") and not wanted.startswith("@"):
            continue
        taken.append(line)
        if len(" ".join(" ".join(taken).split())) >= len(wanted):
            return "\n".join(taken)
    return unit.signature.strip()


def build_pack(root: Path, store: Store, results: list[Result], budget: int) -> list[Piece]:
    """Choose and cut pieces so their rendered size stays within ``budget`` tokens."""
    source = SourceReader(root, store)
    packer = _Packer(store, source, budget)
    relevance = {r.unit.id: r.score for r in results}
    try:
        for rank, r in enumerate(results):
            if packer.used >= budget:
                break
            if not packer.answer(r.unit, rank):
                continue
            packer.class_header(r.unit, rank)
            packer.callee_signatures(r.unit, rank, relevance)
    finally:
        source.close()
    first_rank: dict[str, float] = {}
    for p in packer.pieces:  # a file holding an answer comes before one holding only its neighbours
        key = p.rank + (0.0 if p.role == "code" else 0.5)
        first_rank[p.path] = min(first_rank.get(p.path, key), key)
    return sorted(packer.pieces, key=lambda p: (first_rank[p.path], p.path, p.start_line, p.end_line))


def render_pack(pieces: list[Piece]) -> str:
    return "\n\n".join(p.render() for p in pieces)
