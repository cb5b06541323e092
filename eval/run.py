"""Search-quality evaluation on real open-source projects (issue 5).

    python -m eval.run                       # every project, hybrid + both baselines, recorded
    python -m eval.run --project flask --no-record --misses
    python -m eval.run --set search.LEXICAL_WEIGHT=0.5 --note "lexical 0.5 instead of 0.4"
    python -m eval.run --project lz4 --model other.gguf --no-record   # another embedding model, its own index

What it does, per project in ``eval/projects.json``:

1. fetch the pinned release from PyPI (``pip download --no-deps --no-binary
   :all:``), npm (``npm pack``) or Debian (``apt-get download PKG=VERSION``:
   binary packages that carry source, e.g. golang-*-dev, librust-*-dev) into
   the cache, and refuse it unless its SHA-256 is the pinned one;
2. unpack it, drop what the spec says, and commit it to a git repository in
   the cache (fixed identity and date: the same blobs on every machine);
3. index it with hookgraph's own ``sync`` and the shipped default model. The
   index is cached per *recipe*: a hash of every source file that decides
   what is stored (parse, compose, store, sync, filters, language queries)
   and of the model. Ranking code (search.py) is not part of it, so a
   ranking change reruns in seconds. Embeddings are cached by exact text in
   a side file, so a new recipe only embeds the texts that changed;
4. ask every question of ``eval/questions/<project>.json`` three ways on the
   same index: hybrid (``hookgraph.search.search``), BM25 alone (the FTS5
   query the hybrid's lexical half runs) and embeddings alone (the KNN the
   semantic half runs); caller/callee questions through
   ``hookgraph.search.graph.callers``/``callees``;
5. ask the issue-15 kinds on the hybrid ranking: ``file`` (design/module
   questions whose gold is files), ``graph`` (plain-word "what calls X?"
   questions) and ``absent`` (a name or topic the project does not have);
6. print Recall@1/5/10 and MRR@10 by project and by question kind, the new
   kinds' tables, held-out and tuned projects apart, and append the tables
   with the command line to ``eval/RESULTS.md``.

Metrics. For search questions any one gold unit counts (they list
alternatives, e.g. a method and the helper doing the work). Caller/callee
questions list every expected unit: Recall@k is the share of them in the top
k, capped at k (``|gold ∩ top k| / min(|gold|, k)``). MRR@10 is the
reciprocal rank of the first gold unit within the top 10, else 0.

The issue-15 kinds. ``file``: NDCG@10 over the ranked list of distinct files
(gain 2^grade - 1, grade 1 unless the gold says more), the files coming from
``hookgraph.search.<FILES_RANKING>`` when that function exists, else from the
first occurrence of each path in the hybrid unit ranking (top
``FILE_DEPTH``). ``graph``: coverage of the gold units in the hybrid top 10,
``|gold ∩ top 10| / min(|gold|, 10)``. ``absent``: the share that
``hookgraph.search.<MATCH_VERDICT>(results)`` calls "weak"; the
answerable questions (every other kind asked of the hybrid ranking) report
the share it calls weak too; both print "n/a" while that function does not
exist. "no shared word" is the subset of ``nl`` questions none of whose
words (identifier-split, lower-case, ``NO_SHARED_STOPWORDS`` left out) is a
word of a gold unit's name.

Projects marked ``"held_out": true`` in projects.json are reported apart
from the rest (the "tuned" ones) in every issue-15 table: their questions
were written before any ranking ran on them, and the number that counts for
a ranking change is the held-out one.

The cache lives in ``$HOOKGRAPH_EVAL_CACHE`` or ``~/.cache/hookgraph-eval``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import fcntl
import fnmatch
import hashlib
import json
import os
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
EVAL_DIR = Path(__file__).resolve().parent
QUESTIONS_DIR = EVAL_DIR / "questions"
RESULTS_MD = EVAL_DIR / "RESULTS.md"

#: Source files whose content decides what an index holds (not how it is ranked).
RECIPE_FILES = ("parse/compose.py", "parse/__init__.py", "parse/words.py", "parse/fallback.py",
                "store/base.py", "store/connection.py", "store/unusable.py", "store/database_files.py", "store/reads.py",
                "store/schema.py", "store/store.py", "store/vectors.py", "store/writes.py",
                "sync/reconcile.py", "parse/filters.py", "parse/units.py", "embed/static.py",
                # the parser that was parse/__init__.py, split by job (issue 30 item 5)
                "parse/dispatch.py", "parse/code.py", "parse/scopes.py", "parse/comments.py", "parse/references.py",
                "parse/signatures.py", "parse/blocks.py", "parse/documents.py", "parse/fingerprint.py",
                "parse/text.py", "parse/expansion.py",
                # which units are embedded at all (the no-embed rule): a pending index and a complete one differ
                "embed/no_embed.py")

SEARCH_KINDS = ("nl", "identifier")
GRAPH_KINDS = ("callers", "callees")
KINDS = (*SEARCH_KINDS, *GRAPH_KINDS)
#: Issue 15's kinds, asked of the hybrid ranking only and reported in their own tables.
NEW_KINDS = ("file", "graph", "absent")
ALL_KINDS = (*KINDS, *NEW_KINDS)
#: Kinds whose gold lists every right unit (Recall@k capped at k) rather than alternatives.
EVERY_UNIT_KINDS = (*GRAPH_KINDS, "graph")
CONFIGS = ("hybrid", "bm25", "embed")
KS = (1, 5, 10)

#: hookgraph.search's distinct-files ranking (issue 15's ``ask --files``), used for ``file``
#: questions once it exists: ``f(store, query, top=10, embedder=...)`` -> items with ``.path``.
FILES_RANKING = "search_files"
#: hookgraph.search's verdict on an answer (issue 15): ``f(results, query)`` -> "strong" | "weak".
MATCH_VERDICT = "answer_match"
#: Units asked of the hybrid ranking to derive its distinct files from.
FILE_DEPTH = 50
#: Words that do not make a question "share a word" with its answer's name. Frozen here (not
#: hookgraph.search.STOPWORDS) so the subset stays the same whatever the ranking does.
NO_SHARED_STOPWORDS = frozenset(
    """a an and are as at be by can do does for from get gets how i if in into is it its
    of on or so that the their them then there these this to was what when where which
    who why will with you your we our me my code function method class""".split()
)


def cache_dir() -> Path:
    return Path(os.environ.get("HOOKGRAPH_EVAL_CACHE", Path.home() / ".cache" / "hookgraph-eval"))


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# fetching and preparing a project


def sha256_of(path: Path) -> str:
    """Hex SHA-256 of a downloaded archive (the same reading as a model file's)."""
    from hookgraph.embed.model_file import sha256_file

    return sha256_file(path)


REGISTRIES = ("pypi", "npm", "debian")
SPEC_FIELDS = ("name", "language", "registry", "package", "version", "archive", "sha256", "root")


def spec_problems(spec: dict[str, Any]) -> list[str]:
    """What is wrong with one projects.json entry (empty: usable), each naming the field."""
    name = spec.get("name", "?")
    problems = [f"{name}: missing {f!r}" for f in SPEC_FIELDS if not isinstance(spec.get(f), str) or not spec[f]]
    if spec.get("registry") not in REGISTRIES:
        problems.append(f"{name}: registry {spec.get('registry')!r} is not one of {', '.join(REGISTRIES)}")
    if not re.fullmatch(r"[0-9a-f]{64}", str(spec.get("sha256", ""))):
        problems.append(f"{name}: sha256 must be 64 lower-case hex digits")
    if spec.get("registry") == "debian" and not str(spec.get("archive", "")).endswith(".deb"):
        problems.append(f"{name}: a debian archive is the .deb file apt-get download writes")
    root = str(spec.get("root", ""))
    if root.startswith("/") or ".." in Path(root).parts:
        problems.append(f"{name}: root {root!r} must be a relative folder inside the archive")
    if not isinstance(spec.get("drop", []), list):
        problems.append(f"{name}: drop must be a list of globs")
    if not isinstance(spec.get("held_out", False), bool):
        problems.append(f"{name}: held_out must be true or false")
    return problems


def download_command(spec: dict[str, Any], dest: str) -> list[str]:
    """The registry client's command that writes the pinned archive into ``dest``."""
    registry = spec["registry"]
    if registry == "pypi":
        return [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                f"{spec['package']}=={spec['version']}", "-d", dest]
    if registry == "npm":
        return ["npm", "pack", "--silent", f"{spec['package']}@{spec['version']}", "--pack-destination", dest]
    if registry == "debian":  # writes into the working directory; the caller runs it in ``dest``
        return ["apt-get", "download", "-q", f"{spec['package']}={spec['version']}"]
    raise SystemExit(f"{spec['name']}: unknown registry {registry!r} (one of {', '.join(REGISTRIES)})")


def unpack_archive(spec: dict[str, Any], archive: Path, dest: Path) -> None:
    """Unpack ``archive`` into ``dest``: tar for PyPI/npm, ``dpkg-deb -x`` for a Debian package."""
    if spec["registry"] == "debian":
        unpack_deb(archive, dest)
        return
    with tarfile.open(archive) as tar:
        tar.extractall(dest, filter="data")


def unpack_deb(archive: Path, dest: Path) -> None:
    """A .deb's files under ``dest`` (no maintainer scripts run; nothing is installed)."""
    done = subprocess.run(["dpkg-deb", "-x", str(archive), str(dest)], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{archive}: dpkg-deb -x failed: {done.stderr.strip() or done.returncode}")


def fetch_archive(spec: dict[str, Any]) -> Path:
    """The pinned archive in the cache, downloaded if missing, checked always."""
    downloads = cache_dir() / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    archive = downloads / spec["archive"]
    if not archive.exists():
        with tempfile.TemporaryDirectory(dir=downloads) as tmp:
            cmd = download_command(spec, tmp)
            log(f"{spec['name']}: downloading {spec['package']} {spec['version']} ({spec['registry']})")
            done = subprocess.run(cmd, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if done.returncode != 0:
                hint = (" (run `apt-get update` first; or this version is no longer served)"
                        if spec["registry"] == "debian" else "")
                raise SystemExit(f"{spec['name']}: {' '.join(cmd)} failed{hint}: "
                                 f"{done.stderr.strip().splitlines()[-1:] or done.returncode}")
            got = Path(tmp) / spec["archive"]
            if not got.exists():
                raise SystemExit(f"{spec['name']}: expected {spec['archive']}, got {os.listdir(tmp)}")
            digest = sha256_of(got)
            if digest != spec["sha256"]:
                raise SystemExit(f"{spec['name']}: sha256 {digest} is not the pinned {spec['sha256']}; refusing it")
            got.replace(archive)
    digest = sha256_of(archive)
    if digest != spec["sha256"]:
        raise SystemExit(f"{archive}: sha256 {digest} is not the pinned {spec['sha256']}; delete it and rerun")
    return archive


def git_env() -> dict[str, str]:
    from hookgraph.git import no_git_env

    env = no_git_env()
    env.update({
        "GIT_AUTHOR_NAME": "hookgraph-eval", "GIT_AUTHOR_EMAIL": "eval@hookgraph.invalid",
        "GIT_COMMITTER_NAME": "hookgraph-eval", "GIT_COMMITTER_EMAIL": "eval@hookgraph.invalid",
        "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
        "GIT_CONFIG_NOSYSTEM": "1",
    })
    return env


def prepare_repo(spec: dict[str, Any]) -> Path:
    """The project as a git repository in the cache (made once)."""
    root = cache_dir() / "src" / f"{spec['name']}-{spec['version']}"
    if (root / ".git").is_dir():
        return root
    archive = fetch_archive(spec)
    if root.exists():
        shutil.rmtree(root)
    root.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root.parent) as tmp:
        unpack_archive(spec, archive, Path(tmp))
        inside = Path(tmp) / spec["root"]
        if not inside.is_dir():
            raise SystemExit(f"{spec['name']}: {spec['archive']} has no folder {spec['root']!r} (the spec's root)")
        shutil.move(str(inside), root)
    for dirpath, dirnames, filenames in os.walk(root, topdown=False):
        for name in filenames:
            rel = os.path.relpath(os.path.join(dirpath, name), root)
            if any(fnmatch.fnmatch(rel, pattern) for pattern in spec.get("drop", [])):
                os.remove(os.path.join(dirpath, name))
    env = git_env()
    for args in (["init", "-q", "-b", "main"], ["add", "-A"],
                 ["commit", "-q", "-m", f"{spec['package']} {spec['version']}"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True)
    return root


#: ``--set compose.X=...`` overrides of this run: they change what is stored, so they key the index.
RECIPE_OVERRIDES: list[str] = []


def recipe_hash(embedding_recipe: str) -> str:
    """What decides an index's content: the recipe sources, overrides and the embedder's own recipe."""
    h = hashlib.sha256(embedding_recipe.encode())
    for item in RECIPE_OVERRIDES:
        h.update(b"set\0" + item.encode())
    pkg = REPO / "hookgraph"
    for name in RECIPE_FILES:
        h.update(name.encode() + b"\0" + (pkg / name).read_bytes())
    for path in sorted((pkg / "parse" / "languages").iterdir()):
        if path.suffix in (".scm", ".json"):
            h.update(path.name.encode() + b"\0" + path.read_bytes())
    static = pkg / "models" / "code-static"
    for path in sorted(static.iterdir()) if static.is_dir() else []:  # the word table writes static vectors
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


class CachingEmbedder:
    """The real embedder, with every vector it computes kept on disk by exact input string.

    The cache sits at the embedder's innermost step (``_compute``: ready
    strings, prefix included, each within the window), so ``sync`` and
    ``search`` run their real code paths (fitting, windowing, prefixes) and
    only the model call is skipped for a string seen before. Attribute
    access goes to the real embedder. ``query_instruction`` prepends an
    instruction to queries (the query-instruction experiment).
    """

    def __init__(self, real: Any, path: Path) -> None:
        self._real = real
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, timeout=120)  # another run may be writing
        self._db.execute("CREATE TABLE IF NOT EXISTS vec(key TEXT PRIMARY KEY, v BLOB NOT NULL)")
        self.query_instruction = ""
        self.embedded = 0
        compute = real._compute

        def cached_compute(texts: list[str], counts: list[int]) -> Any:
            import numpy as np

            out = np.zeros((len(texts), real.dims), dtype=np.float32)
            missing = []
            for i, text in enumerate(texts):
                row = self._db.execute("SELECT v FROM vec WHERE key = ?", (self._key(text),)).fetchone()
                if row:
                    out[i] = np.frombuffer(row[0], dtype=np.float32)
                else:
                    missing.append(i)
            if missing:
                vectors = compute([texts[i] for i in missing], [counts[i] for i in missing])
                for i, vector in zip(missing, vectors):
                    out[i] = vector
                    try:
                        self._db.execute("INSERT OR REPLACE INTO vec(key, v) VALUES (?, ?)",
                                         (self._key(texts[i]), np.asarray(vector, dtype=np.float32).tobytes()))
                    except sqlite3.OperationalError:  # another run holds the cache's write lock: keep going uncached
                        pass
                self.embedded += len(missing)
                if self.embedded % 200 < len(missing):
                    self._db.commit()
            return out

        real._compute = cached_compute

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def _key(self, text: str) -> str:
        h = hashlib.sha256(f"{self._real.model_sha256}\0".encode())
        h.update(text.encode("utf-8", "surrogatepass"))
        return h.hexdigest()

    def embed_query(self, text: str) -> Any:
        return self._real.embed_query(self.query_instruction + text)

    def commit(self) -> None:
        self._db.commit()


def index_project(spec: dict[str, Any], embedder: CachingEmbedder) -> Path:
    """The project's index for the current recipe: built (or reused) and returned by path."""
    root = prepare_repo(spec)
    recipe = recipe_hash(getattr(embedder, "recipe", None) or embedder.model_sha256)
    index = cache_dir() / "index" / f"{spec['name']}-{spec['version']}-{recipe}.db"
    if index.exists() and _holds_files(index):
        return index
    # Every recipe of a project is built in the project's one checkout (its .hookgraph/index.db): two runs
    # building at once would write into each other's index. The second waits, then takes what the first built.
    # (Not hookgraph's write_lock: sync takes that one on the checkout itself, and a build may outlast its timeout.)
    index.parent.mkdir(parents=True, exist_ok=True)
    with open(cache_dir() / "index" / f"{spec['name']}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if index.exists() and _holds_files(index):
            return index
        return _build_index(spec, root, index, recipe, embedder)


def _build_index(spec: dict[str, Any], root: Path, index: Path, recipe: str, embedder: CachingEmbedder) -> Path:
    """Index ``root`` from scratch in its checkout and copy the result to ``index`` (the caller holds the lock)."""
    from hookgraph.store import db_path
    from hookgraph.sync import read_target, sync

    log(f"{spec['name']}: indexing for recipe {recipe} (embeddings cached by text)")
    started = time.perf_counter()
    db = db_path(root)
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    report = sync(root, read_target(root, "head"), full=True, embedder=embedder._real, background=False)
    if report.pending:  # syncs queue texts (issue 12): embed them here, through the cache
        from hookgraph.embed.queue import drain

        drained = drain(db, embedder._real)
        report.texts_embedded, report.pending = drained.embedded, drained.remaining  # the summary tells the end state
    embedder.commit()
    with sqlite3.connect(db) as plain:  # fold the WAL in so the copy is complete
        plain.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    partial = index.with_name(f"{index.name}.{os.getpid()}.partial")
    shutil.copyfile(db, partial)
    os.replace(partial, index)  # whole or not at all: a run killed mid-copy leaves no half index to reuse
    log(f"{spec['name']}: {report.summary()} ({time.perf_counter() - started:.0f}s, "
        f"{embedder.embedded} new texts embedded)")
    return index


def _holds_files(index: Path) -> bool:
    """Whether a cached index has any file in it (an empty or half-written one is rebuilt, not reused)."""
    try:
        with sqlite3.connect(f"file:{index}?mode=ro", uri=True) as plain:
            return bool(plain.execute("SELECT EXISTS (SELECT 1 FROM files)").fetchone()[0])
    except sqlite3.Error:
        return False


# ---------------------------------------------------------------------------
# questions


@dataclass
class Gold:
    path: str
    symbol: str  # "" for a file question's gold (the file itself)
    lines: tuple[int, int]
    grade: int = 1  # file questions: graded relevance (2 = the answer, 1 = acceptable)


@dataclass
class Question:
    id: str
    project: str
    kind: str
    q: str
    gold: list[Gold]
    note: str = ""
    #: absent questions: words or names that must not occur anywhere in the project (checked by grep).
    absent_terms: list[str] = field(default_factory=list)
    held_out: bool = False


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_QUALNAME_PARTS = re.compile(r"::|->|[.#\\]")


def leaked_identifiers(question: str, gold: list[Gold]) -> list[str]:
    """Identifiers of the answer that the question spells out (whole, or as its split words)."""
    from hookgraph.parse.words import identifier_words

    text = question.lower()
    words = {w.lower() for w in _WORD.findall(question)}
    words |= {w[:-1] for w in words if w.endswith("s")}
    leaks = []
    for g in gold:
        for part in _QUALNAME_PARTS.split(g.symbol):  # Foo.bar, Rust's Foo::bar, Ruby's Foo#bar, PHP's A\\B
            split = identifier_words(part)
            phrase = " ".join(w for w in split if w != part.lower())
            if part.lower() in words or (len(split) > 2 and phrase and re.search(rf"\b{re.escape(phrase)}\b", text)):
                leaks.append(part)
    return leaks


def _plain(words: list[str]) -> set[str]:
    """Lower-case words with a plural "s" also taken off, as the leak check does."""
    out = {w.lower() for w in words}
    return out | {w[:-1] for w in out if w.endswith("s") and len(w) > 3}


def shares_no_word(question: str, gold: list[Gold]) -> bool:
    """True when no word of ``question`` is a word of any gold unit's name (identifier-split).

    The name is the qualified symbol (class and method); a file unit's name is
    its file name without the folders. Filler words (``NO_SHARED_STOPWORDS``)
    and one-letter words do not count as shared.
    """
    from hookgraph.parse.words import identifier_words

    asked = {w for w in _plain(identifier_words(question)) if len(w) > 1 and w not in NO_SHARED_STOPWORDS}
    for g in gold:
        name = g.symbol.rsplit("/", 1)[-1] if "/" in g.symbol or g.symbol == g.path else g.symbol
        if asked & _plain(identifier_words(name)):
            return False
    return True


def load_questions(project: str, held_out: bool = False) -> list[Question]:
    path = QUESTIONS_DIR / f"{project}.json"
    if not path.exists():
        raise SystemExit(f"eval: {path} does not exist: write the project's questions first "
                         f"(see eval/questions/*.json), then run --fill and --check")
    data = json.loads(path.read_text())
    out = []
    for item in data["questions"]:
        gold = []
        for g in item.get("gold", []):
            if item["kind"] == "file":  # "path" or {"path", "grade"}: the file is the answer
                path, grade = (g, 1) if isinstance(g, str) else (g["path"], int(g.get("grade", 1)))
                gold.append(Gold(path, "", (0, 0), grade))
            elif isinstance(g, str):  # "path:symbol" not yet filled in with --fill
                path, _, symbol = g.partition(":")
                gold.append(Gold(path, symbol, (0, 0)))
            else:
                gold.append(Gold(g["path"], g["symbol"], tuple(g["lines"])))
        out.append(Question(item["id"], project, item["kind"], item["q"], gold, item.get("note", ""),
                            list(item.get("absent_terms", [])), held_out))
    return out


def fill_lines(project: str, store: Any) -> list[str]:
    """Rewrite ``"path:symbol"`` gold entries as objects with the unit's lines (one unit must match)."""
    file = QUESTIONS_DIR / f"{project}.json"
    data = json.loads(file.read_text())
    problems = []
    for item in data["questions"]:
        if item["kind"] in ("file", "absent"):  # files need no lines; absent has no gold
            continue
        filled = []
        for g in item["gold"]:
            if isinstance(g, str):
                path, _, symbol = g.partition(":")
                rows = store.units_where("path = ? AND qualname = ?", (path, symbol))
                if len(rows) != 1:
                    problems.append(f"{item['id']}: {g} matches {len(rows)} units")
                    filled.append(g)
                    continue
                g = {"path": path, "symbol": symbol, "lines": [rows[0].start_line, rows[0].end_line]}
            filled.append(g)
        item["gold"] = filled
    file.write_text(json.dumps(data, indent=1) + "\n")
    return problems


def absent_terms_found(repo: Path, terms: list[str]) -> list[str]:
    """The terms that do occur in the project's files (case-insensitive, as plain strings)."""
    found = []
    for term in terms:
        done = subprocess.run(["git", "grep", "-q", "-i", "-F", "-e", term, "HEAD"], cwd=repo, env=git_env())
        if done.returncode == 0:
            found.append(term)
        elif done.returncode != 1:
            raise SystemExit(f"{repo}: git grep for {term!r} failed (exit {done.returncode})")
    return found


def check_questions(questions: list[Question], store: Any, repo: Path | None = None) -> list[str]:
    """Problems with the set itself: unknown kinds, gold units not in the index, leaks, duplicates.

    Absent questions must have no gold and name ``absent_terms``, none of
    which may occur in the project (``repo``) in any case.
    """
    problems = []
    seen: set[str] = set()
    for q in questions:
        if q.id in seen:
            problems.append(f"{q.id}: duplicate id")
        seen.add(q.id)
        if q.kind not in ALL_KINDS:
            problems.append(f"{q.id}: unknown kind {q.kind!r}")
        if q.kind == "absent":
            if q.gold:
                problems.append(f"{q.id}: an absent question has no gold")
            if not q.absent_terms:
                problems.append(f"{q.id}: an absent question lists the absent_terms that prove it")
            elif repo is not None:
                for term in absent_terms_found(repo, q.absent_terms):
                    problems.append(f"{q.id}: {term!r} does occur in the project")
            continue
        if not q.gold:
            problems.append(f"{q.id}: no gold unit")
        if q.kind == "file":
            for g in q.gold:
                if not store.units_where("path = ? LIMIT 1", (g.path,)):
                    problems.append(f"{q.id}: gold file {g.path} is not in the index")
                if g.grade not in (1, 2, 3):
                    problems.append(f"{q.id}: gold file {g.path} has grade {g.grade} (1-3)")
            if len({g.path for g in q.gold}) != len(q.gold):
                problems.append(f"{q.id}: a gold file is listed twice")
            continue
        for g in q.gold:
            rows = store.units_where("path = ? AND qualname = ?", (g.path, g.symbol))
            if not rows:
                problems.append(f"{q.id}: gold {g.path}:{g.symbol} is not a unit of the index")
            elif not any((r.start_line, r.end_line) == g.lines for r in rows):
                lines = ", ".join(f"{r.start_line}-{r.end_line}" for r in rows)
                problems.append(f"{q.id}: gold {g.path}:{g.symbol} has lines {lines}, the set says {g.lines}")
        if q.kind == "nl":
            leaks = leaked_identifiers(q.q, q.gold)
            if leaks:
                problems.append(f"{q.id}: question names its answer's identifier(s) {leaks}")
    return problems


# ---------------------------------------------------------------------------
# ranking the three ways


def rank_hybrid(store: Any, q: str, embedder: Any) -> list[tuple[str, str]]:
    from hookgraph.search import search

    return [(r.unit.path, r.unit.qualname) for r in search(store, q, top=10, embedder=embedder)]


def rank_bm25(store: Any, q: str, embedder: Any) -> list[tuple[str, str]]:
    """BM25 alone: the lexical half of the hybrid, nothing added."""
    from hookgraph.search import fts_query, query_words

    words = query_words(q)
    hits = store.fts_search(fts_query(words), 10) if words else []
    units = store.units_by_ids(uid for uid, _ in hits)
    return [(units[uid].path, units[uid].qualname) for uid, _ in hits if uid in units]


def rank_embed(store: Any, q: str, embedder: Any) -> list[tuple[str, str]]:
    """Embeddings alone: nearest vectors, each expanded to the units sharing it."""
    hits = store.knn(embedder.embed_query(q), 40)
    by_vector = store.units_for_vectors(v for v, _ in hits)
    uids = [uid for vid, _ in hits for uid in sorted(by_vector.get(vid, []))][:10]
    units = store.units_by_ids(uids)
    return [(units[u].path, units[u].qualname) for u in uids]


def rank_graph(store: Any, q: Question) -> list[tuple[str, str]]:
    from hookgraph.search import graph

    try:
        links = graph.callers(store, q.q) if q.kind == "callers" else graph.callees(store, q.q)
    except graph.SymbolNotFound:
        return []
    out: list[tuple[str, str]] = []
    for link in links:
        if link.unit is not None:
            key = (link.unit.path, link.unit.qualname)
            if key not in out:
                out.append(key)
    return out


RANKERS = {"hybrid": rank_hybrid, "bm25": rank_bm25, "embed": rank_embed}


def search_function(name: str) -> Any:
    """``hookgraph.search.<name>`` when this checkout has it, else None (issue-15 hooks)."""
    import hookgraph.search

    return getattr(hookgraph.search, name, None)


def match_verdict(results: list[Any]) -> bool | None:
    """True when the ranking says its answer is a weak match; None while it cannot say."""
    verdict = search_function(MATCH_VERDICT)
    if verdict is None:
        return None
    return bool(verdict(results) == "weak")


def hybrid_answer(store: Any, q: str, embedder: Any, top: int = 10) -> tuple[list[tuple[str, str]], bool | None]:
    """The hybrid ranking's units (as rank_hybrid) and whether it flags them as a weak match."""
    from hookgraph.search import search

    results = search(store, q, top=top, embedder=embedder)
    return [(r.unit.path, r.unit.qualname) for r in results], match_verdict(results)


def distinct_files(ranked: list[tuple[str, str]]) -> list[str]:
    """Each path once, at the place of its first unit."""
    return list(dict.fromkeys(path for path, _ in ranked))


def rank_files(store: Any, q: str, embedder: Any) -> tuple[list[str], bool | None]:
    """Distinct files for a file question: hookgraph's own files ranking when it has one."""
    files_ranking = search_function(FILES_RANKING)
    if files_ranking is not None:
        items = files_ranking(store, q, top=10, embedder=embedder)
        return [item if isinstance(item, str) else item.path for item in items][:10], match_verdict(items)
    from hookgraph.search import search

    results = search(store, q, top=FILE_DEPTH, embedder=embedder)
    ranked = [(r.unit.path, r.unit.qualname) for r in results]
    return distinct_files(ranked)[:10], match_verdict(results[:10])


def ndcg(ranked: list[str], grades: dict[str, int], k: int = 10) -> float:
    """NDCG@k with gain 2^grade - 1 and log2(rank + 1) discount; 0 when nothing is relevant."""
    import math

    dcg = sum((2 ** grades.get(item, 0) - 1) / math.log2(i + 1) for i, item in enumerate(ranked[:k], 1))
    ideal = sorted(grades.values(), reverse=True)[:k]
    idcg = sum((2 ** g - 1) / math.log2(i + 1) for i, g in enumerate(ideal, 1))
    return dcg / idcg if idcg else 0.0


def coverage(gold: set[tuple[str, str]], ranked: list[tuple[str, str]], k: int = 10) -> float:
    """The share of every-unit gold found in the top k, capped at k: ``|gold ∩ top k| / min(|gold|, k)``."""
    return len(gold & set(ranked[:k])) / min(len(gold), k) if gold else 0.0


@dataclass
class Scored:
    question: Question
    config: str
    ranked: list[tuple[str, str]]
    recall: dict[int, float] = field(default_factory=dict)
    rr: float = 0.0
    first: int | None = None
    ndcg: float | None = None  # file questions
    weak: bool | None = None  # the ranking's own verdict (None: it has none yet)


def score(q: Question, config: str, ranked: list[tuple[str, str]]) -> Scored:
    gold = {(g.path, g.symbol) for g in q.gold}
    s = Scored(q, config, ranked)
    positions = [i for i, key in enumerate(ranked[:10], 1) if key in gold]
    s.first = positions[0] if positions else None
    s.rr = 1.0 / s.first if s.first else 0.0
    for k in KS:
        if q.kind in EVERY_UNIT_KINDS:
            s.recall[k] = coverage(gold, ranked, k)
        else:
            s.recall[k] = 1.0 if gold & set(ranked[:k]) else 0.0
    return s


def score_files(q: Question, files: list[str], weak: bool | None) -> Scored:
    """A file question: NDCG@10 over distinct files, plus any-gold-file recall and MRR."""
    grades = {g.path: g.grade for g in q.gold}
    s = Scored(q, "hybrid", [(f, "") for f in files], weak=weak)
    positions = [i for i, f in enumerate(files[:10], 1) if f in grades]
    s.first = positions[0] if positions else None
    s.rr = 1.0 / s.first if s.first else 0.0
    for k in KS:
        s.recall[k] = 1.0 if set(files[:k]) & set(grades) else 0.0
    s.ndcg = ndcg(files, grades)
    return s


def summarise(rows: list[Scored]) -> dict[str, float]:
    n = len(rows)
    out = {"n": n}
    for k in KS:
        out[f"R@{k}"] = sum(r.recall[k] for r in rows) / n if n else 0.0
    out["MRR@10"] = sum(r.rr for r in rows) / n if n else 0.0
    return out


def mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


# ---------------------------------------------------------------------------
# reporting


def table(scored: list[Scored], group: str) -> list[str]:
    """Markdown rows: one per (group value, config)."""
    groups: dict[tuple[str, str], list[Scored]] = defaultdict(list)
    for s in scored:
        key = s.question.project if group == "project" else s.question.kind
        groups[(key, s.config)].append(s)
        groups[("all", s.config)].append(s)
    order = {c: i for i, c in enumerate([*CONFIGS, "graph"])}
    keys = sorted(groups, key=lambda k: (k[0] == "all", k[0], order[k[1]]))
    lines = [f"| {group} | ranker | n | R@1 | R@5 | R@10 | MRR@10 |", "|---|---|---:|---:|---:|---:|---:|"]
    for key in keys:
        m = summarise(groups[key])
        lines.append(f"| {key[0]} | {key[1]} | {m['n']} | {m['R@1']:.3f} | {m['R@5']:.3f} | "
                     f"{m['R@10']:.3f} | {m['MRR@10']:.3f} |")
    return lines


def headline(scored: list[Scored]) -> list[str]:
    """The acceptance numbers of issue 5, against their targets."""
    def pick(config: str, kinds: tuple[str, ...]) -> dict[str, float]:
        return summarise([s for s in scored if s.config == config and s.question.kind in kinds])

    nl = {c: pick(c, ("nl",)) for c in CONFIGS}
    ident = pick("hybrid", ("identifier",))
    graph = summarise([s for s in scored if s.config == "graph"])
    overall = summarise([s for s in scored if s.config in ("hybrid", "graph")])
    lines = ["| acceptance point | measured | target | met |", "|---|---:|---|---|"]

    def row(name: str, value: float, target: str, ok: bool) -> None:
        lines.append(f"| {name} | {value:.3f} | {target} | {'yes' if ok else 'NO'} |")

    if nl["hybrid"]["n"]:
        h = nl["hybrid"]["R@5"]
        row("NL (no identifiers) hybrid R@5", h, ">= 0.80", h >= 0.80)
        for config, name in (("bm25", "BM25"), ("embed", "embeddings")):
            if nl[config]["n"]:
                gap = h - nl[config]["R@5"]
                row(f"  minus {name} alone R@5", gap, ">= 0.10", gap >= 0.10 - 1e-9)
    if ident["n"]:
        row("exact identifiers hybrid R@1", ident["R@1"], ">= 0.95", ident["R@1"] >= 0.95)
    if graph["n"]:
        row("callers/callees R@5", graph["R@5"], ">= 0.90", graph["R@5"] >= 0.90)
    if overall["n"]:
        row("all questions MRR@10 (hybrid; graph for caller/callee)", overall["MRR@10"], ">= 0.75",
            overall["MRR@10"] >= 0.75)
    return lines


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _weak_share(rows: list[Scored]) -> str:
    """The share flagged weak, "n/a" while the ranking gives no verdict, "-" with no rows."""
    if not rows:
        return "-"
    if any(r.weak is None for r in rows):
        return "n/a"
    return f"{sum(1 for r in rows if r.weak) / len(rows):.3f}"


@dataclass
class KindNumbers:
    """Issue 15's per-group numbers, computed once for the tables and the acceptance rows."""

    rows: list[Scored]

    def of(self, kind: str) -> list[Scored]:
        return [r for r in self.rows if r.question.kind == kind and r.config == "hybrid"]

    def nl_r5(self) -> tuple[int, float | None]:
        nl = self.of("nl")
        return len(nl), mean([r.recall[5] for r in nl])

    def no_shared_r5(self) -> tuple[int, float | None]:
        nl = [r for r in self.of("nl") if shares_no_word(r.question.q, r.question.gold)]
        return len(nl), mean([r.recall[5] for r in nl])

    def mrr(self) -> tuple[int, float | None]:
        """MRR@10 as issue 5 counts it: nl and identifier on hybrid, callers/callees on the graph."""
        old = [r for r in self.rows if r.question.kind in KINDS and r.config in ("hybrid", "graph")]
        return len(old), mean([r.rr for r in old])

    def identifier_r1(self) -> tuple[int, float | None]:
        ident = self.of("identifier")
        return len(ident), mean([r.recall[1] for r in ident])

    def callers_r5(self) -> tuple[int, float | None]:
        graph = [r for r in self.rows if r.config == "graph"]
        return len(graph), mean([r.recall[5] for r in graph])

    def file_ndcg(self) -> tuple[int, float | None]:
        files = self.of("file")
        return len(files), mean([r.ndcg or 0.0 for r in files])

    def graph_coverage(self) -> tuple[int, float | None]:
        graph = self.of("graph")
        return len(graph), mean([r.recall[10] for r in graph])

    def absent(self) -> list[Scored]:
        return self.of("absent")

    def answerable(self) -> list[Scored]:
        return [r for r in self.rows if r.config == "hybrid" and r.question.kind in ("nl", "identifier", "file", "graph")]


def split_groups(scored: list[Scored]) -> list[tuple[str, list[Scored]]]:
    """Each project (held-out ones marked), then tuned, held out and all: the rows of issue 15's tables."""
    projects: dict[str, list[Scored]] = defaultdict(list)
    for s in scored:
        projects[s.question.project].append(s)
    held = {s.question.project for s in scored if s.question.held_out}
    groups = [(f"{p} (held out)" if p in held else p, rows) for p, rows in sorted(projects.items())]
    tuned = [s for s in scored if not s.question.held_out]
    out = [s for s in scored if s.question.held_out]
    return [*groups, ("tuned projects", tuned), ("held-out projects", out), ("all", scored)]


def kinds_table(scored: list[Scored]) -> list[str]:
    """Issue 15's numbers per project, then tuned vs held out: n and value for each kind."""
    lines = ["| project | NL n | NL R@5 | no shared word n | no shared word R@5 | MRR@10 | file n | file NDCG@10 "
             "| graph n | graph cov@10 | absent n | absent flagged weak | answerable flagged weak |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, rows in split_groups(scored):
        k = KindNumbers(rows)
        _, mrr_value = k.mrr()
        nl_n, nl_value = k.nl_r5()
        ns_n, ns_value = k.no_shared_r5()
        f_n, f_value = k.file_ndcg()
        g_n, g_value = k.graph_coverage()
        lines.append(f"| {name} | {nl_n} | {_fmt(nl_value)} | {ns_n} | {_fmt(ns_value)} | {_fmt(mrr_value)} "
                     f"| {f_n} | {_fmt(f_value)} | {g_n} | {_fmt(g_value)} | {len(k.absent())} "
                     f"| {_weak_share(k.absent())} | {_weak_share(k.answerable())} |")
    return lines


def acceptance_table(scored: list[Scored]) -> list[str]:
    """Issue 15's acceptance points for the tuned projects, the held-out ones and all, against targets."""
    splits = split_groups(scored)[-3:]
    numbers = [KindNumbers(rows) for _, rows in splits]
    lines = ["| acceptance point (issue 15) | tuned | held out | all | target |", "|---|---:|---:|---:|---|"]

    def row(name: str, values: list[str], target: str) -> None:
        lines.append(f"| {name} | {' | '.join(values)} | {target} |")

    def worst_project(rows: list[Scored]) -> str:
        per: dict[str, list[float]] = defaultdict(list)
        for r in rows:
            if r.question.kind == "nl" and r.config == "hybrid":
                per[r.question.project].append(r.recall[5])
        if not per:
            return "-"
        project, values = min(per.items(), key=lambda item: (sum(item[1]) / len(item[1]), item[0]))
        return f"{sum(values) / len(values):.3f} ({project})"

    row("NL hybrid R@5", [_fmt(k.nl_r5()[1]) for k in numbers], ">= 0.90")
    row("NL hybrid R@5, worst project", [worst_project(rows) for _, rows in splits], ">= 0.85")
    row("no-shared-word NL R@5", [_fmt(k.no_shared_r5()[1]) for k in numbers], ">= 0.80")
    row("MRR@10 (nl + identifier hybrid; callers/callees graph)", [_fmt(k.mrr()[1]) for k in numbers], ">= 0.75")
    row("file questions NDCG@10", [_fmt(k.file_ndcg()[1]) for k in numbers], ">= 0.85")
    row("graph questions coverage@10", [_fmt(k.graph_coverage()[1]) for k in numbers], ">= 0.90")
    row("absent questions flagged weak", [_weak_share(k.absent()) for k in numbers], ">= 0.90")
    row("answerable questions flagged weak", [_weak_share(k.answerable()) for k in numbers], "< 0.05")
    row("exact identifiers hybrid R@1", [_fmt(k.identifier_r1()[1]) for k in numbers], ">= 0.95")
    row("callers/callees R@5", [_fmt(k.callers_r5()[1]) for k in numbers], ">= 0.95")
    return lines


def files_source() -> str:
    """Where this run's file rankings come from (said with the tables)."""
    if search_function(FILES_RANKING) is not None:
        return f"hookgraph.search.{FILES_RANKING}"
    return f"distinct files of the hybrid unit ranking (top {FILE_DEPTH})"


def git_state() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                              text=True, check=True).stdout.strip()
        # RESULTS.md itself is left out: it is dirty from the previous recorded run of a series.
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "hookgraph", "eval", ":!eval/RESULTS.md"],
                               cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()
        return head + (" + uncommitted changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


# ---------------------------------------------------------------------------
# main


def apply_overrides(settings: list[str], embedder: CachingEmbedder) -> None:
    """``--set module.NAME=value`` changes a ranking constant for this run only."""

    for item in settings:
        name, _, raw = item.partition("=")
        if name == "query_instruction":
            embedder.query_instruction = raw
            continue
        module_name, attr, value = parse_setting(item)
        if any(f.startswith(module_name.replace(".", "/")) for f in RECIPE_FILES):
            RECIPE_OVERRIDES.append(item)
        set_constant(module_name, attr, value)


def parse_setting(item: str) -> tuple[str, str, Any]:
    """``module.NAME=value`` -> (module, NAME, value typed like the constant it replaces)."""
    import importlib

    name, _, raw = item.partition("=")
    module_name, _, attr = name.rpartition(".")
    module_name = constant_home(module_name, attr)
    module = importlib.import_module(f"hookgraph.{module_name}")
    if not hasattr(module, attr):
        raise SystemExit(f"--set {item}: hookgraph.{module_name} has no {attr}")
    current = getattr(module, attr)
    value: Any = raw
    if isinstance(current, bool):
        value = raw.lower() in ("1", "true", "yes", "on")
    elif isinstance(current, (int, float)):
        value = type(current)(float(raw)) if isinstance(current, float) else int(float(raw))
    elif isinstance(current, tuple):
        value = tuple(type(current[0])(part) for part in raw.split(","))
    return module_name, attr, value


def constant_home(module_name: str, attr: str) -> str:
    """The module that defines ``attr``: ``module_name`` itself, or the one module of that package assigning it.

    A package's face does not re-export its constants (``search.CANDIDATES`` lives in
    hookgraph/search/ranking.py, ``search.KEYWORD_BOOST`` in hookgraph/search/boosts.py), yet the
    commands in eval/RESULTS.md name them by package: ``--set search.CANDIDATES=50`` goes on working.
    """
    import importlib
    import importlib.util
    import pkgutil

    module = importlib.import_module(f"hookgraph.{module_name}")
    if hasattr(module, attr) or not hasattr(module, "__path__"):
        return module_name
    assigned = re.compile(rf"^{re.escape(attr)}\s*[:=]", re.MULTILINE)
    homes = []
    for info in pkgutil.walk_packages(module.__path__, f"{module_name}."):
        spec = importlib.util.find_spec(f"hookgraph.{info.name}")
        if not info.ispkg and spec and spec.origin and assigned.search(Path(spec.origin).read_text(encoding="utf-8")):
            homes.append(info.name)
    return homes[0] if len(homes) == 1 else module_name


def set_constant(module_name: str, attr: str, value: Any) -> None:
    """Set ``hookgraph.<module_name>.<attr>`` and every copy its package's modules read.

    A module may hold a copy of a constant it imported from another, and a face may re-export one
    (``store.FTS_WEIGHTS`` lives in hookgraph/store/reads.py): every imported module of the same
    top package (``hookgraph.store.*``) holding the same object is set too, or the override would
    silently change nothing.
    """
    import importlib

    module = importlib.import_module(f"hookgraph.{module_name}")
    current = getattr(module, attr)
    setattr(module, attr, value)
    package = f"hookgraph.{module_name.split('.')[0]}"
    for name, submodule in list(sys.modules.items()):
        if (name == package or name.startswith(f"{package}.")) and getattr(submodule, attr, None) is current:
            setattr(submodule, attr, value)


def ask(q: Question, store: Any, embedder: Any, hybrid_only: bool) -> list[Scored]:
    """Every scored row of one question: its kind decides how it is asked."""
    if q.kind in GRAPH_KINDS:
        return [score(q, "graph", rank_graph(store, q))]
    if q.kind == "file":
        return [score_files(q, *rank_files(store, q.q, embedder))]
    ranked, weak = hybrid_answer(store, q.q, embedder)
    hybrid = score(q, "hybrid", ranked)
    hybrid.weak = weak
    if q.kind in NEW_KINDS or hybrid_only:  # graph and absent: hybrid only, like file
        return [hybrid]
    return [hybrid, *(score(q, c, RANKERS[c](store, q.q, embedder)) for c in CONFIGS if c != "hybrid")]


def print_misses(scored: list[Scored]) -> None:
    for s in scored:
        kind = s.question.kind
        if s.config not in ("hybrid", "graph"):
            continue
        if kind == "absent":
            if s.weak is False:
                print(f"MISS {s.question.id} [absent] not flagged weak {s.question.q!r}\n"
                      f"     got:  {[q for _, q in s.ranked[:5]]}")
            continue
        if kind == "file":
            if (s.ndcg or 0.0) < 0.8:
                print(f"MISS {s.question.id} [file] NDCG@10={s.ndcg:.2f} {s.question.q!r}\n"
                      f"     gold: {[(g.path, g.grade) for g in s.question.gold]}\n"
                      f"     got:  {[f for f, _ in s.ranked[:5]]}")
            continue
        if s.recall[5] < 1.0 or (kind == "graph" and s.recall[10] < 1.0):
            gold = ", ".join(g.symbol for g in s.question.gold)
            print(f"MISS {s.question.id} [{kind}] first={s.first} {s.question.q!r}\n"
                  f"     gold: {gold}\n     got:  {[q for _, q in s.ranked[:5]]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.run", description=__doc__.split("\n")[0])
    parser.add_argument("--project", action="append", help="only this project (repeatable)")
    parser.add_argument("--kind", action="append", choices=ALL_KINDS, help="only this kind (repeatable)")
    parser.add_argument("--set", dest="settings", action="append", default=[], metavar="MODULE.NAME=VALUE",
                        help="override a ranking constant, e.g. search.LEXICAL_WEIGHT=0.5; query_instruction=TEXT")
    parser.add_argument("--note", default="", help="what this run tries (recorded)")
    parser.add_argument("--no-record", action="store_true", help="do not append to eval/RESULTS.md")
    parser.add_argument("--misses", action="store_true", help="print the questions hybrid misses at 5")
    parser.add_argument("--hybrid-only", action="store_true", help="skip the two baselines")
    parser.add_argument("--dump", type=Path, help="write per-question ranks as JSON here")
    parser.add_argument("--max-tokens", type=int, default=None, metavar="N",
                        help="embedding window in tokens instead of the model preset's (the window experiment)")
    parser.add_argument("--model", type=Path, default=None, metavar="GGUF",
                        help="embed with this GGUF model instead of the shipped default (a model comparison)")
    parser.add_argument("--check", action="store_true", help="only check the question sets")
    parser.add_argument("--fill", action="store_true", help='fill in lines of "path:symbol" gold entries, then check (no ranking run)')
    args = parser.parse_args(argv)

    sys.path.insert(0, str(REPO))
    from hookgraph.embed import Embedder, EmbedderError
    from hookgraph.store import Store

    specs = json.loads((EVAL_DIR / "projects.json").read_text())["projects"]
    bad = [p for spec in specs for p in spec_problems(spec)]
    if bad:
        raise SystemExit("eval/projects.json: " + "; ".join(bad))
    if args.project:
        unknown = set(args.project) - {s["name"] for s in specs}
        if unknown:
            raise SystemExit(f"unknown project(s): {', '.join(sorted(unknown))}")
        specs = [s for s in specs if s["name"] in args.project]
    real = Embedder(args.model, max_tokens=args.max_tokens)  # model and window are part of the recipe: own index
    try:
        real.model_sha256, real.dims  # a --model that is no readable GGUF: one line now, not a traceback mid-run
    except EmbedderError as exc:
        raise SystemExit(f"--model: {exc}") from None
    embedder = CachingEmbedder(real, cache_dir() / "embeddings.sqlite")
    apply_overrides(args.settings, embedder)

    started = time.perf_counter()
    scored: list[Scored] = []
    problems: list[str] = []
    for spec in specs:
        index = index_project(spec, embedder)
        held_out = bool(spec.get("held_out", False))
        questions = load_questions(spec["name"], held_out)
        if args.kind:
            questions = [q for q in questions if q.kind in args.kind]
        with Store(index) as store:  # read-write: a newer schema migrates the cached copy
            if args.fill:
                problems += [f"{spec['name']} {p}" for p in fill_lines(spec["name"], store)]
                questions = load_questions(spec["name"], held_out)
            problems += [f"{spec['name']} {p}" for p in check_questions(questions, store, prepare_repo(spec))]
            if args.check or args.fill:  # --fill edits question files: no ranking run on a half-written set
                continue
            for q in questions:
                scored += ask(q, store, embedder, args.hybrid_only)
    embedder.commit()
    elapsed = time.perf_counter() - started
    for p in problems:
        log(f"problem: {p}")
    if args.check or args.fill:
        counts = defaultdict(int)
        for spec in specs:
            for q in load_questions(spec["name"]):
                counts[(spec["name"], q.kind)] += 1
        for key, n in sorted(counts.items()):
            print(f"{key[0]:10} {key[1]:10} {n}")
        print(f"total {sum(counts.values())}")
        return 1 if problems else 0

    if args.misses:
        print_misses(scored)
    if args.dump:
        args.dump.write_text(json.dumps([
            {"id": s.question.id, "config": s.config, "first": s.first, "ranked": s.ranked[:10],
             "ndcg": s.ndcg, "weak": s.weak} for s in scored
        ], indent=1))

    old = [s for s in scored if s.question.kind in KINDS]  # issue 5's tables: their kinds only, as before
    n_questions = len({s.question.id for s in scored})
    out = [f"{n_questions} questions, {len(specs)} projects, {elapsed:.1f}s", "",
           "By kind:", "", *table(old, "kind"), "", "By project:", "", *table(old, "project"), "",
           "Acceptance:", "", *headline(old), "",
           f"Issue 15 kinds (hybrid; file questions ranked by {files_source()}; weak verdict from "
           f"hookgraph.search.{MATCH_VERDICT}, n/a while it does not exist):", "", *kinds_table(scored), "",
           "Acceptance (issue 15), held-out projects apart:", "", *acceptance_table(scored)]
    print("\n".join(out))
    if problems:
        print(f"\n{len(problems)} problem(s) with the question set (see stderr)")
    if not args.no_record:
        command = "python -m eval.run" + "".join(f" {shlex.quote(a)}" for a in (argv or sys.argv[1:]))
        when = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        block = [f"\n## {when}: {args.note or 'run'}", "", f"`{command}` at {git_state()}", "", *out[2:], ""]
        with open(RESULTS_MD, "a") as f:
            f.write("\n".join(block))
    return 0


if __name__ == "__main__":
    sys.exit(main())
