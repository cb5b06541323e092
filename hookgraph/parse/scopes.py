"""Query captures -> definitions, containers and namespaces (scopes), and the items inside them.

The capture convention (``@definition.<kind>``, ``@name.reference.<kind>`` ...) is documented in
docs/languages.md; :func:`_role` reads it. Nesting is decided by one linear
sweep over byte ranges (:func:`_innermost`), never by recursion over the syntax tree.
"""

from __future__ import annotations

from bisect import bisect_left

from .text import _LineIndex

_ROLE_CACHE: dict[str, tuple[str, str | None]] = {}


def _role(capture: str) -> tuple[str, str | None]:
    """Map a capture name to (role, kind) following the documented convention."""
    cached = _ROLE_CACHE.get(capture)
    if cached is not None:
        return cached
    parts = capture.split(".")
    role: tuple[str, str | None]
    if capture.startswith("_"):
        role = ("ignore", None)
    elif parts[0] == "definition" and len(parts) == 2:
        role = ("def", parts[1])
    elif parts[:2] == ["name", "definition"] and len(parts) == 3:
        role = ("defname", parts[2])
    elif capture == "body":
        role = ("body", None)
    elif capture == "name.scope":
        role = ("scope", None)
    elif capture == "container":
        role = ("container", None)
    elif capture == "name.container":
        role = ("containername", None)
    elif capture == "namespace":
        role = ("namespace", None)
    elif capture == "name.namespace":
        role = ("namespacename", None)
    elif capture == "name.export":
        role = ("export", None)
    elif capture in ("doc", "comment", "annotation"):
        role = (capture, None)
    elif capture == "block.tag":
        role = ("blocktag", None)
    elif capture == "block.code":
        role = ("blockcode", None)
    elif parts[:2] == ["name", "reference"] and len(parts) == 3:
        role = ("refname", parts[2])
    elif parts[0] == "reference" and len(parts) == 2:
        role = ("ref", parts[1])
    elif parts[:2] == ["module", "reference"] and len(parts) == 3:
        role = ("refmodule", parts[2])
    else:
        role = ("ignore", None)
    _ROLE_CACHE[capture] = role
    return role


class _Scope:
    """A definition or container found by the query, before it becomes a unit."""

    __slots__ = (
        "node", "start", "end", "kind", "name", "name_node", "body", "scope_name",
        "is_container", "is_namespace", "swallowed", "qual", "unit", "parent", "doc", "is_unit",
        "first_member", "last", "pattern", "header_end", "end_row",
    )

    def __init__(self, node, kind, name_node, body, scope_name, is_container, is_namespace=False, last=None):
        self.node = node
        #: the definition's last node: itself, or a sibling it was captured with
        #: (Dart's method_signature + function_body)
        self.last = last if last is not None else node
        self.start = node.start_byte
        self.end = self.last.end_byte
        self.kind = kind
        self.name_node = name_node
        self.name = ""
        self.body = body
        self.scope_name = scope_name
        self.is_container = is_container
        self.is_namespace = is_namespace
        self.header_end: int | None = None  # a statement's own end, where its range runs further
        self.end_row: int | None = None  # 0-based last row, where it is not the node's
        self.swallowed = False
        self.qual: str | None = None
        self.unit: str | None = None  # qualname references inside are attributed to
        self.parent: str | None = None
        self.doc: str | None = None
        self.is_unit = False
        self.pattern = 0  # index of the query pattern that gave the kind
        self.first_member: int | None = None  # where the first definition inside starts


class _Item:
    __slots__ = ("start", "role", "kind", "node", "ref", "module")

    def __init__(self, role, kind, node, ref=None, module=None):
        self.start = node.start_byte
        self.role = role
        self.kind = kind
        self.node = node
        self.ref = ref
        self.module = module


class _Span:
    """A name written as several nodes (Scala's ``import scala.collection.mutable``
    path is one identifier per segment), from the first node to the last."""

    __slots__ = ("start_byte", "end_byte", "start_point")

    def __init__(self, first, last):
        self.start_byte = first.start_byte
        self.end_byte = last.end_byte
        self.start_point = first.start_point


