"""Is the store fresh? Compare its ``{path: blob}`` map with HEAD, the index, the working tree.

We record the map, not a commit: the store describes HEAD exactly when its map
equals HEAD's tree (outside ``.hookgraph/``). That makes a commit made through
the pre-commit hook fresh at once, with no post-commit work.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from hookgraph import git
from hookgraph.parse.version import PARSER_META, parser_fingerprint
from hookgraph.store import Store
from hookgraph.sync.target import read_target


@dataclass
class Freshness:
    """The indexed commit (HEAD if the map matches it) and the paths that differ."""

    indexed_commit: str | None
    head: str | None
    stale_paths: list[str] = field(default_factory=list)

    @property
    def fresh(self) -> bool:
        return not self.stale_paths and self.indexed_commit is not None and self.indexed_commit == self.head


def _own(path: str) -> bool:
    return path.startswith(".hookgraph/")


def diff_maps(stored: dict[str, str], target: dict[str, git.Entry]) -> list[str]:
    """Paths whose blob differs between the store and a target (either side missing counts)."""
    paths = {p for p in stored if not _own(p)} | {p for p in target if not _own(p)}
    return sorted(p for p in paths if stored.get(p) != (target[p].blob if p in target else None))


def against_head(root: Path, store: Store) -> Freshness:
    """Freshness for ``ask``/``status``: HEAD when the map matches its tree, else the last known commit."""
    head = git.head_commit(root)
    stale = diff_maps(store.file_map(), git.tree_map(root) if head else {})
    indexed = head if not stale and head else store.get_meta("synced_commit")
    return Freshness(indexed, head, stale)


def against_index(root: Path, store: Store) -> list[str]:
    return diff_maps(store.file_map(), git.index_map(root))


def against_worktree(root: Path, store: Store) -> list[str]:
    return diff_maps(store.file_map(), read_target(root, "worktree").entries)


def _parsed_by_this_parser(store: Store) -> bool:
    """Whether every file of the index was parsed by the parser now running (see :mod:`hookgraph.parse.version`).

    An empty index is: nothing in it is old. An index from before the
    fingerprint was recorded is not: its parser is unknown.
    """
    if not store.integer("SELECT count(*) FROM files"):
        return True
    return store.get_meta(PARSER_META) == parser_fingerprint()


def older_parser_note(store: Store) -> str | None:
    """One line when the index was parsed by another version of the parser, with the remedy; else ``None``."""
    if _parsed_by_this_parser(store):
        return None
    return ("the index was parsed by another version of hookgraph: files not changed since keep the units it "
            "found; `hookgraph index --full` parses every file again")
