"""``hookgraph install --uninstall --purge``: take away everything hookgraph made in this clone.

``--uninstall`` alone removes the hooks and keeps the index, so turning hookgraph on again costs
nothing. ``--purge`` is for leaving: the working index and everything beside it in ``.hookgraph/``,
the repository's vector cache and embedder state in ``<git dir>/hookgraph/``, the ``info/exclude``
line, the merge driver. What git tracks is never deleted here: a committed snapshot and its settings
stay (and are named) unless sharing is turned off in the same command (``--shared``), which removes
them from git and says so: older commits keep them.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from hookgraph import git
from hookgraph.store import DB_DIRNAME

#: Seconds purge waits for a hook holding the index's write lock.
LOCK_SECONDS = 10.0


def refuse_while_embedding(root: Path) -> None:
    """A running background embedder writes the index and the cache: purge waits for nobody, so it says so."""
    from hookgraph.embed import worker

    if not (git.common_dir(root) / "hookgraph").exists():
        return  # no embedder ever ran here (asking would create its lock)
    if worker.running(root):
        pid = worker.holder_pid(root)
        who = f" (pid {pid})" if pid else ""
        stop = f"`kill {pid}`" if pid else "stop it"
        raise git.GitError(f"the background embedder{who} is writing the index: wait until `hookgraph status` says "
                           f"it is done, or {stop}, then run `hookgraph install --uninstall --purge` again; "
                           "nothing was removed")


def purge(root: Path) -> list[str]:
    """Remove what hookgraph made in this clone (never a file git tracks); the lines to print."""
    from hookgraph.store.lock import write_lock
    from hookgraph.store.snapshot import is_shared
    from hookgraph.sync.ignore import remove_exclude
    from hookgraph.sync.shared import remove_merge_driver

    removed: list[str] = []
    kept: list[str] = []
    directory = root / DB_DIRNAME
    if directory.is_symlink():
        kept.append(f"{DB_DIRNAME} (a symlink: hookgraph never follows it; remove it yourself)")
    elif directory.is_dir():
        tracked = _tracked_under(root, DB_DIRNAME)
        with write_lock(directory, timeout=LOCK_SECONDS):
            gone = _remove_untracked(root, directory, tracked)
        try:
            (directory / "lock").unlink()
        except FileNotFoundError:
            pass
        _remove_empty_dirs(directory)
        kept += sorted(tracked)
        if gone:
            removed.append(f"{DB_DIRNAME}/ ({_listed(gone)})")
    home = git.common_dir(root) / "hookgraph"
    shown = home.relative_to(root.resolve()).as_posix() if home.is_relative_to(root.resolve()) else str(home)
    if home.is_symlink():
        home.unlink()
        removed.append(f"{shown} (a symlink)")
    elif home.is_dir():
        shutil.rmtree(home)
        removed.append(f"{shown}/ (the repository's vector cache and embedder state)")
    if remove_exclude(root):
        removed.append("the /.hookgraph/* line of .git/info/exclude")
    if not is_shared(root) and git.run(["config", "--get-regexp", r"^merge\.hookgraph\."], root, check=False).strip():
        remove_merge_driver(root)
        removed.append("the hookgraph merge driver in .git/config")
    lines = [f"purged: {'; '.join(removed)}" if removed else "purged: nothing of hookgraph's was left here"]
    if kept:
        lines.append(f"kept what git tracks: {', '.join(kept)} (this repository shares its index; "
                     "`hookgraph install --uninstall --shared --purge` stops sharing and removes them from git)")
    user_cache = _user_cache_note()
    if user_cache:
        lines.append(user_cache)
    return lines


def _tracked_under(root: Path, folder: str) -> set[str]:
    out = git.run(["ls-files", "-z", "--", folder], root, check=False)
    return {p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p}


def _remove_untracked(root: Path, directory: Path, tracked: set[str]) -> list[str]:
    """Delete every file (or link) under ``directory`` that git does not track, except the lock held now."""
    gone: list[str] = []
    for top, dirs, files in os.walk(directory, topdown=True, followlinks=False):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(top, d))]:
            path = Path(top) / name
            rel = path.relative_to(root).as_posix()
            if rel in tracked or (path.parent == directory and name == "lock"):
                continue
            path.unlink()
            gone.append(path.relative_to(directory).as_posix())
    return sorted(gone)


def _remove_empty_dirs(directory: Path) -> None:
    for top, _dirs, _files in os.walk(directory, topdown=False, followlinks=False):
        try:
            os.rmdir(top)
        except OSError:
            pass  # holds what git tracks


def _listed(names: list[str], most: int = 6) -> str:
    return ", ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "")


def _user_cache_note() -> str | None:
    """The machine-wide cache is every clone's: named, never removed by one repository's purge."""
    from hookgraph.store.vector_cache import user_cache

    cache = user_cache(None)
    if not cache.path.exists():
        return None
    return (f"kept {cache.path}: the vector cache every clone on this machine shares (delete it yourself when "
            "no repository uses hookgraph any more)")
