"""Files whose code sits in blocks of another language (Vue and Svelte ``<script>`` elements).

The host grammar finds the blocks; each is parsed as its own language in a copy of the file
where every byte outside the block is blank (newlines kept), so units, lines and byte offsets are
the whole file's without any re-mapping.
"""

from __future__ import annotations

import re

from .code import _parse_code
from .fingerprint import _fingerprint, file_unit
from .languages import Language, load_language
from .scopes import _role
from .text import _decode, _LineIndex
from .units import CodeUnit, Edge, ParsedFile

_BLANK = bytes(b if b == 0x0A else 0x20 for b in range(256))
_ATTRIBUTE_RE: dict[str, re.Pattern[str]] = {}


def _attribute(tag: str, name: str) -> str | None:
    """The value of attribute ``name`` in a start tag (``<script setup lang="ts">``)."""
    pattern = _ATTRIBUTE_RE.get(name)
    if pattern is None:
        pattern = _ATTRIBUTE_RE[name] = re.compile(
            rf"""[\s<]{re.escape(name)}\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>/]+))""", re.IGNORECASE
        )
    m = pattern.search(tag)
    if m is None:
        return None
    return next(g for g in m.groups() if g is not None)


def _parse_blocks(path: str, data: bytes, language: Language) -> ParsedFile:
    from tree_sitter import QueryCursor

    spec = language.spec
    blocks = spec.blocks
    assert blocks is not None
    if language.query is None:
        raise ValueError(f"language {spec.id!r} has no tree-sitter query for its blocks")
    root = language.parser.parse(data).root_node
    found: list[tuple[int, int, str]] = []
    for _pattern, caps in QueryCursor(language.query).matches(root):
        tag = code = None
        for capture, nodes in caps.items():
            role, _kind = _role(capture)
            if role == "blocktag":
                tag = nodes[0]
            elif role == "blockcode":
                code = nodes[0]
        if code is None:
            continue
        value = _attribute(_decode(data, tag.start_byte, tag.end_byte), blocks.attribute) if tag is not None else None
        block_lang = blocks.language_of(value)
        if block_lang is not None:
            found.append((code.start_byte, code.end_byte, block_lang))
    found.sort()

    units: list[CodeUnit] = []
    edges: list[Edge] = []
    file_doc = ""
    had_errors = bool(root.has_error)
    blank = data.translate(_BLANK) if found else data
    for start, end, block_lang in found:
        masked = blank[:start] + data[start:end] + blank[end:]
        parsed = _parse_code(path, masked, load_language(block_lang), label=spec.id)
        units.extend(parsed.units[1:])
        edges.extend(parsed.edges)
        file_doc = file_doc or parsed.units[0].docstring
        had_errors = had_errors or parsed.had_errors
    top_names = [e.target for e in edges if e.kind == "contains" and e.source == path]
    unit = file_unit(path, spec.id, _LineIndex(data).count, _fingerprint(path, "defines", top_names, file_doc), file_doc)
    return ParsedFile(path=path, language=spec.id, units=[unit] + units, edges=edges, had_errors=had_errors)
