"""Bytes of one source file in one language -> units and edges, with tree-sitter.

Generic over the language registry (:mod:`hookgraph.parse.languages`): the file is read through
one compiled query per language. Nothing here branches on a language name, and nothing recurses
over the syntax tree: the query engine (C) finds the nodes, then two linear sweeps over byte
ranges decide nesting and attribute references, so 5,000 levels of nesting cost no Python stack.
"""

from __future__ import annotations

import bisect
from typing import Any, cast

from .comments import (
    _BOILERPLATE, _end_row, _file_comment, _kept_group, _leading_comments, _overload_comments, _starts_line,
)
from .fingerprint import _fingerprint, _with_members, file_unit
from . import masking
from .languages import Language
from .references import _inside, _last_part, _reference_text, TARGET_FULL_MAX
from .scopes import _climb_wrappers, _innermost, _Item, _join, _join_clauses, _namespace_scopes, _role, _Scope, _Span
from .signatures import _scope_text, _signature
from .text import (
    _BLANK_BYTES, _cap, _clean_comment, _clean_string_doc, _collapse, _decode, _first_paragraph,
    _LineIndex, _strip_quotes, _tidy_doc, _valid_utf8,
)
from .units import CodeUnit, Edge, ParsedFile

#: Kinds whose bodies swallow nested definitions (nested functions are not units).
FUNCTION_KINDS = frozenset({"function", "method"})
#: Kinds whose member functions become methods ``Class.method``.
CLASS_KINDS = frozenset({"class", "interface", "struct", "enum", "trait", "type"})

#: Kinds of named values (Go ``const`` / package ``var``, Rust ``const`` / ``static``, Python module
#: ``UPPER_CASE = ...``, exported JavaScript/TypeScript ``const``): units, found by name, but left out of
#: the file unit's list of what the file defines, which says what the file does (twenty one-line
#: constants would crowd out its functions there, and in the file's meaning). Search weighs them by the
#: same names (``hookgraph.search.VALUE_KINDS``).
VALUE_KINDS = frozenset({"constant", "variable"})

#: Reference capture kind (``@name.reference.<kind>``) -> edge kind.
EDGE_KIND_OF_REFERENCE = {"call": "calls", "import": "imports", "inherits": "inherits", "types": "types",
                          "builds": "types"}
#: Words a declaration writes where the type is inferred (``var r = new Reader()``, ``auto x = f()``): no type.
INFERRED_TYPES = frozenset({"var", "auto", "let", "val", "dynamic", "_", "decltype(auto)"})

#: File stems that say nothing about the module (``lib/defaults/index.js``): its folder names it.
_INDEX_STEMS = frozenset({"index", "main", "mod", "__init__"})


def _module_name(path: str) -> str:
    """The name a module is known by, for a definition that stands for the module itself
    (``self_names``): ``lib/helpers/resolveConfig.js`` -> ``resolveConfig``,
    ``lib/defaults/index.js`` -> ``defaults``, ``index.d.ts`` -> ``index``."""
    parts = [p for p in path.replace("\\", "/").split("/") if p]
    if not parts:
        return path
    stem = parts[-1].split(".", 1)[0] or parts[-1]
    if stem in _INDEX_STEMS and len(parts) > 1:
        stem = parts[-2]
    return stem


def _last_row(node, data: bytes, starts: list[int]) -> int:
    """0-based row of a node's last character that is not blank: indentation-based
    grammars (Scala 3's indented blocks) end a block inside the next line's indent."""
    row = _end_row(node)
    end = node.end_byte
    if end and data[end - 1] not in _BLANK_BYTES:  # the usual case: the node ends on a token
        return row
    first = node.start_point[0]
    while first < row < len(starts) and not data[starts[row]:end].strip():
        end = starts[row]
        row -= 1
    return row


#: Node types of comments in the grammars: a ``@doc`` capture of several is one run of comments.
_COMMENT_TYPES = frozenset({"comment", "line_comment", "block_comment", "doc_comment"})


