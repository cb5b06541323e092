"""The slow half of a sync: embed queued texts in short batches and publish them into the index.

A sync (:mod:`hookgraph.sync`) writes units, full text and edges at once and
queues every composed text that has no vector anywhere (the store's
``pending`` table). :func:`drain` empties that queue:

1. read the next batch of queued texts (no lock, a read transaction);
2. take what another worktree or clone embedded meanwhile from the vector
   caches, and embed the rest - holding no lock at all, so a hook that needs
   the index never waits for the model;
3. publish: under the index's write lock, in one short transaction, store each
   text's vectors and point its waiting units at them, then copy the new
   vectors into the caches.

A batch is sized to take about ``batch_seconds`` of model time, so a kill -9
at any moment loses at most that much work and a writer never waits longer
than one publish (milliseconds). A text whose units went away before its turn
is dropped from the queue by the sync that removed them, and not published.

Used in-process by ``hookgraph index --wait``, the shared-mode ``pre-commit``
hook (within a time budget) and the MCP server; and by the detached
background embedder (:mod:`hookgraph.embed.worker`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hookgraph.store import Store, quantize
from hookgraph.store.lock import write_lock
from hookgraph.errors import HookgraphError
from hookgraph.store.trust import distrusted_sources, still_distrusted

if TYPE_CHECKING:
    from hookgraph.embed import Embedder
    from hookgraph.store.vector_cache import VectorCache

__all__ = ["DrainReport", "EmbedMismatch", "drain", "progress_of", "rank_waiting"]

#: Model time one batch aims at (seconds): the most a kill -9 can lose.
BATCH_SECONDS = 2.0
#: Bounds of a batch, in texts.
MIN_BATCH, MAX_BATCH = 1, 256
#: The first batch, before a rate is known (~1 s at all-MiniLM's pace here).
FIRST_BATCH = 16
#: Meta keys the embedder keeps up to date for ``status`` (never part of a store's identity).
RATE_KEY, UPDATED_KEY, DONE_KEY = "embedder_rate", "embedder_updated", "embedder_done"
#: Meta key set by ``index --reembed``: this queue is embedded by the model, no cache is read, until it is empty.
NO_CACHE_META = "reembed_no_cache"


class EmbedMismatch(HookgraphError):
    """The queue was filled for another model or recipe than the embedder at hand; the message says what to do."""


@dataclass
class DrainReport:
    """What one drain did."""

    #: Texts sent to the model.
    embedded: int = 0
    #: Texts whose vectors came from a cache instead.
    from_cache: int = 0
    #: Texts published into the index (embedded or cached, and still wanted there).
    published: int = 0
    batches: int = 0
    #: Texts still queued when the drain stopped.
    remaining: int = 0
    #: Embedded texts that took several windows (long units), and those cut after their last one.
    split: int = 0
    truncated: int = 0
    seconds: float = 0.0
    #: Texts per second of model time over this drain (0 when nothing was embedded).
    rate: float = 0.0
    #: Why it stopped: "empty", "deadline", "batches" (max_batches reached), "stopped".
    stopped: str = "empty"


def drain(
    database: Path,
    embedder: Embedder,
    *,
    caches: list[VectorCache] | None = None,
    deadline: float | None = None,
    max_batches: int | None = None,
    batch_seconds: float = BATCH_SECONDS,
    lock_timeout: float = 60.0,
    progress: Callable[[int, int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> DrainReport:
    """Embed and publish queued texts of ``database`` until the queue is empty (or a limit is hit).

    ``deadline`` (a ``time.monotonic()`` value) stops before starting a text
    that would begin after it; what was embedded by then is published.
    ``progress(done, total)`` is called after each text and each publish.
    Raises :class:`EmbedMismatch` when the store's recipe is not the
    embedder's (nothing is embedded then).
    """
    started = time.monotonic()
    report = DrainReport()
    rank_waiting(database, lock_timeout)
    size = FIRST_BATCH
    #: Caches whose vectors were checked against the model in this drain (see _from_caches).
    checked: dict[int, bool] = {}
    readable = list(caches or [])
    model_seconds = 0.0
    done = 0
    while True:
        if max_batches is not None and report.batches >= max_batches:
            report.stopped = "batches"
            break
        if deadline is not None and time.monotonic() >= deadline:
            report.stopped = "deadline"
            break
        if should_stop is not None and should_stop():
            report.stopped = "stopped"
            break
        with Store(database) as store:
            store.begin_read()
            _check_recipe(store, embedder)
            batch = store.next_pending(size)
            total = done + store.pending_count()
            if store.get_meta(NO_CACHE_META) is not None:
                readable = []
            distrusted = distrusted_sources(store)
        if not batch:
            report.stopped = "empty"
            break
        ready: dict[bytes, tuple[str, Any, bool]] = {}
        hits, origins = _from_caches(readable, batch, embedder, checked, distrusted)
        texts = {text_hash: text for text_hash, _language, text in batch}
        for text_hash, language, _text in batch:
            if text_hash in hits:
                cached = hits[text_hash]
                ready[text_hash] = (language, cached.arrays(), cached.truncated)
        adopted = [(key, origins[key], texts[key]) for key in ready]  # checked in full later (embed.recheck)
        report.from_cache += len(ready)
        new: list[bytes] = []
        t0 = time.monotonic()
        todo = [(h, lang, text) for h, lang, text in batch if h not in ready]
        _log_batch(len(todo))
        step = max(1, int(getattr(embedder, "batch_size", 1)))  # a server takes several texts per request
        for start in range(0, len(todo), step):
            if (deadline is not None and time.monotonic() >= deadline) or (should_stop is not None and should_stop()):
                break
            chunk = todo[start:start + step]
            for (text_hash, language, _text), (vectors, truncated) in zip(
                chunk, embedder.embed_windows([text for _, _, text in chunk])
            ):
                ready[text_hash] = (language, vectors, truncated)
                new.append(text_hash)
                report.split += int(len(vectors) > 1)
                report.truncated += int(truncated)
            if progress is not None:
                progress(done + len(ready), total)
        spent = time.monotonic() - t0
        model_seconds += spent
        report.embedded += len(new)
        published = _publish(database, embedder, ready, lock_timeout, rate=len(new) / spent if new and spent else None,
                             adopted=adopted)
        report.published += published
        done += len(ready)
        report.batches += 1
        if caches and new:
            _to_caches(caches, {h: ready[h] for h in new}, embedder.dims)
        if progress is not None:
            progress(done, total)
        if new and spent > 0:  # aim the next batch at batch_seconds of model time
            per_text = spent / len(new)
            size = max(MIN_BATCH, min(MAX_BATCH, int(batch_seconds / per_text) or MIN_BATCH))
        if len(ready) < len(batch):  # stopped inside the batch (deadline or stop request)
            report.stopped = "deadline" if deadline is not None and time.monotonic() >= deadline else "stopped"
            break
    with Store(database) as store:
        report.remaining = store.pending_count()
        flagged = store.get_meta(NO_CACHE_META) is not None
    if flagged and report.remaining == 0:
        with write_lock(database.parent, timeout=lock_timeout), Store(database) as store, store.transaction():
            if not store.pending_count():
                store.delete_meta(NO_CACHE_META)
    report.seconds = time.monotonic() - started
    report.rate = report.embedded / model_seconds if report.embedded and model_seconds else 0.0
    return report


def rank_waiting(database: Path, lock_timeout: float = 60.0) -> int:
    """Order a first index's queued code most used first (:func:`hookgraph.embed.order.rank_by_use`), if the sync
    left that to whoever empties the queue; returns how many texts were ordered (0: nothing was left to order).

    The order matters only to the model, so the sync does not make a user wait for it: on tokio's first index
    it was 0.04 s of the end, with one core idle (benchmarks/RESULTS.md). The sync records the tier in
    :data:`~hookgraph.embed.order.RANK_META`, in its own transaction, once every edge is in; this step clears
    it in the transaction that orders, so a later first index's request is never lost.
    """
    from hookgraph.embed.order import RANK_META, rank_by_use

    with Store(database) as store:
        if store.get_meta(RANK_META) is None:
            return 0
    ordered = 0
    with write_lock(database.parent, timeout=lock_timeout), Store(database) as store, store.transaction():
        tier = store.get_meta(RANK_META)
        if tier is not None:
            store.delete_meta(RANK_META)
            ordered = rank_by_use(store, int(tier)) if tier.isdigit() else 0
    return ordered


def _log_batch(texts: int) -> None:
    """``HOOKGRAPH_EMBED_LOG=FILE``: one line per batch, ``<pid> <texts>``, written before the model starts.

    Benchmarks and tests count model work with it: a batch a kill -9 threw
    away (started, never published) is in the log, so the log never
    undercounts what was embedded twice.
    """
    path = os.environ.get("HOOKGRAPH_EMBED_LOG")
    if not path or not texts:
        return
    try:
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"{os.getpid()} {texts}\n")
    except OSError:
        pass


def _check_recipe(store: Store, embedder: Embedder) -> None:
    recipe = store.get_meta("embed_recipe")
    if recipe is not None and recipe != embedder.recipe and store.pending_count():
        from hookgraph.embed.choice import store_mismatch

        problem = store_mismatch(store.get_meta, embedder) or "the index was queued under another embedding recipe"
        raise EmbedMismatch(problem)


def _from_caches(caches: list[VectorCache], batch: list[tuple[bytes, str, str]], embedder: Embedder,
                 checked: dict[int, bool], distrusted: dict[str, dict[str, Any]]
                 ) -> tuple[dict[bytes, Any], dict[bytes, str]]:
    """The batch's vectors the caches hold, from caches whose vectors agree with the model, and the label of
    the cache each came from.

    The first time a cache offers vectors in a drain, a sample of them is
    embedded and compared (:mod:`hookgraph.embed.check`); a cache that fails
    is not read again in this drain (its texts are embedded), nor is one the
    full check caught before (:mod:`hookgraph.store.trust`).
    """
    from hookgraph.embed.check import check_sample

    texts = {h: text for h, _lang, text in batch}
    found: dict[bytes, Any] = {}
    origins: dict[bytes, str] = {}
    for n, cache in enumerate(caches):
        label = f"the vector cache {cache.path}"
        if checked.get(n) is False or still_distrusted(distrusted, label, cache.path) is not None:
            continue
        wanted = [k for k in texts if k not in found]
        if not wanted:
            break
        hits = cache.get_many(wanted, embedder.dims)
        if hits and n not in checked:
            checked[n] = check_sample(embedder, {k: (texts[k], v) for k, v in hits.items()}).ok
        if checked.get(n):
            found.update(hits)
            origins.update(dict.fromkeys(hits, label))
    return found, origins


def _to_caches(caches: list[VectorCache], vectors: dict[bytes, tuple[str, Any, bool]], dims: int) -> None:
    from hookgraph.store.vector_cache import CachedVector

    rows = [
        CachedVector(key, dims, len(arrays), truncated, b"".join(quantize(v) for v in arrays))
        for key, (_language, arrays, truncated) in vectors.items()
    ]
    for cache in caches:
        cache.put_many(rows)


def _publish(database: Path, embedder: Embedder, ready: dict[bytes, tuple[str, Any, bool]], lock_timeout: float,
             rate: float | None, adopted: list[tuple[bytes, str, str]] | None = None) -> int:
    """Store the batch's vectors and link their waiting units, in one short transaction under the write lock.

    ``adopted``: ``(key, source, text)`` of the vectors that came from a
    cache, recorded for the full check (:mod:`hookgraph.embed.recheck`).
    """
    if not ready:
        return 0
    linked = 0
    taken: set[bytes] = set()
    with write_lock(database.parent, timeout=lock_timeout), Store(database) as store:
        with store.transaction():
            _check_recipe(store, embedder)
            store.ensure_vector_table(embedder.dims)
            for text_hash, (language, vectors, truncated) in ready.items():
                if store.publish_vector(text_hash, vectors, language, truncated):
                    linked += 1
                    taken.add(text_hash)
            store.mark_adopted(row for row in adopted or [] if row[0] in taken)
            if rate is not None:
                old = float(store.get_meta(RATE_KEY) or 0.0)
                store.set_meta(RATE_KEY, f"{(0.7 * old + 0.3 * rate) if old else rate:.3f}")
            store.set_meta(UPDATED_KEY, f"{time.time():.0f}")
            store.set_meta(DONE_KEY, str(int(store.get_meta(DONE_KEY) or 0) + linked))
    return linked


@dataclass
class Progress:
    """The queue as ``status`` reports it."""

    pending: int
    rate: float | None
    updated: float | None

    @property
    def eta_seconds(self) -> float | None:
        if not self.pending or not self.rate:
            return None
        return self.pending / self.rate


def progress_of(store: Store) -> Progress:
    """Texts waiting, and the background embedder's measured rate (texts/s of model time)."""
    def number(key: str) -> float | None:
        try:
            return float(store.get_meta(key) or "") or None
        except ValueError:
            return None

    return Progress(store.pending_count(), number(RATE_KEY), number(UPDATED_KEY))
