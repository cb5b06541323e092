"""What travels to a GPU machine keeps the held-out packages, and what comes back is checked before use."""

from __future__ import annotations

import hashlib
import io
import random
import shutil
import string
import tarfile
from pathlib import Path

import numpy as np
import pytest

from hookgraph.embed import Embedder
from hookgraph.models.convert import convert
from tests.models.test_convert import minilm_dir  # noqa: F401  (the real MiniLM folder, from PyPI once per cache)
from training import device
from training.train import HELD_OUT_SHARE, SEED, load_pairs, pairs_file


def _noise(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.ascii_letters + " ") for _ in range(n))


def test_pairs_cut_to_fit_keep_every_held_out_pair_and_every_source(tmp_path: Path) -> None:
    rng = random.Random(1)
    sources = [f"pkg{i}" for i in range(40)]
    pairs = [{"q": _noise(rng, 60), "d": _noise(rng, 400), "src": rng.choice(sources)} for _ in range(3000)]
    held = set(random.Random(SEED).sample(sorted({p["src"] for p in pairs}), max(1, int(40 * HELD_OUT_SHARE))))
    whole = len(device.xz_lines(pairs))
    room = whole // 3

    kept, packed = device.keep_within(pairs, room)

    assert len(packed) <= room
    assert len(kept) < len(pairs) * 0.5  # random letters do not compress: most pairs had to go
    assert {p["src"] for p in kept} == {p["src"] for p in pairs}
    assert [p for p in pairs if p["src"] in held] == [p for p in kept if p["src"] in held]
    (tmp_path / "pairs.jsonl.xz").write_bytes(packed)
    assert load_pairs(pairs_file(tmp_path, "pairs.jsonl")) == kept  # what the fine-tune reads there


def test_pairs_that_fit_travel_whole(tmp_path: Path) -> None:
    pairs = [{"q": "retry a request", "d": "def retry(request): ...", "src": "pkg"}] * 50
    kept, packed = device.keep_within(pairs, 10_000)
    assert kept == pairs
    (tmp_path / "pairs.jsonl.xz").write_bytes(packed)
    assert load_pairs(pairs_file(tmp_path, "pairs.jsonl")) == pairs


def test_a_text_is_cut_where_its_last_read_piece_ends() -> None:
    text = "retrying requests later"
    ends = [5, 8, 17, 23]  # retr|ying| requests| later
    assert device.cut_after(text, ends, 2) == "retrying"
    assert device.cut_after(text, ends, 4) == text


def _send_back(folder: Path, parts_dir: Path, part_bytes: int) -> None:
    """What training/device.sh leaves in $OUT: the folder as a tar in parts, and the tar's sha256."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        archive.add(folder, arcname=device.NAME)
    blob = buffer.getvalue()
    parts_dir.mkdir()
    for i in range(0, len(blob), part_bytes):
        (parts_dir / f"{device.WEIGHTS_TAR}.part-{i // part_bytes:02d}").write_bytes(blob[i:i + part_bytes])
    (parts_dir / f"{device.WEIGHTS_TAR}.sha256").write_text(hashlib.sha256(blob).hexdigest() + "\n")


def test_the_weights_sent_back_in_parts_become_the_model_the_folder_makes(
        minilm_dir: Path, tmp_path: Path) -> None:  # noqa: F811
    parts = tmp_path / "back"
    _send_back(minilm_dir, parts, 15 * 1024 * 1024)
    assert len(list(parts.glob("*.part-*"))) >= 2  # the weights really travel in several parts

    made = device.unpack(parts, tmp_path / "code.q8_0.gguf")
    direct = convert(minilm_dir, tmp_path / "direct.q8_0.gguf", "q8_0")

    texts = ["where is retry logic?", "def backoff(attempt): return 2 ** attempt"]
    got = Embedder(made).embed_documents(texts)
    want = Embedder(direct).embed_documents(texts)
    assert np.allclose(got, want, atol=1e-6)


def test_a_part_that_came_back_damaged_is_refused(minilm_dir: Path, tmp_path: Path) -> None:  # noqa: F811
    parts = tmp_path / "back"
    _send_back(minilm_dir, parts, 15 * 1024 * 1024)
    first = sorted(parts.glob("*.part-*"))[0]
    first.write_bytes(first.read_bytes()[:-1])
    with pytest.raises(SystemExit, match="do not match"):
        device.unpack(parts, tmp_path / "code.q8_0.gguf")
    assert not (tmp_path / "code.q8_0.gguf").exists()
    shutil.rmtree(parts)
    parts.mkdir()
    with pytest.raises(SystemExit, match="no weights.tar.part"):
        device.unpack(parts, tmp_path / "code.q8_0.gguf")
