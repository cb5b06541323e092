"""``ask`` with a query that starts with ``-`` (:mod:`hookgraph.cli.query_args`): the query, not an option."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import TINY_APP, make_repo, run_cli


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_repo(tmp_path_factory.mktemp("dash") / "repo", {"app.py": TINY_APP})
    run_cli(root, "index", check=True)
    return root


def _answer(proc) -> dict:  # type: ignore[no-untyped-def]
    assert proc.returncode in (0, 1) and "No such option" not in proc.stderr, proc.stderr
    return json.loads(proc.stdout)


def test_a_dash_led_question_with_a_space_is_the_query_wherever_it_stands(app: Path) -> None:
    for args in (("-fetch page retry", "--json", "--no-semantic"), ("--json", "-fetch page retry", "--no-semantic")):
        answer = _answer(run_cli(app, "ask", *args))
        assert answer["query"] == "-fetch page retry"
        assert answer["results"][0]["symbol"] == "fetch_page", answer["results"][:2]


def test_after_double_dash_a_single_dash_word_is_the_query(app: Path) -> None:
    answer = _answer(run_cli(app, "ask", "--json", "--no-semantic", "--", "-fetch_page"))
    assert answer["query"] == "-fetch_page" and answer["results"], answer


def test_an_unknown_dash_word_says_how_to_ask_for_it(app: Path) -> None:
    proc = run_cli(app, "ask", "-refund")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "hookgraph ask -- -refund" in proc.stderr, proc.stderr


def test_an_options_value_that_starts_with_a_dash_stays_its_value(app: Path) -> None:
    proc = run_cli(app, "ask", "--path", "-odd dir", "fetch_page", "--no-semantic")
    assert proc.returncode == 1 and "no indexed path matches --path '-odd dir'" in proc.stderr, proc.stderr


def test_the_help_says_how(app: Path) -> None:
    help_text = " ".join(run_cli(app, "ask", "--help", check=True).stdout.split())
    assert 'A query that starts with "-" goes after "--"' in help_text and "hookgraph ask --json -- -refund" in help_text
