"""Any GGUF model, pinned and never mixed; long units as windows.

Real parts only: a second real GGUF (a random-weight tiny BERT made offline
and converted by our own converter, see ``tests/helpers/tiny_models.py``), the real
CLI in subprocesses, real git, real llama.cpp.
"""

from __future__ import annotations

import hashlib
import json
from hookgraph.config import tomllib
from pathlib import Path

import numpy as np
import pytest

from hookgraph import config
from hookgraph.embed import Embedder
from hookgraph.embed.choice import embedder_for_repo
from hookgraph.search import search
from hookgraph.store import Store, db_path
from hookgraph.sync import Progress, SyncError
from tests.conftest import index_now, commit_all, git, make_repo, run_cli, write_files
from tests.helpers.tiny_models import TinyModels, make_tiny_models

MINILM = "all-MiniLM-L6-v2"
TINY = "e5-small-tiny-test"

SERVICE = '''"""Billing service."""


def parse_amount(text):
    """Turn '12.50' into cents."""
    whole, _, frac = text.partition(".")
    return int(whole) * 100 + int((frac + "00")[:2])


class Invoice:
    """A bill for one customer."""

    def __init__(self, lines):
        self.lines = lines

    def total(self):
        return sum(parse_amount(x) for x in self.lines)
'''


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> TinyModels:
    return make_tiny_models(tmp_path_factory.mktemp("tiny"))


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _repo(tmp_path: Path, name: str = "repo", extra: dict[str, str] | None = None) -> Path:
    return make_repo(tmp_path / name, {"billing/service.py": SERVICE, "README.md": "# Billing\n\nInvoices.\n",
                                       **(extra or {})})


def _status(repo: Path) -> dict:
    proc = run_cli(repo, "status", "--json", check=True)
    return json.loads(proc.stdout)


# ---- model use / show / convert -------------------------------------------------


def test_use_records_the_choice_and_show_reports_it(tmp_path: Path, tiny: TinyModels) -> None:
    repo = _repo(tmp_path)
    proc = run_cli(repo, "model", "use", str(tiny.a), "--query-prefix", "find: ")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"using {TINY} (") and _sha(tiny.a)[:12] in proc.stdout
    settings = tomllib.loads((repo / ".hookgraph" / "config.toml").read_text())
    assert settings["model"] == {"path": str(tiny.a.resolve()), "query_prefix": "find: "}
    assert (tiny.a.parent / (tiny.a.name + ".sha256")).is_file()  # hashed once, for fast hooks

    info = json.loads(run_cli(repo, "model", "show", "--json", check=True).stdout)
    assert info["name"] == TINY and info["family"] == "e5" and info["architecture"] == "bert"
    assert info["sha256"] == _sha(tiny.a) and info["dims"] == 64 and info["pooling"] == "mean"
    assert info["context_length"] == 128 and info["window_tokens"] == 128  # the model's window caps e5's 512
    assert info["query_prefix"] == "find: " and info["document_prefix"] == "passage: "
    assert info["configured_in"] == ".hookgraph/config.toml"
    plain = run_cli(repo, "model", "show", check=True).stdout
    assert f"name:            {TINY}" in plain and "document prefix: 'passage: '" in plain

    # a new `use` clears overrides that belonged to the previous model; 'default' goes back
    run_cli(repo, "model", "use", "default", check=True)
    settings = tomllib.loads((repo / ".hookgraph" / "config.toml").read_text())
    assert settings.get("model", {}) == {}
    assert json.loads(run_cli(repo, "model", "show", "--json", check=True).stdout)["name"] == MINILM


def test_use_keeps_other_settings_and_comments(tmp_path: Path, tiny: TinyModels) -> None:
    repo = _repo(tmp_path)
    cfg = repo / ".hookgraph" / "config.toml"
    cfg.parent.mkdir()
    cfg.write_text("# team settings\nshared = true\n\n[embed]\nurl = \"http://127.0.0.1:9\"  # gpu box\n")
    run_cli(repo, "model", "use", str(tiny.a), check=True)
    text = cfg.read_text()
    assert text.startswith("# team settings\nshared = true\n") and "# gpu box" in text
    assert tomllib.loads(text)["model"]["path"] == str(tiny.a.resolve())


@pytest.mark.parametrize("bad", ["missing.gguf", "not-gguf.gguf"])
def test_use_refuses_what_is_not_a_model(tmp_path: Path, bad: str) -> None:
    repo = _repo(tmp_path)
    (repo / "not-gguf.gguf").write_text("hello\n")
    proc = run_cli(repo, "model", "use", bad)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and bad in proc.stderr
    assert not (repo / ".hookgraph" / "config.toml").exists()


