"""Language support as data: a JSON registry plus one tree-sitter query per language.

Nothing in :mod:`hookgraph.parse` branches on a language name: adding a language means an entry in
``languages.json`` and a query file here; the parser stays the same. The registry's fields and the
query files' capture convention are explained for contributors in docs/languages.md.

- :mod:`.registry`: ``languages.json`` / ``fallback.json`` read into :data:`REGISTRY`;
- :mod:`.detection`: which language a file is (name, content claims, ``#!`` line, modelines);
- :mod:`.loading`: a language's grammar and compiled query (:func:`load_language`).
"""

from __future__ import annotations

from .detection import interpreter_language, language_for, language_for_path, modeline_language, reparse_languages
from .loading import Language, load_language
from .registry import REGISTRY, TEXT_LANGUAGE, Blocks, LanguageSpec, display_name, languages

__all__ = [
    "REGISTRY",
    "Blocks",
    "TEXT_LANGUAGE",
    "LanguageSpec",
    "Language",
    "language_for_path",
    "reparse_languages",
    "language_for",
    "interpreter_language",
    "modeline_language",
    "display_name",
    "load_language",
    "languages",
]
