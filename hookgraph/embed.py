"""Local GGUF embeddings through llama-cpp-python, within the model's token budget.

Three traps shape this module (DESIGN.md section 6):

* A text with more tokens than ``n_ubatch`` aborts the whole process inside
  llama.cpp (GGML_ASSERT, uncatchable). So every text is counted with the
  model's own tokenizer and cut to the budget *before* it reaches
  ``Llama.embed`` — prefix and special tokens included — and ``embed`` is
  called with ``truncate=False`` so a miscount raises instead of aborting.
* ``import llama_cpp`` and the model load cost 0.1-0.3 s; a hook that touches
  no code must not pay them. Nothing here imports llama_cpp at module import,
  and an ``Embedder`` loads the model on first use only. Name, dimensions,
  prefixes and SHA-256 come from the GGUF header and the ``.sha256`` sidecar.
* One ``embed()`` call per text is faster than batching (texts in one call
  share one KV cache), and ``embed()`` does not normalise unless told to.
* llama.cpp defaults to half the cores; we use all of them on an idle
  machine, but only the free ones when other processes are running (checked
  before every text), because its spinning thread barriers slow down ~40x
  when a thread shares a core with a busy process.

A document longer than one window is split into windows (``embed_windows``),
each embedded on its own; only text past the last of ``max_windows`` windows
is cut, and counted. The embedder a repository uses comes from
``embedder_for_repo`` (``.hookgraph/config.toml``); ``RemoteEmbedder`` sends
the work to a llama.cpp server while the local GGUF stays the identity.

Cutting keeps the longest prefix of the text whose tokens fit, which gives
the same word pieces sentence-transformers keeps when it cuts at
``max_seq_length`` (greedy WordPiece on a prefix reproduces the kept pieces).
"""

from __future__ import annotations

import bisect
import ctypes
import glob
import hashlib
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hookgraph.models import default_model_path
from hookgraph.models.presets import GGUFFormatError, Preset, detect_preset, read_gguf_metadata

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np  # imported late at run time too: ~80 ms a code-free hook need not pay

__all__ = [
    "Embedder",
    "EmbedderError",
    "RemoteEmbedder",
    "embedder_for_repo",
    "quiet_llama",
    "sha256_file",
    "write_sha256_sidecar",
]


class EmbedderError(Exception):
    """The model cannot be used; the message is one line naming the file and the fix."""


# --------------------------------------------------------------------------
# llama_cpp, imported late and kept quiet

_log_callback: Any = None  # must outlive every llama.cpp call: C keeps the pointer


