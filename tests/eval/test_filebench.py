"""The file benchmark's "right after index" state holds no model vector, whatever this machine's caches hold."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from eval import filebench
from eval.run import CachingEmbedder
from hookgraph.embed.queue import drain
from hookgraph.store import db_path
from hookgraph.store.vector_cache import user_cache
from hookgraph.sync import read_target, sync
from tests.conftest import TINY_APP, make_repo


def _model_vectors(db: Path) -> int:
    with sqlite3.connect(db) as plain:
        return int(plain.execute("SELECT count(*) FROM vectors").fetchone()[0])


@pytest.mark.parametrize("states", [("pending",), filebench.STATES])
def test_a_pending_index_takes_nothing_from_a_warm_vector_cache(
        states: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder) -> None:
    """128 vectors a README try-out left in the user's cache took aiohttp's pending NDCG from 0.892 to 0.911."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOOKGRAPH_EVAL_CACHE", str(tmp_path / "eval-cache"))
    monkeypatch.delenv("HOOKGRAPH_CACHE_MB", raising=False)
    monkeypatch.delenv("HOOKGRAPH_REPO_CACHE_MB", raising=False)
    repo = make_repo(tmp_path / "tiny", {"app.py": TINY_APP})
    tried = tmp_path / "tried"  # someone ran hookgraph on the same code before: its vectors are in the user cache
    shutil.copytree(repo, tried)
    sync(tried, read_target(tried, "head"), full=True, embedder=embedder, background=False)
    cache = user_cache(tried)
    drain(db_path(tried), embedder, caches=[cache])
    assert cache.count() > 0  # the cache really is warm with this code's texts

    caching = CachingEmbedder(embedder, tmp_path / "eval-cache" / "vectors.sqlite")
    paths = filebench.build_indexes("tiny", repo, caching, states)

    assert _model_vectors(paths["pending"]) == 0
    if "complete" in states:
        assert _model_vectors(paths["complete"]) > 0
