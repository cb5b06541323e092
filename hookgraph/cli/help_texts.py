"""What ``hookgraph --help`` and ``hookgraph COMMAND --help`` show beyond each command's docstring.

Kept in one place so that the command list fits an 80-column terminal
without click's "..." cuts (each short help is at most :data:`SHORT_LIMIT`
characters: 80 columns less click's indent and the longest command name),
and so that every command's help ends with an example to copy (click's
default cut the descriptions short and showed no example).
"""

from __future__ import annotations

import inspect

import click

#: Characters a short help may take in ``hookgraph --help`` at 80 columns: 80 - 2 (indent) - 7 ("callees",
#: the longest name) - 2 (gap) - 1 (the last column, which click leaves free).
SHORT_LIMIT = 68

#: One line per command in the command list (a docstring's first sentence was cut at the terminal's width).
SHORT = {
    "ask": "Ranked answers to a question or an identifier.",
    "callees": "What SYMBOL calls (resolved to this repository's code).",
    "callers": "Units that call SYMBOL (a name or Class.method).",
    "graph": "SYMBOL's callers, callees, class and imports as a picture.",
    "hook": "Run what a git hook needs (called by the installed hooks).",
    "index": "Sync .hookgraph/index.db with HEAD (or the working tree).",
    "install": "Install git hooks that keep the index fresh.",
    "mcp": "Serve search and the graph to a coding agent over MCP (stdio).",
    "model": "Show, switch or convert the embedding model.",
    "status": "Indexed commit, counts, model, embedder, stale files.",
    "verify": "CI: exit 1 when the committed snapshot is unusable, thin or forged.",
    "model convert": "Convert a sentence-transformers folder to GGUF.",
    "model show": "The model in use: file, SHA-256, dims, pooling, window.",
    "model use": "Embed with PATH.gguf from now on ('default' goes back).",
}

#: Examples, shown last in each command's help (``\b`` keeps click from rewrapping them).
EXAMPLES = {
    "": "hookgraph index && hookgraph ask \"where are credentials dropped?\"",
    "ask": "hookgraph ask \"how are retries configured?\" --path src/ --top 5",
    "callees": "hookgraph callees Session.request",
    "callers": "hookgraph callers rebuild_auth --json",
    "graph": "hookgraph graph Session.request > graph.mmd   # in a PR: ```mermaid\n"
             "hookgraph graph Session.request --format dot | dot -Tsvg > graph.svg",
    "hook": "hookgraph hook post-commit",
    "index": "hookgraph index            # returns when text and graph are in\n"
             "hookgraph index --wait     # and every vector (CI, scripts)",
    "install": "hookgraph install && git commit -m ...   # the hooks keep it fresh",
    "mcp": "hookgraph mcp --repo ~/src/project",
    "model": "hookgraph model show",
    "status": "hookgraph status --json",
    "verify": "hookgraph verify --vectors || (hookgraph index --wait &&\n"
              "  hookgraph hook pre-commit &&    # rewrites and stages the snapshot\n"
              "  git commit -m 'hookgraph: repair the committed snapshot')",
    "model convert": "hookgraph model convert ./all-MiniLM-L6-v2 minilm.gguf --type q8_0",
    "model show": "hookgraph model show --json",
    "model use": "hookgraph model use ~/models/CodeRankEmbed-Q8_0.gguf\nhookgraph index --reembed --wait",
}


def apply(group: click.Group, prefix: str = "") -> None:
    """Set every command's short help and append its example, subcommands included."""
    example = EXAMPLES.get(prefix.strip())
    if example:
        lines = "\n".join(f"  {line}" for line in example.splitlines())
        group.help = f"{group.help or ''}\n\n\b\nExample:\n{lines}"
    for name, command in group.commands.items():
        key = f"{prefix}{name}"
        if command.help:  # a docstring of a function defined inside another keeps its indentation otherwise
            command.help = inspect.cleandoc(command.help)
        if key in SHORT:
            command.short_help = SHORT[key]
        if isinstance(command, click.Group):
            apply(command, f"{key} ")
            continue
        example = EXAMPLES.get(key)
        if example:
            lines = "\n".join(f"  {line}" for line in example.splitlines())
            command.help = f"{command.help or ''}\n\n\b\nExample:\n{lines}"
