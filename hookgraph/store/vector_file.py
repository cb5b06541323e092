"""The committed snapshot's format: vectors by text key, one record a text, sorted by key.

Since a snapshot is a source of vectors and never of facts (files, units,
text, line ranges and edges are derived from the blobs by every clone), it
holds only what adopting a vector needs: the text key, the number of
windows, whether the text was cut after its last window, and the int8
windows, plus the embedding recipe and model the vectors were made with
(the model-change rule and the sampled check use them as hints).

Why a flat file and not a SQLite copy of the index: a
``VACUUM INTO`` of the whole index cost ~0.3 s a commit, and its pages
moved with every write, so git's delta compression kept little: 55 KB of
packed history per 3-function commit on a 2,200-unit project. Here records
are sorted by key and have no ids, pointers or page headers: the bytes of
an unchanged text never change, a commit's few new texts are inserted and
its dead ones cut out, and git's delta (copy ranges + inserted bytes) is
about the size of those records. The same set of vectors always gives the
same bytes, whoever writes it (a teammate, the merge driver).

Layout::

    b"hookgraph-vectors 1\\n"
    one line of JSON, keys sorted: {"count": N, "dims": D, "model_sha256": ..., "recipe": ...}
    N records, keys strictly ascending:
        key (16 bytes) | windows (1 byte, 1..64) | truncated (1 byte, 0 or 1) | windows * D int8 values

Vectors stay int8 with a per-vector scale, exactly as the index stores them
since schema 3 (:func:`hookgraph.store.vectors.quantize`): adopting one is a
copy, and ranking with an adopted vector is ranking with the local one.

A file is somebody else's data: :func:`decode` checks every length, bound
and order and raises :class:`VectorFileError` naming the first problem.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from hookgraph.errors import HookgraphError

__all__ = ["MAGIC", "KEY_BYTES", "Record", "VectorFile", "VectorFileError", "decode", "encode", "encode_file",
           "is_vector_file", "read", "union"]

MAGIC = b"hookgraph-vectors 1\n"
#: A text key's length (:func:`hookgraph.store.vectors.window_key`: 16 bytes of the composed text's hash).
KEY_BYTES = 16
#: At most this many windows a text (the index's own bound, see SnapshotVectors).
MAX_WINDOWS = 64
#: The widest vector accepted (the vec table's schema allows five digits; real models use 384-4096).
MAX_DIMS = 16384
#: The header line's most bytes: a recipe and a hash, never more.
MAX_HEADER = 4096
#: The largest file read (it is read whole): a million 384-dim texts take ~420 MB; a committed file is
#: anyone's, and a bigger one would only cost the reader its memory.
MAX_FILE_BYTES = 512 << 20


class VectorFileError(HookgraphError, ValueError):
    """A snapshot that is not a well-formed vector file; the message says what is wrong with it."""


@dataclass(frozen=True)
class Record:
    """One text's vectors: its windows (int8, ``dims`` each, in order) and whether it was cut after the last."""

    windows: int
    truncated: bool
    embedding: bytes


@dataclass
class VectorFile:
    """A snapshot's contents: the recipe and model it was embedded with, and the records by key."""

    recipe: str | None
    model_sha256: str | None
    dims: int
    records: dict[bytes, Record]


def is_vector_file(path: Path) -> bool:
    """Whether ``path`` starts like a vector file (an older hookgraph committed a SQLite database)."""
    try:
        with open(path, "rb") as f:
            return f.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def encode(recipe: str | None, model_sha256: str | None, dims: int,
           records: Iterable[tuple[bytes, int, bool, bytes]]) -> bytes:
    """The file for ``records`` (``(key, windows, truncated, embedding)``), sorted by key: same input, same bytes."""
    rows = sorted(records, key=lambda r: r[0])
    header = json.dumps({"count": len(rows), "dims": dims, "model_sha256": model_sha256, "recipe": recipe},
                        sort_keys=True, separators=(",", ":")).encode("utf-8")
    parts = [MAGIC, header, b"\n"]
    for key, windows, truncated, embedding in rows:
        if len(key) != KEY_BYTES or not 1 <= windows <= MAX_WINDOWS or len(embedding) != windows * dims:
            raise VectorFileError(f"a record of {len(embedding)} bytes does not fit {windows} windows of {dims}")
        parts += [key, bytes((windows, 1 if truncated else 0)), embedding]
    return b"".join(parts)


