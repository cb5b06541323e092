"""Identifier words: how code names and questions meet in the full-text index.

The store indexes unit names, signatures and bodies as these words, and the
search splits a query the same way, so ``resolve_redirects``,
``resolveRedirects`` and "resolve redirects" all find each other.
"""

from __future__ import annotations

import re

_WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*|[0-9]+")
_CAMEL_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def identifier_words(text: str) -> list[str]:
    """Split identifiers into lower-case words: ``getHTTPResponse_code`` -> get http response code.

    Both the store and the query side use this, so ``resolve_redirects``,
    ``resolveRedirects`` and "resolve redirects" all meet in the same words.
    """
    words: list[str] = []
    append = words.append
    for token in _WORD_RE.findall(text):
        if token.isdigit() or (token.islower() and token.isalpha()):  # most code words: one part (2x faster)
            append(token)
            continue
        parts = _CAMEL_RE.findall(token)
        words.extend(p.lower() for p in parts)
        if len(parts) > 1:
            append(token.lower())
    return words
