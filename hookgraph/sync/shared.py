"""Shared mode: commit a snapshot of the index with the code it describes.

Two files, on purpose:

* ``.hookgraph/index.db`` is the *working* index, in both modes. Every
  command and hook reads and writes it; git never tracks it.
* ``.hookgraph/shared.db`` is the *committed snapshot*, written only by the
  ``pre-commit`` hook and the merge driver (an export of the working index,
  compacted, rollback-journal mode, no ``-wal`` beside it) and ``git add``-ed in
  the same commit as the code.

Why not commit the working index itself: ``post-checkout``, ``post-merge`` and
``post-rewrite`` must update the index after git has moved HEAD, and a
tracked file changed after the fact is a local modification. git then refuses
the next ``checkout``/``merge``/``rebase`` that touches it ("Your local
changes ... would be overwritten") and pre-commit's stash of unstaged changes
trips over it. Neither ``assume-unchanged`` nor ``skip-worktree`` helps (git
still refuses to overwrite the modified file). With the snapshot written only
when it is staged at once, the tracked file is never dirty, and the working
index still follows every git operation.

A clone starts its working index as a copy of the snapshot (no embedding at
all); later syncs first take the vectors of changed files from the snapshots
at hand (the checked-out one, ``MERGE_HEAD``'s, a merge's other parents)
instead of embedding them again. ``.hookgraph/.gitattributes`` marks the
snapshot binary with a merge driver, so merges never stop on it: the driver
keeps our side, except in a plain two-head merge, where it writes the snapshot
of the merge result itself (see :func:`run_merge_driver`); either way the
hooks then reconcile the working index by blob SHA.

Shared mode is recorded in the committed ``.hookgraph/config.toml``
(``shared = true``), so teammates' hooks follow it without configuration.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookgraph import git
from hookgraph.store import DB_DIRNAME, DB_FILENAME, SchemaUpgradeNeeded, Store, StoreError, db_path
from hookgraph.store.snapshot import (
    MERGE_DRIVER,
    SNAPSHOT_FILE,
    TRACKED,
    current_schema,
    export_snapshot,
    import_vectors,
    prepare_directory,
    renamed,
    snapshot_advice,
    snapshot_at,
)


# -- the merge driver -------------------------------------------------------------


#: The one path the merge driver may write: ``.gitattributes`` lines are anyone's to edit, and a
#: source file mapped to ``merge=hookgraph`` must never be overwritten by a database.
SNAPSHOT_PATH = f"{DB_DIRNAME}/{SNAPSHOT_FILE}"

#: Why a path other than the snapshot is refused (one line on stderr; git then reports a conflict).
REFUSAL = (f"merges only {SNAPSHOT_PATH}; remove merge={MERGE_DRIVER} for this path from .gitattributes, "
           "then resolve the conflict as usual")


def merge_driver_command(python: str | None = None) -> str:
    """The driver git runs for the snapshot: ours, refreshed for the merge when possible.

    Any other path (a ``.gitattributes`` line mapping a source file to
    ``merge=hookgraph``) is refused in the shell, before Python: ``git
    merge-file`` writes both sides into git's file for ours (conflict markers
    where they overlap), one line goes to stderr and the driver exits 1, so
    git reports an ordinary conflict and nobody's edits are lost, even when
    hookgraph's Python is gone. git passes ``%P`` single-quoted, so a path
    with spaces or quotes is one word. ``|| true``: for the snapshot, if that
    Python or hookgraph is gone, the driver still exits 0 and git keeps our
    side untouched. Inside the driver's own ``git merge-tree``
    (``HOOKGRAPH_MERGE_DRIVER`` set) the shell keeps our side without starting Python.
    """
    import shlex
    import sys

    exe = shlex.quote(python or sys.executable)
    refuse = (f"git merge-file -q -L ours -L base -L theirs %A %O %B >/dev/null 2>&1; "
              f"echo 'hookgraph: merge driver refused '%P': {REFUSAL}' >&2; exit 1")
    return (f"case %P in {SNAPSHOT_PATH}) ;; *) {refuse};; esac; "
            f'[ -n "$HOOKGRAPH_MERGE_DRIVER" ] || {exe} -m hookgraph.cli merge-driver %O %A %B %P || true')


def merge_other_path(ancestor: Path, ours: Path, theirs: Path) -> None:
    """For a path that is not the snapshot: git's own three-way text merge into ``ours``.

    The Python side of the shell's refusal (for a driver configured by hand
    without it): ``ours`` then holds both sides' edits, with conflict markers
    where they overlap; a binary file keeps our side (git still has theirs as
    stage 3).
    """
    import subprocess

    subprocess.run(["git", "merge-file", "-q", "-L", "ours", "-L", "base", "-L", "theirs",
                    str(ours), str(ancestor), str(theirs)],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


def _configured_driver(root: Path) -> str:
    out = git.run(["config", "--get", f"merge.{MERGE_DRIVER}.driver"], root, check=False)
    return out.decode("utf-8", "surrogateescape").strip()


def _driver_python(command: str) -> str | None:
    """The Python an existing hookgraph driver runs (``<python> -m hookgraph.cli merge-driver``), if it exists."""
    import shlex

    try:
        words = shlex.split(command.replace(";", " ; "))
    except ValueError:
        return None
    for i, word in enumerate(words[:-3]):
        if words[i + 1:i + 4] == ["-m", "hookgraph.cli", "merge-driver"]:
            return word if os.path.isabs(word) and os.path.exists(word) else None
    return None


def configure_merge_driver(root: Path) -> str | None:
    """Define the merge driver in the repository's config if missing, outdated, or its Python is gone.

    Returns what it did ("added": there was none, "updated"), None when the
    config was right already. Called by ``install`` and lazily by
    every shared-mode hook, so a teammate's clone gets it at the first hook.
    A driver that runs another working hookgraph (say, pre-commit's
    environment) keeps that Python, but an older command without the
    snapshot-path guard is rewritten: it would write a database over any
    file ``.gitattributes`` maps to it.
    """
    current = _configured_driver(root)
    wanted = merge_driver_command(_driver_python(current) if "merge-driver" in current else None)
    if current == wanted:
        return None
    git.run(["config", f"merge.{MERGE_DRIVER}.name", "hookgraph snapshot: ours, re-synced for the merge"], root)
    git.run(["config", f"merge.{MERGE_DRIVER}.driver", wanted], root)
    return "updated" if current else "added"


#: The one command that configures the merge driver in a clone (and installs the hooks that keep it).
SETUP_COMMAND = "hookgraph install"


def missing_driver_line(root: Path) -> str | None:
    """One line when this clone has a committed snapshot but git has no merge driver for it; else None.

    The driver lives in the clone's own git config, which no clone copies: a
    teammate who never ran ``hookgraph install`` (or a hook) gets a conflict
    on ``.hookgraph/shared.db`` at the first merge that changes it on both
    sides. ``ask`` and ``status`` say so, naming the command, before it happens.
    """
    from hookgraph.store.snapshot import is_shared, snapshot_path

    if not is_shared(root) or not snapshot_path(root).is_file() or _configured_driver(root):
        return None
    return (f"this repository commits its index ({SNAPSHOT_PATH}) but this clone has no merge driver for it, so a "
            f"merge that changes it on both sides stops on a conflict: run `{SETUP_COMMAND}` once here")


def remove_merge_driver(root: Path) -> None:
    git.run(["config", "--remove-section", f"merge.{MERGE_DRIVER}"], root, check=False)


@dataclass
class DriverResult:
    """What the merge driver did (logged like a hook under HOOKGRAPH_HOOK_LOG)."""

    action: str
    report: Any = None  # the SyncReport when it synced
    imported: int = 0


def run_merge_driver(ours: Path, theirs: Path, cwd: Path, lock_timeout: float = 20.0) -> DriverResult:
    """The snapshot's merge driver: keep our side, or better, the snapshot of the merge result.

    git gives the driver our and their versions of the snapshot only, not the
    merged tree. For a plain two-head ``git merge``/``git pull`` (git names
    their commit in ``GITHEAD_<sha>``) the merged tree is computed the same
    way with ``git merge-tree --write-tree``; if it is clean apart from
    ``.hookgraph/``, the working index is synced to it (their snapshot's
    vectors first, so nothing they embedded is embedded again) and its export
    replaces ours, so the merge commit carries a snapshot that describes it.
    In every other case (rebase and cherry-pick picks, octopus merges, code
    conflicts, any failure) our side is kept and the hooks re-sync the working
    index after the merge.
    """
    if os.environ.get("HOOKGRAPH_MERGE_DRIVER"):
        return DriverResult("kept-ours:nested-merge")
    heads = [k[len("GITHEAD_"):] for k in os.environ if k.startswith("GITHEAD_")]
    if len(heads) != 1:
        return DriverResult("kept-ours:not-a-two-head-merge")
    import subprocess

    from hookgraph.sync import Target, sync

    root = git.repo_root(cwd)
    env = dict(os.environ, HOOKGRAPH_MERGE_DRIVER="1")
    proc = subprocess.run(
        ["git", "merge-tree", "--write-tree", "--name-only", "--no-messages", "HEAD", heads[0]],
        cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )
    lines = proc.stdout.decode("utf-8", "surrogateescape").splitlines()
    if proc.returncode not in (0, 1) or not lines:
        return DriverResult("kept-ours:merge-tree-failed")
    conflicted = [p for p in lines[1:] if p and not p.startswith(f"{DB_DIRNAME}/")]
    if conflicted:
        return DriverResult("kept-ours:conflicts")
    tree = lines[0].strip()
    target = Target("merge", git.tree_map(root, tree))
    imported = top_up_vectors(root, target.entries, [theirs], [], lock_timeout)
    report = sync(root, target, lock_timeout=lock_timeout)
    export_snapshot(root, dest=ours)
    return DriverResult("merged", report, imported)


def top_up_vectors(root: Path, entries: dict[str, git.Entry], files: list[Path], revs: list[str],
                   lock_timeout: float, warnings: list[str] | None = None) -> int:
    """Before a sync: cache the vectors the snapshots hold for every file about to change.

    ``files`` are snapshot files, ``revs`` commits whose committed snapshot is
    read from git. Returns how many vectors were cached.
    """
    from hookgraph.sync.freshness import diff_maps
    from hookgraph.store.lock import write_lock

    live = db_path(root)
    prepare_directory(live.parent, warnings)  # a clone's first sync starts from the snapshot
    changed = sorted(entries)
    if live.exists():
        try:
            with Store(live, readonly=True) as store:
                changed = diff_maps(store.file_map(), entries)
        except SchemaUpgradeNeeded:
            pass  # after an upgrade: migrated below, under the lock; every file counts as changed once
    changed = [p for p in changed if p in entries]  # deleted files need no vectors
    files = [f for f in files if f.is_file()]
    if not changed or not (files or revs):
        return 0
    imported = 0
    with write_lock(live.parent, timeout=lock_timeout), Store(live, create=True) as store:
        with store.transaction():
            for path in files:
                imported += import_vectors(store, path, changed)
            for rev in revs:
                with snapshot_at(root, rev) as snapshot:
                    if snapshot is not None:
                        imported += import_vectors(store, snapshot, changed)
    return imported


def stage(root: Path) -> None:
    """``git add`` the snapshot, through the hook's environment (``GIT_INDEX_FILE``).

    The settings files are added only while git does not track them yet (the
    first commit in shared mode): later edits to them are the user's to stage.
    """
    settings = [p for p in TRACKED[1:] if (root / p).exists()]
    tracked = set()
    if settings:
        out = git.run(["ls-files", "-z", "--", *settings], root)
        tracked = {p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p}
    git.add(root, [TRACKED[0], *(p for p in settings if p not in tracked)])
    _stage_in_real_index_too(root)


def _stage_in_real_index_too(root: Path) -> None:
    """``git commit PATH`` commits a temporary index; stage the snapshot in the real one as well.

    git then updates the real index (held as ``index.lock`` during the commit)
    for PATH only: without this, the older snapshot would stay staged there
    (``git status``: ``MM``) and block the next checkout.
    """
    index_file = os.environ.get("GIT_INDEX_FILE", "")
    if not os.path.basename(index_file).startswith("next-index"):
        return
    real = git.git_dir(root) / "index.lock"
    if not real.exists():
        return
    import subprocess

    env = dict(os.environ, GIT_INDEX_FILE=str(real))
    subprocess.run(["git", "add", "-f", "--", TRACKED[0]], cwd=root, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


# -- verify -------------------------------------------------------------------------


@dataclass
class Verdict:
    ok: bool
    message: str


def verify_committed(root: Path, rev: str = "HEAD") -> Verdict:
    """Does the snapshot committed at ``rev`` describe ``rev``'s tree?"""
    from hookgraph.sync.freshness import diff_maps

    commit = git.run(["rev-parse", "--verify", "-q", f"{rev}^{{commit}}"], root, check=False).decode().strip()
    if not commit:
        return Verdict(False, f"hookgraph: {rev} is not a commit (nothing to verify)")
    short = commit[:12]
    with snapshot_at(root, commit) as path:
        if path is None:
            return Verdict(False, f"hookgraph: no committed database at {short} "
                                  f"({DB_DIRNAME}/{SNAPSHOT_FILE} missing; see `hookgraph install --shared`)")
        try:
            with current_schema(path) as readable, Store(readable, readonly=True) as store:
                stored = store.file_map()
                pending = store.pending_count()
        except StoreError as exc:  # named as git names it: the temporary copy is nobody's business
            name = f"{short}:{DB_DIRNAME}/{SNAPSHOT_FILE}"
            advice = snapshot_advice(renamed(exc, path, name), Path(name), root, reading=True, name=name)
            return Verdict(False, f"hookgraph: {advice}")
    return _verdict(diff_maps(stored, git.tree_map(root, commit)), "committed database", short, pending)


