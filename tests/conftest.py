"""Shared fixtures: real git repositories in temp dirs, the real model, the real fixture project."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hookgraph.git import no_git_env

#: Tests embed in the foreground (``index --wait``, :func:`index_now`): a background embedder per test
#: repository would compete with the suite for the cores. Tests of the background embedder turn it on.
os.environ["HOOKGRAPH_NO_BACKGROUND"] = "1"
#: No user-level vector cache unless a test asks for one: a text one test embedded must not be found by
#: the next (tests count what is embedded). Tests of the cache set their own XDG_CACHE_HOME and size.
os.environ["HOOKGRAPH_CACHE_MB"] = "0"

#: A suite started in the background of a non-interactive shell (``bash -c 'scripts/test &'``) inherits SIGINT
#: ignored, and so would every process it starts: the Ctrl-C tests (an interrupted query, a fork, `index --wait`
#: on a terminal) would find Ctrl-C doing nothing. Python's own handler back, as in a foreground run.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

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


def index_now(root: Path, embedder, target: str = "head", **kwargs):
    """Sync ``root`` and embed every waiting text in this process, as ``hookgraph index --wait`` does.

    Returns the sync's report with ``texts_embedded`` set to what the drain embedded.
    """
    from hookgraph.embed.queue import drain
    from hookgraph.store import db_path
    from hookgraph.sync import read_target, sync

    report = sync(root, read_target(root, target), embedder=embedder, **kwargs)
    database = kwargs.get("database") or db_path(root)
    if report.pending:
        drained = drain(database, embedder)
        report.texts_embedded = drained.embedded
        report.split += drained.split
        report.truncated += drained.truncated
    return report


@pytest.fixture(scope="session")
def requests_repo(tmp_path_factory: pytest.TempPathFactory, embedder) -> Iterator[Path]:
    """The requests 2.32.3 fixture as a real git repo, indexed once (read-only for tests)."""

    root = tmp_path_factory.mktemp("requests") / "repo"
    shutil.copytree(REQUESTS_FIXTURE, root)
    make_repo(root)
    commit_all(root, "import requests 2.32.3")
    index_now(root, embedder)
    yield root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """An empty real git repository."""
    return make_repo(tmp_path / "repo")


os.environ.setdefault("HOOKGRAPH_TEST", "1")
