"""``file`` pairs: a file's own documentation, or a reST section that names it, against the file's fingerprint."""

from __future__ import annotations

import io
import random
import tarfile
from pathlib import Path

from hookgraph.parse import parse_file
from training.collect import Source, python_module_names, rst_module_sections, source_pairs, unit_pairs

RETRY = b'''"""Retry policies for flaky network calls, with exponential backoff between attempts."""
import time


def backoff(attempt):
    return 2 ** attempt


class Retry:
    def run(self, call):
        return call()
'''
LICENSED = b'''# Copyright 2020 The Authors. Licensed under the Apache License, Version 2.0.
# You may not use this file except in compliance with the License.

def backoff(attempt):
    return 2 ** attempt


def jitter(delay):
    return delay
'''
API_RST = b'''Sessions
========

.. automodule:: pkg.session
   :members:

A :class:`Session` keeps cookies and pooled connections between the requests it sends.

Unrelated
---------

Nothing here names a module.
'''
SESSION = b'''class Session:
    def send(self, request):
        return request

    def close(self):
        pass
'''


def _file_pairs(path: str, data: bytes) -> list[dict[str, str]]:
    parsed = parse_file(path, data, text_chunks=False)
    assert parsed is not None
    return [p for p in unit_pairs(parsed, random.Random(0)) if p["kind"] == "file"]


def test_a_module_docstring_is_paired_with_the_files_fingerprint_without_it() -> None:
    [pair] = _file_pairs("pkg/retry.py", RETRY)
    assert pair["q"] == "Retry policies for flaky network calls, with exponential backoff between attempts."
    assert pair["d"].splitlines()[0] == "file pkg/retry.py"
    assert "backoff" in pair["d"] and "Retry" in pair["d"]  # the names it defines
    assert "flaky" not in pair["d"]  # the answer does not repeat the question


def test_a_licence_header_is_not_what_a_file_is_about() -> None:
    assert _file_pairs("pkg/util.py", LICENSED) == []


def test_a_rest_section_names_its_module_and_says_what_it_is_in_prose() -> None:
    sections = list(rst_module_sections(API_RST.decode()))
    assert sections == [("pkg.session", "Sessions. A Session keeps cookies and pooled connections between the "
                                        "requests it sends.")]


def test_a_python_file_may_be_documented_by_any_suffix_of_its_dotted_path() -> None:
    assert python_module_names("src/pkg/session.py") == ["src.pkg.session", "pkg.session", "session"]
    assert python_module_names("src/pkg/__init__.py") == ["src.pkg", "pkg"]
    assert python_module_names("src/pkg/data.json") == []


def test_an_archive_gives_file_pairs_from_both_routes_after_its_other_pairs(tmp_path: Path) -> None:
    archive = tmp_path / "pkg-1.0.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for name, data in (("pkg-1.0/src/pkg/retry.py", RETRY), ("pkg-1.0/src/pkg/session.py", SESSION),
                           ("pkg-1.0/docs/api.rst", API_RST)):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    pairs = source_pairs(Source("pypi", "pkg", "python"), archive, set())
    files = [p for p in pairs if p["kind"] == "file"]
    assert {p["d"].splitlines()[0] for p in files} == {"file src/pkg/retry.py", "file src/pkg/session.py"}
    session = next(p for p in files if "session.py" in p["d"])
    assert session["q"].startswith("Sessions. A Session keeps cookies")
    assert all(p["src"] == "pkg" and p["lang"] == "python" for p in pairs)
    kinds = [p["kind"] for p in pairs]
    assert kinds == sorted(kinds, key=lambda k: k == "file")  # the file pairs last (they go to their own file)
