"""A call without a receiver runs the calling class's own method in Java, Kotlin, Swift, C#, C++.

``languages.json`` marks these languages ``bare_calls_reach_methods``: inside
a class, ``helper()`` is ``this.helper()``, so callers/callees (and the plain
"what calls X" questions ``ask`` answers from the graph) must find the
method of the calling class, not nothing. A bare call in a language without
methods of that kind (Python: ``helper()`` is a module function) is covered
by tests/search/test_graph.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import make_repo
from tests.helpers.graph_helpers import caller_names, callee_names

SOURCES = {
    "src/Pool.java": """package shop;

public class Pool {
    private int size;

    public Connection acquire() {
        if (isExhausted()) {
            grow();
        }
        return new Connection(size);
    }

    private boolean isExhausted() {
        return size == 0;
    }

    private void grow() {
        size += 8;
    }
}
""",
    "src/Cache.kt": """package shop

class Cache {
    private val entries = HashMap<String, String>()

    fun lookup(key: String): String? {
        evictExpired()
        return entries[key]
    }

    private fun evictExpired() {
        entries.clear()
    }
}
""",
    "Sources/Ring.swift": """final class Ring {
    private var items: [Int] = []

    func push(_ value: Int) {
        if isFull() {
            dropOldest()
        }
        items.append(value)
    }

    private func isFull() -> Bool {
        return items.count >= 16
    }

    private func dropOldest() {
        items.removeFirst()
    }
}
""",
    "src/Queue.cs": """namespace Shop
{
    public class Queue
    {
        private int count;

        public void Enqueue(int item)
        {
            EnsureCapacity();
            count++;
        }

        private void EnsureCapacity()
        {
            count = count < 0 ? 0 : count;
        }
    }
}
""",
}


@pytest.fixture(scope="module")
def classes_repo(tmp_path_factory: pytest.TempPathFactory, embedder) -> Path:
    from hookgraph.sync import read_target, sync

    repo = make_repo(tmp_path_factory.mktemp("own") / "classes", SOURCES)
    sync(repo, read_target(repo, "head"), embedder=embedder)
    return repo




@pytest.mark.parametrize(
    ("caller", "callees"),
    [
        ("Pool.acquire", {"Pool.isExhausted", "Pool.grow"}),
        ("Cache.lookup", {"Cache.evictExpired"}),
        ("Ring.push", {"Ring.isFull", "Ring.dropOldest"}),
        ("Shop.Queue.Enqueue", {"Shop.Queue.EnsureCapacity"}),
    ],
)
def test_a_bare_call_in_a_class_runs_its_own_method(classes_repo: Path, caller: str, callees: set[str]) -> None:
    assert callees <= callee_names(classes_repo, caller)
    for callee in callees:
        assert caller in caller_names(classes_repo, callee)
