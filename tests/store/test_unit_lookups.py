"""The store's named lookups of units and files (hookgraph/store/unit_lookups.py, reads.py), asked of a real synced
repository."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hookgraph.store import Store
from tests.helpers.store_helpers import synced_database

FILES = {
    "shop/base.py": "class Account:\n    def total(self):\n        return 0\n\n    def close(self):\n        pass\n",
    "shop/copy/base.py": "class Account:\n    def total(self):\n        return 1\n",
    "shop/util.py": "def helper_one():\n    return 1\n\n\ndef helper_two():\n    return 2\n",
    "web/router.ex": "defmodule Phoenix.Router do\n  def call(conn), do: conn\nend\n",
    "notes.bin": b"\x00\x01binary\x00",
}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    with Store(synced_database(tmp_path_factory.mktemp("units"), FILES)) as opened:
        yield opened


def places(rows: list) -> list[tuple[str, str]]:
    return sorted((r.path, r.qualname) for r in rows)


def test_units_by_name_qualified_name_or_either(store: Store) -> None:
    assert places(store.units_named("total")) == [("shop/base.py", "Account.total"),
                                                  ("shop/copy/base.py", "Account.total")]
    assert places(store.units_with_qualnames(["Account.close", "helper_one"])) == [
        ("shop/base.py", "Account.close"), ("shop/util.py", "helper_one")]
    # by its own name (Account) or by its qualified name (Account.total): both spellings of a question
    assert places(store.units_named_any(["Account", "Account.total"])) == [
        ("shop/base.py", "Account"), ("shop/base.py", "Account.total"),
        ("shop/copy/base.py", "Account"), ("shop/copy/base.py", "Account.total")]
    assert store.units_named("nothing") == [] and store.units_with_qualnames(["nothing"]) == []


def test_a_dotted_name_is_found_by_its_last_part(store: Store) -> None:
    assert places(store.units_dotted_ending("Router")) == [("web/router.ex", "Phoenix.Router")]
    assert store.units_dotted_ending("Phoenix") == []  # the first part is not the end


def test_copies_of_a_definition_in_other_files(store: Store) -> None:
    assert places(store.same_definitions_elsewhere("Account", "Account", "shop/base.py")) == [
        ("shop/copy/base.py", "Account")]
    assert store.same_definitions_elsewhere("helper_one", "helper_one", "shop/util.py") == []


def test_a_containers_members_and_its_file(store: Store) -> None:
    (account,) = store.units_at("shop/base.py", "Account")
    assert account.kind == "class"
    assert sorted(m.qualname for m in store.members_of("shop/base.py", "Account")) == ["Account.close", "Account.total"]
    assert [u.kind for u in store.file_units_of("shop/base.py")] == ["file"]
    assert sorted(u.path for u in store.file_units()) == ["shop/base.py", "shop/copy/base.py", "shop/util.py",
                                                         "web/router.ex"]


def test_units_and_spans_of_a_set_of_files(store: Store) -> None:
    rows = store.units_of_files({"shop/util.py"})
    assert sorted(kind for _, _, kind in rows) == ["file", "function", "function"]
    assert {path for _, path, _ in rows} == {"shop/util.py"}
    spans = store.spans_in_files({"shop/base.py"})
    members = sorted((parent, kind, start) for path, parent, kind, start, _end in spans if parent)
    assert members == [("Account", "method", 2), ("Account", "method", 5)]
    # more paths than one statement may bind are asked in chunks
    assert len(store.units_of_files({f"x/{n}.py" for n in range(1200)} | {"shop/util.py"})) == 3


def test_units_waiting_for_no_vector(store: Store) -> None:
    ids = [u.id for u in store.units_named_any(["helper_one", "helper_two"])]
    waiting = {u for u in ids if store.pending_of_units([u])}
    assert waiting, "a fresh sync without the model queues the functions' texts"
    assert store.units_not_waiting(ids) == set(ids) - waiting


def test_completion_offers_definitions_by_prefix_with_like_characters_taken_literally(store: Store) -> None:
    assert store.qualnames_starting("Account.", 200) == ["Account.close", "Account.total"]
    assert store.qualnames_starting("helper_", 1) == ["helper_one"]
    assert store.qualnames_starting("helper%", 200) == []  # % is a character, not a wildcard
    assert store.qualnames_starting("shop/", 200) == []  # file units are not offered


def test_files_their_paths_count_languages_and_folders(store: Store) -> None:
    assert sorted(store.file_paths()) == sorted(FILES)
    assert store.file_count() == len(FILES)
    assert store.has_file_under("shop/copy") and store.has_file_under("copy")
    assert not store.has_file_under("hop") and not store.has_file_under("java/util")
    by_language = {(language, status): n for language, status, n in store.files_by_language_and_status()}
    assert by_language[("python", "indexed")] == 3
    assert sum(n for (language, _), n in by_language.items() if language != "python") == 2


def test_full_text_questions(store: Store) -> None:
    (helper,) = store.units_with_qualnames(["helper_one"])
    (total,) = store.units_with_qualnames(["Account.close"])
    assert store.fts_has_match('"helper"') and not store.fts_has_match('"zebra"')
    assert store.fts_match_count('"account"', 500) >= 4 and store.fts_match_count('"account"', 2) == 2
    assert store.fts_unit_matches('"helper"', helper.id) and not store.fts_unit_matches('"helper"', total.id)
    # an expression FTS5 refuses matches nothing instead of failing the question
    assert not store.fts_has_match('"unclosed') and store.fts_match_count('"unclosed', 5) == 0
    assert not store.fts_unit_matches('"unclosed', helper.id)


def test_the_largest_unit_id_and_none_when_empty(store: Store, tmp_path: Path) -> None:
    assert store.largest_unit_id() == max(u.id for u in store.units_where("1"))
    with Store(tmp_path / "empty.db", create=True) as empty:
        assert empty.largest_unit_id() is None
        assert empty.file_count() == 0 and empty.file_paths() == []
