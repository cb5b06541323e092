"""Vectors offered by others (committed snapshots, the vector caches): collected, checked, then adopted.

A sync composes every text itself, from the blobs, and asks the sources
only for vectors under those texts' keys. What a source offers is not used
at once: its units wait in the queue like any new text, and after the sync's
transaction (text, graph and freshness are then complete and visible) a
random sample of each source's offer is embedded with the local model
(:mod:`hookgraph.embed.check`). A source that passes has its vectors
published; one that fails gives nothing (its texts stay queued for the local
embedder) and is named in one line, and in ``status`` until a later check of
it passes.

A clone's first command cannot wait for that check (the model's load and
the sample cost more than parsing the whole project): it defers it
(:data:`DEFERRED_META`), answers at once by words and graph with every text
waiting, and the background embedder runs :func:`adopt_waiting` before it
embeds anything - the same sources (the caches, the checked-out snapshot), the
same sampled check over every waiting text they offer, every vector of a
source that passes published in one transaction, a refusal recorded for
``status``. No vector whose source failed its sample is ever ranked with.

The sample is the first filter only: a forgery of a few vectors among
thousands passes it. Every vector published here is recorded as *adopted*
(:meth:`hookgraph.store.Store.mark_adopted`) and ranks at once, and the
background embedder re-embeds each one at idle priority and compares
(:mod:`hookgraph.embed.recheck`); the first that differs distrusts its whole
source (:func:`distrust`). Until checked, an adopted vector is never exported
into a snapshot nor copied into a cache.

The verdicts live in the index's meta (:data:`REJECTED_META`, volatile: never
part of a snapshot's identity) as ``{label: line}``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from hookgraph.store.trust import DISTRUSTED_META, distrust, distrusted_sources, still_distrusted

if TYPE_CHECKING:
    from hookgraph.embed import Embedder
    from hookgraph.store import Store
    from hookgraph.store.vector_cache import CachedVector, VectorCache

__all__ = ["DEFERRED_META", "DISTRUSTED_META", "REJECTED_META", "adopt_waiting", "distrust", "distrusted_sources",
           "still_distrusted", "Offers", "VectorSource", "cache_source", "problem_line", "rejected_sources",
           "unusable_caches", "offering_sources", "close_sources"]

#: Meta key: the sources whose vectors were last refused, ``{label: one line}`` as JSON.
REJECTED_META = "vector_sources_rejected"
#: Meta key: a sync queued its texts without asking the sources; the embedder asks them (a token, see
#: :func:`adopt_waiting`: only the check that read this value clears it, so a later deferral is not lost).
DEFERRED_META = "vector_sources_deferred"


class _Provider(Protocol):
    problem: str | None

    def get_many(self, keys: list[bytes], dims: int) -> dict[bytes, CachedVector]: ...


@dataclass
class VectorSource:
    """A provider of vectors by key, with how messages name it and the remedy they give.

    ``name`` is the label, or a function that makes it: naming a snapshot's
    commit runs ``git log``, which only a message (or a verdict) needs.
    """

    provider: _Provider
    name: str | Callable[[], str]
    #: What the user can do when it is refused (a clause).
    remedy: str

    @property
    def label(self) -> str:
        if callable(self.name):
            self.name = self.name()
        return self.name


def cache_source(cache: _Provider, path: Path) -> VectorSource:
    """A cache as a source. Its remedy for vectors that fail the check is to delete it; for a cache that
    cannot be read at all, :func:`problem_line` asks the cache, whose advice follows the cause."""
    return VectorSource(cache, f"the vector cache {path}", f"delete it (`rm {path}`); hookgraph makes a fresh one")


@dataclass
class Offers:
    """What each source offered this sync: ``{key: (composed text, language, vector)}`` per source."""

    sources: list[VectorSource]
    offered: list[dict[bytes, tuple[str, str, CachedVector]]] = field(default_factory=list)
    #: Of the adopted texts: how many have several windows, and how many were cut after their last.
    split: int = 0
    truncated: int = 0
    _taken: set[bytes] = field(default_factory=set)
    #: Per source index: None when its sample passed, else the line refusing it (see :meth:`judge`).
    _verdicts: dict[int, str | None] = field(default_factory=dict)
    _problems_said: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.offered = [{} for _ in self.sources]

    def collect(self, missing: dict[bytes, int], texts: list[str], languages: list[str], dims: int) -> None:
        """Ask each source, in order, for the keys no earlier source offered."""
        for n, source in enumerate(self.sources):
            wanted = [k for k in missing if k not in self._taken]
            if not wanted:
                return
            for key, vector in source.provider.get_many(wanted, dims).items():
                i = missing[key]
                self.offered[n][key] = (texts[i], languages[i], vector)
                self._taken.add(key)

    def adopt(self, store: Store, embedder: Embedder, warnings: list[str]) -> int:
        """Check each source's offer and publish the vectors of those that pass; returns texts adopted.

        Run with the write lock held, outside any transaction; the model runs
        on the sample between two short transactions.
        """
        self.judge(embedder, distrusted_sources(store))
        return self.publish(store, embedder.dims, warnings)

    def judge(self, embedder: Embedder, distrusted: dict[str, dict[str, Any]] | None = None) -> None:
        """Embed each source's sample and keep its verdict (no store is touched: no lock is needed).

        A source the full check caught (``distrusted``, see :func:`distrust`)
        is refused without a sample: a sample would likely miss its few
        forged vectors again.
        """
        from hookgraph.embed.check import check_sample

        for n, (source, offer) in enumerate(zip(self.sources, self.offered)):
            if n in self._verdicts:
                continue
            # (a snapshot's label runs `git log`: asked only when some source was ever caught)
            caught = still_distrusted(distrusted, source.label, getattr(source.provider, "path", None)) \
                if distrusted else None
            if caught is not None and (offer or source.provider.problem is None):
                self._verdicts[n] = caught
            elif source.provider.problem is not None:
                self._verdicts[n] = problem_line(source)
            elif offer:
                verdict = check_sample(embedder, {k: (t, v) for k, (t, _lang, v) in offer.items()})
                self._verdicts[n] = None if verdict.ok else (
                    f"rejected the vectors of {source.label}: {verdict.reason()}; "
                    f"its {len(offer)} texts are embedded locally instead ({source.remedy})")

    def publish(self, store: Store, dims: int, warnings: list[str]) -> int:
        """Publish the offers of the sources :meth:`judge` passed, in one transaction; returns texts adopted.

        Records every verdict for ``status`` and adds the refusals to ``warnings``.
        """
        adopted = 0
        verdicts: dict[str, str | None] = {}
        passed = []
        for n, line in sorted(self._verdicts.items()):
            verdicts[self.sources[n].label] = line
            if line is None:
                passed.append((self.sources[n].label, self.offered[n]))
            else:
                warnings.append(line)
        if passed:
            with store.transaction():
                store.ensure_vector_table(dims)
                for label, offer in passed:
                    taken = []
                    for key, (text, language, vector) in offer.items():
                        if store.publish_vector(key, vector.arrays(), language, vector.truncated):
                            taken.append((key, label, text))
                            self.split += int(vector.windows > 1)
                            self.truncated += int(vector.truncated)
                    store.mark_adopted(taken)  # ranked from now on, checked in full by the background embedder
                    adopted += len(taken)
        if verdicts:
            _record(store, verdicts)
        return adopted


def problem_line(source: VectorSource) -> str:
    """One line: the source could not be read at all, and what to do."""
    text = " ".join((source.provider.problem or "").split())
    path = str(getattr(source.provider, "path", ""))
    if path and text.startswith(path + ": "):  # a cache says its own path first
        text = text[len(path) + 2:]
    if text.startswith(("is ", "was ", "has ", "ends ")):  # "is not a hookgraph database" reads "it is not ..."
        text = "it " + text
    remedy = getattr(source.provider, "remedy", None)  # a cache knows its problem's cause only once it met it
    return f"ignored {source.label}: {text}; {remedy() if callable(remedy) else source.remedy}"


def unusable_caches(caches: Sequence[_Provider]) -> list[str]:
    """Lines for the caches here that exist but cannot be used (garbage, a symlink, not ours), for ``status``."""
    lines = []
    for cache in caches:
        path = getattr(cache, "path", None)
        if path is None or not (path.exists() or path.is_symlink()):
            continue
        count = getattr(cache, "count", None)
        if count is not None:
            count()  # opens it: a problem shows
        if cache.problem is not None:
            lines.append(problem_line(cache_source(cache, path)))
    return lines


def _record(store: Store, verdicts: dict[str, str | None]) -> None:
    """Remember refused sources for ``status``; forget those that passed a check since."""
    known = rejected_sources(store)
    for label, line in verdicts.items():
        if line is None:
            known.pop(label, None)
        else:
            known[label] = line
    with store.transaction():
        if known:
            store.set_meta(REJECTED_META, json.dumps(known, sort_keys=True))
        else:
            store.delete_meta(REJECTED_META)


def rejected_sources(store: Store) -> dict[str, str]:
    """``{label: line}`` of the sources whose vectors the last checks refused (for ``status``), the sources
    the full check caught included."""
    raw = store.get_meta(REJECTED_META)
    try:
        value = json.loads(raw) if raw else {}
    except ValueError:
        value = {}
    found = {str(k): str(v) for k, v in value.items() if isinstance(v, str)} if isinstance(value, dict) else {}
    for label, entry in distrusted_sources(store).items():
        found.setdefault(label, str(entry.get("line", "")))
    return found


def adopt_waiting(root: Path, database: Path, embedder: Embedder, caches: Sequence[Any],
                  lock_timeout: float = 60.0) -> int:
    """The deferred check (see the module docstring); returns texts adopted (0 when nothing was deferred).

    Run by whoever empties the queue (the background embedder, ``index
    --wait``) before it embeds: the sample is embedded holding no lock, the
    vectors are published under the write lock in one short transaction.
    """
    from hookgraph.store import Store
    from hookgraph.store.lock import write_lock

    with Store(database) as store:
        token = store.get_meta(DEFERRED_META)
        if token is None:
            return 0
        waiting = store.next_pending(max(1, store.pending_count()))
        distrusted = distrusted_sources(store)
    sources = offering_sources(root, list(caches), [], None)
    try:
        offers = Offers(sources)
        if waiting:
            offers.collect({key: i for i, (key, _lang, _text) in enumerate(waiting)},
                           [text for _key, _lang, text in waiting], [lang for _key, lang, _text in waiting],
                           embedder.dims)
            offers.judge(embedder, distrusted)
        with write_lock(database.parent, timeout=lock_timeout), Store(database) as store:
            adopted = offers.publish(store, embedder.dims, []) if store.get_meta("embed_recipe") in (
                None, embedder.recipe) else 0
            with store.transaction():
                if store.get_meta(DEFERRED_META) == token:
                    store.delete_meta(DEFERRED_META)
    finally:
        close_sources(sources)
    return adopted


def offering_sources(root: Path, caches: Sequence[VectorCache], snapshots: Sequence[VectorSource],
                     database: Path | None) -> list[VectorSource]:
    """Who may offer vectors to this sync: the caches, the checked-out snapshot (shared mode), ``snapshots``."""
    from hookgraph.store import snapshot

    found = [cache_source(c, c.path) for c in caches]
    # The snapshots a merge brought (its other parents', MERGE_HEAD's) before the checked-out one: since the
    # merge driver writes the union of both sides, the checked-out snapshot of a merge holds their vectors
    # too, and a refusal must name the teammate's commit that brought them, not the merge commit.
    found += list(snapshots)
    path = snapshot.snapshot_path(root)
    if database is None and snapshot.is_shared(root) and (path.is_file() or path.is_symlink()):
        label = lambda: snapshot.snapshot_label(root)  # noqa: E731 - git log only when a message needs it
        found.append(VectorSource(snapshot.SnapshotVectors(path, "the committed snapshot", root), label,
                                  "your next commit replaces it"))
    return found


def close_sources(sources: list[VectorSource]) -> None:
    """Close the snapshots read (and their temporary migrated copies); the caches stay open."""
    from hookgraph.store.snapshot import SnapshotVectors

    for source in sources:
        if isinstance(source.provider, SnapshotVectors):
            source.provider.close()
