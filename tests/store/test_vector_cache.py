"""The vector caches outside the index: bounded, shared by concurrent writers, never trusted blindly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import apsw
import numpy as np
import pytest

from hookgraph.store import quantize, vector_cache
from hookgraph.store.vector_cache import CachedVector, VectorCache, repo_cache, user_cache
from tests.conftest import make_repo

DIMS = 384


def vector(seed: int, windows: int = 1) -> CachedVector:
    rng = np.random.default_rng(seed)
    arrays = [quantize(rng.standard_normal(DIMS).astype(np.float32)) for _ in range(windows)]
    return CachedVector(seed.to_bytes(16, "big"), DIMS, windows, windows > 1, b"".join(arrays))


def test_vectors_come_back_exactly_and_only_at_their_size(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path / "vectors.db", 16 << 20)
    one, three = vector(1), vector(2, windows=3)
    assert cache.put_many([one, three]) == 2
    assert cache.put_many([one]) == 0  # already there: left as it is
    got = cache.get_many([one.key, three.key, vector(3).key], DIMS)
    assert got == {one.key: one, three.key: three}
    assert got[three.key].arrays().shape == (3, DIMS) and got[three.key].truncated
    assert cache.get_many([one.key], 768) == {}  # another model's dimensions: never used
    cache.close()
    # a row whose embedding does not have windows x dims bytes is not a vector of ours
    db = apsw.Connection(str(tmp_path / "vectors.db"))
    db.execute("UPDATE vectors SET embedding = x'0102' WHERE key = ?", (one.key,))
    db.close()
    assert VectorCache(tmp_path / "vectors.db", 16 << 20).get_many([one.key, three.key], DIMS) == {three.key: three}


def test_the_cache_stays_within_its_bound_and_forgets_the_least_recently_used(tmp_path: Path) -> None:
    path = tmp_path / "vectors.db"
    cache = VectorCache(path, 300 * 1024)
    cache.put_many([vector(i) for i in range(200)])
    cache.get_many([vector(i).key for i in range(10)], DIMS)  # these ten were used again since
    for start in range(200, 650, 50):  # ~550 B a row: 650 rows are a little over 300 KB
        cache.put_many([vector(i) for i in range(start, start + 50)])
    db = apsw.Connection(str(path))
    page_size, pages, free = (db.execute(f"PRAGMA {p}").fetchall()[0][0] for p in ("page_size", "page_count",
                                                                                   "freelist_count"))
    db.close()
    assert (pages - free) * page_size <= 300 * 1024
    kept = cache.get_many([vector(i).key for i in range(650)], DIMS)
    assert 100 < len(kept) < 650
    assert all(vector(i).key in kept for i in range(10)), "recently used vectors were evicted before old ones"
    assert not all(vector(i).key in kept for i in range(10, 200)), "nothing old was evicted"
    assert all(vector(i).key in kept for i in range(600, 650)), "the newest vectors were evicted"


_WRITER = """
import sys
sys.path.insert(0, {root!r})
from tests.store.test_vector_cache import vector
from hookgraph.store import vector_cache
from hookgraph.store.vector_cache import VectorCache
# Whatever the machine's load: a lock held past BUSY_MS (a commit's fsync on a busy disk) drops a batch by
# design (the cache only saves model time); what this checks is that writers who get the lock lose nothing.
vector_cache.BUSY_MS = 60_000
cache = VectorCache(__import__("pathlib").Path({path!r}), 64 << 20)
first = int(sys.argv[1])
for start in range(first, first + 600, 50):
    cache.put_many([vector(i) for i in range(start, start + 50)])
    cache.put_many([vector(100000 + i) for i in range(start % 300, start % 300 + 50)])  # both write these
