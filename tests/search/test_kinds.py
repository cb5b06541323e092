"""Typed search (``ask --kind``, MCP ``search(kind=...)``): only the asked kinds, and as many as asked for.

A repository where the asked kind is rare among the nearest vectors: 120 functions about retrying network
fetches and 12 classes about paint colours (one of them long enough to be embedded as several windows). A
question about retrying finds functions first; the classes lie beyond the nearest 100 vectors, where a filter
applied after the KNN cut finds none of them.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from tests.conftest import index_now, make_repo, run_cli

QUESTION = "retry the network fetch after a connection failure"
CLASSES = 12


def _sources() -> dict[str, str]:
    functions = "\n\n".join(
        f'def retry_fetch_{i}(url, attempts={i + 2}):\n'
        f'    """Retry fetching the url from the network after connection failure number {i}."""\n'
        f'    for attempt in range(attempts):\n'
        f'        response = download(url, timeout={i + 1})\n'
        f'        if response.ok:\n'
        f'            return response\n'
        f'    raise ConnectionError(url)\n'
        for i in range(120))
    classes = []
    for i in range(CLASSES):
        body = "".join(f"    shade_{j} = 'pigment {j} of palette {i}'\n" for j in range(400 if i == 0 else 3))
        classes.append(f'class PaintPalette{i}:\n    """Mix watercolour paints into palette {i}."""\n{body}')
    return {
        "net/fetch.py": functions,
        "art/palettes.py": "\n\n".join(classes),
        "tests/test_fetch.py": "def test_retry_fetch_gives_up():\n    assert retry_fetch_0('x')\n",
        "docs/guide.md": "# Retrying\n\nHow the fetch retries after a network failure.\n",
        "settings.yaml": "retry:\n  attempts: 3\n  network_timeout: 5\n",
    }


@pytest.fixture(scope="module")
def kinds_repo(tmp_path_factory: pytest.TempPathFactory, embedder) -> Path:
    repo = make_repo(tmp_path_factory.mktemp("kinds") / "repo", _sources())
    index_now(repo, embedder)
    return repo


def test_a_rare_kind_still_fills_the_top_10(kinds_repo: Path, embedder) -> None:
    """The classes are beyond the nearest 100 vectors, yet ``--kind class --top 10`` gives 10 classes."""
    from hookgraph.search import search
    from hookgraph.search.kinds import read_kinds
    from hookgraph.store import Store, db_path

    with Store(db_path(kinds_repo), readonly=True) as store:
        assert store.counts()["split_units"] >= 1  # the long palette is several windows
        query = embedder.embed_query(QUESTION)
        by_vector = store.units_for_vectors(v for v, _ in store.knn(query, 100))
        nearest = store.units_by_ids(uid for ids in by_vector.values() for uid in ids)
        assert sum(u.kind == "class" for u in nearest.values()) < 10  # a filter after the cut would starve
        unfiltered = search(store, QUESTION, top=100, embedder=embedder)
        assert sum(r.unit.kind == "class" for r in unfiltered) < 10
        results = search(store, QUESTION, top=10, embedder=embedder, kinds=read_kinds("class"))
    assert len(results) == 10
    assert {r.unit.kind for r in results} == {"class"}
    assert all(r.semantic is not None for r in results)  # found by meaning, inside the KNN query


def test_ask_kind_json_gives_only_the_asked_kinds(kinds_repo: Path) -> None:
    out = run_cli(kinds_repo, "ask", QUESTION, "--kind", "class", "--top", "20", "--json")
    assert out.returncode in (0, 1), out.stderr
    results = json.loads(out.stdout)["results"]
    assert {r["kind"] for r in results} == {"class"}
    assert {r["symbol"] for r in results} == {f"PaintPalette{i}" for i in range(CLASSES)}  # the split one too

    both = json.loads(run_cli(kinds_repo, "ask", QUESTION, "--kind", "class,file", "--top", "20", "--json").stdout)
    assert {r["kind"] for r in both["results"]} == {"class", "file"}


@pytest.mark.parametrize("kind, expected", [
    ("test", {"tests/test_fetch.py"}),
    ("doc", {"docs/guide.md"}),
    ("config", {"settings.yaml"}),
])
def test_groups_test_doc_and_config(kinds_repo: Path, kind: str, expected: set[str]) -> None:
    out = run_cli(kinds_repo, "ask", QUESTION, "--kind", kind, "--json")
    results = json.loads(out.stdout)["results"]
    assert results and {r["path"] for r in results} == expected, results


def test_an_unknown_kind_is_a_usage_error_naming_the_known_ones(kinds_repo: Path) -> None:
    out = run_cli(kinds_repo, "ask", QUESTION, "--kind", "class,klass")
    assert out.returncode == 2
    line = out.stderr.strip()
    assert "\n" not in line and "'klass'" in line and "function" in line and "config" in line
    assert "Traceback" not in out.stderr


def test_status_says_which_kinds_have_no_vectors_and_why(kinds_repo: Path) -> None:
    info = json.loads(run_cli(kinds_repo, "status", "--json", check=True).stdout)
    kinds = info["kinds"]
    assert kinds["class"]["units"] == CLASSES and kinds["class"]["vectors"] == CLASSES
    assert kinds["block"]["vectors"] == 0 and kinds["block"]["not_embedded"] == {"kind": kinds["block"]["units"]}
    assert kinds["function"]["not_embedded"] == {"tests": 1}  # the test function, by the tests rule
    text = run_cli(kinds_repo, "status", check=True).stdout
    line = next(line for line in text.splitlines() if line.startswith("by kind:"))
    assert "block: all" in line and "no-embed rule: " in line and "function: 1 of 121" in line


def test_mcp_search_takes_kind(kinds_repo: Path) -> None:
    pytest.importorskip("mcp")
    from tests.cli.test_mcp import ok, serve

    async def body(session, call) -> None:  # type: ignore[no-untyped-def]
        answer = ok(await call("search", {"query": QUESTION, "top": 10, "kind": "class"}))
        assert len(answer["results"]) == 10 and {r["kind"] for r in answer["results"]} == {"class"}
        bad = await call("search", {"query": QUESTION, "kind": "klass"})
        assert bad.is_error and bad.content[0].text.startswith("kind: unknown kind 'klass'")

    serve(kinds_repo, body, "--no-sync")
    assert anyio  # the SDK's event loop runs the session
