"""Several texts per llama.cpp call against one text per call, on real queued texts (issue 32 item 5).

    python benchmarks/batch_bench.py [--db PENDING.db ...] [--texts 200] [--sizes 1,2,4,8] [--rounds 3] [--no-write]

hookgraph's embedder decodes one window per ``llama_decode`` call (a batch of one sequence;
llama-cpp-python's ``embed()`` of a list shares one KV cache and was slower, DESIGN.md section 6).
The low-level API can put several sequences into one batch, each with its own sequence id, and
read each sequence's pooled vector (``llama_get_embeddings_seq``): fewer calls, bigger matrix
products, but attention over the whole batch's tokens (masked per sequence). This measures it:
the model as hookgraph loads it (flash attention, the window of 128 tokens as context) against a
context of ``size`` windows holding ``size`` sequences, on the same strings (the windows, prefix
included, of queued texts from first indexes of the file-level benchmark, read from eval/'s
filebench indexes), the variants alternating for ``--rounds`` rounds (median), threads fixed to
the count hookgraph would pick now. Vectors must agree with one-per-call to cosine >= 0.9999.
"""

from __future__ import annotations

import argparse
import glob
import random
import sqlite3
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import load, machine, machine_line, write_section  # noqa: E402

DEFAULT_DBS = sorted(glob.glob(str(Path.home() / ".cache/hookgraph-eval/filebench/*-6dd23fa2d2ab649a-pending.db")))


class BatchedModel:
    """The shipped model with a context of ``size`` windows and ``size`` sequences per decode."""

    def __init__(self, path: str, window: int, size: int, threads: int) -> None:
        from hookgraph.llama.lite import EmbeddingModel, bindings

        low = bindings()
        self.low = low
        self.size = size
        self.window = window
        self.model = EmbeddingModel(path, n_ctx=window * size, n_threads=threads)
        # the single-sequence batch EmbeddingModel made holds n_ctx tokens for n_seq_max sequences: enough
        self.n_embd = self.model.n_embd

    def embed_many(self, texts: list[str]) -> list[list[float]]:
        m, low = self.model, self.low
        out: list[list[float]] = []
        for start in range(0, len(texts), self.size):
            group = texts[start:start + self.size]
            batch = m._batch
            k = 0
            for seq, text in enumerate(group):
                tokens = m.tokenize(text.encode("utf-8"), True, False)
                assert len(tokens) <= self.window
                for i, token in enumerate(tokens):
                    batch.token[k] = token
                    batch.pos[k] = i
                    batch.seq_id[k][0] = seq
                    batch.n_seq_id[k] = 1
                    batch.logits[k] = True
                    k += 1
            batch.n_tokens = k
            m._clear_memory()
            try:
                if low.llama_decode(m._ctx, batch) != 0:
                    raise RuntimeError("llama_decode failed")
                for seq in range(len(group)):
                    ptr = low.llama_get_embeddings_seq(m._ctx, seq)
                    out.append(list(ptr[: self.n_embd]))
            finally:
                batch.n_tokens = 0
                m._clear_memory()
        return out


def windows_of(dbs: list[str], count: int, seed: int = 7) -> list[str]:
    """``count`` model inputs (prefix + window) cut from queued texts of these indexes, at random."""
    from hookgraph.embed import Embedder

    embedder = Embedder()
    texts = []
    for db in dbs:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            texts.extend(t for (t,) in conn.execute("SELECT text FROM pending"))
    random.Random(seed).shuffle(texts)
    out: list[str] = []
    for text in texts:
        wins, _cut, _counts = embedder.windows(text)
        out.extend(embedder.document_prefix + w for w in wins)
        if len(out) >= count:
            break
    return out[:count]


def cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b))
    na = sum(x * x for x in a) ** 0.5
    nb = sum(y * y for y in b) ** 0.5
    return dot / (na * nb)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", nargs="*", default=DEFAULT_DBS)
    parser.add_argument("--texts", type=int, default=200)
    parser.add_argument("--sizes", default="1,2,4,8")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    from hookgraph.embed import Embedder
    from hookgraph.embed.cores import cpu_count, threads_now

    if not args.db:
        raise SystemExit("error: no filebench index found; run python -m eval.filebench first or pass --db")
    load_before = load()
    embedder = Embedder()
    window = embedder.max_tokens
    threads = threads_now(cpu_count())
    inputs = windows_of(args.db, args.texts)
    tokens = sum(len(embedder.tokenize(t)) for t in inputs)
    sizes = [int(s) for s in args.sizes.split(",")]
    models: dict[int, Any] = {s: BatchedModel(str(embedder.model_path), window, s, threads) for s in sizes}
    reference = models[1].embed_many(inputs) if 1 in models else None
    times: dict[int, list[float]] = {s: [] for s in sizes}
    agree: dict[int, float] = {}
    for _ in range(args.rounds):
        for s in sizes:
            t0 = time.perf_counter()
            vectors = models[s].embed_many(inputs)
            times[s].append(time.perf_counter() - t0)
            if reference is not None:
                agree[s] = min(cosine(a, b) for a, b in zip(reference, vectors))
    m = machine()
    rows = [f"| {s} | {len(inputs) / statistics.median(times[s]):.1f} | "
            f"{statistics.median(times[1]) / statistics.median(times[s]) if 1 in times else float('nan'):.2f} | "
            f"{agree.get(s, float('nan')):.6f} |" for s in sizes]
    section = (
        "## Several texts per llama.cpp call\n\n"
        f"`python benchmarks/batch_bench.py --texts {args.texts} --sizes {args.sizes} --rounds {args.rounds}`, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. {machine_line(m, load())} (load before: "
        f"{load_before}). {len(inputs)} model inputs (prefix + window, {tokens / len(inputs):.0f} tokens on "
        f"average) from queued texts of the file-level benchmark's first indexes, {threads} threads, flash "
        "attention; one `llama_decode` per group of sequences; median of the rounds.\n\n"
        "| sequences per call | windows/s | speed-up over one per call | lowest cosine to one per call |\n"
        "|---:|---:|---:|---:|\n" + "\n".join(rows) + "\n"
    )
    if not args.no_write:
        write_section("Several texts per llama.cpp call", section)
    print(section)


if __name__ == "__main__":
    main()
