"""``hookgraph index --wait``: embed the waiting texts here, with a progress bar in texts.

The foreground run is the repository's one embedder for as long as it runs
(it holds the background embedder's lock, so the two never compete for the
cores). If a background embedder is already at work, the command watches it
instead. Ctrl-C stops this process only: the texts left are handed to the
background embedder, nothing embedded so far is lost.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import click

from hookgraph.embed.queue import DrainReport, drain
from hookgraph.store import Store, db_path

#: Seconds between two looks at the queue while another process embeds.
WATCH_INTERVAL = 0.5


class _Bar:
    """A progress bar in texts on stderr (ETA from the measured pace), or nothing."""

    def __init__(self, total: int, show: bool, label: str) -> None:
        self.shown = 0
        self.bar: Any = None
        if show and total > 0:
            self.bar = click.progressbar(length=total, label=label, file=sys.stderr, show_eta=True, show_pos=True)
            self.bar.__enter__()

    def update(self, done: int, total: int) -> None:
        if self.bar is None:
            return
        if total > self.bar.length:
            self.bar.length = total
        step = min(done, self.bar.length) - self.shown
        if step > 0:
            self.bar.update(step)
            self.shown += step

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None


def _caches(root: Path) -> list[Any]:
    from hookgraph.store.vector_cache import repo_cache, user_cache

    return [c for c in (repo_cache(root), user_cache(root)) if c is not None and c.max_bytes > 0]


def _pending(database: Path) -> int:
    with Store(database) as store:
        return store.pending_count()


def embed_in_foreground(root: Path, embedder: Any, pending: int, *, bar: bool, quiet: bool) -> DrainReport | None:
    """Empty the queue of ``root``'s index before returning; the report, or None when another process did it."""
    from hookgraph.embed import worker

    database = db_path(root)
    progress = _Bar(pending, bar, "embedding")
    if bar and not quiet:
        click.echo("hookgraph: `hookgraph ask` works now; embedding the new texts "
                   "(Ctrl-C stops waiting, not embedding)", err=True)
    try:
        while True:
            with worker.hold(root) as mine:
                if mine:
                    report = drain(database, embedder, caches=_caches(root), progress=progress.update)
                    break
            left = _pending(database)  # another process embeds: watch it
            progress.update(pending - left, pending)
            if left == 0:
                return None
            time.sleep(WATCH_INTERVAL)
    except KeyboardInterrupt:
        progress.close()
        handed = worker.start_background(root, database)
        left = _pending(database)
        where = "in the background" if handed else "by the next `hookgraph index --wait`"
        click.echo(f"hookgraph: stopped waiting; {left:,} texts left, embedded {where} (`hookgraph status`)",
                   err=True)
        sys.exit(130)
    finally:
        progress.close()
    worker.wake(root)  # other worktrees' queues, if any, go on in the background
    return report
