"""Per-family embedding conventions, and the GGUF metadata that picks one.

Retrieval models are trained with fixed instructions in front of queries
and/or documents (nomic's ``search_query: ``, e5's ``query: ``/``passage: ``,
bge's query instruction ...). Embedding without them silently costs quality,
so every model hookgraph loads is matched to a preset here. The table is data:
adding a family is adding one entry, first match wins.

The metadata reader lives here because detection needs ``general.name``
without paying for ``import llama_cpp`` and a model load: hooks that touch no
code must stay fast.
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from hookgraph.errors import HookgraphError

#: llama.cpp pooling types (``enum llama_pooling_type``), kept here as plain
#: ints so this module needs neither gguf nor llama_cpp at import.
POOLING_NONE, POOLING_MEAN, POOLING_CLS, POOLING_LAST = 0, 1, 2, 3


@dataclass(frozen=True)
class Preset:
    """How one model family wants its texts embedded."""

    family: str
    #: Lower-case substrings looked for in ``general.name``/``general.basename``
    #: and the file name; any one matches.
    patterns: tuple[str, ...]
    query_prefix: str = ""
    document_prefix: str = ""
    #: Token budget per text (prefix and special tokens included) when the
    #: caller does not choose one: what the family was trained on, or a
    #: window that keeps code units fast to embed.
    max_tokens: int = 512
    #: Pooling to use only when the GGUF does not say (older conversions).
    pooling: int = POOLING_MEAN
    #: If set, only these ``general.architecture`` values match.
    architectures: tuple[str, ...] = ()


_BGE_EN = "Represent this sentence for searching relevant passages: "
_E5_INSTRUCT = "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery: "

#: First match wins, so specific entries come before general ones.
PRESETS: tuple[Preset, ...] = (
    Preset(
        "sentence-transformers-minilm",
        ("all-minilm", "paraphrase-minilm", "multi-qa-minilm"),
        max_tokens=256,  # all-MiniLM-L6-v2 was trained on 128-256 tokens
    ),
    Preset(
        "coderankembed",
        ("coderankembed",),
        query_prefix="Represent this query for searching relevant code: ",
        max_tokens=512,
    ),
    Preset(  # before nomic-embed: the code model takes CodeRankEmbed's query instruction
        "nomic-embed-code",
        ("nomic-embed-code",),
        query_prefix="Represent this query for searching relevant code: ",
        max_tokens=512,
        pooling=POOLING_LAST,
    ),
    Preset(
        "nomic-embed",
        ("nomic-embed",),
        query_prefix="search_query: ",
        document_prefix="search_document: ",
        max_tokens=512,
    ),
    Preset("bge-m3", ("bge-m3",), max_tokens=512, pooling=POOLING_CLS),
    Preset(
        "bge-zh",
        ("bge-small-zh", "bge-base-zh", "bge-large-zh"),
        query_prefix="为这个句子生成表示以用于检索相关文章：",
        max_tokens=512,
        pooling=POOLING_CLS,
    ),
    Preset("bge", ("bge-",), query_prefix=_BGE_EN, max_tokens=512, pooling=POOLING_CLS),
    Preset("mxbai-embed", ("mxbai-embed",), query_prefix=_BGE_EN, max_tokens=512, pooling=POOLING_CLS),
    Preset(
        "snowflake-arctic-embed",
        ("arctic-embed",),
        query_prefix=_BGE_EN,
        max_tokens=512,
        pooling=POOLING_CLS,
    ),
    Preset("e5-instruct", ("e5-mistral", "e5-large-instruct", "e5-instruct"), query_prefix=_E5_INSTRUCT),
    Preset("e5", ("multilingual-e5", "e5-small", "e5-base", "e5-large"), "query: ", "passage: "),
    Preset(
        "qwen3-embedding",
        ("qwen3-embedding",),
        query_prefix=(
            "Instruct: Given a code search query, retrieve relevant code snippets "
            "that answer the query\nQuery:"
        ),
        max_tokens=512,
        pooling=POOLING_LAST,
    ),
    Preset("gte", ("gte-",)),
    Preset("jina-embeddings", ("jina-embeddings",)),
)

#: Used when nothing matches: no prefixes, the GGUF's own pooling.
GENERIC = Preset("generic", ())


def detect_preset(name: str = "", architecture: str = "", filename: str = "") -> Preset:
    """The preset for a model: by its GGUF name first, then by its file name.

    The name inside the file wins because files get renamed; the file name
    still helps with GGUFs whose converter left ``general.name`` generic.
    """
    for haystack in (name.lower(), filename.lower()):
        if not haystack:
            continue
        for preset in PRESETS:
            if preset.architectures and architecture not in preset.architectures:
                continue
            if any(p in haystack for p in preset.patterns):
                return preset
    return GENERIC


# --------------------------------------------------------------------------
# GGUF metadata without llama.cpp


class GGUFFormatError(HookgraphError, ValueError):
    """The file is not a GGUF file we can read."""


_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9


def read_gguf_metadata(path: Path, wanted: Iterable[str] | None = None) -> dict[str, Any]:
    """Key/value metadata of a GGUF file (arrays skipped), read with the stdlib.

    With ``wanted``, reading stops as soon as those keys are found: converters
    write ``general.*`` and the architecture keys before the big tokenizer
    arrays, so this is a few hundred bytes of work even for a 600 MB model.
    Raises ``OSError`` if the file cannot be read, ``GGUFFormatError`` if it
    is not GGUF.
    """
    want = set(wanted) if wanted is not None else None
    out: dict[str, Any] = {}
    with open(path, "rb") as f:
        try:
            mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError:  # empty file
            raise GGUFFormatError(f"{path}: empty file") from None
    with mm:
        if mm[:4] != b"GGUF":
            raise GGUFFormatError(f"{path}: not a GGUF file")
        try:
            (version,) = struct.unpack_from("<I", mm, 4)
            if version < 2:
                raise GGUFFormatError(f"{path}: GGUF version {version} is too old")
            (n_kv,) = struct.unpack_from("<Q", mm, 16)
            pos = 24

            def string(p: int) -> tuple[str, int]:
                (n,) = struct.unpack_from("<Q", mm, p)
                p += 8
                return mm[p : p + n].decode("utf-8", "replace"), p + n

            def skip(vtype: int, p: int) -> tuple[Any, int]:
                if vtype in _SCALARS:
                    fmt = _SCALARS[vtype]
                    return struct.unpack_from(fmt, mm, p)[0], p + struct.calcsize(fmt)
                if vtype == _STRING:
                    return string(p)
                if vtype == _ARRAY:
                    sub, n = struct.unpack_from("<IQ", mm, p)
                    p += 12
                    if sub in _SCALARS:
                        return None, p + n * struct.calcsize(_SCALARS[sub])
                    if sub == _STRING:  # the vocabulary: lengths only, no decoding (~10x faster)
                        unpack = struct.Struct("<Q").unpack_from
                        for _ in range(n):
                            p += 8 + unpack(mm, p)[0]
                        return None, p
                    for _ in range(n):
                        _, p = skip(sub, p)
                    return None, p
                raise GGUFFormatError(f"{path}: unknown GGUF value type {vtype}")

            for _ in range(n_kv):
                key, pos = string(pos)
                (vtype,) = struct.unpack_from("<I", mm, pos)
                value, pos = skip(vtype, pos + 4)
                if value is not None and (want is None or key in want):
                    out[key] = value
                    if want is not None and want <= out.keys():
                        break
        except struct.error:
            raise GGUFFormatError(f"{path}: truncated GGUF file") from None
    return out
