"""What the store's tests stand on, written once: a real git repository synced into a real index."""

from __future__ import annotations

from pathlib import Path

from hookgraph.store import db_path
from hookgraph.sync import read_target, sync
from tests.conftest import make_repo


def synced_database(where: Path, files: dict[str, str | bytes]) -> Path:
    """The index of a repository made in ``where`` with ``files`` committed, synced from HEAD without the model
    (its texts stay queued)."""
    root = make_repo(where / "repo", files)
    sync(root, read_target(root, "head"))
    return db_path(root)
