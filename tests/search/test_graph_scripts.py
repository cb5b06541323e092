"""Callers, callees and ``ask`` on real Ruby and PHP.

The fixtures (tests/fixtures/languages/{ruby,php}) are indexed in a real git
repository. Ruby qualifies with ``::`` (``Retriable::ExponentialBackoff::randomize``),
PHP with ``\\`` and ``::`` (``Symfony\\...\\Helper::width``): every lookup takes
that spelling, the dotted one and Ruby's ``Class#method``. Calls are resolved by
their receiver: ``self::``, ``$this->``, ``Helper::``, ``Retriable.`` and
Ruby's bare calls of the calling object's own methods.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from hookgraph.search import graph
from hookgraph.store import Store, db_path
from tests.conftest import git, make_repo, run_cli
from tests.helpers.graph_helpers import caller_names

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "languages"
HELPER = "Symfony\\Component\\Console\\Helper\\"


@pytest.fixture(scope="module")
def scripts_repo(tmp_path_factory: pytest.TempPathFactory, embedder) -> Path:
    from hookgraph.sync import read_target, sync

    repo = make_repo(tmp_path_factory.mktemp("graph") / "scripts")
    shutil.copytree(FIXTURES / "ruby" / "lib", repo / "lib")
    shutil.copytree(FIXTURES / "php" / "Console", repo / "Console")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "ruby and php")
    sync(repo, read_target(repo, "head"), embedder=embedder)
    return repo


def _callees(repo: Path, symbol: str) -> dict[int, set[str]]:
    with Store(db_path(repo)) as store:
        out: dict[int, set[str]] = {}
        for link in graph.callees(store, symbol):
            if link.unit is not None:
                out.setdefault(link.call_line, set()).add(link.unit.qualname)
        return out



def test_ruby_bare_call_runs_the_callers_own_method(scripts_repo: Path) -> None:
    # intervals: `intervals.map { |i| randomize(i) }` is self.randomize(i)
    assert _callees(scripts_repo, "Retriable::ExponentialBackoff::intervals")[33] == {
        "Retriable::ExponentialBackoff::randomize"
    }


def test_ruby_bare_call_runs_a_method_the_class_inherits(scripts_repo: Path) -> None:
    # faraday: `class Rack < Faraday::Adapter` calls `save_response(env, ...)`, defined in Faraday::Adapter
    assert _callees(scripts_repo, "Faraday::Adapter::Rack::call")[56] == {"Faraday::Adapter::save_response"}
    assert "Faraday::Adapter::Rack::call" in caller_names(scripts_repo, "save_response")


def test_ruby_module_receiver_and_module_functions(scripts_repo: Path) -> None:
    # Kernel#retriable: `Retriable.retriable(opts, &block)`; with_context: a bare `retriable(...)` in the module
    assert caller_names(scripts_repo, "Retriable::retriable") == {"Kernel::retriable", "Retriable::with_context"}
    assert _callees(scripts_repo, "Kernel::retriable_with_context") == {9: {"Retriable::with_context"}}


def test_php_self_static_and_class_receivers(scripts_repo: Path) -> None:
    truncate = _callees(scripts_repo, HELPER + "FormatterHelper::truncate")
    assert truncate[76] == {HELPER + "Helper::width"}  # self::width(), inherited from Helper
    assert truncate[82] == {HELPER + "Helper::substr"}  # self::substr()
    # strlen: `return self::width($string)`; strlenWithoutDecoration: `self::width(self::removeDecoration(...))`
    without = _callees(scripts_repo, HELPER + "Helper::strlenWithoutDecoration")
    assert without[163] == {HELPER + "Helper::width", HELPER + "Helper::removeDecoration"}


def test_php_this_arrow_receiver_is_the_calling_object(scripts_repo: Path) -> None:
    # LockableTrait::lock: `$this->getName()`; the trait defines none, so any getName may run:
    # candidates, not an edge (the class using the trait is not in the code)
    symbol = "Symfony\\Component\\Console\\Command\\LockableTrait::lock"
    assert 49 not in _callees(scripts_repo, symbol)
    with Store(db_path(scripts_repo)) as store:
        maybe = {u.qualname for link in graph.callees(store, symbol) if link.call_line == 49 for u in link.maybe}
    assert maybe == {HELPER + "FormatterHelper::getName", HELPER + "HelperInterface::getName"}


@pytest.mark.parametrize(
    ("spellings", "callers", "callee", "found"),
    [
        (
            ("Retriable::ExponentialBackoff::randomize", "Retriable.ExponentialBackoff.randomize",
             "ExponentialBackoff#randomize"),
            ["Retriable::ExponentialBackoff::intervals"],
            None,
            "Retriable::ExponentialBackoff::randomize",
        ),
        (
            ("Retriable::retriable", "Retriable.retriable"),
            ["Retriable::with_context", "Kernel::retriable"],
            None,
            "Retriable::retriable",
        ),
        (
            ("Helper::width", "Helper.width", HELPER + "Helper::width", "Symfony.Component.Console.Helper.Helper.width"),
            # formatBlock twice, truncate twice, strlen, strlenWithoutDecoration; and width itself, whose
            # `(new UnicodeString($string))->width()` is a method of an object no one can name
            [HELPER + "FormatterHelper::formatBlock"] * 2 + [HELPER + "FormatterHelper::truncate"] * 2
            + [HELPER + "Helper::strlen", HELPER + "Helper::width", HELPER + "Helper::strlenWithoutDecoration"],
            None,
            HELPER + "Helper::width",
        ),
        (
            ("FormatterHelper::truncate", "FormatterHelper.truncate"),
            [],
            HELPER + "Helper::substr",
            HELPER + "FormatterHelper::truncate",
        ),
    ],
)
def test_native_and_dotted_spellings_reach_the_same_symbol(scripts_repo: Path, spellings, callers, callee, found) -> None:
    for i, spelling in enumerate(spellings):
        out = run_cli(scripts_repo, "callers", spelling, "--json", check=bool(callers))
        assert out.returncode == (0 if callers else 1), (spelling, out.stderr)  # 1: found, but no callers
        assert [link["symbol"] for link in json.loads(out.stdout or "[]")] == callers, spelling
        if callee:
            out = run_cli(scripts_repo, "callees", spelling, "--json", check=True)
            assert callee in {link["symbol"] for link in json.loads(out.stdout)}, spelling
        if i < 2:  # the native spelling and the dotted one (ask loads the model: keep it to two)
            out = run_cli(scripts_repo, "ask", spelling, "--json", check=True)
            assert json.loads(out.stdout)["results"][0]["symbol"] == found, spelling


def test_ruby_name_new_is_a_call_of_the_class(scripts_repo: Path) -> None:
    # Retriable.retriable: `Config.new(config.to_h.merge(opts))` and `ExponentialBackoff.new(...)`;
    # ExponentialBackoff#intervals: `Array.new(tries)` builds someone else's class, not one of ours
    calls = set().union(*_callees(scripts_repo, "Retriable::retriable").values())
    assert {"Retriable::Config", "Retriable::ExponentialBackoff"} <= calls
    assert caller_names(scripts_repo, "Retriable::ExponentialBackoff") == {"Retriable::retriable", "Retriable::Config::initialize"}
    assert not any("Array" in q for q in set().union(*_callees(scripts_repo, "Retriable::ExponentialBackoff::intervals").values()))


def test_ruby_a_bare_name_standing_as_a_statement_calls_the_method(tmp_path: Path, embedder) -> None:
    """`make_rewindable unless @io` and a lone `check_limits` are calls (Rack's RewindableInput style)."""
    from hookgraph.sync import read_target, sync

    source = (
        "class Input\n"
        "  def read(*args)\n"
        "    make_rewindable unless @rewindable_io\n"
        "    check_limits\n"
        "    result = @rewindable_io.gets\n"
        "    result\n"
        "  end\n\n"
        "  def make_rewindable\n    @rewindable_io = StringIO.new\n  end\n\n"
        "  def check_limits\n    raise 'too big' if @size > 10\n  end\n"
        "end\n"
    )
    repo = make_repo(tmp_path / "input", {"lib/input.rb": source})
    sync(repo, read_target(repo, "head"), embedder=embedder)
    assert _callees(repo, "Input::read") == {3: {"Input::make_rewindable"}, 4: {"Input::check_limits"}}
    assert caller_names(repo, "Input::make_rewindable") == {"Input::read"}
