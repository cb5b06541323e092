"""The SQLite store: schema, migrations, safety settings, identifier words."""

from __future__ import annotations

import hashlib
from pathlib import Path

import apsw
import numpy as np
import pytest

from hookgraph.store import (
    MIGRATIONS, SCHEMA_VERSION, Store, StoreError, UntrustedStoreError, dequantize, quantize,
)
from hookgraph.parse.words import identifier_words
from hookgraph.store.connection import load_vec
from hookgraph.store.schema import user_version, vec_table_sql


def test_new_store_is_migrated_and_reopens(tmp_path: Path) -> None:
    path = tmp_path / ".hookgraph" / "index.db"
    with Store(path, create=True) as store:
        assert user_version(store.db) == len(MIGRATIONS)
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
            a = store.insert_vector(b"ha", np.array([1, 0, 0, 0], dtype=np.float32), "python")
            b = store.insert_vector(b"hb", np.array([0, 1, 0, 0], dtype=np.float32), "python")
            store.insert_units([("p.py", "function", "f", "f", None, 1, 2, "python", "def f()", "", a, None)],
                               [("f", "f", "p", "def f", "", "f")])
        assert store.vector_ids([b"ha", b"hb", b"hc"]) == {b"ha": a, b"hb": b}
        assert store.knn(np.array([0.9, 0.1, 0, 0], dtype=np.float32), 2)[0][0] == a
        with store.transaction():
            assert store.collect_orphan_vectors() == 1
        assert store.vector_ids([b"hb"]) == {}
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


def test_plain_floats_quantize_to_the_bytes_of_their_float32_array() -> None:
    """A query vector is a list of floats (ask never imports numpy); the store must see the same bytes."""
    rng = np.random.default_rng(3)
    for i in range(500):
        v = rng.standard_normal(384).astype(np.float32) * np.float32(rng.uniform(1e-3, 10))
        if i % 2:
            v = _unit(rng, 384)
        assert quantize(v.tolist()) == quantize(v)
        assert quantize([float(x) for x in v.astype(np.float64) / 3.0]) == quantize(v.astype(np.float64) / 3.0)
    for odd in ([0.0] * 4, [float("nan"), 1.0], [1.0, float("-inf")], [], [0.5, -0.5, 0.25]):
        assert quantize(odd) == quantize(np.asarray(odd, dtype=np.float32)), odd