def _is_comment(text: str, spec) -> bool:
    """True when a ``@doc`` capture is a comment (Rust's docs inside a macro) rather than a string literal."""
    head = text.lstrip()
    return any(head.startswith(m) for m in spec.line_comments) or any(head.startswith(o) for o, _c in spec.block_comments)


def _last_code_row(node, data: bytes, starts: list[int], comment_ends: dict[int, Any]) -> int:
    """0-based last row of a definition, whole-line comments at its end left out.

    Some grammars end a definition after the comments that follow its last line (Scala's
    ``def f = expr``, an indented block): those are the next definition's doc or a note between
    definitions, not this one's lines.
    """
    row = _last_row(node, data, starts)
    end = node.end_byte
    while comment_ends:
        code_end = end
        while code_end > node.start_byte and data[code_end - 1] in _BLANK_BYTES:
            code_end -= 1
        comment = comment_ends.get(code_end) or comment_ends.get(code_end + 1)
        if comment is None or comment.start_point[0] <= node.start_point[0] or not _starts_line(comment, data):
            break
        end = comment.start_byte
    if end == node.end_byte:
        return row
    while end > node.start_byte and data[end - 1] in _BLANK_BYTES:
        end -= 1
    return bisect.bisect_right(starts, end - 1) - 1


def _parse_code(path: str, data: bytes, language: Language, label: str | None = None) -> ParsedFile:
    """Units and edges of one file in one language; ``label`` is the language id
    the units carry when it is not the parser's (a Vue file's TypeScript block)."""
    from tree_sitter import QueryCursor

    spec = language.spec
    lang_id = label or spec.id
    if language.query is None:  # a languages.json entry with a grammar but no query file
        raise ValueError(f"language {spec.id!r} has no tree-sitter query")
    masked = masking.masked(data, spec)
    # tree-sitter gets bytes that are valid UTF-8 at the same offsets: query predicates
    # (#match?, #any-of?) decode node text and would raise on a stray \x80
    grammar_input = masked if masked.isascii() else _valid_utf8(masked)
    if spec.final_newline and not grammar_input.endswith(b"\n"):
        grammar_input += b"\n"  # a grammar that hangs on a file ending in a comment (languages.json)
    tree = language.parser.parse(grammar_input)
    root = tree.root_node
    lines = _LineIndex(data)

    defs: dict[tuple[int, int], _Scope] = {}
    containers: list[_Scope] = []
    namespaces: list[tuple[object, object, object, str | None]] = []  # (declaration, name, body, unit kind)
    items: list[_Item] = []
    comments: dict[int, object] = {}
    annotations: dict[int, int] = {}  # start byte -> end byte
    exported: dict[int, Any] = {}  # start byte -> name node of an @name.export
    wrappers = spec.wrappers

    for pattern, caps in QueryCursor(language.query).matches(root):
        def_node = def_last = name_node = body = scope_node = container = container_name = None
        namespace = namespace_name = None
        def_kind = None
        refnames = None
        ref_node = module_node = None
        ref_kind = None
        for capture, nodes in caps.items():
            role, kind = _role(capture)
            if role == "def":
                def_node, def_kind = nodes[0], kind
                if len(nodes) > 1:  # one definition written as sibling nodes
                    def_last = nodes[-1]
            elif role == "defname":
                name_node = nodes[0]
                def_kind = def_kind or kind
            elif role == "body":
                body = nodes[0]
            elif role == "scope":
                scope_node = nodes[0]
            elif role == "container":
                container = nodes[0]
            elif role == "containername":
                container_name = nodes[0]
            elif role == "namespace":
                namespace = nodes[0]
            elif role == "namespacename":
                namespace_name = nodes[0]
            elif role == "refname":
                refnames, ref_kind = nodes, kind
                if len(nodes) > 1 and kind == "import":  # one dotted path written as several nodes
                    refnames = [cast(Any, _Span(nodes[0], nodes[-1]))]
            elif role == "ref":
                ref_node = nodes[0]
            elif role == "refmodule":
                module_node = nodes[0] if len(nodes) == 1 else _Span(nodes[0], nodes[-1])
            elif role == "comment":
                for node in nodes:
                    comments[node.start_byte] = node
            elif role == "annotation":
                for node in nodes:
                    annotations[node.start_byte] = max(node.end_byte, annotations.get(node.start_byte, 0))
            elif role == "doc":
                if len(nodes) > 1 and all(n.type in _COMMENT_TYPES for n in nodes):  # a run of line comments
                    items.append(_Item("doc", None, _Span(nodes[0], nodes[-1])))
                else:
                    for node in nodes:
                        items.append(_Item("doc", None, node))
            elif role == "export":
                for node in nodes:
                    exported[node.start_byte] = node
        if def_node is not None and name_node is not None:
            key = (name_node.start_byte, name_node.end_byte)
            outer = _climb_wrappers(def_node, wrappers)
            scope_name = _scope_text(data, scope_node, name_node, spec) if scope_node is not None else None
            known = defs.get(key)
            if known is None:
                known = defs[key] = _Scope(outer, def_kind, name_node, body, scope_name, False, last=def_last)
                known.pattern = pattern
            else:
                last = def_last if def_last is not None else outer
                size = last.end_byte - outer.start_byte
                if size > known.end - known.start:
                    known.node, known.start, known.kind = outer, outer.start_byte, def_kind
                    known.last, known.end, known.pattern = last, last.end_byte, pattern
                elif size == known.end - known.start and pattern < known.pattern:
                    # the same node matched twice: the earlier pattern (the more
                    # specific one, by the query files' convention) names the kind
                    known.kind, known.pattern = def_kind, pattern
                if known.body is None:
                    known.body = body
                if known.scope_name is None:
                    known.scope_name = scope_name
        elif container is not None and container_name is not None:
            containers.append(_Scope(container, None, container_name, None, None, True))
        elif namespace_name is not None:
            declaration = namespace or def_node or namespace_name.parent or namespace_name
            namespaces.append((declaration, namespace_name, body, def_kind if def_node is not None else None))
        if refnames:
            for node in refnames:
                items.append(_Item(ref_kind, ref_kind, node, ref_node, module_node))

    # ---- nesting: decide which definitions are units and their qualnames
    scopes = list(defs.values()) + containers + _namespace_scopes(namespaces, data, lines)
    scopes.sort(key=lambda s: (s.start, -s.end))
    stack: list[_Scope] = []
    kept: list[tuple[_Scope, str]] = []  # the units, with their qualnames
    self_name = _module_name(path) if spec.self_names else ""
    for s in scopes:
        s.name = _decode(data, s.name_node.start_byte, s.name_node.end_byte).strip()
        if s.name in spec.self_names:  # `export default function () {}`: the module itself
            s.name = self_name
        while stack and stack[-1].end <= s.start:
            stack.pop()
        enc = stack[-1] if stack else None
        if enc is not None and enc.first_member is None:
            enc.first_member = s.start
        stack.append(s)
        if enc is not None and (enc.swallowed or (not enc.is_container and enc.kind in FUNCTION_KINDS)):
            s.swallowed = True
            s.unit = enc.unit
            continue
        if not s.name:
            # a definition whose name tree-sitter could not recover: not a unit,
            # its contents belong to whatever encloses it
            s.swallowed = True
            s.unit = enc.unit if enc is not None else None
            continue
        prefix = enc.qual if enc is not None else None
        # a namespace (or module) joins what it holds with the namespace separator,
        # a type with the member separator (PHP: Foo\Bar\Baz::run)
        separator = (
            spec.namespace_separator
            if enc is not None and (enc.is_namespace or (not enc.is_container and enc.kind == "module"))
            else spec.qualname_separator
        )
        if s.is_namespace:
            # a namespace statement names itself in full (Perl's inner `package Foo::Inner;`)
            s.qual = s.name if s.header_end is not None else _join(prefix, s.name, separator)
            if s.kind is None:
                s.unit = enc.unit if enc is not None else None  # not a unit: what it says comes from the file
                continue
            s.unit = s.qual
            s.is_unit = True
            kept.append((s, s.qual))
            continue
        if s.is_container:
            # an object that is a named value's own value (export const HANDLERS = { run() {} }) is that
            # value: its members are HANDLERS.run, not HANDLERS.HANDLERS.run
            own_value = enc.qual if enc is not None and enc.kind in VALUE_KINDS and enc.name == s.name else None
            s.qual = own_value or _join(prefix, s.name, separator)
            s.unit = s.qual
            continue
        classy = enc is not None and not enc.is_namespace and (enc.is_container or enc.kind in CLASS_KINDS)
        parent = prefix
        if s.scope_name:
            parent = _join(prefix, s.scope_name, separator)
            separator = spec.qualname_separator
            classy = True
        if s.kind in FUNCTION_KINDS:
            s.kind = "method" if classy else "function"
        s.parent = parent
        s.qual = _join(parent, s.name, separator)
        s.unit = s.qual
        s.is_unit = True
        kept.append((s, s.qual))

    if spec.join_clauses:
        kept = _join_clauses(kept)

    # ---- references and docstrings: attribute each to its innermost scope
    items.sort(key=lambda it: it.start)
    annotation_starts = sorted(annotations)
    file_doc: str | None = None
    edges: list[Edge] = []
    seen_edges: set[tuple] = set()
    def_starts = {start for start, _end in defs}
    for item, scope in _innermost(scopes, items):
        if item.role == "doc":
            text = _decode(data, item.node.start_byte, item.node.end_byte)
            text = (_tidy_doc(_clean_comment(text, spec)) if _is_comment(text, spec) else _clean_string_doc(text))
            if scope is None or scope.is_namespace:
                if file_doc is None:
                    file_doc = text
            elif scope.is_unit and scope.doc is None:
                scope.doc = text
            continue
        if item.start in def_starts:
            continue  # the name being defined (a Clojure method's head symbol) refers to nothing
        name = item.node
        if (name.start_byte, name.end_byte) in defs:
            continue  # a definition's own name (Elixir's `def f(x)` head is a call node)
        if annotation_starts and _inside(annotations, annotation_starts, name.start_byte):
            continue  # what an annotation names is no call (Elixir's `@spec f(x) :: t`)
        source = (scope.unit if scope is not None else None) or path
        target = _decode(data, name.start_byte, name.end_byte)
        if item.kind == "import":
            target = _strip_quotes(target.strip())
            if target.startswith("<") and target.endswith(">"):  # C's `#include <stdio.h>`
                target = target[1:-1].strip()
            full = target
            if item.module is not None and item.module is not name and item.module.start_byte != name.start_byte:
                module = _strip_quotes(_decode(data, item.module.start_byte, item.module.end_byte).strip())
                sep = spec.import_separator
                full = module + target if module.endswith(sep) else module + sep + target
            full = _cap(_collapse(full), TARGET_FULL_MAX)
            target = _cap(_collapse(target), TARGET_FULL_MAX)
        elif item.kind in ("types", "builds"):  # a variable and its declared type (``Keyset &keyset``), or the
            # class it is built as (``var r = new Reader()``), recorded as ``=Reader``: a declaration says more
            declared = _collapse(_decode(data, item.module.start_byte, item.module.end_byte)) if item.module else ""
            if not declared or declared in INFERRED_TYPES:
                continue
            target = _collapse(target).strip()
            full = _cap(("=" if item.kind == "builds" else "") + declared, TARGET_FULL_MAX)
        else:
            target = _last_part(_collapse(target), spec)
            full = _reference_text(data, item.ref, name)
        if not target:
            continue
        line = name.start_point[0] + 1
        edge_kind = EDGE_KIND_OF_REFERENCE.get(item.kind, item.kind)
        edge_key = (source, edge_kind, target, line, full)
        if edge_key in seen_edges:
            continue
        seen_edges.add(edge_key)
        edges.append(Edge(source=source, kind=edge_kind, target=target, line=line, target_full=full))

    # ---- units
    comment_starts = sorted(comments)
    comment_ends: dict[int, Any] | None = None  # built on first need
    used_comments: set[int] = set()
    units: list[CodeUnit] = []
    quals = {qual for _s, qual in kept}
    contains: list[Edge] = []
    top_names: list[str] = []
    for s, qual in kept:
        start_line = s.node.start_point[0] + 1
        if comment_ends is None:
            comment_ends = {c.end_byte: c for c in _nodes(comments.values())}
        end_line = (s.end_row if s.end_row is not None else
                    _last_code_row(s.last, data, lines.starts, comment_ends)) + 1
        doc = s.doc
        if doc is None:
            block = _leading_comments(s.node, comments, annotations, data, comment_ends, spec.doc_comments)
            if not block and spec.overload_signatures:
                block = _overload_comments(s.node, s.name, spec, comments, annotations, data, comment_ends)
            if block and block[0].start_point[0] == 0 and _BOILERPLATE.search(
                _decode(data, block[0].start_byte, block[-1].end_byte)
            ):
                block = []  # the file's licence header, right above its first definition (Erlang's -module)
            if block:
                used_comments.update(c.start_byte for c in block)
                doc = _tidy_doc("\n".join(_clean_comment(_decode(data, c.start_byte, c.end_byte), spec) for c in block))
                if spec.doc_strip is not None:
                    doc = _tidy_doc(spec.doc_strip.sub(_kept_group, doc))
        units.append(
            CodeUnit(
                path=path,
                kind=s.kind,
                name=s.name,
                qualname=qual,
                start_line=start_line,
                end_line=end_line,
                language=lang_id,
                signature=_signature(data, s, comment_starts),
                docstring=doc or "",
                text=lines.text(start_line, end_line),
                parent=s.parent,
            )
        )
        if s.parent is not None and s.parent in quals:
            contains.append(Edge(source=s.parent, kind="contains", target=qual, line=start_line, target_full=qual))
        else:
            contains.append(Edge(source=path, kind="contains", target=qual, line=start_line, target_full=qual))
            top_names.append(qual)

    if file_doc is None:
        file_doc = _file_comment(root, comments, used_comments, spec, data)
    if not file_doc and len(top_names) == 1:
        # one definition per file (Java, many TS/Go files): its doc describes the file
        file_doc = next((u.docstring for u in units if u.qualname == top_names[0]), "")
    file_doc = _first_paragraph(file_doc or "")
    behaviour = [u for u in units if u.kind not in VALUE_KINDS]
    described = {u.qualname for u in behaviour}
    # what the file defines is listed once, under "defines"; an exported value stays under "exports"
    defined = {q for q in top_names if q in described} | {u.name for u in behaviour}
    exports = [
        name for name in dict.fromkeys(
            _strip_quotes(_decode(data, n.start_byte, n.end_byte).strip()) for _, n in sorted(exported.items())
        )
        if name and name not in defined
    ]
    fingerprint = _fingerprint(
        path, "defines", _with_members([q for q in top_names if q in described], behaviour), file_doc, exports
    )
    return ParsedFile(
        path=path,
        language=lang_id,
        units=[file_unit(path, lang_id, lines.count, fingerprint, file_doc)] + units,
        edges=contains + edges,
        had_errors=bool(root.has_error),
    )


def _nodes(values) -> list[Any]:
    """Syntax nodes kept in an ``object``-typed map, as nodes."""
    return list(values)
