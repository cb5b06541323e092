"""``hookgraph mcp``: serve the index to coding agents over the Model Context Protocol (stdio).

Registered on the main group through :data:`hookgraph.cli.COMMAND_MODULES`.
Importing this module costs click only: the ``mcp`` SDK is imported when the
server starts (see :mod:`hookgraph.cli.mcp_server`).
"""

from __future__ import annotations

from pathlib import Path

import click


def register(cli: click.Group) -> None:
    """Add ``mcp`` to the ``hookgraph`` group."""
    from hookgraph.cli.common import UserError, one_line_errors

    @cli.command()
    @click.option("--repo", "repo", type=click.Path(file_okay=False, path_type=Path), default=None,
                  help="The repository to serve (default: the one containing the current directory). "
                       "MCP clients often start servers elsewhere: pass it in their config.")
    @click.option("--no-sync", is_flag=True,
                  help="Answer from the index as it is and list the paths where it differs from the working tree, "
                       "instead of syncing a private copy to the working tree before each answer.")
    @click.option("--max-sync", "max_sync", default=200, show_default=True, type=click.IntRange(0, 100_000),
                  help="Sync at most this many changed files on the fly; more are reported as stale.")
    @one_line_errors
    def mcp(repo: Path | None, no_sync: bool, max_sync: int) -> None:
        """Serve search, context, callers, callees and status to an MCP client over stdio.

        \b
        Register it with a client, e.g. in its mcpServers config:
          {"mcpServers": {"hookgraph": {
              "command": "hookgraph", "args": ["mcp", "--repo", "/path/to/repo"]}}}
        """
        from hookgraph.git import repo_root
        from hookgraph.store import db_path

        root = repo_root(repo if repo is not None else Path.cwd())
        warnings: list[str] = []
        if not db_path(root).exists():
            from hookgraph.sync.shared import build_first_index

            if build_first_index(root, warnings):
                for warning in warnings:
                    click.echo("hookgraph: warning: " + " ".join(warning.split()), err=True)
        if not db_path(root).exists():
            raise UserError(f"no index in {root}: " + (warnings[0] if warnings else "run `hookgraph index` there first"))
        try:
            from hookgraph.cli.mcp_server import serve
        except ImportError as exc:
            raise UserError(f"the MCP SDK is not installed ({exc}): pip install 'mcp>=2,<3'") from None
        serve(root, sync=not no_sync, max_sync_files=max_sync)
