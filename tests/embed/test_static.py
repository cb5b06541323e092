"""The static code embedding: the shipped table read without numpy, every unit's vector written in the sync."""

from __future__ import annotations

import math
from pathlib import Path

import apsw
import numpy as np
import pytest

from hookgraph.embed import static as static_embedding
from hookgraph.embed.static import StaticModel, quantize_unit, shipped_model, static_words
from hookgraph.search import search
from hookgraph.store import Store, db_path
from hookgraph.sync import read_target, sync

from tests.conftest import commit_all, make_repo, run_cli, write_files


@pytest.fixture(scope="module")
def model() -> StaticModel:
    loaded = shipped_model()
    assert loaded is not None, "the static table must ship inside the package"
    return loaded


def test_the_shipped_table_is_what_its_sidecar_says(model: StaticModel) -> None:
    folder = static_embedding.MODEL_DIR
    assert model.sha256 == static_embedding._tables_sha(folder / "model.safetensors", folder / "vocab.txt")
    assert model.dims == 256 and model.rows == len(model.index) >= 20_000


def test_words_are_the_full_text_index_words() -> None:
    assert static_words("def getHTTPResponse_code(x1, y): return 42") == [
        "def", "get", "http", "response", "gethttpresponse", "code", "x1", "return"]


def test_the_standard_library_path_equals_numpy(model: StaticModel) -> None:
    texts = [f"function retry_request_{i}\nretry the request with exponential backoff until max tries"
             for i in range(static_embedding._NUMPY_FROM + 6)]
    texts.append("zzqxv qqzzv")  # no known word
    many = model.embed_many(texts)
    assert many[-1] is None and model.embed(texts[-1]) is None
    few = model.embed_many(texts[:3])  # below the numpy threshold: the standard library's path
    for text, blob, small in zip(texts[:-1], many[:-1], few + [None] * len(texts)):
        one = model.embed(text)
        assert one is not None and blob is not None
        assert math.isclose(float(np.linalg.norm(one)), 1.0, abs_tol=1e-9)
        values = np.frombuffer(blob, dtype=np.int8).astype(np.float64)
        assert float(np.dot(values / np.linalg.norm(values), one)) > 0.9999
        if small is not None:
            assert small == quantize_unit(one)


def test_related_code_is_nearer_than_unrelated(model: StaticModel) -> None:
    question = model.embed("where is the password hashed before it is stored?")
    hashing = model.embed("def make_password(raw):\n    salt = os.urandom(16)\n    return pbkdf2_hmac('sha256', raw, salt)")
    drawing = model.embed("def draw_circle(canvas, x, y, r):\n    canvas.arc(x, y, r, 0, 360)")
    assert question and hashing and drawing
    assert float(np.dot(question, hashing)) > float(np.dot(question, drawing)) + 0.05


def test_quantized_vectors_keep_their_direction(model: StaticModel) -> None:
    vector = model.embed("open a socket and read the response headers")
    assert vector is not None
    values = np.frombuffer(quantize_unit(vector), dtype=np.int8).astype(np.float32)
    assert float(np.dot(values / np.linalg.norm(values), vector)) > 0.999


def test_every_unit_gets_its_static_vector_in_the_sync_and_loses_it_with_the_unit(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {
        "auth.py": "def hash_password(raw):\n    '''Hash a password with a salt.'''\n    return pbkdf2(raw)\n\n\n"
                   "def check_password(raw, stored):\n    return hash_password(raw) == stored\n",
        "draw.py": "def draw_circle(canvas, r):\n    canvas.arc(0, 0, r)\n",
    })
    sync(root, read_target(root, "head"))
    with Store(db_path(root)) as store:
        units = store.integer("SELECT count(*) FROM units")
        assert units >= 5 and store.integer("SELECT count(*) FROM static_vectors") == units
    write_files(root, {"draw.py": "def draw_square(canvas, side):\n    canvas.rect(0, 0, side, side)\n"})
    commit_all(root)
    sync(root, read_target(root, "head"))
    with Store(db_path(root)) as store:
        assert store.integer("SELECT count(*) FROM static_vectors") == store.integer("SELECT count(*) FROM units")
        orphans = store.integer("SELECT count(*) FROM static_vectors WHERE unit_id NOT IN (SELECT id FROM units)")
        assert orphans == 0


def test_meaning_ranks_before_any_model_vector(tmp_path: Path) -> None:
    """No model vector at all (``ask`` right after ``index``): the static vectors still find code by meaning."""
    root = make_repo(tmp_path / "repo", {
        "security.py": "def make_digest(raw, salt):\n    return pbkdf2_hmac('sha256', raw.encode(), salt, 100000)\n",
        "shapes.py": "def draw_circle(canvas, x, y, r):\n    canvas.arc(x, y, r, 0, 360)\n",
        "network.py": "def open_socket(host, port):\n    return socket.create_connection((host, port))\n",
    })
    sync(root, read_target(root, "head"))
    with Store(db_path(root)) as store:
        results = search(store, "where are passwords hashed", top=3, embedder=None)
    assert results and results[0].unit.path == "security.py"


def test_a_store_from_before_the_table_gets_its_static_vectors_at_the_next_sync(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"a.py": "def alpha():\n    return 1\n\n\ndef beta():\n    return alpha()\n"})
    sync(root, read_target(root, "head"))
    with Store(db_path(root)) as store:
        store.db.execute("DELETE FROM static_vectors")
        store.db.execute("DELETE FROM meta WHERE key = 'static_model'")
    sync(root, read_target(root, "head"))
    with Store(db_path(root)) as store:
        assert store.integer("SELECT count(*) FROM static_vectors") == store.integer("SELECT count(*) FROM units") > 0


def test_index_and_ask_from_the_command_line_use_static_vectors(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {
        "retry.py": "def with_backoff(call, tries=5):\n    for n in range(tries):\n        try:\n            return call()\n"
                    "        except OSError:\n            time.sleep(2 ** n)\n",
        "colors.py": "def blend(a, b):\n    return tuple((x + y) / 2 for x, y in zip(a, b))\n",
    })
    assert run_cli(root, "index").returncode == 0
    db = apsw.Connection(str(db_path(root)), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        assert db.execute("SELECT count(*) FROM static_vectors").fetchall()[0][0] >= 3
    finally:
        db.close()
