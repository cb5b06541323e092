"""BERT-family sentence-transformers folder -> GGUF, with numpy and ``gguf`` only.

Why our own converter: llama.cpp's ``convert_hf_to_gguf.py`` needs torch and
transformers (gigabytes) and the ``gguf`` package ships no converter command.
A BERT encoder is simple enough to convert from the raw safetensors bytes.

Every fact below was checked against llama-cpp-python 0.3.36 (DESIGN.md
section 6); getting one wrong gives a model that loads but tokenises or pools
wrongly, which only the reference-vector tests catch:

* vocabulary in ``vocab.txt`` order; llama.cpp's WordPiece wants word-initial
  pieces prefixed with U+2581 and continuation pieces without their ``##``;
  the special tokens stay as written and are CONTROL tokens;
* tensors keep their HF layout (the writer reverses dimension order); 2-D
  matrices f16 except the position and token-type embeddings (f32), 1-D f32;
* pooling comes from the sentence-transformers ``Pooling`` module config.

The output is deterministic: no timestamps, no absolute paths, tensors in a
fixed order, so the same folder always gives the same bytes (the shipped model
can be rebuilt and checked byte for byte).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import struct
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from hookgraph.errors import HookgraphError

if TYPE_CHECKING:  # numpy and gguf load inside the functions: importing this module stays cheap
    import numpy as np

#: Output types we write. q8_0 is made by llama.cpp's own quantiser.
OUT_TYPES = ("f32", "f16", "q8_0")

#: HF ``architectures`` entries whose weights are a plain BERT encoder.
BERT_ARCHITECTURES = frozenset({"BertModel", "BertForMaskedLM", "BertForPreTraining"})

#: Tokens llama.cpp must treat as control tokens (never produced from text).
SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")

_WORD_PREFIX = "\u2581"  # "▁", the phantom space llama.cpp's WordPiece matches on

#: safetensors dtype -> numpy dtype string (data is little-endian).
_SAFETENSORS_DTYPES: dict[str, str] = {
    "F64": "<f8",
    "F32": "<f4",
    "F16": "<f2",
    "BF16": "<u2",  # widened to f32 by hand below
    "I64": "<i8",
    "I32": "<i4",
    "I16": "<i2",
    "I8": "i1",
    "U8": "u1",
    "BOOL": "?",
}


class ConversionError(HookgraphError):
    """A folder we cannot convert; the message is one line, fit for a user."""


@dataclass(frozen=True)
class BertConfig:
    """The hyper-parameters the GGUF needs, read from ``config.json``."""

    n_ctx: int
    n_embd: int
    n_ff: int
    n_layer: int
    n_head: int
    norm_eps: float
    vocab_size: int
    type_vocab_size: int


# --------------------------------------------------------------------------
# reading the folder


def _read_json(path: Path, model_dir: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConversionError(f"{model_dir}: missing {path.name}") from None
    except (OSError, ValueError) as exc:
        raise ConversionError(f"{model_dir}: cannot read {path.name}: {exc}") from None
    if not isinstance(data, dict):
        raise ConversionError(f"{model_dir}: {path.name} is not a JSON object")
    return data


def read_config(model_dir: Path) -> BertConfig:
    """Check the folder holds a plain BERT encoder and return its shape.

    Anything else (RoBERTa, XLM-R, nomic-bert, decoder models) needs other
    vocabulary or tensor handling, so it is refused rather than converted
    into a file that loads and then embeds nonsense.
    """
    cfg = _read_json(model_dir / "config.json", model_dir)
    archs = cfg.get("architectures") or []
    model_type = cfg.get("model_type")
    if model_type != "bert" or (archs and not set(archs) <= BERT_ARCHITECTURES):
        what = ", ".join(archs) if archs else f"model_type {model_type!r}"
        raise ConversionError(
            f"{model_dir}: unsupported architecture {what}; only BERT models "
            f"(model_type 'bert', e.g. all-MiniLM, bge-small) can be converted"
        )
    if cfg.get("position_embedding_type", "absolute") != "absolute":
        raise ConversionError(
            f"{model_dir}: unsupported position_embedding_type "
            f"{cfg['position_embedding_type']!r}; only 'absolute' BERT models can be converted"
        )
    try:
        return BertConfig(
            n_ctx=int(cfg["max_position_embeddings"]),
            n_embd=int(cfg["hidden_size"]),
            n_ff=int(cfg["intermediate_size"]),
            n_layer=int(cfg["num_hidden_layers"]),
            n_head=int(cfg["num_attention_heads"]),
            norm_eps=float(cfg.get("layer_norm_eps", 1e-12)),
            vocab_size=int(cfg["vocab_size"]),
            type_vocab_size=int(cfg.get("type_vocab_size", 2)),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ConversionError(f"{model_dir}: config.json lacks or mangles {exc}") from None


def read_pooling(model_dir: Path) -> int:
    """Pooling type (``gguf.PoolingType``) from the sentence-transformers config.

    sentence-transformers keeps it in the ``Pooling`` module's folder (usually
    ``1_Pooling/config.json``), named in ``modules.json``. A bare HF BERT has
    no pooling config; mean pooling is what sentence-transformers would use.
    """
    import gguf

    pooling_dir = model_dir / "1_Pooling"
    modules = model_dir / "modules.json"
    if modules.is_file():
        try:
            entries = json.loads(modules.read_text(encoding="utf-8"))
            for entry in entries:
                if entry.get("type", "").endswith("models.Pooling"):
                    pooling_dir = model_dir / entry.get("path", "1_Pooling")
                    break
        except (OSError, ValueError, AttributeError):
            raise ConversionError(f"{model_dir}: cannot read modules.json") from None
    cfg_path = pooling_dir / "config.json"
    if not cfg_path.is_file():
        return int(gguf.PoolingType.MEAN)
    cfg = _read_json(cfg_path, model_dir)
    if cfg.get("pooling_mode_mean_tokens"):
        return int(gguf.PoolingType.MEAN)
    if cfg.get("pooling_mode_cls_token"):
        return int(gguf.PoolingType.CLS)
    if cfg.get("pooling_mode_lasttoken"):
        return int(gguf.PoolingType.LAST)
    raise ConversionError(
        f"{model_dir}: unsupported pooling in {cfg_path.relative_to(model_dir)}; "
        f"llama.cpp supports mean, cls and last-token pooling"
    )


def read_vocab(model_dir: Path) -> list[str]:
    """WordPiece vocabulary in id order, from ``vocab.txt`` or ``tokenizer.json``.

    ``vocab.txt`` is read the way HF's BertTokenizer reads it (text-mode
    lines, trailing newline stripped) so ids line up with the embedding rows.
    """
    vocab_txt = model_dir / "vocab.txt"
    if vocab_txt.is_file():
        with open(vocab_txt, encoding="utf-8") as f:
            return [line.rstrip("\n") for line in f]
    tok_json = model_dir / "tokenizer.json"
    if tok_json.is_file():
        model = _read_json(tok_json, model_dir).get("model", {})
        if model.get("type") == "WordPiece" and isinstance(model.get("vocab"), dict):
            by_id = sorted(model["vocab"].items(), key=lambda kv: kv[1])
            if [i for _, i in by_id] != list(range(len(by_id))):
                raise ConversionError(f"{model_dir}: tokenizer.json vocabulary ids are not 0..n-1")
            return [t for t, _ in by_id]
    raise ConversionError(f"{model_dir}: no WordPiece vocabulary (vocab.txt or tokenizer.json)")


def special_tokens(model_dir: Path) -> set[str]:
    """The five BERT specials plus any token tokenizer.json marks special."""
    found = set(SPECIAL_TOKENS)
    tok_json = model_dir / "tokenizer.json"
    if tok_json.is_file():
        for added in _read_json(tok_json, model_dir).get("added_tokens", []):
            if added.get("special") and isinstance(added.get("content"), str):
                found.add(added["content"])
    return found


def phantom_vocab(vocab: list[str], specials: set[str]) -> tuple[list[str], list[int]]:
    """Rewrite WordPiece pieces the way llama.cpp's WPM tokenizer matches them.

    llama.cpp splits text into words, prefixes each word with U+2581 and then
    does greedy longest match over the token strings, so a word-initial piece
    ``foo`` must be stored as ``▁foo`` and a continuation ``##bar`` as ``bar``.
    Special tokens are kept verbatim and marked CONTROL so text never
    produces them.
    """
    import gguf

    tokens: list[str] = []
    types: list[int] = []
    for piece in vocab:
        if piece in specials:
            tokens.append(piece)
            types.append(int(gguf.TokenType.CONTROL))
        elif piece.startswith("##") and len(piece) > 2:
            tokens.append(piece[2:])
            types.append(int(gguf.TokenType.NORMAL))
        else:
            tokens.append(_WORD_PREFIX + piece)
            types.append(int(gguf.TokenType.NORMAL))
    return tokens, types


def _safetensors_files(model_dir: Path) -> list[Path]:
    single = model_dir / "model.safetensors"
    if single.is_file():
        return [single]
    index = model_dir / "model.safetensors.index.json"
    if index.is_file():
        weight_map = _read_json(index, model_dir).get("weight_map", {})
        return [model_dir / name for name in sorted(set(weight_map.values()))]
    if (model_dir / "pytorch_model.bin").is_file():
        raise ConversionError(
            f"{model_dir}: only pytorch_model.bin found; converting it needs torch, "
            f"use a folder with model.safetensors"
        )
    raise ConversionError(f"{model_dir}: no model.safetensors")


def read_safetensors(path: Path) -> Iterator[tuple[str, np.ndarray]]:
    """Yield ``(name, array)`` from a safetensors file, memory-mapped, numpy only.

    The format is an 8-byte little-endian header length, a JSON header
    ``{name: {dtype, shape, data_offsets}}`` and the raw little-endian data.
    """
    import numpy as np

    try:
        with open(path, "rb") as f:
            (header_len,) = struct.unpack("<Q", f.read(8))
            header = json.loads(f.read(header_len))
        raw = np.memmap(path, dtype=np.uint8, mode="r")
    except (OSError, ValueError, struct.error) as exc:
        raise ConversionError(f"{path}: not a readable safetensors file: {exc}") from None
    base = 8 + header_len
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = _SAFETENSORS_DTYPES.get(info.get("dtype"))
        if dtype is None:
            raise ConversionError(f"{path}: tensor {name} has unsupported dtype {info.get('dtype')}")
        begin, end = info["data_offsets"]
        arr = raw[base + begin : base + end].view(dtype).reshape(info["shape"])
        if info["dtype"] == "BF16":
            arr = (arr.astype(np.uint32) << 16).view(np.float32)
        yield name, arr


# --------------------------------------------------------------------------
# tensors


def _hf_name(name: str) -> str | None:
    """Normalise an HF tensor name; ``None`` for tensors an encoder never uses."""
    if name.startswith("bert."):
        name = name[len("bert.") :]
    if name.endswith(".gamma"):  # very old checkpoints
        name = name[: -len(".gamma")] + ".weight"
    elif name.endswith(".beta"):
        name = name[: -len(".beta")] + ".bias"
    if name == "embeddings.position_ids" or name.startswith(("pooler.", "cls.")):
        return None
    return name


def collect_tensors(model_dir: Path, cfg: BertConfig, out_type: str) -> list[tuple[str, np.ndarray]]:
    """Map every weight to its GGUF name and storage type, in a fixed order."""
    import gguf
    import numpy as np

    tmap = gguf.get_tensor_name_map(gguf.MODEL_ARCH.BERT, cfg.n_layer)
    f32_only = {
        gguf.TENSOR_NAMES[gguf.MODEL_TENSOR.POS_EMBD] + ".weight",
        gguf.TENSOR_NAMES[gguf.MODEL_TENSOR.TOKEN_TYPES] + ".weight",
    }
    out: dict[str, np.ndarray] = {}
    for path in _safetensors_files(model_dir):
        for hf_name, arr in read_safetensors(path):
            name = _hf_name(hf_name)
            if name is None:
                continue
            new_name = tmap.get_name(name, try_suffixes=(".weight", ".bias"))
            if new_name is None:
                raise ConversionError(f"{model_dir}: unexpected tensor {hf_name}; not a plain BERT encoder")
            if new_name in out:
                raise ConversionError(f"{model_dir}: tensor {new_name} appears twice")
            if out_type == "f16" and arr.ndim == 2 and new_name not in f32_only:
                data = np.ascontiguousarray(arr, dtype=np.float16)
            else:
                data = np.ascontiguousarray(arr, dtype=np.float32)
            out[new_name] = data
    if not out:
        raise ConversionError(f"{model_dir}: no tensors found")

    def order(name: str) -> tuple[int, str]:
        parts = name.split(".")
        return (int(parts[1]) + 1 if parts[0] == "blk" else 0, name)

    return [(name, out[name]) for name in sorted(out, key=order)]


# --------------------------------------------------------------------------
# writing


def model_name_for(model_dir: Path) -> str:
    """A short name for ``general.name`` that presets can recognise.

    ``org__name`` folders (as pip wheels and some caches store them) and HF
    cache snapshots (``models--org--name/snapshots/<sha>``) give ``name``.
    """
    name = model_dir.name
    parts = model_dir.parts
    if len(parts) >= 3 and parts[-2] == "snapshots" and parts[-3].startswith("models--"):
        name = parts[-3].split("--")[-1]
    return name.split("__")[-1] or "model"


@contextlib.contextmanager
def _gguf_quiet() -> Iterator[None]:
    log = logging.getLogger("gguf")
    old = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(old)


def write_gguf(model_dir: Path, out_path: Path, out_type: str, name: str | None = None) -> None:
    """Write an f32 or f16 GGUF for the BERT folder ``model_dir``."""
    import gguf

    cfg = read_config(model_dir)
    pooling = read_pooling(model_dir)
    vocab = read_vocab(model_dir)
    tensors = collect_tensors(model_dir, cfg, out_type)

    by_name = dict(tensors)
    if "token_embd.weight" not in by_name:
        raise ConversionError(f"{model_dir}: no word embeddings tensor")
    n_rows = by_name["token_embd.weight"].shape[0]
    if len(vocab) > n_rows:
        raise ConversionError(f"{model_dir}: vocabulary has {len(vocab)} tokens but the model only {n_rows} rows")
    tokens, types = phantom_vocab(vocab, special_tokens(model_dir))
    for i in range(len(tokens), n_rows):  # llama.cpp needs one token per embedding row
        tokens.append(f"[PAD{i}]")
        types.append(int(gguf.TokenType.UNUSED))

    w = gguf.GGUFWriter(out_path, gguf.MODEL_ARCH_NAMES[gguf.MODEL_ARCH.BERT])
    w.add_name(name or model_name_for(model_dir))
    w.add_context_length(cfg.n_ctx)
    w.add_embedding_length(cfg.n_embd)
    w.add_feed_forward_length(cfg.n_ff)
    w.add_block_count(cfg.n_layer)
    w.add_head_count(cfg.n_head)
    w.add_layer_norm_eps(cfg.norm_eps)
    w.add_causal_attention(False)
    w.add_pooling_type(gguf.PoolingType(pooling))
    w.add_file_type(gguf.LlamaFileType.ALL_F32 if out_type == "f32" else gguf.LlamaFileType.MOSTLY_F16)

    w.add_tokenizer_model("bert")
    w.add_tokenizer_pre("default")
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_type_count(cfg.type_vocab_size)
    with _gguf_quiet():  # its "no handler for cls" warning is expected and harmless
        gguf.SpecialVocab(model_dir, n_vocab=len(tokens)).add_to_gguf(w, quiet=True)

    for tname, data in tensors:
        w.add_tensor(tname, data)
    try:
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
    finally:
        w.close()


#: Tensors a q8_0 file keeps in f16. llama.cpp's q8_0 matmul also rounds the
#: *activations* to 8 bits, and the inputs of the value projection and of the
#: FFN up-projection are where all-MiniLM-L6-v2 loses most: pure q8_0 gives
#: cosine 0.998 against sentence-transformers on 1-3 token texts, below the
#: 0.999 we promise; with these two in f16 the worst case is 0.9996, for
#: 4 MB more (29 MB instead of 25 MB) and no measurable loss of speed.
Q8_0_KEEP_F16: tuple[str, ...] = ("attn_v", "ffn_up")


def quantize(src: Path, dst: Path, out_type: str = "q8_0", keep_f16: tuple[str, ...] = Q8_0_KEEP_F16) -> None:
    """Quantise a GGUF with llama.cpp's own quantiser (``llama_model_quantize``).

    ``keep_f16`` are regular expressions on tensor names (``blk.N.attn_v.weight``)
    of tensors to store as f16 instead. llama.cpp's log output is silenced for
    the call: a quantiser that prints a page per tensor is noise in a CLI.
    """
    from hookgraph.llama import quiet_llama  # the one place that knows how to silence llama.cpp

    llama_cpp = quiet_llama()
    ftypes = {"q8_0": llama_cpp.LLAMA_FTYPE_MOSTLY_Q8_0}
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = ftypes[out_type]
    params.nthread = os.cpu_count() or 1
    overrides = (llama_cpp.llama_model_tensor_override * (len(keep_f16) + 1))()
    for i, pattern in enumerate(keep_f16):
        overrides[i].pattern = pattern.encode()
        overrides[i].type = llama_cpp.GGML_TYPE_F16
    overrides[len(keep_f16)].pattern = None  # the list ends with a NULL pattern
    if keep_f16:
        params.tt_overrides = overrides
    rc = llama_cpp.llama_model_quantize(str(src).encode(), str(dst).encode(), params)
    if rc != 0:
        raise ConversionError(f"{src}: llama.cpp could not quantise it to {out_type} (code {rc})")


def convert(model_dir: Path, out_path: Path, out_type: str = "q8_0", *, name: str | None = None) -> Path:
    """Convert a BERT sentence-transformers folder to a GGUF file at ``out_path``.

    The file appears atomically (written beside it, then renamed), so an
    interrupted conversion never leaves a truncated model that looks valid.
    """
    model_dir = Path(model_dir)
    out_path = Path(out_path)
    if out_type not in OUT_TYPES:
        raise ConversionError(f"unknown output type {out_type!r}; choose one of {', '.join(OUT_TYPES)}")
    if not model_dir.is_dir():
        raise ConversionError(f"{model_dir}: not a folder")
    out_path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{out_path.name}.", suffix=".part", dir=out_path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    fd, base_name = tempfile.mkstemp(prefix=f".{out_path.name}.", suffix=".f32.part", dir=out_path.parent)
    os.close(fd)
    base = Path(base_name)
    try:
        if out_type == "q8_0":
            # Quantising from f32 keeps every bit the source had.
            write_gguf(model_dir, base, "f32", name)
            quantize(base, tmp, out_type)
        else:
            write_gguf(model_dir, tmp, out_type, name)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp made it 0600; a model is an ordinary file
        os.replace(tmp, out_path)
    except OSError as exc:
        raise ConversionError(f"{out_path}: cannot write: {exc.strerror or exc}") from None
    finally:
        for leftover in (tmp, base):
            leftover.unlink(missing_ok=True)
    return out_path


def default_out_path(model_dir: Path, out_type: str) -> Path:
    """``<name>.<type>.gguf`` in the current folder, the name a preset recognises."""
    return Path(f"{model_name_for(Path(model_dir))}.{out_type}.gguf")


def convert_command(model_dir: str | Path, out: str | Path | None = None, out_type: str = "q8_0") -> str:
    """What ``hookgraph model convert`` runs; returns the one line to print.

    Raises ``ConversionError`` (one-line message) for anything the user can fix.
    """
    model_dir = Path(model_dir)
    out_path = Path(out) if out else default_out_path(model_dir, out_type)
    start = time.perf_counter()
    convert(model_dir, out_path, out_type)
    took = time.perf_counter() - start
    size_mb = out_path.stat().st_size / 1e6
    return f"wrote {out_path} ({out_type}, {size_mb:.1f} MB) in {took:.1f} s"
