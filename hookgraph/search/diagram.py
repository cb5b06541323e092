"""Draw a :class:`~hookgraph.search.neighbourhood.Neighbourhood` as Mermaid, Graphviz DOT or JSON.

Mermaid renders in pull requests and issues on the big forges; DOT goes to
``dot -Tsvg``. Both get the same picture: edges labelled by kind (calls,
contains, imports, inherits), the focal unit highlighted, collapsed fan-outs
as dashed "N more ..." boxes, modules outside the repository in grey.

Names and paths come from the repository (and maybe from a committed
database), so they are escaped for each language, never trusted: node ids are
our own (``n1``, ``m7``), labels are quoted with every character the language
would act on escaped (quotes, ``#``, ``<>&`` and backticks for Mermaid;
backslashes and quotes for DOT, whose ``\\N``/``\\l`` escapes would otherwise
fire), and control characters are shown as ``\\xNN`` text. Unicode names stay
as they are: both languages read UTF-8.
"""

from __future__ import annotations

import json
import re

from hookgraph.search.neighbourhood import Neighbourhood, Node

FORMATS = ("mermaid", "dot", "json")

#: C0/C1 controls, line and paragraph separators and bidirectional overrides: shown as escapes.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _visible(text: str) -> str:
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}",
                        text)


def _caption(node: Node) -> tuple[str, str]:
    """The node's two lines: its name, and what and where it is."""
    if node.kind == "more":
        return node.label, ""
    if node.external:
        return node.label, "module"
    if node.kind == "file":
        return node.label, "file"
    where = f"{node.path}:{node.start_line}" if node.path and node.start_line else (node.path or "")
    return node.label, f"{node.kind} · {where}" if where else node.kind


# -- Mermaid -------------------------------------------------------------------------

_MERMAID_ENTITIES = {"#": "#35;", '"': "#quot;", "<": "#lt;", ">": "#gt;", "&": "#amp;", "`": "#96;"}
_MERMAID_SPECIAL = re.compile('[#"<>&`]')


def mermaid_text(text: str) -> str:
    """Text safe inside a quoted Mermaid label: entity codes for what Mermaid or HTML would interpret."""
    return _MERMAID_SPECIAL.sub(lambda m: _MERMAID_ENTITIES[m.group()], _visible(text))


def _mermaid_shape(node: Node, label: str) -> str:
    if node.kind == "more":
        return f'("{label}")'
    if node.external:
        return f'>"{label}"]'
    if node.kind == "file":
        return f'[/"{label}"/]'
    if node.kind in ("class", "interface", "struct", "trait", "enum", "type"):
        return f'[["{label}"]]'
    return f'["{label}"]'


def to_mermaid(neighbourhood: Neighbourhood) -> str:
    lines = ["flowchart LR"]
    for node in neighbourhood.nodes:
        name, detail = _caption(node)
        label = mermaid_text(name) + (f"<br/>{mermaid_text(detail)}" if detail else "")
        lines.append(f"    {node.id}{_mermaid_shape(node, label)}")
    for edge in neighbourhood.edges:
        arrow = "-.->" if edge.kind in ("contains", "imports") else "-->"
        lines.append(f"    {edge.source} {arrow}|{edge.kind}| {edge.target}")
    lines += [
        "    classDef focal fill:#ffe08a,stroke:#b45309,stroke-width:3px,color:#000",
        "    classDef more fill:#f5f5f5,stroke:#9e9e9e,stroke-dasharray:4 3,color:#555",
        "    classDef external fill:#eeeeee,stroke:#bdbdbd,color:#555",
    ]
    for cls, members in (
        ("focal", [n.id for n in neighbourhood.nodes if n.focal]),
        ("more", [n.id for n in neighbourhood.nodes if n.kind == "more"]),
        ("external", [n.id for n in neighbourhood.nodes if n.external]),
    ):
        if members:
            lines.append(f"    class {','.join(members)} {cls}")
    return "\n".join(lines) + "\n"


# -- Graphviz DOT ----------------------------------------------------------------------


def dot_text(text: str) -> str:
    """Text safe inside a DOT double-quoted string: backslashes and quotes escaped, controls visible."""
    return _visible(text).replace("\\", "\\\\").replace('"', '\\"')


_DOT_EDGE_STYLE = {
    "calls": "",
    "contains": ', style="dashed", arrowhead="odiamond"',
    "imports": ', style="dotted"',
    "inherits": ', arrowhead="empty"',
}


def _dot_node(node: Node) -> str:
    name, detail = _caption(node)
    label = dot_text(name) + (f"\\n{dot_text(detail)}" if detail else "")
    attrs = [f'label="{label}"']
    if node.focal:
        attrs.append('style="filled,bold", fillcolor="#ffe08a", color="#b45309", penwidth=2')
    elif node.kind == "more":
        attrs.append('style="dashed,rounded", fontcolor="#555555", color="#9e9e9e"')
    elif node.external:
        attrs.append('style="filled", fillcolor="#eeeeee", color="#bdbdbd", shape="cds"')
    elif node.kind == "file":
        attrs.append('shape="note"')
    elif node.kind in ("class", "interface", "struct", "trait", "enum", "type"):
        attrs.append('shape="box3d"')
    return f"    {node.id} [{', '.join(attrs)}];"


def to_dot(neighbourhood: Neighbourhood) -> str:
    lines = [
        "digraph hookgraph {",
        f'    label="{dot_text(f"hookgraph graph {neighbourhood.symbol} --depth {neighbourhood.depth}")}";',
        '    graph [rankdir="LR", fontsize=10, charset="UTF-8"];',
        '    node [shape="box", style="rounded", fontname="Helvetica", fontsize=11];',
        '    edge [fontname="Helvetica", fontsize=9];',
    ]
    lines += [_dot_node(node) for node in neighbourhood.nodes]
    for edge in neighbourhood.edges:
        lines.append(f'    {edge.source} -> {edge.target} [label="{edge.kind}"{_DOT_EDGE_STYLE.get(edge.kind, "")}];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_json(neighbourhood: Neighbourhood) -> str:
    return json.dumps(neighbourhood.to_json(), indent=2, ensure_ascii=False) + "\n"


def render(neighbourhood: Neighbourhood, fmt: str) -> str:
    if fmt == "mermaid":
        return to_mermaid(neighbourhood)
    if fmt == "dot":
        return to_dot(neighbourhood)
    if fmt == "json":
        return to_json(neighbourhood)
    raise ValueError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
