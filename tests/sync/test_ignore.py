"""The working index is never untracked news to git, in any mode, whoever built it (:mod:`hookgraph.sync.ignore`).

The week's failure: a teammate who never ran ``install`` (their index was built by ``ask`` from the
committed snapshot) pulled the commit that turned sharing off, which deletes the tracked
``.hookgraph/.gitignore``; ``git status`` then showed ``?? .hookgraph/`` with the whole index in it, and
one ``git add -A`` committed it.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import TINY_APP, clean_env, git, make_repo, run_cli


def test_turning_sharing_off_leaves_a_teammates_ask_built_index_ignored(tmp_path: Path) -> None:
    origin = make_repo(tmp_path / "origin", {"app.py": TINY_APP})
    run_cli(origin, "install", "--shared", check=True)
    git(origin, "commit", "-q", "-m", "share the index")
    teammate = tmp_path / "teammate"
    git(tmp_path, "clone", "-q", str(origin), str(teammate))
    asked = run_cli(teammate, "ask", "fetch_page", "--no-semantic")  # never `install`: ask builds the index
    assert asked.returncode == 0, asked.stderr
    assert (teammate / ".hookgraph" / "index.db").is_file()
    assert git(teammate, "status", "--porcelain") == ""

    run_cli(origin, "install", "--uninstall", "--shared", check=True)
    git(origin, "commit", "-q", "-m", "stop sharing the index")
    git(teammate, "pull", "-q", "--no-rebase")
    assert not (teammate / ".hookgraph" / ".gitignore").exists()  # the pull removed the tracked one
    assert (teammate / ".hookgraph" / "index.db").is_file()  # the teammate's index is still theirs
    assert git(teammate, "status", "--porcelain", "--untracked-files=all") == ""
    git(teammate, "add", "-A")
    assert ".hookgraph" not in git(teammate, "diff", "--cached", "--name-only")
    assert run_cli(teammate, "ask", "fetch_page", "--no-semantic").returncode == 0


def test_an_index_built_without_install_is_ignored_whatever_happens_to_its_gitignore(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"app.py": TINY_APP})
    run_cli(root, "index", check=True)
    (root / ".hookgraph" / ".gitignore").unlink()  # a checkout of an old commit, a clean-up, a teammate's script
    assert git(root, "status", "--porcelain", "--untracked-files=all") == ""
    exclude = (root / ".git" / "info" / "exclude").read_text()
    assert exclude.count("/.hookgraph/") == 1
    run_cli(root, "status", check=True)
    run_cli(root, "index", check=True)
    assert (root / ".git" / "info" / "exclude").read_text().count("/.hookgraph/") == 1  # written once, not per run


def test_a_worktree_index_is_ignored_through_the_common_exclude_file(tmp_path: Path) -> None:
    import subprocess

    root = make_repo(tmp_path / "repo", {"app.py": TINY_APP})
    worktree = tmp_path / "wt"
    subprocess.run(["git", "worktree", "add", "-q", str(worktree)], cwd=root, env=clean_env(), check=True)
    run_cli(worktree, "index", check=True)
    (worktree / ".hookgraph" / ".gitignore").unlink()
    assert git(worktree, "status", "--porcelain", "--untracked-files=all") == ""


def test_the_exclude_line_leaves_git_add_of_tracked_settings_alone_and_replaces_the_older_line(tmp_path: Path) -> None:
    import subprocess

    root = make_repo(tmp_path / "repo", {"app.py": TINY_APP})
    exclude = root / ".git" / "info" / "exclude"
    exclude.write_text(exclude.read_text() + "# hookgraph's local index (hookgraph install)\n/.hookgraph/\n")  # older
    run_cli(root, "install", "--shared", check=True)
    git(root, "commit", "-q", "-m", "share the index")
    lines = exclude.read_text().splitlines()
    assert "/.hookgraph/*" in lines and "/.hookgraph/" not in lines, lines
    # a teammate's `hookgraph model use` edits the tracked config.toml: a plain `git add` of it must work
    config = root / ".hookgraph" / "config.toml"
    config.write_text(config.read_text() + "\n[no_embed]\nmin_lines = 0\n")
    added = subprocess.run(["git", "add", ".hookgraph/config.toml"], cwd=root, env=clean_env(), capture_output=True,
                           text=True)
    assert added.returncode == 0, added.stderr
    assert git(root, "diff", "--cached", "--name-only").split() == [".hookgraph/config.toml"]
