"""Shared mode: commit a snapshot of the index with the code it describes.

Two files, on purpose:

* ``.hookgraph/index.db`` is the *working* index, in both modes. Every
  command and hook reads and writes it; git never tracks it.
* ``.hookgraph/shared.db`` is the *committed snapshot*, written only by the
  ``pre-commit`` hook and the merge driver (the working index's vectors by
  text key, :mod:`hookgraph.store.vector_file`) and ``git add``-ed in the same
  commit as the code.

Why not commit the working index itself: ``post-checkout``, ``post-merge`` and
``post-rewrite`` must update the index after git has moved HEAD, and a
tracked file changed after the fact is a local modification. git then refuses
the next ``checkout``/``merge``/``rebase`` that touches it ("Your local
changes ... would be overwritten") and pre-commit's stash of unstaged changes
trips over it. Neither ``assume-unchanged`` nor ``skip-worktree`` helps (git
still refuses to overwrite the modified file). With the snapshot written only
when it is staged at once, the tracked file is never dirty, and the working
index still follows every git operation.

A snapshot is a source of vectors, never of facts: a clone's first command
builds its working index from the blobs (:func:`build_first_index`) and every
sync takes vectors, under the keys of the texts it composed, from the
snapshots at hand (the checked-out one, ``MERGE_HEAD``'s, a merge's other
parents) instead of embedding them again, once a random sample of them agreed
with the local model (:mod:`hookgraph.embed.adopt`). ``.hookgraph/.gitattributes`` marks the
snapshot binary with a merge driver, so merges never stop on it: the driver
writes the union by text key of both sides' vectors (see
:func:`run_merge_driver`); the hooks then reconcile the working index by blob
SHA, taking the merged snapshot's vectors after the sampled check.

Shared mode is recorded in the committed ``.hookgraph/config.toml``
(``shared = true``), so teammates' hooks follow it without configuration.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from hookgraph import git
from hookgraph.store import DB_DIRNAME, DB_FILENAME, Store, StoreError, db_path
from hookgraph.store.snapshot import (
    MERGE_DRIVER,
    SNAPSHOT_FILE,
    TRACKED,
    SnapshotVectors,
    current_schema,
    renamed,
    snapshot_advice,
    snapshot_at,
    snapshot_label,
)
from hookgraph.embed.adopt import VectorSource


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
    git.run(["config", f"merge.{MERGE_DRIVER}.name", "hookgraph snapshot: both sides' vectors by text key"], root)
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
    imported: int = 0  # records their side added to ours


def run_merge_driver(ours: Path, theirs: Path, cwd: Path) -> DriverResult:
    """The snapshot's merge driver: the union by text key of both sides' vectors, written over ``ours``.

    Any merge (``git merge``/``pull``, a rebase's or cherry-pick's pick, an
    octopus) ends without a conflict on the snapshot, in milliseconds, with no
    sync and no model: the snapshot holds vectors by text key only
    (:mod:`hookgraph.store.vector_file`), so both sides' records simply add
    up (ours where both have a key), and the same two files always give the
    same bytes. Either side may be an older hookgraph's SQLite snapshot; the
    result is always a vector file.

    Nothing is believed for it: their vectors are not adopted into the
    working index here. The post-merge hook (or the next command) takes them
    from the merged snapshot after the usual sampled check, and the next
    commit's snapshot is exported from the working index alone, so vectors
    this machine refused are never committed again from it. Our side is kept
    untouched when the two were embedded with different models (a model change
    on one side: the hooks follow it, see ``_model_switch`` in
    :mod:`hookgraph.sync`) or when either side cannot be read.
    """
    if os.environ.get("HOOKGRAPH_MERGE_DRIVER"):
        return DriverResult("kept-ours:nested-merge")
    from hookgraph.store import vector_file

    root = git.repo_root(cwd)
    mine, other = SnapshotVectors(ours, "ours", root), SnapshotVectors(theirs, "theirs", root)
    try:
        ours_vectors, theirs_vectors = mine.all_vectors(), other.all_vectors()
    finally:
        mine.close()
        other.close()
    if ours_vectors is None or theirs_vectors is None:
        return DriverResult("kept-ours:unreadable")
    merged = vector_file.union(ours_vectors, theirs_vectors)
    if merged is None:
        return DriverResult("kept-ours:model-differs")
    data = vector_file.encode_file(merged)
    tmp = ours.with_name(ours.name + ".hookgraph-merge")
    tmp.write_bytes(data)
    os.replace(tmp, ours)
    return DriverResult("merged", imported=len(merged.records) - len(ours_vectors.records))


@contextmanager
def snapshot_sources(root: Path, revs: list[str]) -> Iterator[list[VectorSource]]:
    """The snapshots committed at ``revs`` (a pull's ORIG_HEAD, MERGE_HEAD, ...) as vector sources.

    Each offers vectors only, checked by the sync before use, and is named by
    the commit that brought it. The checked-out snapshot is asked by every
    shared-mode sync already; a rev whose snapshot is the same blob is skipped.
    """
    seen = {_snapshot_blob(root, "HEAD")} if revs else set()
    with ExitStack() as stack:
        sources: list[VectorSource] = []
        for rev in revs:
            blob = _snapshot_blob(root, rev)
            if not blob or blob in seen:
                continue
            seen.add(blob)
            path = stack.enter_context(snapshot_at(root, rev))
            if path is not None:
                label = snapshot_label(root, rev)
                provider = SnapshotVectors(path, label, root)
                stack.callback(provider.close)
                sources.append(VectorSource(provider, label, "it is not used"))
        yield sources


def _snapshot_blob(root: Path, rev: str) -> str:
    spec = f"{rev}:{DB_DIRNAME}/{SNAPSHOT_FILE}"
    return git.run(["rev-parse", "--verify", "-q", spec], root, check=False).decode("ascii", "replace").strip()


def build_first_index(root: Path, warnings: list[str]) -> bool:
    """A shared-mode clone's first index: built from the source now, vectors from the committed snapshot.

    The snapshot gives no facts: files, units, text and edges come from the
    blobs (seconds), and only vectors under the keys of locally composed
    texts are taken from it, after a sampled check against the local model,
    which the background embedder runs when there is one (then every text
    waits until the check published the snapshot's vectors all at once).
    Returns whether an index exists afterwards; ``warnings`` gets the sync's
    lines (a rejected snapshot) or why no index could be built.
    """
    from hookgraph.store import snapshot
    from hookgraph.sync.reconcile import sync
    from hookgraph.sync.target import SyncError, read_target

    if db_path(root).exists():
        return True
    snap = snapshot.snapshot_path(root)
    if not snapshot.is_shared(root) or not (snap.is_file() or snap.is_symlink()) or git.head_commit(root) is None:
        return False
    from hookgraph.embed.worker import can_run, start_warm

    background = can_run(root)
    if background:
        start_warm(root)  # its imports and model load overlap our parse; the check starts once we registered
    try:
        # The sampled check needs the model (seconds): with an embedder to hand it to, the first answer
        # does not wait for it (words and graph answer at once; see hookgraph.embed.adopt).
        report = sync(root, read_target(root, "head"), defer_offers=background)
    except (StoreError, SyncError, git.GitError) as exc:
        warnings.append(" ".join(str(exc).split()))
        return False
    warnings.extend(report.warnings)
    return db_path(root).exists()


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


def verify_committed(root: Path, rev: str = "HEAD", full: bool = False) -> Verdict:
    """Can a clone of ``rev`` take vectors from its committed snapshot? (:mod:`hookgraph.sync.verify`)

    ``full``: compare every vector with the local model, not a sample.
    """
    from hookgraph.sync.freshness import diff_maps
    from hookgraph.sync.verify import REPAIR, check_vectors

    commit = git.run(["rev-parse", "--verify", "-q", f"{rev}^{{commit}}"], root, check=False).decode().strip()
    if not commit:
        return Verdict(False, f"hookgraph: {rev} is not a commit (nothing to verify)")
    short = commit[:12]
    with snapshot_at(root, commit) as path:
        if path is None:
            return Verdict(False, f"hookgraph: no committed database at {short} "
                                  f"({DB_DIRNAME}/{SNAPSHOT_FILE} missing; see `hookgraph install --shared`)")
        from hookgraph.store import vector_file

        if vector_file.is_vector_file(path):
            try:
                contents = vector_file.read(path)
            except (vector_file.VectorFileError, OSError) as exc:
                return Verdict(False, f"hookgraph: the committed snapshot {short}:{SNAPSHOT_PATH} {exc}: "
                                      f"repair it with `{REPAIR}`")
        else:
            try:
                with current_schema(path) as readable, Store(readable, readonly=True) as store:
                    stored = store.file_map()
                    pending = store.pending_count()
            except StoreError as exc:  # named as git names it: the temporary copy is nobody's business
                name = f"{short}:{DB_DIRNAME}/{SNAPSHOT_FILE}"
                advice = snapshot_advice(renamed(exc, path, name), Path(name), root, reading=True, name=name)
                return Verdict(False, f"hookgraph: {advice}")
            stale = _verdict(diff_maps(stored, git.tree_map(root, commit)), "committed database", short, pending)
            if not stale.ok:
                return stale
            older = SnapshotVectors(path, "the committed snapshot", root)
            try:
                found = older.all_vectors()
            finally:
                older.close()
            if found is None:
                return Verdict(False, f"hookgraph: the committed snapshot {short}:{SNAPSHOT_PATH} cannot be read "
                                      f"({older.problem}): repair it with `{REPAIR}`")
            contents = found
    ok, line = check_vectors(root, commit, contents, full=full)
    return Verdict(ok, f"hookgraph: {line}")


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