def test_int8_knn_ranks_like_float_cosine(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    vectors = [_unit(rng, 64) for _ in range(300)]
    with Store(tmp_path / "i.db", create=True) as store:
        store.ensure_vector_table(64)
        with store.transaction():
            ids = [store.insert_vector(b"h%d" % i, v, "python") for i, v in enumerate(vectors)]
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
    load_vec(db)
    with db:
        for migration in MIGRATIONS[:2]:
            migration(db)
        db.execute("PRAGMA user_version=2")
        db.execute(vec_table_sql(len(vectors[0]), int8=False))
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
        assert user_version(store.db) == len(MIGRATIONS)
        assert "int8[32]" in store.db.execute("SELECT sql FROM sqlite_master WHERE name = 'vec_units'").fetchall()[0][0]
        assert store.vector_dims() == 32
        rows = dict(store.db.execute("SELECT rowid, embedding FROM vec_units").fetchall())
        assert len(rows) == len(vectors)
        for i in (1, 1000, 2500):
            assert len(rows[i]) == 32 and float(dequantize(rows[i]) @ vectors[i - 1]) > 0.999
        assert [v for v, _ in store.knn(vectors[41], 1)] == [42]
        cache = dict(store.db.execute("SELECT text_hash, embedding FROM vector_cache").fetchall())
        # converted; the unusable row dropped; a key hookgraph never wrote keeps its bytes (schema 4)
        assert set(cache) == {b"gone"} and len(cache[b"gone"]) == 32
        with store.transaction():
            revived = store.revive_vector(b"gone")
        assert revived is not None and store.knn(vectors[0], 1)[0][1] < 0.001
    with Store(path, readonly=True) as store:  # reopens as a trusted store of the latest schema
        store.check_contents()


def test_int8_table_in_a_schema_2_store_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    _schema_2_store(path, [np.full(8, 8 ** -0.5, np.float32)])
    db = apsw.Connection(str(path))
    load_vec(db)
    db.execute("DROP TABLE vec_units")
    db.execute(vec_table_sql(8, int8=True))
    db.close()
    with pytest.raises(UntrustedStoreError):
        Store(path)


RECIPE = "model-sha;prefix;512"


def _hex_key(text: str) -> str:
    """A vector key as schema 3 stored it: the whole SHA-256 of recipe and text, in hex."""
    return hashlib.sha256(RECIPE.encode() + b"\0" + text.encode()).hexdigest()


#: (source qualname, kind, target, target_full, line) of the schema-3 store's edges
EDGES = [
    ("f", "calls", "helper", "self.helper", 2),
    ("f", "calls", "g", "g", 3),
    ("g", "imports", "os", "os", 1),
    ("g", "imports", "sibling", ".sibling", 1),
    ("g", "inherits", "Base", "Base", 5),
]


def _schema_3_store(path: Path, vectors: list[np.ndarray]) -> dict[str, int]:
    """A store as schema 3 wrote it: hex keys, a text of three windows, a cached two-window text, edges with paths.

    ``vectors``: 1 (f), 3 (g's windows), 2 (the cached text's windows). Returns the unit ids.
    """
    db = apsw.Connection(str(path))
    load_vec(db)
    with db:
        for migration in MIGRATIONS[:3]:
            migration(db)
        db.execute("PRAGMA user_version=3")
        db.execute(vec_table_sql(len(vectors[0]), int8=True))
        keys = [(1, _hex_key("f"), None, 1, 0), (2, _hex_key("g"), None, 3, 1),
                (3, _hex_key("g") + "#1", 2, 1, 0), (4, _hex_key("g") + "#2", 2, 1, 0)]
        for (vid, key, head, windows, truncated), v in zip(keys, vectors):
            db.execute("INSERT INTO vectors(id, text_hash, head, windows, truncated) VALUES (?, ?, ?, ?, ?)",
                       (vid, key, head, windows, truncated))
            db.execute("INSERT INTO vec_units(rowid, embedding, language) VALUES (?, vec_int8(?), 'python')",
                       (vid, quantize(v)))
        for n, (key, v) in enumerate([(_hex_key("cached"), vectors[4]), (_hex_key("cached") + "#1", vectors[5])]):
            db.execute("INSERT INTO vector_cache(text_hash, language, embedding, orphaned_seq, windows, truncated) "
                       "VALUES (?, 'python', ?, ?, ?, 0)", (key, quantize(v), n + 1, 2 if n == 0 else 1))
        db.execute("INSERT INTO files(path, blob, status) VALUES ('p.py', ?, 'indexed')", ("a" * 40,))
        ids = {}
        for name, vid in (("f", 1), ("g", 2)):
            db.execute("INSERT INTO units(path, kind, name, qualname, start_line, end_line, language, signature, "
                       "docstring, vector_id) VALUES ('p.py', 'function', ?, ?, 1, 9, 'python', '', '', ?)",
                       (name, name, vid))
            ids[name] = db.last_insert_rowid()
        for source, kind, target, full, line in EDGES:
            db.execute("INSERT INTO edges(path, source_unit, kind, target, target_full, line) "
                       "VALUES ('p.py', ?, ?, ?, ?, ?)", (ids[source], kind, target, full, line))
    db.close()
    return ids


def test_schema_3_store_migrates_to_the_current_schema_and_answers_as_before(tmp_path: Path) -> None:
    from hookgraph.parse.compose import text_hash
    from hookgraph.search.graph import _imported_from_outside
    from hookgraph.store import window_key

    rng = np.random.default_rng(4)
    vectors = [_unit(rng, 16) for _ in range(6)]
    path = tmp_path / "index.db"
    ids = _schema_3_store(path, vectors)
    with Store(path) as store:
        assert user_version(store.db) == len(MIGRATIONS) == SCHEMA_VERSION
        assert store.pending_count() == 0  # schema 5: every migrated unit already has its vector
        # keys: 16 bytes, the one compose.text_hash computes now; windows keep "#<n>" after them
        f_key, g_key = text_hash(RECIPE, "f"), text_hash(RECIPE, "g")
        assert f_key == bytes.fromhex(_hex_key("f"))[:16]
        assert store.vector_info([f_key, g_key, text_hash(RECIPE, "h")]) == {f_key: (1, 1, False), g_key: (2, 3, True)}
        assert store.vector_ids([window_key(g_key, 1), window_key(g_key, 2)]) == {
            window_key(g_key, 1): 3, window_key(g_key, 2): 4}
        assert {r[0] for r in store.db.execute("SELECT typeof(text_hash) FROM vectors")} == {"blob"}
        # knn: a text counts once, at its best window, under its first window's id
        assert store.knn(vectors[0], 1)[0][0] == 1
        assert [v for v, _ in store.knn(vectors[3], 2)] == [2, 1]
        assert store.knn(vectors[3], 1)[0][1] < 0.001
        # edges: the same tuples; target_full stored only where it differs
        by_id = {v: k for k, v in ids.items()}
        got = [(by_id[s], k, t, full, line) for s, k, t, full, line in store.edges_from(list(ids.values()))]
        assert sorted(got) == sorted(EDGES)
        assert store.edges_to(["os", "sibling"], "imports") == [
            (ids["g"], "os", "os", 1), (ids["g"], "sibling", ".sibling", 1)]
        assert store.db.execute("SELECT count(*) FROM edges WHERE target_full IS NULL").fetchall()[0][0] == 3
        assert "path" not in {r[1] for r in store.db.execute("PRAGMA table_info(edges)")}
        assert _imported_from_outside(store, "p.py", "os") and not _imported_from_outside(store, "p.py", "sibling")
        assert not _imported_from_outside(store, "q.py", "os")
        # the cached text comes back whole, under its new key
        cached_key = text_hash(RECIPE, "cached")
        with store.transaction():
            revived = store.revive_vector(cached_key)
        assert revived is not None
        assert store.vector_info([cached_key])[cached_key] == (revived, 2, False)
        assert store.knn(vectors[5], 1) == [(revived, pytest.approx(0.0, abs=0.001))]
        assert store.db.execute("SELECT count(*) FROM vector_cache").fetchall()[0][0] == 0
        # orphaned again, it goes back to the cache under the 16-byte keys
        with store.transaction():
            assert store.collect_orphan_vectors() == 1
        assert sorted(r[0] for r in store.db.execute("SELECT text_hash FROM vector_cache")) == sorted(
            [cached_key, window_key(cached_key, 1)])
    with Store(path, readonly=True) as store:  # reopens as a trusted current-schema store
        store.check_contents()


@pytest.mark.parametrize("tamper", [
    "ALTER TABLE edges ADD COLUMN path TEXT",  # schema 3's column back
    "DROP INDEX edges_target; CREATE INDEX edges_target ON edges(target)",
    "DROP TABLE vector_cache; CREATE TABLE vector_cache(text_hash TEXT PRIMARY KEY, language TEXT NOT NULL, "
    "embedding BLOB NOT NULL, orphaned_seq INTEGER NOT NULL, windows INTEGER NOT NULL DEFAULT 1, "
    "truncated INTEGER NOT NULL DEFAULT 0)",
    "CREATE TRIGGER evil AFTER INSERT ON edges BEGIN DELETE FROM units; END",
    "DROP INDEX pending_order; CREATE INDEX pending_order ON pending(seq)",  # schema 5's queue
    "CREATE TRIGGER drain AFTER INSERT ON pending BEGIN DELETE FROM units; END",
])
def test_a_tampered_schema_is_refused(tmp_path: Path, tamper: str) -> None:
    path = tmp_path / "index.db"
    with Store(path, create=True) as store:
        store.ensure_vector_table(8)
        assert user_version(store.db) == SCHEMA_VERSION
    db = apsw.Connection(str(path))
    db.execute(tamper)
    db.close()
    with pytest.raises(UntrustedStoreError):
        Store(path)


def test_an_edge_from_no_unit_is_refused(tmp_path: Path) -> None:
    """Edges have no path since schema 4; one whose source unit is not stored was not written by a sync."""
    path = tmp_path / "index.db"
    with Store(path, create=True) as store:
        store.check_contents()
        store.insert_edges([(42, "calls", "f", "f", 1)])
        with pytest.raises(UntrustedStoreError, match="edge leaves unit 42"):
            store.check_contents()


def test_a_schema_3_layout_labelled_4_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    _schema_3_store(path, [_unit(np.random.default_rng(5), 8) for _ in range(6)])
    db = apsw.Connection(str(path))
    db.execute("PRAGMA user_version=4")
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


def test_queueing_in_batches_numbers_the_queue_as_one_text_at_a_time(tmp_path: Path) -> None:
    """A sync queues file after file with the ``seq`` it was handed back: each row takes the next number
    (a row already queued uses one up without raising the largest), as when each one looked ``max(seq)`` up."""
    with Store(tmp_path / "index.db", create=True) as store, store.transaction():
        a, b, c, d = (bytes([n]) * 16 for n in range(4))
        assert store.queue_texts([(a, "python", "A"), (b, "python", "B")]) == (2, 2)
        added, last = store.queue_texts([(c, "python", "C"), (a, "python", "A again")], last_seq=2)
        assert (added, last) == (1, 3)  # C took 3; A (queued already) took 4 but is not there
        assert store.queue_texts([(b, "python", "B again")], last_seq=last) == (0, 3)
        assert store.queue_texts([(d, "python", "D")], 2, last_seq=3) == (1, 4)
        assert store.queue_texts([(bytes([9]) * 16, "python", "E")]) == (1, 5)  # looked up when not handed
        rows = store.db.execute("SELECT text, priority, seq FROM pending ORDER BY seq").fetchall()
    assert [tuple(r) for r in rows] == [("A", 0, 1), ("B", 0, 2), ("C", 0, 3), ("D", 2, 4), ("E", 0, 5)]
