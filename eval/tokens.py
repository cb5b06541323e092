"""The token-budget benchmark: how much of the right code an agent gets for 500, 1k, 2k and 4k tokens.

    python -m eval.tokens --bench /work/bench-pack --state words             # hookgraph and the peer, one run
    python -m eval.tokens --bench B --only gin tokio --state pending --no-peer
    python -m eval.tokens --bench B --via mcp --only sinatra                   # through the MCP search tool

An agent pays for tokens and needs the right files inside the few thousand it can afford. On the
field's file-level benchmark (``../shared/filebench``: MinishLab's questions with their gold files,
the 13 repositories ``prepare.py`` laid out under ``BENCH/repos``), for every question and budget:

* **hookgraph**: the context pack for that budget, exactly as ``ask --context BUDGET`` and the MCP
  ``search`` tool with ``budget`` build it (:func:`hookgraph.search.pack.pack_for_question`). A gold
  file counts when a piece of it is in the pack. The pack is counted as rendered, its first line,
  piece headers and fences included (the budget it keeps by construction);
* **the peer**, semble 0.7.0 words-only (``../shared/filebench/peer/``; BM25 + its ranking stack,
  alpha = 0.0): its ranked chunks in rank order, each costing its own characters / 4 (content only:
  no header, so the count favours the peer); a gold file counts when a chunk of it ends within the
  budget. ``eval/tokens_peer.py`` runs in the peer's venv, one process per repository.

Reported, mean over questions (and over repositories): **recall@B** (share of a question's gold
files, relevant + secondary as ``score.py`` counts them, found within B tokens), **hit@B** (at least
one), and the **median tokens to the first gold file** (hookgraph: the running count through the
first gold piece of the largest budget's pack; the peer: through its first gold chunk; a question
with none within the largest budget counts as infinite). Gold paths match as in ``score.py``.

States (the index an agent meets): ``words`` = every vector pending and no model (``ask
--no-semantic``, no CPU spent on embeddings: the state to iterate in); ``pending`` = every vector
pending, the model embeds the query and a few candidates on the spot (``ask`` right after
``index``); ``complete`` = every vector in. Indexes are those of ``eval.filebench`` (built once
per recipe, cached).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from eval.filebench import SHARED, build_indexes, load_score_module
from eval.run import CachingEmbedder, cache_dir, log

BUDGETS = (500, 1000, 2000, 4000)
PEER_PYTHON = "/tmp/sembleside/venv/bin/python"
PEER_MODEL = "/tmp/sembleside/dummy_model"
#: Chunks asked of the peer per question: enough to fill the largest budget (its median chunk is ~176 tokens).
PEER_TOP_K = 80


def gold_of(task: dict[str, Any]) -> list[str]:
    return [t if isinstance(t, str) else t["path"] for t in task.get("relevant", []) + task.get("secondary", [])]


def score_list(entries: list[tuple[str, int]], gold: list[str], budgets: tuple[int, ...], match: Any,
               ) -> tuple[dict[int, float], dict[int, bool], float]:
    """Recall and hit per budget and tokens to the first gold file, for chunks ``(path, running tokens)``.

    ``running tokens`` is the count through the end of that chunk, in delivery order.
    """
    recall: dict[int, float] = {}
    hit: dict[int, bool] = {}
    for budget in budgets:
        paths = [p for p, end in entries if end <= budget]
        found = [g for g in gold if any(match(p, g) for p in paths)]
        recall[budget] = len(found) / len(gold) if gold else 0.0
        hit[budget] = bool(found)
    first = next((end for p, end in entries if end <= max(budgets) and any(match(p, g) for g in gold)), math.inf)
    return recall, hit, float(first)


def pack_entries(pack: Any, notes: list[str]) -> list[tuple[str, int]]:
    """The pack's pieces with the running token count through each (first lines included), as build_pack counts."""
    from hookgraph.search.pack import overhead

    used = overhead(notes) + 1
    entries = []
    for piece in pack.pieces:
        used += piece.cost()
        entries.append((piece.path, used))
    return entries


def hookgraph_packs(root: Path, store: Any, query: str, budgets: tuple[int, ...], embedder: Any,
                    ) -> dict[int, list[tuple[str, int]]]:
    from hookgraph.search.pack import pack_for_question

    out = {}
    for budget in budgets:
        pack = pack_for_question(root, store, query, budget, embedder=embedder)
        out[budget] = pack_entries(pack, [])
    return out


