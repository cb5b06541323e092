"""Markdown and reStructuredText split into heading sections.

Split with a line-based heading scanner rather than a tree-sitter grammar: headings are line
syntax in both, the scanner treats the two formats alike (tree-sitter-language-pack's markdown
grammar is split into block and inline parsers and reST's grammar reports titles differently),
and it costs one pass over the lines.
"""

from __future__ import annotations

import re

from .fingerprint import _fingerprint, file_unit
from .languages import LanguageSpec
from .text import _basename
from .units import CodeUnit, Edge, ParsedFile

_MD_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_MD_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_MD_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_MD_NOT_PARAGRAPH = re.compile(r"^ {0,3}(?:[-*+>]|\d+[.)]|#|\||<)|^ {4,}|^\t")
_RST_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1+\s*$")


def _markdown_headings(lines: list[str]) -> tuple[list[tuple[int, int, int, str]], int]:
    """(first line index, last heading line index, level, title) for each heading,
    and the index of the first content line (after YAML front matter)."""
    out = []
    n = len(lines)
    i = 0
    if n and lines[0].strip() == "---":  # YAML front matter
        for j in range(1, n):
            if lines[j].strip() in ("---", "..."):
                i = j + 1
                break
    content_start = i
    fence: str | None = None
    prev_blank = True
    while i < n:
        line = lines[i]
        m = _MD_FENCE.match(line)
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line.strip()[len(m.group(1)):].strip():
                fence = None
            i += 1
            prev_blank = False
            continue
        if m:
            fence = m.group(1)
            i += 1
            prev_blank = False
            continue
        m = _MD_ATX.match(line)
        if m:
            title = (m.group(2) or "").strip()
            if title:
                out.append((i, i, len(m.group(1)), title))
            i += 1
            prev_blank = True
            continue
        stripped = line.strip()
        if (
            stripped
            and prev_blank
            and i + 1 < n
            and _MD_SETEXT.match(lines[i + 1])
            and not _MD_NOT_PARAGRAPH.match(line)
        ):
            level = 1 if lines[i + 1].strip()[0] == "=" else 2
            out.append((i, i + 1, level, stripped))
            i += 2
            prev_blank = True
            continue
        prev_blank = not stripped
        i += 1
    return out, content_start


def _rst_headings(lines: list[str]) -> tuple[list[tuple[int, int, int, str]], int]:
    out = []
    styles: list[tuple[str, bool]] = []
    n = len(lines)
    i = 0
    while i + 1 < n:
        title = lines[i].rstrip()
        under = _RST_ADORNMENT.match(lines[i + 1])
        if (
            title.strip()
            and not title[0].isspace()
            and under
            and not _RST_ADORNMENT.match(title)
            and len(lines[i + 1].rstrip()) >= len(title)
        ):
            char = under.group(1)
            over = i > 0 and lines[i - 1].rstrip() == lines[i + 1].rstrip()
            before = i - 2 if over else i - 1
            if before < 0 or not lines[before].strip():
                style = (char, over)
                if style not in styles:
                    styles.append(style)
                out.append((i - 1 if over else i, i + 1, styles.index(style) + 1, title.strip()))
                i += 2
                continue
        i += 1
    return out, 0


_DOC_SPLITTERS = {"markdown-headings": _markdown_headings, "rst-titles": _rst_headings}
_PROSE_SKIP = re.compile(r"^\s*(?:\[!\[|!\[|<|\.\.|\||:|```|~~~|[-=*_#~^]{3,}\s*$)")


def _prose_paragraph(lines: list[str]) -> str:
    """First paragraph of prose (badges, HTML, directives, tables and code skipped)."""
    para: list[str] = []
    fence: str | None = None
    for line in lines:
        m = _MD_FENCE.match(line)
        if fence is not None:
            if m and m.group(1)[0] == fence[0]:
                fence = None
            continue
        if m:
            if para:
                break
            fence = m.group(1)
            continue
        if not line.strip():
            if para:
                break
            continue
        if not para and (_PROSE_SKIP.match(line) or line[:1] in (" ", "\t")):
            continue
        para.append(line.strip())
    return " ".join(para)


def _parse_document(path: str, data: bytes, spec: LanguageSpec, sections: str) -> ParsedFile:
    text = data.decode("utf-8", "replace")
    lines = [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]
    if lines and lines[-1] == "" and len(lines) > 1:
        lines.pop()
    count = max(1, len(lines))
    headings, content_start = _DOC_SPLITTERS[sections](lines)

    def section_range(first: int, last: int) -> tuple[int, int]:
        while last > first and not lines[last].strip():
            last -= 1
        return first, last

    units: list[CodeUnit] = []
    edges: list[Edge] = []
    titles: list[str] = []
    base = _basename(path)
    first_heading = headings[0][0] if headings else len(lines)
    doc = ""
    if any(line.strip() for line in lines[content_start:first_heading]):
        start, end = section_range(content_start, first_heading - 1)
        while start < end and not lines[start].strip():
            start += 1
        body = lines[start:end + 1]
        doc = _prose_paragraph(body)
        units.append(
            CodeUnit(
                path=path, kind="section", name=base, qualname=base,
                start_line=start + 1, end_line=end + 1, language=spec.id,
                docstring=doc, text="\n".join(body), parent=None,
            )
        )
        edges.append(Edge(source=path, kind="contains", target=base, line=start + 1, target_full=base))

    trail: list[tuple[int, str]] = []
    for idx, (first, heading_last, level, title) in enumerate(headings):
        next_first = headings[idx + 1][0] if idx + 1 < len(headings) else len(lines)
        start, end = section_range(first, next_first - 1)
        end = max(end, heading_last)
        while trail and trail[-1][0] >= level:
            trail.pop()
        parent = " > ".join(t for _, t in trail) if trail else None
        trail.append((level, title))
        qual = " > ".join(t for _, t in trail)
        body_doc = _prose_paragraph(lines[heading_last + 1:end + 1])
        if not doc and body_doc:
            doc = body_doc
        titles.append(title)
        units.append(
            CodeUnit(
                path=path, kind="section", name=title, qualname=qual,
                start_line=start + 1, end_line=end + 1, language=spec.id,
                signature=title, docstring=body_doc,
                text="\n".join(lines[start:end + 1]), parent=parent,
            )
        )
        edges.append(
            Edge(source=parent or path, kind="contains", target=qual, line=start + 1, target_full=qual)
        )

    unit = file_unit(path, spec.id, count, _fingerprint(path, "sections", titles, doc), doc)
    return ParsedFile(path=path, language=spec.id, units=[unit] + units, edges=edges, had_errors=False)
