"""What kind of question a query is: an identifier, a plain-word graph question, or a question.

The ranking treats them differently, because each kind fails differently on
one blend (measured on eval/'s identifier, callers/callees and question sets,
eval/RESULTS.md): an identifier leans on the words and wants its definition
first; "what calls X?" is answered from the call graph, not from text that
resembles it; a question is a blend of words and meaning. Pure string work, no
store: the caller decides what the names resolve to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Intent", "read_intent", "looks_like_identifier", "asks_for_tests"]

#: A name as people type it from code, in any language's qualified spelling:
#: ``Session.request``, ``Net::HTTP``, ``Foo#bar``, ``A\\B``, Ruby's ``check_pid!`` / ``empty?``.
_NAME = r"[A-Za-z_$][\w$]*(?:(?:\.|::|#|\\)[A-Za-z_$][\w$]*)*[!?]?"
_IDENTIFIER_RE = re.compile(rf"^{_NAME}$")

# Plain-word graph questions. X is one name; the rest is the phrasing people use.
_CALLERS = [
    rf"(?:what|who|which(?:\s+\w+){{0,2}})\s+(?:calls|call|uses|use|invokes|invoke|references|reference)\s+(?P<x>{_NAME})",
    rf"(?:what|who|which(?:\s+\w+){{0,2}})\s+(?:depends|depend)\s+on\s+(?P<x>{_NAME})",
    rf"where\s+(?:is|are)\s+(?P<x>{_NAME})\s+(?:called|used|invoked|referenced)(?:\s+from)?",
    rf"(?:find\s+|show\s+|list\s+)?(?:the\s+)?(?:callers|users|uses|call\s+sites)\s+of\s+(?P<x>{_NAME})",
    rf"(?P<x>{_NAME})\s+callers",
]
_CALLEES = [
    rf"what(?:\s+\w+){{0,2}}\s+(?:does|do)\s+(?P<x>{_NAME})\s+(?:call|use|invoke|need|depend\s+on)",
    rf"what\s+(?:is|are)\s+(?:called|used|invoked)\s+by\s+(?P<x>{_NAME})",
    rf"(?:find\s+|show\s+|list\s+)?(?:the\s+)?(?:callees|dependencies)\s+of\s+(?P<x>{_NAME})",
    rf"(?P<x>{_NAME})\s+callees",
]
_GRAPH = [(re.compile(rf"^\s*{p}\s*[?.!]*\s*$", re.IGNORECASE), "callers") for p in _CALLERS] + [
    (re.compile(rf"^\s*{p}\s*[?.!]*\s*$", re.IGNORECASE), "callees") for p in _CALLEES
]
#: Words that the graph patterns could take for X but are English ("what calls this?").
_NOT_NAMES = frozenset({"it", "this", "that", "them", "these", "those", "me", "us", "you", "everything", "anything"})


@dataclass(frozen=True)
class Intent:
    """How to answer a query.

    ``kind``: ``"identifier"`` (the query is one name), ``"graph"`` (a
    plain-word callers/callees question about ``symbol``) or ``"question"``.
    """

    kind: str
    direction: str | None = None  # "callers" | "callees" for kind "graph"
    symbol: str | None = None
    #: The question asks for tests themselves ("test that ...", "where is X tested?"), not for the code under test.
    wants_tests: bool = False


def looks_like_identifier(query: str) -> bool:
    """One name, in any language's spelling (``resolve_redirects``, ``Net::HTTP::get``, ``check_pid!``)."""
    return bool(_IDENTIFIER_RE.match(query.strip()))


def is_code_name(token: str) -> bool:
    """Whether a word of prose is written as code: ``snake_case``, ``camelCase``, ``Foo.bar``, ``LZ4F_x``.

    A capitalised English word ("Windows"), an acronym ("JSON") or a plain
    lower-case word is not: people write those in sentences.
    """
    if len(token) < 3 and "_" not in token:
        return False
    if re.search(r"\.|::|#|\\", token):
        parts = re.split(r"\.|::|#|\\", token.rstrip("!?"))
        return all(parts) and not all(p.islower() and len(p) <= 3 for p in parts[1:])  # not "e.g", "i.e"
    core = token.strip("_$").rstrip("!?")
    if "_" in core:
        return True
    return bool(re.search(r"[a-z][A-Z]", core) or re.search(r"[A-Z]{2,}[a-z]", core))


def read_intent(query: str) -> Intent:
    """The query's kind, and for a graph question its direction and symbol (see :class:`Intent`)."""
    q = query.strip()
    if looks_like_identifier(q):
        return Intent("identifier")
    for pattern, direction in _GRAPH:
        m = pattern.match(q)
        if m and m.group("x").rstrip("?!").lower() not in _NOT_NAMES:
            x = m.group("x")
            return Intent("graph", direction, x)
    return Intent("question", wants_tests=asks_for_tests(q))


#: Phrasings that ask for the tests themselves. "for tests" / "in a test" (a helper that tests use) do not:
#: those ask for the code that serves the tests.
_WANTS_TESTS = re.compile(
    r"^\s*(?:(?:the|a|which|what|any)\s+)?(?:unit\s+|integration\s+|regression\s+)?tests?\s+"
    r"(?:that|which|checking|checks?|covering|covers?|exercis\w*|for|of|where|asserting)\b"
    r"|\b(?:is|are|was|were|gets?|being)\s+(?:\w+\s+){0,2}tested\b"
    r"|\btest\s+cases?\b",
    re.IGNORECASE)


def asks_for_tests(question: str) -> bool:
    """Whether a question asks for tests ("test that an overflow errors", "where is parsing tested?")."""
    return bool(_WANTS_TESTS.search(question))
