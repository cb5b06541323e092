"""A context pack: the best units' code, within a token budget, ordered for reading.

Tokens are estimated as characters / 4 (the usual rule of thumb for code in
LLM tokenizers; the budget is for the *reader's* model, not our embedder).
Units are taken best-first; one that overlaps a unit already taken is skipped
(a method inside a class already packed); one that does not fit whole is cut
to the lines that fit, marked as cut. The pack is printed grouped by file and
in line order, because that is how code is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hookgraph import git
from hookgraph.search import Result
from hookgraph.store import Store

CHARS_PER_TOKEN = 4


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

    def render(self) -> str:
        note = "  (cut to fit)" if self.cut else ""
        return f"## {self.path}:{self.start_line}-{self.end_line}  {self.symbol}  ({self.kind}){note}\n{self.code}"


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
                data = git.read_worktree_file(self.root, path) or b""
            self.cache[path] = data.decode("utf-8", "replace").splitlines()
        return self.cache[path]

    def close(self) -> None:
        self.reader.close()


def build_pack(root: Path, store: Store, results: list[Result], budget: int) -> list[Piece]:
    """Choose and cut pieces so their rendered size stays within ``budget`` tokens."""
    source = SourceReader(root, store)
    pieces: list[Piece] = []
    used = 0
    try:
        for r in results:
            u = r.unit
            if any(p.path == u.path and p.start_line <= u.end_line and u.start_line <= p.end_line for p in pieces):
                continue
            lines = source.lines(u.path)[u.start_line - 1 : u.end_line]
            piece = Piece(u.path, u.start_line, u.end_line, u.qualname, u.kind, "\n".join(lines))
            cost = estimate_tokens(piece.render()) + 1
            if used + cost > budget:
                room = budget - used - estimate_tokens(piece.render().split("\n", 1)[0]) - 2
                kept: list[str] = []
                for line in lines:
                    if estimate_tokens("\n".join([*kept, line])) > room:
                        break
                    kept.append(line)
                if len(kept) < 3:
                    continue
                piece = Piece(u.path, u.start_line, u.start_line + len(kept) - 1, u.qualname, u.kind,
                              "\n".join(kept), cut=True)
                cost = estimate_tokens(piece.render()) + 1
            pieces.append(piece)
            used += cost
    finally:
        source.close()
    pieces.sort(key=lambda p: (p.path, p.start_line))
    return pieces


def render_pack(pieces: list[Piece]) -> str:
    return "\n\n".join(p.render() for p in pieces)
