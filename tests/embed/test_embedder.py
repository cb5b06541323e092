"""The embedder with the shipped model: quality, budget, laziness, identity, errors.

No mocks: real llama-cpp-python and the GGUF inside the package. Anything that
could abort the process (a text over ``n_ubatch``) runs in a subprocess, so a
regression fails a test instead of killing pytest.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from hookgraph.embed import Embedder, EmbedderError, read_sha256_sidecar
from hookgraph.models import default_model_path, detect_preset
from hookgraph.store import quantize

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "minilm_reference.json"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def reference() -> dict:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder()


def _run(code: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "HOOKGRAPH_THREADS"}  # let it adapt
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=timeout,
    )


# ---- the shipped model -------------------------------------------------


def test_shipped_model_sidecar_is_right() -> None:
    path = default_model_path()
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    hexdigest, size = path.with_name(path.name + ".sha256").read_text(encoding="ascii").split()
    assert hexdigest == digest
    assert int(size) == path.stat().st_size
    assert read_sha256_sidecar(path) == digest
    assert Embedder().model_sha256 == digest
    assert (path.parent / "LICENSE.all-MiniLM-L6-v2").is_file()
    assert (path.parent / "NOTICE.all-MiniLM-L6-v2").is_file()


def test_shipped_model_matches_sentence_transformers(embedder: Embedder, reference: dict) -> None:
    texts = [item["text"] for item in reference["items"]]
    got = embedder.embed_documents(texts)
    want = np.array([item["vector"] for item in reference["items"]], dtype=np.float32)
    want /= np.linalg.norm(want, axis=1, keepdims=True)
    cos = (got * want).sum(axis=1)
    print(f"shipped min cosine {cos.min():.6f}")
    assert cos.min() >= 0.999, cos


def test_identity_and_defaults(embedder: Embedder) -> None:
    assert embedder.model_path == default_model_path()
    assert embedder.model_name == "all-MiniLM-L6-v2"
    assert embedder.dims == 384
    assert embedder.query_prefix == "" and embedder.document_prefix == ""
    assert embedder.max_tokens == 256  # all-MiniLM's training length
    assert Embedder(max_tokens=100).max_tokens == 100
    assert Embedder(max_tokens=100_000).max_tokens == 512  # never past the model's window


def test_vectors_are_float32_unit_vectors(embedder: Embedder) -> None:
    q = embedder.embed_query("how are redirects followed?")
    assert isinstance(q, list) and len(q) == 384 and all(type(x) is float for x in q)
    assert abs(float(np.linalg.norm(q)) - 1.0) < 1e-9
    docs = embedder.embed_documents(["def follow_redirects(resp): ...", ""])
    assert docs.shape == (2, 384) and docs.dtype == np.float32
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-5)
    assert embedder.embed_documents([]).shape == (0, 384)
    # one text per call: the same text gives the same vector alone or in a list
    alone = embedder.embed_documents(["def follow_redirects(resp): ..."])[0]
    assert np.allclose(alone, docs[0], atol=1e-6)


def test_counts_and_logs_what_is_sent(embedder: Embedder) -> None:
    before = embedder.texts_embedded
    embedder.embedded_log = []
    try:
        embedder.embed_documents(["a", "b"])
        embedder.embed_query("c")
        assert embedder.texts_embedded - before == 3
        assert embedder.embedded_log == ["a", "b", "c"]
    finally:
        embedder.embedded_log = None


def test_prefixes_come_from_the_preset(tmp_path: Path) -> None:
    """A model whose GGUF name says nomic-embed gets nomic's prefixes."""
    src = default_model_path().read_bytes()
    name = b"all-MiniLM-L6-v2"
    assert src.count(name) >= 1 and len(b"nomic-embed-text") == len(name)
    renamed = tmp_path / "renamed.gguf"
    renamed.write_bytes(src.replace(name, b"nomic-embed-text", 1))  # same length: offsets hold
    emb = Embedder(renamed)
    assert emb.model_name == "nomic-embed-text"
    assert emb.query_prefix == "search_query: " and emb.document_prefix == "search_document: "
    emb.embedded_log = []
    emb.embed_query("redirects")
    emb.embed_documents(["def follow(): ..."])
    assert emb.embedded_log == ["search_query: redirects", "search_document: def follow(): ..."]
    assert emb.model_sha256 == hashlib.sha256(renamed.read_bytes()).hexdigest()  # no sidecar: hashed


