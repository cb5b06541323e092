"""Why a database cannot be used: the errors every part of the store raises.

Each carries a ``cause`` from :data:`hookgraph.store.faults.CAUSES`, so the
caller (``index --full``, a hook, the snapshot reader) can decide what to do
without parsing the message.
"""

from __future__ import annotations

from pathlib import Path

from hookgraph.store import faults
from hookgraph.errors import HookgraphError


class StoreError(HookgraphError):
    """The database cannot be used as it is; the message says what to do.

    ``cause`` is one of :data:`hookgraph.store.faults.CAUSES` when it is
    known; only a ``movable`` one (damaged, foreign, untrusted, newer) is ever
    moved aside by ``index --full``.
    """

    cause = "unusable"

    def __init__(self, message: str, *, cause: str | None = None, problem: str | None = None) -> None:
        super().__init__(message)
        if cause is not None:
            self.cause = cause
        #: What is wrong, without the remedy (which depends on who reads the file: index or snapshot).
        self.problem = problem or message.split("; hookgraph will not use it")[0].split(": rebuild it with")[0]

    @property
    def movable(self) -> bool:
        return self.cause in faults.MOVABLE

    @classmethod
    def of(cls, fault: faults.StoreFault) -> StoreError:
        return cls(fault.message, cause=fault.cause, problem=fault.problem)


class SchemaUpgradeNeeded(StoreError):
    """A store written by an older hookgraph, opened read-only: it must be migrated by a writer first."""

    cause = "older-schema"


class UntrustedStoreError(StoreError):
    """The database holds something hookgraph never writes: planted SQL or paths leaving the repository."""

    cause = "untrusted"


REBUILD = faults.REBUILD


def damaged(path: Path, exc: BaseException) -> StoreError:
    """The error for SQLite failing on a database: its real cause (:func:`faults.diagnose`), never a guess."""
    return StoreError.of(faults.diagnose(path, exc))
