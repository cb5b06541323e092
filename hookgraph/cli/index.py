"""``hookgraph index``: the store synced with HEAD or the working tree; new texts left to the background embedder
unless ``--wait``."""

from __future__ import annotations

import sys
from typing import Any

import click

from hookgraph.cli.common import UserError, crash_guarded, one_line_errors, terminal_safe
from hookgraph.cli.common import repo_root_here as _root
from hookgraph.cli.group import Command


@click.command(cls=Command)
@click.option("--full", is_flag=True, help="Rebuild from scratch instead of syncing the difference.")
@click.option("--worktree", is_flag=True, help="Index the working tree (uncommitted edits) instead of HEAD.")
@click.option("--reembed", is_flag=True,
              help="Re-embed everything with the configured model (after `hookgraph model use`), in one transaction.")
@click.option("--embed-url", default=None, metavar="URL",
              help="Embed on a llama.cpp server serving the same GGUF (default: [embed] url in config).")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing when it worked.")
@click.option("--wait/--no-wait", "wait", default=None,
              help="Embed every waiting text before returning, with a progress bar on a terminal (--wait), or "
                   "leave them to the background embedder (--no-wait, the default).")
@crash_guarded
@one_line_errors
def index(full: bool, worktree: bool, reembed: bool, embed_url: str | None, quiet: bool, wait: bool | None) -> None:
    """Sync .hookgraph/index.db with HEAD (or the working tree).

    Text and graph are written at once (`ask` works as soon as this returns);
    new texts are embedded afterwards, in the background or, with --wait, here.
    """
    from hookgraph import git
    from hookgraph.embed.choice import embedder_for_repo
    from hookgraph.sync import read_target, sync

    root = _root()
    if not worktree and git.head_commit(root) is None:
        raise UserError(f"{root} has no commits yet: commit something first, or use `hookgraph index --worktree`")
    target = read_target(root, "worktree" if worktree else "head")
    embedder = embedder_for_repo(root, embed_url=embed_url, use_remote=True)
    terminal = sys.stderr.isatty() and not quiet
    verify = getattr(embedder, "verify", None)  # a llama.cpp server (RemoteEmbedder)
    # The model never holds up the main job unless asked (embedding a first index takes minutes): text and
    # graph are in when this returns, on a terminal too. A server embeds only for the command that names it: drained here, through it.
    foreground = wait if wait is not None else verify is not None
    if verify is not None and foreground:
        verify()  # an unreachable or different server: one line, before anything is written
    report = sync(root, target, full=full, reembed=reembed, embedder=embedder,
                  progress=_progress_bar if terminal else None, background=not foreground)
    for warning in report.warnings:
        click.echo(f"hookgraph: warning: {terminal_safe(warning)}", err=True)
    if target.untracked_left_out:
        from hookgraph.sync.target import untracked_left_out_line

        click.echo(f"hookgraph: note: {untracked_left_out_line(target.untracked_left_out, 'indexed')}", err=True)
    if not quiet:
        click.echo(report.summary("now" if foreground else None))
    if foreground and (report.pending or report.unchecked):
        from hookgraph.cli.embedding import embed_in_foreground

        done = embed_in_foreground(root, embedder, report.pending, bar=terminal, quiet=quiet)
        if not quiet and done is not None and (report.pending or done.embedded or done.from_cache):
            line = f"embedded {done.embedded:,} texts"
            if done.from_cache:
                line += f" ({done.from_cache:,} more from the cache)"
            line += f" in {done.seconds:.1f}s"
            if done.rate:
                line += f" ({done.rate:.1f} texts/s)"
            cosine = getattr(embedder, "probe_cosine", None)
            if cosine is not None:
                line += f" (embedded by {embedder.source}, probe cosine {cosine:.6f})"
            click.echo(line)


class _ClickProgress:
    def __init__(self, total: int) -> None:
        self.bar = click.progressbar(length=total, label="parsing", file=sys.stderr)
        self.bar.__enter__()

    def advance(self, n: int = 1) -> None:
        self.bar.update(n)

    def close(self) -> None:
        self.bar.__exit__(None, None, None)


def _progress_bar(total: int) -> Any:
    return _ClickProgress(total) if total >= 20 else None


def register(cli: click.Group) -> None:
    """Add ``index`` to the ``hookgraph`` group."""
    cli.add_command(index)
