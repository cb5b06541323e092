"""The store's named questions about edges (hookgraph/store/edge_reads.py), asked of a real synced repository."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hookgraph.store import Store
from tests.helpers.store_helpers import synced_database

BILLING = """import os
from shop.base import Account


class Invoice(Account):
    def __init__(self, ledger: 'Ledger'):
        self.ledger: Ledger = ledger

    def settle(self, reader: Reader) -> int:
        count: int = 3
        return reader.read() + self.total() + helper()


class Refund(Invoice):
    pass
"""

FILES = {
    "shop/base.py": "class Account:\n    def total(self):\n        return 0\n",
    "shop/billing.py": BILLING,
    "shop/util.py": "def helper():\n    return 1\n",
}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    with Store(synced_database(tmp_path_factory.mktemp("edges"), FILES)) as opened:
        yield opened


def unit_id(store: Store, qualname: str) -> int:
    (row,) = store.units_with_qualnames([qualname])
    return row.id


def test_a_files_imports_come_with_their_full_targets(store: Store) -> None:
    assert sorted(store.imports_of_file("shop/billing.py")) == ["os", "shop.base", "shop.base.Account"]
    assert store.imports_of_file("shop/util.py") == []


def test_the_imports_of_one_name_are_those_whose_short_target_it_is(store: Store) -> None:
    assert store.imports_of_name("shop/billing.py", "Account") == ["shop.base.Account"]
    assert store.imports_of_name("shop/billing.py", "os") == ["os"]
    assert store.imports_of_name("shop/base.py", "Account") == []  # another file's import is not this one's


def test_a_star_import_is_an_import_of_everything(store: Store) -> None:
    assert not store.imports_everything("shop/util.py")
    helper = unit_id(store, "helper")
    with store.transaction():
        store.insert_edges([(helper, "imports", "*", "crate::runtime::*", 1)])
    try:
        assert store.imports_everything("shop/util.py")
        assert not store.imports_everything("shop/billing.py")
    finally:
        with store.transaction():
            store.db.execute("DELETE FROM edges WHERE source_unit = ? AND kind = 'imports'", (helper,))


def test_subclasses_and_bases_follow_the_inherits_edges(store: Store) -> None:
    assert store.subclass_names("Account") == {"Invoice"}
    assert store.subclass_names("Invoice") == {"Refund"}
    assert store.subclass_names("Refund") == set()
    assert store.bases_of(["Refund"]) == [("Invoice", "Invoice")]
    assert sorted(store.bases_of(["Invoice", "Refund"])) == [("Account", "Account"), ("Invoice", "Invoice")]
    assert store.bases_of(["Account"]) == []


def test_declared_types_of_a_variable_and_of_a_field(store: Store) -> None:
    settle = unit_id(store, "Invoice.settle")
    assert store.types_declared_in(settle, "reader") == ["Reader"]
    assert store.types_declared_in(settle, "count") == ["int"]
    assert store.types_declared_in(settle, "ledger") == []  # the constructor's parameter, not settle's
    # ``self.ledger: Ledger`` in a method of the class is the field's declaration
    assert store.types_of_field("Invoice", "ledger") == ["Ledger"]
    assert store.types_of_field("Refund", "ledger") == []


def test_use_counts_count_calls_by_target_and_types_by_type(store: Store) -> None:
    counts = {(kind, name): n for kind, name, n in store.use_counts(("calls", "types"))}
    assert counts[("calls", "read")] == 1 and counts[("calls", "helper")] == 1 and counts[("calls", "total")] == 1
    assert counts[("types", "Reader")] == 1 and counts[("types", "int")] == 1
    assert not any(kind == "inherits" for kind, _ in counts)  # only the kinds asked for