def mcp_packs(tools: Any, query: str, budgets: tuple[int, ...]) -> dict[int, list[tuple[str, int]]]:
    """The same packs through the MCP ``search`` tool's body (its ``pieces``, in order, with their running count)."""
    from hookgraph.search.pack import overhead

    out = {}
    for budget in budgets:
        answer = tools.search(query, budget=budget)
        used = overhead([]) + 1
        if answer["text"].count("\nnote: "):  # the pack's notes (stale paths) count before any piece
            used = estimate_head(answer["text"])
        entries = []
        for piece in answer["pieces"]:
            used += piece["tokens"]
            entries.append((piece["path"], used))
        out[budget] = entries
    return out


def estimate_head(text: str) -> int:
    """Tokens of a rendered pack's first lines (the id line and its notes), as build_pack counts them."""
    from hookgraph.search.pack import estimate_tokens

    head = text.split("\n\n", 1)[0]
    return estimate_tokens(head + "\n") + 1


def peer_chunks(repo: Path, queries: list[str], python: str, model: str) -> dict[str, list[tuple[str, int]]]:
    """The peer's ranked chunks per question as ``(path, running tokens)`` (content characters / 4)."""
    script = Path(__file__).with_name("tokens_peer.py")
    proc = subprocess.run([python, str(script), str(repo), model, str(PEER_TOP_K)], input=json.dumps(queries),
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"error: the peer failed on {repo}: {proc.stderr.strip()[-400:]}")
    out = {}
    for line in proc.stdout.splitlines():
        row = json.loads(line)
        used, entries = 0, []
        for path, _start, _end, chars in row["chunks"]:
            used += math.ceil(chars / 4)
            entries.append((path, used))
        out[row["query"]] = entries
    return out


class Tally:
    """Per-question scores of one system, kept by repository."""

    def __init__(self, budgets: tuple[int, ...]) -> None:
        self.budgets = budgets
        self.rows: list[dict[str, Any]] = []

    def add(self, repo: str, query: str, recall: dict[int, float], hit: dict[int, bool], first: float) -> None:
        self.rows.append({"repo": repo, "query": query, "recall": recall, "hit": hit, "first": first})

    def recall(self, budget: int, repo: str | None = None) -> float:
        return statistics.mean(r["recall"][budget] for r in self.rows if repo in (None, r["repo"]))

    def recall_over_repos(self, budget: int) -> float:
        return statistics.mean(self.recall(budget, repo) for repo in dict.fromkeys(r["repo"] for r in self.rows))

    def hit(self, budget: int) -> float:
        return statistics.mean(float(r["hit"][budget]) for r in self.rows)

    def median_first(self) -> float:
        return statistics.median(r["first"] for r in self.rows)


