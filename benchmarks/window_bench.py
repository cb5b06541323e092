"""Embedding windows of 128 tokens against 256: model throughput on the same texts (issue 12, point 9).

    python benchmarks/window_bench.py [--project flask-3.0.3 ...] [--sample 300] [--rounds 3] [--no-write]

all-MiniLM-L6-v2 was trained on 128-token inputs; hookgraph cuts documents
into windows of 256. A shorter window is cheaper per window, but a long unit
then needs more windows (up to ``MAX_WINDOWS``), so the texts-per-second gain
is measured, not assumed. For each project (an unpacked eval source under
``~/.cache/hookgraph-eval/src``, put in a temporary git repository), the
texts a first index queues are the input: ``--sample`` of them at random, each
cut into windows as the embedder would at each size, embedded with the bare
llama.cpp context, the two sizes alternating for ``--rounds`` rounds (median).
Quality is the other half of the question: ``python -m eval.run --max-tokens
128`` (eval/RESULTS.md).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import PYTHON, REPO, load, machine, machine_line, write_section  # noqa: E402

SOURCES = Path.home() / ".cache" / "hookgraph-eval" / "src"
DEFAULT_PROJECTS = ["flask-3.0.3", "axios-1.7.7", "cobra-1.6.1-1"]


def queued_texts(source: Path) -> list[str]:
    """The composed texts a first index of ``source`` queues for the model (nothing embedded)."""
    from hookgraph.store import Store, db_path

    with tempfile.TemporaryDirectory(prefix="hg-window-") as tmp:
        root = Path(tmp) / "repo"
        shutil.copytree(source, root, symlinks=True, ignore=shutil.ignore_patterns(".git", ".hookgraph"))
        env = {**os.environ, "HOOKGRAPH_NO_BACKGROUND": "1", "HOOKGRAPH_CACHE_MB": "0"}
        for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "src"]):
            subprocess.run(["git", *args], cwd=root, check=True, env=env)
        subprocess.run([PYTHON, "-m", "hookgraph.cli", "index", "--no-wait"], cwd=root, check=True, env=env,
                       stdout=subprocess.DEVNULL)
        with Store(db_path(root), readonly=True) as store:
            return [str(r[0]) for r in store.db.execute("SELECT text FROM pending")]


def prepared(texts: list[str], max_tokens: int) -> list[list[str]]:
    """Each text as the strings the embedder sends at this window size (document prefix, every window)."""
    from hookgraph.embed import Embedder

    embedder = Embedder(max_tokens=max_tokens)
    out = [[embedder.document_prefix + w for w in embedder.windows(t)[0]] for t in texts]
    embedder.close()
    return out


def rate(model: object, texts: list[list[str]]) -> float:
    """Texts per second of the bare model over every window of each text."""
    embed = model.embed  # type: ignore[attr-defined]
    started = time.perf_counter()
    for windows in texts:
        for window in windows:
            embed(window)
    return len(texts) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", action="append", help="an unpacked source under ~/.cache/hookgraph-eval/src")
    parser.add_argument("--sample", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    from hookgraph.embed import Embedder

    load_before = load()
    model = Embedder()._model()  # one context with the largest window; a shorter string costs less
    rows = []
    for name in args.project or DEFAULT_PROJECTS:
        texts = queued_texts(SOURCES / name)
        sample = random.Random(args.seed).sample(texts, min(args.sample, len(texts)))
        at = {size: prepared(sample, size) for size in (256, 128)}
        rates: dict[int, list[float]] = {256: [], 128: []}
        rate(model, at[256][:5])  # warm up
        for _ in range(args.rounds):
            for size in (256, 128):
                rates[size].append(rate(model, at[size]))
        r256, r128 = statistics.median(rates[256]), statistics.median(rates[128])
        windows = {size: sum(map(len, at[size])) / len(sample) for size in at}
        rows.append((name, len(texts), len(sample), r256, r128, windows[256], windows[128]))
        print(f"{name}: {r256:.1f} -> {r128:.1f} texts/s (x{r128 / r256:.2f}); windows/text "
              f"{windows[256]:.2f} -> {windows[128]:.2f}", flush=True)
    if not args.no_write:
        lines = [
            "## Embedding window: 128 against 256 tokens",
            "",
            f"`python benchmarks/window_bench.py --sample {args.sample} --rounds {args.rounds}`, "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. {machine_line(machine(), load_before)} "
            "Bare llama.cpp context, the two sizes alternating, medians of the rounds; the texts are what a "
            "first index of the project queues.",
            "",
            "| project | texts queued | sampled | texts/s at 256 | at 128 | ratio | windows per text 256 / 128 |",
            "|---|---:|---:|---:|---:|---:|---|",
        ]
        for name, n, k, r256, r128, w256, w128 in rows:
            lines.append(f"| {name} | {n:,} | {k} | {r256:.1f} | {r128:.1f} | x{r128 / r256:.2f} | {w256:.2f} / {w128:.2f} |")
        write_section("Embedding window: 128 against 256 tokens", "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