def test_convert_refuses_other_architectures_in_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "some-llama"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"architectures": ["LlamaForCausalLM"], "model_type": "llama"}))
    proc = run_cli(tmp_path, "model", "convert", str(folder), str(tmp_path / "out.gguf"), "--type", "f16")
    assert proc.returncode == 2 and "unsupported architecture" in proc.stderr and proc.stderr.count("\n") == 1


# ---- pinning: refuse, re-embed, same-dimension swap -------------------------------


def test_switching_models_refuses_then_reembeds(tmp_path: Path, tiny: TinyModels) -> None:
    repo = _repo(tmp_path)
    run_cli(repo, "index", "--wait", check=True)
    minilm_sha = _status(repo)["model"]["sha256"]

    proc = run_cli(repo, "model", "use", str(tiny.a), check=True)
    assert "hookgraph index --reembed" in proc.stdout
    for args in (["ask", "parse an amount"], ["index"]):
        proc = run_cli(repo, *args)
        assert proc.returncode == 2, proc
        line = proc.stderr
        assert line.count("\n") == 1 and line.startswith("hookgraph: the index was embedded with")
        assert MINILM in line and TINY in line and minilm_sha[:12] in line and _sha(tiny.a)[:12] in line
        assert "hookgraph index --reembed" in line
    assert run_cli(repo, "ask", "--no-semantic", "parse amount").returncode == 0  # no model: still usable

    proc = run_cli(repo, "index", "--reembed", "--wait", check=True)
    assert proc.stdout.startswith("rebuilt from scratch: 2 files parsed") and "embedded 7 texts" in proc.stdout
    status = _status(repo)
    assert status["model"]["sha256"] == _sha(tiny.a) and status["model"]["dims"] == 64
    assert status["model"]["name"] == TINY and status["model"]["document_prefix"] == "passage: "
    assert status["model"]["query_prefix"] == "query: "
    result = json.loads(run_cli(repo, "ask", "--json", "turn text into cents", check=True).stdout)
    assert result["results"] and any(r["semantic"] is not None for r in result["results"])

    # Same shape, same name, other weights: caught by the SHA-256 alone.
    run_cli(repo, "model", "use", str(tiny.b), check=True)
    proc = run_cli(repo, "ask", "parse an amount")
    assert proc.returncode == 2 and _sha(tiny.a)[:12] in proc.stderr and _sha(tiny.b)[:12] in proc.stderr


def test_a_prefix_change_is_a_new_recipe(tmp_path: Path, tiny: TinyModels) -> None:
    """Prefixes are applied to exactly what the model sees, and changing one re-embeds."""
    repo = _repo(tmp_path)
    config.set_value(repo, "model", "path", str(tiny.a))
    emb = embedder_for_repo(repo)
    emb.embedded_log = []
    index_now(repo, emb)
    assert emb.embedded_log and all(t.startswith("passage: ") for t in emb.embedded_log)
    assert any(t.startswith("passage: function parse_amount\ndef parse_amount(text)") for t in emb.embedded_log)
    with Store(db_path(repo)) as store:
        emb.embedded_log = []
        assert search(store, "turn text into cents", embedder=emb)
        assert emb.embedded_log == ["query: turn text into cents"]

    config.set_value(repo, "model", "document_prefix", "doc: ")
    config.set_value(repo, "model", "query_prefix", "q: ")
    emb2 = embedder_for_repo(repo)
    with pytest.raises(SyncError, match=r"document prefix 'passage: ' -> 'doc: '.*index --reembed"):
        index_now(repo, emb2, full=False) if _touch(repo) else None
    emb2.embedded_log = []
    index_now(repo, emb2, reembed=True)
    assert emb2.embedded_log and all(t.startswith("doc: ") for t in emb2.embedded_log)
    with Store(db_path(repo)) as store:
        assert store.get_meta("document_prefix") == "doc: " and store.get_meta("query_prefix") == "q: "
        emb2.embedded_log = []
        search(store, "cents", embedder=emb2)
        assert emb2.embedded_log == ["q: cents"]
    # A query-prefix change alone needs no re-embedding: stored vectors do not depend on it.
    config.set_value(repo, "model", "query_prefix", "question: ")
    assert run_cli(repo, "ask", "cents").returncode == 0


def _touch(repo: Path) -> bool:
    write_files(repo, {"billing/more.py": "def more():\n    return 1\n"})
    commit_all(repo)
    return True


