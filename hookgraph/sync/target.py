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
from hookgraph.parse.filters import DEFAULT_MAX_BYTES
from hookgraph.plural import count, verb
from hookgraph.errors import HookgraphError

TARGETS = ("head", "index", "worktree")
#: At most this many untracked files join a working-tree target (the MCP server's view, ``index --worktree``):
#: a scratch folder nobody ignored must not turn every answer into a sync of thousands of files.
MAX_UNTRACKED = 200


class SyncError(HookgraphError):
    """The sync cannot proceed; the message is one line for the user."""


@dataclass
class Target:
    """What the store should describe: ``{path: Entry}`` and where to read contents."""

    kind: str
    entries: dict[str, git.Entry]
    #: Contents that are not (yet) git objects: working-tree edits.
    overrides: dict[str, bytes] = field(default_factory=dict)
    commit: str | None = None
    #: Untracked files of the working tree taken in, and those left out (more than :data:`MAX_UNTRACKED`).
    untracked: list[str] = field(default_factory=list)
    untracked_left_out: list[str] = field(default_factory=list)
    #: Work-tree files that exist but this user may not read: a tracked one keeps the git index's entry
    #: (its units stay as they were, never "deleted"), an untracked one is left out; both are named.
    unreadable: list[str] = field(default_factory=list)

    def leave_out_untracked(self) -> list[str]:
        """Drop the untracked files taken in (too much to sync at once); the paths dropped."""
        dropped = self.untracked
        for path in dropped:
            self.entries.pop(path, None)
            self.overrides.pop(path, None)
        self.untracked_left_out = sorted(set(self.untracked_left_out) | set(dropped))
        self.untracked = []
        return dropped


def read_target(root: Path, kind: str) -> Target:
    """The tree the store should match: HEAD (default), the index, or the working tree.

    The working tree includes the files git neither tracks nor ignores (an
    agent's new file is part of what it sees), up to :data:`MAX_UNTRACKED` of
    them; those the indexer would skip by name or size anyway (vendored,
    binary, too large) are not read.
    """
    if kind == "head":
        return Target(kind, git.tree_map(root), commit=git.head_commit(root))
    entries = git.index_map(root)
    if kind == "index":
        return Target(kind, entries, commit=git.head_commit(root))
    if kind != "worktree":
        raise SyncError(f"unknown sync target {kind!r}: use one of {', '.join(TARGETS)}")
    overrides: dict[str, bytes] = {}
    unreadable: list[str] = []
    for raw in git.worktree_changes(root):
        path = git.path_key(raw)
        if path in entries and not entries[path].regular:
            continue  # a submodule that moved, a symlink: listed as the index has them, never read
        found = git.worktree_blob(root, raw, DEFAULT_MAX_BYTES)  # a file too large to index is never held whole
        if found is None:
            _not_a_readable_file(root, raw, path, entries, unreadable)
            continue
        sha, size, data = found
        entries[path] = git.Entry(sha, size)
        if data is not None:
            overrides[path] = data
    target = Target(kind, entries, overrides, commit=git.head_commit(root), unreadable=unreadable)
    _add_untracked(root, target)
    return target


def _not_a_readable_file(root: Path, raw: str, path: str, entries: dict[str, git.Entry],
                         unreadable: list[str]) -> None:
    """A tracked path whose work-tree file could not be read: what it is decides what the target holds.

    Gone: it leaves the target. A link (a loop too): a link entry, skipped with its reason like a tracked
    link. Unreadable (permissions): the git index's entry stays, so its units are kept and it is named,
    never counted as deleted. Anything else (a FIFO, a folder): it leaves the target, as before.
    """
    kind = git.worktree_kind(root, raw)
    if kind == git.SYMLINK:
        link = git.worktree_symlink_entry(root, raw)
        if link is not None:
            entries[path] = link
            return
    if kind == git.UNREADABLE:
        unreadable.append(path)
        if path in entries:
            return
    entries.pop(path, None)


def untracked_left_out_line(left_out: list[str], where: str) -> str:
    """The one line for untracked files left out (``where``: "indexed", "in these answers"), with the remedy."""
    n = len(left_out)
    return (f"{count(n, 'untracked file')} {verb(n, 'is', 'are')} not {where} (too many to take in at once; at "
            f"most {MAX_UNTRACKED}): `git add` the ones to search, list the rest in .gitignore")


def unreadable_line(paths: list[str]) -> str:
    """The one line for work-tree files that cannot be read, with what became of them and the remedy."""
    n = len(paths)
    listed = ", ".join(paths[:3]) + (f" and {n - 3} more" if n > 3 else "")
    return (f"{count(n, 'file')} cannot be read (permission denied): {listed}; a tracked one keeps the units "
            f"indexed from the git index's version, an untracked one is left out: make {verb(n, 'it', 'them')} "
            "readable (chmod u+r) and sync again")


def _add_untracked(root: Path, target: Target) -> None:
    from hookgraph.parse.filters import path_skip_reason

    # what the indexer would skip by name (vendored, binary, data) is not counted, nor read
    raws = [raw for raw in git.untracked_files(root) if path_skip_reason(git.path_key(raw), None) is None]
    if len(raws) > MAX_UNTRACKED:
        target.untracked_left_out = sorted(git.path_key(raw) for raw in raws)
        return
    for raw in raws:
        path = git.path_key(raw)
        try:
            size = (root / raw).lstat().st_size
        except OSError:
            continue
        if path_skip_reason(path, size) is not None:  # too large
            continue
        data = git.read_worktree_file(root, raw, DEFAULT_MAX_BYTES)
        if data is not None:
            target.entries[path] = git.Entry(git.blob_sha(data), len(data))
            target.overrides[path] = data
            target.untracked.append(path)
            continue
        kind = git.worktree_kind(root, raw)
        link = git.worktree_symlink_entry(root, raw) if kind == git.SYMLINK else None
        if link is not None:  # listed as a link, never followed (a loop included): skipped with its reason
            target.entries[path] = link
            target.untracked.append(path)
        elif kind == git.UNREADABLE:
            target.unreadable.append(path)
