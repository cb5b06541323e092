"""A git hook survives a crash in native code: its work runs in a forked child.

Parsing runs tree-sitter grammars, C code hookgraph does not own. A grammar's
scanner may crash on some input (tree-sitter-bash read outside a table for a
code point past U+FFFF; hookgraph masks that one). A crash kills the process
outright: no ``except`` runs, and the pre-commit framework, which runs
``hookgraph hook`` itself, would fail the commit, again on every try, since
the same staged file crashes the parser again.

So a hook's work runs in a child made by ``fork`` (cheap: nothing is loaded
twice, and the hook path loads no model). The parent waits; if the child dies
of a signal, the parent tells it in one line and lets git go on. Before it
parses a file the child notes the file's path and blob in a breadcrumb, a
4 KB file in the temporary directory mapped into both processes (a memory
write per file, no system call). After a crash the parent reads which file
it was, and the hook records that file as ``skipped:parser-crash`` with its
blob and runs once more (for up to :data:`MAX_CRASHED_FILES` such files): the
rest of the change is indexed, and the file is left out until its content
changes (``hookgraph status`` lists it). ``HOOKGRAPH_DEBUG`` runs the work
in-process, to see the crash itself; so does a system without ``fork``.
"""

from __future__ import annotations

import faulthandler
import mmap
import os
import signal
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from hookgraph.git import signal_name

__all__ = ["Crash", "left_out_warning", "note", "run_guarded", "run_leaving_out_crashes", "SKIP_STATUS"]

#: The status a file that crashed the parser is stored with (``files.status``).
SKIP_STATUS = "skipped:parser-crash"
#: How many files that crash the parser one hook leaves out (each costs one more run) before it gives up.
MAX_CRASHED_FILES = 3
#: Room for "<blob> <path>" (a path longer than this is cut; the blob always fits).
BREADCRUMB_BYTES = 4096

#: Signals that mean the code crashed (a file that crashes the parser with one of these is left out); any
#: other (SIGKILL from the out-of-memory killer, SIGTERM) is told as such and leaves nothing out.
NATIVE_CRASHES = frozenset({"SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGABRT"})

_breadcrumb: mmap.mmap | None = None


@dataclass
class Crash:
    """How a guarded child died."""

    signal: str
    #: The file it was parsing, and that file's blob (None: it died elsewhere).
    path: str | None = None
    blob: str | None = None
    #: The innermost Python frame at the crash, as faulthandler printed it (``File "...", line N in f``).
    where: str | None = None

    @property
    def native(self) -> bool:
        """A signal that native code raises on itself (a bad read, an abort), not one sent from outside."""
        return self.signal in NATIVE_CRASHES

    def describe(self) -> str:
        if not self.native:
            return f"killed by {self.signal}"
        place = f" at {self.where}" if self.where else ""
        return f"{self.signal} in native code{place}"


def note(path: str | None, blob: str = "") -> None:
    """Say which file is being parsed now (None: none); costs a memory write, nothing outside a guarded run."""
    if _breadcrumb is None:
        return
    data = b"" if path is None else f"{blob} {path}".encode("utf-8", "replace")[: BREADCRUMB_BYTES - 1]
    _breadcrumb[: len(data) + 1] = data + b"\0"


#: What Ctrl-C prints, before any work or in the middle of it (a sync writes in one transaction).
INTERRUPTED_LINE = "hookgraph: interrupted; the index is unchanged"
#: What Ctrl-C prints once the sync has committed (its last lines, an ``index --wait``'s embedding): "unchanged"
#: would be false.
INTERRUPTED_AFTER_SYNC_LINE = "hookgraph: interrupted; the index was updated before it"
#: Whether this guarded run's sync has committed (:func:`note_committed`).
_committed = False


def note_committed() -> None:
    """The sync's transaction has committed: an interrupt from now on must not say the index is unchanged."""
    global _committed
    _committed = True


