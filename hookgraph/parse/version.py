"""Which parser an index was built with: a fingerprint of this package's code and language data.

Sync re-parses a file only when its blob changes, so an index built before
hookgraph was upgraded keeps the old parser's units for every file that has
not changed since: a fix to what a unit is (a new kind, a doc found where it
was missed) reaches no one, and nothing says so. The store records the
fingerprint of the parser that parsed *every* file (a first index, or
``hookgraph index --full``); ``status`` and ``ask`` compare it with the
running one and say when they differ (:func:`hookgraph.sync.freshness.older_parser_note`).

The fingerprint hashes the contents of the package's Python modules, the
registry (``languages.json``, ``fallback.json``) and the query files, not the
version number: a release that leaves parsing alone must not ask anyone to
re-parse, and a development checkout changes it with every edit that could
change units.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

__all__ = ["PARSER_META", "parser_fingerprint", "fingerprint_of"]

#: Meta key of the store: the fingerprint of the parser that last parsed every file.
PARSER_META = "parser"

_HERE = Path(__file__).parent
_PARTS = (".py", ".json", ".scm")


@functools.cache
def parser_fingerprint() -> str:
    """The running parser's fingerprint (about 3 ms, once per process)."""
    return fingerprint_of(_HERE)


def fingerprint_of(folder: Path) -> str:
    """16 hex digits of SHA-256 over the names and bytes of ``folder``'s ``.py``, ``.json`` and ``.scm`` files
    (byte-compiled caches left out: they differ between installs of the same code)."""
    digest = hashlib.sha256()
    files = sorted(p for p in folder.rglob("*") if p.suffix in _PARTS and "__pycache__" not in p.parts)
    for path in files:
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]
