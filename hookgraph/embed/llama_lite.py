"""A GGUF embedding model through llama-cpp-python's ctypes layer alone.

``import llama_cpp`` runs the package's ``__init__``, which imports the whole
high-level API: ``Llama``, its chat formats (jinja2), its disk cache
(diskcache), its server types. That costs 100-200 ms here, more than the
model load, and a hook or ``hookgraph ask`` pays it on every run. Embedding
needs none of it: the ctypes bindings (``llama_cpp.llama_cpp``) and their
thin wrappers (``llama_cpp._internals``: model, context, batch) are enough,
and import in ~35 ms.

:func:`bindings` imports those two modules without running the package's
``__init__``: the package module is created from its spec but not executed,
with a module ``__getattr__`` (PEP 562) that executes it on the first access
to anything else, so ``import llama_cpp; llama_cpp.Llama`` elsewhere in the
same process still works.

:class:`EmbeddingModel` does what ``Llama(embedding=True, ...)`` and
``Llama.embed(text)`` do for one text (same model and context parameters,
one sequence per batch, KV memory cleared around each text), so the vectors
are the same (tests/test_embed.py checks them against sentence-transformers).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from typing import Any

__all__ = ["EmbeddingModel", "bindings"]

_backend_ready = False


def bindings() -> tuple[Any, Any]:
    """``(llama_cpp.llama_cpp, llama_cpp._internals)``, without the rest of the package."""
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
    low = importlib.import_module("llama_cpp.llama_cpp")
    internals = importlib.import_module("llama_cpp._internals")
    return low, internals


class EmbeddingModel:
    """One GGUF loaded for embeddings; ``embed(text)`` returns the pooled vector (float32, not normalised).

    ``n_ctx`` is also the batch and micro-batch size: a text over it would
    abort the process inside llama.cpp, so :meth:`embed` refuses it first.
    """

    def __init__(self, path: str, *, n_ctx: int, n_threads: int, pooling_type: int | None = None) -> None:
        global _backend_ready
        low, internals = bindings()
        self._low = low
        if not _backend_ready:
            low.llama_backend_init()
            _backend_ready = True
        model_params = low.llama_model_default_params()
        model_params.n_gpu_layers = 0
        # No "extra" buffer types (AMX tiles, repacked weights): a CPU can advertise AMX that its
        # hypervisor does not enable, and the first matrix product then dies of SIGILL (seen here,
        # KVM on a Sapphire Rapids host). Measured on that machine, with a build whose extra
        # types do run: 42-45 vs 39-44 texts/s at 86 tokens, 14-16 at 226 both ways.
        if hasattr(model_params, "use_extra_bufts"):
            model_params.use_extra_bufts = False
        self._model = internals.LlamaModel(path_model=path, params=model_params, verbose=False)
        try:
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
            self._ctx = internals.LlamaContext(model=self._model, params=params, verbose=False)
            self._batch = internals.LlamaBatch(n_tokens=n_ctx, embd=0, n_seq_max=params.n_seq_max, verbose=False)
        except BaseException:
            self._model.close()
            raise
        self.n_ctx = n_ctx
        self.n_embd = int(self._model.n_embd())
        self.ctx = self._ctx.ctx
        self.pooled = self._ctx.pooling_type() != low.LLAMA_POOLING_TYPE_NONE

    def tokenize(self, text: bytes, add_bos: bool = True, special: bool = False) -> list[int]:
        return self._model.tokenize(text, add_bos, special)

    def piece(self, token: int) -> str:
        """The text of one vocabulary entry (llama.cpp pads it with NULs; a word's first piece may lead with a space)."""
        return bytes(self._model.token_to_piece(token)).rstrip(b"\0").decode("utf-8", "replace").strip()

    def embed(self, text: str) -> Any:
        """The pooled embedding of ``text`` (numpy float32, shape ``(n_embd,)``); 2-D without pooling."""
        import numpy as np

        tokens = self.tokenize(text.encode("utf-8"), True, False)
        if len(tokens) > self.n_ctx:
            raise ValueError(f"text of {len(tokens)} tokens exceeds the window of {self.n_ctx}")
        if not self.pooled:
            return np.zeros((len(tokens), self.n_embd), dtype=np.float32)
        batch = self._batch
        batch.reset()
        batch.add_sequence(tokens, 0, True)  # every token an output, as Llama.embed does
        self._ctx.kv_cache_clear()
        try:
            self._ctx.decode(batch)
        finally:
            batch.reset()
        ptr = self._low.llama_get_embeddings_seq(self.ctx, 0)
        if not ptr:
            raise RuntimeError("llama.cpp returned no pooled embedding")
        vector = np.ctypeslib.as_array(ptr, shape=(self.n_embd,)).astype(np.float32, copy=True)
        self._ctx.kv_cache_clear()
        return vector

    def set_threads(self, n: int) -> None:
        self._low.llama_set_n_threads(self.ctx, n, n)

    def close(self) -> None:
        for part in ("_batch", "_ctx", "_model"):
            obj = self.__dict__.pop(part, None)
            if obj is not None:
                obj.close()
