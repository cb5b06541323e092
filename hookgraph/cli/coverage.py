"""What the index covers, per language, and the honest notes ``ask`` adds.

An index that silently lacks a language answers a question about that code
with the nearest unrelated unit. So ``status`` says, per language, how many
files are parsed fully, indexed only by the fallback (blocks of a format
without a query, or plain-text chunks) or skipped (and why); and ``ask``
says in one line when the identifier asked for is defined nowhere in the
index, or when the language the question names is not parsed as code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from hookgraph.parse.languages import REGISTRY, display_name
from hookgraph.parse.qualnames import ends_with, last_part, spellings
from hookgraph.parse.words import identifier_words

__all__ = ["LanguageCoverage", "language_coverage", "ask_notes", "coverage_lines"]

#: Notes name at most this many languages or paths.
NOTE_ITEMS = 3


@dataclass
class LanguageCoverage:
    """Files of one language (``None``: unknown) by how they were indexed."""

    language: str | None
    indexed: int = 0
    #: of ``indexed``: files tree-sitter reported syntax errors in (units are best effort)
    partial: int = 0
    fallback: int = 0
    skipped: dict[str, int] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return display_name(self.language)

    @property
    def fallback_kind(self) -> str:
        """``blocks`` or ``text chunks``: what the fallback made of these files."""
        spec = REGISTRY.get(self.language or "")
        return "blocks" if spec is not None and spec.fallback == "blocks" else "text chunks"

    def as_json(self) -> dict[str, Any]:
        return {
            "language": self.language,
            "name": self.name,
            "indexed": self.indexed,
            "partial": self.partial,
            "fallback": self.fallback,
            "fallback_kind": self.fallback_kind if self.fallback else None,
            "skipped": dict(sorted(self.skipped.items())),
        }


def language_coverage(store: Any) -> list[LanguageCoverage]:
    """Every language with files in the index, most files first (``unknown`` last)."""
    rows = store.files_by_language_and_status()
    by_language: dict[str | None, LanguageCoverage] = {}
    for language, status, count in rows:
        entry = by_language.setdefault(language, LanguageCoverage(language))
        if status == "indexed:fallback":
            entry.fallback += count
        elif status.startswith("indexed"):
            entry.indexed += count
            if status == "indexed:partial":
                entry.partial += count
        elif status.startswith("skipped:"):
            reason = status.split(":", 1)[1]
            if reason != "own-database":
                entry.skipped[reason] = entry.skipped.get(reason, 0) + count
    out = [c for c in by_language.values() if c.indexed or c.fallback or c.skipped]

    def order(c: LanguageCoverage) -> tuple[bool, int, str]:
        return (c.language is None, -(c.indexed + c.fallback + sum(c.skipped.values())), c.name.lower())

    return sorted(out, key=order)


def coverage_lines(coverage: list[LanguageCoverage]) -> list[str]:
    """``status``'s per-language lines: ``C++  12 indexed (1 with syntax errors), 2 skipped (too-large 2)``."""
    width = max((len(c.name) for c in coverage), default=0)
    lines = []
    for c in coverage:
        parts = []
        if c.indexed:
            parts.append(f"{c.indexed} indexed" + (f" ({c.partial} with syntax errors)" if c.partial else ""))
        if c.fallback:
            parts.append(f"{c.fallback} by fallback ({c.fallback_kind})")
        if c.skipped:
            reasons = ", ".join(f"{reason} {n}" for reason, n in sorted(c.skipped.items()))
            parts.append(f"{sum(c.skipped.values())} skipped ({reasons})")
        lines.append(f"{c.name:<{width}}  " + ", ".join(parts))
    return lines


#: An identifier people type from code: snake_case, camelCase, a qualified name, digits;
#: a plain lower-case word ("retry") is as likely English, and gets no "not defined" note.
_CODE_IDENTIFIER = re.compile(r"^[A-Za-z_][\w]*(?:(?:\.|::|\\|#)[A-Za-z_][\w]*)*$")


def _code_identifier(query: str) -> bool:
    return bool(_CODE_IDENTIFIER.match(query)) and (
        bool(re.search(r"[_0-9A-Z]|::|\.|\\|#", query))
    )


