"""Helpers for the hook tests: real git, the real pre-commit tool, the hook log, store snapshots.

Every hook appends one JSON line to ``$HOOKGRAPH_HOOK_LOG`` (see
:mod:`hookgraph.sync.hooks`); a :class:`Repo` reads the lines each git operation
produced, so a test can say exactly which hooks ran and how many texts they
queued for the embedder. Hooks never embed, and the tests run without the
background embedder; a :class:`Repo` plays its part after every git command
(:meth:`Repo.git` drains the queue in this process with the real model), so
each operation starts from a fully embedded store, as on a user's machine
once the embedder caught up, and a text queued twice is a real re-embedding.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from hookgraph import git as g
from hookgraph.store import Store, db_path
from tests.conftest import clean_env, make_repo, write_files

PYTHON = sys.executable
HOOKGRAPH_CMD = f"{PYTHON} -m hookgraph.cli"

STAGES = ["pre-commit", "post-checkout", "post-commit", "post-merge", "post-rewrite"]

#: A local pre-commit config with the system hook run by this checkout's Python: works offline.
PRE_COMMIT_CONFIG = f"""\
default_install_hook_types: [{", ".join(STAGES)}]
repos:
- repo: local
  hooks:
  - id: hookgraph
    name: hookgraph
    entry: {HOOKGRAPH_CMD} hook
    language: system
    stages: [{", ".join(STAGES)}]
    pass_filenames: false
    always_run: true
    require_serial: true
"""

MATH = '''"""Small arithmetic helpers."""


def add(a, b):
    """Sum of two numbers."""
    return a + b


def scale(values, factor):
    """Multiply every value by factor."""
    return [v * factor for v in values]
'''

TEXT = '''"""String helpers."""


def shout(text):
    """Upper-case text with an exclamation mark."""
    return text.upper() + "!"
'''


@dataclass
class Vectors:
    """The store's vectors (text hash -> id), its cache of orphaned ones, and the texts queued for one."""

    live: dict[str, int]
    cached: set[str]
    pending: set[str] = field(default_factory=set)


