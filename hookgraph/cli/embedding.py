"""``hookgraph index --wait``: embed the waiting texts here, with a progress bar in texts.

The foreground run is the repository's one embedder for as long as it runs
(it holds the background embedder's lock, so the two never compete for the
cores). If a background embedder is already at work, the command watches it
instead; if that one stalls (stopped with SIGSTOP, hung: no heartbeat for
:func:`hookgraph.embed.worker.stall_seconds`), the command says so in one line
and embeds the rest itself (a vector published twice is published once:
:meth:`hookgraph.store.Store.publish_vector` skips a text no longer queued).
Ctrl-C stops waiting only: the texts left are handed to the background
embedder, nothing embedded so far is lost, and the exit status is 0 (so
``hookgraph index --wait && hookgraph ask ...`` still asks).
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path
from typing import Any

import click

from hookgraph.embed.queue import DrainReport, drain
from hookgraph.store import Store, db_path

#: Seconds between two looks at the queue while another process embeds.
WATCH_INTERVAL = 0.5
#: Seconds between two redraws of the bar (a redraw per text would flood a slow terminal).
REDRAW_EVERY = 0.2
#: Seconds of measured progress before the bar shows an ETA: the first texts include the model's load
#: and the first batch's set-up, and an ETA from them alone was 5x too long.
ETA_AFTER = 2.0


class _Bar:
    """One line on stderr, redrawn in place: done/total, the measured rate and the time left.

    The rate is measured from the first progress seen (the model already
    loaded), not from the command's start; nothing else is printed while
    the bar is drawn (:meth:`close` ends its line first).
    """

    def __init__(self, total: int, show: bool, label: str) -> None:
        self.show = show and total > 0
        self.total = total
        self.label = label
        self.done = 0
        self.first: tuple[float, int] | None = None
        self.drawn_at = 0.0
        self.open = False

    def update(self, done: int, total: int) -> None:
        self.total = max(self.total, total)
        self.done = min(max(done, self.done), self.total)
        now = time.monotonic()
        if self.first is None:
            self.first = (now, self.done)
        if self.show and (now - self.drawn_at >= REDRAW_EVERY or self.done >= self.total):
            self.drawn_at = now
            self._draw(now)

    def rate(self, now: float) -> float | None:
        """Texts per second since the first progress, once :data:`ETA_AFTER` seconds were measured."""
        if self.first is None or now - self.first[0] < ETA_AFTER or self.done <= self.first[1]:
            return None
        return (self.done - self.first[1]) / (now - self.first[0])

    def line(self, now: float, width: int) -> str:
        rate = self.rate(now)
        tail = f" {self.done:,}/{self.total:,}"
        if rate:
            tail += f"  {rate:.1f} texts/s  about {duration((self.total - self.done) / rate)} left"
        room = max(10, min(40, width - len(self.label) - len(tail) - 4))
        filled = room * self.done // self.total if self.total else room
        return f"{self.label} [{'#' * filled}{'-' * (room - filled)}]{tail}"[: max(20, width - 1)]

    def _draw(self, now: float) -> None:
        width = shutil.get_terminal_size((80, 24)).columns
        sys.stderr.write("\r" + self.line(now, width).ljust(width - 1))
        sys.stderr.flush()
        self.open = True

    def close(self) -> None:
        """End the bar's line (drawn once more, complete), so what follows starts on a line of its own."""
        if self.open:
            self._draw(time.monotonic())
            sys.stderr.write("\n")
            sys.stderr.flush()
            self.open = False


def duration(seconds: float) -> str:
    """A time left as people read it: seconds, minutes or hours (the bar and ``status`` say it alike)."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _caches(root: Path) -> list[Any]:
    from hookgraph.store.vector_cache import repo_cache, user_cache

    return [c for c in (repo_cache(root), user_cache(root)) if c is not None and c.max_bytes > 0]


def _pending(database: Path) -> int:
    """Work left for an embedder: texts waiting, and adopted vectors not checked in full yet."""
    with Store(database) as store:
        return store.pending_count() + store.unchecked_count()


def _check_in_full(root: Path, database: Path, embedder: Any, progress: _Bar, show: bool, quiet: bool) -> None:
    """Check every adopted vector here (:mod:`hookgraph.embed.recheck`): ``--wait`` returns with nothing left.

    A source caught forging is said in one line (``status`` keeps it); its
    texts were queued again, and are embedded here before returning.
    """
    from hookgraph.embed import worker
    from hookgraph.embed.recheck import check_adopted

    with Store(database) as store:
        total = store.unchecked_count()
    if not total:
        return
    progress.close()
    bar = _Bar(total, show, "checking")
    try:
        result = check_adopted(database, embedder, progress=bar.update, beat=lambda: worker.beat_for(root))
    finally:
        bar.close()
    for line in result.caught:
        click.echo(f"hookgraph: warning: {line}", err=True)
    if not quiet:
        click.echo(f"checked {result.checked:,} adopted vectors against the local model "
                   f"({result.model_seconds:.1f} CPU s)" + (f"; {len(result.caught)} source refused" if result.caught
                                                             else ": every one agrees"))
    if result.caught:
        drain(database, embedder, caches=_caches(root), progress=progress.update)


def embed_in_foreground(root: Path, embedder: Any, pending: int, *, bar: bool, quiet: bool) -> DrainReport | None:
    """Empty the queue of ``root``'s index before returning; the report, or None when another process did it.

    Exits 0 on Ctrl-C, after one line saying where the texts left went.
    """
    from hookgraph.embed import worker

    database = db_path(root)
    if bar and not quiet:  # before the bar, never into it
        click.echo("hookgraph: `hookgraph ask` works now; waiting for the new texts' vectors "
                   "(Ctrl-C stops waiting; the background embedder goes on)", err=True)
    progress = _Bar(pending, bar, "embedding")

    def step(done: int, total: int) -> None:
        worker.beat_for(root)
        progress.update(done, total)

    try:
        while True:
            with worker.hold(root) as mine:
                if mine:
                    from hookgraph.embed.adopt import adopt_waiting

                    adopt_waiting(root, database, embedder, _caches(root))  # a deferred check comes first
                    report = drain(database, embedder, caches=_caches(root), progress=step)
                    _check_in_full(root, database, embedder, progress, bar, quiet)
                    break
            left = _pending(database)  # another process embeds: watch it
            progress.update(pending - left, pending)
            if left == 0:
                return None
            stalled = worker.stall(root)
            if stalled is not None:
                progress.close()
                click.echo(f"hookgraph: {stalled.describe()}; embedding the {left:,} texts left here", err=True)
                report = drain(database, embedder, caches=_caches(root), progress=step)
                _check_in_full(root, database, embedder, progress, bar, quiet)
                break
            time.sleep(WATCH_INTERVAL)
    except KeyboardInterrupt:
        progress.close()
        handed = worker.start_background(root, database)
        left = _pending(database)
        where = ("in the background (`hookgraph status` shows progress)" if handed
                 else "by the next `hookgraph index --wait`")
        click.echo(f"hookgraph: stopped waiting; {left:,} texts left, embedded {where}", err=True)
        sys.exit(0)
    finally:
        progress.close()
    worker.wake(root)  # other worktrees' queues, if any, go on in the background
    return report
