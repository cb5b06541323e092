"""Which file of this repository an import names, if any: the module path must match, never a last name alone.

``import http.client`` in a project with ``lexers/http.py`` imports the
standard library: a file is ours only when the whole import path is the
file's module path, the way the language finds it:

* a relative import (``./utils``, ``../core/x``, Python's ``.models``) is
  resolved against the importing file's folder (package);
* a Python module's path is its package chain (folders with an
  ``__init__.py``): ``httpie/output/lexers/http.py`` is
  ``httpie.output.lexers.http``, which ``http`` and ``http.client`` are not;
  outside packages (namespace packages, scripts) its path from a folder that
  is no package, two segments at least, or one beside the importer;
* any other dotted or ``::`` path (Java ``com.x.Y``, Rust ``crate::a::b``) must
  be the tail of the file's path, segment by segment, at least two segments
  long (one segment alone is a package's name, far more often someone else's);
* a path with slashes (C ``#include "net/http.h"``, Go ``github.com/o/r/pkg``,
  a JS package ``next/navigation``) must end the file's path, or, for Go, be
  the file's folder at the end of the import path, and only when the path
  starts with a domain (``github.com/o/r/pkg``): ``net/http`` is the standard
  library's.
"""

from __future__ import annotations

import posixpath
import re

from hookgraph.store import UnitRow

#: A module folder's own file: ``pkg/__init__.py`` is ``pkg``, ``lib/index.ts`` is ``lib``, ``a/mod.rs`` is ``a``.
_FOLDER_FILES = frozenset({"__init__", "index", "mod"})
#: Words that start a Rust path inside the crate and name no file.
_RUST_ROOTS = frozenset({"crate", "self", "super"})
#: A module path and the member name it ends with: ``.pricing`` + ``discount``, ``../utils`` + ``run``.
_MEMBER = re.compile(r"^(.*[^./:])(?:\.|::|:)[A-Za-z_$][\w$]*$")
_DOTTED = re.compile(r"[A-Za-z_$][\w$-]*(?:(?:\.|::)[A-Za-z_$][\w$-]*)*")


def _without_extension(path: str) -> str:
    folder, name = posixpath.split(path)
    stem = name.split(".", 1)[0] if not name.startswith(".") else name
    return posixpath.join(folder, stem) if folder else stem


def _module_segments(path: str) -> list[str]:
    """``a/b/c.py`` -> ``[a, b, c]``; a folder's own file (``__init__``, ``index``, ``mod``) is the folder."""
    parts = _without_extension(path).split("/")
    if len(parts) > 1 and parts[-1] in _FOLDER_FILES:
        parts = parts[:-1]
    return parts


class ImportResolver:
    """Answers "which of our files is this import" for one store's file list (built once per picture)."""

    def __init__(self, files: list[UnitRow]) -> None:
        self.files = files
        self.packages = {posixpath.dirname(f.path) for f in files if posixpath.basename(f.path) == "__init__.py"}

    def python_module(self, path: str) -> list[str]:
        """The dotted name Python imports ``path`` by: its package chain, up to the top package."""
        folder = posixpath.dirname(path)
        stem = _without_extension(posixpath.basename(path))
        names = [] if stem == "__init__" else [stem]
        while folder and folder in self.packages:
            names.insert(0, posixpath.basename(folder))
            folder = posixpath.dirname(folder)
        return names

    def our_file(self, module: str, importer: str) -> UnitRow | None:
        """The one file of ours ``module`` (as written in ``importer``) names, or None.

        An import that names a member (``from .pricing import discount`` is stored as
        ``.pricing.discount``, ``import com.x.Foo.bar``, ``../utils:run``) is tried without it too.
        """
        found = self._files_named(module, importer)
        parent = _MEMBER.match(module)
        if not found and parent:
            found = self._files_named(parent.group(1), importer)
        return found[0] if len(found) == 1 else None

    def _files_named(self, module: str, importer: str) -> list[UnitRow]:
        found = [f for f in self.files if f.path != importer and self._names(module, importer, f)]
        folders = {posixpath.dirname(f.path) for f in found}
        if len(found) > 1 and len(folders) == 1:  # a Go package: the file named after its folder speaks for it
            folder = folders.pop()
            found = [f for f in found if _without_extension(posixpath.basename(f.path))
                     in (posixpath.basename(folder), *_FOLDER_FILES)]
        return found

    def _names(self, module: str, importer: str, file: UnitRow) -> bool:
        module = module.strip()
        if not module:
            return False
        if module.startswith(("./", "../")) or module in (".", ".."):
            wanted = posixpath.normpath(posixpath.join(posixpath.dirname(importer), module))
            return _without_extension(file.path) == wanted or _module_segments(file.path) == wanted.split("/") or (
                file.path == wanted)
        if importer.endswith(".py") and module.startswith("."):
            return self._python_relative(module, importer, file)
        if "/" in module or "\\" in module:
            return self._path_like(module.replace("\\", "/"), importer, file)
        if not _DOTTED.fullmatch(module):
            return False
        segments = [s for s in re.split(r"\.|::", module) if s]
        in_crate = importer.endswith(".rs") and segments[0] in _RUST_ROOTS  # crate::util is ours by its root
        if in_crate:
            segments = [s for s in segments if s not in _RUST_ROOTS]
        if file.path.endswith(".py"):
            return self._python_absolute(segments, importer, file.path)
        if not segments or (len(segments) < 2 and not in_crate):
            return False
        tail = _module_segments(file.path)
        return tail[-len(segments):] == segments

    def _python_absolute(self, segments: list[str], importer: str, path: str) -> bool:
        """Its package chain's name, or (namespace packages, scripts) its path from a folder that is no package:
        at least two segments, or one beside the importer or at the root."""
        if self.python_module(path) == segments:
            return True
        tail = _module_segments(path)
        if tail[-len(segments):] != segments:
            return False
        above = "/".join(tail[:-len(segments)])
        if above in self.packages:
            return False  # httpie/output/lexers/http.py is not `http`: lexers is a package
        return len(segments) >= 2 or above in ("", posixpath.dirname(importer))

    def _python_relative(self, module: str, importer: str, file: UnitRow) -> bool:
        dots = len(module) - len(module.lstrip("."))
        base = posixpath.dirname(importer)
        for _ in range(dots - 1):
            base = posixpath.dirname(base)
        rest = [s for s in module[dots:].split(".") if s]
        wanted = "/".join([base, *rest]) if base else "/".join(rest)
        return bool(rest) and _module_segments(file.path) == wanted.split("/")

    def _path_like(self, module: str, importer: str, file: UnitRow) -> bool:
        module = re.sub(r"^[@~]/", "", module)  # a TS path alias for the source root: @/lib/x
        if file.path == module or file.path.endswith("/" + module):
            return True  # #include "net/http.h"
        if file.path.endswith(".go"):  # Go imports a package: the file's folder ends the import path
            if "." not in module.split("/", 1)[0]:
                return False  # net/http: the standard library's paths have no domain, a module's have one
            folder = posixpath.dirname(file.path)
            return bool(folder) and (module == folder or module.endswith("/" + folder))
        if "." in posixpath.basename(module):
            return False
        segments = _module_segments(file.path)
        wanted = module.split("/")
        return segments[-len(wanted):] == wanted and len(wanted) >= 2
