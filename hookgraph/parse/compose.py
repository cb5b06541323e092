"""What a unit is embedded as, and what it is found by in full-text search.

The embedded text is composed, not the raw source: kind and qualified name,
signature, docstring, the names it calls, then the first lines of its body
(DESIGN.md section 8). The path is left out on purpose so a moved or renamed
file keeps its vectors (the path in the text moved no question either: eval/RESULTS.md,
"compose: the unit's path in its embedded text (dropped)"); path words still reach
the full-text index.

The vector key is the SHA-256 of the model's SHA-256 and this composed text,
so a change of recipe here re-embeds exactly the units whose text changed,
with nothing to bump by hand.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from hookgraph.parse.expansion import expands, expansion_texts, unit_words
from hookgraph.parse.words import identifier_text
from hookgraph.parse.units import CodeUnit, ParsedFile

#: Source lines of a body that go into the embedded text (all-MiniLM was
#: trained on 128-256 tokens; the embedder truncates to its budget anyway).
BODY_LINES = 30
MAX_CALLS_LISTED = 12
#: Characters of a documentation section's embedded text (heading, first paragraph, sub-headings, body):
#: about one 256-token window of all-MiniLM, whose first window of a long section held 560-950 characters.
#: A long section's later windows cost model time (a changelog's and a manual's sections: 15% of httpie
#: 3.2.4's) and moved no question on either benchmark (eval/RESULTS.md); the section's words
#: all stay in the full-text index. 0: no limit.
SECTION_CHARS = 1000
#: Full-text columns hold identifier-split words (``max_retries`` -> max retries
#: max_retries); off: the raw text (an eval/ ablation).
FTS_SPLIT_IDENTIFIERS = True
#: Full-text search sees the path's words (an eval/ ablation when off).
FTS_PATH = True


def embed_text(unit: CodeUnit, calls: list[str], members: list[CodeUnit] | None = None) -> str:
    """The text the model sees for ``unit`` (before the model's document prefix).

    A class is embedded as its header, docstring, own lines before its first
    member and the list of its members' names, not its members' bodies: then
    an edit inside one method re-embeds that method only.
    """
    parts = [f"{unit.kind} {unit.qualname}"]
    if unit.signature and unit.kind not in ("file", "section"):
        parts.append(unit.signature)
    if unit.docstring and unit.kind != "file":  # a file's fingerprint (its body) has its doc's first sentence
        parts.append(unit.docstring.strip())
    if calls:
        unique = list(dict.fromkeys(calls))[:MAX_CALLS_LISTED]
        parts.append("calls: " + ", ".join(unique))
    body = unit.text
    if members:
        parts.append("members: " + ", ".join(m.name for m in members))
        own_lines = min(m.start_line for m in members) - unit.start_line
        body = "\n".join(body.splitlines()[: max(own_lines, 1)])
    if unit.kind not in ("file", "section"):
        body = "\n".join(body.splitlines()[:BODY_LINES])
    elif unit.kind == "file" and body.startswith(unit.qualname + "\n"):
        body = body[len(unit.qualname) + 1:]  # the fingerprint's first line is the path, said above
    parts.append(body)
    text = "\n".join(p for p in parts if p)
    if unit.kind == "section" and SECTION_CHARS and len(text) > SECTION_CHARS:
        text = _head(text, SECTION_CHARS)
    return text


def _head(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters: at the last line end in its second half, else a space."""
    cut = text[:limit]
    for mark in ("\n", " "):
        at = cut.rfind(mark)
        if at > limit // 2:
            return cut[:at]
    return cut


def embed_texts(parsed: ParsedFile) -> list[str]:
    """The embedded text of each of the file's units, in order: its calls and members read off the parse."""
    calls: dict[str, list[str]] = {}
    for edge in parsed.edges:
        if edge.kind == "calls":
            calls.setdefault(edge.source, []).append(edge.target)
    members: dict[str, list[CodeUnit]] = {}
    for unit in parsed.units:
        if unit.parent is not None:
            members.setdefault(unit.parent, []).append(unit)
    return [embed_text(u, calls.get(u.qualname, []), members.get(u.qualname)) for u in parsed.units]


#: Bytes of a vector key: 128 bits of SHA-256 tell texts apart; a full
#: digest, or its 64-character hex (schema 3), only made the store bigger.
KEY_BYTES = 16


def text_hash(model_sha256: str, text: str) -> bytes:
    """Key of a stored vector: which model (recipe) embedded which exact text; the SHA-256's first 16 bytes."""
    digest = hashlib.sha256()
    digest.update(model_sha256.encode())
    digest.update(b"\0")
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.digest()[:KEY_BYTES]


def fts_columns(unit: CodeUnit) -> tuple[str, str, str, str, str, str, str]:
    """Values for the FTS columns: name, words, path, signature, docstring, body; then the unit's expansion
    words (:mod:`hookgraph.parse.expansion`), which go to a full-text table of their own.

    Every column holds identifier-split words so BM25 matches ``retry`` in
    ``max_retries``, ``RetryPolicy`` and ``retry_after`` alike.
    """
    return fts_rows([unit])[0]


def fts_rows(units: Sequence[CodeUnit], expand: bool = True) -> list[tuple[str, str, str, str, str, str, str]]:
    """:func:`fts_columns` for a file's units; ``expand=False`` leaves the expansion words empty, for
    :func:`with_expansions` to find over many files at once."""
    if not FTS_SPLIT_IDENTIFIERS:
        return [(u.name, u.qualname, u.path if FTS_PATH else "", u.signature, u.docstring, u.text, "") for u in units]
    rows = [(
        identifier_text(u.name) + " " + u.name.lower(),
        identifier_text(f"{u.name} {u.qualname}"),
        identifier_text(u.path) if FTS_PATH else "",
        identifier_text(u.signature),
        u.docstring,
        identifier_text(u.text),
        "",
    ) for u in units]
    return with_expansions(units, rows) if expand else rows


def with_expansions(units: Sequence[CodeUnit], rows: Sequence[tuple[str, str, str, str, str, str, str]]
                    ) -> list[tuple[str, str, str, str, str, str, str]]:
    """``rows`` (the units' :func:`fts_rows`) with each unit's expansion words in their last place, found
    together: numpy sums them for many units (a first index's chunk of files), the standard library for a few."""
    implied = expansion_texts([unit_words(r[0], r[4], r[5]) if expands(u) else None for u, r in zip(units, rows)])
    return [(*r[:6], words) for r, words in zip(rows, implied)]


def snippet(signature: str, docstring: str) -> str:
    """One line to show under a result: the docstring's first line, else the signature."""
    for line in docstring.splitlines():
        if line.strip():
            return line.strip()[:160]
    return signature.strip()[:160]