@pytest.mark.parametrize(
    ("name", "query", "document"),
    [
        ("all-MiniLM-L6-v2", "", ""),
        ("nomic-embed-text-v1.5", "search_query: ", "search_document: "),
        ("CodeRankEmbed", "Represent this query for searching relevant code: ", ""),
        ("bge-small-en-v1.5", "Represent this sentence for searching relevant passages: ", ""),
        ("e5-small-v2", "query: ", "passage: "),
        ("multilingual-e5-base", "query: ", "passage: "),
        ("something-unknown", "", ""),
    ],
)
def test_preset_table(name: str, query: str, document: str) -> None:
    preset = detect_preset(name, "bert", "")
    assert (preset.query_prefix, preset.document_prefix) == (query, document)
    assert detect_preset("", "", f"{name}.Q8_0.gguf") == preset  # the file name works too


def test_gguf_name_wins_over_file_name() -> None:
    assert detect_preset("nomic-embed-text-v1.5", "nomic-bert", "all-MiniLM.gguf").family == "nomic-embed"
    assert detect_preset("model", "bert", "e5-small-v2.gguf").family == "e5"


# ---- the token budget --------------------------------------------------


def test_fit_keeps_what_sentence_transformers_keeps(embedder: Embedder, reference: dict) -> None:
    long = reference["items"][-1]
    fitted, truncated = embedder.fit(long["text"])
    assert truncated and long["text"].startswith(fitted)
    assert embedder.count_tokens(fitted) == 256
    assert embedder.tokenize(fitted) == long["token_ids"]
    short = "def add(a, b): return a + b"
    assert embedder.fit(short) == (short, False)


def test_fit_at_every_budget(reference: dict) -> None:
    """Cut points land on the same word pieces as a token-level cut, at any budget."""
    text = reference["items"][-1]["text"]
    base = Embedder()
    full = base.tokenize(text)
    for budget in range(10, 256, 9):
        emb = Embedder(max_tokens=budget)
        emb._llama = base._model()  # share one loaded model: tokenising ignores the budget
        fitted, truncated = emb.fit(text)
        assert truncated
        assert base.tokenize(fitted) == full[: budget - 1] + [full[-1]], budget


