"""Shared fixtures: real git repositories in temp dirs, the real model, the real fixture project."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hookgraph.git import no_git_env

FIXTURES = Path(__file__).parent / "fixtures"
REQUESTS_FIXTURE = FIXTURES / "requests_repo"

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def clean_env(**extra: str) -> dict[str, str]:
    """The environment for git and hookgraph in a test repo: no outer git variables."""
    env = no_git_env()
    env.update(GIT_IDENTITY)
    env["HOME"] = env.get("HOOKGRAPH_TEST_HOME", env.get("HOME", "/tmp"))
    env.update(extra)
    return env


def git(repo: Path, *args: str) -> str:
    out = subprocess.run(["git", *args], cwd=repo, env=clean_env(), check=True, capture_output=True, text=True)
    return out.stdout


def write_files(repo: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


def make_repo(path: Path, files: dict[str, str | bytes] | None = None, message: str = "initial") -> Path:
    """A real git repository at ``path`` with ``files`` committed (none: an empty repo)."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "Test")
    git(path, "config", "user.email", "test@example.com")
    git(path, "config", "commit.gpgsign", "false")
    if files:
        write_files(path, files)
        git(path, "add", "-A")
        git(path, "commit", "-q", "-m", message)
    return path


def commit_all(repo: Path, message: str = "change") -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def run_cli(repo: Path, *args: str, check: bool = False, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the real ``hookgraph`` command in ``repo`` as a new process."""
    proc = subprocess.run(
        [sys.executable, "-m", "hookgraph.cli", *args],
        cwd=repo,
        env=env or clean_env(),
        capture_output=True,
        text=True,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"hookgraph {' '.join(args)} exited {proc.returncode}: {proc.stderr}")
    return proc


#: A tiny real-looking module: a retrying fetch, its two helpers, and a class that calls it.
TINY_APP = '''"""Tiny web app."""


def fetch_page(url, attempts=3):
    """Download a page, trying again when the network fails."""
    for attempt in range(attempts):
        try:
            return open_connection(url).read()
        except OSError:
            wait_a_little(attempt)
    raise OSError(url)


def open_connection(url):
    return url


def wait_a_little(attempt):
    return attempt


class Cache:
    """Keeps pages in memory."""

    def lookup(self, url):
        return fetch_page(url)
'''


@pytest.fixture(scope="session")
def embedder():
    """The real shipped model, loaded once for the whole session."""
    from hookgraph.embed import Embedder

    return Embedder()


@pytest.fixture(scope="session")
def requests_repo(tmp_path_factory: pytest.TempPathFactory, embedder) -> Iterator[Path]:
    """The requests 2.32.3 fixture as a real git repo, indexed once (read-only for tests)."""
    from hookgraph.sync import read_target, sync

    root = tmp_path_factory.mktemp("requests") / "repo"
    shutil.copytree(REQUESTS_FIXTURE, root)
    make_repo(root)
    commit_all(root, "import requests 2.32.3")
    sync(root, read_target(root, "head"), embedder=embedder)
    yield root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """An empty real git repository."""
    return make_repo(tmp_path / "repo")


os.environ.setdefault("HOOKGRAPH_TEST", "1")
