"""What every ``hookgraph`` command shares: one-line errors, terminal-safe text, the repo and its store.

Kept apart from :mod:`hookgraph.cli` so command modules (graph, mcp, model,
hooks) and formatters import these directly: under ``python -m
hookgraph.cli`` the CLI module runs as ``__main__``, and importing
``hookgraph.cli`` from a command module would load it a second time.
"""

from __future__ import annotations

import errno

import os
import re
import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from hookgraph.errors import HookgraphError

if TYPE_CHECKING:  # the store (apsw) is imported by the commands that open one
    from hookgraph.store import Store

F = TypeVar("F", bound=Callable[..., Any])

EXIT_OK, EXIT_NOTHING, EXIT_USAGE = 0, 1, 2


#: Characters a terminal would act on rather than show: C0/C1 controls and
#: the bidirectional overrides of "Trojan source". Source code, file names and
#: a committed database can all carry them.
_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_UNSAFE_IN_BLOCK = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return {"\n": "\\n", "\r": "\\r"}.get(char) or (
        f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"
    )


def terminal_safe(text: str) -> str:
    """One field of one output line, safe for a terminal: controls and newlines escaped."""
    return _UNSAFE.sub(_escape, text)


def terminal_safe_block(text: str) -> str:
    """Several lines (a context pack) safe for a terminal: only newlines and tabs kept."""
    return _UNSAFE_IN_BLOCK.sub(_escape, text)


class UserError(HookgraphError, click.ClickException):
    """An error the user can act on: one line, exit code 2."""

    exit_code = EXIT_USAGE

    def show(self, file: Any = None) -> None:
        click.echo(f"hookgraph: {terminal_safe(self.format_message())}", err=True)


