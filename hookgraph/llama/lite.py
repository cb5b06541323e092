"""A GGUF embedding model through llama-cpp-python's ctypes bindings alone.

``import llama_cpp`` runs the package's ``__init__``, which imports the whole
high-level API: ``Llama``, its chat formats (jinja2), its disk cache
(diskcache), its server types. That costs 100-200 ms here, more than the
model load, and a hook or ``hookgraph ask`` pays it on every run. Even the
package's thin wrappers (``llama_cpp._internals``: model, context, batch)
import numpy, another 60-80 ms that ``hookgraph ask`` needs for nothing else.
Embedding needs only the ctypes bindings (``llama_cpp.llama_cpp``), which
import ctypes and nothing heavier.

:func:`bindings` imports that module without running the package's
``__init__``: the package module is created from its spec but not executed,
with a module ``__getattr__`` (PEP 562) that executes it on the first access
to anything else, so ``import llama_cpp; llama_cpp.Llama`` elsewhere in the
same process still works.

:class:`EmbeddingModel` makes the calls ``Llama(embedding=True, ...)`` and
``Llama.embed(text)`` make for one text (same model and context parameters,
one sequence per batch, KV memory cleared around each text), so the vectors
are the same (tests/embed/test_embedder.py checks them against sentence-transformers).
"""

from __future__ import annotations

import ctypes
import importlib
import importlib.util
import os
import sys
from typing import Any

__all__ = ["EmbeddingModel", "bindings"]

_backend_ready = False


def bindings() -> Any:
    """``llama_cpp.llama_cpp`` (the ctypes layer), without the rest of the package."""
    if "llama_cpp" not in sys.modules:
        spec = importlib.util.find_spec("llama_cpp")
        if spec is None or spec.loader is None:
            raise ImportError("llama_cpp (llama-cpp-python) is not installed")
        package = importlib.util.module_from_spec(spec)
        loader = spec.loader

        def _rest_of_package(name: str) -> Any:
            # First access to anything the light import did not bring: run the real __init__.
            package.__dict__.pop("__getattr__", None)
            loader.exec_module(package)
            return getattr(package, name)

        # A module-level __getattr__ (PEP 562); typeshed declares ModuleType.__getattr__ as a method.
        package.__getattr__ = _rest_of_package  # type: ignore[method-assign]
        sys.modules["llama_cpp"] = package
    return importlib.import_module("llama_cpp.llama_cpp")


