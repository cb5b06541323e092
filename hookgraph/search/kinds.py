"""Typed search: ``ask --kind KIND[,KIND]`` read into a filter the ranking applies to every candidate list.

A name is either a unit kind as the index stores it (:data:`hookgraph.parse.units.UNIT_KINDS`: ``function``,
``method``, ``class``, ``type``, ``file``, ``section``, ...) or one of three groups agents ask for that no single
kind names (:data:`GROUPS`): ``test`` (any unit of test code, by the layouts the ranking knows), ``doc``
(documentation: Markdown/reST sections and prose files) and ``config`` (settings and data formats). Several
names are a union: ``--kind class,interface`` is either.

The filter reaches inside the store's queries (:class:`hookgraph.store.UnitSubset`): the KNN query and the
full-text query read only the asked units, so a kind that is rare among the nearest vectors still fills
the candidate lists (a filter applied after the nearest-k cut starves them). Graph neighbours and every
later step go through :meth:`KindFilter.admits`, which agrees with the subset unit for unit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from hookgraph.parse.units import DOC_LANGUAGES, UNIT_KINDS
from hookgraph.search.paths import is_test_path
from hookgraph.errors import HookgraphError

if TYPE_CHECKING:
    from hookgraph.store import Store, UnitRow, UnitSubset

#: Languages of settings and data files (the fallback formats marked ``data`` in the registry, less the
#: markup and prose ones, plus infrastructure configuration).
CONFIG_LANGUAGES = frozenset({"yaml", "toml", "json", "ini", "properties", "requirements", "gomod", "xml", "kdl",
                              "ron", "hcl", "terraform"})
#: The groups and what each one means (shown by the usage error and the README).
GROUPS = {
    "test": "units of test code (tests/, test_*.py, *_test.go, *.spec.ts, ...), whatever their kind",
    "doc": "documentation: Markdown/reST sections and prose files",
    "config": "settings and data files: YAML, TOML, JSON, INI, XML, properties, requirements, go.mod, HCL",
}


class KindError(HookgraphError, ValueError):
    """A ``--kind`` value that names no kind and no group."""


@dataclass(frozen=True)
class KindFilter:
    """The kinds, languages and test code a typed search keeps."""

    #: The names as asked, in order (for messages).
    names: tuple[str, ...]
    kinds: frozenset[str]
    languages: frozenset[str]
    tests: bool

    def admits(self, unit: UnitRow) -> bool:
        """Whether ``unit`` is of an asked kind (the same answer as :meth:`subset` gives in SQL)."""
        return unit.kind in self.kinds or unit.language in self.languages or (self.tests and is_test_path(unit.path))

    def subset(self, store: Store) -> UnitSubset:
        """The store-side filter; test code is named file by file (its layouts are path rules, not SQL)."""
        from hookgraph.store import UnitSubset

        paths = frozenset(p for p in store.file_map() if is_test_path(p)) if self.tests else frozenset()
        return UnitSubset(kinds=self.kinds, languages=self.languages, paths=paths)


def known_kinds() -> list[str]:
    """Every name ``--kind`` accepts: the unit kinds, then the groups."""
    return [*UNIT_KINDS, *GROUPS]


def read_kinds(text: str) -> KindFilter:
    """``"class,function"`` -> a filter; :class:`KindError` names the value that is no kind and lists the known ones."""
    names = [part.strip().lower() for part in text.split(",")]
    if not any(names):
        raise KindError(f"--kind {text!r} names no kind: use one or more of {', '.join(known_kinds())}")
    unknown = [n for n in names if n and n not in UNIT_KINDS and n not in GROUPS]
    if unknown:
        raise KindError(f"unknown kind {unknown[0]!r}: use one or more of {', '.join(known_kinds())} "
                        "(comma-separated)")
    asked = tuple(dict.fromkeys(n for n in names if n))
    kinds = {n for n in asked if n in UNIT_KINDS}
    languages: set[str] = set()
    if "doc" in asked:
        kinds.add("section")
        languages |= DOC_LANGUAGES
    if "config" in asked:
        languages |= CONFIG_LANGUAGES
    return KindFilter(names=asked, kinds=frozenset(kinds), languages=frozenset(languages), tests="test" in asked)