def report(tallies: dict[str, Tally], budgets: tuple[int, ...], repos: list[str]) -> str:
    lines = ["| system | " + " | ".join(f"recall@{b}" for b in budgets) + " | "
             + " | ".join(f"hit@{b}" for b in budgets) + " | median tokens to first gold | recall@"
             + f"{budgets[0]} mean over repos |",
             "|---" * (2 * len(budgets) + 3) + "|"]
    for name, tally in tallies.items():
        first = tally.median_first()
        lines.append(f"| {name} | " + " | ".join(f"{tally.recall(b):.3f}" for b in budgets) + " | "
                     + " | ".join(f"{tally.hit(b):.3f}" for b in budgets)
                     + f" | {'inf' if math.isinf(first) else int(first)} | {tally.recall_over_repos(budgets[0]):.3f} |")
    lines.append("")
    lines.append("recall@" + "/".join(str(b) for b in budgets) + " per repository: " + "; ".join(
        f"{repo} " + " vs ".join("/".join(f"{t.recall(b, repo):.2f}" for b in budgets) for t in tallies.values())
        for repo in repos))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", required=True, help="the folder prepare.py wrote (BENCH/repos/NAME)")
    ap.add_argument("--shared", default=str(SHARED), help="the benchmark folder (repos.json, annotations, score.py)")
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--state", choices=("words", "pending", "complete"), default="words")
    ap.add_argument("--via", choices=("pack", "mcp"), default="pack",
                    help="pack: the function ask --context and MCP search share, in process; mcp: the MCP search "
                         "tool's body on a workspace of each repository (slower; syncs .hookgraph in the repository)")
    ap.add_argument("--no-peer", action="store_true", help="hookgraph alone")
    ap.add_argument("--peer-python", default=PEER_PYTHON)
    ap.add_argument("--peer-model", default=PEER_MODEL)
    ap.add_argument("--dump", help="write every question's entries and scores as JSON here")
    ap.add_argument("--set", action="append", default=[], dest="sets",
                    help="module.NAME=value: override a constant for the run (search.pack.MAP_SHARE=0.5)")
    args = ap.parse_args(argv)

    from eval.filebench import apply_sets
    from hookgraph.embed import Embedder
    from hookgraph.store import Store

    shared = Path(args.shared)
    score = load_score_module(shared)
    match = score.path_matches_suffix
    apply_sets(["search.ON_THE_SPOT_SECONDS=60", *args.sets])  # as eval.filebench: rankings that do not wander with the load
    manifest = {r["name"]: r for r in json.loads((shared / "repos.json").read_text())}
    names = [n for n in manifest if (not args.only or n in args.only) and (Path(args.bench) / "repos" / n).is_dir()]
    real = Embedder()
    caching = CachingEmbedder(real, cache_dir() / "vectors.sqlite")
    # Questions and on-the-spot texts go to a cache of their own: the shared one is written by
    # eval.filebench runs building indexes, and a locked commit there would end this run.
    # eval.filebench runs building indexes, and a locked commit there would end this run. (A model of
    # its own: CachingEmbedder wraps the model it is given, and two around one model would chain.)
    embedder = None if args.state == "words" else CachingEmbedder(Embedder(), cache_dir() / "vectors-tokens.sqlite")
    budgets = BUDGETS
    tallies = {f"hookgraph ({args.via}, {args.state}{''.join(' ' + s for s in args.sets)})": Tally(budgets)}
    if not args.no_peer:
        tallies["semble 0.7.0 words-only"] = Tally(budgets)
    dump: list[dict[str, Any]] = []
    started = time.perf_counter()
    for name in names:
        repo = Path(args.bench) / "repos" / name
        tasks = json.loads((shared / "annotations" / f"{name}.json").read_text())
        queries = [t["query"] for t in tasks]
        ours: dict[str, dict[int, list[tuple[str, int]]]] = {}
        if args.via == "pack":
            index_state = "complete" if args.state == "complete" else "pending"
            indexes = build_indexes(name, repo, caching, (index_state,) if index_state == "pending" else
                                    ("pending", "complete"))
            with Store(indexes[index_state]) as store:
                for query in queries:
                    ours[query] = hookgraph_packs(repo, store, query, budgets, embedder)
        else:
            ours = _via_mcp(repo, queries, budgets, args.state)
        peer = {} if args.no_peer else peer_chunks(repo, queries, args.peer_python, args.peer_model)
        for task in tasks:
            query, gold = task["query"], gold_of(task)
            systems = {"hookgraph": (ours[query], None)}
            if not args.no_peer:
                systems["peer"] = ({}, peer[query])
            row: dict[str, Any] = {"repo": name, "query": query, "gold": gold}
            for tally, (key, (packs, chunks)) in zip(tallies.values(), systems.items()):
                if chunks is None:
                    recall = {b: score_list(packs[b], gold, (b,), match)[0][b] for b in budgets}
                    hit = {b: score_list(packs[b], gold, (b,), match)[1][b] for b in budgets}
                    first = score_list(packs[max(budgets)], gold, budgets, match)[2]
                    row[key] = {str(b): packs[b] for b in budgets}
                else:
                    recall, hit, first = score_list(chunks, gold, budgets, match)
                    row[key] = chunks[:30]
                tally.add(name, query, recall, hit, first)
                row[f"{key}_recall"] = recall
            dump.append(row)
        log(f"{name}: {len(tasks)} questions, " + ", ".join(
            f"{k.split(' ')[0]} {'/'.join(f'{t.recall(b, name):.2f}' for b in budgets)}" for k, t in tallies.items()))
    print(f"{len(dump)} questions on {len(names)} repositories, {time.perf_counter() - started:.0f}s; "
          f"budgets in tokens = characters / 4")
    print(report(tallies, budgets, names))
    if args.dump:
        Path(args.dump).write_text(json.dumps(dump, indent=1))
    return 0


def _via_mcp(repo: Path, queries: list[str], budgets: tuple[int, ...], state: str,
             ) -> dict[str, dict[int, list[tuple[str, int]]]]:
    """Every question through the MCP ``search`` tool's body on a workspace of ``repo`` (indexed there first)."""
    from hookgraph.cli.mcp_server import Tools
    from hookgraph.embed import Embedder
    from hookgraph.embed.queue import drain
    from hookgraph.store import db_path
    from hookgraph.sync import read_target, sync
    from hookgraph.sync.overlay import Workspace

    report = sync(repo, read_target(repo, "head"), full=False, embedder=Embedder(), background=False)
    if state == "complete" and report.pending:
        drain(db_path(repo), Embedder())
    workspace = Workspace(repo, sync=True)
    if state == "words":
        workspace.embedder = lambda store: None  # type: ignore[method-assign]
    tools = Tools(workspace)
    try:
        return {query: mcp_packs(tools, query, budgets) for query in queries}
    finally:
        workspace.close()


if __name__ == "__main__":
    sys.exit(main())
