"""Fine-tune the shipped all-MiniLM-L6-v2 on the training pairs, on the CPU (torch + transformers).

    python -m training.finetune [--data DIR] [--steps 500] [--out FILE.gguf]

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
count), so the step count, not the wall clock, decides how much is learnt.
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
from training.train import HELD_OUT_SHARE, SEED, contrastive_step, load_pairs, log

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


def load_minilm(path: Path) -> tuple[Any, Any, list[str], Any]:
    """The GGUF's weights as a transformers BertModel, and its WordPiece tokenizer."""
    import gguf
    import torch
    from gguf.quants import dequantize
    from tokenizers import BertWordPieceTokenizer
    from transformers import BertConfig, BertModel

    reader = gguf.GGUFReader(str(path))
    tokens_field = reader.fields["tokenizer.ggml.tokens"]
    types_field = reader.fields["tokenizer.ggml.token_type"]
    pieces = [bytes(tokens_field.parts[i]).decode("utf-8") for i in tokens_field.data]
    kinds = [int(types_field.parts[i][0]) for i in types_field.data]
    vocab = wordpiece_vocab(pieces, kinds)

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
    tokenizer = BertWordPieceTokenizer({piece: i for i, piece in enumerate(vocab)}, lowercase=True)
    return model, tokenizer, vocab, config


def embed(model: Any, tokenizer: Any, texts: list[str], max_tokens: int) -> Any:
    """Mean-pooled, normalised vectors, as llama.cpp computes them for the GGUF."""
    import torch

    tokenizer.enable_truncation(max_tokens)
    tokenizer.enable_padding()
    encoded = tokenizer.encode_batch(texts)
    ids = torch.tensor([e.ids for e in encoded])
    mask = torch.tensor([e.attention_mask for e in encoded])
    hidden = model(input_ids=ids, attention_mask=mask).last_hidden_state
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
            hits += int(((q @ d.T).argmax(dim=1) == torch.arange(len(chunk))).sum())
            total += len(chunk)
    return hits / max(total, 1)


def finetune(model: Any, tokenizer: Any, train: list[dict[str, str]], steps: int) -> None:
    import torch

    model.embeddings.word_embeddings.weight.requires_grad_(False)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=LR, weight_decay=0.01)
    model.train()
    losses: list[float] = []
    started = time.monotonic()
    for step in range(steps):
        chunk = train[(step * BATCH) % len(train):][:BATCH]
        for group in optimizer.param_groups:
            group["lr"] = LR * min(1.0, (step + 1) / WARMUP)
        q = embed(model, tokenizer, [p["q"] for p in chunk], QUERY_TOKENS)
        d = embed(model, tokenizer, [p["d"] for p in chunk], CODE_TOKENS)
        losses.append(contrastive_step(optimizer, q @ d.T * SCALE))
        if (step + 1) % 50 == 0:
            log(f"step {step + 1}/{steps}: loss {np.mean(losses[-50:]):.3f} ({time.monotonic() - started:.0f} s)")


def write_folder(model: Any, vocab: list[str], config: Any, out: Path) -> None:
    """A sentence-transformers folder (mean pooling) that ``hookgraph model convert`` reads."""
    from safetensors.torch import save_file

    out.mkdir(parents=True, exist_ok=True)
    settings = config.to_dict()
    settings.update(architectures=["BertModel"], model_type="bert")
    (out / "config.json").write_text(json.dumps(settings, indent=1, sort_keys=True))
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, str(out / "model.safetensors"))
    (out / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    (out / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": True, "model_max_length": 256}))
    (out / "1_Pooling").mkdir(exist_ok=True)
    (out / "1_Pooling" / "config.json").write_text(
        json.dumps({"word_embedding_dimension": config.hidden_size, "pooling_mode_mean_tokens": True}))


def main(argv: list[str] | None = None) -> int:
    import torch

    from hookgraph.models.convert import convert

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--steps", type=int, default=STEPS)
    ap.add_argument("--out", type=Path, help=f"the GGUF to write (default DATA/{NAME}.q8_0.gguf)")
    ap.add_argument("--file-pairs", action="store_true",
                    help="half of every step from DATA/file-pairs.jsonl (files against what documents them)")
    args = ap.parse_args(argv)
    torch.manual_seed(SEED)
    torch.set_num_threads(2)
    pairs = load_pairs(args.data / "pairs.jsonl")
    sources = sorted({p["src"] for p in pairs})
    held_sources = set(random.Random(SEED).sample(sources, max(1, int(len(sources) * HELD_OUT_SHARE))))
    train = [p for p in pairs if p["src"] not in held_sources]
    held = [p for p in pairs if p["src"] in held_sources]
    random.Random(SEED).shuffle(held)
    random.Random(SEED + 1).shuffle(train)
    log(f"{len(train)} training pairs, {len(held)} held out; {args.steps} steps of {BATCH}")
    model, tokenizer, vocab, config = load_minilm(SOURCE)
    held_files: list[dict[str, str]] = []
    if args.file_pairs:  # half of every step: a file against what documents it (training/README.md)
        files = load_pairs(args.data / "file-pairs.jsonl")
        held_files = [p for p in files if p["src"] in held_sources]
        train_files = [p for p in files if p["src"] not in held_sources]
        random.Random(SEED + 2).shuffle(train_files)
        half = BATCH // 2
        train = [pair for step in range(args.steps)
                 for pair in (train_files[(step * half) % len(train_files):][:half]
                              + train[(step * half) % len(train):][:half])]
        log(f"{len(train_files)} file pairs to train on, {len(held_files)} held out; half of each step")

    def report(when: str) -> None:
        log(f"held-out recall@1 among {EVAL_BATCH}: {recall_at_1(model, tokenizer, held):.3f} {when}")
        if len(held_files) >= FILE_EVAL_BATCH:
            log(f"held-out file pairs, recall@1 among {FILE_EVAL_BATCH}: "
                f"{recall_at_1(model, tokenizer, held_files, FILE_EVAL_BATCH):.3f} {when}")

    report("before")
    finetune(model, tokenizer, train, args.steps)
    report("after")
    out = args.out or args.data / f"{NAME}.q8_0.gguf"
    folder = out.parent / NAME  # the sentence-transformers folder, beside the GGUF made from it
    write_folder(model, vocab, config, folder)
    convert(folder, out, "q8_0", name=NAME)
    log(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
