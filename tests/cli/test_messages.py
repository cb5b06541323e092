"""Small truths in messages: say why, count right, point at the real fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookgraph.plural import count, verb
from tests.conftest import TINY_APP, commit_all, make_repo, run_cli, write_files


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_repo(tmp_path_factory.mktemp("messages") / "repo", {"app.py": TINY_APP})
    run_cli(root, "index", "--wait", check=True)
    return root


@pytest.mark.parametrize("glob", ["../*", "/etc/*", "src/../../x"])
def test_a_path_glob_that_can_never_match_is_a_usage_error(app: Path, glob: str) -> None:
    proc = run_cli(app, "ask", "fetch", "--no-semantic", "--path", glob)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == (f"hookgraph: --path {glob!r} can never match: paths are relative to the repository root "
                           "(a folder such as 'src/' or a glob such as '*.py'), and never leave it\n")


def test_a_path_glob_that_matches_no_file_says_so(app: Path) -> None:
    proc = run_cli(app, "ask", "fetch", "--no-semantic", "--path", "docs/*")
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == "hookgraph: no indexed path matches --path 'docs/*'\n"
    dotted = run_cli(app, "ask", "fetch", "--no-semantic", "--path", "./app.py")  # ./ is the root, as people write it
    assert dotted.returncode == 0 and "fetch_page" in dotted.stdout


def test_status_json_says_whether_the_index_is_fresh(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"app.py": TINY_APP})
    run_cli(root, "index", "--wait", check=True)
    status = json.loads(run_cli(root, "status", "--json", check=True).stdout)
    assert status["fresh"] is True and status["indexed_commit"] == status["head"]
    write_files(root, {"more.py": "def extra():\n    return 1\n"})
    commit_all(root, "more")
    status = json.loads(run_cli(root, "status", "--json", check=True).stdout)
    assert status["fresh"] is False and status["stale_vs_head"] == ["more.py"]
    ask = run_cli(root, "ask", "fetch", "--no-semantic")
    assert "note: 1 path has changed since the last index (run `hookgraph index`)" in ask.stderr


def test_counts_agree_with_their_nouns() -> None:
    assert [count(n, "path") for n in (0, 1, 2)] == ["0 paths", "1 path", "2 paths"]
    assert count(1, "index", "indexes") == "1 index" and count(3, "index", "indexes") == "3 indexes"
    assert verb(1, "differs", "differ") == "differs" and verb(2, "differs", "differ") == "differ"


def test_status_gives_the_size_of_a_first_index(tmp_path: Path) -> None:
    """The size said is the index's as SQLite sees it (pages x page size): right after a first index the file
    holds every page (the index checkpointed its WAL itself), and status says that size, not 0.0 MB."""
    root = make_repo(tmp_path / "repo", {"app.py": TINY_APP})
    run_cli(root, "index", check=True)
    database = root / ".hookgraph" / "index.db"
    wal = Path(f"{database}-wal")
    assert not wal.exists() or wal.stat().st_size == 0
    status = json.loads(run_cli(root, "status", "--json", check=True).stdout)
    assert status["bytes"] == database.stat().st_size > 4096 and status["bytes"] % 4096 == 0
