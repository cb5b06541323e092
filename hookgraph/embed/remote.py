"""Embedding on a llama.cpp server (``/v1/embeddings``) for big first indexes.

The local GGUF stays the identity (SHA-256, tokenizer, windows); the server
only does the arithmetic, and must prove it runs the same model on a probe
text before anything is written.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from hookgraph.embed import Embedder, EmbedderError

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

__all__ = ["PROBE_MIN_COSINE", "RemoteEmbedder", "normalize_embed_url"]

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

    def _query_vector(self, full: str, n_tokens: int) -> list[float]:
        """The server embeds the query too, like every other text."""
        vector: list[float] = self._compute([full], [n_tokens])[0].tolist()
        return vector

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


