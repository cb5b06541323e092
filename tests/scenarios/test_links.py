"""Links in the work tree: a link is a link, never followed, never a crash (a loop included).

A stray ``ln -s a b; ln -s b a`` used to crash ``status``, ``index --worktree`` and every MCP tool
("internal error: RuntimeError: Symlink loop"): whatever reads the working tree must list such a path as
what it is, a symlink, skipped with that reason as tracked symlinks are.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tests.conftest import TINY_APP, git, make_repo, run_cli, write_files


def _repo_with_a_loop(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "repo", {"app.py": TINY_APP})
    run_cli(root, "index", check=True)
    os.symlink("b", root / "a")  # a -> b -> a: resolving either never ends
    os.symlink("a", root / "b")
    os.symlink("app.py", root / "alias.py")  # an ordinary untracked link to a tracked file
    return root


def test_an_untracked_link_loop_is_listed_as_links_by_status_and_index_worktree(tmp_path: Path) -> None:
    root = _repo_with_a_loop(tmp_path)
    for args in (("status",), ("status", "--json"), ("ask", "fetch page", "--no-semantic")):
        proc = run_cli(root, *args)
        assert proc.returncode == 0, (args, proc.stderr)
        assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr, (args, proc.stderr)
    status = json.loads(run_cli(root, "status", "--json", check=True).stdout)
    assert sorted(status["stale_vs_worktree"]) == ["a", "alias.py", "b"]  # in the work tree, not in the index

    synced = run_cli(root, "index", "--worktree")
    assert synced.returncode == 0 and "internal error" not in synced.stderr, synced.stderr
    assert "3 skipped (3 symlink)" in synced.stdout, synced.stdout
    after = json.loads(run_cli(root, "status", "--json", check=True).stdout)
    assert after["files"].get("skipped:symlink") == 3, after["files"]
    assert after["stale_vs_worktree"] == []
    text = run_cli(root, "status", check=True).stdout
    assert "3 symlink" in text, text
    # the loop's names never became units: the one function is found once, by its own file
    found = json.loads(run_cli(root, "ask", "fetch_page", "--no-semantic", "--json").stdout)["results"]
    assert {r["path"] for r in found if r["symbol"] == "fetch_page"} == {"app.py"}


def test_a_tracked_file_replaced_by_a_link_loop_is_a_link_not_a_deletion(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"app.py": TINY_APP, "helper.py": "def helper():\n    return 1\n"})
    run_cli(root, "index", check=True)
    (root / "helper.py").unlink()
    os.symlink("loop", root / "helper.py")
    os.symlink("helper.py", root / "loop")
    synced = run_cli(root, "index", "--worktree")
    assert synced.returncode == 0, synced.stderr
    status = json.loads(run_cli(root, "status", "--json", check=True).stdout)
    assert status["files"].get("skipped:symlink") == 2, status["files"]
    assert "helper.py" in status["stale_vs_head"]  # HEAD has a file there; the index now has a link


def test_every_mcp_tool_answers_beside_a_link_loop(tmp_path: Path) -> None:
    from tests.cli.test_mcp import ok, serve

    root = _repo_with_a_loop(tmp_path)
    write_files(root, {"new_module.py": "def brand_new_helper():\n    return 2\n"})
    answers: dict[str, Any] = {}

    async def body(session: Any, call: Any) -> None:
        for name, arguments in (("status", {}), ("search", {"query": "brand_new_helper"}),
                                ("context", {"query": "fetch page", "budget": 200}),
                                ("callers", {"symbol": "fetch_page"}), ("callees", {"symbol": "fetch_page"})):
            answers[name] = ok(await call(name, arguments))

    serve(root, body)
    assert answers["status"]["synced"] is True, answers["status"]
    assert answers["search"]["results"][0]["symbol"] == "brand_new_helper"  # the rest of the tree still syncs
    assert answers["callers"]["callers"][0]["symbol"] == "Cache.lookup"
    assert git(root, "status", "--porcelain").count("??") >= 3  # nothing of ours touched the links
