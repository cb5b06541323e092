"""Ranking pieces measured on eval/ and kept: tests, docs and release notes weigh less for
questions; a file unit gives way to its own definitions. Real repos, real model."""

from __future__ import annotations

from pathlib import Path

import pytest

import hookgraph.search.arrange as arrange_module
import hookgraph.search.question_weights as weights_module
import hookgraph.search.ranking as ranking_module
from hookgraph import search as search_module
from hookgraph.search import is_test_path, search
from hookgraph.store import Store, db_path
from tests.conftest import FIXTURES, index_now, make_repo

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

    repo = make_repo(tmp_path_factory.mktemp("ranking") / "pkg", {
        "pkg/__init__.py": "", "pkg/cache.py": CACHE, "pkg/slug.py": SLUG,
        "tests/test_cache.py": TEST_CACHE, "README.md": README, "CHANGES.md": CHANGES,
    })
    index_now(repo, embedder)
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
    monkeypatch.setattr(weights_module, "TEST_WEIGHT", 1.0)
    monkeypatch.setattr(weights_module, "DOC_WEIGHT", 1.0)
    monkeypatch.setattr(weights_module, "CHANGELOG_WEIGHT", 1.0)
    unweighted = {r.unit.qualname: r.score for r in _ranked(ranked_repo, embedder, QUESTION)}
    monkeypatch.undo()
    weighted = {r.unit.qualname: r.score for r in _ranked(ranked_repo, embedder, QUESTION)}
    test_name = "test_evicts_when_over_limit"
    assert unweighted["Changes > 1.1"] > 0.9 * unweighted["evict_oldest"]
    best_other = max(v for k, v in weighted.items() if k not in ("evict_oldest", "pkg/cache.py"))
    assert best_other < 0.85 * weighted["evict_oldest"]
    assert weighted[test_name] == pytest.approx(unweighted[test_name] * weights_module.TEST_WEIGHT)
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


# --------------------------------------------------------------------------- result lists

SOCKETS = '''from typing import overload


@overload
def wrap_socket(sock: int) -> int: ...


@overload
def wrap_socket(sock: str) -> str: ...


def wrap_socket(sock):
    """Wrap a plain socket in an encrypted layer before any data is sent."""
    return encrypt(sock)


def close_socket(sock):
    """Shut the socket down and release its file descriptor."""
    sock.close()


def read_chunk(sock, size):
    """Read at most size bytes from the socket, waiting until some arrive."""
    return sock.recv(size)


def send_all(sock, data):
    """Send every byte of data over the socket, retrying short writes."""
    while data:
        data = data[sock.send(data):]
'''

GUIDE = '''# Sockets guide

## Encryption

Sockets are wrapped in an encrypted layer before any data is sent.

### Encryption on servers

A server socket is wrapped in an encrypted layer when a client connects.

### Encryption on clients

A client socket is wrapped in an encrypted layer before the first byte is sent.

### Encryption and proxies

Through a proxy the socket is wrapped in an encrypted layer twice.
'''

WRAP_QUESTION = "wrap a plain socket in an encrypted layer before data is sent"


@pytest.fixture(scope="module")
def sockets_repo(tmp_path_factory: pytest.TempPathFactory, embedder) -> Path:

    repo = make_repo(tmp_path_factory.mktemp("lists") / "net", {
        "net/__init__.py": "", "net/sockets.py": SOCKETS, "docs/guide.md": GUIDE,
    })
    index_now(repo, embedder)
    return repo


@pytest.mark.parametrize("query", [WRAP_QUESTION, "wrap_socket"])
def test_typing_overloads_take_one_place(sockets_repo: Path, embedder, query: str) -> None:
    with Store(db_path(sockets_repo)) as store:
        stored = store.units_where("qualname = ?", ("wrap_socket",))
    assert len(stored) == 3  # two @overload stubs and the implementation, all indexed
    results = _ranked(sockets_repo, embedder, query)
    assert [r.unit.qualname for r in results].count("wrap_socket") == 1
    assert results[0].unit.qualname == "wrap_socket"


def test_one_document_takes_one_place_among_those_shown(sockets_repo: Path, embedder, monkeypatch) -> None:
    """search.SECTIONS_PER_DOCUMENT: the guide's sections would take two of three places; shipped, one."""
    shipped = arrange_module.SECTIONS_PER_DOCUMENT

    def order(per_document: int) -> list[tuple[str, str]]:
        monkeypatch.setattr(arrange_module, "SECTIONS_PER_DOCUMENT", per_document)
        with Store(db_path(sockets_repo)) as store:
            return [(r.unit.kind, r.unit.path) for r in search(store, WRAP_QUESTION, top=3, embedder=embedder)]

    unlimited = order(0)
    assert [p for k, p in unlimited].count("docs/guide.md") >= 2, unlimited
    spread = order(shipped)
    assert [p for k, p in spread].count("docs/guide.md") == 1, spread
    assert spread[0] == ("function", "net/sockets.py")


