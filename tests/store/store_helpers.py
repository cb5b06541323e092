"""What the store's tests stand on, written once: a real git repository synced into a real index."""

from __future__ import annotations

import sys
from pathlib import Path

from hookgraph.store import db_path
from hookgraph.sync import read_target, sync

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from conftest import make_repo  # noqa: E402


def synced_database(where: Path, files: dict[str, str | bytes]) -> Path:
    """The index of a repository made in ``where`` with ``files`` committed, synced from HEAD without the model
    (its texts stay queued)."""
    root = make_repo(where / "repo", files)
    sync(root, read_target(root, "head"))
    return db_path(root)
