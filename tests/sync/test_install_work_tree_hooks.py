"""``install`` and a hooks folder inside the work tree (``core.hooksPath .husky``): the team's, left alone.

The week's failure: ``install`` moved the tracked ``.husky/pre-commit`` aside (``*.hookgraph-chained``),
added six untracked scripts and wrote this machine's venv path into them, all silently: one ``git add -A``
and every teammate's commits run a Python that is not there. Now it changes nothing without ``--force``,
says why, and gives the one line to add to the team's own runner, which works as given.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from hookgraph.sync.hooks import HOOK_NAMES
from tests.conftest import TINY_APP, clean_env, git, make_repo, run_cli, write_files

HUSKY_PRE_COMMIT = "#!/bin/sh\necho 'team checks ran' >&2\n"


def _husky_repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "repo", {"app.py": TINY_APP, ".husky/pre-commit": HUSKY_PRE_COMMIT})
    (root / ".husky" / "pre-commit").chmod(0o755)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "husky")
    git(root, "config", "core.hooksPath", ".husky")
    return root


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def test_install_refuses_a_tracked_hooks_folder_and_says_what_to_add(tmp_path: Path) -> None:
    root = _husky_repo(tmp_path)
    before = _snapshot(root / ".husky")
    proc = run_cli(root, "install")
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    line = lines[0]
    assert "core.hooksPath is .husky/, a folder of the work tree that git tracks" in line, line
    assert "nothing was changed" in line and "`hookgraph install --force`" in line
    assert 'if command -v hookgraph >/dev/null; then hookgraph hook pre-commit "$@"; fi' in line
    assert all(name in line for name in HOOK_NAMES)
    assert _snapshot(root / ".husky") == before  # not one byte changed, nothing added
    assert git(root, "status", "--porcelain") == ""
    # --shared and an untracked hooks folder are refused the same way, before any work
    assert run_cli(root, "install", "--shared").returncode == 2 and _snapshot(root / ".husky") == before
    assert not (root / ".hookgraph" / "shared.db").exists()
    git(root, "config", "core.hooksPath", ".githooks")
    untracked = run_cli(root, "install")
    assert untracked.returncode == 2 and "core.hooksPath is .githooks/, a folder of the work tree:" in untracked.stderr
    assert not (root / ".githooks").exists()


def test_the_line_it_gives_keeps_the_index_fresh_from_the_teams_runner(tmp_path: Path) -> None:
    root = _husky_repo(tmp_path)
    line = run_cli(root, "install").stderr
    suggested = line.split("e.g. in .husky/pre-commit: `", 1)[1].split("`", 1)[0]
    for name in ("pre-commit", "post-commit"):
        hook = root / ".husky" / name
        text = hook.read_text() if hook.exists() else "#!/bin/sh\n"
        hook.write_text(text + suggested.replace("pre-commit", name) + "\n")
        hook.chmod(hook.stat().st_mode | stat.S_IXUSR)
    bin_dir = tmp_path / "bin"  # hookgraph on PATH, as the line expects
    bin_dir.mkdir()
    (bin_dir / "hookgraph").write_text(f'#!/bin/sh\nexec {sys.executable} -m hookgraph.cli "$@"\n')
    (bin_dir / "hookgraph").chmod(0o755)
    write_files(root, {"billing.py": "def charge_card(amount):\n    return amount\n"})
    git(root, "add", "-A")
    env = clean_env(PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    import subprocess

    commit = subprocess.run(["git", "commit", "-q", "-m", "billing"], cwd=root, env=env, capture_output=True, text=True)
    assert commit.returncode == 0 and "team checks ran" in commit.stderr, commit.stderr
    import json

    status = json.loads(run_cli(root, "status", "--json", check=True).stdout)
    assert status["fresh"] and status["indexed_commit"] == git(root, "rev-parse", "HEAD").strip(), status
    # a teammate without hookgraph: the same hooks let the commit through
    write_files(root, {"more.py": "def more():\n    return 1\n"})
    git(root, "add", "-A")
    bare = subprocess.run(["git", "commit", "-q", "-m", "more"], cwd=root, env=clean_env(PATH="/usr/bin:/bin"),
                          capture_output=True, text=True)
    assert bare.returncode == 0, bare.stderr


def test_force_writes_into_the_work_tree_folder_and_uninstall_puts_it_back(tmp_path: Path) -> None:
    root = _husky_repo(tmp_path)
    before = _snapshot(root / ".husky")
    forced = run_cli(root, "install", "--force")
    assert forced.returncode == 0 and ".husky" in forced.stdout, forced.stderr
    assert (root / ".husky" / "pre-commit.hookgraph-chained").read_text() == HUSKY_PRE_COMMIT
    undone = run_cli(root, "install", "--uninstall")  # taking ours away needs no --force
    assert undone.returncode == 0, undone.stderr
    assert _snapshot(root / ".husky") == before and git(root, "status", "--porcelain") == ""


def test_the_git_directorys_own_hooks_folder_needs_no_force(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"app.py": TINY_APP})
    assert run_cli(root, "install").returncode == 0
    assert (root / ".git" / "hooks" / "pre-commit").exists()
    git(root, "config", "core.hooksPath", ".git/my-hooks")  # inside the git dir, not the work tree
    assert run_cli(root, "install").returncode == 0 and (root / ".git" / "my-hooks" / "post-commit").exists()
