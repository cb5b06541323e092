"""Which commits changed a range of lines: a unit's lines followed back through history, for ``ask --since``.

``git log -L`` answers this for one range per process, and each process walks the whole history: ten
answers over 1,000 commits cost ten walks (about 0.8 s here under load). This follows every answer's range
through one walk's ``-U0`` patches (:func:`hookgraph.git.file_patches`) and the commit graph
(:func:`hookgraph.git.commit_parents`), as ``-L`` does:

* from the newest commit back, a range is mapped into each parent through that parent's hunks; lines a
  parent does not have (added by the commit) end the trail along that parent;
* a commit changed the range when a hunk against its parent overlaps it; a merge, only when it differs
  there from every parent (a conflict resolved by hand), since its parents' own commits carry the change;
* a renamed file is followed under its old name (the rename is one of the walk's patches, when the old name
  is among the paths walked).
"""

from __future__ import annotations

from dataclasses import dataclass

from hookgraph.git import FilePatch, Hunk


@dataclass(frozen=True)
class Range:
    """Lines ``start..end`` (1-based, inclusive) of ``path`` in some commit."""

    path: str
    start: int
    end: int


def _touches(hunks: list[Hunk], start: int, end: int) -> bool:
    for h in hunks:
        if h.new_count and h.new_start <= end and h.new_start + h.new_count - 1 >= start:
            return True
        if not h.new_count and start <= h.new_start < end:  # lines removed from inside the range
            return True
    return False


def _old_line(hunks: list[Hunk], line: int, first: bool) -> int:
    """Where new line ``line`` was in the parent; inside a changed block, that block's first (``first``) or
    last old line (or, where the block added lines only, the line after or before them)."""
    offset = 0
    for h in hunks:
        if h.new_count and h.new_start <= line <= h.new_start + h.new_count - 1:
            if h.old_count:
                return h.old_start if first else h.old_start + h.old_count - 1
            return h.old_start + 1 if first else h.old_start
        before = h.new_start + h.new_count - 1 < line if h.new_count else h.new_start < line
        if not before:
            break
        offset += h.old_count - h.new_count
    return line + offset


def _into_parent(patch: FilePatch | None, where: Range) -> Range | None:
    """The range in the parent, or None when the parent has none of its lines (the file or lines are new)."""
    if patch is None:
        return where
    if patch.old_path is None:
        return None
    start, end = _old_line(patch.hunks, where.start, True), _old_line(patch.hunks, where.end, False)
    return Range(patch.old_path, start, end) if start <= end else None


def commits_that_changed(ranges: list[Range], until: str, parents: dict[str, list[str]],
                         patches: dict[str, list[list[FilePatch]]]) -> list[list[str]]:
    """For each range of ``until``'s tree, the commits of ``parents`` (the walked part of history, children
    before parents: ``git rev-list --topo-order``) that changed those lines, newest first.

    One pass over the commits for all ranges: a commit that changed none of the walked files hands every
    range to its parents as it is; a range reaching a commit along two children keeps the first.
    """
    touched: list[list[str]] = [[] for _ in ranges]
    state: dict[str, dict[int, Range]] = {until: dict(enumerate(ranges))}
    for commit, commit_parents in parents.items():
        here = state.pop(commit, None)
        if not here:
            continue
        per_parent = patches.get(commit)
        if not per_parent or len(per_parent) != len(commit_parents):  # not shown by the walk: unchanged files
            for parent in commit_parents:
                inherited = state.setdefault(parent, {})
                for i, where in here.items():
                    inherited.setdefault(i, where)
            continue
        for i, where in here.items():
            mine = [_patch_for(entry, where.path) for entry in per_parent]
            if all(p is not None and (p.old_path is None or _touches(p.hunks, where.start, where.end))
                   for p in mine):
                touched[i].append(commit)
            for parent, patch in zip(commit_parents, mine):
                earlier = _into_parent(patch, where)
                if earlier is not None:
                    state.setdefault(parent, {}).setdefault(i, earlier)
    return touched


def _patch_for(entry: list[FilePatch], path: str) -> FilePatch | None:
    for patch in entry:
        if patch.new_path == path:
            return patch
    return None
