"""The store's named writes and file upkeep (hookgraph/store/store.py, writes.py): one read snapshot, the online
copy, compaction, meta removal, the queue's renumbering and units that stop waiting; on real databases."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from hookgraph.store import Store
from tests.helpers.store_helpers import synced_database

FILES = {
    "shop/util.py": "def helper_one():\n    return 1\n\n\ndef helper_two():\n    return 2\n\n\n"
                    "def helper_three():\n    return 3\n",
}


def test_a_read_snapshot_does_not_see_a_later_write(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    with Store(path, create=True) as writer:
        writer.set_meta("k", "old")
        reader = Store(path, readonly=True)
        try:
            reader.begin_read()
            assert reader.get_meta("k") == "old"
            writer.set_meta("k", "new")  # a hook writes meanwhile
            assert reader.get_meta("k") == "old"  # the answer reads one state
        finally:
            reader.close()
        with Store(path, readonly=True) as later:
            assert later.get_meta("k") == "new"


def test_the_online_copy_is_a_whole_store(tmp_path: Path) -> None:
    database = synced_database(tmp_path, FILES)
    dest = tmp_path / "copy.db"
    with Store(database) as store:
        store.copy_to(dest)
        expected = (store.file_map(), store.all_meta(), store.pending_count())
    with Store(dest, readonly=True) as copy:
        copy.check_contents()
        assert (copy.file_map(), copy.all_meta(), copy.pending_count()) == expected
        assert expected[2] > 0


def test_vacuum_gives_free_pages_back(tmp_path: Path) -> None:
    with Store(tmp_path / "index.db", create=True) as store:
        with store.transaction():
            store.queue_texts([(n.to_bytes(4, "big"), "python", "x" * 4000) for n in range(400)])
        size, pages, free = store.page_counts()
        assert size > 0 and pages > 100 and free == 0
        with store.transaction():
            store.clear_all()
        _, pages_after_delete, free = store.page_counts()
        assert pages_after_delete == pages and free > 100  # SQLite keeps freed pages
        store.vacuum()
        _, pages_now, free_now = store.page_counts()
        assert free_now == 0 and pages_now < pages // 4


def test_a_meta_key_is_forgotten(tmp_path: Path) -> None:
    with Store(tmp_path / "index.db", create=True) as store:
        store.set_meta("flag", "1")
        store.set_meta("other", "2")
        store.delete_meta("flag")
        store.delete_meta("never-set")  # no key, no change
        assert store.all_meta().get("flag") is None and store.get_meta("other") == "2"


def test_queued_code_and_its_renumbering_set_the_embedders_order(tmp_path: Path) -> None:
    with Store(synced_database(tmp_path, FILES)) as store:
        order = store.next_pending(100)
        by_hash = {h: text for h, _, text in order}
        tiers = {store.pending_of_units([u.id])[u.id][0]: u.name
                 for u in store.units_named_any(["helper_one", "helper_two", "helper_three"])}
        priority = next(p for p in range(100) if {h for h, *_ in store.queued_code(p)} == set(tiers))
        rows = store.queued_code(priority)
        assert sorted(name for _, _, name, _, _, _ in rows) == ["helper_one", "helper_three", "helper_two"]
        assert all(path == "shop/util.py" and kind == "function" for _, _, _, kind, path, _ in rows)
        seqs = sorted(seq for _, seq, *_ in rows)
        wanted = [h for h, *_ in sorted(rows, key=lambda r: r[2])]  # alphabetical instead of the sync's order
        with store.transaction():
            store.renumber_pending(zip(seqs, wanted))
        now = [h for h, _, _ in store.next_pending(100) if h in tiers]
        assert [tiers[h] for h in now] == ["helper_one", "helper_three", "helper_two"]
        assert {h: text for h, _, text in store.next_pending(100)} == by_hash  # nothing else changed


def test_units_stop_waiting_and_the_rule_sees_which_lack_a_vector(tmp_path: Path) -> None:
    with Store(synced_database(tmp_path, FILES)) as store:
        lacking = {uid: (path, kind, bool(waiting)) for uid, path, kind, _s, _e, waiting in store.units_lacking_vector()}
        functions = [u.id for u in store.units_named_any(["helper_one", "helper_two", "helper_three"])]
        assert set(functions) <= set(lacking) and all(lacking[u][2] for u in functions)
        with store.transaction():
            store.stop_waiting(functions[:2])
        after = {uid: bool(waiting) for uid, *_rest, waiting in store.units_lacking_vector()}
        assert [after[u] for u in functions] == [False, False, True]
        assert set(store.pending_of_units(functions)) == {functions[2]}


def test_the_vector_cache_has_rows_once_a_vector_is_orphaned(tmp_path: Path) -> None:
    with Store(tmp_path / "index.db", create=True) as store:
        store.ensure_vector_table(4)
        assert not store.has_vector_cache_rows()
        with store.transaction():
            store.insert_vector(b"ha", np.array([1, 0, 0, 0], dtype=np.float32), "python")
            assert store.collect_orphan_vectors() == 1  # no unit points at it
        assert store.has_vector_cache_rows()
