"""The training sources never include a project our benchmarks measure answers on (training/exclude.txt)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from training.collect import PACKAGES, SOURCES, read_packages
from training.exclude import EXCLUDE_FILE, excluded_names, is_excluded, skipped_path

SHARED_EXCLUDE = Path(__file__).resolve().parents[3] / "shared" / "training-exclude.txt"


def test_no_pinned_source_is_excluded() -> None:
    names = excluded_names()
    sources = json.loads(SOURCES.read_text())["sources"]
    assert len(sources) >= 300
    assert len({s["language"] for s in sources}) >= 10
    offenders = [(s["registry"], s["package"], is_excluded(s["package"], names)) for s in sources
                 if is_excluded(s["package"], names)]
    assert offenders == []
    for source in sources:  # pinned: a version and the archive's sha256
        assert source["version"] and len(source["sha256"]) == 64, source


def test_the_wanted_list_holds_no_excluded_name_either() -> None:
    names = excluded_names()
    assert [s.package for s in read_packages(PACKAGES) if is_excluded(s.package, names)] == []


@pytest.mark.skipif(not SHARED_EXCLUDE.exists(), reason="the shared exclusion list lies beside a checkout only")
def test_our_list_holds_every_name_of_the_shared_one() -> None:
    ours = set(EXCLUDE_FILE.read_text().splitlines())
    missing = [line for line in SHARED_EXCLUDE.read_text().splitlines() if line.strip() and line not in ours]
    assert missing == []


@pytest.mark.parametrize("package, excluded", [
    ("golang-github-spf13-cobra", "cobra"),
    ("golang-github-gin-gonic-gin-dev", "gin"),
    ("rust-serde", "serde"),
    ("librust-tokio-dev", "tokio"),
    ("ruby-rack", "rack"),
    ("libwww-perl", "libwww-perl"),
    ("python3-requests", "requests"),
    ("node-axios", "axios"),
    ("@tanstack/query-core", "@tanstack/query-core"),
    ("libuv1", "libuv"),
    ("fmtlib", "fmt"),
    ("flask", "flask"),
])
def test_registry_forms_of_an_excluded_project_are_refused(package: str, excluded: str) -> None:
    assert is_excluded(package) == excluded


@pytest.mark.parametrize("package", ["sympy", "date-fns", "libjson-perl", "commons-text", "golang-golang-x-net"])
def test_unrelated_projects_pass(package: str) -> None:
    assert is_excluded(package) is None


def test_vendored_copies_are_skipped() -> None:
    names = excluded_names()
    assert skipped_path("src/pip/_vendor/requests/api.py", names)
    assert skipped_path("lib/node_modules/left-pad/index.js", names)
    assert skipped_path("third_party/zlib/inflate.c", names)
    assert skipped_path("src/requests/sessions.py", names)  # a copy under its own name
    assert not skipped_path("src/sympy/core/basic.py", names)
