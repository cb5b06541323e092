"""Which parser reads a file: :func:`parse_file` decides the language from the name and
content, :func:`parse_bytes` hands the bytes to the parser that language needs (document
sections, embedded blocks, the fallback scanner, or tree-sitter code), and falls back to a bare
file unit when a parser fails, so a hook never dies on one odd file.
"""

from __future__ import annotations

import logging

from .blocks import _parse_blocks
from .code import _parse_code
from .documents import _parse_document
from .languages import language_for, load_language, reparse_languages, TEXT_LANGUAGE
from .fingerprint import file_unit
from .text import _LineIndex
from .units import ParsedFile

#: The package's logger, not this module's: a parse that fell back to a bare file is reported as
#: ``hookgraph.parse``, the name users and tests filter on since before the package was split.
log = logging.getLogger("hookgraph.parse")


def parse_file(path: str, data: bytes, *, text_chunks: bool = True) -> ParsedFile | None:
    """Parse one file's bytes, its language decided from its name and content
    (:func:`hookgraph.parse.languages.language_for`).

    A file of no known language is plain text cut into chunks, or ``None``
    with ``text_chunks=False`` (so is a known plain-text format). Never raises
    on any input: syntax errors yield what tree-sitter recovered
    (``had_errors=True``); invalid UTF-8 is decoded with replacement
    characters in text fields while lines come from byte offsets.
    """
    lang = language_for(path, data)
    if lang is None:
        if not text_chunks:
            return None
        parsed = parse_bytes(path, data, TEXT_LANGUAGE)
        parsed.language = None  # the file's language stays unknown; its units are text
        return parsed
    if not text_chunks and load_language(lang).spec.fallback == "chunks":
        return None
    parsed = parse_bytes(path, data, lang)
    if parsed.had_errors:
        for other in reparse_languages(lang, path):
            candidate = parse_bytes(path, data, other)
            if _definitions(candidate) > _definitions(parsed):
                parsed = candidate
    return parsed


def _definitions(parsed: ParsedFile) -> int:
    """How many units a parse found besides the file itself (which parse of a dialect kept more)."""
    return sum(1 for u in parsed.units if u.kind != "file")


def parse_bytes(path: str, data: bytes, lang: str) -> ParsedFile:
    """Parse ``data`` as language ``lang`` (a registry id), whatever the path says."""
    language = load_language(lang)
    if not isinstance(data, (bytes, bytearray, memoryview)):
        data = str(data).encode("utf-8", "surrogatepass")
    data = bytes(data)
    try:
        if language.spec.sections:
            return _parse_document(path, data, language.spec, language.spec.sections)
        if language.spec.blocks is not None:
            return _parse_blocks(path, data, language)
        if language.spec.fallback:
            from .fallback import parse_fallback

            return parse_fallback(path, data, language)
        return _parse_code(path, data, language)
    except Exception:  # a hook must never die on one odd file
        log.warning("hookgraph: could not parse %s; indexing it as a bare file", path, exc_info=True)
        unit = file_unit(path, lang, _LineIndex(data).count, path)
        return ParsedFile(path=path, language=lang, units=[unit], edges=[], had_errors=True)
