"""Identifier words: how code names and questions meet in the full-text index.

The store indexes unit names, signatures and bodies as these words, and the
search splits a query the same way, so ``resolve_redirects``,
``resolveRedirects`` and "resolve redirects" all find each other.
"""

from __future__ import annotations

import re

#: A token: an identifier-like run or a number; its words are :func:`identifier_words` of it alone.
WORD_PATTERN = _WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*|[0-9]+")
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


#: Distinct tokens :func:`identifier_text` remembers (then it starts over): Django's 6,800 files hold about
#: 95k, abseil's 40k; at most ~10 MB in a long-lived process (the MCP server), and nearly every token after
#: the first files is a dictionary hit.
_MEMO_TOKENS = 100_000


class _TokenWords(dict[str, str]):
    """token -> its words joined by spaces, computed on first sight (``__missing__``)."""

    def __missing__(self, token: str) -> str:
        if token.isdigit() or (token.islower() and token.isalpha()):
            words = token  # its own one word: the same object, no second copy in the memo
        else:
            words = " ".join(identifier_words(token))
        if len(self) >= _MEMO_TOKENS:
            self.clear()
        self[token] = words
        return words


_token_words = _TokenWords()


def identifier_text(text: str) -> str:
    """``" ".join(identifier_words(text))``, 1.3-1.9x faster on whole files' text (what a sync writes to full text).

    Splitting each token in Python was the largest cost of a first index
    (10 of Django's 22 profiled seconds); tokens repeat, so each is
    split once and then looked up, the loop running in C (``map`` over a dict).
    ``_WORD_RE`` never yields a token whose words are empty, so joining the
    tokens' words gives exactly the joined word list.
    """
    return " ".join(map(_token_words.__getitem__, _WORD_RE.findall(text)))
