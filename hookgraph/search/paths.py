"""Where a question's words meet a file's name and folders.

People name files and folders after what they hold (``sessions.py``,
``compressionFilters/``, ``lib/adapters/``), and ask in other inflections of
the same words ("signed cookie sessions", "how is output compressed",
"which dependencies"). A word matches a path word when they are the same,
or when one is the other plus a short inflection (``session``/``sessions``,
``template``/``templating``, ``scanning``/``scanner``,
``dependency``/``dependencies``); two question words written together match a
folder written as one word ("simple tag" -> ``simpletag/``).

The path conventions the ranking reads live here too, so the unit and the
file rankings share them: where test code lives, and which files only
declare what others define.
"""

from __future__ import annotations

from functools import lru_cache

from hookgraph.parse.words import identifier_words

__all__ = ["words_match", "PathWords", "path_words", "matched_words", "is_test_path", "file_stem",
           "HEADER_SUFFIXES", "SOURCE_SUFFIXES", "TS_DECLARATION_SUFFIXES", "DECLARATION_SUFFIXES"]

#: Words at least this long may match by a shared prefix; shorter ones only exactly
#: (``tls``, ``dns``, ``jsp``), except a plural ``s`` on four letters (``test``/``tests``).
PREFIX_MIN = 5
#: Letters either word may have beyond the shared prefix (``dependenc|y`` / ``dependenc|ies``).
PREFIX_SLACK = 3


def words_match(a: str, b: str) -> bool:
    """Same word up to a short inflection (see the module docstring)."""
    if a == b:
        return True
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    if len(short) == 4:
        return long_ == short + "s"
    if len(short) < PREFIX_MIN:
        return False
    shared = 0
    for x, y in zip(short, long_):
        if x != y:
            break
        shared += 1
    if shared == len(short):  # one is the other plus an ending: compress/compression, cancel/cancellation
        return True
    return shared >= PREFIX_MIN and len(short) - shared <= PREFIX_SLACK - 1 and len(long_) - shared <= PREFIX_SLACK + 1


class PathWords:
    """The words of a file's stem and of its last folders, as the question side sees them."""

    __slots__ = ("stem", "folders")

    def __init__(self, stem: frozenset[str], folders: frozenset[str]) -> None:
        self.stem = stem
        self.folders = folders


#: Folders above the file that still say what it is about (``src/urllib3/contrib/emscripten/``: two).
FOLDER_DEPTH = 2
#: Folder and stem words that say nothing about a file's subject.
_PLAIN = frozenset({"src", "lib", "main", "java", "com", "org", "index", "init", "mod", "core", "impl", "util",
                    "utils", "internal", "pkg", "app", "include", "source", "sources", "web", "inf", "classes"})


@lru_cache(maxsize=65536)
def path_words(path: str) -> PathWords:
    """Stem words (``ssl_match_hostname.py`` -> ssl, match, hostname) and words of the last folders."""
    parts = path.split("/")
    name = parts[-1]
    stem = name.split(".", 1)[0] if not name.startswith(".") else name[1:]
    if stem in ("__init__", "index", "mod") and len(parts) > 1:  # a package's file is known by the package
        stem = parts[-2]
    folders = parts[-1 - FOLDER_DEPTH: -1]
    stem_words = {w for w in identifier_words(stem) if len(w) > 1} - _PLAIN
    folder_words = {w for f in folders for w in identifier_words(f) if len(w) > 1} - _PLAIN
    return PathWords(frozenset(stem_words), frozenset(folder_words))


def matched_words(question_words: list[str], words: frozenset[str]) -> set[str]:
    """The question words (and adjacent pairs written as one) that match any of ``words``."""
    if not words:
        return set()
    hit = {q for q in question_words if any(words_match(q, w) for w in words)}
    for first, second in zip(question_words, question_words[1:]):
        if first + second in words:
            hit.update((first, second))
    return hit


_TEST_DIRS = frozenset({"test", "tests", "testing", "__tests__", "spec", "specs"})


def is_test_path(path: str) -> bool:
    """Test code by the usual layouts: ``tests/``, ``test_x.py``, ``x_test.go``, ``x.test.ts``, ``x.spec.js``."""
    parts = path.lower().split("/")
    if any(p in _TEST_DIRS for p in parts[:-1]):
        return True
    name = parts[-1]
    stem = name.split(".", 1)[0]
    return (
        stem.startswith("test_")
        or stem.endswith("_test")
        or stem == "conftest"
        or ".test." in name
        or ".spec." in name
    )


#: C-family headers, and the files that define what they declare (``decode.h`` / ``decode.c``).
HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".h++")
SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".c++", ".m", ".mm")
#: TypeScript's declaration files: signatures of what JavaScript (or another file) defines.
TS_DECLARATION_SUFFIXES = (".d.ts", ".d.cts", ".d.mts")
#: Files that hold declarations whose definitions live elsewhere: C/C++ headers, TypeScript declaration files.
DECLARATION_SUFFIXES = HEADER_SUFFIXES + TS_DECLARATION_SUFFIXES


def file_stem(path: str) -> str:
    """A file's name without folders or its last extension: ``c/dec/decode.c`` -> ``decode``."""
    return path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
