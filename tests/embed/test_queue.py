"""The embedding queue's order: files first, then code (the most used first), docs, tests last.

On a real small project (the requests 2.32.3 fixture), the real ``hookgraph``
command, the real store and the real model for one drained batch.
"""

from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path

from hookgraph.embed.no_embed import looks_like_test
from hookgraph.embed.order import RANK_META
from hookgraph.embed.queue import drain, rank_waiting
from hookgraph.store import Store, db_path
from tests.conftest import REQUESTS_FIXTURE, commit_all, make_repo, run_cli


def requests_copy(where: Path) -> Path:
    shutil.copytree(REQUESTS_FIXTURE, where)
    make_repo(where)
    commit_all(where, "import requests 2.32.3")
    return where


def queue(root: Path) -> list[tuple[bytes, list[tuple[str, str, str, bool]]]]:
    """The queued texts in the order the embedder takes them, each with its units' (path, kind, qualname, documented)."""
    with Store(db_path(root), readonly=True) as store:
        order = [h for h, _, _ in store.next_pending(1_000_000)]
        units: dict[bytes, list[tuple[str, str, str, bool]]] = {}
        for h, path, kind, qualname, doc in store.db.execute(
                "SELECT text_hash, path, kind, qualname, docstring FROM units WHERE text_hash IS NOT NULL"):
            units.setdefault(bytes(h), []).append((path, kind, qualname, bool(doc.strip())))
    return [(h, units[h]) for h in order]


def expected_class(path: str, kind: str, documented: bool) -> int:
    """The order the issue asks for, written out independently of hookgraph.embed.order: files, code, docs, tests."""
    if kind in ("block", "chunk") or looks_like_test(path):
        return 0
    if kind == "file":
        return 5
    if kind == "section":
        return 1
    return 2


def code_class(kind: str, documented: bool) -> int:
    """Within code, after use: documented definitions, undocumented containers, other code."""
    if documented:
        return 4
    return 3 if kind in ("class", "interface", "struct", "enum", "trait", "module", "type") else 2


def calls_by_name(root: Path) -> Counter[str]:
    """How often the project's source calls each name, read from the files themselves (``name(``), not from
    hookgraph's edges: Python's own words (``if (``, ``return (``) do not matter, they name no unit."""
    counts: Counter[str] = Counter()
    for source in (root / "requests").glob("*.py"):
        counts.update(re.findall(r"\b([A-Za-z_]\w*)\(", source.read_text(encoding="utf-8")))
    return counts


def test_a_first_index_queues_files_then_the_most_used_code_then_the_rest(tmp_path: Path, embedder) -> None:
    root = requests_copy(tmp_path / "a")
    run_cli(root, "index", check=True)  # no background embedder in tests: the whole queue stays
    # the sync leaves ordering by use to whoever empties the queue, who does it once
    with Store(db_path(root), readonly=True) as store:
        assert store.get_meta(RANK_META) == "0"
    assert rank_waiting(db_path(root)) > 100
    assert rank_waiting(db_path(root)) == 0
    with Store(db_path(root), readonly=True) as store:
        assert store.get_meta(RANK_META) is None
    queued = queue(root)
    assert len(queued) > 200
    classes = [max(expected_class(p, k, d) for p, k, _, d in units) for _, units in queued]
    assert classes == sorted(classes, reverse=True), "the queue is not in usefulness order"
    assert set(classes) >= {5, 2, 1}
    # code, the most used first: the project calls the names of the first tenth of the code several times as
    # often as those of the last tenth, and nothing it never calls comes before something it calls often
    code = [units for (_, units), c in zip(queued, classes) if c == 2]
    calls = calls_by_name(root)
    names = [max(calls[q.rsplit(".", 1)[-1]] for _, _, q, _ in units) for units in code]
    tenth = len(code) // 10
    assert sum(names[:tenth]) >= 3 * sum(names[-tenth:]), (names[:tenth], names[-tenth:])
    first_never = next(i for i, n in enumerate(names) if n == 0)
    assert all(n < 10 for n in names[first_never:]), "a name called ten times waits behind names never called"
    files = sum(1 for c in classes if c == 5)
    assert all(k == "file" for _, units in queued[:files] for _, k, _, _ in units)
    # within a class: the sync's order, files by path and units in file order
    first_files = [units[0][0] for _, units in queued[:files]]
    assert first_files == sorted(first_files)
    # deterministic: the same tree in another clone queues the same texts in the same order, and the
    # embedder orders them before it takes any
    again = requests_copy(tmp_path / "b")
    run_cli(again, "index", check=True)
    drain(db_path(again), embedder, max_batches=0)
    assert [h for h, _ in queue(again)] == [h for h, _ in queued]
    # and the embedder takes them in that order: its first batch is file units only
    report = drain(db_path(root), embedder, max_batches=1)
    assert 0 < report.published <= files
    with Store(db_path(root), readonly=True) as store:
        kinds = {k for (k,) in store.db.execute("SELECT kind FROM units WHERE vector_id IS NOT NULL")}
    assert kinds == {"file"}


def test_a_hooks_texts_still_come_before_a_first_index(tmp_path: Path) -> None:
    root = requests_copy(tmp_path / "a")
    run_cli(root, "index", check=True)
    api = root / "requests" / "api.py"
    api.write_text(api.read_text().replace('"""Sends a GET request.', '"""Sends a GET request (changed).'))
    commit_all(root, "edit get")
    run_cli(root, "index", check=True)  # an incremental sync, as a hook runs it
    assert rank_waiting(db_path(root)) > 100  # the first index's tier, ordered after the hook's texts came
    queued = queue(root)
    changed = [i for i, (_, units) in enumerate(queued) if any(q == "get" for _, _, q, _ in units)]
    assert changed == [0], [units for _, units in queued[:4]]  # before the first index's file units


def test_code_used_alike_keeps_documented_definitions_first(tmp_path: Path) -> None:
    root = tmp_path / "r"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "a.py").write_text(
        "def plain():\n    return 1\n\n\n"
        "class Box:\n    size = 1\n\n\n"
        "def explained():\n    \"\"\"Says what it does.\"\"\"\n    return 2\n\n\n"
        "def hub():\n    return 3\n")
    (root / "pkg" / "b.py").write_text(
        "from pkg.a import hub\n\n\ndef one():\n    return hub() + hub()\n\n\ndef two():\n    return hub()\n")
    make_repo(root)
    commit_all(root, "two files")
    run_cli(root, "index", check=True)
    rank_waiting(db_path(root))
    code = [units for _, units in queue(root) if expected_class(*units[0][:2], units[0][3]) == 2]
    names = [units[0][2] for units in code]
    assert names[0] == "hub", names  # called three times
    rest = [max(code_class(k, d) for _, k, _, d in units) for units in code[1:]]
    assert rest == sorted(rest, reverse=True), names  # used alike (never): documented, container, the rest
    assert names.index("explained") < names.index("Box") < names.index("plain"), names