def test_huge_texts_never_abort() -> None:
    """Each of these would be a GGML_ASSERT abort if it reached llama.cpp unbudgeted."""
    result = _run(
        """
        import numpy as np
        from hookgraph.embed import Embedder
        texts = {
            "20k tokens": " ".join(f"word{i % 97} value_{i}" for i in range(4000)),
            "5000 CJK": "".join(chr(0x4E00 + (i * 37) % 20000) for i in range(5000)),
            "1 MB line": "x = compute(alpha, beta); " * 40000,
            "1 MB word": "QmFzZTY0" * 131072,
        }
        for budget in (None, 512):
            emb = Embedder(max_tokens=budget)
            for label, text in texts.items():
                n = emb.count_tokens(text) if label == "20k tokens" else None
                assert n is None or n > 20000
                fitted, truncated = emb.fit(text)
                assert truncated and emb.count_tokens(fitted) <= emb.max_tokens, label
                vec = emb.embed_documents([text])[0]
                assert vec.shape == (384,) and abs(float(np.linalg.norm(vec)) - 1) < 1e-4
                q = emb.embed_query(text)
                print(label, emb.max_tokens, n, emb.count_tokens(fitted))
        print("ok")
        """
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().endswith("ok")
    print(result.stdout)


# ---- cheap and quiet ---------------------------------------------------


def test_construction_and_identity_import_nothing_heavy() -> None:
    result = _run(
        """
        import sys
        from hookgraph.embed import Embedder
        e = Embedder()
        info = (e.model_name, e.dims, e.model_sha256, e.query_prefix, e.max_tokens)
        heavy = [m for m in ("llama_cpp", "numpy", "gguf") if m in sys.modules]
        print(heavy or "none")
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "none"


def test_a_query_is_the_document_vector_of_the_same_string(embedder: Embedder) -> None:
    """The numpy-free query path embeds exactly what the document path does (all-MiniLM has no prefixes)."""
    text = "how are redirects followed?"
    q = np.asarray(embedder.embed_query(text), dtype=np.float32)
    (doc,) = embedder.embed_documents([text])
    assert np.allclose(q, doc, atol=1e-7)
    assert quantize(embedder.embed_query(text)) == quantize(q)  # plain floats quantize like their float32 array


def test_a_query_imports_no_numpy() -> None:
    """``hookgraph ask`` as a new process embeds its query without numpy (60-80 ms of its start-up)."""
    result = _run(
        """
        import sys
        from hookgraph.embed import Embedder
        from hookgraph.store import quantize
        e = Embedder()
        blob = quantize(e.embed_query("where are retries handled?"))
        print(len(blob), sorted(m for m in ("numpy", "llama_cpp._internals", "llama_cpp.llama") if m in sys.modules))
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "384 []"


def test_llama_cpp_prints_nothing() -> None:
    result = _run(
        """
        from hookgraph.embed import Embedder
        e = Embedder()
        e.embed_documents(["def f(): pass"] * 3)
        e.embed_query("x" * 5000)
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "" and result.stderr == ""


def test_a_busy_core_is_left_to_its_owner() -> None:
    """With another process spinning, llama.cpp's threads must not fight it for a core.

    Spinning barriers with one thread per core collapse ~40x when a core is
    taken (measured: 25 s instead of 1 s for 20 texts); the embedder then runs
    on the free cores only. The speed itself belongs in benchmarks, so this
    test checks the decision: fewer threads than cores while a core is busy,
    and the embeddings still come out.
    """
    result = _run(
        """
        import os, subprocess, sys, time
        from hookgraph.embed import Embedder
        spin = "import itertools, time; any(time.time() > t for t in itertools.repeat(time.time() + 60))"
        ncpu = len(os.sched_getaffinity(0))
        hogs = [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(max(1, ncpu - 1))]
        try:
            time.sleep(0.5)
            e = Embedder()
            text = " ".join(f"word{i}" for i in range(60))
            vectors = e.embed_documents([text] * 3)
            print(ncpu, e.n_threads, vectors.shape[0])
        finally:
            for h in hogs:
                h.kill()
        """
    )
    assert result.returncode == 0, result.stderr
    ncpu, threads, embedded = (int(x) for x in result.stdout.split())
    assert embedded == 3
    assert 1 <= threads <= max(1, ncpu - 1)


def test_a_thread_count_beyond_the_cores_is_held_to_them() -> None:
    """``HOOKGRAPH_THREADS=100000`` died in llama.cpp's native code (SIGSEGV in ``ask``, no line from us);
    no count above this process's cores computes sooner, so that is the most it gets."""
    code = textwrap.dedent(
        """
        import os
        from hookgraph.embed import Embedder
        e = Embedder()
        vectors = e.embed_documents(["retry with backoff"] * 2)
        print(len(os.sched_getaffinity(0)), e.n_threads, vectors.shape[1])
        """
    )
    for value in ("100000", "99999999999999999999"):
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                                env={**os.environ, "HOOKGRAPH_THREADS": value}, timeout=300)
        assert result.returncode == 0, (value, result.returncode, result.stderr[-2000:])
        ncpu, threads, dims = (int(x) for x in result.stdout.split())
        assert threads == ncpu and dims == 384, (value, result.stdout)


# ---- errors ------------------------------------------------------------


@pytest.mark.parametrize("kind", ["missing", "empty", "not-gguf", "directory", "truncated"])
def test_bad_model_files_raise_one_line(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "model.gguf"
    if kind == "empty":
        path.write_bytes(b"")
    elif kind == "not-gguf":
        path.write_text("this is not a model\n")
    elif kind == "directory":
        path.mkdir()
    elif kind == "truncated":
        with open(default_model_path(), "rb") as f:
            path.write_bytes(f.read(4096))
    emb = Embedder(path)  # cheap: nothing read yet
    with pytest.raises(EmbedderError) as err:
        emb.embed_query("hello")
    msg = str(err.value)
    assert str(path) in msg and "\n" not in msg


def test_a_model_path_that_never_ends_raises_one_line_at_once(tmp_path: Path) -> None:
    """A device or a FIFO as the model: its identity (SHA-256) was read for ever. Now one line, nothing read."""
    os.mkfifo(tmp_path / "pipe.gguf")
    result = _run(
        f"""
        from hookgraph.embed import Embedder, EmbedderError, sha256_file
        for path in ("/dev/zero", "/dev/urandom", {str(tmp_path / "pipe.gguf")!r}):
            try:
                Embedder(path).model_sha256
            except EmbedderError as exc:
                print(exc)
            try:
                sha256_file(path)
            except OSError as exc:
                print("OSError", exc.strerror)
        """,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 6 and all("not a regular file" in line for line in lines), lines
    assert lines[4].startswith(str(tmp_path / "pipe.gguf"))


def test_truncated_tensor_data_raises(tmp_path: Path) -> None:
    """Header intact, weights cut short: llama.cpp refuses it, we say so in one line."""
    path = tmp_path / "cut.gguf"
    with open(default_model_path(), "rb") as f:
        path.write_bytes(f.read(5_000_000))
    result = _run(
        f"""
        from hookgraph.embed import Embedder, EmbedderError
        try:
            Embedder({str(path)!r}).embed_query("hi")
        except EmbedderError as exc:
            print("EmbedderError", exc)
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("EmbedderError") and str(path) in result.stdout


def test_sidecar_with_wrong_size_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "m.gguf"
    shutil.copyfile(default_model_path(), path)
    real = hashlib.sha256(path.read_bytes()).hexdigest()
    (tmp_path / "m.gguf.sha256").write_text(f"{'0' * 64} 123\n")
    assert read_sha256_sidecar(path) is None
    assert Embedder(path).model_sha256 == real


def test_two_contexts_give_the_same_vectors_as_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """The background worker's embedder (``contexts = 2``) shares a batch between two model contexts of one
    thread each on an idle machine; every vector is the one a single context computes, in the same order.
    The idle reading is pinned (the machine running the tests may be busy, and then one context runs)."""
    import hookgraph.embed.embedder as embed_module

    texts = [f"def handler_{i}(request):\n    return retry(request, attempts={i})" for i in range(9)] + [""]
    one = Embedder(n_threads=1)
    expected = [v for v, _cut in one.embed_windows(texts)]
    two = Embedder()
    two.contexts = 2
    two._ncpu = 2
    monkeypatch.setattr(embed_module, "threads_now", lambda ncpu: 2)
    assert two.batch_size == embed_module.PAIR_BATCH
    got = [v for v, _cut in two.embed_windows(texts)]
    assert two._second is not None and two.n_threads == 1  # both contexts ran, one thread each
    for a, b in zip(expected, got):
        assert a.shape == b.shape
        assert float((a * b).sum()) >= 0.9999  # same text, same model: the same vector
    monkeypatch.setattr(embed_module, "threads_now", lambda ncpu: 1)  # a core got busy: one context again
    again = [v for v, _cut in two.embed_windows(texts[:3])]
    assert all(float((a * b).sum()) >= 0.9999 for a, b in zip(expected, again))
    two.close()
    assert two._second is None
    assert Embedder().batch_size == 1  # ask and the foreground: one text per call, one context
