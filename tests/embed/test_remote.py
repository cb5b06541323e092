"""Embedding on a llama.cpp server: same GGUF, same vectors.

A real ``python -m llama_cpp.server`` on 127.0.0.1 (a free port) serves the
shipped model; the real CLI indexes a fixture repository through it and the
vectors are compared with the local model's, key by key. Failures are real
too: a port nobody listens on, a server running another model, a server
that answers 503 before it recovers.
"""

from __future__ import annotations

import json

import http.server
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from hookgraph import config
from hookgraph.embed import Embedder, EmbedderError
from hookgraph.embed.choice import embedder_for_repo
from hookgraph.embed.remote import RemoteEmbedder, normalize_embed_url
from hookgraph.models import default_model_path
from hookgraph.store import Store, db_path, dequantize
from tests.conftest import index_now, REQUESTS_FIXTURE, commit_all, make_repo, run_cli
from tests.helpers.tiny_models import TinyModels, make_tiny_models

pytest.importorskip("llama_cpp.server.app", reason="needs llama-cpp-python[server] (the test extra)")

#: A few real files of the requests fixture: enough units for many batches.
FILES = ["requests/sessions.py", "requests/adapters.py", "requests/auth.py", "README.md"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(model: Path, tmp: Path) -> tuple[str, subprocess.Popen]:
    """``python -m llama_cpp.server`` for ``model`` on 127.0.0.1; returns its base URL once it answers."""
    port = _free_port()
    log = open(tmp / f"server-{port}.log", "wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--embedding", "true",
         "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "512", "--n_batch", "512", "--n_ubatch", "512",
         "--n_threads", "2", "--n_threads_batch", "2", "--flash_attn", "true", "--verbose", "false"],
        stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"llama_cpp.server exited {proc.returncode}: {(tmp / f'server-{port}.log').read_text()[-2000:]}")
        try:
            urllib.request.urlopen(url + "/v1/models", timeout=2).read()
            return url, proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("llama_cpp.server did not come up in 90 s")


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    url, proc = start_server(default_model_path(), tmp_path_factory.mktemp("server"))
    try:
        yield url
    finally:
        stop(proc)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> TinyModels:
    return make_tiny_models(tmp_path_factory.mktemp("tiny"))


def _fixture_repo(path: Path) -> Path:
    for rel in FILES:
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REQUESTS_FIXTURE / rel, path / rel)
    make_repo(path)
    commit_all(path, "requests, a few files")
    return path


def _vectors(repo: Path) -> dict[str, np.ndarray]:
    with Store(db_path(repo), readonly=True) as store:
        rows = store.db.execute("SELECT v.text_hash, e.embedding FROM vectors v JOIN vec_units e ON e.rowid = v.id")
        return {h: dequantize(blob) for h, blob in rows}  # stored int8 (schema 3)


def test_index_through_the_server_gives_the_local_vectors(tmp_path: Path, server: str, embedder: Embedder) -> None:
    remote_repo = _fixture_repo(tmp_path / "remote")
    local_repo = _fixture_repo(tmp_path / "local")
    proc = run_cli(remote_repo, "index", "--embed-url", server)
    assert proc.returncode == 0, proc.stderr
    assert f"embedded by {server}/v1/embeddings, probe cosine 1.0" in proc.stdout or "probe cosine 0.99999" in proc.stdout
    index_now(local_repo, embedder)

    remote, local = _vectors(remote_repo), _vectors(local_repo)
    assert len(local) > 100 and remote.keys() == local.keys()  # same recipe, same texts, same windows
    keys = sorted(local)
    r = np.stack([remote[k] for k in keys])
    loc = np.stack([local[k] for k in keys])
    cos = (r * loc).sum(axis=1)
    print(f"remote vs local over {len(keys)} vectors: min cosine {cos.min():.7f}, mean {cos.mean():.7f}, "
          f"max abs diff {np.abs(r - loc).max():.2e}")
    # stored int8: a float difference of 1e-5 (the server sums in another order) can move a
    # component across a rounding step, so one vector may land at 0.9999-; another model is < 0.9
    assert cos.min() >= 0.9995 and cos.mean() >= 0.9999
    with Store(db_path(remote_repo), readonly=True) as a, Store(db_path(local_repo), readonly=True) as b:
        for key in ("model_sha256", "embed_recipe", "dims", "document_prefix"):
            assert a.get_meta(key) == b.get_meta(key)
    # The index is the local model's from then on: ask needs no server.
    answer = json.loads(run_cli(remote_repo, "ask", "--json", "how does the session resolve redirects", check=True).stdout)
    assert answer["results"][0]["symbol"] == "SessionRedirectMixin.resolve_redirects"


