"""The no-embed rule: which units get no vector at all, and why.

The model is the cost users feel (minutes to hours of background embedding on
two cores), and some units buy little meaning for it: tests, data, fallback
line windows, one-line definitions. Such a unit is still indexed - full-text
words, the graph, ``callers``/``callees`` - it only never enters the
embedding queue: it is never "pending", never embedded on the spot by
``ask``, and in the ranking its words stand in for its meaning (the same
imputation as for a unit still waiting, see ``hookgraph.search._fuse``).
A unit that already has a vector (embedded before the rule said otherwise)
keeps it: the rule saves model time, it does not throw meaning away.

The rule is data: :data:`DEFAULT_RULE`, overridable key by key in
``.hookgraph/config.toml``::

    [no_embed]
    kinds = ["chunk", "block"]     # unit kinds never embedded
    tests = []                     # embed tests after all
    paths = ["docs/api/*"]         # your own patterns (reason "path")
    min_lines = 0                  # embed one-liners too

A path pattern without ``/`` matches any component of the path (a folder
or the file name: ``tests``, ``test_*``); one with ``/`` matches the whole
path (``*`` crosses folders). Matching ignores case.

Changing the rule reaches units written before at the next sync: queued
texts it now excludes leave the queue, and files with units it now wants
embedded are parsed again (see :func:`hookgraph.sync`).
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Protocol

from hookgraph.parse.units import UNIT_KINDS

__all__ = ["DEFAULT_RULE", "PATH_REASONS", "NoEmbedRule", "load_rule", "not_embedded", "not_embedded_by_kind",
           "rule_applied", "looks_like_test",
           "RULE_META"]

#: The defaults, in one place to tune them (the lead measures their quality effect on the file-level
#: benchmark). Conservative on purpose: only what words find as well as meaning does.
DEFAULT_RULE: dict[str, Any] = {
    # Fallback units: "chunk" is a line window of text of no known format, "block" a top-level node of a
    # data format with a grammar but no query (a JSON object, a YAML mapping). Their words are all they say.
    "kinds": ["chunk", "block"],
    # Test code, by the layouts hookgraph.search.paths.is_test_path knows: questions are about the code
    # under test, and a test's words (the names it calls) already point at it.
    "tests": ["test", "tests", "testing", "__tests__", "spec", "specs",
              "test_*", "*_test.*", "conftest.*", "*.test.*", "*.spec.*"],
    # Generated code that filters.GENERATED_PATTERNS does not already keep out of the index.
    "generated": ["generated", "__generated__", "*_pb2.pyi", "*.pb.h", "*.pb.cc", "*.g.dart", "*.freezed.dart",
                  "*.designer.cs"],
    # filters.VENDORED_DIRS keeps vendor/, third_party/, node_modules/... out of the index entirely;
    # list here vendored trees of your own that should stay searchable by words.
    "vendored": [],
    # Data files that parse into units: records, not behaviour.
    "data": ["*.json", "*.jsonl", "*.ndjson", "*.geojson"],
    # Your own patterns (reason "path").
    "paths": [],
    # Units shorter than this many lines are not embedded: 2 leaves out one-liners (a constant, an alias,
    # a one-line getter), whose name and signature are all of them and which words match exactly. File
    # units are exempt (a file is what the file-level answers are made of). 0 or 1: no size limit.
    "min_lines": 2,
}

#: The path groups of the rule, in the order a unit is judged by them; each is also the reason's name.
PATH_REASONS = ("tests", "generated", "vendored", "data", "paths")
#: Kinds the size limit never applies to.
SIZE_EXEMPT_KINDS = frozenset({"file"})
#: Meta key of the store: the fingerprint of the rule its units were written under.
RULE_META = "no_embed_rule"
#: The config table.
TABLE = "no_embed"
#: Reason names as ``status`` shows them (path groups keep their own name).
KIND_REASON, SIZE_REASON, PATH_REASON = "kind", "short", "path"
_MAX_LINES_LIMIT = 100_000


@dataclass(frozen=True)
class NoEmbedRule:
    """One resolved rule: defaults with the repository's overrides applied and checked."""

    kinds: frozenset[str]
    #: ``(reason, patterns)`` in judging order, patterns lower-cased.
    paths: tuple[tuple[str, tuple[str, ...]], ...]
    min_lines: int

    @property
    def fingerprint(self) -> str:
        """16 hex digits that change whenever the rule's meaning does (stored in the index's meta)."""
        data = {"kinds": sorted(self.kinds), "paths": [[r, list(p)] for r, p in self.paths],
                "min_lines": self.min_lines}
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]

    def reason(self, path: str, kind: str, start_line: int, end_line: int) -> str | None:
        """Why a unit gets no vector (``kind``, ``tests``, ``generated``, ``vendored``, ``data``, ``path``,
        ``short``), or None when it is embedded."""
        if kind in self.kinds:
            return KIND_REASON
        by_path = self.path_reason(path)
        if by_path is not None:
            return by_path
        if kind not in SIZE_EXEMPT_KINDS and end_line - start_line + 1 < self.min_lines:
            return SIZE_REASON
        return None

    def path_reason(self, path: str) -> str | None:
        known = self._path_reasons
        if path not in known:
            known[path] = _path_reason(self.paths, path)
        return known[path]

    @cached_property
    def _path_reasons(self) -> dict[str, str | None]:
        """path -> its reason, for this rule: every unit of a file asks (a first index of tokio 5,427 times), and
        the shared cache below hashes the rule's nested pattern tuples on each call (0.02 s)."""
        return {}


