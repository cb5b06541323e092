"""Local GGUF embeddings through llama-cpp-python, within the model's token budget.

The package's face. The work lives in modules named by their job:

* :mod:`hookgraph.embed.embedder`: :class:`Embedder` (texts cut to the model's window, vectors);
* :mod:`hookgraph.embed.model_file`: a model file's SHA-256 sidecar and cached GGUF header;
* :mod:`hookgraph.embed.cores`: how many cores the model may use now;
* :mod:`hookgraph.embed.choice`, ``remote``: the embedder a repository uses, a llama.cpp server;
* :mod:`hookgraph.embed.queue`, ``worker``, ``order``, ``no_embed``: the background queue, its worker,
  its order, what gets no vector;
* :mod:`hookgraph.embed.adopt`, ``check``, ``recheck``: vectors others computed (caches, a committed
  snapshot) taken after a sampled check, and each re-embedded and compared later.

llama.cpp itself (loaded late, kept quiet, Ctrl-C held) is reached through :mod:`hookgraph.llama`.
"""

from hookgraph.embed.embedder import Embedder, EmbedderError
from hookgraph.embed.model_file import read_sha256_sidecar, sha256_file, write_sha256_sidecar

__all__ = [
    "Embedder",
    "EmbedderError",
    "read_sha256_sidecar",
    "sha256_file",
    "write_sha256_sidecar",
]
