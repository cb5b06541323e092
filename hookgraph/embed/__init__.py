"""Local GGUF embeddings through llama-cpp-python, within the model's token budget.

The package's face. The work lives in modules named by their job:

* :mod:`hookgraph.embed.embedder`: :class:`Embedder` (texts cut to the model's window, vectors);
* :mod:`hookgraph.embed.model_file`: a model file's SHA-256 sidecar and cached GGUF header;
* :mod:`hookgraph.embed.cores`: how many cores the model may use now;
* :mod:`hookgraph.embed.llama_calls`: llama.cpp imported late, kept quiet, Ctrl-C held;
* :mod:`hookgraph.embed.choice`, ``remote``: the embedder a repository uses, a llama.cpp server;
* :mod:`hookgraph.embed.queue`, ``worker``, ``order``, ``no_embed``, ``check``: the background queue,
  its worker, its order, what gets no vector, and the check of vectors others computed.
"""

from hookgraph.embed.embedder import Embedder, EmbedderError
from hookgraph.embed.llama_calls import interrupts_deferred, quiet_llama
from hookgraph.embed.model_file import read_sha256_sidecar, sha256_file, write_sha256_sidecar

__all__ = [
    "Embedder",
    "EmbedderError",
    "interrupts_deferred",
    "quiet_llama",
    "read_sha256_sidecar",
    "sha256_file",
    "write_sha256_sidecar",
]
