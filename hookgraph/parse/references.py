"""What a reference names: the called or inherited name, and ``target_full``, the text that
says on what it was called (``self.session.get``), argument lists left out.
"""

from __future__ import annotations

import re
from bisect import bisect_left

from .languages import LanguageSpec
from .text import _cap, _collapse, _decode

TARGET_FULL_MAX = 200

_NEWLINE_WS = re.compile(r"\s*\n\s*")
#: Text with no white space, argument list or lambda: ``_reference_text`` leaves it as it is.
_PLAIN = re.compile(r"[^\s(){}]*\Z")


def _inside(ranges: dict[int, int], starts: list[int], position: int) -> bool:
    """Whether ``position`` lies in one of the ``start -> end`` ranges (``starts`` sorted)."""
    i = bisect_left(starts, position + 1) - 1
    return i >= 0 and ranges[starts[i]] > position


def _last_part(name: str, spec: LanguageSpec) -> str:
    """A called or inherited name captured whole (Perl ``Carp::croak``, ``'Base::Class'``) is known by its last part."""
    for separator in (spec.qualname_separator, spec.namespace_separator):
        if separator and separator in name:
            name = name.rsplit(separator, 1)[-1] or name
    return name


def _reference_text(data: bytes, ref, name) -> str:
    """``target_full``: from the start of the reference node (which contains the
    name, or is its receiver just before it) to the end of the name."""
    if ref is None or ref.start_byte > name.start_byte:
        start, end = name.start_byte, name.end_byte
    else:
        start, end = ref.start_byte, name.end_byte
    if end - start > 4 * TARGET_FULL_MAX:
        start = end - 4 * TARGET_FULL_MAX
    text = _decode(data, start, end)
    if _PLAIN.match(text):  # most references (``foo``, ``self.bar``): nothing to take out (a quarter faster)
        return _cap(text, TARGET_FULL_MAX)
    text = _NEWLINE_WS.sub("", text)
    return _cap(_collapse(_empty_parens(text)), TARGET_FULL_MAX)


def _empty_parens(text: str) -> str:
    """``a.b(x, y).c`` -> ``a.b().c``, ``xs.filter { it > 0 }.map`` -> ``xs.filter {}.map``:
    argument lists and trailing lambdas say nothing about the callee."""
    if "(" not in text and "{" not in text:
        return text
    out = []
    depth = 0
    for ch in text:
        if ch == "(" or ch == "{":
            if depth == 0:
                out.append(ch)
            depth += 1
        elif (ch == ")" or ch == "}") and depth:
            depth -= 1
            if depth == 0:
                out.append(ch)
        elif depth == 0:
            out.append(ch)
    return "".join(out)