def verify_local(root: Path) -> Verdict:
    """Does the working index describe HEAD?"""
    from hookgraph.sync.freshness import diff_maps

    head = git.head_commit(root)
    if head is None:
        return Verdict(False, "hookgraph: no commits yet (nothing to verify)")
    path = db_path(root)
    if not path.exists():
        return Verdict(False, f"hookgraph: no index at {DB_DIRNAME}/{DB_FILENAME} (run `hookgraph index`)")
    with Store(path, readonly=True) as store:
        stored = store.file_map()
        pending = store.pending_count()
    return _verdict(diff_maps(stored, git.tree_map(root)), "index", head[:12], pending)


def _verdict(stale: list[str], what: str, short: str, pending: int = 0) -> Verdict:
    """Fresh or stale by the file map; texts still waiting for vectors are said, and are not staleness.

    A snapshot committed with queued texts describes its commit exactly (text,
    graph and freshness are complete); the vectors follow on each teammate's
    machine, from their background embedder.
    """
    waiting = f", {pending} text{'' if pending == 1 else 's'} waiting for vectors" if pending else ""
    if not stale:
        return Verdict(True, f"hookgraph: the {what} describes {short}{waiting}")
    shown = ", ".join(stale[:3]) + (f" and {len(stale) - 3} more" if len(stale) > 3 else "")
    n = len(stale)
    return Verdict(False, f"hookgraph: the {what} does not describe {short}: {n} path{'' if n == 1 else 's'} "
                          f"differ{'s' if n == 1 else ''} ({shown}){waiting}")
