"""Local GGUF embeddings through llama-cpp-python, within the model's token budget.

Three traps shape this module (DESIGN.md section 6):

* A text with more tokens than ``n_ubatch`` aborts the whole process inside
  llama.cpp (GGML_ASSERT, uncatchable). So every text is counted with the
  model's own tokenizer and cut to the budget *before* it reaches the
  model — prefix and special tokens included — and the model refuses a text
  over the window itself, so a miscount raises instead of aborting.
* ``import llama_cpp`` and the model load cost 0.1-0.3 s; a hook that touches
  no code must not pay them. Nothing here imports llama_cpp at module import,
  and an ``Embedder`` loads the model on first use only. Name, dimensions,
  prefixes and SHA-256 come from the GGUF header (cached per file version)
  and the ``.sha256`` sidecar. Even then only llama-cpp-python's ctypes layer
  is imported (:mod:`hookgraph.llama.lite`), not its whole high-level API.
* One ``embed()`` call per text is faster than batching (texts in one call
  share one KV cache); vectors come back unnormalised and are normalised here.
* llama.cpp defaults to half the cores; we use all of them on an idle
  machine, but only the free ones when other processes are running (checked
  before every text), because its spinning thread barriers slow down ~40x
  when a thread shares a core with a busy process.

A document longer than one window is split into windows (``embed_windows``),
each embedded on its own; only text past the last of ``max_windows`` windows
is cut, and counted. The embedder a repository uses comes from
``hookgraph.embed.choice.embedder_for_repo`` (``.hookgraph/config.toml``);
``hookgraph.embed.remote.RemoteEmbedder`` sends the work to a llama.cpp
server while the local GGUF stays the identity.

Cutting keeps the longest prefix of the text whose tokens fit, which gives
the same word pieces sentence-transformers keeps when it cuts at
``max_seq_length`` (greedy WordPiece on a prefix reproduces the kept pieces).
"""

from __future__ import annotations

import bisect
import hashlib
import math
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hookgraph.embed.cores import cpu_count, threads_from_env, threads_now
from hookgraph.llama.calls import interrupts_deferred, quiet_llama
from hookgraph.embed.model_file import cached_metadata, read_sha256_sidecar, sha256_file
from hookgraph.models import default_model_path
from hookgraph.models.presets import GGUFFormatError, Preset, detect_preset
from hookgraph.errors import HookgraphError

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np  # imported late at run time too: ~80 ms a code-free hook need not pay

__all__ = ["Embedder", "EmbedderError"]


class EmbedderError(HookgraphError):
    """The model cannot be used; the message is one line naming the file and the fix."""


def _unit(vector: np.ndarray) -> np.ndarray:
    """``vector`` scaled to length 1 (a zero vector stays zero)."""
    import numpy as np

    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector


#: A word for truncation purposes: letters and digits (BERT splits on the rest).
_WORD = re.compile(r"[^\W_]+")
#: Words up to this many characters are cut exactly; longer runs (minified
#: code, base64) are cut by binary search, still within budget.
_MAX_SCAN = 64


#: Texts the background drain hands a two-context embedder at once (``queue.drain`` reads ``batch_size``):
#: enough to keep both contexts busy, few enough that a stop or a deadline waits well under a second.
PAIR_BATCH = 8
#: A unit longer than one window is embedded as up to this many windows
#: (scored as its best window); text past the last one is cut and counted.
MAX_WINDOWS = 8
#: Bump when the way texts are cut into windows changes: it is part of the
#: embedding recipe, so stores re-embed instead of mixing two cuttings.
WINDOWING_VERSION = "windows-v1"
#: A first line this short is repeated at the top of every later window (the
#: composed text starts with ``kind qualname``), so a window still names its unit.
_MAX_CARRIED_LINE = 160


