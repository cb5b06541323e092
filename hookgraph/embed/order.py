"""The order of the embedding queue: the units most likely asked about get their vectors first (issue 32).

A first index of a big project leaves minutes to hours of embedding; until a
unit has its vector its words stand in for its meaning, and answers are
worse. So the queue is not drained in path order but by how much a vector is
likely to be worth, in classes (highest first):

5. file units: one per file, and what file-level answers are made of; once
   they are in, every file has a meaning;
4. documented definitions: a docstring is the author's own description, the
   text closest to how people ask;
3. undocumented containers (classes, structs, interfaces...): their text
   lists their members, a map of what is inside;
2. other undocumented code (functions, methods, constants...);
1. documentation sections: mostly prose, which words already find well;
0. the rest: test code (by the default test layouts of :mod:`hookgraph.embed.no_embed`,
   whether or not the repository's rule embeds tests), and fallback blocks and chunks.

Within a class the order is the sync's: files by path, units in file order
(stable and deterministic: the same tree gives the same queue). A hook's few
texts still come before any of a first index's (the class is added to the
sync's priority tier, see :data:`SPAN`). Recency (files touched lately) is
not used: it needs git history the sync does not read.
"""

from __future__ import annotations

from hookgraph.embed.no_embed import looks_like_test
from hookgraph.parse.units import CodeUnit

__all__ = ["SPAN", "usefulness", "queue_priority"]

#: Classes per priority tier: a tier's lowest class still comes before the tier below's highest.
SPAN = 10
#: Kinds that contain other definitions: undocumented, their member list still says a lot.
CONTAINER_KINDS = frozenset({"class", "interface", "struct", "enum", "trait", "module", "type"})
#: Kinds the fallback makes out of text of no (queried) format.
FALLBACK_KINDS = frozenset({"block", "chunk"})


def usefulness(unit: CodeUnit) -> int:
    """The class of ``unit`` in the queue (see the module's docstring), 0 to 5, higher embedded first."""
    if unit.kind in FALLBACK_KINDS or looks_like_test(unit.path):
        return 0
    if unit.kind == "file":
        return 5
    if unit.kind == "section":
        return 1
    if unit.docstring.strip():
        return 4
    if unit.kind in CONTAINER_KINDS:
        return 3
    return 2


def queue_priority(tier: int, unit: CodeUnit) -> int:
    """The ``pending.priority`` of ``unit``'s text: its sync's tier (a hook's above a first index's), then its class."""
    return tier * SPAN + usefulness(unit)
