"""Train the static code embedding shipped in ``hookgraph/models/code-static/`` (torch, CPU).

    python -m training.train [--data DIR] [--out hookgraph/models/code-static]

1. **Words**: both sides of every pair of ``DIR/pairs.jsonl`` as :func:`hookgraph.embed.static.static_words`
   reads them at search time; the table keeps the ``VOCAB`` words found in the most pairs (at least
   ``MIN_PAIRS``).
2. **Start** (``distill``): each word's all-MiniLM-L6-v2 vector, the shipped GGUF run on the word alone
   (model2vec's distillation), reduced to ``DIMS`` by PCA: question words arrive knowing English.
3. **Train**: mean-pooled, normalised, symmetric in-batch contrastive loss (InfoNCE) between a
   description and its code; whole source packages are held out to measure recall@1 among
   ``EVAL_BATCH`` candidates, before and after.
4. **Ship**: int8 rows with a float32 scale each, as safetensors, and the vocabulary.

Deterministic for a given pairs file (fixed seeds, one thread order).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import lzma
import random
import struct
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from hookgraph.embed.static import static_words
from training.collect import DEFAULT_DATA

VOCAB = 50_000
MIN_PAIRS = 4
DIMS = 256
EPOCHS = 3  # the shipped table's (held-out recall@1 is flat after the second epoch: model card)
BATCH = 1024
TEMPERATURE = 0.05
LR = 0.02
EVAL_BATCH = 1000
HELD_OUT_SHARE = 0.03
SEED = 7
OUT = Path(__file__).resolve().parent.parent / "hookgraph" / "models" / "code-static"


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def load_pairs(path: Path) -> list[dict[str, str]]:
    """One pair a line; ``.xz`` files (what ``training.device`` packs for a GPU machine) read as they are."""
    with (lzma.open(path, "rt", encoding="utf-8") if path.suffix == ".xz" else open(path, encoding="utf-8")) as handle:
        return [json.loads(line) for line in handle]


def pairs_file(data: Path, name: str) -> Path:
    """``DATA/NAME``, or its packed ``NAME.xz`` where only that is there (a GPU machine's copy)."""
    plain = data / name
    packed = data / (name + ".xz")
    return packed if not plain.exists() and packed.exists() else plain


def build_vocab(tokenized: list[tuple[list[str], list[str]]]) -> list[str]:
    df: Counter[str] = Counter()
    for q, d in tokenized:
        df.update(set(q) | set(d))
    # Ties broken by the word, before the cut: the table's words depend on the pairs, not on their order.
    return sorted((w for w, n in df.items() if n >= MIN_PAIRS), key=lambda w: (-df[w], w))[:VOCAB]


def token_table_start(words: list[str], dims: int) -> np.ndarray:
    """Each word as the mean of its WordPiece rows in the shipped MiniLM's token table, PCA-reduced.

    The table is read from the GGUF (no model pass): instant, and the question's English words arrive
    near their synonyms. (:func:`distill` runs the model on each word instead: better-rounded vectors,
    at about 50 words a second here.)
    """
    from gguf import GGUFReader
    from gguf.quants import dequantize

    from hookgraph.models import default_model_path

    reader = GGUFReader(default_model_path())
    tensor = next(t for t in reader.tensors if t.name == "token_embd.weight")
    table = np.asarray(dequantize(tensor.data, tensor.tensor_type), dtype=np.float32).reshape(-1, 384)
    field = reader.fields["tokenizer.ggml.tokens"]
    pieces = [bytes(field.parts[i]).decode("utf-8") for i in field.data]
    initial = {p[1:]: i for i, p in enumerate(pieces) if p.startswith("\u2581")}
    following = {p: i for i, p in enumerate(pieces) if not p.startswith("\u2581")}
    vectors = np.zeros((len(words), 384), dtype=np.float32)
    for row, word in enumerate(words):
        ids: list[int] = []
        start = 0
        while start < len(word):
            lookup = initial if start == 0 else following
            end = len(word)
            while end > start and word[start:end] not in lookup:
                end -= 1
            if end == start:
                ids = []
                break
            ids.append(lookup[word[start:end]])
            start = end
        if ids:
            vectors[row] = table[ids].mean(axis=0)
    centred = vectors - vectors.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    reduced = centred @ vt[:dims].T
    reduced /= np.linalg.norm(reduced, axis=1).mean() or 1.0
    return reduced.astype(np.float32)


def distill(words: list[str], dims: int) -> np.ndarray:
    """Each word's MiniLM vector (the shipped GGUF), PCA-reduced to ``dims``, scaled to unit mean norm."""
    from hookgraph.embed import Embedder

    embedder = Embedder()
    vectors = np.zeros((len(words), 384), dtype=np.float32)
    start = time.monotonic()
    for i, word in enumerate(words):
        vectors[i] = np.asarray(embedder.embed_query(word), dtype=np.float32)
        if i and i % 5000 == 0:
            log(f"distilled {i} words ({i / (time.monotonic() - start):.0f}/s)")
    centred = vectors - vectors.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    reduced = centred @ vt[:dims].T
    reduced /= np.linalg.norm(reduced, axis=1).mean()
    return reduced.astype(np.float32)


def encode(tokens: list[str], index: dict[str, int]) -> list[int]:
    return [index[t] for t in tokens if t in index]


def contrastive_step(optimizer: Any, logits: Any) -> float:
    """One step of the symmetric in-batch loss: row i's right column is i, and column i's right row is i.

    ``logits`` are a batch's descriptions against its code, already divided by the temperature; returns the loss.
    """
    import torch

    target = torch.arange(logits.shape[0])
    loss = (torch.nn.functional.cross_entropy(logits, target)
            + torch.nn.functional.cross_entropy(logits.T, target)) / 2
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return float(loss.detach())


def train(pairs: list[dict[str, str]], init: np.ndarray | None, words: list[str], args: Any) -> np.ndarray:
    import torch

    torch.manual_seed(SEED)
    torch.set_num_threads(args.threads)
    index = {w: i for i, w in enumerate(words)}
    sources = sorted({p["src"] for p in pairs})
    rng = random.Random(SEED)
    held = set(rng.sample(sources, max(1, int(len(sources) * HELD_OUT_SHARE))))
    data = [(encode(static_words(p["q"]), index), encode(static_words(p["d"]), index), p["src"] in held)
            for p in pairs]
    data = [(q, d, h) for q, d, h in data if q and d]
    train_set = [(q, d) for q, d, h in data if not h]
    held_set = [(q, d) for q, d, h in data if h]
    log(f"{len(train_set)} training pairs, {len(held_set)} held out ({len(held)} sources: {sorted(held)[:8]}...)")
    emb = torch.nn.EmbeddingBag(len(words), args.dims, mode="mean", sparse=True)
    with torch.no_grad():
        if init is not None:
            emb.weight.copy_(torch.from_numpy(init))
        else:
            emb.weight.normal_(0, 0.1)

    def bag(seqs: list[list[int]]) -> tuple[Any, Any]:
        flat = torch.tensor([i for s in seqs for i in s], dtype=torch.long)
        offsets = torch.tensor(np.cumsum([0] + [len(s) for s in seqs[:-1]]), dtype=torch.long)
        return flat, offsets

    def vectors(seqs: list[list[int]]) -> Any:
        flat, offsets = bag(seqs)
        return torch.nn.functional.normalize(emb(flat, offsets), dim=1)

    def recall_at_1() -> float:
        hits = total = 0
        with torch.no_grad():
            for start in range(0, len(held_set) - EVAL_BATCH + 1, EVAL_BATCH):
                chunk = held_set[start:start + EVAL_BATCH]
                q = vectors([c[0] for c in chunk])
                d = vectors([c[1] for c in chunk])
                best = (q @ d.T).argmax(dim=1)
                hits += int((best == torch.arange(len(chunk))).sum())
                total += len(chunk)
        return hits / max(total, 1)

    log(f"held-out recall@1 among {EVAL_BATCH}: {recall_at_1():.3f} before training")
    optimizer = torch.optim.SparseAdam(emb.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        rng.shuffle(train_set)
        started = time.monotonic()
        losses = []
        for start in range(0, len(train_set) - args.batch + 1, args.batch):
            chunk = train_set[start:start + args.batch]
            q = vectors([c[0] for c in chunk])
            d = vectors([c[1] for c in chunk])
            losses.append(contrastive_step(optimizer, q @ d.T / TEMPERATURE))
        log(f"epoch {epoch + 1}: loss {np.mean(losses):.3f}, held-out recall@1 {recall_at_1():.3f} "
            f"({time.monotonic() - started:.0f} s)")
    return emb.weight.detach().numpy().astype(np.float32)


def write_model(table: np.ndarray, words: list[str], out: Path, metadata: dict[str, str]) -> None:
    """int8 rows with a float32 scale each, as safetensors; the vocabulary one word a line."""
    out.mkdir(parents=True, exist_ok=True)
    peak = np.abs(table).max(axis=1)
    peak[peak == 0] = 1.0
    scales = (peak / 127.0).astype(np.float32)
    values = np.clip(np.rint(table / scales[:, None]), -127, 127).astype(np.int8)
    emb_bytes, scale_bytes = values.tobytes(), scales.tobytes()
    header = {
        "__metadata__": metadata,
        "embeddings": {"dtype": "I8", "shape": list(values.shape), "data_offsets": [0, len(emb_bytes)]},
        "scales": {"dtype": "F32", "shape": [len(scales)],
                   "data_offsets": [len(emb_bytes), len(emb_bytes) + len(scale_bytes)]},
    }
    raw = json.dumps(header, separators=(",", ":"), sort_keys=True).encode()
    raw += b" " * (-len(raw) % 8)
    (out / "model.safetensors").write_bytes(struct.pack("<Q", len(raw)) + raw + emb_bytes + scale_bytes)
    (out / "vocab.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    blob = (out / "model.safetensors").read_bytes() + (out / "vocab.txt").read_bytes()
    (out / "model.sha256").write_text(hashlib.sha256(blob).hexdigest() + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--epochs", type=int, default=EPOCHS)
    ap.add_argument("--batch", type=int, default=BATCH)
    ap.add_argument("--lr", type=float, default=LR)
    ap.add_argument("--dims", type=int, default=DIMS)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--start", choices=("tokens", "distill", "random"), default="tokens",
                    help="MiniLM's token table (default), the model run on each word, or random vectors")
    ap.add_argument("--file-pairs", action="store_true",
                    help="train on DIR/file-pairs.jsonl too (files against what documents them; not the shipped table)")
    args = ap.parse_args(argv)
    pairs_path = args.data / "pairs.jsonl"
    pairs = load_pairs(pairs_path)
    if args.file_pairs:  # measured, not shipped (training/README.md): the pairs of files and what documents them
        pairs += load_pairs(args.data / "file-pairs.jsonl")
    log(f"{len(pairs)} pairs from {pairs_path}")
    tokenized = [(static_words(p["q"]), static_words(p["d"])) for p in pairs]
    words = build_vocab(tokenized)
    log(f"{len(words)} words in the table")
    init = None
    if args.start == "tokens":
        init = token_table_start(words, args.dims)
    elif args.start == "distill":
        cache = args.data / f"distilled-{hashlib.sha256(chr(10).join(words).encode()).hexdigest()[:12]}-{args.dims}.npy"
        if cache.exists():
            init = np.load(cache)
        else:
            init = distill(words, args.dims)
            np.save(cache, init)
    table = train(pairs, init, words, args)
    digest = hashlib.sha256(pairs_path.read_bytes()).hexdigest()
    metadata = {"format": "hookgraph-static-1", "pairs_sha256": digest, "dims": str(args.dims), "words": str(len(words))}
    if args.file_pairs:
        metadata["file_pairs_sha256"] = hashlib.sha256((args.data / "file-pairs.jsonl").read_bytes()).hexdigest()
    write_model(table, words, args.out, metadata)
    log(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