def _hold_sigint() -> set[int | signal.Signals] | None:
    """Block SIGINT in this thread (returns the mask to restore), where the platform can.

    Around ``fork``: the at-fork handlers (logging's lock release) run in
    both processes as fork returns, and a KeyboardInterrupt raised inside one
    is printed as "Exception ignored ... Traceback" and lost. Held, the
    signal is delivered once each side restores its mask, at a point that
    handles it.
    """
    if not hasattr(signal, "pthread_sigmask"):
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


def _release_sigint(mask: set[int | signal.Signals] | None) -> None:
    if mask is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def run_guarded(work: Callable[[], int], *, own_output: bool = True, last: bool = False) -> int | Crash:
    """``work()``'s exit code, run in a forked child; a :class:`Crash` if the child died of a signal.

    ``last``: the process only exits once the work is done (a command): if the child finished, Ctrl-C stays
    ignored here, since a Ctrl-C landing after a finished sync's summary added an "interrupted" line under it.

    ``own_output=False`` where stdout is someone else's stream (the MCP
    server's protocol, written by its event loop): the parent does not flush
    it before the fork, and the child never flushes it, since the child's copy
    of any bytes not yet written would reach the stream a second time. Such
    work must not print.
    """
    if not hasattr(os, "fork") or os.environ.get("HOOKGRAPH_DEBUG") or not _on_descriptors():
        return work()
    crumb_path = breadcrumb_path(os.getpid())
    breadcrumb = _shared_map(crumb_path)
    trace = tempfile.TemporaryFile()
    if own_output:
        sys.stdout.flush()
        sys.stderr.flush()
    with warnings.catch_warnings():
        # Python 3.12+ warns about fork() in a process with threads (the MCP server's workers): the child
        # runs only this thread's work (parsing, SQLite on its own connections) and leaves by os._exit.
        warnings.simplefilter("ignore", DeprecationWarning)
        held = _hold_sigint()
        pid = os.fork()
    if pid == 0:  # the child: do the work, never return into the caller's code
        code = 1
        try:
            _release_sigint(held)  # a Ctrl-C held across the fork arrives here, before any work
            global _breadcrumb, _committed
            _breadcrumb, _committed = breadcrumb, False
            faulthandler.enable(file=trace)
            code = work()
        except KeyboardInterrupt:
            print(INTERRUPTED_AFTER_SYNC_LINE if _committed else INTERRUPTED_LINE, file=sys.stderr)
            code = 130
        except BaseException:  # noqa: BLE001 - work() reports its own failures; this is a last resort
            code = 1
        finally:
            _ignore_ctrl_c()  # the work has said all it says: a Ctrl-C now must not add a line or lose output
            if own_output:
                sys.stdout.flush()
                sys.stderr.flush()
            os._exit(code)
    # Ctrl-C reaches the child too; it answers. (Only the main thread may set handlers: the MCP server
    # syncs from a worker thread, where SIGINT goes to the main thread anyway.)
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    if held is not None and signal.SIGINT in signal.sigpending():
        os.kill(pid, signal.SIGINT)  # a Ctrl-C held across the fork may have come before the child existed
    _release_sigint(held)  # then it is discarded here (ignored while we wait) and the child answers it
    finished = False
    try:
        _, status = os.waitpid(pid, 0)
        finished = last and os.WIFEXITED(status)
    finally:
        if main and not finished:  # after a crash the work runs again, without the file that crashed
            signal.signal(signal.SIGINT, previous)
    raw = bytes(breadcrumb).split(b"\0", 1)[0].decode("utf-8", "replace")
    breadcrumb.close()
    crumb_path.unlink(missing_ok=True)
    with trace:
        if os.WIFEXITED(status):
            return os.WEXITSTATUS(status)
        number = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
        crash = Crash(signal_name(number))
        if " " in raw and crash.native:
            crash.blob, crash.path = raw.split(" ", 1)
        crash.where = _innermost_frame(trace)
    return crash


