"""Every adopted vector checked, not a sample: re-embed each one locally and compare.

A vector from somebody else (a committed snapshot, the user's or the
repository's vector cache) is found by the hash of a text composed here, so
a source can only lie about the vector itself. The sampled check
(:mod:`hookgraph.embed.check`, 24 texts a source) stops a source with many
forged vectors before anything of it is used; it cannot see two forged among
two thousand. So it is the first filter only: every vector it lets through is
recorded as *adopted* (the ``adopted`` table: key, source, composed text),
ranks at once, and is checked here in full afterwards.

:func:`check_adopted` is run by the background embedder, at its idle
priority, one batch of about :data:`BATCH_SECONDS` of model time between two
batches of the queue, and by ``hookgraph index --wait`` until none is left.
It embeds each batch's texts holding no lock, then, in one short transaction
under the write lock, marks the vectors that agree as checked (they are this
machine's from then on) and, on the first that differs, distrusts its whole
source: every vector that source brought and nobody checked yet leaves the
index and its text is queued for the local model (the forged texts get the
vectors just computed at once), the source is refused by every later sync
without a sample (:func:`hookgraph.embed.adopt.distrust`), and one line naming
the source (the snapshot's commit, or the cache) and the unit goes to
``status``. The vectors of that source that were checked already stay: each
was compared with the local model's own and agreed.

The cost is the model time of embedding those texts locally, never more (a
text is embedded once, and a forged one's vector is used at once); what the
sharing still saves is the wait: a clone ranks by meaning at once instead of
after that time. An unchecked vector is never exported into a snapshot
(:func:`hookgraph.store.snapshot.export_snapshot`) nor copied into a cache.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hookgraph.store import Store
from hookgraph.store.lock import write_lock
from hookgraph.store.trust import distrust

if TYPE_CHECKING:
    from hookgraph.embed import Embedder
    from hookgraph.store.reads import UncheckedVector

__all__ = ["RecheckReport", "check_adopted", "CHECK_SECONDS_META"]

#: Model time one batch aims at (seconds): what a kill -9 can lose, and the longest a queued text waits
#: behind the check in the background embedder's rounds.
BATCH_SECONDS = 2.0
#: The first batch, before a rate is known; bounds of a batch.
FIRST_BATCH, MIN_BATCH, MAX_BATCH = 16, 1, 256
#: Meta key: CPU seconds the model spent on the full check of this index (benchmarks, ``status --json``).
CHECK_SECONDS_META = "adopted_check_seconds"
#: How a cache names itself in messages (:func:`hookgraph.embed.adopt.cache_source`).
_CACHE_LABEL = "the vector cache "
#: Forged units a line names at most.
NAMED_UNITS = 3


@dataclass
class RecheckReport:
    """What one run of the full check did."""

    #: Adopted vectors the local model agreed with.
    checked: int = 0
    #: One line per source caught with a forged vector.
    caught: list[str] = field(default_factory=list)
    #: Adopted vectors still unchecked when it stopped.
    remaining: int = 0
    #: CPU seconds the model took for the check (all its threads).
    model_seconds: float = 0.0


def check_adopted(database: Path, embedder: Embedder, *, max_batches: int | None = None,
                  lock_timeout: float = 60.0, batch_seconds: float = BATCH_SECONDS,
                  progress: Callable[[int, int], None] | None = None,
                  beat: Callable[[], None] | None = None) -> RecheckReport:
    """Check adopted vectors of ``database`` batch by batch until none is left (or ``max_batches``).

    Vectors of another recipe than ``embedder``'s are left alone (the queue
    refuses that store in its own words). ``progress(done, total)`` after
    each batch; ``beat()`` after each text (the worker's heartbeat).
    """
    report = RecheckReport()
    size = FIRST_BATCH
    batches = 0
    while max_batches is None or batches < max_batches:
        with Store(database) as store:
            recipe = store.get_meta("embed_recipe")
            if recipe is not None and recipe != embedder.recipe:
                break
            batch = store.next_unchecked(size)
            total = report.checked + store.unchecked_count()
        if not batch:
            break
        started, cpu = time.monotonic(), time.process_time()
        computed = []
        for item in batch:  # one text at a time: a heartbeat between texts, and the model's fastest way
            computed.append(embedder.embed_windows([item.text])[0])
            if beat is not None:
                beat()
        spent = time.monotonic() - started
        # CPU seconds (every model thread's), not wall time: at idle priority on a busy machine the wall
        # clock mostly measures waiting for the cores, which costs nobody anything
        used = time.process_time() - cpu
        report.model_seconds += used
        _settle(database, batch, computed, used, lock_timeout, report)
        batches += 1
        if progress is not None:
            progress(report.checked, total)
        per_text = spent / len(batch)
        if per_text > 0:
            size = max(MIN_BATCH, min(MAX_BATCH, int(batch_seconds / per_text) or MIN_BATCH))
    with Store(database) as store:
        report.remaining = store.unchecked_count()
    return report


def _settle(database: Path, batch: list[UncheckedVector], computed: list[tuple[Any, bool]],
            spent: float, lock_timeout: float, report: RecheckReport) -> None:
    """Publish one batch's verdicts in one short transaction under the write lock."""
    import numpy as np

    from hookgraph.embed.check import agrees

    agreed: list[bytes] = []
    forged: dict[str, list[tuple[UncheckedVector, tuple[Any, bool]]]] = {}
    for item, local in zip(batch, computed):
        theirs = np.stack([np.frombuffer(w, dtype=np.int8) for w in item.windows])
        if agrees(local[0], theirs):
            agreed.append(item.key)
        else:
            forged.setdefault(item.source, []).append((item, local))
    with write_lock(database.parent, timeout=lock_timeout), Store(database) as store, store.transaction():
        report.checked += store.mark_checked(agreed)
        for source, items in forged.items():
            names = _unit_names(store, [item for item, _local in items])
            queued = store.drop_unchecked_of(source)
            if not queued:
                continue  # its vectors went away meanwhile (a sync changed those units): nothing of it ranks
            line = _caught_line(source, names, len(items), queued)
            distrust(store, source, line, _cache_path(source))
            for item, (windows, truncated) in items:  # their texts are embedded already: the local vectors now
                store.publish_vector(item.key, windows, item.language, truncated)
            report.caught.append(line)
        seconds = float(store.get_meta(CHECK_SECONDS_META) or 0.0) + spent
        store.set_meta(CHECK_SECONDS_META, f"{seconds:.3f}")


def _unit_names(store: Store, items: list[UncheckedVector]) -> list[str]:
    """How a message names the units of forged vectors: ```qualname` (path)``, one per vector."""
    names: list[str] = []
    for item in items:
        for qualname, path in store.units_of_vector(item.vector_id)[:1]:
            names.append(f"`{qualname}` ({path})")
    return names


def _caught_line(source: str, names: list[str], forged: int, queued: int) -> str:
    """The one line naming the source and the forged unit(s), and what becomes of the rest of its vectors."""
    shown = ", ".join(names[:NAMED_UNITS]) or "a text no unit uses any more"
    if len(names) > NAMED_UNITS:
        shown += f" and {len(names) - NAMED_UNITS} more"
    vectors, differ = ("vector", "differs") if forged == 1 else ("vectors", "differ")
    return (f"rejected the vectors of {source}: its {vectors} for {shown} {differ} from what the local model "
            f"computes for the text (found by checking every adopted vector); the {queued} of its vectors not "
            f"checked yet are embedded locally instead ({_remedy(source)})")


def _cache_path(source: str) -> Path | None:
    return Path(source[len(_CACHE_LABEL):]) if source.startswith(_CACHE_LABEL) else None


def _remedy(source: str) -> str:
    path = _cache_path(source)
    if path is not None:
        return f"delete it (`rm {path}`); hookgraph makes a fresh one"
    return "your next commit replaces it"