class Embedder:
    """Embeds documents and queries with one GGUF model, never over its budget.

    Cheap to construct: the GGUF header is read on first use of a property,
    llama.cpp is imported and the model loaded on first tokenize/embed.
    """

    def __init__(
        self,
        model_path: Path | str | None = None,
        *,
        max_tokens: int | None = None,
        n_threads: int | None = None,
        query_prefix: str | None = None,
        document_prefix: str | None = None,
        max_windows: int = MAX_WINDOWS,
    ) -> None:
        self._path = Path(model_path) if model_path is not None else default_model_path()
        self._max_tokens_arg = max_tokens
        #: Prefix overrides (config); None means the family preset's.
        self._query_prefix = query_prefix
        self._document_prefix = document_prefix
        self.max_windows = max(1, int(max_windows))
        #: Fixed thread count (argument or $HOOKGRAPH_THREADS); None: adapt per text.
        self._fixed_threads = n_threads or threads_from_env()
        self._threads = 0
        self._idle_readings = 0
        self._ncpu = cpu_count()
        self._meta: dict[str, Any] | None = None
        self._preset: Preset | None = None
        self._sha256: str | None = None
        self._llama: Any = None
        self._prefix_tokens: dict[str, int] = {}
        #: Texts actually sent to the model (tests count re-embeds with it).
        self.texts_embedded = 0
        #: Set to a list to record every exact string sent to the model.
        self.embedded_log: list[str] | None = None
        #: Model contexts this embedder may run at once: the background worker sets 2 (see :meth:`_compute`);
        #: ``ask`` and the foreground keep 1, so a question never waits for a second model to load.
        self.contexts = 1
        self._second: Any = None
        self._batch_size: int | None = None

    # ---- identity, from the header only -------------------------------

    def _metadata(self) -> dict[str, Any]:
        if self._meta is None:
            path = self._path
            if path.exists() and not path.is_file():  # a device or a FIFO would be read for ever
                raise EmbedderError(
                    f"{path}: not a regular file (a device, a pipe or a directory); give the path of a GGUF "
                    f"embedding model (`hookgraph model use PATH`)"
                )
            if not path.is_file():
                raise EmbedderError(
                    f"{path}: model file not found; pass the path of a GGUF embedding model "
                    f"(or reinstall hookgraph for the default one)"
                )
            try:
                meta = cached_metadata(path)  # every scalar key; the header is read once per file version
                arch = meta.get("general.architecture", "")
            except GGUFFormatError:
                raise EmbedderError(
                    f"{path}: not a GGUF model file; convert a sentence-transformers folder "
                    f"with `hookgraph model convert DIR`"
                ) from None
            except OSError as exc:
                raise EmbedderError(f"{path}: cannot read the model file ({exc.strerror or exc})") from None
            if not arch:
                raise EmbedderError(f"{path}: GGUF file without general.architecture; not a model")
            self._meta = meta
        return self._meta

    def _arch_key(self, key: str) -> Any:
        meta = self._metadata()
        return meta.get(f"{meta.get('general.architecture', '')}.{key}")

    @property
    def preset(self) -> Preset:
        """The family conventions (prefixes, budget) matched from the GGUF."""
        if self._preset is None:
            meta = self._metadata()
            name = f"{meta.get('general.name', '')}\n{meta.get('general.basename', '')}"
            self._preset = detect_preset(name, meta.get("general.architecture", ""), self._path.name)
        return self._preset

    @property
    def model_path(self) -> Path:
        return self._path

    @property
    def model_name(self) -> str:
        """``general.name`` from the GGUF, else the file name without ``.gguf``."""
        name = self._metadata().get("general.name")
        return str(name) if name else self._path.name.removesuffix(".gguf")

    @property
    def model_sha256(self) -> str:
        """SHA-256 of the model file: from the sidecar when valid, else hashed once."""
        if self._sha256 is None:
            self._metadata()  # a missing file, a device, a FIFO or not a GGUF: its one line, before any read
            digest = read_sha256_sidecar(self._path)
            if digest is None:
                try:
                    digest = sha256_file(self._path)
                except OSError as exc:
                    raise EmbedderError(f"{self._path}: cannot read the model file ({exc.strerror or exc})") from None
            self._sha256 = digest
        return self._sha256

    @property
    def dims(self) -> int:
        dims = self._arch_key("embedding_length")
        if not isinstance(dims, int) or dims <= 0:
            raise EmbedderError(f"{self._path}: GGUF lacks its embedding length; not an embedding model")
        return dims

    @property
    def query_prefix(self) -> str:
        return self.preset.query_prefix if self._query_prefix is None else self._query_prefix

    @property
    def document_prefix(self) -> str:
        return self.preset.document_prefix if self._document_prefix is None else self._document_prefix

    @property
    def recipe(self) -> str:
        """What stored vectors depend on: model file, document prefix, window size, windowing.

        Hex SHA-256; it keys stored vectors and pins the store, so changing
        any ingredient re-embeds instead of mixing. The query prefix is not in
        it: queries are embedded fresh on every search.
        """
        h = hashlib.sha256()
        for part in (self.model_sha256, self.document_prefix, str(self.max_tokens), WINDOWING_VERSION):
            h.update(part.encode("utf-8", "surrogatepass"))
            h.update(b"\0")
        return h.hexdigest()

    @property
    def source(self) -> str:
        """Where vectors are computed: ``local`` or the server's URL."""
        return "local"

    @property
    def max_tokens(self) -> int:
        """Tokens per text, prefix and special tokens included; also the model window."""
        budget = self._max_tokens_arg or self.preset.max_tokens
        n_ctx_train = self._arch_key("context_length")
        if isinstance(n_ctx_train, int) and n_ctx_train > 0:
            budget = min(budget, n_ctx_train)
        return max(8, int(budget))

    @property
    def n_threads(self) -> int:
        """Threads llama.cpp used for the latest text (0 before the model loads)."""
        return self._threads

    # ---- the model ----------------------------------------------------

    def _model(self) -> Any:
        if self._llama is None:
            budget = self.max_tokens  # also validates the header first
            quiet_llama()
            from hookgraph.llama.lite import EmbeddingModel

            pooling = None
            if self._arch_key("pooling_type") is None:  # old conversions: use the family's pooling
                pooling = self.preset.pooling
            threads = self._fixed_threads or threads_now(self._ncpu)
            try:
                with interrupts_deferred():  # Ctrl-C during the load: one line, not a silent exit 1
                    # n_ctx is also n_batch and n_ubatch: a text over n_ubatch aborts the process; none gets there.
                    # Flash attention on: 1.5-2x faster at equal accuracy (DESIGN.md section 6).
                    self._llama = EmbeddingModel(str(self._path), n_ctx=budget, n_threads=threads,
                                                 pooling_type=pooling)
                self._threads = threads
            except (ValueError, RuntimeError, OSError) as exc:
                raise EmbedderError(
                    f"{self._path}: llama.cpp could not load this model ({exc}); "
                    f"use a GGUF embedding model or re-convert it"
                ) from None
        return self._llama

    def _adapt_threads(self, model: Any) -> None:
        """Fewer threads at once when a core gets busy; more only after two idle readings.

        Going up on one reading that can be off by a thread would risk a
        text at the ~40x collapse; staying low one text too long costs ~2x.
        """
        want = threads_now(self._ncpu)
        if want > self._threads:
            self._idle_readings += 1
            if self._idle_readings < 2:
                return
        self._idle_readings = 0
        if want != self._threads:
            model.set_threads(want)
            self._threads = want

    def _count(self, text: str) -> int:
        return len(self._model().tokenize(text.encode("utf-8"), add_bos=True, special=False))

    def tokenize(self, text: str) -> list[int]:
        """Token ids the model sees for ``text`` alone, special tokens included."""
        return list(self._model().tokenize(text.encode("utf-8"), add_bos=True, special=False))

    def count_tokens(self, text: str) -> int:
        """Tokens the model sees for ``text`` alone, special tokens included."""
        return self._count(text)

    def word_pieces(self, word: str) -> list[str]:
        """The pieces the model's vocabulary splits ``word`` into (special tokens left out).

        A plain English word is usually one piece (``rotate``) or a word and
        an ending (``spelling`` + ``s``); a product name or an acronym is
        fragments (``nushell``: ``nu``, ``sh``, ``ell``).
        """
        model = self._model()
        empty = self.tokenize("")  # the special tokens alone: [CLS] [SEP], or BOS, or none
        tokens = self.tokenize(word)
        head = 1 if empty and tokens[:1] == empty[:1] else 0
        tail = len(empty) - head  # what the model appends (SEP, EOS)
        return [model.piece(t) for t in tokens[head : len(tokens) - tail]]

    def _fit(self, text: str, prefix: str) -> tuple[str, bool, int]:
        """Longest prefix ``cut`` of ``text`` such that ``prefix + cut`` fits the budget.

        Returns the cut, whether it is shorter than ``text``, and its token count.

        Token counts of character prefixes are not monotonic inside a word
        (``met`` is one piece, ``meth`` two, ``methods`` one again), so the
        search runs over word boundaries, where they are, and then adds as
        much of the next word as still fits, the way sentence-transformers
        keeps the leading pieces of the word it cuts.
        """
        budget = self.max_tokens
        # A lone surrogate (a non-UTF-8 command line, a JSON "\udcff" over MCP) cannot be
        # encoded for the tokenizer: each becomes "?" (same length, so callers' offsets hold).
        text = text.encode("utf-8", "replace").decode("utf-8") if not text.isascii() else text
        if prefix not in self._prefix_tokens:
            self._prefix_tokens[prefix] = self._count(prefix)
        if self._prefix_tokens[prefix] > budget:
            raise EmbedderError(f"{self._path}: the prefix {prefix!r} alone exceeds {budget} tokens")

        def fits(p: int) -> int | None:
            n = self._count(prefix + text[:p])
            return n if n <= budget else None

        # Ordinary texts: one count. Long ones skip it, so a 1 MB line is never
        # tokenised whole.
        if len(text) <= budget * 16 and (n := fits(len(text))) is not None:
            return text, False, n
        # A window text[:hi] that no longer fits, found by doubling.
        hi = min(len(text), budget * 4)
        while (n := fits(hi)) is not None:
            if hi >= len(text):
                return text, False, n
            hi = min(len(text), hi * 2)
        window = text[:hi]
        runs = [m.span() for m in _WORD.finditer(window)]
        starts = [a for a, _ in runs]

        def snap(p: int) -> int:  # back to the start of the word p is inside
            i = bisect.bisect_right(starts, p) - 1
            return starts[i] if i >= 0 and starts[i] < p < runs[i][1] else p

        lo, hi_b = 0, hi  # snap(lo) fits; hi_b is the smallest known not fitting
        while hi_b - lo > 1:
            mid = (lo + hi_b) // 2
            if fits(snap(mid)) is not None:
                lo = mid
            else:
                hi_b = mid
        cut = snap(lo)
        # Part of the next word, longest first (a word's pieces of a prefix are
        # the word's own leading pieces); long runs are binary-searched instead.
        i = bisect.bisect_right(starts, cut) - 1
        if i >= 0 and starts[i] == cut:
            word_end = runs[i][1]
            if word_end - cut <= _MAX_SCAN:
                for p in range(word_end - 1, cut, -1):
                    if fits(p) is not None:
                        cut = p
                        break
            else:
                a, b = cut, word_end
                while b - a > 1:
                    mid = (a + b) // 2
                    if fits(mid) is not None:
                        a = mid
                    else:
                        b = mid
                cut = a
        n = fits(cut)
        if n is None:  # cannot happen for sane tokenizers; stay safe regardless
            cut, n = 0, self._prefix_tokens[prefix]
        return text[:cut], True, n

    def windows(self, text: str) -> tuple[list[str], bool, list[int]]:
        """``text`` cut into windows that each fit the budget after the document prefix.

        Returns the windows (without prefix), whether text was left over after
        the last of ``max_windows`` windows, and each window's token count
        (prefix and special tokens included). Cuts prefer a line boundary in
        the second half of a window; every window after the first repeats the
        text's first line when it is short (the composed text's ``kind
        qualname``), so each window still says what it belongs to.
        """
        prefix = self.document_prefix
        first_nl = text.find("\n")
        header = text[: first_nl + 1] if 0 < first_nl < _MAX_CARRIED_LINE else ""
        out: list[str] = []
        counts: list[int] = []
        rest = text
        carry = ""
        while True:
            fitted, cut, n = self._fit(carry + rest, prefix)
            taken = len(fitted) - len(carry)
            if taken <= 0 and carry:  # the carried line alone fills the window: go without it
                carry = ""
                continue
            if taken <= 0:  # the prefix leaves no room at all: nothing more can be embedded
                return out or [""], True, counts or [n]
            if cut:
                body = fitted[len(carry) :]
                nl = body.rfind("\n")
                if nl + 1 > len(body) // 2 and nl + 1 < len(body):
                    fitted = carry + body[: nl + 1]
                    taken = nl + 1
                    n = self._count(prefix + fitted)
            out.append(fitted)
            counts.append(n)
            rest = rest[taken:]
            if not cut or not rest.strip():
                return out, False, counts
            if len(out) >= self.max_windows:
                return out, True, counts
            carry = header

    def fit(self, text: str) -> tuple[str, bool]:
        """``text`` cut to fit one window after the document prefix; and whether it was cut."""
        fitted, truncated, _ = self._fit(text, self.document_prefix)
        return fitted, truncated

    @property
    def batch_size(self) -> int:
        """Texts the drain passes per call: :data:`PAIR_BATCH` when two contexts may run, else one (a
        server's embedder sets its own: texts per request)."""
        if self._batch_size is not None:
            return self._batch_size
        return PAIR_BATCH if self._may_pair() else 1

    @batch_size.setter
    def batch_size(self, value: int) -> None:
        self._batch_size = value

    def _may_pair(self) -> bool:
        return self.contexts >= 2 and not self._fixed_threads and self._ncpu >= 2

    def _compute(self, texts: list[str], counts: list[int]) -> np.ndarray:
        """Unit vectors for ready strings (prefix included, each within budget).

        With ``contexts`` 2 and two idle cores, the strings are shared between two model contexts of
        one thread each, run side by side: this model's matrices are small and llama.cpp's threads
        meet at a barrier after every operation, so two contexts did 1.18x the texts of one context
        with two threads in isolation, and the worker drained ktor and httpie 1.06x sooner end to end
        (benchmarks/RESULTS.md, "Both cores for the model"). The vectors are the same either way
        (one text, one context, as always).
        """
        import numpy as np

        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        jobs = [i for i, n_tokens in enumerate(counts) if n_tokens]  # an empty text: nothing to run
        second = self._second_context(len(jobs))
        if second is None:
            for i in jobs:
                out[i] = _unit(np.asarray(self._pooled_vector(texts[i]), dtype=np.float32))
            return out
        import threading

        failed: list[BaseException] = []
        # Each context takes the next string when it is free: windows differ in length up to 128x, so a
        # fixed half each would leave one core idle while the other finishes the long ones.
        todo = iter(jobs)
        taking = threading.Lock()

        def run(model: Any) -> None:
            try:
                while not failed:
                    with taking:
                        i = next(todo, None)
                    if i is None:
                        return
                    out[i] = _unit(np.asarray(model.embed(texts[i]), dtype=np.float32))
            except BaseException as exc:  # noqa: BLE001 - raised again in the calling thread
                failed.append(exc)

        helper = threading.Thread(target=run, args=(second,), name="hookgraph-embed-2", daemon=True)
        helper.start()
        try:
            with interrupts_deferred():
                run(self._model())
        finally:
            helper.join()  # never free or reuse a model the other thread is still running
        if failed:
            raise failed[0]
        return out

    def _second_context(self, jobs: int) -> Any:
        """The second model context, one thread each, when it may run now; else None (one context adapts)."""
        if jobs < 2 or not self._may_pair() or threads_now(self._ncpu) < 2:
            return None
        model = self._model()
        if self._threads != 1:
            model.set_threads(1)
            self._threads = 1
            self._idle_readings = 0
        if self._second is None:
            from hookgraph.llama.lite import EmbeddingModel

            pooling = self.preset.pooling if self._arch_key("pooling_type") is None else None
            try:
                with interrupts_deferred():
                    self._second = EmbeddingModel(str(self._path), n_ctx=self.max_tokens, n_threads=1,
                                                  pooling_type=pooling)
            except (ValueError, RuntimeError, OSError):
                self.contexts = 1  # memory or the model said no: one context, as before
                return None
        return self._second

    def _pooled_vector(self, full: str) -> list[float]:
        """The model's pooled vector of one ready string, not normalised."""
        model = self._model()
        if not model.pooled:
            raise EmbedderError(f"{self._path}: model returned token embeddings; it needs a pooling type")
        if not self._fixed_threads:
            self._adapt_threads(model)
        # Were the count ever wrong, embed raises instead of aborting.
        with interrupts_deferred():
            vector: list[float] = model.embed(full)
        return vector

    def _run(self, texts: list[str], counts: list[int]) -> np.ndarray:
        self._log(texts)
        return self._compute(texts, counts)

    def _log(self, texts: list[str]) -> None:
        if self.embedded_log is not None:
            self.embedded_log.extend(texts)
        self.texts_embedded += len(texts)

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        """Unit vectors, shape ``(len(texts), dims)``, with the document prefix; one window each."""
        import numpy as np

        prefix = self.document_prefix
        fulls: list[str] = []
        counts: list[int] = []
        for text in texts:
            fitted, _truncated, n_tokens = self._fit(text, prefix)
            fulls.append(prefix + fitted)
            counts.append(n_tokens)
        if not fulls:
            return np.empty((0, self.dims), dtype=np.float32)
        return self._run(fulls, counts)

    def embed_windows(self, texts: list[str]) -> list[tuple[np.ndarray, bool]]:
        """Each text as its windows' unit vectors ``(windows, dims)``, and whether it was cut.

        A text longer than one window is split (see :meth:`windows`) rather
        than truncated; only text past ``max_windows`` windows is cut.
        """
        prefix = self.document_prefix
        fulls: list[str] = []
        counts: list[int] = []
        spans: list[tuple[int, int, bool]] = []
        for text in texts:
            wins, truncated, ns = self.windows(text)
            spans.append((len(fulls), len(wins), truncated))
            fulls.extend(prefix + w for w in wins)
            counts.extend(ns)
        if not fulls:
            return []
        vectors = self._run(fulls, counts)
        return [(vectors[start : start + n], truncated) for start, n, truncated in spans]

    def embed_query(self, text: str) -> list[float]:
        """A unit vector (``dims`` Python floats), with the query prefix.

        Plain floats, not numpy: ``hookgraph ask`` as a new process would
        spend 60-80 ms importing numpy for this one vector.
        """
        fitted, _truncated, n_tokens = self._fit(text, self.query_prefix)
        full = self.query_prefix + fitted
        self._log([full])
        if n_tokens == 0:
            return [0.0] * self.dims
        return self._query_vector(full, n_tokens)

    def _query_vector(self, full: str, n_tokens: int) -> list[float]:
        """The unit vector of one ready query string, computed here."""
        vector = self._pooled_vector(full)
        norm = math.sqrt(math.fsum(x * x for x in vector))
        return [x / norm for x in vector] if norm > 0 else vector

    def close(self) -> None:
        """Free the model now rather than at garbage collection."""
        if self._second is not None:
            self._second.close()
            self._second = None
        if self._llama is not None:
            self._llama.close()
            self._llama = None
