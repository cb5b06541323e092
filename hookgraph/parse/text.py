"""Text of a file as the parsers read it: lines by byte offset, decoding, and the cleaning of
docstrings, comments and sentences.

Every parser (code, embedded blocks, documents) counts lines and cuts text the same way, so a
unit's lines and fields do not depend on which parser found it.
"""

from __future__ import annotations

import codecs
import inspect
import os
import re

from .languages import LanguageSpec

SENTENCE_MAX = 240


def _basename(path: str) -> str:
    return os.path.basename(path.replace("\\", "/")) or path


class _LineIndex:
    """Byte offsets of line starts; lines are 1-based and split on ``\\n`` only,
    as tree-sitter counts rows."""

    __slots__ = ("data", "starts", "count")

    def __init__(self, data: bytes):
        self.data = data
        starts = [0]
        find = data.find
        pos = find(b"\n")
        while pos != -1:
            starts.append(pos + 1)
            pos = find(b"\n", pos + 1)
        self.starts = starts
        n = len(starts)
        if data.endswith(b"\n"):
            n -= 1
        self.count = max(1, n)

    def text(self, first: int, last: int) -> str:
        """Source of lines ``first..last`` (1-based, inclusive), without the final newline."""
        starts = self.starts
        first = max(1, first)
        begin = starts[first - 1] if first - 1 < len(starts) else len(self.data)
        end = starts[last] - 1 if last < len(starts) else len(self.data)
        chunk = self.data[begin:max(begin, end)]
        if chunk.endswith(b"\r"):
            chunk = chunk[:-1]
        return chunk.decode("utf-8", "replace")


_BLANK_BYTES = frozenset(b" \t\r\n")


def _decode(data: bytes, start: int, end: int) -> str:
    return data[start:end].decode("utf-8", "replace")


_WS = re.compile(r"\s+")


def _collapse(text: str) -> str:
    return _WS.sub(" ", text).strip()


def _cap(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"


def _clean_string_doc(text: str) -> str:
    """A docstring literal without prefix and quotes, dedented."""
    m = re.match(r"^[rRuUbBfF]{0,2}(\"\"\"|'''|\"|')", text)
    if m:
        quote = m.group(1)
        text = text[m.end():]
        if text.endswith(quote):
            text = text[: -len(quote)]
    return inspect.cleandoc(text).strip()


def _clean_comment(text: str, spec: LanguageSpec) -> str:
    """One comment node's text without its markers."""
    stripped = text.strip()
    for opener, closer in spec.block_comments:
        if stripped.startswith(opener) and stripped.endswith(closer) and len(stripped) >= len(opener) + len(closer):
            body = stripped[len(opener): len(stripped) - len(closer)]
            out = []
            for line in body.split("\n"):
                s = line.strip()
                if s.startswith("*"):
                    s = s[1:]
                    if s.startswith(" "):
                        s = s[1:]
                out.append(s.rstrip())
            return "\n".join(out).strip("\n")
    out = []
    for line in stripped.split("\n"):
        s = line.strip()
        for marker in spec.line_comments:
            if s.startswith(marker):
                s = s[len(marker):]
                break
        if s.startswith(" "):
            s = s[1:]
        out.append(s.rstrip())
    return "\n".join(out)


def _tidy_doc(text: str) -> str:
    lines = text.replace("\r", "").split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)


def _first_paragraph(text: str) -> str:
    for para in re.split(r"\n\s*\n", text.strip()):
        para = para.strip()
        if para:
            return para
    return ""


_SENTENCE = re.compile(r"^(.+?[.!?])(?:\s|$)")


def _first_sentence(text: str) -> str:
    para = _collapse(_first_paragraph(text))
    m = _SENTENCE.match(para)
    return _cap(m.group(1) if m else para, SENTENCE_MAX)


def _strip_quotes(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'`":
        return text[1:-1]
    return text


def _one_question_mark_per_byte(error: UnicodeError) -> tuple[str, int]:
    assert isinstance(error, UnicodeDecodeError)
    return "?" * (error.end - error.start), error.end


codecs.register_error("hookgraph.parse.one-per-byte", _one_question_mark_per_byte)


def _valid_utf8(data: bytes) -> bytes:
    """``data`` with each byte that is not UTF-8 replaced by ``?``: same length, so every offset holds."""
    try:
        data.decode("utf-8")
        return data
    except UnicodeDecodeError:
        return data.decode("utf-8", "hookgraph.parse.one-per-byte").encode("utf-8")
