"""The SQLite store: schema, migrations, safety settings, identifier words."""

from __future__ import annotations

from pathlib import Path

import apsw
import numpy as np
import pytest

from hookgraph.store import MIGRATIONS, Store, StoreError, identifier_words


def test_new_store_is_migrated_and_reopens(tmp_path: Path) -> None:
    path = tmp_path / ".hookgraph" / "index.db"
    with Store(path, create=True) as store:
        assert store._version() == len(MIGRATIONS)
        store.set_meta("k", "v")
    with Store(path) as store:
        assert store.get_meta("k") == "v"
        assert store.db.execute("PRAGMA trusted_schema").fetchall()[0][0] == 0


def test_missing_store_is_an_error_unless_created(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="hookgraph index"):
        Store(tmp_path / "nope.db")


def test_future_schema_is_refused_with_advice(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    with Store(path, create=True) as store:
        store.db.execute(f"PRAGMA user_version={len(MIGRATIONS) + 5}")
    with pytest.raises(StoreError, match="newer hookgraph"):
        Store(path)


def test_garbage_file_is_refused_with_rebuild_advice(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="index --full"):
        Store(path)


def test_extension_loading_is_off_after_sqlite_vec(tmp_path: Path) -> None:
    with Store(tmp_path / "i.db", create=True) as store:
        with pytest.raises(apsw.Error):
            store.db.load_extension("/nonexistent/evil")
        assert store.db.execute("SELECT vec_version()").fetchall()[0][0].startswith("v")


def test_vectors_round_trip_and_orphans_are_collected(tmp_path: Path) -> None:
    with Store(tmp_path / "i.db", create=True) as store:
        store.ensure_vector_table(4)
        with store.transaction():
            a = store.insert_vector("ha", np.array([1, 0, 0, 0], dtype=np.float32), "python")
            b = store.insert_vector("hb", np.array([0, 1, 0, 0], dtype=np.float32), "python")
            store.insert_unit(("p.py", "function", "f", "f", None, 1, 2, "python", "def f()", "", a),
                              ("f", "f", "p", "def f", "", "f"))
        assert store.vector_ids(["ha", "hb", "hc"]) == {"ha": a, "hb": b}
        assert store.knn(np.array([0.9, 0.1, 0, 0], dtype=np.float32), 2)[0][0] == a
        with store.transaction():
            assert store.collect_orphan_vectors() == 1
        assert store.vector_ids(["hb"]) == {}
        assert [v for v, _ in store.knn(np.array([0, 1, 0, 0], dtype=np.float32), 5)] == [a]


@pytest.mark.parametrize(
    "text, words",
    [
        ("resolve_redirects", ["resolve", "redirects"]),
        ("getHTTPResponseCode", ["get", "http", "response", "code", "gethttpresponsecode"]),
        ("Session.request", ["session", "request"]),
        ("max_retries2", ["max", "retries", "2", "retries2"]),
    ],
)
def test_identifier_words(text: str, words: list[str]) -> None:
    assert identifier_words(text) == words