def _defined(store: Any, symbol: str) -> bool:
    """Whether a code unit is named ``symbol``, in any spelling, or its qualified name ends with it
    (``TestPartResultArray::size`` is ``testing::TestPartResultArray::size``)."""
    rows = store.units_named_any(spellings(symbol))
    if any(r.kind not in _NOT_DEFINITIONS for r in rows):
        return True
    short = last_part(symbol)
    return short != symbol and any(
        r.kind not in _NOT_DEFINITIONS and ends_with(r.qualname, symbol)
        for r in store.units_named(short)
    )


_NOT_DEFINITIONS = ("file", "chunk", "block", "section")


def _mentions(store: Any, identifier: str) -> list[str]:
    """Paths of fallback units (blocks, chunks) whose text holds the identifier's words in order."""
    words = identifier_words(identifier)
    if not words:
        return []
    hits = store.fts_search('body : "' + " ".join(words) + '"', 200)
    units = store.units_by_ids(uid for uid, _ in hits)
    paths: dict[str, None] = {}
    for uid, _ in hits:
        unit = units.get(uid)
        if unit is not None and unit.kind in ("chunk", "block"):
            paths[unit.path] = None
    return list(paths)


def _not_parsed(coverage: list[LanguageCoverage]) -> list[str]:
    """``3 Ruby files are indexed only as text chunks``, ``2 C++ files were skipped (too-large)``."""
    def files(n: int, c: LanguageCoverage) -> str:
        what = f"{c.name} file" if c.language is not None else "file of no known language"
        return f"{n} {what}{'s' if n > 1 else ''}".replace("file of no known languages", "files of no known language")

    out = []
    for c in coverage:
        spec = REGISTRY.get(c.language or "")
        if c.fallback and not (spec is not None and spec.data):  # YAML, JSON, prose: not code
            out.append((c.fallback, f"{files(c.fallback, c)} {'are' if c.fallback > 1 else 'is'} "
                                    f"indexed only as {c.fallback_kind}"))
        skipped = {r: n for r, n in c.skipped.items()
                   if r in ("unknown-language", "too-large", "unreadable", "parser-crash", "minified")}
        if skipped:
            n = sum(skipped.values())
            out.append((n, f"{files(n, c)} {'were' if n > 1 else 'was'} skipped ({', '.join(sorted(skipped))})"))
    out.sort(key=lambda item: -item[0])
    return [text for _, text in out[:NOTE_ITEMS]]


def _named_languages(query: str, coverage: list[LanguageCoverage]) -> list[LanguageCoverage]:
    """Languages the question names ("the ruby retry helper", "C++ allocator")."""
    lowered = f" {query.lower()} "
    out = []
    for c in coverage:
        if c.language is None:
            continue
        names = {c.language.lower(), c.name.lower()}
        if any(re.search(rf"(?<![\w+#]){re.escape(n)}(?![\w+#])", lowered) for n in names if len(n) > 1):
            out.append(c)
    return out


def ask_notes(store: Any, query: str) -> list[str]:
    """One-line notes for ``ask``: an identifier defined nowhere in the index, and
    languages that are relevant to the question but not parsed as code."""
    notes: list[str] = []
    q = query.strip()
    coverage = language_coverage(store)
    if _code_identifier(q) and not _defined(store, q):
        short = last_part(q)
        if short != q and _defined(store, short):
            notes.append(f"no unit is named {q} in the index; units named {short} are listed")
        else:
            note = f"no unit is named {q} in the index"
            where = _mentions(store, q)
            if where:
                shown = ", ".join(where[:NOTE_ITEMS]) + (f" and {len(where) - NOTE_ITEMS} more" if len(where) > NOTE_ITEMS else "")
                note += f"; the text of {shown} mentions it"
            gaps = _not_parsed(coverage)
            if gaps:
                note += "; " + "; ".join(gaps)
            notes.append(note)
    else:
        for c in _named_languages(q, coverage):
            if c.fallback or c.skipped:
                gap = _not_parsed([c])
                if gap:
                    notes.append(gap[0])
    return notes


def graph_note(query: str, results: list[Any]) -> str | None:
    """"What calls X?" when X is known and nothing calls it: say so, rather than let X itself look like the answer."""
    from hookgraph.search.intent import read_intent

    intent = read_intent(query)
    symbol = (intent.symbol or "").rstrip("?")
    if intent.kind != "graph" or not symbol:
        return None
    reasons = [reason for r in results for reason in r.reasons]
    if "the unit asked about" not in reasons or any(x.startswith(("calls ", "called by ")) for x in reasons):
        return None
    if intent.direction == "callers":
        return f"nothing in the index calls {symbol}"
    return f"{symbol} calls nothing in the index"