@dataclass
class Repo:
    """A test repository whose git commands run with the hook log and pre-commit's home set."""

    path: Path
    log: Path
    home: Path
    _seen: int = 0
    extra_env: dict[str, str] = field(default_factory=dict)
    #: Embed what the hooks queued after each git command (the background embedder's job).
    embed_after: bool = True

    def env(self, **extra: str) -> dict[str, str]:
        return clean_env(HOOKGRAPH_HOOK_LOG=str(self.log), PRE_COMMIT_HOME=str(self.home),
                         **self.extra_env, **extra)

    def git(self, *args: str, check: bool = True, cwd: Path | None = None, **extra: str) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(["git", *args], cwd=cwd or self.path, env=self.env(**extra),
                              capture_output=True, text=True)
        if check and proc.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
        if self.embed_after:
            self.embed_queued(cwd or self.path)
        return proc

    def embed_queued(self, root: Path | None = None) -> int:
        """Embed every text the hooks left queued in ``root``'s index and check every vector they adopted, as
        the background embedder would; returns the texts embedded for the queue."""
        from hookgraph.embed.queue import drain
        from hookgraph.embed.recheck import check_adopted

        from hookgraph.store import StoreError

        try:
            database = db_path(g.repo_root(root or self.path))
        except g.GitError:
            return 0  # `git clone` run from outside any repository: the test looks at the clone itself
        if not database.exists():
            return 0
        try:
            with Store(database, readonly=True) as store:
                if not store.pending_count() and not store.unchecked_count():
                    return 0
            embedded = drain(database, shared_embedder()).embedded
            check_adopted(database, shared_embedder())
            return embedded + drain(database, shared_embedder()).embedded  # a source caught: its texts
        except StoreError:
            return 0  # a test that damaged the index on purpose

    def hookgraph(self, *args: str, cwd: Path | None = None, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([PYTHON, "-m", "hookgraph.cli", *args], cwd=cwd or self.path,
                              env=self.env(**extra), capture_output=True, text=True)

    def write(self, files: dict[str, str | bytes]) -> None:
        write_files(self.path, files)

    def commit(self, message: str, *paths: str, all_: bool = True) -> subprocess.CompletedProcess[str]:
        if all_:
            self.git("add", "-A")
        return self.git("commit", "-q", "-m", message, *paths)

    def entries(self) -> list[dict]:
        """Hook log lines written since the last call."""
        if not self.log.exists():
            return []
        lines = self.log.read_text().splitlines()
        new, self._seen = lines[self._seen:], len(lines)
        return [json.loads(line) for line in new]

    # -- what the store holds ---------------------------------------------------

    def store_map(self, root: Path | None = None) -> dict[str, str]:
        with Store(db_path(root or self.path), readonly=True) as store:
            return store.file_map()

    def tree(self, rev: str = "HEAD", root: Path | None = None) -> dict[str, str]:
        return _own_out({p: e.blob for p, e in g.tree_map(root or self.path, rev).items()})

    def index(self) -> dict[str, str]:
        env = self.env()
        out = subprocess.run(["git", "ls-files", "-s", "-z"], cwd=self.path, env=env, capture_output=True).stdout
        result = {}
        for record in out.split(b"\0"):
            if record:
                meta, _, path = record.partition(b"\t")
                mode, sha, stage = meta.split()
                if stage == b"0" and mode in (b"100644", b"100755"):
                    result[path.decode()] = sha.decode()
        return _own_out(result)

    def vectors(self, root: Path | None = None) -> Vectors:
        with Store(db_path(root or self.path), readonly=True) as store:
            live = dict(store.db.execute("SELECT text_hash, id FROM vectors").fetchall())
            cached = {r[0] for r in store.db.execute("SELECT text_hash FROM vector_cache")}
            pending = {r[0] for r in store.db.execute("SELECT text_hash FROM pending")}
        return Vectors(live, cached, pending)

    def assert_fresh(self, target: str = "head", root: Path | None = None) -> None:
        want = self.tree(root=root) if target == "head" else self.index()
        assert self.store_map(root) == want, f"store does not match {target}"

    def assert_no_reembedding(self, before: Vectors, entries: list[dict], root: Path | None = None) -> int:
        """Queued (or embedded) exactly the texts that are new: none the store had, had cached or had queued."""
        after = self.vectors(root)
        # vectors kept across the operation keep their ids: they were neither re-embedded nor re-inserted
        for text_hash, vid in after.live.items():
            if text_hash in before.live:
                assert before.live[text_hash] == vid, "a kept unit's vector was replaced"
        new = (set(after.live) | after.pending) - set(before.live) - before.cached - before.pending
        imported = sum(e.get("imported", 0) for e in entries)
        work = sum(e.get("queued", 0) for e in entries)
        if not imported:
            assert work == len(new), f"queued {work} texts, {len(new)} were new: {entries}"
        else:
            assert work <= len(new), f"queued {work} texts, at most {len(new)} were new: {entries}"
        return work


_EMBEDDER = None


def shared_embedder():
    """One real embedder for every Repo of the session (the model loads once)."""
    global _EMBEDDER
    if _EMBEDDER is None:
        from hookgraph.embed import Embedder

        _EMBEDDER = Embedder()
    return _EMBEDDER


def _own_out(m: dict[str, str]) -> dict[str, str]:
    return {p: b for p, b in m.items() if not p.startswith(".hookgraph/")}


def new_repo(tmp_path: Path, name: str = "repo", files: dict[str, str | bytes] | None = None,
             *, framework: bool = True, home: Path | None = None) -> Repo:
    """A repo with MATH and TEXT (or ``files``) and hookgraph's hooks installed, not yet committed."""
    path = make_repo(tmp_path / name)
    repo = Repo(path, tmp_path / f"{name}.hooklog.jsonl", home or (tmp_path / "pre-commit-home"))
    repo.write(files if files is not None else {"calc/math.py": MATH, "calc/text.py": TEXT, "NOTES.txt": "notes\n"})
    if framework:
        repo.write({".pre-commit-config.yaml": PRE_COMMIT_CONFIG})
        proc = subprocess.run([PYTHON, "-m", "pre_commit", "install"], cwd=path, env=repo.env(),
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
    else:
        proc = repo.hookgraph("install")
        assert proc.returncode == 0, proc.stderr
    return repo


def hooks_of(entries: list[dict]) -> list[tuple[str, str]]:
    return [(e["hook"], e["action"]) for e in entries]
