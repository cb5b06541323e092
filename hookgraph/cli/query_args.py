"""How ``ask`` reads a query that starts with ``-``: as the query, where it cannot be an option.

A question such as ``"-x flag handling"`` holds a space, which no option name does: it is taken as the
query wherever it stands. A single word such as ``-refund`` may be a mistyped option, so it is not
guessed at: after ``--`` everything is the query (``hookgraph ask -- -refund``), and an unknown option
says so in its error line.
"""

from __future__ import annotations

import click

from hookgraph.cli.group import Command

__all__ = ["QueryCommand"]


class QueryCommand(Command):
    """A command whose one argument is free text that may start with ``-`` (see the module docstring)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, _queries_last(self, args))
        except click.NoSuchOption as exc:
            word = next((a for a in args if a.startswith(exc.option_name)), exc.option_name)
            raise click.UsageError(f"No such option {exc.option_name!r}: to ask about text that starts with '-', "
                                   f"put `--` before it (hookgraph {self.name} -- {word})", ctx) from None


def _queries_last(command: click.Command, args: list[str]) -> list[str]:
    """``args`` with every dash-led word that holds a space moved after ``--``: it can only be the query.

    An option's value is left where it is (``--path "-odd dir"``), and so is everything after ``--``.
    """
    with_value: set[str] = set()
    names: set[str] = set()
    for param in command.params:
        if isinstance(param, click.Option):
            names.update(param.opts + param.secondary_opts)
            if not param.is_flag and not param.count:
                with_value.update(param.opts)
    kept: list[str] = []
    queries: list[str] = []
    for i, arg in enumerate(args):
        if arg == "--":
            return [*kept, "--", *queries, *args[i + 1:]]
        is_value = bool(kept) and kept[-1] in with_value
        if (arg.startswith("-") and any(ch.isspace() for ch in arg) and not is_value
                and arg.split("=", 1)[0] not in names):
            queries.append(arg)
        else:
            kept.append(arg)
    return [*kept, "--", *queries] if queries else kept