@lru_cache(maxsize=65536)
def _path_reason(groups: tuple[tuple[str, tuple[str, ...]], ...], path: str) -> str | None:
    lowered = path.lower()
    parts = lowered.split("/")
    for reason, whole, part in _matchers(groups):
        if whole is not None and whole.match(lowered):
            return reason
        if part is not None and any(part.match(p) for p in parts):
            return reason
    return None


@lru_cache(maxsize=64)
def _matchers(groups: tuple[tuple[str, tuple[str, ...]], ...]) -> tuple[tuple[str, re.Pattern[str] | None,
                                                                          re.Pattern[str] | None], ...]:
    """Per group: one regex for its patterns with a ``/`` (matched against the whole path) and one for the
    rest (against each part): ``fnmatchcase`` pattern by pattern took 0.52 s over Django's 6,810 paths in
    the process that writes a sync, this 0.09 s. ``fnmatch.translate`` anchors each alternative,
    so a match is exactly "some pattern matches"."""
    def compiled(patterns: list[str]) -> re.Pattern[str] | None:
        return re.compile("|".join(fnmatch.translate(p) for p in patterns)) if patterns else None

    return tuple((reason, compiled([p for p in patterns if "/" in p]), compiled([p for p in patterns if "/" not in p]))
                 for reason, patterns in groups)


def _rule_from(settings: dict[str, Any]) -> NoEmbedRule:
    return NoEmbedRule(
        kinds=frozenset(settings["kinds"]),
        paths=tuple((PATH_REASON if key == "paths" else key, tuple(p.lower() for p in settings[key]))
                    for key in PATH_REASONS if settings[key]),
        min_lines=settings["min_lines"],
    )


#: The rule with nothing overridden.
DEFAULT = _rule_from(DEFAULT_RULE)


def load_rule(root: Path) -> NoEmbedRule:
    """The repository's rule: :data:`DEFAULT_RULE` with ``[no_embed]`` of ``.hookgraph/config.toml`` applied.

    Raises :class:`hookgraph.config.ConfigError` naming the file, the key
    and what it must be, for a value that is not one (the file is someone
    else's input: a committed config).
    """
    from hookgraph import config

    table = config.load(root).get(TABLE)
    if table is None:
        return DEFAULT
    where = config.config_path(root)
    if not isinstance(table, dict):
        raise config.ConfigError(f"{where}: {TABLE} must be a table ([{TABLE}]), not {type(table).__name__}")
    settings = dict(DEFAULT_RULE)
    for key, value in table.items():
        if key not in DEFAULT_RULE:
            raise config.ConfigError(f"{where}: [{TABLE}] {key} is not a setting; known: "
                                     f"{', '.join(DEFAULT_RULE)}")
        settings[key] = _checked(where, key, value)
    return _rule_from(settings)


def _checked(where: Path, key: str, value: Any) -> Any:
    from hookgraph.config import ConfigError

    name = f"{where}: [{TABLE}] {key}"
    if key == "min_lines":
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _MAX_LINES_LIMIT:
            raise ConfigError(f"{name} must be a whole number of lines from 0 to {_MAX_LINES_LIMIT}, "
                              f"not {value!r}")
        return value
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ConfigError(f"{name} must be a list of non-empty strings, not {value!r}")
    if key == "kinds":
        unknown = [v for v in value if v not in UNIT_KINDS]
        if unknown:
            raise ConfigError(f"{name}: {', '.join(map(repr, unknown))} is not a unit kind; kinds are "
                              f"{', '.join(UNIT_KINDS)}")
    return [v.strip() for v in value]


class EmbeddedIndex(Protocol):
    """What the rule's report asks of the index: ``status`` hands its open store in (this module never imports
    the store, a later stage; :class:`hookgraph.store.Store` answers these)."""

    def units_without_vector(self) -> Iterable[tuple[str, str, int, int]]: ...

    def file_count(self) -> int: ...

    def get_meta(self, key: str) -> str | None: ...


def not_embedded(store: EmbeddedIndex, rule: NoEmbedRule) -> dict[str, int]:
    """Units without a vector that the rule keeps from the model, by reason (for ``status``).

    Read off the units (path, kind, lines) with the rule at hand: nothing
    extra is stored. :func:`rule_applied` tells whether the index was written
    under this very rule (else the next sync applies it).
    """
    from collections import Counter

    reasons: Counter[str] = Counter()
    for path, kind, start, end in store.units_without_vector():
        why = rule.reason(path, kind, start, end)
        if why is not None:
            reasons[why] += 1
    return dict(sorted(reasons.items()))


def not_embedded_by_kind(store: EmbeddedIndex, rule: NoEmbedRule) -> dict[str, dict[str, int]]:
    """``{kind: {reason: units}}`` for the units the rule keeps from the model: which kinds a typed search
    (``ask --kind``) finds by words and graph only, and why."""
    by_kind: dict[str, dict[str, int]] = {}
    for path, kind, start, end in store.units_without_vector():
        why = rule.reason(path, kind, start, end)
        if why is not None:
            reasons = by_kind.setdefault(kind, {})
            reasons[why] = reasons.get(why, 0) + 1
    return {kind: dict(sorted(reasons.items())) for kind, reasons in sorted(by_kind.items())}


def rule_applied(store: EmbeddedIndex, rule: NoEmbedRule) -> bool:
    """Whether the index's units were written (or brought in line) under ``rule``."""
    return store.get_meta(RULE_META) == rule.fingerprint or not store.file_count()


_DEFAULT_TESTS = (("tests", tuple(p.lower() for p in DEFAULT_RULE["tests"])),)


def looks_like_test(path: str) -> bool:
    """Whether ``path`` is test code by the default layouts, whatever a repository's rule says to embed."""
    return _path_reason(_DEFAULT_TESTS, path) is not None
