"""The background embedder's own cost: ``drain()`` against the bare model on the same texts, side by side (issue 12).

    python benchmarks/drain_bench.py [--repo PATH] [--rounds 3] [--batches 10] [--no-write]

A busy shared machine makes a rate measured over half an hour (as in
first_index_bench.py) a measure of the machine's load as much as of the
embedder. This one isolates what the embedder adds to the model - reading a
batch, cutting windows, the publish transaction under the write lock, the
progress meta - by alternating, in one process at one priority, for
``--rounds`` rounds: ``drain(max_batches=N)`` on a copy of a real index with
texts waiting (default: the Django index first_index_bench.py leaves in
``~/.cache/hookgraph-bench``), then the bare llama.cpp context on exactly the
strings that round embedded. Reports the median ratio; target >= 85%.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO, load, machine, machine_line, write_section  # noqa: E402

DJANGO = Path.home() / ".cache" / "hookgraph-bench" / "django-5.1.4"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, default=DJANGO, help="a repository whose index has texts waiting")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batches", type=int, default=10, help="drain batches per round (~2 s of model time each)")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    from hookgraph.embed import Embedder
    from hookgraph.embed.queue import drain
    from hookgraph.store import Store, db_path

    load_before = load()
    work = Path(tempfile.mkdtemp(prefix="hookgraph-drain-"))
    database = work / "index.db"
    with Store(db_path(args.repo), readonly=True) as source:  # a consistent copy, WAL included
        source.db.execute(f"VACUUM INTO '{database}'")
    embedder = Embedder()
    embedder.embedded_log = []
    model = embedder._model()
    model.embed("warm up")
    rows = []
    for _ in range(args.rounds):
        with Store(database, readonly=True) as store:
            waiting = store.pending_count()
        if waiting == 0:
            break
        embedder.embedded_log.clear()
        started = time.perf_counter()
        report = drain(database, embedder, max_batches=args.batches)
        drain_rate = report.published / (time.perf_counter() - started)
        strings = list(embedder.embedded_log)  # every window the model got, prefix included
        started = time.perf_counter()
        for s in strings:
            model.embed(s)
        bare_rate = report.embedded / (time.perf_counter() - started)
        rows.append((report.published, len(strings), drain_rate, bare_rate))
        print(f"{report.published} texts ({len(strings)} windows): drain {drain_rate:.2f} texts/s, "
              f"bare {bare_rate:.2f} texts/s = {drain_rate / bare_rate:.0%}", flush=True)
    embedder.close()
    shutil.rmtree(work, ignore_errors=True)
    ratio = statistics.median(d / b for _n, _w, d, b in rows)
    print(f"median {ratio:.0%}")
    if not args.no_write:
        lines = [
            "## The background embedder's own cost",
            "",
            f"`python benchmarks/drain_bench.py --rounds {args.rounds} --batches {args.batches}` on a copy of "
            f"{args.repo.name}'s index with texts waiting, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. "
            f"{machine_line(machine(), load_before)} In one process, alternating: `drain()` (read a batch, cut "
            "windows, embed, publish under the write lock) and then the bare llama.cpp context on exactly the "
            "strings that round sent to the model.",
            "",
            "| round | texts | windows | drain texts/s | bare model texts/s | share |",
            "|---:|---:|---:|---:|---:|---:|",
        ]
        for i, (n, w, d, b) in enumerate(rows, 1):
            lines.append(f"| {i} | {n} | {w} | {d:.2f} | {b:.2f} | {d / b:.0%} |")
        lines += ["", f"Median share: **{ratio:.0%}** (target >= 85%)."]
        write_section("The background embedder's own cost", "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
