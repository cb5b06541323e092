"""``hookgraph graph SYMBOL``: the neighbourhood of a unit as Mermaid, Graphviz DOT or JSON.

Registered on the main group through :data:`hookgraph.cli.COMMAND_MODULES`.
Importing this module costs click only.
"""

from __future__ import annotations

from typing import Any

import click


def complete_symbol(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """Shell completion for SYMBOL: qualified names in this repository's index that start with what is typed."""
    try:
        from pathlib import Path

        from hookgraph.git import repo_root
        from hookgraph.store import Store, db_path

        path = db_path(repo_root(Path.cwd()))
        if not path.exists():
            return []
        with Store(path, readonly=True) as store:
            names = store.qualnames_starting(incomplete, 200)
        return [name for name in names if name.isprintable()]
    except Exception:  # noqa: BLE001 - completion must never print a traceback into the shell
        return []


def register(cli: click.Group) -> None:
    """Add ``graph`` to the ``hookgraph`` group."""
    from hookgraph.cli.common import one_line_errors, open_store, repo_root_here

    @cli.command()
    @click.argument("symbol", shell_complete=complete_symbol)
    @click.option("--depth", "-d", default=1, show_default=True, type=click.IntRange(0, 5),
                  help="Levels of callers and callees to follow.")
    @click.option("--format", "fmt", type=click.Choice(["mermaid", "dot", "json"]), default="mermaid",
                  show_default=True, help="Mermaid (renders in pull requests), Graphviz DOT, or JSON.")
    @click.option("--max-fan", default=8, show_default=True, type=click.IntRange(2, 1000),
                  help="Neighbours of one kind drawn per node; the rest collapse into one 'N more' node.")
    @one_line_errors
    def graph(symbol: str, depth: int, fmt: str, max_fan: int) -> Any:
        """Callers, callees, containing class and imports of SYMBOL, as a picture."""
        from hookgraph.search.diagram import render
        from hookgraph.search.neighbourhood import neighbourhood

        with open_store(repo_root_here()) as store:
            hood = neighbourhood(store, symbol, depth=depth, max_fan=max_fan)
        click.echo(render(hood, fmt), nl=False)
