"""Ranking pieces measured on eval/ and kept: tests, docs and release notes weigh less for
questions; a file unit gives way to its own definitions. Real repos, real model."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookgraph import search as search_module
from hookgraph.search import is_test_path, search
from hookgraph.store import Store, db_path
from tests.conftest import make_repo

CACHE = '''"""An in-memory cache."""


def evict_oldest(entries, limit):
    """Drop the least recently used entry once the cache holds more than its limit."""
    while len(entries) > limit:
        entries.popitem(last=False)
    return entries


def remember(entries, key, value):
    """Store a value under a key, marking it as the most recently used."""
    entries[key] = value
    entries.move_to_end(key)
'''

TEST_CACHE = '''from collections import OrderedDict

from pkg.cache import evict_oldest


def test_evicts_when_over_limit():
    """The least recently used entry is dropped once the cache holds more than its limit."""
    entries = OrderedDict(a=1, b=2, c=3)
    evict_oldest(entries, 2)
    assert list(entries) == ["b", "c"]
'''

SLUG = '''def make_slug(title):
    """Turn a title into a lowercase, dash-separated address fragment."""
    words = "".join(c if c.isalnum() else " " for c in title.lower()).split()
    return "-".join(words)
'''

README = '''# pkg

## Caching

The cache drops the least recently used entry once it holds more than its limit,
so memory stays bounded.
'''

CHANGES = '''# Changes

## 1.1

- The least recently used entry is now dropped once the cache holds more than its limit.
'''


@pytest.fixture(scope="module")
def ranked_repo(tmp_path_factory: pytest.TempPathFactory, embedder) -> Path:
    from hookgraph.sync import read_target, sync

    repo = make_repo(tmp_path_factory.mktemp("ranking") / "pkg", {
        "pkg/__init__.py": "", "pkg/cache.py": CACHE, "pkg/slug.py": SLUG,
        "tests/test_cache.py": TEST_CACHE, "README.md": README, "CHANGES.md": CHANGES,
    })
    sync(repo, read_target(repo, "head"), embedder=embedder)
    return repo


QUESTION = "drop the least recently used entry once the cache holds more than its limit"


def _ranked(repo: Path, embedder, query: str) -> list[search_module.Result]:
    with Store(db_path(repo)) as store:
        return search(store, query, top=10, embedder=embedder)


@pytest.mark.parametrize("path, expected", [
    ("tests/test_cache.py", True), ("test/unit/helpers.py", True), ("pkg/test_cache.py", True),
    ("cache_test.go", True), ("src/cache.test.ts", True), ("lib/__tests__/x.js", True),
    ("src/cache.spec.js", True), ("conftest.py", True),
    ("pkg/cache.py", False), ("src/testing_tools_note.md", False), ("latest/contest.py", False),
])
def test_what_counts_as_test_code(path: str, expected: bool) -> None:
    assert is_test_path(path) is expected


def test_a_question_finds_the_code_before_its_test_docs_and_release_notes(ranked_repo: Path, embedder) -> None:
    results = _ranked(ranked_repo, embedder, QUESTION)
    names = [r.unit.qualname for r in results]
    assert names[0] == "evict_oldest", names
    weighed = {r.unit.path: r.reasons for r in results}
    assert "test code" in weighed["tests/test_cache.py"]
    assert "release notes" in weighed["CHANGES.md"]
    assert "documentation" in weighed["README.md"]


def test_the_weights_are_what_put_the_code_first(ranked_repo: Path, embedder, monkeypatch) -> None:
    """Weighed alike, release notes that repeat the question come close; weighed, code leads clearly."""
    monkeypatch.setattr(search_module, "TEST_WEIGHT", 1.0)
    monkeypatch.setattr(search_module, "DOC_WEIGHT", 1.0)
    monkeypatch.setattr(search_module, "CHANGELOG_WEIGHT", 1.0)
    unweighted = {r.unit.qualname: r.score for r in _ranked(ranked_repo, embedder, QUESTION)}
    monkeypatch.undo()
    weighted = {r.unit.qualname: r.score for r in _ranked(ranked_repo, embedder, QUESTION)}
    test_name = "test_evicts_when_over_limit"
    assert unweighted["Changes > 1.1"] > 0.9 * unweighted["evict_oldest"]
    best_other = max(v for k, v in weighted.items() if k not in ("evict_oldest", "pkg/cache.py"))
    assert best_other < 0.85 * weighted["evict_oldest"]
    assert weighted[test_name] == pytest.approx(unweighted[test_name] * search_module.TEST_WEIGHT)
    assert weighted["evict_oldest"] == pytest.approx(unweighted["evict_oldest"])


def test_an_identifier_query_is_not_weighed(ranked_repo: Path, embedder) -> None:
    name = "test_evicts_when_over_limit"
    results = _ranked(ranked_repo, embedder, name)
    assert results[0].unit.qualname == name and "test code" not in results[0].reasons


def test_a_file_unit_goes_below_its_own_definition(ranked_repo: Path, embedder) -> None:
    results = _ranked(ranked_repo, embedder, "turn a title into a dash separated lowercase address fragment")
    order = [r.unit.qualname for r in results]
    assert order.index("make_slug") < order.index("pkg/slug.py"), order
    file_result = next(r for r in results if r.unit.qualname == "pkg/slug.py")
    assert "after its member" in file_result.reasons or order.index("pkg/slug.py") > order.index("make_slug")
