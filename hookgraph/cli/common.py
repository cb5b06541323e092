"""What every ``hookgraph`` command shares: one-line errors, terminal-safe text, the repo and its store.

Kept apart from :mod:`hookgraph.cli` so command modules (graph, mcp, model,
hooks) and formatters import these directly: under ``python -m
hookgraph.cli`` the CLI module runs as ``__main__``, and importing
``hookgraph.cli`` from a command module would load it a second time.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

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


def shown(text: str) -> str:
    """One field of one output line, safe for a terminal: controls and newlines escaped."""
    return _UNSAFE.sub(_escape, text)


def shown_block(text: str) -> str:
    """Several lines (a context pack) safe for a terminal: only newlines and tabs kept."""
    return _UNSAFE_IN_BLOCK.sub(_escape, text)


class UserError(click.ClickException):
    """An error the user can act on: one line, exit code 2."""

    exit_code = EXIT_USAGE

    def show(self, file: Any = None) -> None:
        click.echo(f"hookgraph: {shown(self.format_message())}", err=True)


def _known_errors() -> tuple[type[BaseException], ...]:
    from hookgraph.git import GitError
    from hookgraph.search.graph import SymbolNotFound
    from hookgraph.store.lock import LockTimeout
    from hookgraph.store import StoreError
    from hookgraph.sync import SyncError

    from hookgraph.config import ConfigError
    from hookgraph.sync.hooks import HookUsageError
    from hookgraph.models.presets import GGUFFormatError
    from hookgraph.sync.overlay import OverlayError

    errors: list[type[BaseException]] = [GitError, StoreError, SyncError, LockTimeout, SymbolNotFound,
                                         ConfigError, HookUsageError, GGUFFormatError, OverlayError]
    try:
        from hookgraph.embed import EmbedderError

        errors.append(EmbedderError)
    except ImportError:  # pragma: no cover - the embedder module is part of the package
        pass
    try:
        from hookgraph.models.convert import ConversionError

        errors.append(ConversionError)
    except ImportError:  # pragma: no cover
        pass
    return tuple(errors)


def friendly(func: F) -> F:
    """Turn our exceptions into one-line errors; Ctrl-C into one line too."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except click.ClickException:
            raise
        except KeyboardInterrupt:
            click.echo("hookgraph: interrupted; the index is unchanged", err=True)
            sys.exit(130)
        except BrokenPipeError:
            raise
        except Exception as exc:
            if os.environ.get("HOOKGRAPH_DEBUG"):
                raise
            if isinstance(exc, _known_errors()):
                raise UserError(str(exc)) from None
            if type(exc).__module__ == "apsw":  # SQLite failed on a file that opened: damaged pages or vec chunks
                from hookgraph.store import DB_DIRNAME, DB_FILENAME, damaged

                raise UserError(str(damaged(Path(DB_DIRNAME) / DB_FILENAME, exc))) from None
            raise UserError(f"internal error: {type(exc).__name__}: {exc} (HOOKGRAPH_DEBUG=1 shows more)") from None

    return wrapper  # type: ignore[return-value]


def repo_root_here() -> Path:
    from hookgraph.git import repo_root

    return repo_root(Path.cwd())


def _resume_embedding(root: Path, store: Store) -> None:
    """Texts waiting and no embedder (killed, rebooted): start it again, if the index can be written."""
    import os

    pending = store.pending_count()
    if pending and os.access(store.path, os.W_OK) and os.access(store.path.parent, os.W_OK):
        from hookgraph.embed.worker import resume_if_needed

        resume_if_needed(root, store.path, pending)


def open_store(root: Path) -> Store:
    from hookgraph.store import Store, check_no_links, db_path

    path = db_path(root)
    check_no_links(path)  # a planted .hookgraph -> elsewhere is refused before anything is looked up
    warnings: list[str] = []
    if not path.exists():
        from hookgraph.store.snapshot import seed_from_snapshot

        seed_from_snapshot(root, warnings)  # shared mode: a fresh clone starts from the committed index
    if not path.exists():
        raise UserError(f"no index in {root}: run `hookgraph index` first" + "".join(f" ({w})" for w in warnings))
    store = Store(path)
    try:
        # One read transaction for the whole command: a query (FTS, then the
        # model loads, then KNN, then the graph) or a status report reads one
        # sync's state, never parts of two while hooks write (WAL keeps it).
        store.db.execute("BEGIN")
        store.check_contents()  # nothing a planted row names is ever read or printed
        _resume_embedding(root, store)
    except BaseException:
        store.close()
        raise
    return store