def quiet_llama() -> Any:
    """Import ``llama_cpp`` and route llama.cpp/ggml logging to nowhere.

    ``Llama(verbose=False)`` still lets warnings through on stderr (and the
    quantiser logs every tensor); a hook may print one line at most.
    """
    global _log_callback
    import llama_cpp

    if _log_callback is None:

        @llama_cpp.llama_log_callback
        def _discard(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
            return None

        _log_callback = _discard
        llama_cpp.llama_log_set(_log_callback, ctypes.c_void_p(0))
    return llama_cpp


def _threads_from_env() -> int | None:
    """``$HOOKGRAPH_THREADS`` when set to a positive number."""
    env = os.environ.get("HOOKGRAPH_THREADS", "").strip()
    return int(env) if env.isdigit() and int(env) > 0 else None


def _cpu_count() -> int:
    """Cores this process may run on (affinity-aware)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _own_runnable() -> int:
    """Threads of this process running or runnable now (this one included)."""
    n = 0
    for stat in glob.glob("/proc/self/task/*/stat"):
        try:
            with open(stat, encoding="ascii", errors="replace") as f:
                n += f.read().rsplit(")", 1)[1].split()[0] == "R"
        except (OSError, IndexError):
            continue
    return n


def _others_running() -> int | None:
    """Threads of other processes wanting a CPU right now (Linux), else ``None``.

    The fourth field of ``/proc/loadavg`` counts runnable threads at this
    instant, system-wide. Our own are taken off: llama.cpp's OpenMP workers
    spin for a while after each text and are not competition. ~80 µs.
    """
    try:
        mine = _own_runnable()  # first: a worker that stops meanwhile errs towards "idle"
        with open("/proc/loadavg", encoding="ascii") as f:
            total = int(f.read().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return None
    return max(0, total - mine)


def _threads_now(ncpu: int) -> int:
    """Every core on an idle machine; only the free ones on a busy one.

    llama.cpp's threads meet at spinning barriers after every operation: when
    one of them shares a core with another busy process, each barrier waits
    for a whole scheduler slice. Measured here with one other busy process:
    2 threads 1.2 texts/s, 1 thread 25 texts/s. On an idle machine the checks
    cost ~5% (41 vs 44 texts/s at ~100 tokens): blips of other activity.
    """
    first = _others_running()
    if first is None:
        return ncpu
    busy = min(first, _others_running() or 0)  # a busy process stays busy; blips do not
    return max(1, min(ncpu, ncpu - busy))


# --------------------------------------------------------------------------
# model identity


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file, read in chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def read_sha256_sidecar(path: Path) -> str | None:
    """The digest in ``<model>.sha256`` if it is there and its size matches.

    The sidecar holds one line, ``<hex digest> <size in bytes>``; the size is
    a cheap guard against a model replaced without its sidecar.
    """
    try:
        fields = _sidecar(path).read_text(encoding="ascii").split()
        size = path.stat().st_size
    except (OSError, UnicodeDecodeError):
        return None
    if len(fields) >= 2 and len(fields[0]) == 64 and fields[1].isdigit() and int(fields[1]) == size:
        try:
            int(fields[0], 16)
        except ValueError:
            return None
        return fields[0].lower()
    return None


def write_sha256_sidecar(path: Path) -> str:
    """Hash a model once and record ``<hex> <size>`` beside it; returns the hex."""
    path = Path(path)
    digest = sha256_file(path)
    _sidecar(path).write_text(f"{digest} {path.stat().st_size}\n", encoding="ascii")
    return digest


# --------------------------------------------------------------------------
# the embedder


#: A word for truncation purposes: letters and digits (BERT splits on the rest).
_WORD = re.compile(r"[^\W_]+")
#: Words up to this many characters are cut exactly; longer runs (minified
#: code, base64) are cut by binary search, still within budget.
_MAX_SCAN = 64


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
        self._fixed_threads = n_threads or _threads_from_env()
        self._threads = 0
        self._idle_readings = 0
        self._ncpu = _cpu_count()
        self._meta: dict[str, Any] | None = None
        self._preset: Preset | None = None
        self._sha256: str | None = None
        self._llama: Any = None
        self._prefix_tokens: dict[str, int] = {}
        #: Texts actually sent to the model (tests count re-embeds with it).
        self.texts_embedded = 0
        #: Texts that had to be cut to fit the budget (past the last window, for documents).
        self.texts_truncated = 0
        #: Documents split into more than one window.
        self.texts_split = 0
        #: Set to a list to record every exact string sent to the model.
        self.embedded_log: list[str] | None = None

    # ---- identity, from the header only -------------------------------

    def _metadata(self) -> dict[str, Any]:
        if self._meta is None:
            path = self._path
            if not path.is_file():
                raise EmbedderError(
                    f"{path}: model file not found; pass the path of a GGUF embedding model "
                    f"(or reinstall hookgraph for the default one)"
                )
            try:
                meta = read_gguf_metadata(path)  # every scalar key, one pass (~5 ms: arrays are skipped)
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
            llama_cpp = quiet_llama()
            kwargs: dict[str, Any] = {}
            if self._arch_key("pooling_type") is None:  # old conversions: use the family's pooling
                kwargs["pooling_type"] = self.preset.pooling
            threads = self._fixed_threads or _threads_now(self._ncpu)
            try:
                self._llama = llama_cpp.Llama(
                    model_path=str(self._path),
                    embedding=True,
                    n_ctx=budget,
                    n_batch=budget,
                    n_ubatch=budget,  # a text over n_ubatch aborts the process; none gets there
                    n_threads=threads,
                    n_threads_batch=threads,
                    flash_attn=True,
                    verbose=False,
                    **kwargs,
                )
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
        want = _threads_now(self._ncpu)
        if want > self._threads:
            self._idle_readings += 1
            if self._idle_readings < 2:
                return
        self._idle_readings = 0
        if want != self._threads:
            quiet_llama().llama_set_n_threads(model.ctx, want, want)
            self._threads = want

    def _count(self, text: str) -> int:
        return len(self._model().tokenize(text.encode("utf-8"), add_bos=True, special=False))

    def tokenize(self, text: str) -> list[int]:
        """Token ids the model sees for ``text`` alone, special tokens included."""
        return list(self._model().tokenize(text.encode("utf-8"), add_bos=True, special=False))

    def count_tokens(self, text: str) -> int:
        """Tokens the model sees for ``text`` alone, special tokens included."""
        return self._count(text)

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

    def _compute(self, texts: list[str], counts: list[int]) -> np.ndarray:
        """Unit vectors for ready strings (prefix included, each within budget)."""
        import numpy as np

        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        model = self._model()
        for i, (full, n_tokens) in enumerate(zip(texts, counts)):
            if n_tokens == 0:  # a model without BOS/EOS and an empty text: nothing to run
                continue
            if not self._fixed_threads:
                self._adapt_threads(model)
            # truncate=False: were the count ever wrong, embed raises instead of aborting.
            vec = np.asarray(model.embed(full, normalize=False, truncate=False), dtype=np.float32)
            if vec.ndim != 1:
                raise EmbedderError(f"{self._path}: model returned token embeddings; it needs a pooling type")
            norm = float(np.linalg.norm(vec))
            out[i] = vec / norm if norm > 0 else vec
        return out

    def _run(self, texts: list[str], counts: list[int]) -> np.ndarray:
        if self.embedded_log is not None:
            self.embedded_log.extend(texts)
        self.texts_embedded += len(texts)
        return self._compute(texts, counts)

    def _embed_one(self, text: str, prefix: str) -> np.ndarray:
        fitted, truncated, n_tokens = self._fit(text, prefix)
        self.texts_truncated += int(truncated)
        return self._run([prefix + fitted], [n_tokens])[0]

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        """Unit vectors, shape ``(len(texts), dims)``, with the document prefix; one window each."""
        import numpy as np

        prefix = self.document_prefix
        fulls: list[str] = []
        counts: list[int] = []
        for text in texts:
            fitted, truncated, n_tokens = self._fit(text, prefix)
            self.texts_truncated += int(truncated)
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
            self.texts_truncated += int(truncated)
            self.texts_split += int(len(wins) > 1)
            spans.append((len(fulls), len(wins), truncated))
            fulls.extend(prefix + w for w in wins)
            counts.extend(ns)
        if not fulls:
            return []
        vectors = self._run(fulls, counts)
        return [(vectors[start : start + n], truncated) for start, n, truncated in spans]

    def embed_query(self, text: str) -> np.ndarray:
        """A unit vector, shape ``(dims,)``, with the query prefix."""
        return self._embed_one(text, self.query_prefix)

    def close(self) -> None:
        """Free the model now rather than at garbage collection."""
        if self._llama is not None:
            self._llama.close()
            self._llama = None


# --------------------------------------------------------------------------
# a llama.cpp server doing the embedding


#: The remote must give this cosine on the probe text, against the local
#: model, to count as serving the same GGUF. Measured here with the shipped
#: q8_0 model: the same file served by ``python -m llama_cpp.server`` gives
#: 0.9999998 (flash attention on, as locally); the f16 file of the same
#: weights gives 0.99993 and a server with flash attention off 0.99997, so
#: only the same file, run the same way, passes. (Batches of several texts
#: per request then differ from one-text-at-a-time by cosine ~0.99998: the
#: order of float sums, not the model.)
PROBE_MIN_COSINE = 0.99999
PROBE_TEXT = (
    "function probe_hookgraph_remote\n"
    "def probe_hookgraph_remote(path, retries=3):\n"
    '    """Check the server embeds exactly like the local model."""\n'
    "    return open(path).read().split()\n"
)


class RemoteEmbedder(Embedder):
    """Documents embedded by a llama.cpp server (``/v1/embeddings``), pinned to a local GGUF.

    A remote model cannot be hashed, so the local GGUF stays the identity:
    its SHA-256, dimensions, preset and tokenizer (token budget and windows
    are computed here, so every request fits the server's batch). Before the
    first batch, one probe text is embedded both here and there; a cosine
    under :data:`PROBE_MIN_COSINE` means the server runs another model (or
    another quantisation) and nothing is written.

    Requests carry ``batch_size`` texts; network errors, HTTP 429 and 5xx are
    retried with exponential backoff (``retries`` times), anything else fails
    at once with one line naming the server.
    """

    def __init__(
        self,
        url: str,
        model_path: Path | str | None = None,
        *,
        batch_size: int = 8,
        timeout: float = 120.0,
        retries: int = 3,
        backoff: float = 0.5,
        min_cosine: float = PROBE_MIN_COSINE,
        **kwargs: Any,
    ) -> None:
        super().__init__(model_path, **kwargs)
        self.url = normalize_embed_url(url)
        self.batch_size = max(1, int(batch_size))
        self.timeout = timeout
        self.retries = max(0, int(retries))
        self.backoff = backoff
        self.min_cosine = min_cosine
        #: Cosine of the probe text, local vs remote (None before the check).
        self.probe_cosine: float | None = None
        #: HTTP requests made (the probe included) and retries needed.
        self.requests = 0
        self.retried = 0

    @property
    def source(self) -> str:
        return self.url

    def _post(self, texts: list[str]) -> list[list[float]]:
        import json
        import socket
        import time
        import urllib.error
        import urllib.request

        body = json.dumps({"input": texts, "model": self.model_name}).encode("utf-8")
        last = ""
        for attempt in range(self.retries + 1):
            if attempt:
                self.retried += 1
                time.sleep(min(self.backoff * 2 ** (attempt - 1), 30.0))
            request = urllib.request.Request(
                self.url, data=body, method="POST",
                headers={"Content-Type": "application/json", "Accept": "application/json"},
            )
            self.requests += 1
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    payload = json.loads(response.read().decode("utf-8"))
            except urllib.error.HTTPError as exc:
                detail = " ".join(exc.read(300).decode("utf-8", "replace").split())
                if exc.code == 429 or exc.code >= 500:
                    last = f"HTTP {exc.code} {detail}".strip()
                    continue
                raise EmbedderError(
                    f"embedding server {self.url} refused the request: HTTP {exc.code} {detail}".strip()
                ) from None
            except (urllib.error.URLError, ConnectionError, TimeoutError, socket.timeout) as exc:
                reason = getattr(exc, "reason", exc)
                last = " ".join(str(reason).split()) or type(exc).__name__
                continue
            except ValueError as exc:  # not JSON: some other service on that port
                raise EmbedderError(f"embedding server {self.url} did not answer JSON ({exc})") from None
            try:
                data = sorted(payload["data"], key=lambda d: d["index"])
                vectors = [d["embedding"] for d in data]
            except (KeyError, TypeError) as exc:
                raise EmbedderError(
                    f"embedding server {self.url} answered without OpenAI-style embeddings (missing {exc})"
                ) from None
            if len(vectors) != len(texts):
                raise EmbedderError(f"embedding server {self.url} returned {len(vectors)} vectors for {len(texts)} texts")
            return vectors
        raise EmbedderError(
            f"cannot reach the embedding server at {self.url} ({last}) after {self.retries + 1} tries: "
            f"start it (e.g. `python -m llama_cpp.server --model {self._path} --embedding true`) "
            f"or index without --embed-url"
        )

    def _remote(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        raw = np.asarray(self._post(texts), dtype=np.float32)
        if raw.ndim != 2 or raw.shape[1] != self.dims:
            got = raw.shape[-1] if raw.ndim >= 2 else "token-level"
            raise EmbedderError(
                f"embedding server {self.url} returns {got}-dimensional vectors but {self.model_name} "
                f"({self._path.name}) has {self.dims}: it serves another model"
            )
        norms = np.linalg.norm(raw, axis=1, keepdims=True)
        return raw / np.where(norms > 0, norms, 1.0)

    def verify(self) -> float:
        """Embed the probe text here and there; refuse a server that embeds differently."""
        import numpy as np

        if self.probe_cosine is not None:
            return self.probe_cosine
        fitted, _, n = self._fit(PROBE_TEXT, self.document_prefix)
        full = self.document_prefix + fitted
        local = super()._compute([full], [n])[0]
        remote = self._remote([full])[0]
        cosine = float(np.dot(local, remote))
        if cosine < self.min_cosine:
            raise EmbedderError(
                f"embedding server {self.url} does not embed like {self._path.name} "
                f"(sha256 {self.model_sha256[:12]}): probe cosine {cosine:.5f} < {self.min_cosine}; "
                f"serve that same GGUF (with flash attention on) or index without --embed-url"
            )
        self.probe_cosine = cosine
        return cosine

    def _compute(self, texts: list[str], counts: list[int]) -> np.ndarray:
        import numpy as np

        self.verify()
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        todo = [i for i, n in enumerate(counts) if n > 0]
        for start in range(0, len(todo), self.batch_size):
            chunk = todo[start : start + self.batch_size]
            out[chunk] = self._remote([texts[i] for i in chunk])
        return out


def normalize_embed_url(url: str) -> str:
    """``http://host:port`` (or ``.../v1``) -> ``http://host:port/v1/embeddings``."""
    from urllib.parse import urlsplit

    url = url.strip()
    if "://" not in url:
        url = "http://" + url
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise EmbedderError(f"{url!r} is not an http(s) URL of an embedding server")
    path = parts.path.rstrip("/")
    if not path.endswith("/embeddings"):
        path = (path if path.endswith("/v1") else path + "/v1") + "/embeddings"
    return f"{parts.scheme}://{parts.netloc}{path}"


# --------------------------------------------------------------------------
# the model a repository is configured to use


def configured_model_path(root: Path | None, value: Any) -> Path:
    """``[model] path`` resolved: ``~`` expanded, relative to the repo root; default if unset."""
    if value is None or value == "":
        return default_model_path()
    path = Path(os.path.expanduser(str(value)))
    if not path.is_absolute() and root is not None:
        path = Path(root) / path
    return path


def embedder_for_repo(
    root: Path | None,
    *,
    embed_url: str | None = None,
    use_remote: bool = False,
) -> Embedder:
    """The embedder ``.hookgraph/config.toml`` asks for (the shipped model by default).

    ``[model]`` gives the GGUF and any prefix/budget overrides; ``embed_url``
    (``index --embed-url``), else ``[embed] url`` when ``use_remote``, sends
    documents to a llama.cpp server. Only ``hookgraph index`` asks for the
    remote: hooks and queries embed a handful of texts, faster here than a
    round trip, and must not fail because a server is down. Cheap: nothing
    is loaded.
    """
    from hookgraph import config

    try:
        model = config.section(root, "model") if root is not None else {}
        embed = config.section(root, "embed") if root is not None else {}
    except config.ConfigError as exc:
        raise EmbedderError(str(exc)) from None
    where = f"{config.config_path(root)}" if root is not None else "config"
    kwargs: dict[str, Any] = {}
    for key in ("query_prefix", "document_prefix"):
        if key in model:
            if not isinstance(model[key], str):
                raise EmbedderError(f"{where}: [model] {key} must be a string")
            kwargs[key] = model[key]
    if "max_tokens" in model:
        if not isinstance(model["max_tokens"], int) or isinstance(model["max_tokens"], bool) or model["max_tokens"] < 8:
            raise EmbedderError(f"{where}: [model] max_tokens must be an integer >= 8")
        kwargs["max_tokens"] = model["max_tokens"]
    if "path" in model and not isinstance(model["path"], str):
        raise EmbedderError(f"{where}: [model] path must be a string")
    path = configured_model_path(root, model.get("path"))
    url = embed_url or (embed.get("url") if use_remote else None)
    if url:
        if not isinstance(url, str):
            raise EmbedderError(f"{where}: [embed] url must be a string")
        batch = embed.get("batch_size", 8)
        if not isinstance(batch, int) or isinstance(batch, bool) or batch < 1:
            raise EmbedderError(f"{where}: [embed] batch_size must be a positive integer")
        return RemoteEmbedder(url, path, batch_size=batch, **kwargs)
    return Embedder(path, **kwargs)


def store_mismatch(get_meta: Any, embedder: Embedder) -> str | None:
    """Why a store's vectors cannot be used with ``embedder`` (one line), or None if they can.

    ``get_meta`` is ``Store.get_meta``. The store pins the embedding recipe:
    model SHA-256 (so a same-dimension swap is caught), document prefix and
    window size. Stores written before the recipe was recorded are checked
    on the model, prefix and window fields they do have.
    """
    stored_sha = get_meta("model_sha256")
    if not stored_sha:
        return None
    fix = "run `hookgraph index --reembed` (or `hookgraph index --full`) to re-embed it"
    old_name = get_meta("model_name") or "another model"
    if stored_sha != embedder.model_sha256:
        old_file = get_meta("model_file")
        old = f"{old_name}" + (f" ({old_file}" if old_file else " (") + f", sha256 {stored_sha[:12]})"
        return (
            f"the index was embedded with {old} but the model in use is {embedder.model_name} "
            f"({embedder.model_path.name}, sha256 {embedder.model_sha256[:12]}): {fix} with the new model, "
            f"or switch back with `hookgraph model use`"
        )
    recipe = get_meta("embed_recipe")
    if recipe is not None and recipe == embedder.recipe:
        return None
    old_prefix = get_meta("document_prefix")
    old_tokens = get_meta("max_tokens")
    changes = []
    if old_prefix is not None and old_prefix != embedder.document_prefix:
        changes.append(f"document prefix {old_prefix!r} -> {embedder.document_prefix!r}")
    if old_tokens is not None and old_tokens != str(embedder.max_tokens):
        changes.append(f"window {old_tokens} -> {embedder.max_tokens} tokens")
    if recipe is None and not changes:
        return None  # an older store with the same model, prefix and window
    what = "; ".join(changes) or "windowing changed"
    return f"the index was embedded with {old_name} under another recipe ({what}): {fix}"
