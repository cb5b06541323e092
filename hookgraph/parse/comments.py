"""The comments that document a definition or a file.

A definition without a docstring is documented by the whole-line comment block right above it
(or, in TypeScript, above its overload signatures); a file by its leading comment block, licence
headers and pragmas skipped. All of it reads sibling links and rows, never recursion.
"""

from __future__ import annotations

import re
from typing import Any

from .languages import LanguageSpec
from .text import _BLANK_BYTES, _clean_comment, _decode, _tidy_doc

def _end_row(node) -> int:
    """0-based row of a node's last character (a node ending just after a newline
    ends on the previous row)."""
    end = node.end_point
    row = end[0]
    if end[1] == 0 and row > node.start_point[0]:
        row -= 1
    return row


def _comment_end_row(node, data: bytes) -> int:
    """0-based last row of a comment; one that swallows the next line's indent
    (Zig's ``///`` doc comments) ends on the row before."""
    end = node.end_point
    row = end[0]
    if row > node.start_point[0] and not data[node.end_byte - end[1]: node.end_byte].strip():
        row -= 1
    return row


def _kept_group(m: re.Match[str]) -> str:
    """A ``doc_strip`` match is removed, but the text of a group it captured stays
    (``<see cref="PyObject"/>`` -> ``PyObject``)."""
    return next((g for g in m.groups() if g), "")


def _starts_line(node, data: bytes) -> bool:
    """True when only whitespace precedes the node on its first line."""
    col = node.start_point[1]
    return not data[node.start_byte - col: node.start_byte].strip()


def _leading_comments(
    node, comments: dict[int, object], annotations: dict[int, int], data: bytes,
    comment_ends: dict[int, Any] | None = None, doc_markers: tuple[str, ...] = (),
) -> list:
    """The contiguous whole-line comment block directly above a definition.

    A documentation comment (one opening with a marker of ``doc_markers``, ``/**`` or ``///``) is
    the definition's even with blank lines between them, as javadoc, scaladoc, dokka and rustdoc
    read it; a plain comment above a blank line is not (it titles a group of definitions).
    """
    expected = node.start_point[0] - 1
    found: list = []
    current = node
    below = node.start_byte
    sib = current.prev_named_sibling
    # a definition that opens its parent (e.g. the first statement of a block)
    # has its comment as a sibling of an ancestor
    while sib is None and current.parent is not None and current.parent.start_byte == current.start_byte:
        current = current.parent
        sib = current.prev_named_sibling
    while sib is not None and expected >= 0:
        key = sib.start_byte
        if key in comments:
            if not _starts_line(sib, data):
                break
            if _comment_end_row(sib, data) != expected and not (
                    not found and _detached_doc(sib, below, expected, data, doc_markers)):
                break
            found.append(sib)
        elif key in annotations:
            if _end_row(sib) != expected:
                break
        else:
            break
        expected = sib.start_point[0] - 1
        below = sib.start_byte
        sib = sib.prev_named_sibling
    if not found and comment_ends:
        found = _comments_ending_above(node, comment_ends, data, doc_markers)
    found.reverse()
    return found


#: Blank lines that may stand between a documentation comment and what it documents.
DOC_GAP_LINES = 2


def _detached_doc(comment, below: int, expected: int, data: bytes, doc_markers: tuple[str, ...]) -> bool:
    """True when ``comment`` is a documentation comment that ends at most DOC_GAP_LINES blank lines
    above row ``expected + 1`` and nothing but blanks lie between it and byte ``below``."""
    if not doc_markers:
        return False
    gap = expected - _comment_end_row(comment, data)
    if not 0 < gap <= DOC_GAP_LINES or data[comment.end_byte:below].strip():
        return False
    head = data[comment.start_byte: comment.start_byte + 8].decode("utf-8", "replace")
    return any(head.startswith(m) for m in doc_markers)


def _overload_comments(
    node, name: str, spec: LanguageSpec, comments: dict[int, object], annotations: dict[int, int], data: bytes,
    comment_ends: dict[int, Any] | None,
) -> list:
    """The comments above the overload signatures right before a definition, in source order.

    TypeScript documents an overloaded function on its signatures
    (``/** doc */ export function timer(due: number): Observable<0>;``), which
    are no units; the implementation below them has no comment of its own.
    """
    current = node
    while current.prev_named_sibling is None and current.parent is not None \
            and current.parent.start_byte == current.start_byte:
        current = current.parent
    found: list = []
    sib = current.prev_named_sibling
    while sib is not None:
        if sib.start_byte not in comments:  # a comment belongs to the overload below it, taken with it
            if _overload_name(sib, spec, data) != name:
                break
            found[:0] = _leading_comments(sib, comments, annotations, data, comment_ends, spec.doc_comments)
        sib = sib.prev_named_sibling
    return found


def _overload_name(node, spec: LanguageSpec, data: bytes) -> str | None:
    """The name an overload signature declares, looking inside its wrappers (``export``); None if it is none."""
    while node.type not in spec.overload_signatures:
        if node.type not in spec.wrappers or not node.named_children:
            return None
        node = node.named_children[-1]
    name = node.child_by_field_name("name")
    return None if name is None else _decode(data, name.start_byte, name.end_byte)


def _comments_ending_above(node, comment_ends: dict[int, Any], data: bytes, doc_markers: tuple[str, ...] = ()) -> list:
    """Whole-line comments right above ``node`` that are not its siblings, nearest first.

    Some grammars hang the comment before a definition on the end of the
    previous node (Kotlin's import list keeps the class's KDoc). Only a comment
    no deeper indented than the definition counts, so a comment that closes an
    indented block above is not taken for the next definition's doc.
    """
    found: list = []
    column = node.start_point[1]
    expected = node.start_point[0] - 1
    pos = node.start_byte - column
    while expected >= 0:
        end = pos
        while end > 0 and data[end - 1] in _BLANK_BYTES:
            end -= 1
        # a comment node may or may not include its line's newline
        comment = comment_ends.get(end) or comment_ends.get(end + 1)
        if (
            comment is None
            or (_comment_end_row(comment, data) != expected
                and not (not found and _detached_doc(comment, pos + column, expected, data, doc_markers)))
            or comment.start_point[1] > column
            or not _starts_line(comment, data)
        ):
            break
        found.append(comment)
        expected = comment.start_point[0] - 1
        pos = comment.start_byte - comment.start_point[1]
    return found


_BOILERPLATE = re.compile(
    r"copyright|\blicen[cs]ed?\b|spdx-license|^\s*!|-\*-|^\s*(?:vim?|eslint|jshint|prettier|@ts-|global\b|go:build|\+build)",
    re.IGNORECASE | re.MULTILINE,
)


def _file_comment(root, comments, used_comments: set[int], spec: LanguageSpec, data: bytes) -> str:
    """The file's leading comment block (licence headers and pragmas skipped)."""
    blocks: list[list] = []
    current: list = []
    last_row = -2
    child = root.named_child(0) if root.named_child_count else None
    while child is not None and child.start_byte in comments:
        if current and child.start_point[0] > last_row + 1:
            blocks.append(current)
            current = []
        current.append(child)
        last_row = _comment_end_row(child, data)
        child = child.next_named_sibling
    if current:
        blocks.append(current)
    for block in blocks:
        if any(c.start_byte in used_comments for c in block):
            continue
        text = _tidy_doc("\n".join(_clean_comment(_decode(data, c.start_byte, c.end_byte), spec) for c in block))
        if not text or _BOILERPLATE.search(text):
            continue
        return text
    return ""
