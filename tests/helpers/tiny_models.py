"""A second real embedding model for tests: a random-weight tiny BERT, made offline.

The folder is what sentence-transformers saves (``config.json``, ``vocab.txt``,
``model.safetensors``, ``modules.json``, ``1_Pooling/config.json``), so our
own converter (``hookgraph model convert``) turns it into a GGUF that
llama.cpp loads like any other BERT. Its vocabulary is all-MiniLM's, read
back from the shipped GGUF (word-initial ``▁x`` -> ``x``, continuation
``x`` -> ``##x``), so nothing is downloaded. The folder name becomes
``general.name`` and so picks the preset (``e5-small-...`` -> e5's
``query: ``/``passage: `` prefixes).
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np

from hookgraph.models import default_model_path

_WORD_PREFIX = "\u2581"


def minilm_vocab() -> list[str]:
    """all-MiniLM's ``vocab.txt`` lines, recovered from the shipped GGUF."""
    import gguf

    reader = gguf.GGUFReader(default_model_path())
    tokens = reader.fields["tokenizer.ggml.tokens"].contents()
    types = reader.fields["tokenizer.ggml.token_type"].contents()
    vocab = []
    for token, kind in zip(tokens, types):
        if kind == int(gguf.TokenType.CONTROL):
            vocab.append(token)
        elif token.startswith(_WORD_PREFIX):
            vocab.append(token[len(_WORD_PREFIX):])
        else:
            vocab.append("##" + token)
    return vocab


def _write_safetensors(path: Path, tensors: dict[str, np.ndarray]) -> None:
    header: dict[str, dict] = {}
    offset = 0
    blobs = []
    for name in sorted(tensors):
        data = np.ascontiguousarray(tensors[name], dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensors[name].shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(raw)))
        f.write(raw)
        for blob in blobs:
            f.write(blob)


def make_bert_folder(
    dest: Path,
    name: str = "e5-small-tiny-test",
    *,
    hidden: int = 64,
    layers: int = 2,
    heads: int = 4,
    ff: int = 128,
    positions: int = 128,
    seed: int = 0,
) -> Path:
    """A sentence-transformers folder ``dest/name`` holding a random tiny BERT (mean pooling)."""
    folder = Path(dest) / name
    (folder / "1_Pooling").mkdir(parents=True, exist_ok=True)
    vocab = minilm_vocab()
    rng = np.random.default_rng(seed)

    def w(*shape: int) -> np.ndarray:
        return rng.normal(0.0, 0.05, size=shape).astype(np.float32)

    t: dict[str, np.ndarray] = {
        "embeddings.word_embeddings.weight": w(len(vocab), hidden),
        "embeddings.position_embeddings.weight": w(positions, hidden),
        "embeddings.token_type_embeddings.weight": w(2, hidden),
        "embeddings.LayerNorm.weight": np.ones(hidden, np.float32),
        "embeddings.LayerNorm.bias": np.zeros(hidden, np.float32),
    }
    for i in range(layers):
        p = f"encoder.layer.{i}."
        for part in ("query", "key", "value"):
            t[p + f"attention.self.{part}.weight"] = w(hidden, hidden)
            t[p + f"attention.self.{part}.bias"] = w(hidden)
        t[p + "attention.output.dense.weight"] = w(hidden, hidden)
        t[p + "attention.output.dense.bias"] = w(hidden)
        t[p + "attention.output.LayerNorm.weight"] = np.ones(hidden, np.float32)
        t[p + "attention.output.LayerNorm.bias"] = np.zeros(hidden, np.float32)
        t[p + "intermediate.dense.weight"] = w(ff, hidden)
        t[p + "intermediate.dense.bias"] = w(ff)
        t[p + "output.dense.weight"] = w(hidden, ff)
        t[p + "output.dense.bias"] = w(hidden)
        t[p + "output.LayerNorm.weight"] = np.ones(hidden, np.float32)
        t[p + "output.LayerNorm.bias"] = np.zeros(hidden, np.float32)
    _write_safetensors(folder / "model.safetensors", t)
    (folder / "vocab.txt").write_text("".join(v + "\n" for v in vocab), encoding="utf-8")
    (folder / "config.json").write_text(json.dumps({
        "architectures": ["BertModel"],
        "model_type": "bert",
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "intermediate_size": ff,
        "max_position_embeddings": positions,
        "type_vocab_size": 2,
        "vocab_size": len(vocab),
        "layer_norm_eps": 1e-12,
        "hidden_act": "gelu",
    }), encoding="utf-8")
    (folder / "modules.json").write_text(json.dumps([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    ]), encoding="utf-8")
    (folder / "1_Pooling" / "config.json").write_text(json.dumps({
        "word_embedding_dimension": hidden, "pooling_mode_mean_tokens": True,
    }), encoding="utf-8")
    return folder


class TinyModels:
    """Two tiny GGUFs of the same shape and name but other weights (a same-dimension swap)."""

    def __init__(self, a: Path, b: Path) -> None:
        self.a = a
        self.b = b


def make_tiny_models(dest: Path) -> TinyModels:
    """``a``: made with the real ``hookgraph model convert`` CLI (q8_0); ``b``: seed 1, f16."""
    import subprocess
    import sys

    from hookgraph.models.convert import convert

    dest = Path(dest)
    folder_a = make_bert_folder(dest / "a", seed=0)
    a = dest / "e5-small-tiny-test.q8_0.gguf"
    proc = subprocess.run(
        [sys.executable, "-m", "hookgraph.cli", "model", "convert", str(folder_a), str(a), "--type", "q8_0"],
        capture_output=True, text=True,
    )
    assert proc.returncode == 0 and a.is_file(), proc.stderr
    assert proc.stdout.startswith(f"wrote {a} (q8_0"), proc.stdout
    folder_b = make_bert_folder(dest / "b", seed=1)
    b = convert(folder_b, dest / "e5-small-tiny-test-b.f16.gguf", "f16")
    return TinyModels(a, b)
