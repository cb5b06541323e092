"""The repository as it is on disk, for a long-running reader (the MCP server).

An agent edits files and asks again a minute later; answers must describe the
files it now sees, not the last commit. The index (``.hookgraph/index.db``),
though, describes what the hooks last synced: HEAD, or what is being
committed. We do not sync the working tree into it, because:

* ``hookgraph status`` and ``ask`` report the index against HEAD: with the
  working tree synced in, every uncommitted edit would show up as "stale vs
  HEAD" and ``indexed_commit`` would fall back to an older commit, so the
  hooks would look broken while they work;
* the next hook would sync the index back to HEAD or the git index, the next
  question forward to the working tree again, and so on: each swing
  re-embeds the edited units (their vectors are collected with the last unit
  that used them);
* in shared mode the index is exported and committed by ``pre-commit``:
  uncommitted work must not be able to leak into that snapshot.

So the server keeps a **private copy** of the index in a temporary directory
(mode 0700, removed on exit), and before each answer syncs that copy to the
working tree by blob SHA (:func:`hookgraph.sync.sync` with ``database=``):
only files whose content differs are re-parsed, and only new unit texts are
embedded, with the model the server keeps loaded. When the index itself
changes (a hook ran after a commit or a checkout), the copy is taken again.
The index is opened read-only and never written. The sync runs in a forked
child (:mod:`hookgraph.sync.crash_guard`): a grammar that crashes on an
edited file leaves that file out of the copy (and names it in every answer's
``stale_paths``) instead of killing the server.

If more than ``max_sync_files`` files differ (a stale index, a huge
checkout without hooks), nothing is synced: the answer comes from the copy
as it is and ``stale_paths`` lists every path whose answer may be out of date,
with a note to run ``hookgraph index``. With ``sync=False`` the index is read
directly and the same list says where it differs from the working tree.

What every answer reports (see :class:`View`): ``indexed_commit`` and
``stale_vs_head`` are the index's own freshness, as ``hookgraph status`` shows
it; ``uncommitted_paths`` are the working-tree edits (staged or not) that the
answer already reflects; ``stale_paths`` are the paths where the answer may
not match the files on disk (empty after a sync).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hookgraph import git
from hookgraph.plural import count, verb
from hookgraph.sync import crash_guard
from hookgraph.sync.freshness import diff_maps, indexed_commit
from hookgraph.sync.target import unreadable_line, untracked_left_out_line
from hookgraph.store import SIDECARS, VOLATILE_META, Store, StoreError, db_path
from hookgraph.errors import HookgraphError

if TYPE_CHECKING:
    from hookgraph.embed import Embedder

#: More differing files than this are reported as stale instead of synced on the fly.
MAX_SYNC_FILES = 200
#: Seconds a refresh may spend embedding the copy's new texts (an agent's edits: a few functions).
#: The rest wait in the copy's queue for the next refresh; answers rank them by words meanwhile.
EMBED_SECONDS = 0.5
OVERLAY_FILENAME = "worktree.db"


class OverlayError(HookgraphError):
    """The view cannot be built (no index, a model mismatch); the message says what to do."""


@dataclass
class View:
    """How current an answer is; returned with every answer."""

    #: The commit the index describes: HEAD when its map matches HEAD's tree, else the last one it matched.
    indexed_commit: str | None
    head: str | None
    #: Paths where the index differs from HEAD (``hookgraph status``'s "stale vs HEAD").
    stale_vs_head: list[str] = field(default_factory=list)
    #: Working-tree changes against HEAD (staged or not) that the answers include.
    uncommitted_paths: list[str] = field(default_factory=list)
    #: Paths where the answers may not match the files on disk now (empty after a sync).
    stale_paths: list[str] = field(default_factory=list)
    #: Whether the answers come from the copy synced to the working tree.
    synced: bool = False
    #: Files re-parsed by this refresh.
    files_synced: int = 0
    note: str | None = None
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["seconds"] = round(self.seconds, 4)
        return data


class Workspace:
    """One repository, its embedder (loaded once), and the private working-tree copy of its index.

    Not thread-safe by itself: callers hold :attr:`lock` around
    :meth:`refresh` and the queries (the MCP SDK runs each call in a worker thread).
    """

    def __init__(self, root: Path, *, sync: bool = True, max_sync_files: int = MAX_SYNC_FILES) -> None:
        self.root = root
        self.sync_enabled = sync
        self.max_sync_files = max_sync_files
        self.lock = threading.Lock()
        self._dir: Path | None = None
        self._base_digest: str | None = None
        self._embedder: Embedder | None = None
        #: How many times the model was loaded (once, unless the configuration changed).
        self.model_loads = 0
        self.calls = 0

    # -- where answers come from ------------------------------------------------------

    @property
    def overlay_path(self) -> Path:
        if self._dir is None:
            self._dir = Path(tempfile.mkdtemp(prefix="hookgraph-mcp-"))  # 0700: it holds the repository's code
        return self._dir / OVERLAY_FILENAME

    def source_path(self) -> Path:
        """The database answers are read from: the synced copy, or the index itself without sync."""
        return self.overlay_path if self.sync_enabled else db_path(self.root)

    @contextmanager
    def reader(self) -> Iterator[Store]:
        """The store to answer from, open read-only; call :meth:`refresh` first."""
        store = Store(self.source_path(), readonly=True)
        try:
            store.begin_read()  # one state for the whole answer, even if a hook writes the index meanwhile
            store.check_contents()
            yield store
        finally:
            store.close()

    def embedder(self, store: Store) -> Embedder | None:
        """The configured embedder, loaded once; None when the store has no vectors; refuses a mismatch."""
        from hookgraph.embed.choice import embedder_for_repo, store_mismatch

        if not store.has_vector_table() and not store.pending_count():
            return None
        if self._embedder is None:
            self._embedder = embedder_for_repo(self.root)
            self.model_loads += 1
        problem = store_mismatch(store.get_meta, self._embedder)
        if problem:
            raise OverlayError(problem)
        return self._embedder

    def close(self) -> None:
        if self._embedder is not None and hasattr(self._embedder, "close"):
            self._embedder.close()
            self._embedder = None
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    # -- keeping it current -------------------------------------------------------------

    def refresh(self) -> View:
        """Bring the copy in line with the index and the working tree; say how current answers are."""
        from hookgraph.sync.target import read_target

        started = time.perf_counter()
        self.calls += 1
        index = self._index_path()
        head = git.head_commit(self.root)
        head_map = git.tree_map(self.root) if head else {}
        target = read_target(self.root, "worktree")
        with Store(index, readonly=True) as base:
            base.begin_read()  # the map, the meta and the copy: one sync's state (WAL keeps it)
            base.check_contents()
            base_map = base.file_map()
            stale_vs_head = diff_maps(base_map, head_map)
            indexed = indexed_commit(self.root, base, base_map, head, stale_vs_head)
            view = View(indexed, head, stale_vs_head)
            view.uncommitted_paths = diff_maps({p: e.blob for p, e in target.entries.items()}, head_map)
            if not self.sync_enabled:
                view.stale_paths = diff_maps(base_map, target.entries)
                if view.stale_paths:
                    n = len(view.stale_paths)
                    view.note = (f"{count(n, 'path')} {verb(n, 'differs', 'differ')} from the index and "
                                 f"{verb(n, 'is', 'are')} not synced "
                                 "(the server runs with --no-sync): run `hookgraph index --worktree` or commit")
                _tell_untracked_left_out(view, target.untracked_left_out)
                _tell_unreadable(view, target.unreadable)
                view.seconds = time.perf_counter() - started
                return view
            digest = _digest(base, base_map)
            if digest != self._base_digest or not self.overlay_path.exists():
                self._copy(base)
                self._base_digest = digest
        self._sync_overlay(target, view)
        _tell_untracked_left_out(view, target.untracked_left_out)
        _tell_unreadable(view, target.unreadable)
        view.seconds = time.perf_counter() - started
        return view

    def _index_path(self) -> Path:
        index = db_path(self.root)
        if not index.exists():
            from hookgraph.sync.shared import build_first_index

            warnings: list[str] = []
            build_first_index(self.root, warnings)  # shared mode: built from the source, vectors from the snapshot
            if not index.exists():
                raise OverlayError(f"no index in {self.root}: run `hookgraph index` first"
                                   + "".join(f" ({w})" for w in warnings))
        return index

    def _copy(self, base: Store) -> None:
        """Replace the copy with the index as it is now (SQLite's online backup: a consistent snapshot)."""
        path = self.overlay_path
        fresh = path.with_name("copy.db")
        for suffix in ("", *SIDECARS):
            for p in (fresh, path):
                q = p.with_name(p.name + suffix)
                if q.exists():
                    q.unlink()
        base.copy_to(fresh)
        os.replace(fresh, path)

    def _sync_overlay(self, target: Any, view: View) -> None:
        from hookgraph.sync.reconcile import sync
        from hookgraph.sync.target import SyncError

        with Store(self.overlay_path, readonly=True) as copy:
            differ = diff_maps(copy.file_map(), target.entries)
            embedder = self.embedder(copy) if differ else None
            crashed = copy.paths_with_status(crash_guard.SKIP_STATUS)
        if not differ:
            view.synced = True
            _tell_crashed(view, crashed)
            return
        if len(differ) > self.max_sync_files and target.untracked:
            # the tracked edits alone may fit: untracked files are the ones `hookgraph index` cannot take in
            untracked = set(target.untracked)
            tracked = [path for path in differ if path not in untracked]
            if len(tracked) <= self.max_sync_files:
                dropped = set(target.leave_out_untracked())
                view.uncommitted_paths = [path for path in view.uncommitted_paths if path not in dropped]
                differ = tracked
                if not differ:
                    view.synced = True
                    _tell_crashed(view, crashed)
                    return
        if len(differ) > self.max_sync_files:
            view.stale_paths = differ
            view.note = (f"{count(len(differ), 'path')} {verb(len(differ), 'differs', 'differ')} between the index "
                         f"and the working tree, more than the {self.max_sync_files} synced on the fly: "
                         "run `hookgraph index` (or install the hooks)")
            return
        outcome = self.overlay_path.with_name("sync-outcome.json")
        outcome.unlink(missing_ok=True)

        def work() -> int:
            """In a forked child (a grammar that crashes must not kill the server): sync, write what it did."""
            try:
                report = sync(self.root, target, embedder=embedder, database=self.overlay_path)
            except (SyncError, StoreError) as exc:
                outcome.write_text(json.dumps({"error": str(exc)}), encoding="utf-8")
                return 1
            except Exception as exc:  # noqa: BLE001 - in the child no one else would see it; answers go on from the copy
                outcome.write_text(json.dumps({"error": f"{type(exc).__name__}: {exc}"}), encoding="utf-8")
                return 1
            outcome.write_text(json.dumps({"changed": report.changed, "pending": report.pending}), encoding="utf-8")
            return 0

        result, _left_out = crash_guard.run_leaving_out_crashes(
            work, lambda: self.root, database=self.overlay_path, own_output=False)
        try:
            done = json.loads(outcome.read_text(encoding="utf-8")) if isinstance(result, int) else {}
        except (OSError, ValueError):
            done = {}
        if "changed" not in done:
            if isinstance(result, crash_guard.Crash):
                why = f"the syncing process died: {result.describe()}"
            else:
                why = done.get("error") or "the sync left no report"
            view.stale_paths = differ
            view.note = f"the working tree could not be synced ({why}); these paths may be out of date"
            self._base_digest = None  # take a clean copy next time
            return
        view.synced = True
        view.files_synced = int(done["changed"])
        with Store(self.overlay_path, readonly=True) as copy:  # the sync may have left files out, or taken them back
            _tell_crashed(view, copy.paths_with_status(crash_guard.SKIP_STATUS))
        self._embed_some(int(done["pending"]))

    def _embed_some(self, pending: int) -> None:
        """Embed the copy's own waiting texts for a moment (the index's are the background embedder's)."""
        if not pending:
            return
        from hookgraph.embed.queue import drain

        with Store(self.overlay_path, readonly=True) as copy:
            embedder = self.embedder(copy)
        if embedder is not None:
            drain(self.overlay_path, embedder, deadline=time.monotonic() + EMBED_SECONDS)


def _tell_crashed(view: View, crashed: list[str]) -> None:
    """Name the files the parser crashed on (this refresh or a hook before it): answers lack them."""
    if crashed:
        view.stale_paths = sorted(set(view.stale_paths) | set(crashed))
        n = len(crashed)
        view.note = (f"the parser crashed on {', '.join(crashed)}: left out of these answers until "
                     f"{verb(n, 'it changes', 'they change')}; the rest of the working tree is synced")


def _tell_untracked_left_out(view: View, left_out: list[str]) -> None:
    """Say that the answers lack the untracked files (too many of them to take in)."""
    if left_out:
        said = untracked_left_out_line(left_out, "in these answers")
        view.note = f"{view.note}; {said}" if view.note else said


def _tell_unreadable(view: View, unreadable: list[str]) -> None:
    """Name the work-tree files this user may not read: the answers hold what git has of them, maybe not the disk's."""
    if unreadable:
        view.stale_paths = sorted(set(view.stale_paths) | set(unreadable))
        said = unreadable_line(unreadable)
        view.note = f"{view.note}; {said}" if view.note else said


def _digest(store: Store, file_map: dict[str, str]) -> str:
    """Identity of the index's contents: its file map and its meta (model, recipe, synced commit)."""
    h = hashlib.sha256()
    for key, value in sorted(file_map.items()):
        h.update(f"{key}\0{value}\n".encode("utf-8", "surrogateescape"))
    for key, value in sorted(store.all_meta().items()):
        if key not in VOLATILE_META:
            h.update(f"meta\0{key}\0{value}\n".encode("utf-8", "surrogateescape"))
    # vectors the background embedder published since the copy was taken: take it again
    h.update(f"pending\0{store.pending_count()}".encode())
    return h.hexdigest()
