"""The static code embedding: a table of word vectors, mean-pooled, that every unit gets while it is parsed.

A transformer pass costs milliseconds per text, so its vectors arrive in the background, minutes
after a first index. A static embedding costs a table lookup per word: every unit of every sync gets
one at once, and ``ask`` ranks by meaning from the first second. The table was trained here on
(description, code) pairs from public code (``training/``, model card ``hookgraph/models/code-static/``).

Words are the full-text index's own (:func:`hookgraph.parse.words.identifier_words`: ``getHTTPResponse``
-> get, http, response, gethttpresponse), so a question and the code meet in the same units. A word
outside the table is left out; the table's row norms carry each word's weight, learned in training.

Format: ``model.safetensors`` (the ecosystem's static-model layout, as model2vec's: an ``embeddings``
tensor, here int8 with a float32 ``scales`` row factor) and ``vocab.txt`` (one word a line, row order).
It is read with the standard library (``mmap`` and ``struct``), numpy only for many texts at once: a
hook that changes three functions must not pay numpy's import.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import mmap
import struct
from array import array
from collections import Counter
from pathlib import Path
from typing import Any, Iterable, Sequence

from hookgraph.parse.words import WORD_PATTERN, identifier_words

MODEL_DIR = Path(__file__).resolve().parent.parent / "models" / "code-static"
#: Words of a text the vector reads: a unit's composed text rarely has more, and the first ones
#: (kind, name, signature, docstring, calls) say the most.
MAX_WORDS = 400


#: Texts from which :meth:`StaticModel.embed_many` uses numpy (its import costs a hook ~80 ms), and its batch.
_NUMPY_FROM = 64
_BATCH = 256
#: int8 byte -> its value + 128 as an unsigned byte (two's complement: flip the top bit).
_OFFSET_128 = bytes(b ^ 0x80 for b in range(256))
#: Integer weight of the largest row scale in :meth:`StaticModel.embed` (relative precision 1e-6; 400 words of
#: up to 255 each stay below 2**63 in a lane).
_WEIGHT_STEPS = 1 << 20
#: Distinct tokens :class:`_TokenRows` remembers before it starts over (a first index of Django meets ~95k).
_MEMO_TOKENS = 100_000


def static_words(text: str) -> list[str]:
    """The words of ``text`` the table is keyed by: identifier-split, lower-case, no digits or single letters."""
    return [w for w in identifier_words(text) if len(w) > 1 and not w.isdigit()][:MAX_WORDS]


class _TokenRows(dict[str, bytes]):
    """token -> the table rows of its :func:`static_words` (-1 for a word outside the table) as int64 bytes,
    computed on first sight: splitting every token of every unit was most of a first index's static cost, and
    tokens repeat. Bytes, so a text's rows are one ``b"".join`` for numpy to read (tokio's 5,427 texts, 430,000
    tokens: 117 -> 104 ms against numpy reading them one integer at a time)."""

    def __init__(self, index: dict[str, int]) -> None:
        super().__init__()
        self._index = index

    def __missing__(self, token: str) -> bytes:
        rows = array("q", (self._index.get(w, -1) for w in static_words(token))).tobytes()
        if len(self) >= _MEMO_TOKENS:
            self.clear()
        self[token] = rows
        return rows


class StaticModel:
    """The table, read lazily: a word's row is read from the mapped file when it is first asked for."""

    def __init__(self, folder: Path = MODEL_DIR) -> None:
        self.folder = folder
        path = folder / "model.safetensors"
        with open(path, "rb") as handle:
            self._map = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        (header_len,) = struct.unpack("<Q", self._map[:8])
        header = json.loads(self._map[8:8 + header_len])
        base = 8 + header_len
        emb = header["embeddings"]
        if emb["dtype"] != "I8" or header["scales"]["dtype"] != "F32":
            raise ValueError(f"{path}: expected int8 embeddings and float32 scales")
        self.rows, self.dims = emb["shape"]
        self._emb_offset = base + emb["data_offsets"][0]
        self._scale_offset = base + header["scales"]["data_offsets"][0]
        self.metadata: dict[str, str] = header.get("__metadata__", {})
        words = (folder / "vocab.txt").read_text(encoding="utf-8").split("\n")
        self.index = {w: i for i, w in enumerate(words[: self.rows]) if w}
        self._packed: dict[int, tuple[float, int]] = {}
        self._token_rows = _TokenRows(self.index)
        #: The table's identity (SHA-256 of the safetensors bytes, then the vocabulary's), from its sidecar:
        #: a hook must not hash 13 MB to know which table wrote a store's static vectors.
        sidecar = folder / "model.sha256"
        self.sha256 = sidecar.read_text().strip() if sidecar.exists() else _tables_sha(path, folder / "vocab.txt")

    def row(self, i: int) -> tuple[float, array]:
        """Row ``i`` as (scale, int8 values)."""
        (scale,) = struct.unpack_from("<f", self._map, self._scale_offset + 4 * i)
        start = self._emb_offset + i * self.dims
        return scale, array("b", self._map[start:start + self.dims])

    def _lanes(self, i: int) -> tuple[float, int]:
        """Row ``i`` as (scale, one integer holding each value + 128 in its own 64-bit lane).

        Summing rows this way is one C big-integer multiply-add per word instead of a Python loop over
        256 floats: a hook's few hundred words cost a millisecond, not fifty.
        """
        packed = self._packed.get(i)
        if packed is None:
            scale, values = self.row(i)
            lanes = bytearray(8 * self.dims)
            lanes[0::8] = values.tobytes().translate(_OFFSET_128)
            packed = self._packed[i] = (scale, int.from_bytes(lanes, "little"))
        return packed

    def embed(self, text: str) -> list[float] | None:
        """``text``'s unit vector (mean of its known words' rows, normalised), or None when no word is known."""
        counts = Counter(self.index[w] for w in static_words(text) if w in self.index)
        if not counts:
            return None
        rows = [(self._lanes(i), n) for i, n in counts.items()]
        top = max(scale for (scale, _), _ in rows) or 1.0
        total = weights = 0
        for (scale, lanes), n in rows:  # integer weights: 2**20 steps between 0 and the largest scale
            weight = round(n * scale / top * _WEIGHT_STEPS)
            total += weight * lanes
            weights += weight
        sums = array("q")
        sums.frombytes(total.to_bytes(8 * self.dims, "little"))
        vector = [s - 128 * weights for s in sums]
        norm = math.sqrt(sum(v * v for v in vector))
        if norm == 0.0:
            return None
        return [v / norm for v in vector]

    @functools.cached_property
    def arrays(self) -> tuple[Any, Any]:
        """The table's int8 rows and float32 row scales as numpy views of the mapped file (nothing copied:
        converting the whole table to float32 cost a first index 0.03-0.4 s before its first unit)."""
        import numpy as np

        values = np.frombuffer(self._map, dtype=np.int8, count=self.rows * self.dims,
                               offset=self._emb_offset).reshape(self.rows, self.dims)
        scales = np.frombuffer(self._map, dtype=np.float32, count=self.rows, offset=self._scale_offset)
        return values, scales

    def embed_many(self, texts: Sequence[str], *, batched: bool | None = None) -> list[bytes | None]:
        """Each text's vector as int8 bytes (:func:`quantize_unit`), or None; numpy for many texts at once.

        A first index's thousands of units: each text's int8 rows weighted by their scales and summed by
        numpy, about 30 us a unit, most of it finding the words. A hook's few units take the standard-library
        path of :meth:`embed` and never import numpy. ``batched``: numpy (True) or not (False) whatever the
        count: a parse worker has numpy loaded for its whole life and embeds a few files at a time.
        """
        if not (len(texts) >= _NUMPY_FROM if batched is None else batched):
            return [None if (v := self.embed(t)) is None else quantize_unit(v) for t in texts]
        import numpy as np

        values, scales = self.arrays
        token_rows = self._token_rows.__getitem__
        find_tokens = WORD_PATTERN.findall
        out: list[bytes | None] = []
        for start in range(0, len(texts), _BATCH):
            batch = texts[start:start + _BATCH]
            totals = np.zeros((len(batch), self.dims), dtype=np.float32)
            present: list[int] = []
            for slot, text in enumerate(batch):
                # static_words(text) as rows: each token's words are its own (the text's words are its tokens'
                # words in order), so the first MAX_WORDS entries, less those outside the table
                rows = np.frombuffer(b"".join(map(token_rows, find_tokens(text))), dtype=np.int64)
                found = rows[:MAX_WORDS]
                found = found[found >= 0]
                if found.size:  # one text's rows summed while they sit in cache: gathering a batch's rows first
                    # (hundreds of MB for a first index) cost 15x more in allocation and page faults
                    totals[slot] = scales[found] @ values[found]
                    present.append(slot)
            peaks = np.abs(totals).max(axis=1)
            safe = np.where(peaks > 0, peaks, 1.0)
            quantized = np.clip(np.rint(totals * (127.0 / safe)[:, None]), -127, 127).astype(np.int8)
            vectors: list[bytes | None] = [None] * len(batch)
            for slot in present:
                vectors[slot] = quantized[slot].tobytes() if peaks[slot] > 0 else None
            out.extend(vectors)
        return out


def quantize_unit(vector: Iterable[float]) -> bytes:
    """A unit vector as int8 bytes (scaled by 127 / its largest component: cosine keeps, bytes quarter)."""
    values = list(vector)
    peak = max((abs(v) for v in values), default=0.0) or 1.0
    return array("b", (max(-127, min(127, round(v * 127.0 / peak))) for v in values)).tobytes()


def _tables_sha(*paths: Path) -> str:
    """SHA-256 over the files' bytes in order (what ``model.sha256`` records)."""
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


@functools.cache
def shipped_sha256() -> str | None:
    """The shipped table's identity from its sidecar alone: a sync that writes no unit (a hook that touches no
    code) must not pay for reading 50,000 words to learn that the store is up to date."""
    try:
        return (MODEL_DIR / "model.sha256").read_text().strip() or None
    except OSError:
        return None


@functools.cache
def shipped_model() -> StaticModel | None:
    """The table shipped in the package, read once per process; None when it is missing (a broken install)."""
    try:
        return StaticModel(MODEL_DIR)
    except (OSError, ValueError, KeyError):
        return None
