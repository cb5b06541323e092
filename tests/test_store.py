"""The SQLite store: schema, migrations, safety settings, identifier words."""

from __future__ import annotations

from pathlib import Path

import apsw
import numpy as np
import pytest

from hookgraph.store import (
    MIGRATIONS, Store, StoreError, UntrustedStoreError, _load_vec, _vec_table_sql, dequantize, identifier_words,
    quantize,
)


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


def _unit(rng: np.random.Generator, dims: int) -> np.ndarray:
    v = rng.standard_normal(dims).astype(np.float32)
    return v / np.linalg.norm(v)


def test_int8_round_trip_keeps_the_direction() -> None:
    rng = np.random.default_rng(1)
    for _ in range(50):
        v = _unit(rng, 384)
        blob = quantize(v)
        assert len(blob) == 384 and max(abs(int(b)) for b in np.frombuffer(blob, np.int8)) == 127
        assert float(dequantize(blob) @ v) > 0.9999
        assert quantize(np.frombuffer(blob, np.int8)) == blob  # an int8 vector passes through
    assert quantize(np.zeros(4, np.float32)) == bytes(4)  # no division by zero


def test_int8_knn_ranks_like_float_cosine(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    vectors = [_unit(rng, 64) for _ in range(300)]
    with Store(tmp_path / "i.db", create=True) as store:
        store.ensure_vector_table(64)
        with store.transaction():
            ids = [store.insert_vector(f"h{i}", v, "python") for i, v in enumerate(vectors)]
        for _ in range(10):
            q = _unit(rng, 64)
            exact = sorted(range(len(vectors)), key=lambda i: -float(vectors[i] @ q))[:10]
            hits = store.knn(q, 10)
            assert [v for v, _ in hits][:3] == [ids[i] for i in exact[:3]]
            assert len({v for v, _ in hits} & {ids[i] for i in exact}) >= 9
            for vid, distance in hits:
                assert abs((1 - distance) - float(vectors[ids.index(vid)] @ q)) < 0.01


def _schema_2_store(path: Path, vectors: list[np.ndarray]) -> None:
    """A store as hookgraph wrote it before int8 (schema 2, float32 vec table), with a cached orphan."""
    db = apsw.Connection(str(path))
    _load_vec(db)
    with db:
        for migration in MIGRATIONS[:2]:
            migration(db)
        db.execute("PRAGMA user_version=2")
        db.execute(_vec_table_sql(len(vectors[0]), int8=False))
        for i, v in enumerate(vectors, start=1):
            db.execute("INSERT INTO vectors(id, text_hash) VALUES (?, ?)", (i, f"h{i}"))
            db.execute("INSERT INTO vec_units(rowid, embedding, language) VALUES (?, ?, 'python')", (i, v.tobytes()))
        db.execute("INSERT INTO units(path, kind, name, qualname, start_line, end_line, language, signature, "
                   "docstring, vector_id) VALUES ('p.py', 'function', 'f', 'f', 1, 2, 'python', '', '', 1)")
        db.execute("INSERT INTO files(path, blob, status) VALUES ('p.py', ?, 'indexed')", ("a" * 40,))
        db.execute("INSERT INTO vector_cache(text_hash, language, embedding, orphaned_seq) VALUES "
                   "('gone', 'python', ?, 1), ('junk', 'python', x'0102', 2)", (vectors[0].tobytes(),))
    db.close()


def test_schema_2_float_vectors_migrate_to_int8(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    vectors = [_unit(rng, 32) for _ in range(2500)]  # more than one batch of the migration
    path = tmp_path / "index.db"
    _schema_2_store(path, vectors)
    with Store(path) as store:
        assert store._version() == len(MIGRATIONS)
        assert "int8[32]" in store.db.execute("SELECT sql FROM sqlite_master WHERE name = 'vec_units'").fetchall()[0][0]
        assert store.vector_dims() == 32
        rows = dict(store.db.execute("SELECT rowid, embedding FROM vec_units").fetchall())
        assert len(rows) == len(vectors)
        for i in (1, 1000, 2500):
            assert len(rows[i]) == 32 and float(dequantize(rows[i]) @ vectors[i - 1]) > 0.999
        assert [v for v, _ in store.knn(vectors[41], 1)] == [42]
        cache = dict(store.db.execute("SELECT text_hash, embedding FROM vector_cache").fetchall())
        assert set(cache) == {"gone"} and len(cache["gone"]) == 32  # converted; the unusable row dropped
        with store.transaction():
            revived = store.revive_vector("gone")
        assert revived is not None and store.knn(vectors[0], 1)[0][1] < 0.001
    with Store(path, readonly=True) as store:  # reopens as a trusted schema-3 store
        store.check_contents()


def test_int8_table_in_a_schema_2_store_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    _schema_2_store(path, [np.full(8, 8 ** -0.5, np.float32)])
    db = apsw.Connection(str(path))
    _load_vec(db)
    db.execute("DROP TABLE vec_units")
    db.execute(_vec_table_sql(8, int8=True))
    db.close()
    with pytest.raises(UntrustedStoreError):
        Store(path)


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
