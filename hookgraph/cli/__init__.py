"""The ``hookgraph`` command line: parse options, call one function, print.

Exit codes (a contract, DESIGN.md section 2): 0 ok, 1 no results or a check
failed, 2 usage or input error. Every error is one line on stderr, never a
traceback (set ``HOOKGRAPH_DEBUG=1`` to see one).

The package's face: :func:`main` and the click group. One module per command
or family of commands, listed in :data:`COMMAND_MODULES`; ``group`` and ``startup``
hold the Ctrl-C handling every command shares, ``common`` and ``output`` what
they print.
"""

from __future__ import annotations

import sys

from hookgraph.cli.startup import hold_ctrl_c_while_starting

# First, before click and the rest are imported: Ctrl-C during the imports is one line, not a traceback.
hold_ctrl_c_while_starting(__name__)

import os  # noqa: E402

import click  # noqa: E402

from hookgraph.cli import ask, git_commands, graph_command, index, links, mcp, model, status  # noqa: E402
from hookgraph.cli.common import EXIT_OK, EXIT_USAGE, UserError  # noqa: E402
from hookgraph.cli.group import cli  # noqa: E402

__all__ = ["cli", "main"]


#: Every module that adds commands to ``hookgraph``: the one list of what the command line can do.
#: Each module's ``register(cli)`` adds its commands (``links``: callers and callees; ``git_commands``: hook,
#: install, verify and git's merge driver; ``model``: the ``model`` group).
COMMAND_MODULES = (index, ask, links, status, graph_command, git_commands, model, mcp)


def _register_commands() -> None:
    from hookgraph.cli.help_texts import apply

    for module in COMMAND_MODULES:
        module.register(cli)
    apply(cli)  # the worked examples under each command's help


_register_commands()


def _arguments() -> list[str]:
    """The command line as storable text: bytes that are not UTF-8 (``ask $'\\xff'``) arrive as
    lone surrogates, which neither SQLite nor the tokenizer accept; they become ``\\xNN``,
    as in stored file names (:func:`hookgraph.git.path_key`), so ``--path`` still matches those."""
    from hookgraph.git import path_key

    return [path_key(arg) for arg in sys.argv[1:]]


def main() -> None:
    """Console entry point: click's usage errors exit 2 with one line, as ours do."""
    try:
        cli.main(args=_arguments(), standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as exc:
        click.echo(exc.ctx.get_help() if exc.ctx else "usage: hookgraph COMMAND")
        sys.exit(EXIT_OK)
    except BrokenPipeError:
        # `hookgraph ask ... | head`: the reader left; that is not an error.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(EXIT_OK)
    except click.exceptions.Abort:
        click.echo("hookgraph: interrupted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        message = exc.format_message()
        if isinstance(exc, click.UsageError) and exc.ctx is not None:
            message += f" (see `{exc.ctx.command_path} --help`)"
        click.echo(f"hookgraph: {message}", err=True)
        sys.exit(exc.exit_code if isinstance(exc, UserError) else EXIT_USAGE)
    except SystemExit:
        raise
    except KeyboardInterrupt:
        click.echo("hookgraph: interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":  # pragma: no cover
    main()