def test_reembed_is_one_transaction_readers_keep_the_old_vectors(tmp_path: Path, tiny: TinyModels,
                                                                 embedder: Embedder) -> None:
    files = {f"pkg/mod{i}.py": f"def handler_{i}(request):\n    return request.value + {i}\n" for i in range(6)}
    repo = _repo(tmp_path, extra=files)
    index_now(repo, embedder)
    with Store(db_path(repo)) as store:
        old = (store.get_meta("model_sha256"), store.get_meta("dims"), store.counts()["vectors"])
    probe = embedder.embed_query("handler for a request")
    seen: list[tuple] = []

    class Reader(Progress):
        """Between files of the re-embed, a second connection reads the store."""

        def advance(self, n: int = 1) -> None:
            with Store(db_path(repo), readonly=True) as store:
                hits = store.knn(probe, 3)
                seen.append((store.get_meta("model_sha256"), store.get_meta("dims"), store.counts()["vectors"],
                             len(hits)))

    config.set_value(repo, "model", "path", str(tiny.a))
    report = index_now(repo, embedder_for_repo(repo), reembed=True,
                  progress=lambda total: Reader())
    assert report.texts_embedded >= 8
    assert len(seen) == len(git(repo, "ls-files").split())
    assert all(s == (*old, 3) for s in seen), seen  # the old model's vectors, searchable throughout
    with Store(db_path(repo)) as store:
        assert store.get_meta("model_sha256") == _sha(tiny.a) and store.get_meta("dims") == "64"


# ---- long units -------------------------------------------------------------------

LONG_FN = "def reconcile_ledger(entries, accounts):\n    \"\"\"Reconcile every ledger entry.\"\"\"\n" + "".join(
    f"    subtotal_{i} = accounts.lookup(entries[{i}]).balance * exchange_rate_{i} + pending_fees_{i}\n"
    for i in range(24)
) + (
    "    # finally retry the payment gateway with exponential backoff and random jitter\n"
    "    gateway.retry_with_backoff(jitter=True, attempts=5)\n"
    "    return subtotal_0\n"
)
#: Past 8 windows in its docstring alone (a documentation section is cut to its head in compose instead).
HUGE_FN = 'def audit_operations():\n    """Operations.\n\n' + "".join(
    f"    Step {i}: the operator checks disk {i}, rotates log {i} and pages the on-call person {i}.\n"
    for i in range(400)
) + '    """\n    return None\n'


def test_long_units_are_split_into_windows_and_scored_by_the_best(tmp_path: Path, embedder: Embedder) -> None:
    repo = _repo(tmp_path, extra={"billing/ledger.py": LONG_FN, "ops/audit.py": HUGE_FN})
    embedder.embedded_log = []
    try:
        report = index_now(repo, embedder)
        log = list(embedder.embedded_log)
    finally:
        embedder.embedded_log = None
    assert report.split >= 2 and report.truncated >= 1
    assert all(embedder.count_tokens(t) <= embedder.max_tokens for t in log)
    windows = [t for t in log if t.startswith("function reconcile_ledger\n")]
    assert len(windows) >= 2  # every later window repeats the unit's first line
    assert any("payment gateway" in w for w in windows[1:]) and "payment gateway" not in windows[0]

    status = _status(repo)
    assert status["split_units"] >= 2 and status["truncated_units"] >= 1
    assert status["windows"] > status["vectors"]
    plain = run_cli(repo, "status", check=True).stdout
    assert f"{status['split_units']} split into windows; {status['truncated_units']} cut after their last window" in plain

    with Store(db_path(repo)) as store:
        (unit,) = store.units_where("qualname = ?", ("reconcile_ledger",))
        (vid,) = [r[0] for r in store.db.execute("SELECT vector_id FROM units WHERE id = ?", (unit.id,))]
        windows_of = store.db.execute("SELECT count(*) FROM vectors WHERE id = ? OR head = ?", (vid, vid)).fetchall()
        assert windows_of[0][0] == len(windows)
        # A query about the last window's content finds the unit, once, under the id units point at.
        hits = store.knn(embedder.embed_query("retry the payment gateway with exponential backoff and jitter"), 10)
        assert [h for h, _ in hits].count(vid) == 1 and len({h for h, _ in hits}) == len(hits)
        assert vid in [h for h, _ in hits[:3]]
        results = search(store, "retry the payment gateway with exponential backoff and jitter", embedder=embedder)
        assert [r.unit.qualname for r in results].count("reconcile_ledger") == 1


