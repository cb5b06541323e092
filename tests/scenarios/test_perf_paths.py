"""Correctness of the fast paths of the hooks, the store and the embedder (their speed is measured in benchmarks/, never here)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from hookgraph import config, embed, git
from hookgraph.embed import model_file
from hookgraph.store import snapshot
from hookgraph.models import default_model_path
from hookgraph.models.presets import read_gguf_metadata
from hookgraph.store import Store, db_path
from hookgraph.sync import read_target, sync
from tests.conftest import index_now, make_repo
from tests.helpers.hook_helpers import MATH, TEXT


def test_gguf_header_is_cached_by_path_size_and_mtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    model = tmp_path / "m.gguf"
    shutil.copyfile(default_model_path(), model)
    calls: list[Path] = []
    real = model_file.read_gguf_metadata

    def counting(path: Path) -> dict:
        calls.append(path)
        return real(path)

    monkeypatch.setattr(model_file, "read_gguf_metadata", counting)
    first = model_file.cached_metadata(model)
    assert first == read_gguf_metadata(model) and len(calls) == 1
    assert model_file.cached_metadata(model) == first and len(calls) == 1  # from the cache file
    assert embed.Embedder(model).dims == 384 and len(calls) == 1
    stat = model.stat()
    os.utime(model, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))  # the file changed: read again
    assert model_file.cached_metadata(model) == first and len(calls) == 2
    cache = json.loads((tmp_path / "cache" / "hookgraph" / "gguf-headers.json").read_text())
    assert len(cache) == 1  # the stale entry of that file was replaced
    (tmp_path / "cache" / "hookgraph" / "gguf-headers.json").write_text("{not json")
    assert model_file.cached_metadata(model) == first and len(calls) == 3  # a broken cache is only a miss


def test_sync_streams_one_file_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder) -> None:
    """Each blob is read, parsed and written before the next is read: memory does not grow with the repo."""
    from hookgraph import parse

    files = {f"pkg/m{i}.py": MATH.replace("def ", f"def f{i}_", 1) for i in range(6)}
    repo = make_repo(tmp_path / "repo", files | {"calc/text.py": TEXT})
    events: list[str] = []
    read, parse_file = git.BlobReader.read, parse.parse_file

    def reading(self: git.BlobReader, *args, **kwargs):  # type: ignore[no-untyped-def]
        events.append("read")
        return read(self, *args, **kwargs)

    def parsing(path: str, data: bytes, **kwargs):  # type: ignore[no-untyped-def]
        events.append("parse")
        return parse_file(path, data, **kwargs)

    monkeypatch.setattr(git.BlobReader, "read", reading)
    monkeypatch.setattr(parse, "parse_file", parsing)
    sync(repo, read_target(repo, "head"), full=True, embedder=embedder)
    assert events.count("read") == 7
    assert events == ["read", "parse"] * 7


def test_shared_setting_goes_through_config(tmp_path: Path) -> None:
    root = tmp_path
    (root / ".hookgraph").mkdir()
    cfg = root / ".hookgraph" / "config.toml"
    cfg.write_text('# mine\n[model]\npath = "m.gguf"\nshared = true  # not the setting: inside [model]\n')
    assert not snapshot.is_shared(root)
    snapshot.write_shared_setting(root, True)
    assert snapshot.is_shared(root)
    data = config.load(root)
    assert data["shared"] is True and data["model"] == {"path": "m.gguf", "shared": True}
    assert cfg.read_text().startswith("# mine\nshared = true\n[model]")
    snapshot.write_shared_setting(root, False)
    assert not snapshot.is_shared(root) and config.load(root)["model"]["path"] == "m.gguf"
    cfg.write_text("shared = [unclosed\n")
    assert not snapshot.is_shared(root)  # unreadable: default mode
    with pytest.raises(config.ConfigError, match="config.toml"):
        snapshot.write_shared_setting(root, True)
    cfg.unlink()
    snapshot.write_shared_setting(root, True)
    assert snapshot.is_shared(root) and cfg.read_text().startswith(snapshot.CONFIG_TEMPLATE)


def test_an_int8_store_round_trips_through_sync_and_search(tmp_path: Path, embedder) -> None:
    """The whole write path stores int8 vectors, and a question still finds its function."""
    from hookgraph.search import search

    repo = make_repo(tmp_path / "repo", {"calc/math.py": MATH, "calc/text.py": TEXT})
    index_now(repo, embedder)
    with Store(db_path(repo), readonly=True) as store:
        sql = store.db.execute("SELECT sql FROM sqlite_master WHERE name = 'vec_units'").fetchall()[0][0]
        assert "int8[384]" in sql
        assert {len(r[0]) for r in store.db.execute("SELECT embedding FROM vec_units")} == {384}
        results = search(store, "shout a text in capital letters", embedder=embedder)
        assert results and results[0].semantic is not None


def test_snapshot_export_drops_the_orphan_cache_without_leaving_its_bytes(tmp_path: Path, embedder) -> None:
    repo = make_repo(tmp_path / "repo", {"calc/math.py": MATH, "calc/text.py": TEXT})
    index_now(repo, embedder)
    secret = b"UNCOMMITTED-EDIT" * 24  # 384 bytes, like an int8 vector
    with Store(db_path(repo)) as store:
        with store.transaction():
            store.db.execute("INSERT INTO vector_cache(text_hash, language, embedding, orphaned_seq) "
                             "VALUES ('x', 'python', ?, 1)", (secret,))
    dest = tmp_path / "shared.db"
    assert snapshot.export_snapshot(repo, dest=dest) is True
    assert secret[:32] not in dest.read_bytes()
    from hookgraph.store import vector_file

    with Store(db_path(repo), readonly=True) as store:
        live = {key for key, *_ in store.iter_vectors()}
    assert set(vector_file.read(dest).records) == live  # every live vector, no orphan
    assert snapshot.export_snapshot(repo, dest=dest) is False  # unchanged: not rewritten
