"""``hookgraph graph SYMBOL``: Mermaid, DOT (parsed by Graphviz when installed) and JSON on a fixture repo."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from hookgraph.search.diagram import dot_text, mermaid_text
from tests.conftest import make_repo, run_cli

CORE = '''"""Core of the shop."""
import os
from shop import helpers
from .pricing import discount


class Base:
    """Every model."""


class Größe(Base):
    """A size, with a unicode name."""

    def mëssen(self):
        return helper()

    def wiegen(self):
        return 2


def helper():
    """Shared by everyone."""
    return os.getcwd()


def fan_out():
    return [f0(), f1(), f2(), f3(), f4(), f5(), f6(), f7(), f8(), f9(), f10(), f11()]


def caller_of_fan_out():
    return fan_out()
''' + "".join(f"\n\ndef f{i}():\n    return {i}\n" for i in range(12))

PRICING = '''def discount(price):
    return price * 0.9
'''

ODD = '''def quoted():
    """Lives in a file whose name has quotes and brackets."""
    return helper()


def helper():
    return 0
'''

HELPERS = '''from shop.core import helper


def lonely():
    return helper()
'''


@pytest.fixture(scope="module")
def shop_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = make_repo(tmp_path_factory.mktemp("graph") / "shop", {
        "shop/core.py": CORE,
        "shop/pricing.py": PRICING,
        "shop/helpers.py": HELPERS,
        'shop/we"ird [v2].py': ODD,
    })
    run_cli(repo, "index", "--wait", check=True)
    return repo


def graph_json(repo: Path, *args: str) -> dict[str, Any]:
    return json.loads(run_cli(repo, "graph", *args, "--format", "json", check=True).stdout)


def by_label(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {n["label"]: n for n in data["nodes"]}


def edges(data: dict[str, Any]) -> set[tuple[str, str, str]]:
    names = {n["id"]: n["label"] for n in data["nodes"]}
    return {(names[e["source"]], e["kind"], names[e["target"]]) for e in data["edges"]}


def test_json_neighbourhood_of_a_method(shop_repo: Path) -> None:
    data = graph_json(shop_repo, "Größe.mëssen")
    nodes = by_label(data)
    focal = nodes["Größe.mëssen"]
    assert data["focus"] == [focal["id"]] and focal["focal"] and focal["kind"] == "method"
    assert (focal["path"], focal["start_line"]) == ("shop/core.py", 14)
    got = edges(data)
    assert ("Größe.mëssen", "calls", "helper") in got
    assert ("Größe", "contains", "Größe.mëssen") in got  # its class
    assert ("shop/core.py", "contains", "Größe") in got  # and the class's file
    assert ("shop/core.py", "imports", "os") in got and nodes["os"]["external"]
    assert ("shop/core.py", "imports", "shop/pricing.py") in got  # ``from .pricing import discount``: ours
    assert ("shop/core.py", "imports", "shop/helpers.py") in got
    helper = [n for n in data["nodes"] if n["label"] == "helper"]
    assert len(helper) == 1 and helper[0]["path"] == "shop/core.py"  # the same-file definition


def test_class_shows_members_bases_and_subclasses(shop_repo: Path) -> None:
    got = edges(graph_json(shop_repo, "Größe"))
    assert {("Größe", "contains", "Größe.mëssen"), ("Größe", "contains", "Größe.wiegen"),
            ("Größe", "inherits", "Base")} <= got
    assert ("Größe", "inherits", "Base") in edges(graph_json(shop_repo, "Base"))


def test_large_fan_out_collapses_with_a_count(shop_repo: Path) -> None:
    data = graph_json(shop_repo, "fan_out", "--max-fan", "5")
    callees = [n for n in data["nodes"] if re.fullmatch(r"f\d+", n["label"])]
    assert len(callees) == 4
    more = [n for n in data["nodes"] if n["kind"] == "more"]
    assert [(m["label"], m["collapsed"]) for m in more] == [("8 more callees", 8)]
    assert ("fan_out", "calls", "8 more callees") in edges(data)


def test_depth_follows_calls(shop_repo: Path) -> None:
    one = by_label(graph_json(shop_repo, "f3"))
    assert "fan_out" in one and "caller_of_fan_out" not in one
    two = by_label(graph_json(shop_repo, "f3", "--depth", "2"))
    assert "caller_of_fan_out" in two
    assert by_label(graph_json(shop_repo, "f3", "--depth", "0")).keys() >= {"f3"}


def test_a_name_in_several_places_is_focal_everywhere(shop_repo: Path) -> None:
    data = graph_json(shop_repo, "helper")
    focal = [n for n in data["nodes"] if n["focal"]]
    assert {n["path"] for n in focal} == {"shop/core.py", 'shop/we"ird [v2].py'}
    got = edges(data)
    assert ("quoted", "calls", "helper") in got and ("Größe.mëssen", "calls", "helper") in got
    assert ("lonely", "calls", "helper") in got  # imported from shop.core


MERMAID_LINE = re.compile(
    r'^    (?:'
    r'[nm]\d+(?:\["[^"]*"\]|\[\["[^"]*"\]\]|\[/"[^"]*"/\]|>"[^"]*"\]|\("[^"]*"\))'
    r'|[nm]\d+ (?:-->|-\.->)\|(?:calls|contains|imports|inherits)\| [nm]\d+'
    r'|classDef (?:focal|more|external) [^;]+'
    r'|class [nm]\d+(?:,[nm]\d+)* (?:focal|more|external)'
    r')$'
)


def test_mermaid_is_well_formed_and_escaped(shop_repo: Path) -> None:
    out = run_cli(shop_repo, "graph", "helper", check=True).stdout
    lines = out.splitlines()
    assert lines[0] == "flowchart LR"
    for line in lines[1:]:
        assert MERMAID_LINE.match(line), line
    assert "Größe.mëssen" in out  # unicode kept as is
    assert "we#quot;ird [v2].py" in out  # a quote in a label is an entity; brackets are safe inside quotes
    focal_ids = [line.split()[1] for line in lines if line.startswith("    class ") and line.endswith(" focal")]
    assert len(focal_ids) == 1 and len(focal_ids[0].split(",")) == 2


def test_escaping_rules() -> None:
    assert mermaid_text('a"b#c<d>&e`f') == "a#quot;b#35;c#lt;d#gt;#amp;e#96;f"
    assert mermaid_text("bell\x07 rtl\u202e") == "bell\\x07 rtl\\u202e"
    assert dot_text('say "hi" \\N [x] ü') == 'say \\"hi\\" \\\\N [x] ü'
    assert dot_text("esc\x1b") == "esc\\\\x1b"


def test_dot_output(shop_repo: Path) -> None:
    out = run_cli(shop_repo, "graph", "Größe.mëssen", "--format", "dot", check=True).stdout
    assert out.startswith("digraph hookgraph {") and out.rstrip().endswith("}")
    assert re.search(r'n\d+ \[label="Größe\.mëssen\\nmethod · shop/core\.py:14", style="filled,bold"', out)
    assert re.search(r'n\d+ -> n\d+ \[label="calls"\];', out)
    assert '[label="contains", style="dashed"' in out and '[label="imports", style="dotted"]' in out


def test_dot_parses_with_graphviz(shop_repo: Path, tmp_path: Path) -> None:
    dot = shutil.which("dot")
    if dot is None:
        pytest.skip("Graphviz (dot) is not installed; .ci/run installs it")
    for symbol in ("helper", "Größe", "fan_out"):
        source = run_cli(shop_repo, "graph", symbol, "--format", "dot", "--depth", "2", "--max-fan", "3",
                         check=True).stdout
        proc = subprocess.run([dot, "-Tsvg"], input=source.encode(), capture_output=True, check=False)
        assert proc.returncode == 0 and not proc.stderr, (symbol, proc.stderr.decode())
        svg = proc.stdout.decode()
        assert svg.lstrip().startswith("<?xml") and "<svg" in svg
        if symbol == "helper":
            assert "we&quot;ird [v2].py" in svg and "Größe.mëssen" in svg  # labels survived intact


def test_unknown_symbol_and_bad_options(shop_repo: Path) -> None:
    proc = run_cli(shop_repo, "graph", "no_such_thing")
    assert proc.returncode == 2 and "no function, method or class named 'no_such_thing'" in proc.stderr
    proc = run_cli(shop_repo, "graph", "helper", "--format", "png")
    assert proc.returncode == 2 and "png" in proc.stderr
    proc = run_cli(shop_repo, "graph", "helper", "--depth", "9")
    assert proc.returncode == 2
