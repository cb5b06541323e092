"""Fine-tune the shipped all-MiniLM-L6-v2 on the training pairs, on the CPU (torch + transformers).

    python -m training.finetune [--data DIR] [--steps 500] [--out FILE.gguf] [--device cuda]

The background model that gives every unit its full-quality vector was trained on English
sentence pairs; this teaches it the pairs ``training.collect`` makes from public code (a
definition's doc comment against its code, a name's words against its body):

1. **Start** from the GGUF hookgraph ships (``hookgraph/models/all-MiniLM-L6-v2.q8_0.gguf``),
   dequantised into a transformers ``BertModel``: the one file in the repository is the whole
   starting point, nothing is downloaded. The WordPiece vocabulary is read back from the GGUF
   (llama.cpp stores word-initial pieces with a U+2581 prefix and continuations bare).
2. **Train** mean-pooled, normalised vectors with a symmetric in-batch contrastive loss
   (sentence-transformers' MultipleNegativesRankingLoss: scale 20, ``BATCH`` pairs a step) for
   ``STEPS`` steps; the word-piece table stays frozen, so words the pairs never show keep their
   English meaning. The same whole source packages as ``training.train`` are held out, and
   recall@1 among 1,000 candidates on them is logged before and after.
3. **Write** a sentence-transformers folder and convert it with hookgraph's own converter
   (``hookgraph model convert``) to a q8_0 GGUF named so the MiniLM preset still matches.

Deterministic on one machine for a given pairs file (fixed seeds, two threads, a fixed step
count), so the step count, not the wall clock, decides how much is learnt. ``--device cuda`` runs
the same steps on a lent GPU in bfloat16 autocast (``training.device`` packs what such a machine,
which reaches no network, needs); ``--max-minutes`` then bounds a run to the machine's lease, and
the log says how many steps it made.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from training.collect import DEFAULT_DATA
from training.train import HELD_OUT_SHARE, SEED, contrastive_step, load_pairs, log, pairs_file

SOURCE = Path(__file__).resolve().parent.parent / "hookgraph" / "models" / "all-MiniLM-L6-v2.q8_0.gguf"
#: ``general.name`` of the result: still contains "all-minilm", so hookgraph's MiniLM preset
#: (no prefixes, a 256-token window) applies to it.
NAME = "all-MiniLM-L6-v2-code"
STEPS = 500  # about 50 minutes on this project's 2-core machine (6 s a step)
BATCH = 64
LR = 3e-5
WARMUP = 30
SCALE = 20.0  # sentence-transformers' MultipleNegativesRankingLoss default (temperature 0.05)
QUERY_TOKENS = 48
CODE_TOKENS = 128  # what MiniLM was trained on; hookgraph embeds up to 256
EVAL_PAIRS = 2000
EVAL_BATCH = 1000
#: The file pairs' held-out packages give a few hundred: their recall is read among this many.
FILE_EVAL_BATCH = 200
WORD_PREFIX = "\u2581"


def wordpiece_vocab(pieces: list[str], kinds: list[int]) -> list[str]:
    """The WordPiece vocabulary back from llama.cpp's form (``hookgraph.models.convert.phantom_vocab``'s inverse).

    llama.cpp stores a word-initial piece ``foo`` as ``\u2581foo`` and a continuation ``##bar`` as ``bar``;
    special tokens (type CONTROL) are kept verbatim.
    """
    import gguf

    control = int(gguf.TokenType.CONTROL)
    return [piece if kind == control else piece[1:] if piece.startswith(WORD_PREFIX) else "##" + piece
            for piece, kind in zip(pieces, kinds)]


def gguf_vocab(reader: Any) -> list[str]:
    """The WordPiece vocabulary of a GGUF reader's model."""
    tokens_field = reader.fields["tokenizer.ggml.tokens"]
    types_field = reader.fields["tokenizer.ggml.token_type"]
    pieces = [bytes(tokens_field.parts[i]).decode("utf-8") for i in tokens_field.data]
    kinds = [int(types_field.parts[i][0]) for i in types_field.data]
    return wordpiece_vocab(pieces, kinds)


def wordpiece_tokenizer(path: Path) -> Any:
    """The shipped model's WordPiece tokenizer (lower-casing, as MiniLM's), read from its GGUF."""
    import gguf
    from tokenizers import BertWordPieceTokenizer

    vocab = gguf_vocab(gguf.GGUFReader(str(path)))
    return BertWordPieceTokenizer({piece: i for i, piece in enumerate(vocab)}, lowercase=True)