def test_windows_are_collected_and_revived_with_their_text(tmp_path: Path, embedder: Embedder) -> None:
    repo = _repo(tmp_path, extra={"billing/ledger.py": LONG_FN})
    index_now(repo, embedder)
    with Store(db_path(repo)) as store:
        before = (store.counts()["vectors"], store.counts()["windows"])
    git(repo, "rm", "-q", "billing/ledger.py")
    commit_all(repo, "drop ledger")
    index_now(repo, embedder)
    with Store(db_path(repo)) as store:
        q = store.db.execute
        assert q("SELECT count(*) FROM vectors w WHERE w.head IS NOT NULL AND NOT EXISTS "
                 "(SELECT 1 FROM vectors v WHERE v.id = w.head)").fetchall()[0][0] == 0
        assert q("SELECT count(*) FROM vec_units").fetchall()[0][0] == q("SELECT count(*) FROM vectors").fetchall()[0][0]
        # a window's key is its text's 16-byte key + b"#<n>" (store.window_key)
        assert q("SELECT count(*) FROM vector_cache WHERE length(text_hash) > 16").fetchall()[0][0] >= 1
    git(repo, "revert", "--no-edit", "HEAD")
    embedded = embedder.texts_embedded
    report = index_now(repo, embedder)
    assert embedder.texts_embedded == embedded and report.split == 1  # revived, all windows, nothing embedded
    with Store(db_path(repo)) as store:
        assert (store.counts()["vectors"], store.counts()["windows"]) == before


def test_windows_cover_the_text_within_budget(embedder: Embedder) -> None:
    text = "function reconcile_ledger\n" + LONG_FN
    wins, truncated, counts = embedder.windows(text)
    assert not truncated and len(wins) >= 2 and counts == [embedder.count_tokens(w) for w in wins]
    assert all(n <= embedder.max_tokens for n in counts)
    # Concatenated without the repeated first line, the windows give back the text.
    assert wins[0] + "".join(w[len("function reconcile_ledger\n"):] for w in wins[1:]) == text
    small = Embedder(max_tokens=32, max_windows=3)
    small._llama = embedder._model()  # share the loaded model: tokenising ignores the budget
    wins, truncated, _ = small.windows(text)
    assert truncated and len(wins) == 3
    assert small.windows("short") == (["short"], False, [small.count_tokens("short")])
    vecs = small.embed_windows([text, "short"])
    assert [v.shape for v, _ in vecs] == [(3, 384), (1, 384)] and [c for _, c in vecs] == [True, False]
    assert np.allclose(np.linalg.norm(vecs[0][0], axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize(
    ("name", "family", "query", "document", "pooling"),
    [
        ("CodeRankEmbed", "coderankembed", "Represent this query for searching relevant code: ", "", 1),
        ("nomic-embed-code", "nomic-embed-code", "Represent this query for searching relevant code: ", "", 3),
        ("nomic-embed-text-v1.5", "nomic-embed", "search_query: ", "search_document: ", 1),
        ("Qwen3-Embedding-0.6B", "qwen3-embedding",
         "Instruct: Given a code search query, retrieve relevant code snippets that answer the query\nQuery:", "", 3),
        ("bge-base-en-v1.5", "bge", "Represent this sentence for searching relevant passages: ", "", 2),
        ("multilingual-e5-small", "e5", "query: ", "passage: ", 1),
        ("all-MiniLM-L12-v2", "sentence-transformers-minilm", "", "", 1),
    ],
)
def test_code_model_presets(name: str, family: str, query: str, document: str, pooling: int) -> None:
    from hookgraph.models import detect_preset

    preset = detect_preset(name, "", "")
    assert (preset.family, preset.query_prefix, preset.document_prefix, preset.pooling) == (
        family, query, document, pooling)


def test_a_snapshot_import_brings_every_window(tmp_path: Path, embedder: Embedder) -> None:
    """Shared mode takes a teammate's vectors from their snapshot: a long unit's windows come along."""
    from hookgraph.store.snapshot import SnapshotVectors
    from hookgraph.embed.adopt import VectorSource

    files = {"billing/ledger.py": LONG_FN}
    theirs = _repo(tmp_path, "theirs", extra=files)
    index_now(theirs, embedder)
    ours = _repo(tmp_path, "ours", extra=files)
    source = SnapshotVectors(db_path(theirs), "their snapshot")
    report = index_now(ours, embedder, snapshots=[VectorSource(source, "their snapshot", "")])
    source.close()
    assert report.from_cache >= 1 and report.texts_embedded == 0 and report.split == 1  # checked, then adopted
    with Store(db_path(ours)) as a, Store(db_path(theirs)) as b:
        (wa,) = a.db.execute("SELECT v.windows FROM units u JOIN vectors v ON v.id = u.vector_id "
                             "WHERE u.qualname = 'reconcile_ledger'").fetchall()
        (wb,) = b.db.execute("SELECT v.windows FROM units u JOIN vectors v ON v.id = u.vector_id "
                             "WHERE u.qualname = 'reconcile_ledger'").fetchall()
        assert wa == wb and wa[0] >= 2
        assert a.counts()["windows"] == b.counts()["windows"]