def _ignore_ctrl_c() -> None:
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread (cannot happen in a forked child, whose one thread is its main)
        pass


def run_leaving_out_crashes(
    work: Callable[[], int], find_root: Callable[[], Path | None], *, database: Path | None = None,
    own_output: bool = True, last: bool = False,
) -> tuple[int | Crash, list[str]]:
    """``work()`` guarded; each file that crashes the parser is left out and the work run again.

    ``find_root`` gives the repository whose index records the file (asked
    only after a crash: a git call the hook need not pay for otherwise);
    ``database`` is the store ``work`` syncs when it is not that index (the
    MCP server's working-tree copy). ``own_output`` and ``last`` as for :func:`run_guarded`.

    Returns the last run's result and the files left out (``"path (SIGSEGV)"``),
    at most :data:`MAX_CRASHED_FILES` of them; a crash outside parsing, or one
    more than that, is returned as it is.
    """
    result = run_guarded(work, own_output=own_output, last=last)
    left_out: list[str] = []
    paths: list[str] = []
    root = find_root() if isinstance(result, Crash) else None
    while (isinstance(result, Crash) and root is not None and len(left_out) < MAX_CRASHED_FILES
           and result.path not in paths and record_crashed_file(root, result, database)):
        paths.append(result.path or "")
        left_out.append(f"{result.path} ({result.signal})")
        result = run_guarded(work, own_output=own_output, last=last)  # the rest of the change, without the files that crashed
    return result, left_out


def left_out_warning(left_out: list[str], *, git: bool) -> str:
    """The one warning line for the files :func:`run_leaving_out_crashes` left out."""
    return (f"hookgraph: warning: the parser crashed on {', '.join(left_out)}: left out of the index until it "
            f"changes, the rest is indexed{' (git goes on)' if git else ''}")


def _on_descriptors() -> bool:
    """Whether stdout and stderr are real files: a child's output to a captured stream (click's test runner,
    an embedding program) would stay in the child's copy of it, so then the work runs in-process."""
    try:
        sys.stdout.fileno()
        sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        return False
    return True


def breadcrumb_path(pid: int) -> Path:
    """Where the guarded run of process ``pid`` keeps its breadcrumb (a file, so a test can watch it)."""
    return Path(tempfile.gettempdir()) / f"hookgraph-{pid}.parsing"


def _shared_map(path: Path) -> mmap.mmap:
    """A zeroed shared map of ``BREADCRUMB_BYTES`` backed by ``path``; an anonymous one if that cannot be made."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            os.ftruncate(fd, BREADCRUMB_BYTES)
            return mmap.mmap(fd, BREADCRUMB_BYTES)
        finally:
            os.close(fd)
    except OSError:
        return mmap.mmap(-1, BREADCRUMB_BYTES)


def _innermost_frame(trace: IO[bytes]) -> str | None:
    """The first ``File ...`` line of faulthandler's dump (the innermost frame), or None."""
    try:
        trace.seek(0)
        lines = trace.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    frames = [line.strip() for line in lines if line.strip().startswith("File ")]
    return frames[0] if frames else None


def record_crashed_file(root: Path, crash: Crash, database: Path | None = None) -> bool:
    """Store the file that crashed the parser as skipped, with its blob, in ``root``'s index (or ``database``).

    False if there is no such file or no store to write to.
    """
    if not crash.path or not crash.blob:
        return False
    from hookgraph.parse.languages import language_for_path
    from hookgraph.store import Store, db_path
    from hookgraph.store.lock import write_lock

    database = database or db_path(root)
    try:
        with write_lock(database.parent, timeout=10.0), Store(database) as store, store.transaction():
            store.delete_units_of(crash.path)
            store.upsert_file(crash.path, crash.blob, language_for_path(crash.path), SKIP_STATUS, 0, 0)
    except Exception:  # noqa: BLE001 - no store to write to: the caller says the hook died
        return False
    return True