def _climb_wrappers(node, wrappers: frozenset[str]):
    """Widen a definition node to its wrappers (decorators, ``export``)."""
    if not wrappers:
        return node
    while True:
        parent = node.parent
        if parent is None or parent.type not in wrappers:
            return node
        node_type = node.type
        same = 0
        for child in parent.named_children:
            if child.type == node_type:
                same += 1
        if same != 1:
            return node
        node = parent


def _join(prefix: str | None, name: str, separator: str = ".") -> str:
    return f"{prefix}{separator}{name}" if prefix else name


def _namespace_scopes(found: list[tuple[object, object, object, str | None]], data: bytes, lines: _LineIndex) -> list[_Scope]:
    """Scopes for ``@name.namespace`` declarations.

    A declaration with a body (``namespace Foo { ... }``) covers itself; one
    without (PHP ``namespace Foo\\Bar;``, Perl ``package Foo;``) covers the rest of
    the block or file it stands in, up to the next such declaration there.
    With a unit kind (``@definition.module`` in the match) the namespace is also
    a unit over that range (a Perl package, an Erlang module).
    """
    out: list[_Scope] = []
    by_block: dict[tuple[int, int], list[tuple[int, object, object, object, str | None]]] = {}
    seen: set[tuple[int, int]] = set()
    for decl, name, body, kind in found:
        key = (decl.start_byte, name.start_byte)  # type: ignore[attr-defined]
        if key in seen:  # two patterns matched one declaration
            continue
        seen.add(key)
        parent = decl.parent  # type: ignore[attr-defined]
        block = (parent.start_byte, parent.end_byte) if parent is not None else (0, len(data))
        by_block.setdefault(block, []).append((decl.start_byte, decl, name, body, kind))  # type: ignore[attr-defined]
    for (_start, end), group in by_block.items():
        group.sort(key=lambda item: item[0])
        for i, (start, decl, name, body, kind) in enumerate(group):
            scope = _Scope(decl, kind, name, body, None, True)
            scope.is_namespace = True
            out.append(scope)
            if body is not None:
                continue
            # a statement: up to the next namespace declaration in its block, or the block's end
            scope.end = group[i + 1][0] if i + 1 < len(group) else end
            scope.header_end = decl.end_byte  # type: ignore[attr-defined]
            last = min(scope.end, len(data)) - 1  # its last non-blank byte
            while last > start and data[last] in b" \t\r\n":
                last -= 1
            scope.end_row = bisect_left(lines.starts, last + 1) - 1
    return out


def _innermost(scopes: list[_Scope], items: list[_Item]):
    """Yield (item, innermost scope containing it or None); both lists sorted by start."""
    stack: list[_Scope] = []
    i = 0
    n = len(scopes)
    for item in items:
        pos = item.start
        while i < n and scopes[i].start <= pos:
            s = scopes[i]
            while stack and stack[-1].end <= s.start:
                stack.pop()
            stack.append(s)
            i += 1
        while stack and stack[-1].end <= pos:
            stack.pop()
        yield item, (stack[-1] if stack else None)


def _join_clauses(kept: list[tuple[_Scope, str]]) -> list[tuple[_Scope, str]]:
    """Adjacent definitions of one name (a type signature and its equations) as one.

    The first clause keeps its node (so its leading comment is the doc) and
    grows to the end of the last; a clause without a body (a type signature)
    ends its signature where the next clause starts. References inside any
    clause already go to the shared qualname.
    """
    out: list[tuple[_Scope, str]] = []
    for s, qual in kept:
        if out:
            first, first_qual = out[-1]
            if first_qual == qual and first.kind == s.kind and first.end <= s.start:
                if first.body is None:
                    first.body = s.node
                first.last, first.end = s.last, s.end
                continue
        out.append((s, qual))
    return out