def load_minilm(path: Path) -> tuple[Any, Any, list[str], Any]:
    """The GGUF's weights as a transformers BertModel, and its WordPiece tokenizer."""
    import gguf
    import torch
    from gguf.quants import dequantize
    from transformers import BertConfig, BertModel

    reader = gguf.GGUFReader(str(path))
    vocab = gguf_vocab(reader)

    def meta(key: str) -> int:
        field = reader.fields[key]
        return int(field.parts[field.data[0]][0])

    layers = meta("bert.block_count")
    config = BertConfig(vocab_size=len(vocab), hidden_size=meta("bert.embedding_length"),
                        num_hidden_layers=layers, num_attention_heads=meta("bert.attention.head_count"),
                        intermediate_size=meta("bert.feed_forward_length"),
                        max_position_embeddings=meta("bert.context_length"), type_vocab_size=2)
    model = BertModel(config, add_pooling_layer=False)
    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.BERT, layers)
    hf_name_of = {}
    for hf_name in model.state_dict():
        gguf_name = names.get_name(hf_name, try_suffixes=(".weight", ".bias"))
        if gguf_name:
            hf_name_of[gguf_name] = hf_name
    state = dict(model.state_dict())
    for tensor in reader.tensors:
        hf_name = hf_name_of[tensor.name]
        weights = dequantize(tensor.data, tensor.tensor_type).astype(np.float32)
        state[hf_name] = torch.from_numpy(weights.reshape(tuple(state[hf_name].shape)).copy())
    model.load_state_dict(state)
    return model, wordpiece_tokenizer(path), vocab, config


def embed(model: Any, tokenizer: Any, texts: list[str], max_tokens: int) -> Any:
    """Mean-pooled, normalised vectors, as llama.cpp computes them for the GGUF."""
    import torch

    device = next(model.parameters()).device
    tokenizer.enable_truncation(max_tokens)
    tokenizer.enable_padding()
    encoded = tokenizer.encode_batch(texts)
    ids = torch.tensor([e.ids for e in encoded], device=device)
    mask = torch.tensor([e.attention_mask for e in encoded], device=device)
    with torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda"):
        hidden = model(input_ids=ids, attention_mask=mask).last_hidden_state
    hidden = hidden.float()
    weights = mask.unsqueeze(-1).float()
    pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1)
    return torch.nn.functional.normalize(pooled, dim=1)


def recall_at_1(model: Any, tokenizer: Any, held: list[dict[str, str]], among: int = EVAL_BATCH) -> float:
    """Share of held-out descriptions whose own code is nearest among ``among`` candidates."""
    import torch

    model.eval()
    hits = total = 0
    with torch.no_grad():
        for start in range(0, min(len(held), EVAL_PAIRS) - among + 1, among):
            chunk = held[start:start + among]
            q = torch.cat([embed(model, tokenizer, [p["q"] for p in chunk[i:i + 100]], QUERY_TOKENS)
                           for i in range(0, len(chunk), 100)])
            d = torch.cat([embed(model, tokenizer, [p["d"] for p in chunk[i:i + 100]], CODE_TOKENS)
                           for i in range(0, len(chunk), 100)])
            hits += int(((q @ d.T).argmax(dim=1) == torch.arange(len(chunk), device=q.device)).sum())
            total += len(chunk)
    return hits / max(total, 1)


def take_round(items: list[dict[str, str]], start: int, count: int) -> list[dict[str, str]]:
    """``count`` items from ``start``, wrapping round the end: every step gets a full batch, and a laid-out
    list of steps stays aligned with them."""
    return [items[(start + i) % len(items)] for i in range(count)]


def lay_out_steps(pairs: list[dict[str, str]], files: list[dict[str, str]], steps: int, batch: int,
                  file_share: float) -> tuple[list[dict[str, str]], int]:
    """The pairs of ``steps`` batches in order, each with ``file_share`` of its ``batch`` from ``files``.

    Returns the list (which :func:`finetune` reads ``batch`` at a time) and how many file pairs a step takes:
    at least one, and at least one pair of the other kind.
    """
    part = max(1, min(batch - 1, round(batch * file_share)))
    rest = batch - part
    return [pair for step in range(steps)
            for pair in take_round(files, step * part, part) + take_round(pairs, step * rest, rest)], part


