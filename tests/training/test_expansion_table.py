"""The expansion table (training/expansion.py): associations common to several projects, rebuilt byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

from hookgraph.parse.expansion import ExpansionTable
from training import expansion


def _pairs(path: Path) -> Path:
    """Four sources whose doc comments say "random" beside ``os.urandom``; one that says "csswg" beside
    ``serialize`` (its own dialect); filler pairs that make both words rare enough to be specific."""
    rows = []
    for source in ("alpha", "beta", "gamma", "delta"):
        rows += [{"q": f"Return random bytes for seed {i}.", "d": f"def seed_{i}(n):\n    return os.urandom(n)",
                  "kind": "doc", "src": source} for i in range(10)]
    rows += [{"q": f"Serialize the value per the csswg drafts {i}.", "d": f"def dump_{i}(v):\n    return serialize(v)",
              "kind": "doc", "src": "epsilon"} for i in range(30)]
    rows += [{"q": f"Draw the shape number {i} on the canvas.", "d": f"def draw_{i}(c):\n    c.arc(0, 0, {i})",
              "kind": "doc", "src": f"filler{i % 5}"} for i in range(200)]
    rows += [{"q": "random words from a name", "d": "def urandom_name():\n    pass", "kind": "name", "src": "zeta"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_an_association_several_projects_share_is_kept_and_one_projects_dialect_is_not(tmp_path: Path) -> None:
    table = expansion.build(_pairs(tmp_path / "pairs.jsonl"))
    assert "random" in [w for w, _ in table["urandom"]]  # ("bytes", "seed" too: these pairs say nothing else)
    assert "serialize" not in table and "csswg" not in {w for found in table.values() for w, _ in found}


def test_the_same_pairs_give_the_same_table_byte_for_byte_and_it_reads_back(tmp_path: Path) -> None:
    pairs = _pairs(tmp_path / "pairs.jsonl")
    first = expansion.write(expansion.build(pairs), tmp_path / "one").read_bytes()
    second = expansion.write(expansion.build(pairs), tmp_path / "two").read_bytes()
    assert first == second and (tmp_path / "one" / "expansion.sha256").read_text() == \
        (tmp_path / "two" / "expansion.sha256").read_text()
    assert "random" in ExpansionTable(tmp_path / "one" / "expansion.tsv").expand({"urandom"})
