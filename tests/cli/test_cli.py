"""The command line as users and tools call it: real processes, real repos, real model."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import clean_env, commit_all, make_repo, run_cli, write_files

APP = '''"""Tiny web app."""

from http import client


def fetch_page(url, attempts=3):
    """Download a page, trying again when the network fails."""
    for attempt in range(attempts):
        try:
            return open_connection(url).read()
        except OSError:
            wait_a_little(attempt)
    raise OSError(url)


def open_connection(url):
    return client.HTTPConnection(url)


def wait_a_little(attempt):
    import time
    time.sleep(0.1 * 2 ** attempt)


class Cache:
    """Keeps pages in memory."""

    def lookup(self, url):
        return fetch_page(url)
'''


@pytest.fixture(scope="module")
def app_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = make_repo(tmp_path_factory.mktemp("cli") / "app", {"app.py": APP, "lib/util.go": GO})
    run_cli(repo, "index", "--wait", check=True)
    return repo


GO = '''package util

// Clamp limits v to the range [lo, hi].
func Clamp(v, lo, hi int) int {
\tif v < lo {
\t\treturn lo
\t}
\treturn min(v, hi)
}
'''


def test_index_prints_a_summary_and_second_run_finds_nothing(app_repo: Path) -> None:
    out = run_cli(app_repo, "index", check=True).stdout
    assert "0 added, 0 modified, 0 deleted" in out


def test_ask_json_contract(app_repo: Path) -> None:
    proc = run_cli(app_repo, "ask", "--json", "--top", "3", "retry a download after a network error")
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    assert set(payload) == {"query", "indexed_commit", "stale_paths", "pending_vectors", "notes", "match", "results"}
    assert payload["match"] == "strong"
    assert payload["pending_vectors"] == 0  # `index --wait` embedded everything
    assert payload["query"] == "retry a download after a network error"
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=app_repo, env=clean_env(),
                          capture_output=True, text=True).stdout.strip()
    assert payload["indexed_commit"] == head
    assert payload["stale_paths"] == []
    assert 1 <= len(payload["results"]) <= 3
    first = payload["results"][0]
    assert set(first) == {"path", "symbol", "kind", "start_line", "end_line", "score", "lexical",
                          "semantic", "graph", "confidence", "snippet"}
    assert 0.5 <= first["confidence"] <= 1.0
    assert (first["path"], first["symbol"], first["kind"]) == ("app.py", "fetch_page", "function")
    assert (first["start_line"], first["end_line"]) == (6, 13)
    assert first["snippet"] == "Download a page, trying again when the network fails."
    assert isinstance(first["score"], float)
    for r in payload["results"]:
        for key in ("lexical", "semantic", "graph"):
            assert r[key] is None or isinstance(r[key], float)


def test_ask_method_symbol_is_qualified(app_repo: Path) -> None:
    payload = json.loads(run_cli(app_repo, "ask", "--json", "Cache.lookup", check=True).stdout)
    first = payload["results"][0]
    assert (first["symbol"], first["kind"], first["start_line"], first["end_line"]) == ("Cache.lookup", "method", 28, 29)


def test_ask_plain_output(app_repo: Path) -> None:
    out = run_cli(app_repo, "ask", "--top", "2", "Clamp", check=True).stdout.splitlines()
    assert out[0] == "lib/util.go:4-9  Clamp  (function)"
    assert out[1].strip() == "Clamp limits v to the range [lo, hi]."


def test_ask_filters_by_language_and_path(app_repo: Path) -> None:
    payload = json.loads(run_cli(app_repo, "ask", "--json", "--lang", "go", "clamp limits to the range", check=True).stdout)
    assert payload["results"] and {r["path"] for r in payload["results"]} == {"lib/util.go"}
    proc = run_cli(app_repo, "ask", "--json", "--path", "lib/", "page")
    payload = json.loads(proc.stdout)
    assert payload["results"] and all(r["path"].startswith("lib/") for r in payload["results"])
    # nothing under lib/ is about pages: the answer says so and ask exits 1, as for no results
    assert payload["match"] == "weak" and proc.returncode == 1


def test_ask_context_pack_fits_the_budget(app_repo: Path) -> None:
    out = run_cli(app_repo, "ask", "--context", "120", "download a page and try again when the network fails", check=True).stdout
    assert "def fetch_page" in out
    assert len(out) <= 120 * 4 + 200  # budget in chars/4 tokens, plus headers' slack


def test_callers_and_callees(app_repo: Path) -> None:
    out = run_cli(app_repo, "callees", "fetch_page", check=True).stdout
    assert "open_connection" in out and "wait_a_little" in out
    callers = json.loads(run_cli(app_repo, "callers", "--json", "fetch_page", check=True).stdout)
    assert {c["symbol"] for c in callers} == {"Cache.lookup"}
    assert run_cli(app_repo, "callers", "Cache").returncode == 1  # nobody calls it: no results


def test_status_reports_commit_counts_and_staleness(app_repo: Path, tmp_path: Path) -> None:
    info = json.loads(run_cli(app_repo, "status", "--json", check=True).stdout)
    assert info["stale_vs_head"] == [] and info["indexed_commit"] == info["head"]
    assert info["model"]["dims"] == 384 and len(info["model"]["sha256"]) == 64
    assert info["units"]["function"] == 4 and info["units"]["method"] == 1
    assert info["edges"]["calls"] >= 4
    text = run_cli(app_repo, "status", check=True).stdout
    assert "model:" in text and "units:" in text


def test_ask_reports_stale_paths_after_a_commit(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "s", {"a.py": "def one():\n    return 1\n"})
    run_cli(repo, "index", "--wait", check=True)
    write_files(repo, {"b.py": "def two():\n    return 2\n"})
    commit_all(repo)
    payload = json.loads(run_cli(repo, "ask", "--json", "one", check=True).stdout)
    assert payload["stale_paths"] == ["b.py"]
    assert payload["indexed_commit"] is not None and payload["indexed_commit"] != "HEAD"


# -- errors: one line on stderr, exit 2, never a traceback ------------------------


def _one_line_error(proc: subprocess.CompletedProcess[str], code: int, needle: str) -> None:
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert needle in lines[0], lines[0]


def test_outside_a_git_repository(tmp_path: Path) -> None:
    _one_line_error(run_cli(tmp_path, "index"), 2, "not inside a git repository")
    _one_line_error(run_cli(tmp_path, "ask", "x"), 2, "not inside a git repository")


def test_inside_a_git_directory_or_a_bare_repository(tmp_path: Path) -> None:
    """Both were "not inside a git repository (run `git init` ...)": a wrong cause, and a remedy that makes a
    repository inside the git directory (found by trying, stop 57)."""
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    for args in (["index"], ["status"], ["ask", "x"]):
        _one_line_error(run_cli(repo / ".git" / "hooks", *args), 2, "is inside a git directory, not a working tree")
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(tmp_path / "bare.git")], check=True,
                   capture_output=True)
    for args in (["index"], ["status"], ["ask", "x"]):
        _one_line_error(run_cli(tmp_path / "bare.git", *args), 2, "is a bare repository: it has no working tree")


def test_no_index_yet(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    for args in (["ask", "x"], ["status"], ["callers", "f"], ["callees", "f"]):
        _one_line_error(run_cli(repo, *args), 2, "hookgraph index")


def test_empty_repository(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "empty")
    _one_line_error(run_cli(repo, "index"), 2, "no commits yet")


@pytest.mark.parametrize(
    "args, needle",
    [
        (["ask", "--top", "0", "x"], "--top"),
        (["ask", "--lang", "klingon", "x"], "unknown language 'klingon'"),
        (["ask", "--context", "abc", "x"], "--context"),
        (["ask", "   "], "query is empty"),
        (["index", "--bogus"], "--bogus"),
        (["nosuchcommand"], "nosuchcommand"),
    ],
)
def test_bad_option_values(app_repo: Path, args: list[str], needle: str) -> None:
    _one_line_error(run_cli(app_repo, *args), 2, needle)


def test_unknown_symbol_for_callers(app_repo: Path) -> None:
    _one_line_error(run_cli(app_repo, "callers", "no_such_thing"), 2, "no_such_thing")


def test_console_script_is_installed() -> None:
    exe = shutil.which("hookgraph", path=str(Path(sys.executable).parent))
    assert exe, "the hookgraph console script is not installed next to this Python"
    proc = subprocess.run([exe, "--version"], capture_output=True, text=True)
    assert proc.returncode == 0 and "hookgraph" in proc.stdout


def test_no_command_prints_help_and_exits_zero(tmp_path: Path) -> None:
    proc = run_cli(tmp_path)
    assert proc.returncode == 0 and "Usage:" in proc.stdout and "ask" in proc.stdout


def test_a_closed_pipe_is_not_an_error(requests_repo: Path) -> None:
    """`hookgraph ask ... | head` must not end in a BrokenPipeError message.

    The pack is far larger than a pipe buffer, so the writer does hit the closed pipe.
    """
    shell = f"{sys.executable} -m hookgraph.cli ask --top 200 --context 200000 request | head -c 10"
    proc = subprocess.run(["bash", "-o", "pipefail", "-c", shell], cwd=requests_repo, env=clean_env(),
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