def finetune(model: Any, tokenizer: Any, train: list[dict[str, str]], steps: int, batch: int = BATCH,
             lr: float = LR, max_minutes: float | None = None) -> int:
    """Train ``steps`` steps of ``batch`` pairs (fewer if ``max_minutes`` runs out first); returns the steps made.

    Pairs are taken in order, wrapping round: ``train`` is already shuffled (or laid out step by step).
    """
    import torch

    model.embeddings.word_embeddings.weight.requires_grad_(False)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr, weight_decay=0.01)
    model.train()
    losses: list[float] = []
    started = time.monotonic()
    every = max(1, min(50, steps // 20))
    for step in range(steps):
        if max_minutes is not None and time.monotonic() - started > max_minutes * 60:
            log(f"stopped after {step} of {steps} steps: --max-minutes {max_minutes} ran out")
            return step
        chunk = take_round(train, step * batch, batch)
        for group in optimizer.param_groups:
            group["lr"] = lr * min(1.0, (step + 1) / WARMUP)
        q = embed(model, tokenizer, [p["q"] for p in chunk], QUERY_TOKENS)
        d = embed(model, tokenizer, [p["d"] for p in chunk], CODE_TOKENS)
        losses.append(contrastive_step(optimizer, q @ d.T * SCALE))
        if (step + 1) % every == 0:
            log(f"step {step + 1}/{steps}: loss {np.mean(losses[-every:]):.3f} ({time.monotonic() - started:.0f} s)")
    return steps


def write_folder(model: Any, vocab: list[str], config: Any, out: Path, half: bool = False) -> None:
    """A sentence-transformers folder (mean pooling) that ``hookgraph model convert`` reads.

    ``half`` stores the weights as float16 (half the bytes to send back from a GPU machine; the q8_0
    GGUF made from them keeps its float16 tensors exactly and rounds the rest further anyway).
    """
    import torch
    from safetensors.torch import save_file

    out.mkdir(parents=True, exist_ok=True)
    settings = config.to_dict()
    settings.update(architectures=["BertModel"], model_type="bert")
    (out / "config.json").write_text(json.dumps(settings, indent=1, sort_keys=True))
    dtype = torch.float16 if half else torch.float32
    save_file({k: v.detach().to(dtype).cpu().contiguous() for k, v in model.state_dict().items()},
              str(out / "model.safetensors"))
    (out / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    (out / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": True, "model_max_length": 256}))
    (out / "1_Pooling").mkdir(exist_ok=True)
    (out / "1_Pooling" / "config.json").write_text(
        json.dumps({"word_embedding_dimension": config.hidden_size, "pooling_mode_mean_tokens": True}))


def main(argv: list[str] | None = None) -> int:
    import torch

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--steps", type=int, default=STEPS)
    ap.add_argument("--out", type=Path, help=f"the GGUF to write (default DATA/{NAME}.q8_0.gguf)")
    ap.add_argument("--file-pairs", action="store_true",
                    help="part of every step from DATA/file-pairs.jsonl (files against what documents them)")
    ap.add_argument("--file-share", type=float, default=0.5,
                    help="with --file-pairs, the share of each step's pairs that are file pairs (default half)")
    ap.add_argument("--batch", type=int, default=BATCH, help=f"pairs a step (default {BATCH})")
    ap.add_argument("--lr", type=float, default=LR, help=f"peak learning rate (default {LR})")
    ap.add_argument("--device", default="cpu", help="cpu (default, two threads) or cuda (bfloat16 autocast)")
    ap.add_argument("--max-minutes", type=float, help="stop training after this long, whatever the step count")
    ap.add_argument("--folder-only", type=Path, metavar="DIR",
                    help="write the sentence-transformers folder (float16) to DIR/" + NAME + " and no GGUF "
                         "(a machine without llama.cpp; `training.device unpack` converts it)")
    args = ap.parse_args(argv)
    torch.manual_seed(SEED)
    if args.device == "cpu":
        torch.set_num_threads(2)
    elif not torch.cuda.is_available():
        raise SystemExit(f"--device {args.device}: torch {torch.__version__} sees no GPU here; run with --device cpu")
    pairs = load_pairs(pairs_file(args.data, "pairs.jsonl"))
    sources = sorted({p["src"] for p in pairs})
    held_sources = set(random.Random(SEED).sample(sources, max(1, int(len(sources) * HELD_OUT_SHARE))))
    train = [p for p in pairs if p["src"] not in held_sources]
    held = [p for p in pairs if p["src"] in held_sources]
    random.Random(SEED).shuffle(held)
    random.Random(SEED + 1).shuffle(train)
    log(f"{len(train)} training pairs, {len(held)} held out; {args.steps} steps of {args.batch} on {args.device}")
    model, tokenizer, vocab, config = load_minilm(SOURCE)
    model.to(args.device)
    held_files: list[dict[str, str]] = []
    if args.file_pairs:  # part of every step: a file against what documents it (training/README.md)
        files = load_pairs(pairs_file(args.data, "file-pairs.jsonl"))
        held_files = [p for p in files if p["src"] in held_sources]
        train_files = [p for p in files if p["src"] not in held_sources]
        random.Random(SEED + 2).shuffle(train_files)
        train, part = lay_out_steps(train, train_files, args.steps, args.batch, args.file_share)
        log(f"{len(train_files)} file pairs to train on, {len(held_files)} held out; {part} of each step's {args.batch}")

    def report(when: str) -> None:
        log(f"held-out recall@1 among {EVAL_BATCH}: {recall_at_1(model, tokenizer, held):.3f} {when}")
        if len(held_files) >= FILE_EVAL_BATCH:
            log(f"held-out file pairs, recall@1 among {FILE_EVAL_BATCH}: "
                f"{recall_at_1(model, tokenizer, held_files, FILE_EVAL_BATCH):.3f} {when}")

    report("before")
    made = finetune(model, tokenizer, train, args.steps, args.batch, args.lr, args.max_minutes)
    report(f"after {made} steps of {args.batch}")
    if args.folder_only:
        write_folder(model, vocab, config, args.folder_only / NAME, half=True)
        log(f"wrote {args.folder_only / NAME}")
        return 0
    out = args.out or args.data / f"{NAME}.q8_0.gguf"
    folder = out.parent / NAME  # the sentence-transformers folder, beside the GGUF made from it
    write_folder(model, vocab, config, folder)
    from hookgraph.models.convert import convert

    convert(folder, out, "q8_0", name=NAME)
    log(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
