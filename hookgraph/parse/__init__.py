"""Bytes of one file -> :class:`CodeUnit` s and :class:`Edge` s.

Generic over the language registry (:mod:`hookgraph.parse.languages`): code is parsed
with tree-sitter and read through one compiled query per language, whose
capture convention is documented in docs/languages.md;
documents (Markdown, reStructuredText) are split into heading sections.

Nothing here branches on a language name, and nothing recurses over the
syntax tree: the query engine (C) finds the nodes, then two linear sweeps over
byte ranges decide nesting and attribute references, so 5,000 levels of
nesting cost no Python stack.

Where each part lives:

- :mod:`.dispatch`: :func:`parse_file` and :func:`parse_bytes`, which parser reads a file;
- :mod:`.code`: tree-sitter code, with :mod:`.scopes` (captures and nesting), :mod:`.comments`
  (doc comments), :mod:`.references` (edge targets) and :mod:`.signatures`;
- :mod:`.blocks`: Vue/Svelte ``<script>`` blocks; :mod:`.documents`: Markdown/reST sections;
  :mod:`.fallback`: formats without a grammar, and plain text;
- :mod:`.fingerprint`: the file unit's text; :mod:`.text`: lines, decoding and doc cleaning.
"""

from __future__ import annotations

from .dispatch import parse_bytes, parse_file
from .signatures import SIGNATURE_MAX
from .units import CodeUnit as CodeUnit, Edge as Edge, ParsedFile as ParsedFile

__all__ = ["parse_file", "parse_bytes", "SIGNATURE_MAX"]
