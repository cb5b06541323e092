"""Both cores for the model: one context with 2 threads against 2 contexts with 1 thread each (issue 32).

    python benchmarks/contexts_bench.py [--repo /work/bench/repos/ktor] [--windows 150] [--rounds 3] [--no-write]

hookgraph's background embedder runs one llama.cpp context and gives it as many threads as the
machine has idle cores (``hookgraph.embed``: 2 on an idle 2-core machine). llama.cpp's threads
meet at a barrier after every operation, and this model's matrices are small (6 layers, 384
wide), so a second context on its own thread, embedding other texts at the same time, might use
the second core better. This measures it on the windows (prefix included) of texts the first
index of ``--repo`` queues, every fifth text: windows per second for 1 context x 1 thread,
1 context x 2 threads, and 2 contexts x 1 thread in two Python threads (ctypes lets go of the GIL
inside llama.cpp), median of ``--rounds`` rounds each.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO, load, machine, machine_line, write_section  # noqa: E402

sys.path.insert(0, str(REPO))


def queued_windows(repo: Path, count: int) -> list[str]:
    """The model inputs (prefix + window) of every fifth text a first index of ``repo`` queues."""
    from hookgraph.embed import Embedder
    from hookgraph.store import Store, db_path
    from hookgraph.sync import read_target, sync

    copy = Path(tempfile.mkdtemp()) / repo.name
    subprocess.run(["git", "clone", "-q", str(repo), str(copy)], check=True)
    sync(copy, read_target(copy, "head"), background=False)
    embedder = Embedder()
    with Store(db_path(copy)) as store:
        queue = store.next_pending(10**9)
    windows: list[str] = []
    for _hash, _language, text in queue[::5]:
        windows += [embedder.document_prefix + w for w in embedder.windows(text)[0]]
    return windows[:count]


def rate(path: str, windows: list[str], contexts: int, threads: int, rounds: int) -> tuple[float, list[float]]:
    """Windows per second (median over ``rounds``) and each round's seconds."""
    from hookgraph.llama.lite import EmbeddingModel

    models = [EmbeddingModel(path, n_ctx=512, n_threads=threads) for _ in range(contexts)]
    for model in models:
        model.embed("warm up")

    def embed_all(model: EmbeddingModel, texts: list[str]) -> None:
        for text in texts:
            model.embed(text)

    seconds = []
    for _ in range(rounds):
        started = time.perf_counter()
        workers = [threading.Thread(target=embed_all, args=(m, windows[i::contexts])) for i, m in enumerate(models)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        seconds.append(time.perf_counter() - started)
    for model in models:
        model.close()
    return len(windows) / statistics.median(seconds), seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, default=Path("/work/bench/repos/ktor"))
    parser.add_argument("--windows", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    from hookgraph.embed import Embedder

    before = load()
    windows = queued_windows(args.repo, args.windows)
    path = str(Embedder()._path)
    rows = []
    for label, contexts, threads in (("1 context x 1 thread", 1, 1), ("1 context x 2 threads", 1, 2),
                                     ("2 contexts x 1 thread", 2, 1)):
        per_second, seconds = rate(path, windows, contexts, threads, args.rounds)
        rows.append((label, per_second, seconds))
        print(f"{label}: {per_second:.1f} windows/s", flush=True)
    base = rows[0][1]
    table = "\n".join(f"| {label} | {r:.1f} | {r / base:.2f} | {', '.join(f'{s:.2f}' for s in secs)} |"
                      for label, r, secs in rows)
    section = (
        f"`python benchmarks/contexts_bench.py --repo {args.repo} --windows {len(windows)} --rounds {args.rounds}`, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. {machine_line(machine(), before)} "
        f"{len(windows)} model inputs (prefix + window) of every fifth text {args.repo.name}'s first index queues; "
        "the bundled model, flash attention, one text per call.\n\n"
        "| model contexts x threads | windows/s | over 1 x 1 | rounds (s) |\n|---|---:|---:|---|\n" + table + "\n\n"
        f"Two threads in one context give {rows[1][1] / base:.2f}x one thread; two contexts on one thread each "
        f"{rows[2][1] / base:.2f}x ({rows[2][1] / rows[1][1]:.2f}x one context with two threads), in isolation; "
        "background_bench.py measures what the worker gains from it end to end.\n"
    )
    print(section)
    if not args.no_write:
        write_section("Both cores for the model: threads against contexts (issue 32)", section)


if __name__ == "__main__":
    main()
