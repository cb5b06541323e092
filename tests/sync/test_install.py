"""`hookgraph install`: plain git hooks that chain existing ones, in worktrees and with core.hooksPath."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from hookgraph.sync.install import CHAINED_SUFFIX, MARKER
from tests.helpers.hook_helpers import MATH, PYTHON, TEXT, hooks_of, new_repo

HOOKS = ["post-applypatch", "post-checkout", "post-commit", "post-merge", "post-rewrite", "pre-commit"]


def _add_function(text: str, name: str) -> str:
    return text + f'\n\ndef {name}():\n    """{name.replace("_", " ")}."""\n    return 1\n'


def _existing_hook(path: Path, marker_file: Path, exit_code: int = 0) -> str:
    text = f'#!/bin/sh\necho "$(basename "$0") $*" >> {marker_file}\nexit {exit_code}\n'
    path.write_text(text)
    path.chmod(0o755)
    return text


def test_install_chains_an_existing_hook_and_uninstall_restores_it(tmp_path: Path) -> None:
    repo = new_repo(tmp_path, framework=False)  # hooks installed, nothing committed yet
    hooks_dir = repo.path / ".git/hooks"
    assert sorted(p.name for p in hooks_dir.iterdir() if not p.name.endswith(".sample")) == HOOKS
    for name in HOOKS:
        assert MARKER in (hooks_dir / name).read_text()
    repo.hookgraph("install", "--uninstall")

    ran = tmp_path / "existing-hook-ran"
    original = _existing_hook(hooks_dir / "pre-commit", ran)
    checkout_original = _existing_hook(hooks_dir / "post-checkout", ran)
    proc = repo.hookgraph("install")
    assert proc.returncode == 0 and "chained" in proc.stdout
    assert (hooks_dir / ("pre-commit" + CHAINED_SUFFIX)).read_text() == original

    repo.commit("initial")
    assert ran.read_text() == "pre-commit.hookgraph-chained \n"  # the old hook ran, with its own name
    assert hooks_of(repo.entries()) == [("pre-commit", "synced"), ("post-commit", "fresh")]
    repo.assert_fresh()
    repo.git("checkout", "-q", "-b", "next")
    assert ran.read_text().splitlines()[-1].startswith("post-checkout.hookgraph-chained ")
    assert hooks_of(repo.entries()) == [("post-checkout", "fresh")]

    # A failing chained pre-commit still blocks the commit, and hookgraph does not run.
    _existing_hook(hooks_dir / ("pre-commit" + CHAINED_SUFFIX), ran, exit_code=1)
    repo.write({"calc/text.py": _add_function(TEXT, "blocked")})
    repo.git("add", "-A")
    assert repo.git("commit", "-q", "-m", "blocked", check=False).returncode == 1
    assert repo.entries() == []
    (hooks_dir / ("pre-commit" + CHAINED_SUFFIX)).write_text(original)

    # Installing again refreshes our hooks and keeps the chain as it is.
    assert repo.hookgraph("install").returncode == 0
    assert (hooks_dir / ("pre-commit" + CHAINED_SUFFIX)).read_text() == original

    proc = repo.hookgraph("install", "--uninstall")
    assert proc.returncode == 0 and "restored" in proc.stdout
    assert (hooks_dir / "pre-commit").read_text() == original
    assert (hooks_dir / "post-checkout").read_text() == checkout_original
    assert os.access(hooks_dir / "pre-commit", os.X_OK)
    assert not any(p.name.endswith(CHAINED_SUFFIX) for p in hooks_dir.iterdir())
    assert not (hooks_dir / "post-merge").exists()


def test_plain_hooks_follow_commits_checkouts_merges_and_rebases(tmp_path: Path) -> None:
    repo = new_repo(tmp_path, framework=False)
    repo.commit("initial")
    repo.git("checkout", "-q", "-b", "topic")
    repo.write({"calc/text.py": _add_function(TEXT, "topic_fn")})
    repo.commit("topic")
    repo.git("checkout", "-q", "main")
    repo.assert_fresh()
    repo.write({"calc/math.py": _add_function(MATH, "main_fn")})
    repo.commit("main")
    repo.git("checkout", "-q", "topic")
    repo.entries()
    repo.git("rebase", "-q", "main")
    entries = repo.entries()
    assert hooks_of(entries)[-1] == ("post-rewrite", "synced")
    assert [a for _, a in hooks_of(entries)[:-1]] == ["skipped-rebase"] * (len(entries) - 1)
    repo.assert_fresh()
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--ff-only", "topic")
    repo.assert_fresh()
    assert sum(e["embedded"] for e in repo.entries()) == 0

    # The script's own rebase test: a rebase -i that keeps the first commit and drops the last rewrites
    # nothing, and its checkout syncs (it waited for a post-rewrite that never came: stop 57).
    repo.write({"calc/text.py": _add_function(_add_function(TEXT, "topic_fn"), "wip_fn")})
    repo.commit("wip")
    repo.entries()
    repo.git("rebase", "-q", "-i", "HEAD~2", GIT_SEQUENCE_EDITOR="sed -i '/ wip$/s/^pick/drop/'")
    assert hooks_of(repo.entries()) == [("post-checkout", "synced")]
    repo.assert_fresh()


def test_install_from_a_worktree_and_with_core_hooks_path(tmp_path: Path) -> None:
    repo = new_repo(tmp_path, framework=False)
    repo.commit("initial")
    repo.entries()
    worktree = tmp_path / "wt"
    repo.git("worktree", "add", "-q", "-b", "wt-branch", str(worktree))
    entries = repo.entries()
    assert hooks_of(entries) == [("post-checkout", "synced")]  # the new worktree indexed itself
    repo.assert_fresh(root=worktree)

    # Installing from the worktree writes the common hooks; commits in the worktree index the worktree.
    proc = repo.hookgraph("install", cwd=worktree)
    assert proc.returncode == 0 and not (worktree / ".git").is_dir()
    (worktree / "calc/math.py").write_text(_add_function(MATH, "in_worktree"))
    repo.git("commit", "-q", "-a", "-m", "wt work", cwd=worktree)
    repo.assert_fresh(root=worktree)
    repo.assert_fresh()  # the main checkout's index is its own, untouched
    assert repo.store_map() != repo.store_map(worktree)

    # core.hooksPath: install writes there (relative paths are relative to the work tree), git runs them;
    # a folder of the work tree is the team's, written only with --force (tests/sync/test_install_work_tree_hooks.py).
    repo.hookgraph("install", "--uninstall")
    repo.git("config", "core.hooksPath", ".githooks")
    proc = repo.hookgraph("install", "--force")
    assert proc.returncode == 0 and ".githooks" in proc.stdout
    assert (repo.path / ".githooks/pre-commit").exists() and not (repo.path / ".git/hooks/pre-commit").exists()
    repo.write({"calc/text.py": _add_function(TEXT, "hooks_path")})
    repo.git("add", "calc/text.py")
    repo.git("commit", "-q", "-m", "via hooksPath")
    assert hooks_of(repo.entries())[0] == ("pre-commit", "synced")
    repo.assert_fresh()


def test_hook_script_falls_back_to_path_and_never_blocks_when_hookgraph_is_gone(tmp_path: Path) -> None:
    repo = new_repo(tmp_path, framework=False)
    from hookgraph.sync.install import install_hooks

    install_hooks(repo.path, python=str(tmp_path / "gone/bin/python"))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "hookgraph"
    shim.write_text(f'#!/bin/sh\nexec {PYTHON} -m hookgraph.cli "$@"\n')
    shim.chmod(0o755)
    path_with = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "initial", PATH=path_with)
    assert hooks_of(repo.entries()) == [("pre-commit", "synced"), ("post-commit", "fresh")]
    repo.assert_fresh()

    # Neither that Python nor hookgraph on PATH: one line per hook, and the commit goes through.
    bare_path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                                if not (Path(p) / "hookgraph").exists())
    repo.write({"calc/text.py": _add_function(TEXT, "unseen")})
    repo.git("add", "-A")
    proc = repo.git("commit", "-q", "-m", "no hookgraph", PATH=bare_path)
    assert proc.stderr.count("hookgraph: not found") == 2  # pre-commit and post-commit
    assert len(proc.stderr.splitlines()) == 2
    assert repo.entries() == []


def test_pre_commit_hooks_yaml_system_hook_runs_from_a_repository_path(tmp_path: Path) -> None:
    """The published `.pre-commit-hooks.yaml`, used the way users use it (hookgraph-system, offline)."""
    hooks_repo = tmp_path / "hooks-repo"
    hooks_repo.mkdir()
    src = Path(__file__).resolve().parents[2] / ".pre-commit-hooks.yaml"
    (hooks_repo / ".pre-commit-hooks.yaml").write_text(src.read_text())
    repo = new_repo(tmp_path, framework=False)
    repo.hookgraph("install", "--uninstall")
    repo.git("init", "-q", cwd=hooks_repo)
    repo.git("add", "-A", cwd=hooks_repo)
    repo.git("commit", "-q", "-m", "hooks", cwd=hooks_repo)
    rev = repo.git("rev-parse", "HEAD", cwd=hooks_repo).stdout.strip()
    repo.write({".pre-commit-config.yaml": (
        "default_install_hook_types: [pre-commit, post-checkout, post-commit, post-merge, post-rewrite]\n"
        f"repos:\n- repo: {hooks_repo}\n  rev: {rev}\n  hooks:\n  - id: hookgraph-system\n")})
    bin_dir = Path(PYTHON).parent
    path = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
    proc = subprocess.run([PYTHON, "-m", "pre_commit", "install"], cwd=repo.path, env=repo.env(PATH=path),
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "initial", PATH=path)
    assert hooks_of(repo.entries()) == [("pre-commit", "synced"), ("post-commit", "fresh")]
    repo.assert_fresh()
    repo.git("checkout", "-q", "-b", "other", PATH=path)
    assert hooks_of(repo.entries()) == [("post-checkout", "fresh")]