class EmbeddingModel:
    """One GGUF loaded for embeddings; ``embed(text)`` returns the pooled vector (float32 values, not normalised).

    ``n_ctx`` is also the batch and micro-batch size: a text over it would
    abort the process inside llama.cpp, so :meth:`embed` refuses it first.
    The native model, context and batch are freed by :meth:`close` (or at
    garbage collection), context first: it points into the model.
    """

    def __init__(self, path: str, *, n_ctx: int, n_threads: int, pooling_type: int | None = None) -> None:
        global _backend_ready
        low = bindings()
        self._low = low
        self._model: Any = None
        self._ctx: Any = None
        self._batch: Any = None
        if not _backend_ready:
            low.llama_backend_init()
            _backend_ready = True
        if not os.path.exists(path):
            raise ValueError(f"model path does not exist: {path}")
        model_params = low.llama_model_default_params()
        model_params.n_gpu_layers = 0
        # No "extra" buffer types (AMX tiles, repacked weights): a CPU can advertise AMX that its
        # hypervisor does not enable, and the first matrix product then dies of SIGILL (seen here,
        # KVM on a Sapphire Rapids host). Measured on that machine, with a build whose extra
        # types do run: 42-45 vs 39-44 texts/s at 86 tokens, 14-16 at 226 both ways.
        if hasattr(model_params, "use_extra_bufts"):
            model_params.use_extra_bufts = False
        self._model = low.llama_model_load_from_file(path.encode("utf-8"), model_params)
        if not self._model:
            self._model = None
            raise ValueError(f"failed to load model from file: {path}")
        try:
            self._vocab = low.llama_model_get_vocab(self._model)
            if not self._vocab:
                raise ValueError(f"failed to get the vocabulary of {path}")
            params = low.llama_context_default_params()
            params.n_ctx = n_ctx
            params.n_batch = n_ctx
            params.n_ubatch = n_ctx
            params.n_threads = n_threads
            params.n_threads_batch = n_threads
            params.embeddings = True
            params.pooling_type = low.LLAMA_POOLING_TYPE_UNSPECIFIED if pooling_type is None else int(pooling_type)
            params.flash_attn_type = low.LLAMA_FLASH_ATTN_TYPE_ENABLED
            params.n_seq_max = min(n_ctx, low.llama_max_parallel_sequences())  # as Llama(embedding=True)
            params.kv_unified = True
            self._ctx = low.llama_init_from_model(self._model, params)
            if not self._ctx:
                self._ctx = None
                raise ValueError("failed to create a llama_context")
            self._memory = low.llama_get_memory(self._ctx)  # None: a non-causal model may keep no KV memory
            self._batch = low.llama_batch_init(n_ctx, 0, params.n_seq_max)
        except BaseException:
            self.close()
            raise
        self.n_ctx = n_ctx
        self.n_embd = int(low.llama_model_n_embd(self._model))
        self.ctx = self._ctx
        self.pooled = low.llama_pooling_type(self._ctx) != low.LLAMA_POOLING_TYPE_NONE

    def tokenize(self, text: bytes, add_bos: bool = True, special: bool = False) -> list[int]:
        low = self._low
        size = len(text) + 8  # a token covers a byte or more, besides the few special ones added
        tokens = (low.llama_token * size)()
        n = low.llama_tokenize(self._vocab, text, len(text), tokens, size, add_bos, special)
        if n < 0:  # the buffer was short: -n is the count needed
            size = -n
            tokens = (low.llama_token * size)()
            n = low.llama_tokenize(self._vocab, text, len(text), tokens, size, add_bos, special)
            if n < 0:
                raise RuntimeError(f"llama.cpp could not tokenize a text of {len(text)} bytes ({n})")
        return list(tokens[:n])

    def piece(self, token: int) -> str:
        """The text of one vocabulary entry (a word's first piece may lead with a space)."""
        size = 32
        while True:
            buf = ctypes.create_string_buffer(size)
            n = self._low.llama_token_to_piece(self._vocab, token, buf, size, 0, False)
            if n >= 0:
                return buf.raw[:n].decode("utf-8", "replace").strip()
            size = -n

    def embed(self, text: str) -> list[float]:
        """The pooled embedding of ``text``: ``n_embd`` float32 values as Python floats.

        A plain list, not a numpy array, so that ``hookgraph ask`` embeds its
        query without importing numpy.
        """
        if not self.pooled:
            raise ValueError("the model pools no sentence embedding (pooling type none)")
        tokens = self.tokenize(text.encode("utf-8"), True, False)
        if len(tokens) > self.n_ctx:
            raise ValueError(f"text of {len(tokens)} tokens exceeds the window of {self.n_ctx}")
        low, batch = self._low, self._batch
        for i, token in enumerate(tokens):  # one sequence, every token an output, as Llama.embed does
            batch.token[i] = token
            batch.pos[i] = i
            batch.seq_id[i][0] = 0
            batch.n_seq_id[i] = 1
            batch.logits[i] = True
        batch.n_tokens = len(tokens)
        self._clear_memory()
        try:
            code = low.llama_decode(self._ctx, batch)
            if code != 0:
                raise RuntimeError(f"llama_decode returned {code}")
            ptr = low.llama_get_embeddings_seq(self._ctx, 0)
            if not ptr:
                raise RuntimeError("llama.cpp returned no pooled embedding")
            return list(ptr[: self.n_embd])
        finally:
            batch.n_tokens = 0
            self._clear_memory()

    def _clear_memory(self) -> None:
        if self._memory:
            self._low.llama_memory_clear(self._memory, True)

    def set_threads(self, n: int) -> None:
        self._low.llama_set_n_threads(self._ctx, n, n)

    def close(self) -> None:
        """Free the batch, the context and the model (in that order); safe to call twice."""
        low = self._low
        if self._batch is not None:
            low.llama_batch_free(self._batch)
            self._batch = None
        if self._ctx is not None:
            low.llama_free(self._ctx)
            self._ctx = None
            self.ctx = None
        if self._model is not None:
            low.llama_model_free(self._model)
            self._model = None

    def __del__(self) -> None:
        if getattr(self, "_low", None) is not None:
            self.close()
