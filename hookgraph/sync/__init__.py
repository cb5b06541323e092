"""Reconcile the store with a target tree, touching only what changed.

Every entry point (``hookgraph index``, each git hook) does the same thing:
compute the target ``{path: blob SHA}`` (HEAD's tree, the git index, or the
working tree), compare it with the ``files`` table, and process the
difference. Nothing here trusts hook arguments, so clones, pulls, merges,
rebases and resets all come out right.

All writes of one sync happen in one transaction: a crash or Ctrl-C leaves the
previous consistent state, and readers (WAL) never see half a sync.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from hookgraph.parse import compose, filters
from hookgraph import git
from hookgraph.store.lock import write_lock
from hookgraph.store import Store, StoreError, damaged, db_path, quarantine

if TYPE_CHECKING:
    from hookgraph.embed import Embedder
    from hookgraph.parse.units import CodeUnit, ParsedFile

TARGETS = ("head", "index", "worktree")


class SyncError(Exception):
    """The sync cannot proceed; the message is one line for the user."""


@dataclass
class Target:
    """What the store should describe: ``{path: Entry}`` and where to read contents."""

    kind: str
    entries: dict[str, git.Entry]
    #: Contents that are not (yet) git objects: working-tree edits.
    overrides: dict[str, bytes] = field(default_factory=dict)
    commit: str | None = None


def read_target(root: Path, kind: str) -> Target:
    """The tree the store should match: HEAD (default), the index, or the working tree."""
    if kind == "head":
        return Target(kind, git.tree_map(root), commit=git.head_commit(root))
    entries = git.index_map(root)
    if kind == "index":
        return Target(kind, entries, commit=git.head_commit(root))
    if kind != "worktree":
        raise SyncError(f"unknown sync target {kind!r}: use one of {', '.join(TARGETS)}")
    overrides: dict[str, bytes] = {}
    for raw in git.worktree_changes(root):
        path = git.path_key(raw)
        if path in entries and not entries[path].regular:
            continue  # a submodule that moved, a symlink: listed as the index has them, never read
        data = git.read_worktree_file(root, raw)
        if data is None:
            entries.pop(path, None)
            continue
        entries[path] = git.Entry(git.blob_sha(data), len(data))
        overrides[path] = data
    return Target(kind, entries, overrides, commit=git.head_commit(root))


@dataclass
class SyncReport:
    """What one sync did, for the one-line summary and for tests."""

    added: int = 0
    modified: int = 0
    deleted: int = 0
    units_written: int = 0
    texts_embedded: int = 0
    truncated: int = 0
    #: Units of the written files embedded as several windows (long units).
    split: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    commit: str | None = None
    #: One-line notes for the user (an untrusted snapshot ignored, a broken index moved aside).
    warnings: list[str] = field(default_factory=list)

    @property
    def changed(self) -> int:
        return self.added + self.modified + self.deleted

    def summary(self) -> str:
        skipped = sum(self.skipped.values())
        reasons = ", ".join(f"{n} {r}" for r, n in sorted(self.skipped.items()))
        text = (
            f"{self.added} added, {self.modified} modified, {self.deleted} deleted files; "
            f"{self.units_written} units written, {self.texts_embedded} embedded"
        )
        if skipped:
            text += f"; {skipped} skipped ({reasons})"
        if self.split:
            text += f"; {self.split} long units split into windows"
        if self.truncated:
            text += f"; {self.truncated} cut after their last window"
        return text + f" in {self.seconds:.1f}s"


ProgressFactory = Callable[[int], "Progress"]


class Progress:
    """Progress sink; the CLI passes one that draws a bar on a terminal."""

    def advance(self, n: int = 1) -> None:  # pragma: no cover - trivial
        pass

    def close(self) -> None:  # pragma: no cover - trivial
        pass


def sync(
    root: Path,
    target: Target,
    *,
    full: bool = False,
    reembed: bool = False,
    embedder: Embedder | None = None,
    progress: ProgressFactory | None = None,
    lock_timeout: float = 60.0,
    database: Path | None = None,
) -> SyncReport:
    """Bring ``root``'s store in line with ``target``; returns what was done.

    ``reembed``: rebuild with the configured model and recipe even when the
    store was embedded with another one (the refusal message points here).
    It is a full rebuild in one transaction, so readers keep the old vectors
    until it commits. ``embedder`` defaults to the repository's configured one.
    SQLite failing on a damaged file becomes a StoreError naming the repair.
    ``database``: write this file instead of ``.hookgraph/index.db`` (the MCP
    server's private working-tree copy, see :mod:`hookgraph.sync.overlay`).
    """
    import apsw

    args = dict(full=full, reembed=reembed, embedder=embedder, progress=progress, lock_timeout=lock_timeout,
                database=database)
    try:
        return _sync(root, target, **args)  # type: ignore[arg-type]
    except apsw.Error as exc:
        error = damaged(database or db_path(root), exc)
        if not (full or reembed):
            raise error from None
    # A full rebuild repairs whatever the damage: a file that opened but fails
    # on its pages is moved aside like one that did not open, and the rebuild
    # starts again from an empty database.
    path = database or db_path(root)
    with write_lock(path.parent, timeout=lock_timeout):
        moved = quarantine(path)
    report = _sync(root, target, **args)  # type: ignore[arg-type]
    reason = str(error).split(": rebuild it with")[0]
    report.warnings.insert(0, f"{reason}: moved it aside to {moved.name} and rebuilt the index")
    return report


def _sync(
    root: Path,
    target: Target,
    *,
    full: bool,
    reembed: bool,
    embedder: Embedder | None,
    progress: ProgressFactory | None,
    lock_timeout: float,
    database: Path | None,
) -> SyncReport:
    full = full or reembed
    started = time.perf_counter()
    report = SyncReport(commit=target.commit)
    path = database or db_path(root)
    _ensure_dir(path.parent, report.warnings)
    with write_lock(path.parent, timeout=lock_timeout), _open(path, full, report) as store:
        if not full:
            store.check_contents()
        stored = {} if full else store.file_map()
        wanted = {p: e for p, e in target.entries.items() if filters.path_skip_reason(p, None) != "own-database"}
        changed = [p for p, e in wanted.items() if stored.get(p) != e.blob]
        deleted = [p for p in stored if p not in wanted]
        report.added = sum(1 for p in changed if p not in stored)
        report.modified = len(changed) - report.added
        report.deleted = len(deleted)
        embed = _EmbedSession(store, embedder, root)
        text_chunks = filters.text_chunks_wanted(root)
        if not full:  # even with nothing to do: a switched model is reported at once
            embed.check_model()
        if not changed and not deleted and not full:
            report.seconds = time.perf_counter() - started
            return report
        bar = progress(len(changed)) if progress else None
        try:
            with store.transaction():
                if full:
                    store.clear_all()
                for p in deleted:
                    store.delete_file(p)
                with git.BlobReader(root) as reader:
                    for p in sorted(changed):
                        _sync_file(store, reader, target, p, wanted[p], embed, report, text_chunks)
                        if bar:
                            bar.advance()
                store.collect_orphan_vectors()
                if embed.embedded or store.get_meta("model_sha256") is None:
                    embed.record_model()
                if target.kind == "head" and target.commit:
                    store.set_meta("synced_commit", target.commit)
        finally:
            if bar:
                bar.close()
        report.texts_embedded = embed.embedded
    report.seconds = time.perf_counter() - started
    return report


def _open(path: Path, full: bool, report: SyncReport) -> Store:
    """The store to write; for a full rebuild, an unusable one (garbage, planted SQL,
    a future schema) is moved aside first, so ``index --full`` always repairs."""
    try:
        return Store(path, create=True)
    except StoreError as exc:
        if not full:
            raise
        moved = quarantine(path)
        reason = str(exc).split(": rebuild it with")[0]
        report.warnings.append(f"{reason}: moved it aside to {moved.name} and rebuilt the index")
        return Store(path, create=True)


def _ensure_dir(directory: Path, warnings: list[str] | None = None) -> None:
    """Create ``.hookgraph/`` laid out for the repository's mode.

    Default mode: a ``.gitignore`` keeps it all out of git. Shared mode (see
    :mod:`hookgraph.sync.shared`): its ``.gitignore``/``.gitattributes``, and a
    missing index starts as a copy of the committed snapshot, unless that
    snapshot is not trustworthy (then ``warnings`` says so).
    """
    from hookgraph.sync.shared import prepare_directory

    prepare_directory(directory, warnings)


def _sync_file(
    store: Store,
    reader: git.BlobReader,
    target: Target,
    path: str,
    entry: git.Entry,
    embed: _EmbedSession,
    report: SyncReport,
    text_chunks: bool = True,
) -> None:
    """Index one file, or record why not. What needs no read (vendored,
    too large, a symlink) is decided first; the language after reading, since
    the bytes decide a ``.h`` or a file with only a ``#!`` line to go by."""
    from hookgraph.parse.languages import language_for, language_for_path

    store.delete_units_of(path)
    reason = filters.path_skip_reason(path, entry.size)
    if reason is None and not entry.regular:  # a symlink's "content" is a path, a submodule's a commit
        reason = "symlink" if entry.mode == git.SYMLINK_MODE else "submodule"
    data: bytes | None = None
    if reason is None:
        data = target.overrides.get(path)
        if data is None:
            data = reader.read(entry.blob, filters.DEFAULT_MAX_BYTES)  # a 50 MB blob is never held
        if data is None:
            too_large = reader.last_size is not None and reader.last_size > filters.DEFAULT_MAX_BYTES
            reason = "too-large" if too_large else "unreadable"
        else:
            reason = filters.content_skip_reason(data)
    if reason is not None or data is None:
        language = language_for(path, data) if data is not None else language_for_path(path)
        store.upsert_file(path, entry.blob, language, f"skipped:{reason}", 0, 0)
        report.skipped[reason or "unreadable"] += 1
        return
    from hookgraph.parse import parse_file

    parsed = parse_file(path, data, text_chunks=text_chunks)
    if parsed is None:  # text of no known format, with [index] unknown_text = "skip"
        store.upsert_file(path, entry.blob, language_for(path, data), "skipped:unknown-language", 0, 0)
        return
    truncated, split = _write_units(store, parsed, embed)
    report.units_written += len(parsed.units)
    report.truncated += truncated
    report.split += split
    status = "indexed:fallback" if parsed.fallback else "indexed:partial" if parsed.had_errors else "indexed"
    store.upsert_file(path, entry.blob, parsed.language, status, len(parsed.units), truncated)


def _write_units(store: Store, parsed: ParsedFile, embed: _EmbedSession) -> tuple[int, int]:
    """Insert the file's units, vectors (new texts only) and edges; returns units truncated and split."""
    calls_by_source: dict[str, list[str]] = {}
    for edge in parsed.edges:
        if edge.kind == "calls":
            calls_by_source.setdefault(edge.source, []).append(edge.target)
    members: dict[str, list[CodeUnit]] = {}
    for unit in parsed.units:
        if unit.parent is not None:
            members.setdefault(unit.parent, []).append(unit)
    texts = [
        compose.embed_text(u, calls_by_source.get(u.qualname, []), members.get(u.qualname))
        for u in parsed.units
    ]
    vector_ids, truncated, split = embed.vectors_for(texts, [u.language for u in parsed.units])
    unit_ids: dict[str, int] = {}
    for unit, vector_id in zip(parsed.units, vector_ids):
        uid = store.insert_unit(
            (
                unit.path,
                unit.kind,
                unit.name,
                unit.qualname,
                unit.parent,
                unit.start_line,
                unit.end_line,
                unit.language,
                unit.signature,
                unit.docstring,
                vector_id,
            ),
            compose.fts_columns(unit),
        )
        unit_ids.setdefault(unit.qualname, uid)
    file_unit = unit_ids.get(parsed.path)
    rows = []
    for edge in parsed.edges:
        source = unit_ids.get(edge.source, file_unit)
        if source is None:
            continue
        rows.append((source, edge.kind, edge.target, edge.target_full or edge.target, edge.line))
    store.insert_edges(rows)
    return truncated, split


class _EmbedSession:
    """Embeds only texts the store has no vector for, loading the model on first need."""

    def __init__(self, store: Store, embedder: Embedder | None, root: Path | None = None) -> None:
        self.store = store
        self._embedder = embedder
        self._root = root
        self.embedded = 0

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            from hookgraph.embed.choice import embedder_for_repo

            self._embedder = embedder_for_repo(self._root)
        return self._embedder

    def check_model(self) -> None:
        """Refuse to mix vectors of two models (or two recipes of one model) in one store."""
        from hookgraph.embed.choice import store_mismatch

        if not self.store.has_vector_table():
            return
        problem = store_mismatch(self.store.get_meta, self.embedder)
        if problem:
            raise SyncError(problem)

    def record_model(self) -> None:
        e = self.embedder
        for key, value in (
            ("model_sha256", e.model_sha256),
            ("model_name", e.model_name),
            ("model_file", e.model_path.name),
            ("dims", str(e.dims)),
            ("query_prefix", e.query_prefix),
            ("document_prefix", e.document_prefix),
            ("max_tokens", str(e.max_tokens)),
            ("embed_recipe", e.recipe),
        ):
            self.store.set_meta(key, value)

    def vectors_for(self, texts: list[str], languages: list[str]) -> tuple[list[int], int, int]:
        """Vector ids for ``texts``, embedding only the new ones; and how many are truncated, split.

        The key is the recipe (model SHA-256, document prefix, window size)
        plus the text, so a known text needs no model at all; a new text is
        embedded as one vector per window.
        """
        recipe = self.embedder.recipe
        hashes = [compose.text_hash(recipe, t) for t in texts]
        known = self.store.vector_info(hashes)
        new: dict[bytes, list[int]] = {}
        for i, text_hash in enumerate(hashes):
            if text_hash in known:
                continue
            if text_hash in new:
                new[text_hash].append(i)
            elif self.store.revive_vector(text_hash) is not None:
                known.update(self.store.vector_info([text_hash]))
            else:
                new[text_hash] = [i]
        if new:
            embedder = self.embedder
            self.store.ensure_vector_table(embedder.dims)
            order = list(new)
            for text_hash, (vectors, cut) in zip(order, embedder.embed_windows([texts[new[h][0]] for h in order])):
                self.store.insert_windows(text_hash, vectors, languages[new[text_hash][0]], cut)
                self.embedded += 1
            known.update(self.store.vector_info(order))
        ids: list[int] = []
        truncated = split = 0
        for text_hash in hashes:
            vid, windows, cut = known[text_hash]
            ids.append(vid)
            truncated += int(cut)
            split += int(windows > 1)
        return ids, truncated, split
