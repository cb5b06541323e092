"""Quality against background model time: NDCG@10 after 10/30/60 s of embedding, and time to full quality (issue 32).

    python benchmarks/quality_time_bench.py [--repos fastapi,trpc] [--baseline 62ba74b] [--sample 30]
                                            [--no-httpie] [--no-write] [--json FILE]

Experiments (this checkout only, no table written): ``--no-baseline --cost MS_PER_WINDOW,MS_PER_TOKEN``
(a cost fitted before, so variants share one time axis) with ``--reorder size|size-code|file-major|doc-first``
(queue orders), ``--config TOML`` (the repositories' ``.hookgraph/config.toml``, e.g. a ``[no_embed]`` rule)
or ``--max-windows N``; benchmarks/RESULTS.md lists what they gave.

For each repository of the file-level benchmark laid out in /work/bench (``repos/NAME`` at one
commit, ``annotations/NAME.json``) and httpie 3.2.4's PyPI sdist, and for each code (the baseline,
``git archive REF``, and this checkout), in a subprocess running that code:

1. *plan*: a fresh clone, a first index with no background embedder (``sync``: every wanted text
   queued in the code's own order, under its own no-embed rule), timed; then the queue as the
   code's own drain reads it (``Store.next_pending``) and each text's windows with their token
   counts (``Embedder.windows``, what the drain passes to the model).
2. *calibrate* (once per repository, this checkout's queue): ``--sample`` texts spread evenly
   over the queue are run through the model uncached, one model call per window exactly as the
   drain does, each call timed. All calls together fit ``seconds = a + b * tokens`` per window
   (least squares): the model's cost on this machine, at this load, for these texts.
3. *score*: the time axis is that cost, summed over the queue in order. At each checkpoint (model
   seconds 0, 5, 10, 15, 20, 25, 30, 35, ... 60, 70, 80, 100, 120, 150, 180, 240, ...) the code's own
   ``drain`` publishes exactly the texts that fit (its first batch sized to them), taking each
   vector from eval/'s vector cache by exact model input (``~/.cache/hookgraph-eval/vectors.sqlite``,
   a missing one is computed and added), and every question is asked in-process
   (``search_files``, top 10) and scored with the benchmark's own ``score.py``. Last: the complete
   index.

Deterministic on a loaded machine: the time axis comes from the fitted cost, not from the wall
clock while scoring; ``ask``'s on-the-spot embedding (a few waiting candidates, within
``ON_THE_SPOT_SECONDS``) is given 60 s, as eval/filebench does, so it always finishes (its
vectors come from the cache too) and a state is scored the same way twice.

*Full quality*: the first checkpoint from which NDCG@10 stays within ``TOLERANCE`` (0.005) of the
complete index's, at every later checkpoint and at the end. "Time to full quality" is the first
index's own wall time plus that checkpoint's model seconds (an upper bound at the grid's
resolution). httpie has no benchmark questions: its row is the time until every wanted text is
embedded.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import PYTHON, REPO, env, load, machine, machine_line, write_section  # noqa: E402

BENCH = Path("/work/bench")
#: The benchmark's folder: ``../shared/filebench`` beside the checkout (a worktree sits one level deeper).
SHARED = next((p / "shared" / "filebench" for p in REPO.parents if (p / "shared" / "filebench").is_dir()),
              REPO.parent / "shared" / "filebench")
VECTOR_CACHE = Path.home() / ".cache" / "hookgraph-eval" / "vectors.sqlite"
HTTPIE = Path.home() / ".cache" / "hookgraph-bench" / "httpie" / "httpie-3.2.4.tar.gz"
#: Model seconds at which the index is scored (then every doubling past the last, then complete).
GRID = [0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 70, 80, 100, 120, 150, 180, 240, 300, 360, 480, 600, 720, 900,
        1200]
#: NDCG@10 within this of the complete index's counts as full quality (about a third of the mean
#: gap between vectors pending and complete on the 13 repositories).
TOLERANCE = 0.005
#: The acceptance's points on the time axis.
REPORTED = (10, 30, 60)


# -- in the code under test --------------------------------------------------------------------


def _cached(embedder: Any) -> None:
    """Route the embedder's model calls through eval/'s vector cache (same key: model SHA + exact input)."""
    import numpy as np

    db = sqlite3.connect(VECTOR_CACHE, timeout=120)
    db.execute("CREATE TABLE IF NOT EXISTS vec(key TEXT PRIMARY KEY, v BLOB NOT NULL)")
    compute = embedder._compute
    salt = f"{embedder.model_sha256}\0".encode()

    def key(text: str) -> str:
        h = hashlib.sha256(salt)
        h.update(text.encode("utf-8", "surrogatepass"))
        return h.hexdigest()

    def cached_compute(texts: list[str], counts: list[int]) -> Any:
        out = np.zeros((len(texts), embedder.dims), dtype=np.float32)
        for i, (text, n) in enumerate(zip(texts, counts)):
            row = db.execute("SELECT v FROM vec WHERE key = ?", (key(text),)).fetchone()
            if row:
                out[i] = np.frombuffer(row[0], dtype=np.float32)
                continue
            out[i] = compute([text], [n])[0]
            try:
                db.execute("INSERT OR REPLACE INTO vec(key, v) VALUES (?, ?)", (key(text), out[i].tobytes()))
                db.commit()
            except sqlite3.OperationalError:  # another run holds the write lock: keep going uncached
                pass
        return out

    embedder._compute = cached_compute


def plan(root: Path, sample: int) -> dict[str, Any]:
    """Index ``root`` (queue only), read the queue in drain order with each text's window token counts;
    with ``sample``: time that many of its texts through the model, uncached."""
    from hookgraph.embed import Embedder
    from hookgraph.store import Store, db_path
    from hookgraph.sync import read_target, sync

    started = time.perf_counter()
    sync(root, read_target(root, "head"), background=False)
    index_seconds = time.perf_counter() - started
    from hookgraph.embed.queue import rank_waiting

    rank_waiting(db_path(root))  # the drain's first step: the queue in the order the embedder takes it
    embedder = Embedder(**({'max_windows': MAX_WINDOWS} if MAX_WINDOWS else {}))
    with Store(db_path(root)) as store:
        if REORDER:
            reorder(store, REORDER)
        queue = store.next_pending(10**9)
    windows = []
    for _hash, _language, text in queue:
        _wins, _cut, counts = embedder.windows(text)
        windows.append(counts)
    samples = []
    if sample and queue:
        embedder.embed_query("warm up")
        prefix = embedder.document_prefix
        for i in sorted({int(k * len(queue) / sample) for k in range(sample)}):
            wins, _cut, counts = embedder.windows(queue[i][2])
            for window, n in zip(wins, counts):  # the drain's own model call (one per window), each timed
                t0 = time.perf_counter()
                embedder._compute([prefix + window], [n])
                samples.append([[n], time.perf_counter() - t0])
    return {"index_seconds": index_seconds, "windows": windows, "samples": samples}


#: ``--reorder NAME`` (an experiment, for the queue order's choice): re-prioritise the queue after the sync.
REORDER = ""
#: ``--max-windows N`` (an experiment, issue 32 item 5): the embedder's windows per text in this run.
MAX_WINDOWS = 0


def reorder(store: Any, how: str) -> None:
    """Give every queued text a new priority from its units (the best of them), to try an order before coding it."""
    import math

    from hookgraph.embed.no_embed import looks_like_test

    lines = dict(store.db.execute("SELECT path, max(end_line) FROM units GROUP BY path").fetchall())
    used = _uses_by_name(store) if how.startswith("callers") else {}
    best: dict[bytes, int] = {}
    for h, path, kind, doc, start, end, name in store.db.execute(
            "SELECT text_hash, path, kind, docstring, start_line, end_line, name FROM units "
            "WHERE text_hash IS NOT NULL"):
        test = looks_like_test(path) or kind in ("block", "chunk")
        cls = 0 if test else 5 if kind == "file" else 1 if kind == "section" else 4 if doc.strip() else \
            3 if kind in ("class", "interface", "struct", "enum", "trait", "module", "type") else 2
        size = min(99, int(4 * math.log2(max(1, lines[path]))))
        if how == "size":  # within a class, bigger files first
            p = cls * 100 + size
        elif how == "file-major":  # files by size; then each file's code in turn (biggest file first); docs; tests
            p = 10**7 + lines[path] if cls == 5 else (10**6 + min(lines[path], 99999) * 10 + cls if cls >= 2 else
                                                      cls * 10**5 + size)
        elif how == "doc-first":  # documented definitions before file units, the rest as shipped
            p = {4: 5, 5: 4}.get(cls, cls)
        elif how == "callers":  # within each class, the names the rest of the code uses most first
            p = cls * 10**4 + min(9999, used.get(name, 0))
        elif how == "callers-code":  # files; then all code (classes 4-2) by how much it is used, class breaking ties
            p = 5 * 10**5 if cls == 5 else (10**5 + min(9999, used.get(name, 0)) * 10 + cls if cls >= 2 else cls)
        elif how == "size-code":  # files by size; then code (classes 4-2 together) by its file's size; docs, tests
            p = 500 + size if cls == 5 else (300 + size * 3 + cls - 2 if cls >= 2 else cls * 100 + size)
        else:
            raise SystemExit(f"unknown order {how}")
        best[bytes(h)] = max(best.get(bytes(h), p), p)
    store.db.executemany("UPDATE pending SET priority = ? WHERE text_hash = ?", [(p, h) for h, p in best.items()])


def _uses_by_name(store: Any) -> dict[str, int]:
    """How often the repository's code uses each name: calls to it, classes inheriting it, and variables
    declared with it or built as it (``types`` edges), by name only (as the parser records them)."""
    import re
    from collections import Counter

    uses: Counter[str] = Counter()
    for kind, target, full in store.db.execute(  # (full may read as NULL)
            "SELECT kind, target, target_full FROM edges WHERE kind IN ('calls', 'inherits', 'types')"):
        if kind == "types":
            full = full or ""
            names = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", full.lstrip("="))
            target = names[0] if names else ""
            if "::" in full or "." in full.split("<")[0]:
                target = re.split(r"::|\.", full.split("<")[0].lstrip("="))[-1].strip() or target
        name = target.rsplit(".", 1)[-1].rsplit("::", 1)[-1]
        if name:
            uses[name] += 1
    return dict(uses)


def score(root: Path, annotations: Path, counts: list[int]) -> list[dict[str, Any]]:
    """NDCG@10 (mean over the questions) with the first ``n`` queued texts embedded, for each ``n``; then complete."""
    import importlib.util

    import hookgraph.embed.queue as queue_module
    from hookgraph.embed import Embedder
    from hookgraph.search import search_files
    from hookgraph.store import Store, db_path

    for name, module in list(sys.modules.items()):  # let on-the-spot embedding always finish (see the docstring)
        if name.startswith("hookgraph.search") and hasattr(module, "ON_THE_SPOT_SECONDS"):
            module.ON_THE_SPOT_SECONDS = 60.0
    spec = importlib.util.spec_from_file_location("filebench_score", SHARED / "score.py")
    assert spec is not None and spec.loader is not None
    metric = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(metric)
    questions = json.loads(annotations.read_text())
    embedder = Embedder(**({'max_windows': MAX_WINDOWS} if MAX_WINDOWS else {}))
    _cached(embedder)
    database = db_path(root)
    with Store(database) as store:
        queued = store.pending_count()
    rows = []

    def scored(label: str, embedded: int) -> None:
        values = []
        with Store(database) as store:
            pending = store.pending_count()
            if label != "complete" and pending != queued - embedded:
                raise SystemExit(f"error: {pending} texts pending at {label}, expected {queued - embedded}")
            for q in questions:
                gold = [metric.tpath(t) for t in q.get("relevant", []) + q.get("secondary", [])]
                found = [f.path for f in search_files(store, q["query"], top=10, embedder=embedder)]
                ranks = [r for g in gold if (r := metric.file_rank(found, g, metric.path_matches_suffix)) is not None]
                values.append(metric.ndcg_at_k(ranks, len(gold), 10))
        rows.append({"at": label, "embedded": embedded, "ndcg": statistics.mean(values)})

    embedded = 0
    for n in counts:
        if n > embedded:
            queue_module.FIRST_BATCH = n - embedded  # one batch of exactly the texts that fit, in queue order
            embedded += queue_module.drain(database, embedder, max_batches=1).embedded
        scored(str(n), embedded)
    queue_module.drain(database, embedder)
    scored("complete", queued)
    return rows


# -- the driver ----------------------------------------------------------------------------------


def fit_cost(samples: list[tuple[list[int], float]]) -> tuple[float, float]:
    """``(a, b)``: seconds of one window = a + b * tokens, least squares over the timed calls."""
    import numpy as np

    x = np.array([[len(c), sum(c)] for c, _ in samples], dtype=float)
    y = np.array([s for _, s in samples], dtype=float)
    (a, b), *_ = np.linalg.lstsq(x, y, rcond=None)
    if a < 0 or b < 0:  # noise on a loaded machine: a cost is never negative, keep the term that carries it
        a, b = 0.0, float(y.sum() / x[:, 1].sum())
    return float(a), float(b)


def cumulative(windows: list[list[int]], cost: tuple[float, float]) -> list[float]:
    """Model seconds after each queued text, in queue order."""
    total, out = 0.0, []
    for counts in windows:
        total += cost[0] * len(counts) + cost[1] * sum(counts)
        out.append(total)
    return out


def texts_at(times: list[float], seconds: float) -> int:
    """How many queued texts are embedded after ``seconds`` of model time."""
    import bisect

    return bisect.bisect_right(times, seconds + 1e-9)


def full_quality_at(rows: list[dict[str, Any]], one_sided: bool = False) -> float:
    """Model seconds of the first checkpoint from which NDCG@10 stays within TOLERANCE of the complete value
    (``one_sided``: at least the complete value less TOLERANCE; a state better than complete counts too)."""
    final = rows[-1]["ndcg"]
    at = rows[-1]["seconds"]
    for row in reversed(rows):
        if (final - row["ndcg"] if one_sided else abs(row["ndcg"] - final)) > TOLERANCE:
            break
        at = row["seconds"]
    return float(at)


def run_worker(code: Path, *args: str) -> Any:
    proc = subprocess.run([PYTHON, str(Path(__file__).resolve()), "--reorder", REORDER, "--max-windows", str(MAX_WINDOWS),
                           "--worker", *args],
                          capture_output=True, text=True,
                          env=env(PYTHONPATH=str(code), HOOKGRAPH_NO_BACKGROUND="1", HOOKGRAPH_CACHE_MB="0",
                                  HOOKGRAPH_EMBED_LOG=""))
    if proc.returncode != 0:
        raise SystemExit(f"worker {args[:2]} with {code} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def httpie_repo(work: Path) -> Path:
    """httpie 3.2.4's sdist as a one-commit repository."""
    if not HTTPIE.exists():
        raise SystemExit(f"error: {HTTPIE} missing; fetch it with: pip download --no-deps --no-binary :all: "
                         f"httpie==3.2.4 -d {HTTPIE.parent}")
    dest = work / "httpie-src"
    with tarfile.open(HTTPIE) as tar:
        tar.extractall(dest, filter="data")
    (root,) = dest.iterdir()
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "httpie 3.2.4"]):
        subprocess.run(["git", *args], cwd=root, check=True, env=env())
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repos", default=",".join(r["name"] for r in json.loads((SHARED / "repos.json").read_text())))
    parser.add_argument("--baseline", default="62ba74b")
    parser.add_argument("--sample", type=int, default=30, help="texts timed uncached per repository (the cost fit)")
    parser.add_argument("--no-httpie", action="store_true")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--json", help="write every number here as JSON too")
    parser.add_argument("--no-baseline", action="store_true", help="this checkout only (no side by side)")
    parser.add_argument("--cost", help="ms per window,ms per token: a cost fitted before (no calibration)")
    parser.add_argument("--reorder", default="", help=argparse.SUPPRESS)
    parser.add_argument("--config", help=argparse.SUPPRESS)
    parser.add_argument("--max-windows", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    global REORDER, MAX_WINDOWS
    REORDER, MAX_WINDOWS = args.reorder, args.max_windows
    if args.worker:
        mode, root = args.worker[0], Path(args.worker[1])
        if mode == "plan":
            print(json.dumps(plan(root, int(args.worker[2]))))
        else:
            print(json.dumps(score(root, Path(args.worker[2]), [int(n) for n in args.worker[3].split(",") if n])))
        return
    load_before = load()
    started = time.time()
    work = Path(tempfile.mkdtemp(prefix="hookgraph-quality-time-"))
    old = work / "baseline"
    old.mkdir()
    archive = subprocess.run(["git", "archive", args.baseline], cwd=REPO, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
    codes = {"this": REPO} if args.no_baseline else {"baseline": old, "this": REPO}
    names = [n for n in args.repos.split(",") if n]
    sources = {n: BENCH / "repos" / n for n in names}
    if not args.no_httpie:
        sources["httpie"] = httpie_repo(work)
    plans: dict[tuple[str, str], dict[str, Any]] = {}
    samples: list[tuple[list[int], float]] = []
    per_repo_samples: dict[str, list[tuple[list[int], float]]] = {}
    results: dict[tuple[str, str], list[dict[str, Any]]] = {}
    try:
        for name, source in sources.items():
            for code_name, code in codes.items():
                clone = work / code_name / name
                subprocess.run(["git", "clone", "-q", str(source), str(clone)], check=True)
                if args.config:  # an experiment: the repository's own settings (e.g. a [no_embed] rule)
                    (clone / ".hookgraph").mkdir(exist_ok=True)
                    (clone / ".hookgraph" / "config.toml").write_text(Path(args.config).read_text())
                p = run_worker(code, "plan", str(clone), str(args.sample if code_name == "this" and not args.cost else 0))
                plans[(name, code_name)] = p
                per_repo_samples.setdefault(name, []).extend((c, s) for c, s in p["samples"])
                samples.extend((c, s) for c, s in p["samples"])
                print(f"{name} {code_name}: indexed in {p['index_seconds']:.1f} s, {len(p['windows'])} texts queued",
                      flush=True)
        cost = tuple(float(x) / 1000 for x in args.cost.split(",")) if args.cost else fit_cost(samples)  # type: ignore[assignment]
        print(f"cost: {cost[0] * 1000:.2f} ms per window + {cost[1] * 1000:.3f} ms per token", flush=True)
        for name in names:
            for code_name, code in codes.items():
                times = cumulative(plans[(name, code_name)]["windows"], cost)
                total = times[-1] if times else 0.0
                grid = [t for t in GRID if t < total] + list(range(GRID[-1] + 300, int(total), 300))
                counts = [texts_at(times, t) for t in grid]
                rows = run_worker(code, "score", str(work / code_name / name), str(BENCH / "annotations" / f"{name}.json"),
                                  ",".join(map(str, counts)))
                for row, t in zip(rows, [*grid, total]):
                    row["seconds"] = t
                results[(name, code_name)] = rows
                print(name, code_name, [(r["seconds"], r["embedded"], round(r["ndcg"], 3)) for r in rows], flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report(args, names, sources, plans, results, samples, per_repo_samples, cost, load_before, started)


def at_seconds(rows: list[dict[str, Any]], seconds: float) -> float:
    """NDCG@10 of the state after ``seconds`` of model time (the last checkpoint at or before it)."""
    return [r for r in rows if r["seconds"] <= seconds + 1e-9][-1]["ndcg"]


def report(args: Any, names: list[str], sources: dict[str, Path], plans: dict[tuple[str, str], dict[str, Any]],
           results: dict[tuple[str, str], list[dict[str, Any]]], samples: list[tuple[list[int], float]],
           per_repo_samples: dict[str, list[tuple[list[int], float]]], cost: tuple[float, float], load_before: str,
           started: float) -> None:
    m = machine()
    table = []
    present = sorted({c for _, c in results}, reverse=True)  # "this", then "baseline"
    summary: dict[str, dict[str, Any]] = {c: {} for c in present}
    for code_name in present:
        for name in names:
            rows = results[(name, code_name)]
            p = plans[(name, code_name)]
            model_total = rows[-1]["seconds"]
            full = full_quality_at(rows)
            summary[code_name][name] = {
                "texts": len(p["windows"]), "index_s": p["index_seconds"], "model_s": model_total,
                "pending": rows[0]["ndcg"], "complete": rows[-1]["ndcg"],
                **{f"at{t}": at_seconds(rows, t) for t in REPORTED},
                "full_model_s": full, "full_s": p["index_seconds"] + full,
                "at_least_s": p["index_seconds"] + full_quality_at(rows, one_sided=True),
                "rows": [(r["seconds"], r["embedded"], r["ndcg"]) for r in rows],
            }
    if args.json:
        Path(args.json).write_text(json.dumps({"cost": cost, "summary": summary}, indent=1))
    if "baseline" not in summary:  # a variant run: the means only
        t = summary["this"]
        mean = {k: statistics.mean(t[n][k] for n in names) for k in ("pending", "at10", "at30", "at60", "complete")}
        gap = mean["complete"] - mean["pending"]
        print(" ".join(f"{k} {v:.3f}" for k, v in mean.items()),
              "way " + " ".join(f"{s}s {(mean[f'at{s}'] - mean['pending']) / gap:.2f}" for s in REPORTED),
              f"median full {statistics.median(t[n]['full_s'] for n in names):.0f} s"
              f" (one-sided {statistics.median(t[n]['at_least_s'] for n in names):.0f} s)")
        return
    for name in names:
        b, t = summary["baseline"][name], summary["this"][name]
        table.append(
            f"| {name} | {b['texts']:,} / {t['texts']:,} | {b['model_s']:.0f} / {t['model_s']:.0f} | "
            f"{b['pending']:.3f} / {t['pending']:.3f} | "
            + " | ".join(f"{b[f'at{s}']:.3f} / {t[f'at{s}']:.3f}" for s in REPORTED)
            + f" | {b['complete']:.3f} / {t['complete']:.3f} | {b['full_s']:.0f} / {t['full_s']:.0f} |")
    means = {c: {k: statistics.mean(summary[c][n][k] for n in names)
                 for k in ("pending", "complete", *(f"at{s}" for s in REPORTED))} for c in summary}
    table.append(f"| **mean** | | | {means['baseline']['pending']:.3f} / {means['this']['pending']:.3f} | "
                 + " | ".join(f"{means['baseline'][f'at{s}']:.3f} / {means['this'][f'at{s}']:.3f}" for s in REPORTED)
                 + f" | {means['baseline']['complete']:.3f} / {means['this']['complete']:.3f} | |")

    def way(c: str, s: int) -> float:
        gap = means[c]["complete"] - means[c]["pending"]
        return (means[c][f"at{s}"] - means[c]["pending"]) / gap if gap else float("nan")

    medians = {c: statistics.median(summary[c][n]["full_s"] for n in names) for c in summary}
    at_least = {c: statistics.median(summary[c][n]["at_least_s"] for n in names) for c in summary}
    lines = ["- Of the way from vectors pending to complete (mean over the repositories, "
             "(mean at t - mean pending) / (mean complete - mean pending)): "
             + ", ".join(f"{s} s: baseline {way('baseline', s):.2f}, this {way('this', s):.2f}" for s in REPORTED),
             f"- Time to full quality, median repository: baseline {medians['baseline']:.0f} s, this "
             f"{medians['this']:.0f} s ({medians['baseline'] / medians['this']:.1f}x sooner). Read one-sided (from "
             f"the first checkpoint where NDCG@10 is never again more than {TOLERANCE} below complete; flatters a "
             "code whose answers get worse as vectors come in): baseline "
             f"{at_least['baseline']:.0f} s, this {at_least['this']:.0f} s."]
    if "httpie" in sources:
        hb, ht = (plans[("httpie", c)] for c in ("baseline", "this"))
        tb, tt = (cumulative(p["windows"], cost)[-1] + p["index_seconds"] for p in (hb, ht))
        lines.append(f"- httpie 3.2.4 (PyPI sdist; no benchmark questions: until every wanted text is embedded): "
                     f"baseline {len(hb['windows']):,} texts, {tb:.0f} s; this {len(ht['windows']):,} texts, "
                     f"{tt:.0f} s ({tb / tt:.1f}x sooner).")
    checks = []
    for name, own in per_repo_samples.items():
        if own:
            measured = sum(s for _, s in own)
            predicted = sum(cost[0] * len(c) + cost[1] * sum(c) for c, _ in own)
            checks.append(f"{name} {len(own) / measured:.0f}/s ({measured / predicted:.2f})")
    section = (
        "## Quality against background model time\n\n"
        f"`python benchmarks/quality_time_bench.py --baseline {args.baseline} --sample {args.sample}"
        f"{' --repos ' + args.repos if len(names) < 13 else ''}`, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(started))}, {(time.time() - started) / 60:.0f} min. "
        f"{machine_line(m, load_before)} Each cell: baseline ({args.baseline}: every unit embedded, path order) / "
        "this checkout (no-embed rule, queue in usefulness order). Time axis: model seconds from a cost fitted on "
        f"{len(samples)} model calls timed uncached on this machine (the windows of {args.sample} queued texts per "
        f"repository; {cost[0] * 1000:.2f} ms per window + {cost[1] * 1000:.3f} ms per token; per repository, "
        f"windows/s and measured/fitted: {', '.join(checks)}), "
        "summed over each code's own queue; the states themselves are the codes' own drains (vectors from eval/'s "
        "cache), scored in-process with filebench's score.py, on-the-spot embedding allowed to finish. Full "
        f"quality: the first checkpoint from which NDCG@10 stays within {TOLERANCE} of complete; its time adds "
        "the first index's wall time.\n\n"
        "| repository | texts queued | model s to complete | pending | "
        + " | ".join(f"after {s} s" for s in REPORTED) + " | complete | time to full quality (s) |\n"
        "|---|---:|---:|---:|" + "---:|" * len(REPORTED) + "---:|---:|\n"
        + "\n".join(table) + "\n\n" + "\n".join(lines) + "\n"
    )
    if not args.no_write:
        write_section("Quality against background model time", section)
    print(section)


if __name__ == "__main__":
    main()
