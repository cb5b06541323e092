"""Quality while vectors come in: file-level NDCG@10 after K texts embedded, baseline against this checkout (issue 32).

    python benchmarks/queue_order_bench.py [--repos fastapi,aiohttp] [--checkpoints 0,100,250,500] [--baseline REF]
                                           [--no-write]

For each repository of the file-level benchmark laid out in /work/bench
(``repos/NAME``, one commit; ``annotations/NAME.json``) and for each code (the
baseline from ``git archive REF``, and this checkout): a fresh clone, a first
index with no background embedder (everything queued, in the code's own queue
order and with its own no-embed rule), then the real embedder drains the queue
in its own batches; at each checkpoint (texts embedded so far) every question
is asked in-process (``search_files``, top 10, with the model: waiting units
are embedded on the spot as ``ask`` does) and scored as
/work/shared/filebench/score.py scores (NDCG@10 over files, every gold file
gain 1, a path matching as a '/'-suffix). The last row is the complete index.
Texts, not seconds, are the x axis: the machine's load changes seconds, not
the order; model seconds are shown beside them.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import PYTHON, REPO, env, load, machine, machine_line, write_section  # noqa: E402

BENCH = Path("/work/bench")


def ndcg(paths: list[str], gold: list[str], k: int = 10) -> float:
    def match(f: str, t: str) -> bool:
        return f == t or f.endswith(f"/{t}") or t.endswith(f"/{f}")

    ranks = {next((i for i, p in enumerate(paths[:k], 1) if match(p, t)), None) for t in gold} - {None}
    dcg = sum(1 / math.log2(r + 1) for r in ranks if r is not None)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(k, len(gold))))
    return dcg / ideal if ideal else 0.0


def worker(root: Path, annotations: Path, checkpoints: list[int]) -> None:
    """In the code under test (PYTHONPATH): index, then drain and score at each checkpoint; JSON lines out."""
    from hookgraph.embed import Embedder
    from hookgraph.embed.queue import drain
    from hookgraph.search import search_files
    from hookgraph.store import Store, db_path
    from hookgraph.sync import read_target, sync

    questions = json.loads(annotations.read_text())
    report = sync(root, read_target(root, "head"), background=False)
    embedder = Embedder()
    embedder.embed_query("warm up")
    database = db_path(root)
    embedded, seconds = 0, 0.0

    def score(label: str) -> None:
        with Store(database) as store:
            pending = store.pending_count()
            scores = []
            for q in questions:
                gold = [t if isinstance(t, str) else t["path"] for t in q.get("relevant", []) + q.get("secondary", [])]
                found = [f.path for f in search_files(store, q["query"], top=10, embedder=embedder)]
                scores.append(ndcg(found, gold))
        print(json.dumps({"at": label, "embedded": embedded, "model_seconds": round(seconds, 1), "pending": pending,
                          "queued": report.pending, "ndcg": sum(scores) / len(scores)}), flush=True)

    for target in checkpoints:
        while embedded < target:
            step = drain(database, embedder, max_batches=1)
            embedded += step.embedded
            seconds += step.seconds
            if step.remaining == 0:
                break
        score(str(target))
    while True:
        step = drain(database, embedder, max_batches=1)
        seconds += step.seconds
        if not step.remaining:
            break
    with Store(database) as store:
        embedded = report.pending - store.pending_count()
    score("complete")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repos", default="fastapi,aiohttp")
    parser.add_argument("--checkpoints", default="0,100,250,500")
    parser.add_argument("--baseline", default="main")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--worker", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    checkpoints = [int(c) for c in args.checkpoints.split(",")]
    if args.worker:
        worker(args.worker[0], args.worker[1], checkpoints)
        return
    load_before = load()
    work = Path(tempfile.mkdtemp(prefix="hookgraph-order-"))
    old = work / "baseline"
    old.mkdir()
    archive = subprocess.run(["git", "archive", args.baseline], cwd=REPO, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
    codes = {"baseline": old, "this": REPO}
    results: dict[tuple[str, str], list[dict]] = {}
    try:
        for name in args.repos.split(","):
            for code_name, code in codes.items():
                clone = work / code_name / name
                subprocess.run(["git", "clone", "-q", str(BENCH / "repos" / name), str(clone)], check=True)
                proc = subprocess.run(
                    [PYTHON, str(Path(__file__).resolve()), "--checkpoints", args.checkpoints, "--worker", str(clone),
                     str(BENCH / "annotations" / f"{name}.json")],
                    capture_output=True, text=True, env=env(PYTHONPATH=str(code), HOOKGRAPH_NO_BACKGROUND="1",
                                                            HOOKGRAPH_CACHE_MB="0", HOOKGRAPH_EMBED_LOG=""))
                if proc.returncode != 0:
                    raise SystemExit(f"{code_name} on {name} failed:\n{proc.stderr[-3000:]}")
                results[(name, code_name)] = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
                print(name, code_name, results[(name, code_name)], flush=True)
                shutil.rmtree(clone, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    m = machine()
    rows = []
    for name in args.repos.split(","):
        base, this = results[(name, "baseline")], results[(name, "this")]
        for a, b in zip(base, this):
            rows.append(f"| {name} | {a['at']} | {a['embedded']:,} of {a['queued']:,} ({a['model_seconds']:.0f} s) | "
                        f"{a['ndcg']:.3f} | {b['embedded']:,} of {b['queued']:,} ({b['model_seconds']:.0f} s) | "
                        f"{b['ndcg']:.3f} |")
    section = (
        "## Quality while vectors come in\n\n"
        f"`python benchmarks/queue_order_bench.py --repos {args.repos} --checkpoints {args.checkpoints} "
        f"--baseline {args.baseline}`, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. "
        f"{machine_line(m, load_before)} File-level NDCG@10 (filebench's scoring, questions asked in-process with "
        "the model) after the first K texts of the queue are embedded, each code with its own queue order and "
        "no-embed rule; \"complete\": every queued text embedded. Model seconds: the drain's wall time on this "
        "loaded machine.\n\n"
        "| repository | texts embedded (K) | baseline: embedded of queued (model s) | baseline NDCG@10 "
        "| this: embedded of queued (model s) | this NDCG@10 |\n|---|---:|---:|---:|---:|---:|\n"
        + "\n".join(rows) + "\n"
    )
    if not args.no_write:
        write_section("Quality while vectors come in", section)
    print(section)


if __name__ == "__main__":
    main()
