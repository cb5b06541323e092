"""What the store should describe: ``{path: blob}`` of HEAD, the git index, or the working tree.

Every sync compares the store's file map with one of these (DESIGN.md
section 4); :mod:`hookgraph.sync.freshness` compares the same maps to say how
current an answer is. Kept apart from the sync itself so both depend on it and
neither on the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from hookgraph import git

TARGETS = ("head", "index", "worktree")


class SyncError(Exception):
    """The sync cannot proceed; the message is one line for the user."""


@dataclass
class Target:
    """What the store should describe: ``{path: Entry}`` and where to read contents."""

    kind: str
    entries: dict[str, git.Entry]
    #: Contents that are not (yet) git objects: working-tree edits.
    overrides: dict[str, bytes] = field(default_factory=dict)
    commit: str | None = None


def read_target(root: Path, kind: str) -> Target:
    """The tree the store should match: HEAD (default), the index, or the working tree."""
    if kind == "head":
        return Target(kind, git.tree_map(root), commit=git.head_commit(root))
    entries = git.index_map(root)
    if kind == "index":
        return Target(kind, entries, commit=git.head_commit(root))
    if kind != "worktree":
        raise SyncError(f"unknown sync target {kind!r}: use one of {', '.join(TARGETS)}")
    overrides: dict[str, bytes] = {}
    for raw in git.worktree_changes(root):
        path = git.path_key(raw)
        if path in entries and not entries[path].regular:
            continue  # a submodule that moved, a symlink: listed as the index has them, never read
        data = git.read_worktree_file(root, raw)
        if data is None:
            entries.pop(path, None)
            continue
        entries[path] = git.Entry(git.blob_sha(data), len(data))
        overrides[path] = data
    return Target(kind, entries, overrides, commit=git.head_commit(root))
