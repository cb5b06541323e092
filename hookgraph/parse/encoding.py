"""A source file's bytes as UTF-8, honouring what the file says about its own encoding.

Parsing, the word index and the model all read UTF-8. Two ways a file says
it is something else are honoured (read as UTF-8, ``def café_latin`` in a
Latin-1 file became ``_latin`` and a UTF-16 file was called "binary"):

* a byte-order mark: UTF-8 (dropped), UTF-16 and UTF-32, little or big endian;
* a PEP 263 coding cookie (``# -*- coding: latin-1 -*-``, ``# vim: set
  fileencoding=cp1252``) in the first two lines, as Python reads it (Ruby's
  ``# encoding: ...`` has the same form).

Line breaks keep their places, so line numbers are the file's own. Bytes
that do not decode in the declared encoding leave the file as it was (the
parser then replaces what is not UTF-8, as for any other file).
"""

from __future__ import annotations

import codecs
import re

__all__ = ["to_utf8"]

#: Byte-order marks, longest first (UTF-32 LE starts with UTF-16 LE's mark).
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
#: PEP 263's regular expression, applied to each of the first two lines.
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


def to_utf8(data: bytes) -> bytes:
    """``data`` as UTF-8 when a byte-order mark or a coding cookie says it is in another encoding; else as is."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom):].decode(codec).encode("utf-8", "surrogatepass")
            except UnicodeError:
                return data
    declared = _cookie(data)
    if declared is None or declared == "utf-8":
        return data
    try:
        return data.decode(declared).encode("utf-8", "surrogatepass")
    except (UnicodeError, LookupError):
        return data


def _cookie(data: bytes) -> str | None:
    """The codec a PEP 263 cookie in the first two lines names (normalised, e.g. "iso8859-1"), or None."""
    for line in data[:1024].splitlines()[:2]:
        match = _COOKIE.match(line)
        if match:
            try:
                return codecs.lookup(match.group(1).decode("ascii", "replace")).name
            except LookupError:
                return None
        if line.strip() and not line.lstrip().startswith(b"#"):  # line 2 counts only after a comment or blank
            return None
    return None
