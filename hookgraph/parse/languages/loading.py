"""Loading a language: its tree-sitter grammar and its query, compiled once per process.

tree-sitter is imported only here, when a language is first loaded: a command that parses nothing
never pays for it.
"""

from __future__ import annotations

import os
import signal
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from .registry import REGISTRY, LanguageSpec

if TYPE_CHECKING:  # tree-sitter is imported when a language is loaded
    import tree_sitter
    from tree_sitter_language_pack import SupportedLanguage

__all__ = ["Language", "load_language"]

#: The query files sit beside this module.
_HERE = Path(__file__).resolve().parent


@dataclass
class Language:
    """A loaded language: its spec, tree-sitter language, compiled query.

    ``parser`` is per thread (tree-sitter parsers must not be shared between
    threads); the compiled ``query`` is shared. Document languages (``sections``)
    have neither.
    """

    spec: LanguageSpec
    ts_language: tree_sitter.Language | None = None
    query: tree_sitter.Query | None = None
    _local: threading.local = field(default_factory=threading.local, repr=False)

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def parser(self):
        if self.ts_language is None:
            return None
        parser = getattr(self._local, "parser", None)
        if parser is None:
            import tree_sitter

            parser = tree_sitter.Parser(self.ts_language)
            self._local.parser = parser
        return parser


@lru_cache(maxsize=None)
def load_language(lang: str) -> Language:
    """The cached :class:`Language` for a registry id (query compiled once per process).

    Raises ``KeyError`` for an unknown id.
    """
    spec = REGISTRY[lang]
    if spec.grammar is None:
        return Language(spec=spec)
    import tree_sitter
    from tree_sitter_language_pack import get_language

    ts_language = get_language(cast("SupportedLanguage", spec.grammar))  # a name from languages.json
    query = None
    if spec.query:
        source = "\n".join((_HERE / name).read_text(encoding="utf-8") for name in spec.query)
        query = _compile_query(tree_sitter, ts_language, source)
    return Language(spec=spec, ts_language=ts_language, query=query)


def _compile_query(tree_sitter: Any, ts_language: Any, source: str) -> Any:
    """``tree_sitter.Query(ts_language, source)`` with Ctrl-C held back until it is built.

    The binding compiles each ``#match?`` regex by calling Python's ``re``;
    a KeyboardInterrupt raised inside that call becomes ``QueryError: regular
    expression error``, an "internal error" where the user pressed Ctrl-C.
    On the main thread (the only one Python runs signal handlers on) a
    SIGINT during the build is noted and handed to the previous handler
    once the query exists: the usual one-line interruption.
    """
    if threading.current_thread() is not threading.main_thread():
        return tree_sitter.Query(ts_language, source)
    noted: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, _frame: noted.append(number))
    try:
        return tree_sitter.Query(ts_language, source)
    finally:
        signal.signal(signal.SIGINT, previous)
        if noted:
            _replay_sigint(previous)


def _replay_sigint(handler: Any) -> None:
    """What SIGINT would have done under ``handler`` (Python's default raises KeyboardInterrupt)."""
    if callable(handler):
        handler(signal.SIGINT, None)
    elif handler == signal.SIG_DFL:
        os.kill(os.getpid(), signal.SIGINT)
