"""Every checked-in source fixture says where it comes from and carries its licence.

The per-language tests parse real code from real packages: each
folder under tests/fixtures/languages/ names the package, version and
checksums in SOURCE.txt, lists every file it holds, and keeps the licence.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "languages"
LICENCE = re.compile(r"(?i)^(license|licence|copying|copyright|notice)")


@pytest.mark.parametrize("folder", sorted(p.name for p in FIXTURES.iterdir() if p.is_dir()))
def test_a_fixture_names_its_package_checksums_files_and_licence(folder: str) -> None:
    root = FIXTURES / folder
    source = (root / "SOURCE.txt").read_text()
    assert re.search(r"\b[0-9a-f]{64}\b", source), "no sha256 in SOURCE.txt"
    assert re.search(r"(?i)package|archive|source", source), "SOURCE.txt does not name the package"
    assert any(LICENCE.match(p.name) for p in root.iterdir()), "no licence file"
    for path in root.rglob("*"):
        if path.is_file() and path.name != "SOURCE.txt" and not LICENCE.match(path.name):
            assert path.stem in source, f"{path.relative_to(root)} is not listed in SOURCE.txt"  # also {a,b}.rb lists
