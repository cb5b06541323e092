"""What tree-sitter should not see: languages.json ``mask`` and ``mask_blocks`` blanked to spaces.

Blanking keeps every byte offset and line number exact, so units' lines and the
texts shown come from the real bytes; only the grammar's view changes.

``mask_blocks`` exists for wrappers whose body is code a grammar cannot see
inside: Rust's ``cfg_rt! { ... }`` is a macro invocation, a token tree, so the
functions in it are no units. Blanking only the opener (``cfg_rt! {``) works at
the top level, where the stray closing brace is an error node that ends
nothing; inside an ``impl`` it would end the impl early. So a block mask blanks
the opener *and* its matching closing brace, found by counting braces outside
strings, character literals and comments.
"""

from __future__ import annotations

import re

from .languages import LanguageSpec

# the next byte that can change the brace count or start text whose braces do not count
_INTERESTING = re.compile(rb'[{}"\'/]')
# a character literal: 'x', '\n', '\'', '\u{1F600}' (a lone quote is a Rust lifetime: 'a)
_CHAR_LITERAL = re.compile(rb"'(?:[^'\\\n]|\\(?:u\{[0-9A-Fa-f]{1,6}\}|x[0-9A-Fa-f]{2}|.))'")
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)


def masked(data: bytes, spec: LanguageSpec) -> bytes:
    """``data`` with every ``mask`` match (its group 1, if any) and every ``mask_blocks`` wrapper blanked."""
    if not spec.mask and not spec.mask_blocks:
        return data
    out = bytearray(data)
    for rule in spec.mask:
        group = 1 if rule.groups else 0
        for m in rule.finditer(data):
            _blank(out, *m.span(group))
    for rule in spec.mask_blocks:
        group = 1 if rule.groups else 0
        for m in rule.finditer(data):
            start, end = m.span(group)
            close = _closing_brace(data, end, spec)
            if close is None:  # unbalanced (a half-written file): leave it to the grammar's error recovery
                continue
            _blank(out, start, end)
            _blank(out, close, close + 1)
    return bytes(out)


def _blank(out: bytearray, start: int, end: int) -> None:
    out[start:end] = b" " * (end - start)


def _closing_brace(data: bytes, pos: int, spec: LanguageSpec) -> int | None:
    """Offset of the ``}`` that closes the block opened just before ``pos``, or None if it never closes."""
    depth = 1
    line_markers = tuple(m.encode() for m in spec.line_comments)
    block_markers = tuple((a.encode(), b.encode()) for a, b in spec.block_comments)
    while True:
        m = _INTERESTING.search(data, pos)
        if m is None:
            return None
        at = m.start()
        ch = data[at : at + 1]
        if ch == b"{":
            depth += 1
            pos = at + 1
        elif ch == b"}":
            depth -= 1
            if depth == 0:
                return at
            pos = at + 1
        elif ch == b'"':
            s = _STRING.match(data, at)
            pos = s.end() if s else at + 1
        elif ch == b"'":
            c = _CHAR_LITERAL.match(data, at)
            pos = c.end() if c else at + 1
        else:  # "/": a comment, or division
            pos = _after_comment(data, at, line_markers, block_markers)


def _after_comment(data: bytes, at: int, line_markers: tuple[bytes, ...], block_markers: tuple[tuple[bytes, bytes], ...]) -> int:
    """Where scanning resumes after a comment starting at ``at`` (or just past ``at`` if none starts there)."""
    for opener, closer in block_markers:
        if data.startswith(opener, at):
            end = data.find(closer, at + len(opener))
            return len(data) if end < 0 else end + len(closer)
    for marker in line_markers:
        if data.startswith(marker, at):
            end = data.find(b"\n", at)
            return len(data) if end < 0 else end
    return at + 1
