"""An index parsed by another version of hookgraph says so (hookgraph/parse/version.py, sync/freshness.py).

Sync re-parses only files whose blob changed, so after an upgrade the
unchanged files keep what the old parser found. ``status``, ``ask`` and the
MCP ``status`` tool say so until ``hookgraph index --full`` has parsed every
file again; a first index and a full one record the running parser.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import hookgraph.parse
from hookgraph.parse.version import PARSER_META, fingerprint_of, parser_fingerprint
from hookgraph.store import Store, db_path
from tests.conftest import TINY_APP, commit_all, make_repo, run_cli, write_files

NOTE = "the index was parsed by another version of hookgraph"


def _set_parser_meta(root: Path, value: str | None) -> None:
    """What an older hookgraph leaves: another fingerprint, or (before it was recorded) none."""
    with Store(db_path(root)) as store, store.transaction():
        if value is None:
            store.db.execute("DELETE FROM meta WHERE key = ?", (PARSER_META,))
        else:
            store.set_meta(PARSER_META, value)


def test_fingerprint_follows_the_parsers_code_and_data_only(tmp_path: Path) -> None:
    package = Path(hookgraph.parse.__file__).parent
    copy = tmp_path / "parse"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert fingerprint_of(copy) == parser_fingerprint()
    (copy / "__pycache__").mkdir(exist_ok=True)
    (copy / "__pycache__" / "units.cpython-311.pyc").write_bytes(b"\0" * 64)  # another install's caches
    (copy / "languages" / "NOTES.txt").write_text("not code")
    assert fingerprint_of(copy) == parser_fingerprint()
    query = copy / "languages" / "go.scm"
    query.write_bytes(query.read_bytes() + b"\n; one more pattern\n")
    assert fingerprint_of(copy) != parser_fingerprint()


def test_status_and_ask_say_an_older_parser_built_the_index_until_a_full_index(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"app.py": TINY_APP, "util.py": "def helper():\n    return 1\n"})
    run_cli(root, "index", "--no-wait", check=True)
    status = json.loads(run_cli(root, "status", "--json", check=True).stdout)
    assert status["parsed_by_this_version"] is True
    assert "parser:" not in run_cli(root, "status", check=True).stdout

    for older in ("0123456789abcdef", None):  # another version's fingerprint; an index from before it was kept
        _set_parser_meta(root, older)
        status = json.loads(run_cli(root, "status", "--json", check=True).stdout)
        assert status["parsed_by_this_version"] is False
        line = [ln for ln in run_cli(root, "status", check=True).stdout.splitlines() if ln.startswith("parser:")]
        assert len(line) == 1 and NOTE in line[0] and "`hookgraph index --full`" in line[0]
        asked = run_cli(root, "ask", "fetch_page", "--no-semantic")
        assert asked.returncode == 0 and "app.py" in asked.stdout  # a note, never a failure
        assert f"note: {NOTE}" in asked.stderr
        answer = json.loads(run_cli(root, "ask", "fetch_page", "--json", "--no-semantic").stdout)
        assert any(NOTE in n for n in answer["notes"])

    # a commit re-parses the changed file only: the others still hold the old parser's units
    write_files(root, {"util.py": "def helper():\n    return 2\n"})
    commit_all(root, "change util")
    run_cli(root, "index", "--no-wait", check=True)
    assert json.loads(run_cli(root, "status", "--json", check=True).stdout)["parsed_by_this_version"] is False

    run_cli(root, "index", "--full", "--no-wait", check=True)
    assert json.loads(run_cli(root, "status", "--json", check=True).stdout)["parsed_by_this_version"] is True
    asked = run_cli(root, "ask", "fetch_page", "--no-semantic")
    assert asked.returncode == 0 and NOTE not in asked.stderr


def test_an_empty_index_is_not_called_old(tmp_path: Path) -> None:
    """Nothing parsed, nothing old: a repository of no files says nothing of the parser."""
    from hookgraph.sync.freshness import older_parser_note

    root = make_repo(tmp_path / "repo")
    (root / "notes.txt").write_text("x\n")
    run_cli(root, "index", "--worktree", "--no-wait", check=True)
    (root / "notes.txt").unlink()
    run_cli(root, "index", "--worktree", "--no-wait", check=True)  # partial: the one file is gone again
    _set_parser_meta(root, "0123456789abcdef")
    with Store(db_path(root), readonly=True) as store:
        assert store.integer("SELECT count(*) FROM files") == 0
        assert older_parser_note(store) is None


def test_mcp_status_says_so_too(tmp_path: Path) -> None:
    """The agent's ``status`` tool carries the same fact and note, from the server's working-tree copy."""
    from tests.cli.test_mcp import ok, serve

    root = make_repo(tmp_path / "repo", {"app.py": TINY_APP})
    run_cli(root, "index", "--no-wait", check=True)
    seen: list[dict] = []

    async def body(session, call) -> None:
        seen.append(ok(await call("status", {})))

    serve(root, body)
    assert seen[0]["parsed_by_this_version"] is True and NOTE not in (seen[0]["note"] or "")
    _set_parser_meta(root, "0123456789abcdef")
    write_files(root, {"new.py": "def fresh():\n    return 1\n"})  # the server syncs its copy: still old
    serve(root, body)
    assert seen[1]["parsed_by_this_version"] is False and NOTE in seen[1]["note"]