def decode(data: bytes) -> VectorFile:
    """Parse and check a vector file (every length, bound and the key order)."""
    if not data.startswith(MAGIC):
        raise VectorFileError("is not a hookgraph vector file")
    end = data.find(b"\n", len(MAGIC), len(MAGIC) + MAX_HEADER)
    if end < 0:
        raise VectorFileError("has no header line")
    try:
        header = json.loads(data[len(MAGIC):end])
    except ValueError:
        raise VectorFileError("has a header that is not JSON") from None
    if not isinstance(header, dict):
        raise VectorFileError("has a header that is not a JSON object")
    count, dims = header.get("count"), header.get("dims")
    recipe, model = header.get("recipe"), header.get("model_sha256")
    if not (isinstance(count, int) and not isinstance(count, bool) and count >= 0):
        raise VectorFileError(f"has a bad record count {count!r}")
    if not (isinstance(dims, int) and not isinstance(dims, bool) and (1 if count else 0) <= dims <= MAX_DIMS):
        raise VectorFileError(f"has a bad vector width {dims!r}")
    if not (recipe is None or isinstance(recipe, str)) or not (model is None or isinstance(model, str)):
        raise VectorFileError("has a recipe or model hash that is not a string")
    records: dict[bytes, Record] = {}
    at, last = end + 1, b""
    view = memoryview(data)
    for _ in range(count):
        if at + KEY_BYTES + 2 > len(data):
            raise VectorFileError(f"ends inside record {len(records) + 1} of {count}")
        key = bytes(view[at:at + KEY_BYTES])
        windows, truncated = data[at + KEY_BYTES], data[at + KEY_BYTES + 1]
        if key <= last:
            raise VectorFileError(f"has its keys out of order at record {len(records) + 1}")
        if not 1 <= windows <= MAX_WINDOWS or truncated not in (0, 1):
            raise VectorFileError(f"has a bad window count or flag at record {len(records) + 1}")
        start = at + KEY_BYTES + 2
        stop = start + windows * dims
        if stop > len(data):
            raise VectorFileError(f"ends inside record {len(records) + 1} of {count}")
        records[key] = Record(windows, bool(truncated), bytes(view[start:stop]))
        at, last = stop, key
    if at != len(data):
        raise VectorFileError(f"has {len(data) - at} bytes after its {count} records")
    return VectorFile(recipe, model, dims, records)


def read(path: Path) -> VectorFile:
    """:func:`decode` of a file (``OSError`` when it cannot be read)."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size > MAX_FILE_BYTES:
            raise VectorFileError(f"is larger than hookgraph reads ({size:,} bytes; at most {MAX_FILE_BYTES:,})")
        return decode(f.read())


def union(ours: VectorFile, theirs: VectorFile) -> VectorFile | None:
    """Both sides' records by key, ours where both have a key; None when they were embedded differently.

    Two branches' snapshots of one model merge without a conflict. Their
    vectors are not believed for it: whoever adopts from the merged file
    checks a sample, as for any snapshot. Snapshots of different recipes
    (a model change on one side) are not mixed; a side with no vector at all
    (a first commit before anything was embedded) gives way to the other.
    """
    if not theirs.records:
        return ours
    if not ours.records:
        return theirs
    if ours.recipe != theirs.recipe or ours.dims != theirs.dims or ours.model_sha256 != theirs.model_sha256:
        return None
    return VectorFile(ours.recipe, ours.model_sha256, ours.dims, {**theirs.records, **ours.records})


def encode_file(contents: VectorFile) -> bytes:
    """:func:`encode` of a :class:`VectorFile`."""
    return encode(contents.recipe, contents.model_sha256, contents.dims,
                  ((k, r.windows, r.truncated, r.embedding) for k, r in contents.records.items()))
