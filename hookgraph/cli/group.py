"""The ``hookgraph`` click group: every command hands Ctrl-C back to Python as it starts, and says it in one line."""

from __future__ import annotations

import signal
import sys
from typing import Any

import click

from hookgraph import __version__
from hookgraph.cli.startup import interrupted_while_starting

__all__ = ["Command", "Group", "cli"]


def ctrl_c_unwinds() -> bool:
    """From a command's start on, Ctrl-C raises KeyboardInterrupt: transactions roll back, one line is printed.

    Returns whether the start-up handler was in place (we run as the program).
    """
    if signal.getsignal(signal.SIGINT) is interrupted_while_starting:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        return True
    return False


class Command(click.Command):
    def invoke(self, ctx: click.Context) -> Any:
        as_program = ctrl_c_unwinds()  # until here (imports, parsing) the start-up handler exits at once
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:  # outside a command's own handling (its last lines): one line,
            click.echo("hookgraph: interrupted", err=True)  # not click's blank line and "Aborted!"
            sys.exit(130)
        finally:
            # the command is done: nothing left to undo, and click's own handler would print a blank line; a
            # guarded command whose child finished ignores Ctrl-C until it exits (hookgraph.sync.crash_guard)
            if as_program and signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
                signal.signal(signal.SIGINT, interrupted_while_starting)


class Group(click.Group):
    command_class = Command
    group_class = type  # subgroups (``hookgraph model``) are _Groups too


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hookgraph")
def cli() -> None:
    """A local, always-fresh semantic map of this git repository's code."""
