"""A vector cache that cannot be used now is told by its real cause: advice never destroys a sound cache.

The week's failure: on a full disk ``status`` said of the healthy repository cache "delete it (`rm
.git/hookgraph/vectors.db`)" - SQLite's "disk I/O error" read as a broken file. Only a file that is itself
unusable (garbage, a link, not ours) may be deleted; a full disk or a read-only place is named as such.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tests.conftest import run_cli
from tests.scenarios.test_faults import fill, indexed_app, tmpfs


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_full_disk_never_advises_deleting_the_sound_repository_cache(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "disk", "6m") as disk:
        root = indexed_app(disk)
        cache = root / ".git" / "hookgraph" / "vectors.db"
        assert cache.is_file()
        before = _sha(cache)
        filler = fill(disk, 0)
        for args in (("status",), ("status", "--json")):
            proc = run_cli(root, *args)
            assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
            said = proc.stdout + proc.stderr
            assert "rm " not in said and "delete it" not in said, said
        refused = json.loads(run_cli(root, "status", "--json").stdout)["vector_sources_refused"]
        assert len(refused) == 1 and str(cache) in refused[0], refused
        assert "free some space" in refused[0] and "not deleted" in refused[0], refused
        filler.unlink()
        assert _sha(cache) == before  # nothing was done to it
        assert json.loads(run_cli(root, "status", "--json").stdout)["vector_sources_refused"] == []


def test_a_cache_that_is_not_a_database_is_still_one_to_delete(tmp_path: Path) -> None:
    root = indexed_app(tmp_path)
    cache = root / ".git" / "hookgraph" / "vectors.db"
    cache.write_bytes(b"this is not SQLite at all" * 100)
    for suffix in ("-wal", "-shm"):
        cache.with_name(cache.name + suffix).unlink(missing_ok=True)
    refused = json.loads(run_cli(root, "status", "--json").stdout)["vector_sources_refused"]
    assert len(refused) == 1 and f"delete it (`rm {cache}`)" in refused[0], refused