assert cache.problem is None, cache.problem
"""


def test_concurrent_writers_lose_nothing_and_fail_nothing(tmp_path: Path) -> None:
    path = tmp_path / "vectors.db"
    code = _WRITER.format(root=str(Path(__file__).resolve().parents[2]), path=str(path))
    procs = [subprocess.Popen([sys.executable, "-c", code, str(first)], stderr=subprocess.PIPE, text=True)
             for first in (0, 10000, 20000)]
    for proc in procs:
        _out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    cache = VectorCache(path, 64 << 20)
    wanted = [vector(i).key for first in (0, 10000, 20000) for i in range(first, first + 600)]
    assert len(cache.get_many(wanted, DIMS)) == 1800
    assert cache.count() == 1800 + 300


def test_a_cache_busy_while_it_is_opened_is_used_once_it_is_free(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process creating the file (its first lock) made the cache unusable for the whole run: a
    background embedder then recomputed every vector it could have reused. Busy is for now, not for good."""
    monkeypatch.setattr(vector_cache, "BUSY_MS", 50)
    path = tmp_path / "vectors.db"
    other = apsw.Connection(str(path))
    other.execute("PRAGMA locking_mode=EXCLUSIVE")
    other.execute("BEGIN EXCLUSIVE")
    cache = VectorCache(path, 16 << 20)
    assert cache.put_many([vector(1)]) == 0 and cache.get_many([vector(1).key], DIMS) == {}
    assert cache.problem is None
    other.execute("ROLLBACK")
    other.close()
    assert cache.put_many([vector(1)]) == 1 and vector(1).key in cache.get_many([vector(1).key], DIMS)
    assert cache.problem is None


@pytest.mark.parametrize("plant", [
    "CREATE TRIGGER evil AFTER INSERT ON vectors BEGIN DELETE FROM vectors; END",
    "CREATE TABLE extra(x)",
    "PRAGMA application_id = 1",
])
def test_a_cache_that_is_not_ours_is_left_alone_and_said_so(tmp_path: Path, plant: str) -> None:
    path = tmp_path / "vectors.db"
    cache = VectorCache(path, 16 << 20)
    cache.put_many([vector(1)])
    cache.close()
    db = apsw.Connection(str(path))
    db.execute(plant)
    db.close()
    before = path.read_bytes()
    cache = VectorCache(path, 16 << 20)
    assert cache.get_many([vector(1).key], DIMS) == {} and cache.put_many([vector(2)]) == 0
    assert cache.problem and "not a hookgraph vector cache" in cache.problem
    cache.close()
    assert path.read_bytes() == before


def test_garbage_and_symlinks_are_refused(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage" / "vectors.db"
    garbage.parent.mkdir()
    garbage.write_bytes(b"not a database" * 100)
    cache = VectorCache(garbage, 16 << 20)
    assert cache.get_many([vector(1).key], DIMS) == {} and cache.problem
    real = tmp_path / "real.db"
    VectorCache(real, 16 << 20).put_many([vector(1)])
    linked = tmp_path / "linked" / "vectors.db"
    linked.parent.mkdir()
    os.symlink(real, linked)
    cache = VectorCache(linked, 16 << 20)
    assert cache.get_many([vector(1).key], DIMS) == {} and "symlink" in (cache.problem or "")


def test_sizes_come_from_the_environment_and_the_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOOKGRAPH_CACHE_MB", "0")
    assert user_cache(repo).max_bytes == 0 and user_cache(repo).put_many([vector(1)]) == 0  # off
    assert not (tmp_path / "xdg" / "hookgraph" / "vectors.db").exists()
    monkeypatch.delenv("HOOKGRAPH_CACHE_MB")
    (repo / ".hookgraph").mkdir()
    (repo / ".hookgraph" / "config.toml").write_text("[cache]\nuser_mb = 2\nrepo_mb = 3\n")
    assert user_cache(repo).max_bytes == 2 << 20
    cache = repo_cache(repo)
    assert cache is not None and cache.max_bytes == 3 << 20
    assert cache.path == (repo / ".git" / "hookgraph" / "vectors.db").resolve()