def test_every_candidate_is_scored_on_both_halves(sockets_repo: Path, embedder, monkeypatch) -> None:
    """A unit outside one half's short candidate list gets that half's real score, not 0."""
    query = "read bytes from the connection"

    def scores() -> dict[str, tuple[float | None, float | None]]:
        with Store(db_path(sockets_repo)) as store:
            found = search(store, query, top=50, embedder=embedder, use_graph=False)
        return {r.unit.qualname: (r.lexical, r.semantic) for r in found}

    full = scores()
    monkeypatch.setattr(ranking_module, "CANDIDATES", 2)
    short = scores()
    assert len(short) > 2  # the two 2-long lists differ: some unit is in one only
    for name, (lexical, semantic) in short.items():
        assert semantic == pytest.approx(full[name][1], abs=1e-6), name
        assert lexical == pytest.approx(full[name][0]) if full[name][0] else not lexical, name
    monkeypatch.setattr(ranking_module, "COMPLETE_SCORES", False)
    incomplete = scores()
    assert any(not sem for _, sem in incomplete.values())


# --------------------------------------------------------------------------- wrappers

CART = '''# frozen_string_literal: true

require "bigdecimal"

module Shop
  # A cart holds the goods a customer picked and totals their prices,
  # taking a discount code off the sum when one is given. Prices are
  # kept as decimals so that cents never drift.

  class Cart
    def initialize
      @goods = []
    end

    def add(good, price)
      @goods << [good, BigDecimal(price)]
    end

    def total(percent_off = 0)
      sum = @goods.sum { |_, price| price }
      sum - sum * percent_off / 100
    end
  end
end
'''

SHIPPING = '''module Shop
  class Parcel
    def weight(goods)
      goods.sum(&:grams)
    end
  end

  class Courier
    def quote(parcel)
      parcel.weight([]) * 3
    end
  end
end
'''


@pytest.fixture(scope="module")
def wrapped_repo(tmp_path_factory: pytest.TempPathFactory, embedder) -> Path:
    repo = make_repo(tmp_path_factory.mktemp("wrappers") / "shop", {
        "lib/shop/cart.rb": CART, "lib/shop/shipping.rb": SHIPPING,
    })
    index_now(repo, embedder)
    return repo


WRAPPED_QUESTION = "sum the prices of the picked goods and take a discount code off"


def test_a_module_around_one_class_gives_way_to_it(wrapped_repo: Path, embedder, monkeypatch) -> None:
    """``module Shop`` around ``class Cart`` holds the class's doc comment too, so it
    matched as well as the class; it is no place of its own."""
    def order() -> list[tuple[str, str]]:
        with Store(db_path(wrapped_repo)) as store:
            return [(r.unit.path, r.unit.qualname) for r in search(store, WRAPPED_QUESTION, top=10, embedder=embedder)]

    shipped = weights_module.WRAPPER_WEIGHT
    monkeypatch.setattr(arrange_module, "DEDUP_CONTAINERS", "file")  # this rule alone (a module also follows members)
    monkeypatch.setattr(weights_module, "WRAPPER_WEIGHT", 1.0)
    plain = order()
    wrapper, answer = ("lib/shop/cart.rb", "Shop"), ("lib/shop/cart.rb", "Shop::Cart::total")
    assert plain[0] == wrapper, plain
    monkeypatch.setattr(weights_module, "WRAPPER_WEIGHT", shipped)
    weighed = order()
    assert weighed[0] == answer and weighed.index(wrapper) > 0, weighed
    with Store(db_path(wrapped_repo)) as store:
        results = search(store, WRAPPED_QUESTION, top=20, embedder=embedder)
    reasons = {(r.unit.path, r.unit.qualname): r.reasons for r in results}
    assert "a wrapper around its one member" in reasons[wrapper]
    assert "a wrapper around its one member" not in reasons[("lib/shop/shipping.rb", "Shop")]  # two members


BILLING = '''module Billing
  # Invoices are written once a month for every customer with an open
  # account. Each line of an invoice names a service, how long it ran
  # and its price; taxes are added per country, and a credit left over
  # from an earlier month is taken off before the sum is due.
  #
  # Sums are kept in whole cents. Where a price per hour meets a
  # running time in minutes, the product is rounded once, at the end,
  # half away from zero, so that an invoice adds up to the cent that
  # its lines show. Credits are never rounded: they are cents already.
  #
  # An invoice that comes to less than the smallest sum a card may be
  # charged is carried over to the next month rather than charged.

  class Rounding
    def cents(amount)
      (amount * 100).round(half: :up)
    end
  end
end
'''


