"""Which sources of vectors the full check caught forging, kept in the index's meta.

A source (a committed snapshot, named by its commit; a vector cache, named
by its path) that the full check of every adopted vector
(:mod:`hookgraph.embed.recheck`) caught with a vector that differs from the
local model's is refused from then on without a sample: a sample would most
likely miss its few forged vectors again. Here, below every stage that asks
(a sync's adoption, the queue's cache reads), so each can ask.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hookgraph.store.store import Store

__all__ = ["DISTRUSTED_META", "distrust", "distrusted_sources", "still_distrusted"]

#: Meta key: ``{label: {"line": ..., "inode": ...}}`` of the sources caught; volatile (not the index's identity).
DISTRUSTED_META = "vector_sources_distrusted"


def distrusted_sources(store: Store) -> dict[str, dict[str, Any]]:
    """``{label: {"line": str, "inode": int | None}}``: the sources the full check caught with a forged vector."""
    raw = store.get_meta(DISTRUSTED_META)
    try:
        value = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    if not isinstance(value, dict):
        return {}
    return {str(k): v for k, v in value.items() if isinstance(v, dict) and isinstance(v.get("line"), str)}


def _inode(path: Path | None) -> int | None:
    try:
        return path.stat().st_ino if path is not None else None
    except OSError:
        return None


def still_distrusted(distrusted: dict[str, dict[str, Any]], label: str, path: Path | None) -> str | None:
    """The line that refuses ``label`` because the full check caught it, or None.

    A cache is one file: once it is deleted (its remedy) the new file
    hookgraph makes in its place is another source, told apart by its inode.
    A snapshot is named by its commit, so a new commit is a new source.
    """
    entry = distrusted.get(label)
    if entry is None:
        return None
    inode = entry.get("inode")
    if path is not None and inode is not None and _inode(path) != inode:
        return None
    return str(entry["line"])


def distrust(store: Store, label: str, line: str, path: Path | None = None) -> None:
    """Remember (in the caller's transaction) that the full check caught ``label``; ``status`` shows ``line``."""
    known = distrusted_sources(store)
    known[label] = {"line": line, "inode": _inode(path)}
    store.set_meta(DISTRUSTED_META, json.dumps(known, sort_keys=True))
