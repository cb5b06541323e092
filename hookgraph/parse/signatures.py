"""A definition's signature: its header from the start of the name's line up to the body,
whitespace collapsed, capped at :data:`SIGNATURE_MAX` characters; and a ``@name.scope``'s text
(``impl Vec<T>`` -> ``Vec``).
"""

from __future__ import annotations

import re
from bisect import bisect_left

from .languages import LanguageSpec
from .scopes import _Scope
from .text import _cap, _collapse, _decode, _WS

SIGNATURE_MAX = 300

_OPEN_WS = re.compile(r"([(\[])\s+")
_CLOSE_WS = re.compile(r"\s+([)\]])")
_TRAILING_COMMA = re.compile(r",\s*([)\]])")

_TYPE_ARGS = re.compile(r"<[^<>]*>")


def _scope_text(data: bytes, scope, name, spec: LanguageSpec) -> str:
    """A ``@name.scope``'s text; when it contains the name (C++ ``a::B::run``), the part
    before the name, without its separator and type arguments (``Vec<T>::push`` -> ``Vec``)."""
    if not (scope.start_byte <= name.start_byte and name.end_byte <= scope.end_byte):
        return _decode(data, scope.start_byte, scope.end_byte)
    text = _decode(data, scope.start_byte, name.start_byte)
    previous = None
    while previous != text:  # nested arguments: Map<K, Vec<V>>
        previous, text = text, _TYPE_ARGS.sub("", text)
    text = _WS.sub("", text)
    for sep in (spec.qualname_separator, spec.namespace_separator, "::", "."):
        if sep and text.endswith(sep):
            text = text[: -len(sep)]
            break
    return text


def _signature(data: bytes, s: _Scope, comment_starts: list[int]) -> str:
    """Definition header: from the start of the name's line up to the body."""
    name = s.name_node
    line_start = name.start_byte - name.start_point[1]
    start = max(s.start, line_start)
    body = s.body
    if body is not None and body.end_byte <= name.start_byte:
        # the name follows the body (C's `typedef struct { ... } name;`): header + name
        head = _collapse(_decode(data, s.start, min(body.start_byte, s.start + 4 * SIGNATURE_MAX)))
        return _cap(f"{head} {_decode(data, name.start_byte, name.end_byte)}".strip(), SIGNATURE_MAX)
    if body is not None and body.start_byte > start:
        end = body.start_byte
    elif s.first_member is not None and s.first_member > start:  # no body node: the header ends at its first member
        end = s.first_member
    else:
        end = s.header_end or s.end
    i = bisect_left(comment_starts, start)
    if i < len(comment_starts) and comment_starts[i] < end:
        end = comment_starts[i]
    end = min(end, start + 4 * SIGNATURE_MAX)
    text = _collapse(_decode(data, start, end))
    text = _OPEN_WS.sub(r"\1", text)
    text = _CLOSE_WS.sub(r"\1", text)
    text = _TRAILING_COMMA.sub(r"\1", text)
    text = text.rstrip(" :{;").rstrip()
    if text.endswith(" ="):  # def f(x: Int): Int = / f x y = (the body follows the "=")
        text = text[:-2].rstrip()
    return _cap(text, SIGNATURE_MAX)