def test_config_url_batches_and_one_text_per_request_is_exact(tmp_path: Path, server: str,
                                                              embedder: Embedder) -> None:
    repo = make_repo(tmp_path / "r")
    config.set_value(repo, "embed", "url", server)
    config.set_value(repo, "embed", "batch_size", 4)
    remote = embedder_for_repo(repo, use_remote=True)  # what `hookgraph index` asks for
    assert isinstance(remote, RemoteEmbedder) and remote.batch_size == 4 and remote.url == server + "/v1/embeddings"
    assert not isinstance(embedder_for_repo(repo), RemoteEmbedder)  # hooks and queries stay local
    texts = [f"def handler_{i}(request):\n    return request.headers.get('X-Id-{i}')\n" * (1 + i % 3) for i in range(10)]
    got = remote.embed_documents(texts)
    assert remote.requests == 1 + 3  # the probe, then ceil(10 / 4) batches
    want = embedder.embed_documents(texts)
    batched = float((got * want).sum(axis=1).min())
    one = RemoteEmbedder(server, batch_size=1)
    single = float((one.embed_documents(texts) * want).sum(axis=1).min())
    print(f"probe cosine {remote.probe_cosine:.7f}; batches of 4: min cosine {batched:.7f}; "
          f"one text per request: min cosine {single:.7f}")
    assert remote.probe_cosine >= 0.99999 and batched >= 0.9999 and single >= 0.99999


def test_unreachable_server_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    repo = _fixture_repo(tmp_path / "r")
    port = _free_port()  # nobody listens there
    started = time.monotonic()
    proc = run_cli(repo, "index", "--embed-url", f"127.0.0.1:{port}")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith(f"hookgraph: cannot reach the embedding server at http://127.0.0.1:{port}/v1/embeddings")
    assert "after 4 tries" in proc.stderr and time.monotonic() - started < 30
    assert not db_path(repo).exists()  # the server is checked before anything is written


def test_a_server_running_another_model_is_refused(tmp_path: Path, server: str, tiny: TinyModels) -> None:
    with pytest.raises(EmbedderError, match="returns 384-dimensional vectors but e5-small-tiny-test .* has 64"):
        RemoteEmbedder(server, tiny.a).embed_documents(["x"])
    url, proc = start_server(tiny.b, tmp_path)  # same shape and name as tiny.a, other weights
    try:
        remote = RemoteEmbedder(url, tiny.a)
        with pytest.raises(EmbedderError, match=r"does not embed like e5-small-tiny-test.q8_0.gguf .*probe cosine"):
            remote.embed_documents(["def f(): pass"])
        assert remote.requests == 1  # refused at the probe: no document was sent
    finally:
        stop(proc)


class _Flaky(http.server.BaseHTTPRequestHandler):
    """A real HTTP front that answers 503 to the first POSTs, then forwards to the real server."""

    failures = 0
    upstream = ""

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if type(self).failures > 0:
            type(self).failures -= 1
            self.send_response(503)
            self.end_headers()
            self.wfile.write(b"loading model")
            return
        req = urllib.request.Request(type(self).upstream + self.path, data=body,
                                     headers={"Content-Type": "application/json"})
        data = urllib.request.urlopen(req, timeout=60).read()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


def test_server_errors_are_retried_with_backoff(server: str, embedder: Embedder) -> None:
    _Flaky.failures, _Flaky.upstream = 2, server
    front = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Flaky)
    thread = threading.Thread(target=front.serve_forever, daemon=True)
    thread.start()
    try:
        remote = RemoteEmbedder(f"http://127.0.0.1:{front.server_address[1]}/v1", backoff=0.05)
        got = remote.embed_documents(["def retry(): pass"])
        assert remote.retried == 2 and remote.requests == 2 + 2  # two 503s, then the probe and the text
        assert float(got[0] @ embedder.embed_documents(["def retry(): pass"])[0]) >= 0.99999
    finally:
        front.shutdown()
        front.server_close()


def test_urls_are_normalised() -> None:
    assert normalize_embed_url("127.0.0.1:8080") == "http://127.0.0.1:8080/v1/embeddings"
    assert normalize_embed_url("http://h:1/v1/") == "http://h:1/v1/embeddings"
    assert normalize_embed_url("https://h/proxy/v1/embeddings") == "https://h/proxy/v1/embeddings"
    with pytest.raises(EmbedderError):
        normalize_embed_url("ftp://h/")
