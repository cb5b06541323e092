"""``hookgraph callers`` / ``callees``: who calls a symbol and what it calls, with unresolved calls shown as
candidates, never as facts."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from hookgraph.cli.common import EXIT_NOTHING, one_line_errors, terminal_safe
from hookgraph.cli.common import open_store as _open_store
from hookgraph.cli.common import repo_root_here as _root
from hookgraph.cli.group import Command

#: Candidates named per ambiguous call in ``callers``/``callees`` output; the count says how many there are.
_CANDIDATES_SHOWN = 5


def _where(unit: Any) -> str:
    return f"{unit.qualname} {unit.path}:{unit.start_line}"


def _print_links(links: list[Any], as_json: bool, direction: str, symbol: str = "") -> None:
    """One line (or JSON object) per call; a call whose receiver's type is unknown says so and names
    what it may run, so nobody reads a guess as an edge."""
    if as_json:
        click.echo(json.dumps([
            {
                "symbol": link.unit.qualname if link.unit else link.name,
                "path": link.unit.path if link.unit else None,
                "start_line": link.unit.start_line if link.unit else None,
                "end_line": link.unit.end_line if link.unit else None,
                "kind": link.unit.kind if link.unit else None,
                "call_path": link.call_path,
                "call_line": link.call_line,
                "expression": link.expression,
                "resolution": link.resolution,
                "candidates": [_where(u) for u in link.maybe],
            }
            for link in links
        ], indent=2))
    else:
        for link in links:
            if link.maybe and link.unit is None:  # a callee of unknown receiver
                names = ", ".join(_where(u) for u in link.maybe[:_CANDIDATES_SHOWN])
                more = f" and {len(link.maybe) - _CANDIDATES_SHOWN} more" if len(link.maybe) > _CANDIDATES_SHOWN else ""
                target = f"? {link.name}  (receiver type unknown; may be one of {len(link.maybe)}: {names}{more})"
            elif link.maybe:  # a possible caller
                target = f"{link.unit.qualname} {link.unit.path}:{link.unit.start_line}  (maybe: receiver type unknown)"
            elif link.unit is not None:
                target = f"{link.unit.qualname}  {link.unit.path}:{link.unit.start_line}"
            else:
                target = f"{link.name}  (not in this repository)"
            click.echo(terminal_safe(f"{link.call_path}:{link.call_line}  {direction} {link.expression}  -> {target}"))
    if not links:
        if not as_json:  # a silent exit 1 looked like a failure; say what was found: nothing
            click.echo(f"hookgraph: {_no_links_line(symbol, direction)}", err=True)
        sys.exit(EXIT_NOTHING)


def _no_links_line(symbol: str, direction: str) -> str:
    if direction == "calls":
        return f"{terminal_safe(symbol)} calls nothing (no call in its body)"
    return (f"nothing in the index calls {terminal_safe(symbol)} (dynamic calls, callbacks and other repositories are "
            "not seen)")


@click.command(cls=Command)
@click.argument("symbol")
@click.option("--json", "as_json", is_flag=True)
@click.option("--all", "show_all", is_flag=True,
              help="Also list calls that may reach SYMBOL: same name, receiver of unknown type (not facts).")
@one_line_errors
def callers(symbol: str, as_json: bool, show_all: bool) -> None:
    """Units that call SYMBOL (a name or Class.method)."""
    from hookgraph.search.graph import callers as find_callers
    from hookgraph.search.graph import possible_callers

    with _open_store(_root()) as store:
        links = find_callers(store, symbol)
        maybe = possible_callers(store, symbol)
    if show_all:
        links = links + maybe
    elif maybe:
        click.echo(f"hookgraph: {len(maybe)} more call(s) of {maybe[0].name} on receivers of unknown type "
                   "may reach it; `--all` lists them", err=True)
    _print_links(links, as_json, "called as", symbol)


@click.command(cls=Command)
@click.argument("symbol")
@click.option("--json", "as_json", is_flag=True)
@one_line_errors
def callees(symbol: str, as_json: bool) -> None:
    """What SYMBOL calls, resolved to this repository's definitions where the code shows the receiver."""
    from hookgraph.search.graph import callees as find_callees

    with _open_store(_root()) as store:
        links = find_callees(store, symbol)
    _print_links(links, as_json, "calls", symbol)


def register(cli: click.Group) -> None:
    """Add ``callers``, ``callees`` to the ``hookgraph`` group."""
    cli.add_command(callers)
    cli.add_command(callees)
