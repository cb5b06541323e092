"""Honest coverage from the command line: real processes, a real repo, the real model.

A repository with Python beside a C++ header, an extensionless script, a
Dockerfile, YAML, a config file of no known format and a file in a language
hookgraph does not parse: ``status`` names each language and how its files
were indexed; ``ask`` finds answers that only a fallback file holds, and says
so in one line when an identifier is defined nowhere.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import commit_all, make_repo, run_cli, write_files

FILES: dict[str, str | bytes] = {
    "app/fetch.py": '''"""Fetch pages over HTTP."""


def fetch_page(url, attempts=3):
    """Download a page, trying again when the network fails."""
    return open_connection(url).read()


def open_connection(url):
    return url
''',
    "include/net/client.h": """#pragma once
#include <string>

namespace net {

// A connection to one server.
class Client {
 public:
  // Sends one request and waits for the answer.
  std::string send(const std::string& body);
};

}  // namespace net
""",
    "bin/deploy": """#!/usr/bin/env python3
\"\"\"Deploy the site to the production servers.\"\"\"


def rollout_release(version):
    return version
""",
    "deploy/billing.conf": """# Settings of the billing worker.
database_url = postgres://ledger.internal:5432/billing
pool_size = 12
invoice_currency = EUR
nightly_reconciliation_hour = 3
""",
    "Dockerfile": """FROM python:3.12-slim
WORKDIR /srv/app
COPY . .
RUN pip install --no-cache-dir .
EXPOSE 8080
CMD ["gunicorn", "app:wsgi", "--bind", "0.0.0.0:8080"]
""",
    "ci/pipeline.yml": "stages:\n  - test\n  - deploy\ntest:\n  script: pytest -q\n",
    "legacy/Retry.pas": """unit Retry;

interface

// Runs the action again after a growing delay until it succeeds.
procedure WithBackoff(Attempts: Integer);

implementation

procedure WithBackoff(Attempts: Integer);
begin
  Sleep(Attempts * 100);
end;

end.
""",
    "assets/logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00binary",
}


@pytest.fixture(scope="module")
def mixed_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = make_repo(tmp_path_factory.mktemp("coverage") / "mixed", FILES)
    run_cli(repo, "index", "--wait", check=True)
    return repo


def _languages(repo: Path) -> dict[str, dict]:
    proc = run_cli(repo, "status", "--json", check=True)
    return {entry["name"]: entry for entry in json.loads(proc.stdout)["languages"]}


def test_status_lists_each_language_and_how_its_files_were_indexed(mixed_repo: Path) -> None:
    langs = _languages(mixed_repo)
    assert langs["Python"]["indexed"] == 2  # app/fetch.py and bin/deploy (by its #! line)
    assert langs["C++"]["indexed"] == 1 and langs["C++"]["language"] == "cpp"  # the .h, by its content
    assert langs["Dockerfile"]["fallback"] == 1 and langs["Dockerfile"]["fallback_kind"] == "blocks"
    assert langs["YAML"]["fallback"] == 1
    assert langs["Pascal"]["fallback"] == 1  # a pack grammar without a query
    unknown = langs["unknown"]
    assert unknown["language"] is None and unknown["fallback"] == 1 and unknown["fallback_kind"] == "text chunks"
    assert unknown["skipped"] == {"binary": 1}
    text = run_cli(mixed_repo, "status", check=True).stdout
    assert "languages: " in text
    assert any(line.split()[:3] == ["C++", "1", "indexed"] for line in text.splitlines()
               if "C++" in line), text
    assert "unknown" in text and "1 skipped (binary 1)" in text


def test_a_question_answered_only_by_a_text_file_is_found(mixed_repo: Path) -> None:
    proc = run_cli(mixed_repo, "ask", "--json", "--top", "5", "which database does the billing worker connect to")
    assert proc.returncode == 0, proc.stderr
    paths = [r["path"] for r in json.loads(proc.stdout)["results"]]
    assert "deploy/billing.conf" in paths[:5], paths


def test_a_question_answered_only_by_a_block_of_a_known_format_is_found(mixed_repo: Path) -> None:
    proc = run_cli(mixed_repo, "ask", "--json", "--top", "5", "which base image is the container built from")
    payload = json.loads(proc.stdout)
    results = payload["results"]
    hits = [r for r in results if r["path"] == "Dockerfile"]
    assert hits and results.index(hits[0]) < 5, [r["path"] for r in results]
    assert {r["kind"] for r in hits} <= {"block", "file"}
    # found by meaning alone: none of the question's words is in this small index, so the
    # answer is listed but called weak, and ask exits 1 (README: Confidence)
    assert payload["match"] == "weak" and proc.returncode == 1


def test_ask_says_when_an_identifier_is_defined_nowhere(mixed_repo: Path) -> None:
    proc = run_cli(mixed_repo, "ask", "--json", "with_backoff")
    payload = json.loads(proc.stdout)
    (note,) = payload["notes"]
    assert note.startswith("no unit is named with_backoff in the index")
    assert "legacy/Retry.pas" in note  # its text mentions the name (WithBackoff)
    assert "1 Pascal file is indexed only as blocks" in note
    assert "YAML" not in note  # settings formats are not code that could define it
    proc = run_cli(mixed_repo, "ask", "with_backoff")
    assert "note: no unit is named with_backoff in the index" in proc.stderr
    assert len([line for line in proc.stderr.splitlines() if line.startswith("note: no unit")]) == 1


def test_ask_names_the_missing_qualified_name_and_what_it_lists_instead(mixed_repo: Path) -> None:
    payload = json.loads(run_cli(mixed_repo, "ask", "--json", "Client.fetch_page").stdout)
    assert payload["notes"] == ["no unit is named Client.fetch_page in the index; units named fetch_page are listed"]


def test_no_note_when_the_identifier_is_defined(mixed_repo: Path) -> None:
    # the language's own spelling, the dotted one, or the qualified name's tail without its namespace
    for query in ("fetch_page", "net::Client::send", "net.Client.send", "Client::send", "rollout_release"):
        proc = run_cli(mixed_repo, "ask", "--json", query)
        payload = json.loads(proc.stdout)
        assert payload["notes"] == [], (query, payload["notes"])
        assert payload["results"][0]["symbol"] in ("fetch_page", "net::Client::send", "rollout_release"), query
    # a plain word is as likely English as a name: no "not defined" note
    assert json.loads(run_cli(mixed_repo, "ask", "--json", "pages").stdout)["notes"] == []


def test_ask_notes_a_language_the_question_names_that_is_not_parsed(mixed_repo: Path) -> None:
    payload = json.loads(run_cli(mixed_repo, "ask", "--json", "pascal procedure that sleeps longer each time").stdout)
    assert payload["notes"] == ["1 Pascal file is indexed only as blocks"]


def test_unknown_text_can_be_skipped_by_config(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"notes/TODO": "buy milk\n", "app.py": "def main():\n    return 1\n"})
    write_files(repo, {".hookgraph/config.toml": '[index]\nunknown_text = "skip"\n'})
    run_cli(repo, "index", "--wait", check=True)
    langs = _languages(repo)
    assert langs["unknown"]["skipped"] == {"unknown-language": 1} and langs["unknown"]["fallback"] == 0
    write_files(repo, {".hookgraph/config.toml": '[index]\nunknown_text = "maybe"\n', "app.py": "x = 2\n"})
    commit_all(repo)
    proc = run_cli(repo, "index")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "unknown_text" in proc.stderr and "'maybe'" in proc.stderr
    assert "Traceback" not in proc.stderr
