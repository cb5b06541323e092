"""Expansion words (hookgraph/parse/expansion.py): the description words a unit's code implies, on the shipped
table and real syncs; found by the word half of the ranking, never counted as words the code writes."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from hookgraph.parse import expansion, parse_file
from hookgraph.parse.compose import fts_rows
from hookgraph.parse.expansion import (EXPANSION_MIN, EXPANSION_WORDS, NUMPY_FROM, ExpansionTable, expands,
                                       shipped_table, unit_words)
from hookgraph.search import search
from hookgraph.search.result import fts_query
from hookgraph.store import Store, db_path
from hookgraph.sync import read_target, sync

from tests.conftest import REQUESTS_FIXTURE, commit_all, make_repo, write_files

ENTROPY = "import os\n\n\ndef seed_bytes(n):\n    return os.urandom(n)\n"
SHAPES = "def draw_circle(canvas, x, y, r):\n    canvas.arc(x, y, r, 0, 360)\n"


@pytest.fixture(scope="module")
def table() -> ExpansionTable:
    loaded = shipped_table()
    assert loaded is not None, "the expansion table must ship inside the package"
    return loaded


def test_the_shipped_table_is_what_its_sidecar_says(table: ExpansionTable) -> None:
    assert expansion.shipped_sha256() == expansion.table_sha256(expansion.TABLE_DIR / expansion.TABLE_FILE)
    assert len(table) > 5000


def test_a_code_word_implies_the_words_written_beside_it(table: ExpansionTable) -> None:
    assert [w for w, _ in table.implied("urandom")][:1] == ["random"]
    assert "timeout" in [w for w, _ in table.implied("deadline")]
    assert table.implied("no-such-word-anywhere") == ()


def test_a_unit_gets_at_most_its_strongest_words_and_none_it_already_writes(table: ExpansionTable) -> None:
    words = {"deadline", "refcount", "urandom", "logger"}
    added = table.expand(words)
    assert "random" in added and len(added) <= EXPANSION_WORDS and not set(added) & words
    assert "random" not in table.expand(words | {"random"})


def test_weak_implications_add_nothing_and_agreeing_ones_do(tmp_path: Path) -> None:
    path = tmp_path / "expansion.tsv"
    half = (EXPANSION_MIN / 2) / 1000
    path.write_text(f"seedbytes\tentropy {half:.3f}\nosrand\tentropy {half:.3f}\nfsync\tdurable 0.600 disk 0.050\n")
    small = ExpansionTable(path)
    assert small.expand({"seedbytes"}) == []  # one weak association alone
    assert small.expand({"seedbytes", "osrand"}) == ["entropy"]  # two agreeing reach the threshold
    assert small.expand({"fsync"}) == ["durable"]  # "disk" is under the floor
    assert small.expand_many([{"fsync"}, {"seedbytes"}] * NUMPY_FROM) == [["durable"], []] * NUMPY_FROM


def test_numpy_and_the_standard_library_choose_the_same_words(table: ExpansionTable) -> None:
    """A first index expands a chunk's units with numpy, a hook one at a time: the same words, in the same order."""
    root = REQUESTS_FIXTURE
    files = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True).stdout.split() or \
        [str(p.relative_to(root)) for p in root.rglob("*.py")]
    sets = []
    for name in files:
        parsed = parse_file(name, (root / name).read_bytes())
        for unit, row in zip(parsed.units if parsed else [], fts_rows(parsed.units, expand=False) if parsed else []):
            if expands(unit):
                sets.append(unit_words(row[0], row[4], row[5]))
    assert len(sets) > 100
    together = table.expand_many(sets)
    assert together == [table.expand(words) for words in sets]
    assert sum(1 for words in together if words) > len(sets) // 4


def test_documentation_and_containers_get_no_words(tmp_path: Path) -> None:
    pf = parse_file("pkg/entropy.py", ("class Source:\n    def seed(self, n):\n        return os.urandom(n)\n").encode())
    assert pf is not None
    rows = {u.qualname: row for u, row in zip(pf.units, fts_rows(pf.units))}
    assert "random" in rows["Source.seed"][6].split()
    assert rows["Source"][6] == "" and rows["pkg/entropy.py"][6] == ""
    doc = parse_file("README.md", b"# Seeds\n\nWe read os.urandom for seeds.\n")
    assert doc is not None and all(row[6] == "" for row in fts_rows(doc.units))


def test_a_sync_writes_each_units_words_and_removes_them_with_the_unit(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"entropy.py": ENTROPY, "shapes.py": SHAPES})
    sync(root, read_target(root, "head"))
    with Store(db_path(root)) as store:
        found = {store.units_by_ids([u])[u].name: u for u, _ in store.fts_search(fts_query(["random"]), 10)}
        assert "seed_bytes" in found
        assert store.get_meta("expansion_table") == expansion.shipped_sha256()
    write_files(root, {"entropy.py": "def constant():\n    return 4\n"})
    commit_all(root)
    sync(root, read_target(root, "head"))
    with Store(db_path(root)) as store:
        assert store.fts_search(fts_query(["random"]), 10) == []
        orphans = store.integer("SELECT count(*) FROM fts_expansion WHERE rowid NOT IN (SELECT id FROM units)")
        assert orphans == 0


def test_expansion_words_find_a_unit_but_are_not_words_the_index_knows(tmp_path: Path) -> None:
    """"random" is written nowhere: the expansion brings ``seed_bytes`` in, the confidence still counts the
    word as unknown, and a search that leaves the expansion out does not find it by that word."""
    root = make_repo(tmp_path / "repo", {"entropy.py": ENTROPY, "shapes.py": SHAPES})
    sync(root, read_target(root, "head"))
    with Store(db_path(root)) as store:
        match = fts_query(["random"])
        assert [store.units_by_ids([u])[u].name for u, _ in store.fts_search(match, 10)] == ["seed_bytes"]
        assert store.fts_search(match, 10, expansion=False) == []
        assert store.fts_match_count(match, 3) == 0 and not store.fts_has_match(match)
        results = search(store, "random number source", top=2, embedder=None)
        assert results and results[0].unit.name == "seed_bytes"


def test_a_store_from_before_the_table_gets_its_words_at_the_next_sync(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"entropy.py": ENTROPY, "shapes.py": SHAPES})
    sync(root, read_target(root, "head"))
    with Store(db_path(root)) as store:
        written = store.integer("SELECT count(*) FROM fts_expansion")
        store.db.execute("DELETE FROM fts_expansion")
        store.db.execute("DELETE FROM meta WHERE key = 'expansion_table'")
    assert written > 0
    sync(root, read_target(root, "head"))
    with Store(db_path(root)) as store:
        assert store.integer("SELECT count(*) FROM fts_expansion") == written
        assert store.get_meta("expansion_table") == expansion.shipped_sha256()
