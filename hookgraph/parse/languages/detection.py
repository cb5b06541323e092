"""Which language a file is: by its name (file name, then extension), its content where several languages
claim an extension (``claims``), then its ``#!`` line and editor modelines (docs/languages.md).
"""

from __future__ import annotations

import os
import re

from .registry import REGISTRY

__all__ = ["CLAIM_WINDOW", "language_for_path", "language_for", "reparse_languages", "interpreter_language",
           "modeline_language"]

#: How much of a file content rules (``claims``) look at.
CLAIM_WINDOW = 16_384

_BY_FILENAME: dict[str, str] = {}
_BY_EXTENSION: list[tuple[str, str]] = []
_BY_INTERPRETER: dict[str, str] = {}
_BY_MODELINE: dict[str, str] = {}
#: extension -> [(claimant id, its regexes)] in registry order.
_CLAIMS: dict[str, list[tuple[str, tuple[re.Pattern[bytes], ...]]]] = {}
for _spec_entry in REGISTRY.values():
    for _name in _spec_entry.filenames:
        _BY_FILENAME.setdefault(_name, _spec_entry.id)
    for _ext in _spec_entry.extensions:
        _BY_EXTENSION.append((_ext, _spec_entry.id))
    for _program in _spec_entry.interpreters:
        _BY_INTERPRETER.setdefault(_program, _spec_entry.id)
    for _mode in _spec_entry.modelines:
        _BY_MODELINE.setdefault(_mode.lower(), _spec_entry.id)
    for _ext, _rules in _spec_entry.claims:
        _CLAIMS.setdefault(_ext, []).append((_spec_entry.id, _rules))
# an extension belongs to the first language listing it (first-class before
# fallback); longest first, so ".d.ts" is tried before ".ts"
_BY_EXTENSION = sorted(dict(reversed(_BY_EXTENSION)).items(), key=lambda item: len(item[0]), reverse=True)
#: The same, looked up by each ending of a name (a sync asks for every tracked file: a scan of the list took
#: 0.2 ms a name).
_EXTENSION_LANGUAGE = dict(_BY_EXTENSION)
_SHEBANG = re.compile(rb"^#![ \t]*(\S+)((?:[ \t]+\S+)*)")
_EMACS_MODE = re.compile(rb"-\*-\s*(?:.*?\bmode:\s*)?([\w+.-]+)\s*;?.*?-\*-", re.IGNORECASE)
_VIM_MODE = re.compile(rb"\b(?:vim?|ex):.*?\b(?:ft|filetype)=([\w+.-]+)")
_VERSION_SUFFIX = re.compile(r"[-_]?[0-9][0-9.]*$")


def _extension_match(path: str) -> tuple[str | None, str | None]:
    """(language id, matched extension) from the file's name alone."""
    base = os.path.basename(path.replace("\\", "/"))
    if not base:
        return None, None
    lang = _BY_FILENAME.get(base)
    if lang is not None:
        return lang, None
    lower = base.lower()
    for start in range(1, len(lower)):  # the longest registered extension the name ends with (never all of it)
        lang_id = _EXTENSION_LANGUAGE.get(lower[start:])
        if lang_id is not None:
            return lang_id, lower[start:]
    return None, None


def reparse_languages(lang: str, path: str) -> tuple[str, ...]:
    """The languages a file of ``lang`` at ``path`` is parsed as too when ``lang`` finds syntax errors
    (``reparse_with``; empty for most files)."""
    rules = REGISTRY[lang].reparse_with
    if not rules:
        return ()
    lower = os.path.basename(path.replace("\\", "/")).lower()
    for ext, ids in rules:
        if lower.endswith(ext):
            return ids
    return ()


def language_for_path(path: str) -> str | None:
    """The language id a repository path's name gives, or ``None`` when it says nothing.

    Without the file's bytes, an extension claimed by several languages
    (``.h``) goes to the one that lists it; :func:`language_for` decides by content.
    """
    return _extension_match(path)[0]


def language_for(path: str, data: bytes) -> str | None:
    """The language of a file from its name and its bytes, or ``None`` when unknown.

    Name first (file name, then extension); for an extension other languages
    claim, the content decides (``claims``); a file whose name says nothing,
    or only that it is plain text, is decided by its ``#!`` line
    (``interpreters``).
    """
    lang, ext = _extension_match(path)
    if ext is not None and ext in _CLAIMS:
        lang = _claimed(lang, _CLAIMS[ext], data[:CLAIM_WINDOW])
    if lang is None or REGISTRY[lang].fallback == "chunks":
        by_shebang = interpreter_language(data)
        if by_shebang is not None:
            return by_shebang
        by_modeline = modeline_language(data)
        if by_modeline is not None:
            return by_modeline
    return lang


def modeline_language(data: bytes) -> str | None:
    """The language an editor modeline names (Emacs ``-*- sh -*-``, vim ``ft=sh``), or ``None``."""
    emacs_lines = data[:1024].split(b"\n", 2)[:2]  # Emacs reads the first two lines, vim the first and last five
    vim_lines = data[:4096].split(b"\n", 5)[:5] + data[-4096:].rsplit(b"\n", 5)[-5:]
    for pattern, lines in ((_EMACS_MODE, emacs_lines), (_VIM_MODE, vim_lines)):
        for line in lines:
            m = pattern.search(line)
            if m is not None:
                lang = _BY_MODELINE.get(m.group(1).decode("ascii", "replace").lower())
                if lang is not None:
                    return lang
    return None


def _claimed(owner: str | None, claimants: list[tuple[str, tuple[re.Pattern[bytes], ...]]], head: bytes) -> str | None:
    best, best_score = owner, 0
    for lang_id, rules in claimants:
        score = sum(1 for rule in rules if rule.search(head))
        if score > best_score or (score == best_score and score and lang_id == owner):
            best, best_score = lang_id, score
    return best


def interpreter_language(data: bytes) -> str | None:
    """The language a ``#!`` first line names, or ``None``."""
    if not data.startswith(b"#!"):
        return None
    m = _SHEBANG.match(data[:256])
    if m is None:
        return None
    words = [m.group(1)] + m.group(2).split()
    program = os.path.basename(words[0].decode("utf-8", "replace"))
    if program == "env":  # /usr/bin/env [-S] [VAR=x] [-opts] program
        rest = [w.decode("utf-8", "replace") for w in words[1:]]
        rest = [w for w in rest if not w.startswith("-") and "=" not in w]
        if not rest:
            return None
        program = os.path.basename(rest[0])
    return _BY_INTERPRETER.get(program) or _BY_INTERPRETER.get(_VERSION_SUFFIX.sub("", program))