def test_a_module_with_its_own_text_around_one_small_class_is_no_wrapper(tmp_path: Path, embedder, monkeypatch) -> None:
    """search.WRAPPER_SPAN: ``module Billing`` says in its own lines how invoices are written and holds
    one small class; the class spans a fifth of it, so the module is a place of its own (a wrapper's
    member spans at least ``WRAPPER_SPAN`` of it, as ``class Cart`` does of ``module Shop``)."""
    repo = make_repo(tmp_path / "billing", {"lib/billing.rb": BILLING})
    index_now(repo, embedder)
    question = "how invoices are written each month and when a small sum is carried over"

    def reasons() -> list[str]:
        with Store(db_path(repo)) as store:
            found = search(store, question, top=10, embedder=embedder)
        return next(r.reasons for r in found if r.unit.qualname == "Billing")

    assert "a wrapper around its one member" not in reasons()
    monkeypatch.setattr(weights_module, "WRAPPER_SPAN", 0.0)
    assert "a wrapper around its one member" in reasons()


def test_a_module_goes_below_its_own_members(wrapped_repo: Path, embedder, monkeypatch) -> None:
    """A Ruby module that lists two classes is context for them, as a file is for its definitions."""
    def order() -> list[str]:
        with Store(db_path(wrapped_repo)) as store:
            found = search(store, "weigh a parcel and quote a courier price", top=6, embedder=embedder)
        return [r.unit.qualname for r in found if r.unit.path == "lib/shop/shipping.rb"]

    monkeypatch.setattr(arrange_module, "DEDUP_CONTAINERS", "file")
    plain = order()
    assert plain.index("Shop") < plain.index("Shop::Parcel"), plain
    monkeypatch.undo()
    assert "module" in arrange_module.DEDUP_CONTAINERS.split(",")
    moved = order()
    assert moved.index("Shop") == moved.index("Shop::Parcel") + 1, moved


# --------------------------------------------------------------------------- blocks that are not code

ESCAPE = '''package shop;

public final class HtmlText {
    /** Replace angle brackets, ampersands and quotes by entities so text shows safely in a page. */
    public static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (char c : text.toCharArray()) {
            switch (c) {
                case '<': out.append("&lt;"); break;
                case '>': out.append("&gt;"); break;
                case '&': out.append("&amp;"); break;
                case '"': out.append("&quot;"); break;
                default: out.append(c);
            }
        }
        return out.toString();
    }
}
'''

PAGE = '''<html>
<body>
<p>We escape angle brackets, ampersands &amp; quotes so that text shows safely in a page:</p>
<pre>&lt;b&gt; &amp; &quot;quoted&quot;</pre>
</body>
</html>
'''

SETTINGS = '''database:
  url: postgres://shop@localhost/shop
  pool: 5
'''


@pytest.fixture(scope="module")
def markup_repo(tmp_path_factory: pytest.TempPathFactory, embedder) -> Path:
    repo = make_repo(tmp_path_factory.mktemp("markup") / "shop", {
        "src/shop/HtmlText.java": ESCAPE, "web/escaping.html": PAGE, "config/settings.yaml": SETTINGS,
    })
    # Blocks embedded here (the no-embed rule would keep them from the model): this pins FALLBACK_WEIGHT alone.
    (repo / ".hookgraph").mkdir(exist_ok=True)
    (repo / ".hookgraph" / "config.toml").write_text('[no_embed]\nkinds = ["chunk"]\n')
    index_now(repo, embedder)
    return repo


def test_markup_and_config_blocks_weigh_less_than_code_for_a_question(markup_repo: Path, embedder, monkeypatch) -> None:
    """A page that talks about what the code does is not the code; a setting asked about still comes first."""
    question = "escape angle brackets, ampersands and quotes so text shows safely in a page"

    def first(query: str) -> tuple[str, str]:
        with Store(db_path(markup_repo)) as store:
            best = search(store, query, top=5, embedder=embedder)[0]
        return best.unit.kind, best.unit.path

    monkeypatch.setattr(weights_module, "FALLBACK_WEIGHT", 1.0)
    assert first(question) == ("block", "web/escaping.html")
    monkeypatch.undo()
    assert first(question) == ("method", "src/shop/HtmlText.java")
    assert first("where is the database url set") == ("block", "config/settings.yaml")


def test_an_identifier_finds_the_class_before_its_reopenings(tmp_path: Path, embedder, monkeypatch) -> None:
    """faraday reopens ``class Adapter`` in autoload.rb for an autoload list; adapter.rb defines it.

    The reopening's doc comment ("Adapter is the base class for all Faraday
    adapters") matches the name as well as the class does; the class with
    the members is the one a reader wants.
    """
    fixture = FIXTURES / "languages" / "ruby" / "lib" / "faraday"
    repo = make_repo(tmp_path / "faraday", {
        f"lib/faraday/{name}": (fixture / name).read_text() for name in ("adapter.rb", "autoload.rb")
    })
    index_now(repo, embedder)

    def first() -> str:
        with Store(db_path(repo)) as store:
            found = search(store, "Faraday::Adapter", top=3, embedder=embedder)
        return next(r.unit.path for r in found if r.unit.qualname == "Faraday::Adapter")

    assert arrange_module.DEFINITIONS_FIRST
    assert first() == "lib/faraday/adapter.rb"
    monkeypatch.setattr(arrange_module, "DEFINITIONS_FIRST", False)
    assert first() == "lib/faraday/autoload.rb"  # without the rule: the reopening
