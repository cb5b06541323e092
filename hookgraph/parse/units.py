"""The two things every layer passes around: code units and graph edges.

They are plain frozen dataclasses so that the parser, the store and the search
can agree on one shape without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Kinds a unit can have. Code definitions come from the language query files;
#: ``file`` is the per-file fingerprint unit and ``section`` a Markdown/reST
#: heading section (DESIGN.md section 8); ``type`` a named type that is no class, struct or interface
#: (Go's ``type WalkFunc func(...) error``); ``table`` and ``view`` are SQL's; ``block`` (top-level nodes of a
#: format with a grammar but no query) and ``chunk`` (a line window of plain
#: text) come from the fallback (:mod:`hookgraph.parse.fallback`).
UNIT_KINDS = (
    "function",
    "method",
    "class",
    "interface",
    "struct",
    "enum",
    "trait",
    "type",
    "constant",
    "variable",
    "module",
    "table",
    "view",
    "file",
    "section",
    "block",
    "chunk",
)

#: Languages whose units are documentation: heading sections and prose (plain text is ``text``).
DOC_LANGUAGES = frozenset({"markdown", "rst", "text", "latex", "typst", "org"})

#: Kinds an edge can have. ``types``: a variable (``target``) of the unit and the type it is declared
#: with as written (``target_full``: ``scoped_ptr<grimoire::LoudsTrie>``); a class's fields are the class's.
#: The graph reads the receiver of a call by it (``temp.get()`` runs ``scoped_ptr::get``).
EDGE_KINDS = ("contains", "imports", "calls", "inherits", "types")


@dataclass(frozen=True)
class CodeUnit:
    """One searchable piece of a file: a definition, the file itself, or a doc section."""

    path: str
    kind: str
    name: str
    #: Dotted name inside the file, e.g. ``Session.request``; for ``file``
    #: units it is the path, for sections the heading trail ``Intro > Usage``.
    qualname: str
    #: 1-based, inclusive.
    start_line: int
    end_line: int
    language: str
    #: First line(s) of the definition up to the body, whitespace-collapsed.
    signature: str = ""
    #: Docstring or leading comment, markers stripped.
    docstring: str = ""
    #: Exact source text of the unit (lines start_line..end_line).
    text: str = ""
    #: Qualname of the enclosing unit (a class for methods), ``None`` at top level.
    parent: str | None = None


@dataclass(frozen=True)
class Edge:
    """A directed relation from a unit (by qualname within its file) to a name.

    Targets stay names, as written in the source, not resolved unit ids: the
    store resolves them by name at query time, so an edit in one file never
    forces re-resolution of edges in another.
    """

    #: Qualname of the source unit in the same file (the file unit's qualname,
    #: i.e. the path, for module-level code).
    source: str
    kind: str
    #: Short name the target is known by: the called function or method name
    #: (``send`` for ``self.send(...)``), the base class name, the imported
    #: module or name, or the contained unit's qualname for ``contains``.
    target: str
    line: int
    #: The full expression as written (``self.adapter.send``, ``requests.adapters``),
    #: kept for display and finer resolution; may equal ``target``.
    target_full: str = ""


@dataclass
class ParsedFile:
    """What parsing one file yields."""

    path: str
    #: The file's language id; ``None`` for text of no known format (its units are ``text``).
    language: str | None
    units: list[CodeUnit] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    #: True when tree-sitter reported syntax errors (units are still best effort).
    had_errors: bool = False
    #: True when the file was indexed by the fallback (blocks or text chunks), not first-class.
    fallback: bool = False