def one_line_errors(func: F) -> F:
    """The one place a command's failure becomes what the user sees: a :class:`HookgraphError` its one line
    and exit 2, a file we could not write or SQLite's failure their real cause, Ctrl-C one line and exit 130,
    anything else an internal error (``HOOKGRAPH_DEBUG=1`` lets the traceback through)."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except click.ClickException:
            raise
        except KeyboardInterrupt:
            from hookgraph.sync.crash_guard import INTERRUPTED_LINE

            click.echo(INTERRUPTED_LINE, err=True)
            sys.exit(130)
        except BrokenPipeError:
            raise
        except Exception as exc:
            if os.environ.get("HOOKGRAPH_DEBUG"):
                raise
            if isinstance(exc, HookgraphError):
                raise UserError(str(exc)) from None
            if isinstance(exc, OSError) and exc.filename:  # a file of ours we could not write: its cause, in words
                raise UserError(os_error_line(exc)) from None
            if type(exc).__module__ == "apsw":  # SQLite failed on a file that opened: find out why
                from hookgraph.store.faults import diagnose

                raise UserError(diagnose(_index_path_here(), exc).message) from None
            raise UserError(f"internal error: {type(exc).__name__}: {exc} (HOOKGRAPH_DEBUG=1 shows more)") from None

    return wrapper  # type: ignore[return-value]


def crash_guarded(func: F) -> F:
    """Run a command that parses in a forked child (see :mod:`hookgraph.sync.crash_guard`).

    A grammar that crashes on a file kills only the child: the file is left
    out of the index (``skipped:parser-crash``) and the command runs again
    for the rest, with one warning line; a crash outside parsing is one
    error line. Goes outside :func:`one_line_errors`, whose messages the child prints.
    """

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        from hookgraph.sync import crash_guard

        def work() -> int:
            try:
                func(*args, **kwargs)
            except click.ClickException as exc:
                exc.show()
                return exc.exit_code
            except SystemExit as exc:
                return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            return 0

        def root() -> Path | None:
            try:
                return repo_root_here()
            except Exception:  # noqa: BLE001 - no repository: nothing to record the file in
                return None

        result, left_out = crash_guard.run_leaving_out_crashes(work, root, last=True)
        if left_out and isinstance(result, int):
            click.echo(crash_guard.left_out_warning(left_out, git=False), err=True)
        if isinstance(result, crash_guard.Crash):
            raise UserError(f"hookgraph died ({result.describe()}); the index is unchanged "
                            "(HOOKGRAPH_DEBUG=1 runs it in this process, to see the crash)")
        if result:
            sys.exit(result)

    return wrapper  # type: ignore[return-value]


def _index_path_here() -> Path:
    """The index of the repository around the current directory (for an error message)."""
    from hookgraph.store import DB_DIRNAME, DB_FILENAME, db_path

    try:
        return db_path(repo_root_here())
    except Exception:
        return Path(DB_DIRNAME) / DB_FILENAME


def repo_root_here() -> Path:
    from hookgraph.git import repo_root

    return repo_root(Path.cwd())


def _resume_embedding(root: Path, store: Store) -> None:
    """Texts waiting (or adopted vectors to check) and no embedder (killed, rebooted): start it again, if the
    index can be written."""
    import os

    pending = store.pending_count() or store.unchecked_count()
    if pending and os.access(store.path, os.W_OK) and os.access(store.path.parent, os.W_OK):
        from hookgraph.embed.worker import resume_if_needed

        resume_if_needed(root, store.path, pending)


def open_store(root: Path) -> Store:
    from hookgraph.store import check_no_links, db_path

    path = db_path(root)
    check_no_links(path)  # a planted .hookgraph -> elsewhere is refused before anything is looked up
    warnings: list[str] = []
    if not path.exists():
        from hookgraph.sync.shared import build_first_index

        # shared mode: a fresh clone builds its index from the source, vectors from the committed snapshot
        if build_first_index(root, warnings):
            for warning in warnings:
                click.echo("hookgraph: warning: " + " ".join(warning.split()), err=True)
    if not path.exists():
        if warnings:  # the committed snapshot is there but unusable: that is the news, with its remedy
            raise UserError(f"no index in {root}: {warnings[0]}")
        raise UserError(f"no index in {root}: run `hookgraph index` first")
    from hookgraph.sync.ignore import exclude_locally

    exclude_locally(root)  # an index built before any `install` stays out of git whatever a pull removes
    store = _open_for_reading(path, root)
    try:
        # One read transaction for the whole command: a query (FTS, then the
        # model loads, then KNN, then the graph) or a status report reads one
        # sync's state, never parts of two while hooks write (WAL keeps it).
        store.begin_read()
        store.check_contents()  # nothing a planted row names is ever read or printed
        _resume_embedding(root, store)
    except BaseException:
        store.close()
        raise
    return store


def _open_for_reading(path: Path, root: Path) -> Store:
    """The index, opened to answer from; read-only (and said so, once) where it cannot be written.

    A read-only directory or file, or a full disk, does not stop a query:
    the index is read as it is (``immutable`` where SQLite could not create
    its ``-shm``), and one line on stderr says it cannot be updated.
    """
    from hookgraph.store import Store, StoreError
    from hookgraph.store import faults

    fault = faults.before_writing(path)  # never try to write where it cannot work: a failed try leaves -shm
    if fault is None:
        try:
            return Store(path)
        except StoreError as exc:
            if exc.cause not in ("read-only", "no-space"):
                raise
            fault = faults.StoreFault(exc.cause, str(exc), "")
    store = Store(path, readonly=True, immutable=faults.can_read_immutable(path))
    shown_path = path.relative_to(root) if path.is_relative_to(root) else path
    why = fault.problem.split(": ", 1)[-1] if fault.cause == "read-only" else "no space left on its file system"
    click.echo(f"hookgraph: note: {shown_path} cannot be updated: {why}; answering from it as it is", err=True)
    return store


def path_glob_problem(glob: str) -> str | None:
    """Why a ``--path`` glob can never match a stored path (they are relative to the repository root), or None."""
    parts = glob.replace("\\", "/").split("/")
    if glob.startswith("/") or ".." in parts:
        return (f"--path {glob!r} can never match: paths are relative to the repository root "
                "(a folder such as 'src/' or a glob such as '*.py'), and never leave it")
    return None


#: What to do about an operating-system refusal, by errno: the cause in words and the remedy.
_OS_CAUSES = {
    errno.EROFS: ("the file system is read-only", "make it writable (or run hookgraph where it can write)"),
    errno.EACCES: ("permission denied", "check the owner and permissions of that place"),
    errno.EPERM: ("operation not permitted", "check the owner and permissions of that place"),
    errno.ENOSPC: ("the disk is full", "free some space and run the command again"),
    errno.EDQUOT: ("the disk quota is exceeded", "free some space and run the command again"),
}


def os_error_line(exc: OSError) -> str:
    """One line for an OSError on a named file: which file, why (in words) and what to do; nothing lost."""
    cause, remedy = _OS_CAUSES.get(exc.errno or 0, (exc.strerror or type(exc).__name__, "see the cause above"))
    return f"{exc.filename}: {cause}: {remedy}; nothing stored was changed"


def warn_if_no_merge_driver(root: Path) -> None:
    """Shared mode in a clone that never ran `hookgraph install`: say so before its first merge conflicts."""
    from hookgraph.sync.shared import missing_driver_line

    line = missing_driver_line(root)
    if line:
        click.echo(f"hookgraph: warning: {line}", err=True)
