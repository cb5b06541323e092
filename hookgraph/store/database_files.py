"""Where a store lives on disk, and what is done to its files as files.

The database and the sidecars SQLite keeps beside it: refusing planted
symlinks before SQLite opens anything, moving an unusable database aside,
removing one this process could not finish.
"""

from __future__ import annotations

from pathlib import Path

from hookgraph.store.unusable import StoreError, UntrustedStoreError

DB_DIRNAME = ".hookgraph"
DB_FILENAME = "index.db"


def db_path(root: Path) -> Path:
    return root / DB_DIRNAME / DB_FILENAME



#: Files SQLite keeps beside a database; none of them may be a symlink.
SIDECARS = ("-wal", "-shm", "-journal")


def check_no_links(path: Path) -> None:
    """Refuse a database whose directory, file or sidecar files are symlinks.

    ``.hookgraph/`` lives in the work tree, so a commit can plant a symlink
    there (``index.db-wal -> ~/.bashrc``); SQLite would follow it, reading or
    overwriting a file outside the repository.
    """
    for candidate in (path.parent, path, *(path.with_name(path.name + s) for s in SIDECARS)):
        if candidate.is_symlink():
            raise UntrustedStoreError(
                f"{candidate} is a symlink: hookgraph never follows links out of "
                f"{path.parent.name}/ (was it committed by someone?); remove it"
            )
    if path.parent.exists() and not path.parent.is_dir():
        if _tracked(path.parent):  # someone's file, in git: never advise deleting it
            raise StoreError(f"{path.parent} is a file git tracks, and hookgraph keeps its index in a folder of "
                             f"that name: rename it in git (`git mv {path.parent.name} <new name>` and commit), "
                             "or leave hookgraph out of this repository")
        raise StoreError(f"{path.parent} is not a directory: remove it, then run `hookgraph index`")


def _tracked(path: Path) -> bool:
    """Whether git tracks ``path`` in the repository around it (False when that cannot be told)."""
    from hookgraph import git

    try:
        git.run(["ls-files", "--error-unmatch", "--", path.name], path.parent)
    except Exception:  # noqa: BLE001 - not tracked, or no git here
        return False
    return True


def quarantine(path: Path) -> Path:
    """Move an unusable database (and its sidecars) aside, for ``index --full``; returns where.

    The WAL must go with it: a stale ``-wal`` beside a new database would be
    replayed into it.
    """
    import time

    stamp = time.strftime("%Y%m%d-%H%M%S")
    dest = path.with_name(f"{path.name}.broken-{stamp}")
    n = 1
    while dest.exists():
        n += 1
        dest = path.with_name(f"{path.name}.broken-{stamp}-{n}")
    for suffix in ("", *SIDECARS):
        source = path.with_name(path.name + suffix)
        if source.exists() or source.is_symlink():
            source.rename(dest.with_name(dest.name + suffix))
    return dest


def remove_database(path: Path) -> None:
    """Delete a database this process created and could not finish, with its sidecars."""
    for suffix in ("", *SIDECARS):
        try:
            path.with_name(path.name + suffix).unlink()
        except FileNotFoundError:
            pass
