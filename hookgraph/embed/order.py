"""The order of the embedding queue: the units most likely asked about get their vectors first.

A first index of a big project leaves minutes to hours of embedding; until a
unit has its vector its words stand in for its meaning, and answers are
worse. So the queue is not drained in path order but by how much a vector is
likely to be worth, in classes (highest first):

5. file units: one per file, and what file-level answers are made of; once
   they are in, every file has a meaning;
2. code (definitions, containers, functions, constants...), **most used
   first**: after a first index (or ``--full``) the code's texts are ordered by
   how often the rest of the repository uses their name (calls, subclasses,
   variables declared with or built as the type: :func:`rank_by_use`; done by
   whoever empties the queue, before its first batch, so the sync's user does
   not wait for it), then documented definitions before undocumented
   containers before other code.
   What the code uses everywhere (``HttpClient``, ``Router.route``) is what
   people ask about, and what the graph reaches from the answers. Measured
   against the earlier classes (documented definitions, then undocumented
   containers, then other code, in path order) on the 13 filebench
   repositories (benchmarks/RESULTS.md): NDCG@10 after 30 s of
   embedding 0.853 -> 0.864 of 0.864 complete at one cost, 0.865 -> 0.867 at a
   faster one; the median repository's full quality 120 -> 80 s and 80 -> 50 s;
1. documentation sections: mostly prose, which words already find well;
0. the rest: test code (by the default test layouts of :mod:`hookgraph.embed.no_embed`,
   whether or not the repository's rule embeds tests), and fallback blocks and chunks.

Within a class the order is the sync's: files by path, units in file order
(stable and deterministic: the same tree gives the same queue). A hook's few
texts still come before any of a first index's (the class is added to the
sync's priority tier, see :data:`SPAN`), in file order: ranking them by use
would read every edge of the repository for a handful of texts. Recency
(files touched lately) is not used: it needs git history the sync does not read.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Protocol

from hookgraph.embed.no_embed import looks_like_test
from hookgraph.parse.units import CodeUnit
from hookgraph.parse.written_types import type_names

__all__ = ["CODE", "RANK_META", "SPAN", "queue_priority", "rank_by_use", "usefulness"]

#: Meta key a first index (or ``--full``) sets to its tier: that tier's code waits to be ordered by use, which
#: whoever empties the queue does before its first batch (:func:`hookgraph.embed.queue.rank_waiting`).
RANK_META = "queue_rank_tier"
#: Classes per priority tier: a tier's lowest class still comes before the tier below's highest.
SPAN = 10
#: Kinds that contain other definitions: undocumented, their member list still says a lot.
CONTAINER_KINDS = frozenset({"class", "interface", "struct", "enum", "trait", "module", "type"})
#: Kinds the fallback makes out of text of no (queried) format.
FALLBACK_KINDS = frozenset({"block", "chunk"})


def usefulness(unit: CodeUnit) -> int:
    """The class of ``unit`` by what it is, 0 to 5, higher embedded first: files 5, documented definitions 4,
    undocumented containers 3, other code 2, documentation 1, tests and text 0 (code's 2-4 order ties within
    :data:`CODE`)."""
    return _usefulness(unit.kind, unit.path, bool(unit.docstring.strip()))


def _usefulness(kind: str, path: str, documented: bool) -> int:
    if kind in FALLBACK_KINDS or looks_like_test(path):
        return 0
    if kind == "file":
        return 5
    if kind == "section":
        return 1
    if documented:
        return 4
    if kind in CONTAINER_KINDS:
        return 3
    return 2


#: The one queue class of all code (usefulness 2 to 4): :func:`rank_by_use` orders it within.
CODE = 2
#: Edge kinds that say the code uses a name: a call, a subclass, a declaration with or a value built as a type.
USE_KINDS = ("calls", "inherits", "types")


def queue_priority(tier: int, unit: CodeUnit) -> int:
    """The ``pending.priority`` of ``unit``'s text: its sync's tier (a hook's above a first index's), then its class
    (code's three usefulness classes share :data:`CODE`; :func:`rank_by_use` orders them)."""
    kind = usefulness(unit)
    return tier * SPAN + (CODE if CODE <= kind <= 4 else kind)


class QueueIndex(Protocol):
    """What ordering the queue asks of the index: the syncing stage hands its open store in (this module never
    imports the store, a later stage; :class:`hookgraph.store.Store` answers these)."""

    def use_counts(self, kinds: Sequence[str]) -> list[tuple[str, str, int]]: ...

    def queued_code(self, priority: int) -> list[tuple[bytes, int, str, str, str, str]]: ...

    def renumber_pending(self, seqs: Iterable[tuple[int, bytes]]) -> None: ...


def uses_by_name(store: QueueIndex) -> Counter[str]:
    """How often the repository's code uses each name, by the edges the parser recorded (names only, as
    written: two classes of one name share their count)."""
    uses: Counter[str] = Counter()
    for kind, written, count in store.use_counts(USE_KINDS):
        if kind == "types":  # the variable is the target; its type is written in target_full (``=T``: built as T)
            names = type_names(str(written or "").removeprefix("="))
            written = names[0] if names else ""
        name = str(written or "").rsplit(".", 1)[-1].rsplit("::", 1)[-1]
        if name:
            uses[name] += int(count)
    return uses


def rank_by_use(store: QueueIndex, tier: int) -> int:
    """Order the tier's queued code most used first, in place (within the rows' own ``seq`` numbers, so texts
    queued later still come after); returns how many texts were ordered.

    A text shared by several units takes its most used one; ties keep the usefulness classes (documented
    definitions, undocumented containers, other code) and then the sync's order.
    """
    rows = store.queued_code(tier * SPAN + CODE)
    if not rows:
        return 0
    uses = uses_by_name(store)
    best: dict[bytes, tuple[int, int, int]] = {}
    for text_hash, seq, name, kind, path, docstring in rows:
        key = (-uses.get(name, 0), -_usefulness(kind, path, bool((docstring or "").strip())), seq)
        best[bytes(text_hash)] = min(best.get(bytes(text_hash), key), key)
    ordered = sorted(best, key=lambda h: best[h])
    numbers = sorted(key[2] for key in best.values())
    store.renumber_pending(zip(numbers, ordered))
    return len(ordered)
