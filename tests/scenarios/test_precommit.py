"""The README's pre-commit set-up, as a user copies it, with the real pre-commit: the snippet must work as written.

``repo:`` is a local clone of this checkout and ``rev:`` its HEAD: the snippet
is taken from README.md and only its two placeholders are filled in. The
``hookgraph`` hook makes pre-commit build hookgraph's environment (pip, from
the clone); ``hookgraph-system`` runs the hookgraph on PATH, and without one
must explain itself in one line and let the commit through (``--strict``: stop it).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from tests.conftest import TINY_APP, clean_env, git, make_repo, run_cli, write_files

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
URL_PLACEHOLDER = "<hookgraph's git URL>"
REV_PLACEHOLDER = "<a commit sha of hookgraph>"
MISSING = ("install it (pip install <hookgraph git URL>), or use the hook id hookgraph, which builds its own "
           "environment")


def readme_snippet() -> str:
    """The ```yaml block of README's "With pre-commit" section, verbatim."""
    section = README[README.index("### With pre-commit"):]
    match = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert match, "README's pre-commit section has no yaml block"
    return match.group(1)


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A local clone of this checkout (what `repo:` points at) and its HEAD."""
    if subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True).returncode != 0:
        pytest.skip("this checkout is not a git repository: nothing for pre-commit to clone")
    path = tmp_path_factory.mktemp("hookgraph-clone") / "hookgraph"
    git(ROOT, "clone", "-q", "--no-hardlinks", str(ROOT), str(path))
    return path, git(path, "rev-parse", "HEAD").strip()


def user_repo(tmp_path: Path, config: str) -> Path:
    root = make_repo(tmp_path / "user", {"app.py": TINY_APP, ".pre-commit-config.yaml": config})
    return root


def pre_commit(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=root, env=env, capture_output=True,
                          text=True, timeout=1800)
    assert proc.returncode == 0, f"pre-commit {' '.join(args)}: {proc.stdout}{proc.stderr}"
    return proc


def _pins(tmp_path: Path) -> Path:
    """Constraints: every package at the version installed here, so pip reuses what it has (llama.cpp is not
    compiled again) instead of picking newer releases."""
    lines = sorted({f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions()
                    if d.metadata["Name"] and d.metadata["Name"].lower() != "hookgraph"})
    path = tmp_path / "constraints.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_readme_snippet_installs_and_runs_as_written(clone: tuple[Path, str], tmp_path: Path) -> None:
    path, sha = clone
    snippet = readme_snippet()
    assert snippet.count(URL_PLACEHOLDER) == 1 and snippet.count(REV_PLACEHOLDER) == 1, snippet
    assert "v0.1.0" not in snippet  # no such tag: `pre-commit install-hooks` failed on it
    config = snippet.replace(URL_PLACEHOLDER, str(path)).replace(REV_PLACEHOLDER, sha)
    root = user_repo(tmp_path, config)
    log = tmp_path / "hooks.jsonl"
    wheels = Path(os.environ.get("HOOKGRAPH_CI_WHEELS", Path.home() / ".cache" / "hookgraph-ci" / "wheels"))
    env = clean_env(PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"), HOOKGRAPH_HOOK_LOG=str(log),
                    PIP_CONSTRAINT=str(_pins(tmp_path)), PIP_DISABLE_PIP_VERSION_CHECK="1")
    if wheels.is_dir():
        env["PIP_FIND_LINKS"] = str(wheels)  # the llama-cpp-python wheel known to run on this CPU (see .ci/run)

    installed = pre_commit(root, env, "install")
    for hook_type in ("pre-commit", "post-checkout", "post-commit", "post-merge", "post-rewrite"):
        assert (root / ".git" / "hooks" / hook_type).is_file(), installed.stdout
    pre_commit(root, env, "install-hooks")  # clones `repo:` at `rev:` and builds hookgraph's environment

    write_files(root, {"billing.py": "def invoice_total(lines):\n    return sum(lines)\n"})
    git(root, "add", "-A")
    commit = subprocess.run(["git", "commit", "-q", "-m", "billing"], cwd=root, env=env, capture_output=True,
                            text=True)
    assert commit.returncode == 0, commit.stdout + commit.stderr
    runs = [json.loads(line) for line in log.read_text().splitlines()]
    assert ("pre-commit", "synced") in {(r["hook"], r["action"]) for r in runs}, runs
    status = json.loads(run_cli(root, "status", "--json", check=True).stdout)
    assert status["fresh"] is True and status["stale_vs_head"] == []
    ask = run_cli(root, "ask", "invoice total", "--no-semantic", "--json", check=True)
    assert json.loads(ask.stdout)["results"][0]["symbol"] == "invoice_total"


def _path_without_hookgraph() -> str:
    """PATH with git, sh and the basics, and no directory holding a `hookgraph`."""
    dirs = [d for d in os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep)
            if d and not (Path(d) / "hookgraph").exists()]
    path = os.pathsep.join(dirs)
    assert shutil.which("git", path=path) and shutil.which("sh", path=path), path
    assert shutil.which("hookgraph", path=path) is None
    return path


def _system_config(path: Path, sha: str, args: str = "") -> str:
    return (f"default_install_hook_types: [pre-commit, post-checkout, post-commit, post-merge, post-rewrite]\n"
            f"repos:\n  - repo: {path}\n    rev: {sha}\n    hooks:\n      - id: hookgraph-system\n"
            f"        verbose: true\n{args}")


def test_hookgraph_system_without_hookgraph_on_path_explains_and_lets_git_go_on(
        clone: tuple[Path, str], tmp_path: Path) -> None:
    path, sha = clone
    root = user_repo(tmp_path / "open", _system_config(path, sha))
    env = clean_env(PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"), PATH=_path_without_hookgraph())
    pre_commit(root, env, "install")
    write_files(root, {"billing.py": "def invoice_total(lines):\n    return sum(lines)\n"})
    git(root, "add", "-A")
    commit = subprocess.run(["git", "commit", "-q", "-m", "billing"], cwd=root, env=env, capture_output=True,
                            text=True)
    out = commit.stdout + commit.stderr
    assert commit.returncode == 0, out
    assert "Executable `hookgraph` not found" not in out
    warning = f"hookgraph: warning: hookgraph is not on PATH, so the index was not updated (git goes on): {MISSING}"
    assert out.count(warning) == 2, out  # pre-commit and post-commit, one line each
    assert git(root, "log", "-1", "--format=%s").strip() == "billing"

    strict_root = user_repo(tmp_path / "strict", _system_config(path, sha, "        args: [--strict]\n"))
    pre_commit(strict_root, env, "install")
    write_files(strict_root, {"billing.py": "def invoice_total(lines):\n    return sum(lines)\n"})
    git(strict_root, "add", "-A")
    commit = subprocess.run(["git", "commit", "-q", "-m", "billing"], cwd=strict_root, env=env,
                            capture_output=True, text=True)
    assert commit.returncode != 0  # --strict: the commit stops, and says why
    assert f"hookgraph: hookgraph is not on PATH: {MISSING}" in commit.stdout + commit.stderr
    env_strict = dict(env, HOOKGRAPH_STRICT="1")
    proc = subprocess.run([sys.executable, "-m", "pre_commit", "run", "hookgraph-system"], cwd=root,
                          env=env_strict, capture_output=True, text=True)
    assert proc.returncode == 1 and f"hookgraph: hookgraph is not on PATH: {MISSING}" in proc.stdout


def test_hookgraph_system_runs_the_hookgraph_on_path(clone: tuple[Path, str], tmp_path: Path) -> None:
    path, sha = clone
    root = user_repo(tmp_path, _system_config(path, sha))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "hookgraph").write_text(f"#!/bin/sh\nexec {sys.executable} -m hookgraph.cli \"$@\"\n")
    (bin_dir / "hookgraph").chmod(0o755)
    log = tmp_path / "hooks.jsonl"
    env = clean_env(PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"), HOOKGRAPH_HOOK_LOG=str(log),
                    PATH=f"{bin_dir}{os.pathsep}{_path_without_hookgraph()}")
    pre_commit(root, env, "install")
    write_files(root, {"billing.py": "def invoice_total(lines):\n    return sum(lines)\n"})
    git(root, "add", "-A")
    commit = subprocess.run(["git", "commit", "-q", "-m", "billing"], cwd=root, env=env, capture_output=True,
                            text=True)
    assert commit.returncode == 0, commit.stdout + commit.stderr
    runs = [json.loads(line) for line in log.read_text().splitlines()]
    assert ("pre-commit", "synced") in {(r["hook"], r["action"]) for r in runs}, runs
    assert json.loads(run_cli(root, "status", "--json", check=True).stdout)["fresh"] is True
