"""The language registry: ``languages.json`` and ``fallback.json`` read into :class:`LanguageSpec` s.

Every field a language entry may have is explained in docs/languages.md (for contributors adding a
language); this module only reads them, once, at import.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["REGISTRY", "Blocks", "LanguageSpec", "TEXT_LANGUAGE", "languages", "display_name"]

#: ``languages.json`` and ``fallback.json`` sit beside this module.
_HERE = Path(__file__).resolve().parent
#: The ``fallback.json`` entry whose units text of no known format becomes (line-window chunks).
TEXT_LANGUAGE = "text"


@dataclass(frozen=True)
class Blocks:
    """How a file embeds code blocks (``blocks`` in ``languages.json``)."""

    #: the start-tag attribute naming a block's language (``lang``)
    attribute: str = "lang"
    #: the registry language of a block without that attribute
    default: str | None = None
    #: attribute value (lower case) -> registry language id
    languages: tuple[tuple[str, str], ...] = ()

    def language_of(self, value: str | None) -> str | None:
        """The registry language for an attribute value (``None``: absent), or
        ``None`` when the block is in a language we do not parse."""
        if value is None:
            return self.default
        value = value.strip().lower()
        for name, lang in self.languages:
            if name == value:
                return lang
        return None


@dataclass(frozen=True)
class LanguageSpec:
    """One entry of ``languages.json`` (or ``fallback.json``)."""

    id: str
    grammar: str | None = None
    name: str = ""
    extensions: tuple[str, ...] = ()
    filenames: tuple[str, ...] = ()
    interpreters: tuple[str, ...] = ()
    modelines: tuple[str, ...] = ()
    claims: tuple[tuple[str, tuple[re.Pattern[bytes], ...]], ...] = ()
    query: tuple[str, ...] = ()
    line_comments: tuple[str, ...] = ()
    block_comments: tuple[tuple[str, str], ...] = ()
    doc_comments: tuple[str, ...] = ()
    wrappers: frozenset[str] = frozenset()
    import_separator: str = "."
    qualname_separator: str = "."
    namespace_separator: str = ""
    join_clauses: bool = False
    blocks: Blocks | None = None
    sections: str | None = None
    bare_calls_reach_methods: bool = False
    functions_are_methods: bool = False
    constructor_method: str = ""
    final_newline: bool = False
    self_receivers: frozenset[str] = frozenset()
    fallback: str | None = None
    data: bool = False
    mask: tuple[re.Pattern[bytes], ...] = ()
    mask_blocks: tuple[re.Pattern[bytes], ...] = ()
    doc_strip: re.Pattern[str] | None = None
    self_names: frozenset[str] = frozenset()
    overload_signatures: frozenset[str] = frozenset()
    reparse_with: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def display_name(self) -> str:
        return self.name or self.id


def _as_tuple(value) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    return tuple(value)


def _blocks(entry) -> Blocks | None:
    if not entry:
        return None
    languages = tuple((str(k).lower(), str(v)) for k, v in entry.get("languages", {}).items())
    return Blocks(attribute=entry.get("attribute", "lang"), default=entry.get("default"), languages=languages)


def _spec(lang_id: str, entry: dict, fallback: str | None) -> LanguageSpec:
    doc_strip = entry.get("doc_strip") or ()
    return LanguageSpec(
        id=lang_id,
        grammar=entry.get("grammar"),
        name=entry.get("name", ""),
        extensions=tuple(e.lower() for e in entry.get("extensions", ())),
        filenames=tuple(entry.get("filenames", ())),
        interpreters=tuple(entry.get("interpreters", ())),
        modelines=tuple(entry.get("modelines", ())),
        claims=tuple(
            (ext.lower(), tuple(re.compile(rx.encode(), re.MULTILINE) for rx in rules))
            for ext, rules in entry.get("claims", {}).items()
        ),
        query=_as_tuple(entry.get("query")),
        # longest marker first so "///" is stripped before "//"
        line_comments=tuple(sorted(entry.get("line_comments", ()), key=len, reverse=True)),
        block_comments=tuple(
            tuple(pair) for pair in sorted(entry.get("block_comments", ()), key=lambda p: len(p[0]), reverse=True)
        ),
        doc_comments=tuple(entry.get("doc_comments", ())),
        wrappers=frozenset(entry.get("wrappers", ())),
        import_separator=entry.get("import_separator", "."),
        qualname_separator=entry.get("qualname_separator", "."),
        namespace_separator=entry.get("namespace_separator") or entry.get("qualname_separator", "."),
        join_clauses=bool(entry.get("join_clauses", False)),
        blocks=_blocks(entry.get("blocks")),
        sections=entry.get("sections"),
        fallback=fallback or entry.get("fallback"),
        data=bool(entry.get("data", False)),
        mask=tuple(re.compile(rx.encode(), re.MULTILINE) for rx in entry.get("mask", ())),
        mask_blocks=tuple(re.compile(rx.encode(), re.MULTILINE) for rx in entry.get("mask_blocks", ())),
        doc_strip=re.compile("|".join(f"(?:{rx})" for rx in doc_strip)) if doc_strip else None,
        bare_calls_reach_methods=bool(entry.get("bare_calls_reach_methods", False)),
        functions_are_methods=bool(entry.get("functions_are_methods", False)),
        constructor_method=str(entry.get("constructor_method", "")),
        final_newline=bool(entry.get("final_newline", False)),
        self_receivers=frozenset(entry.get("self_receivers", ())),
        self_names=frozenset(entry.get("self_names", ())),
        overload_signatures=frozenset(entry.get("overload_signatures", ())),
        reparse_with=tuple((ext.lower(), tuple(ids)) for ext, ids in entry.get("reparse_with", {}).items()),
    )


def _load_registry() -> dict[str, LanguageSpec]:
    """First-class languages (``languages.json``), then the fallback formats
    (``fallback.json``); a fallback entry never replaces a first-class one."""
    out: dict[str, LanguageSpec] = {}
    for file_name in ("languages.json", "fallback.json"):
        raw = json.loads((_HERE / file_name).read_text(encoding="utf-8"))
        for lang_id, entry in raw.items():
            if lang_id.startswith("_") or lang_id in out:
                continue
            default = None if file_name == "languages.json" else entry.get("fallback", "blocks")
            out[lang_id] = _spec(lang_id, entry, default)
    return out


#: language id -> :class:`LanguageSpec`, from ``languages.json`` and ``fallback.json``.
REGISTRY: dict[str, LanguageSpec] = _load_registry()


def languages() -> list[str]:
    """All registered language ids."""
    return list(REGISTRY)


def display_name(lang: str | None) -> str:
    """How people write a language id's name (``cpp`` -> ``C++``); ``unknown`` for None."""
    if lang is None:
        return "unknown"
    spec = REGISTRY.get(lang)
    return spec.display_name if spec is not None else lang
