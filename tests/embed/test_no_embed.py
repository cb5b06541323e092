"""The no-embed rule: some units never get a vector, are never pending, and stay found by words and graph.

Real git repositories, the real ``hookgraph`` command and the real shipped model.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookgraph.config import ConfigError
from hookgraph.embed.no_embed import DEFAULT_RULE, load_rule
from hookgraph.store import Store, db_path
from tests.conftest import commit_all, make_repo, run_cli, write_files

SERVICE = '''"""Invoices."""

TAX_RATE = 0.2


def total_with_tax(lines):
    """Sum the invoice lines and add the sales tax."""
    return sum(lines) * (1 + TAX_RATE)


def round_cents(amount):
    return round(amount, 2)
'''

TEST_SERVICE = '''from billing.service import total_with_tax


def test_total_with_tax_adds_twenty_percent():
    assert total_with_tax([10, 20]) == 36
'''

SETTINGS_JSON = '{\n  "currency": "EUR",\n  "rounding": "half-even"\n}\n'


@pytest.fixture
def billing(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "billing", {
        "billing/__init__.py": "",
        "billing/service.py": SERVICE,
        "tests/test_service.py": TEST_SERVICE,
        "config/settings.json": SETTINGS_JSON,
    })


def status(repo: Path) -> dict:
    return json.loads(run_cli(repo, "status", "--json", check=True).stdout)


def unit_states(repo: Path) -> dict[str, tuple[bool, bool]]:
    """qualname -> (has a vector, is waiting for one)."""
    with Store(db_path(repo), readonly=True) as store:
        return {q: (v is not None, h is not None) for q, v, h in store.db.execute(
            "SELECT qualname, vector_id, text_hash FROM units")}


def test_defaults_are_one_plain_data_structure() -> None:
    assert set(DEFAULT_RULE) == {"kinds", "tests", "generated", "vendored", "data", "paths", "min_lines"}
    rule = load_rule(Path("/nonexistent"))
    assert rule.reason("tests/test_x.py", "function", 1, 9) == "tests"
    assert rule.reason("src/pkg/foo_test.go", "function", 1, 9) == "tests"
    assert rule.reason("web/src/app.spec.ts", "function", 1, 9) == "tests"
    assert rule.reason("data/cities.json", "file", 1, 900) == "data"
    assert rule.reason("notes.txt", "chunk", 1, 40) == "kind"
    assert rule.reason("src/app.py", "constant", 3, 3) == "short"
    assert rule.reason("src/app.py", "file", 1, 1) is None  # files are exempt from the size limit
    assert rule.reason("src/app.py", "function", 3, 4) is None
    assert rule.reason("src/contest.py", "function", 3, 9) is None  # "test" inside a word is no test


def test_config_overrides_each_key_and_bad_values_name_file_and_key(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    config = repo / ".hookgraph" / "config.toml"
    config.parent.mkdir()
    config.write_text('[no_embed]\ntests = []\nkinds = ["section"]\npaths = ["docs/api/*"]\nmin_lines = 5\n')
    rule = load_rule(repo)
    assert rule.reason("tests/test_x.py", "function", 1, 9) is None
    assert rule.reason("README.md", "section", 1, 9) == "kind"
    assert rule.reason("docs/api/deep/ref.py", "function", 1, 9) == "path"
    assert rule.reason("src/a.py", "function", 1, 4) == "short"
    assert rule.fingerprint != load_rule(tmp_path / "none").fingerprint
    for body, key in (('min_lines = "3"', "min_lines"), ("min_lines = true", "min_lines"),
                      ("min_lines = -1", "min_lines"), ('tests = "tests/*"', "tests"), ('kinds = ["funktion"]', "kinds"),
                      ('data = [""]', "data"), ("minlines = 3", "minlines")):
        config.write_text(f"[no_embed]\n{body}\n")
        with pytest.raises(ConfigError) as error:
            load_rule(repo)
        assert str(config) in str(error.value) and key in str(error.value)
    # the command says it in one line, no traceback, and writes nothing
    config.write_text('[no_embed]\nkinds = ["funktion"]\n')
    write_files(repo, {"a.py": "def a():\n    return 1\n"})
    commit_all(repo)
    proc = run_cli(repo, "index")
    assert proc.returncode != 0 and "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1
    assert "[no_embed] kinds" in proc.stderr and str(config) in proc.stderr
    with Store(db_path(repo), readonly=True) as store:  # the sync stopped before writing any file
        assert store.integer("SELECT count(*) FROM files") == 0


def test_excluded_units_are_never_pending_and_status_counts_why(billing: Path) -> None:
    run_cli(billing, "index", check=True)  # no background embedder in tests: everything stays queued
    states = unit_states(billing)
    assert states["test_total_with_tax_adds_twenty_percent"] == (False, False)  # a test: never waits
    assert states["tests/test_service.py"] == (False, False)
    assert states["TAX_RATE"] == (False, False)  # one line
    assert states["total_with_tax"] == (False, True) and states["round_cents"] == (False, True)
    st = status(billing)
    assert st["not_embedded"] == {"data": 1, "kind": 1, "short": 1, "tests": 2}
    assert st["no_embed_rule_applied"] is True
    waiting = sum(1 for _, w in states.values() if w)
    assert st["pending_units"] == waiting and st["pending_vectors"] == waiting
    with Store(db_path(billing), readonly=True) as store:  # the queue holds exactly the waiting units' texts
        queued = {r[0] for r in store.db.execute("SELECT text_hash FROM pending")}
        assert queued == {r[0] for r in store.db.execute("SELECT text_hash FROM units WHERE text_hash IS NOT NULL")}
    text = run_cli(billing, "status", check=True).stdout
    assert "no-embed:  5 units never embedded (found by words and graph): 1 data, 1 kind, 1 short, 2 tests" in text
    # the embedder empties the queue; the excluded units are not "left over"
    run_cli(billing, "index", "--wait", check=True)
    st = status(billing)
    assert st["pending_vectors"] == 0 and st["pending_units"] == 0
    assert st["not_embedded"] == {"data": 1, "kind": 1, "short": 1, "tests": 2}
    assert st["vectors"] == len(states) - 5
    assert "embedding: complete" in run_cli(billing, "status", check=True).stdout


def test_excluded_units_are_found_by_words_and_graph(billing: Path) -> None:
    run_cli(billing, "index", "--wait", check=True)
    by_name = json.loads(run_cli(billing, "ask", "test_total_with_tax_adds_twenty_percent", "--json",
                                 check=True).stdout)
    assert by_name["results"][0]["symbol"] == "test_total_with_tax_adds_twenty_percent"
    # a question, with the model: the test has no vector, its words stand in for its meaning
    asked = json.loads(run_cli(billing, "ask", "test that the total adds twenty percent tax", "--json",
                               check=True).stdout)
    found = [r for r in asked["results"] if r["symbol"] == "test_total_with_tax_adds_twenty_percent"]
    assert found and found[0]["semantic"] is None
    assert asked["pending_vectors"] == 0
    constant = json.loads(run_cli(billing, "ask", "TAX_RATE", "--json", check=True).stdout)
    assert constant["results"][0]["symbol"] == "TAX_RATE"
    callers = json.loads(run_cli(billing, "callers", "total_with_tax", "--json", check=True).stdout)
    assert "test_total_with_tax_adds_twenty_percent" in [c["symbol"] for c in callers]
    callees = json.loads(run_cli(billing, "callees", "test_total_with_tax_adds_twenty_percent", "--json",
                                 check=True).stdout)
    assert "total_with_tax" in [c["symbol"] for c in callees]


def test_a_changed_rule_reaches_units_written_before(billing: Path) -> None:
    run_cli(billing, "index", check=True)
    config = billing / ".hookgraph" / "config.toml"
    config.write_text("[no_embed]\ntests = []\nmin_lines = 0\n")
    assert status(billing)["no_embed_rule_applied"] is False
    assert "the rule changed since the last sync" in run_cli(billing, "status", check=True).stdout
    run_cli(billing, "index", check=True)  # nothing changed in git: the rule alone re-parses the test file
    states = unit_states(billing)
    assert states["test_total_with_tax_adds_twenty_percent"] == (False, True)
    assert states["TAX_RATE"] == (False, True)
    st = status(billing)
    assert st["not_embedded"] == {"data": 1, "kind": 1} and st["no_embed_rule_applied"] is True
    # and back: what now is excluded leaves the queue at the next sync, no model needed
    config.write_text("[no_embed]\nmin_lines = 0\n")
    run_cli(billing, "index", check=True)
    states = unit_states(billing)
    assert states["test_total_with_tax_adds_twenty_percent"] == (False, False)
    assert states["TAX_RATE"] == (False, True)
    st = status(billing)
    assert st["not_embedded"] == {"data": 1, "kind": 1, "tests": 2} and st["pending_units"] == sum(w for _, w in states.values())
    with Store(db_path(billing), readonly=True) as store:
        queued = {r[0] for r in store.db.execute("SELECT text_hash FROM pending")}
        assert queued == {r[0] for r in store.db.execute("SELECT text_hash FROM units WHERE text_hash IS NOT NULL")}
