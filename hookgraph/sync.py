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

from hookgraph import compose, filters, git
from hookgraph.lock import write_lock
from hookgraph.store import Store, db_path

if TYPE_CHECKING:
    from hookgraph.embed import Embedder
    from hookgraph.units import CodeUnit, ParsedFile

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
    for path in git.worktree_changes(root):
        data = git.read_worktree_file(root, path)
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
    skipped: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    commit: str | None = None

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
        if self.truncated:
            text += f"; {self.truncated} truncated to the model window"
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
    embedder: Embedder | None = None,
    progress: ProgressFactory | None = None,
    lock_timeout: float = 60.0,
) -> SyncReport:
    """Bring ``root``'s store in line with ``target``; returns what was done."""
    started = time.perf_counter()
    report = SyncReport(commit=target.commit)
    path = db_path(root)
    _ensure_dir(path.parent)
    with write_lock(path.parent, timeout=lock_timeout), Store(path, create=True) as store:
        stored = {} if full else store.file_map()
        wanted = {p: e for p, e in target.entries.items() if filters.path_skip_reason(p, None) != "own-database"}
        changed = [p for p, e in wanted.items() if stored.get(p) != e.blob]
        deleted = [p for p in stored if p not in wanted]
        report.added = sum(1 for p in changed if p not in stored)
        report.modified = len(changed) - report.added
        report.deleted = len(deleted)
        if not changed and not deleted and not full:
            report.seconds = time.perf_counter() - started
            return report
        embed = _EmbedSession(store, embedder)
        bar = progress(len(changed)) if progress else None
        try:
            with store.transaction():
                if full:
                    store.clear_all()
                embed.check_model()
                for p in deleted:
                    store.delete_file(p)
                with git.BlobReader(root) as reader:
                    for p in sorted(changed):
                        _sync_file(store, reader, target, p, wanted[p], embed, report)
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


def _ensure_dir(directory: Path) -> None:
    """Create ``.hookgraph/`` laid out for the repository's mode.

    Default mode: a ``.gitignore`` keeps it all out of git. Shared mode (see
    :mod:`hookgraph.shared`): its ``.gitignore``/``.gitattributes``, and a
    missing index starts as a copy of the committed snapshot.
    """
    from hookgraph.shared import prepare_directory

    prepare_directory(directory)


def _sync_file(
    store: Store,
    reader: git.BlobReader,
    target: Target,
    path: str,
    entry: git.Entry,
    embed: _EmbedSession,
    report: SyncReport,
) -> None:
    from hookgraph.languages import language_for_path

    store.delete_units_of(path)
    language = language_for_path(path)
    reason = filters.path_skip_reason(path, entry.size)
    if reason is None and language is None:
        reason = "unknown-language"
    data: bytes | None = None
    if reason is None:
        data = target.overrides.get(path)
        if data is None:
            data = reader.read(entry.blob)
        if data is None:
            reason = "unreadable"
        else:
            reason = filters.content_skip_reason(data)
    if reason is not None or data is None:
        store.upsert_file(path, entry.blob, language, f"skipped:{reason}", 0, 0)
        if reason != "unknown-language":
            report.skipped[reason or "unreadable"] += 1
        return
    from hookgraph.parse import parse_file

    parsed = parse_file(path, data)
    if parsed is None:
        store.upsert_file(path, entry.blob, language, "skipped:unknown-language", 0, 0)
        return
    truncated = _write_units(store, parsed, embed)
    report.units_written += len(parsed.units)
    report.truncated += truncated
    status = "indexed:partial" if parsed.had_errors else "indexed"
    store.upsert_file(path, entry.blob, parsed.language, status, len(parsed.units), truncated)


def _write_units(store: Store, parsed: ParsedFile, embed: _EmbedSession) -> int:
    """Insert the file's units, vectors (new texts only) and edges; returns units truncated."""
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
    vector_ids, truncated = embed.vectors_for(texts, [u.language for u in parsed.units])
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
        rows.append((parsed.path, source, edge.kind, edge.target, edge.target_full or edge.target, edge.line))
    store.insert_edges(rows)
    return truncated


class _EmbedSession:
    """Embeds only texts the store has no vector for, loading the model on first need."""

    def __init__(self, store: Store, embedder: Embedder | None) -> None:
        self.store = store
        self._embedder = embedder
        self.embedded = 0

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            from hookgraph.embed import Embedder

            self._embedder = Embedder()
        return self._embedder

    def check_model(self) -> None:
        """Refuse to mix vectors of two models in one store."""
        stored = self.store.get_meta("model_sha256")
        current = self.embedder.model_sha256
        if stored and stored != current and self.store.has_vector_table():
            name = self.store.get_meta("model_name") or "another model"
            raise SyncError(
                f"the index was embedded with {name} (sha256 {stored[:12]}) but the model in use is "
                f"{self.embedder.model_name} (sha256 {current[:12]}): run `hookgraph index --full` to re-embed"
            )

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
        ):
            self.store.set_meta(key, value)

    def vectors_for(self, texts: list[str], languages: list[str]) -> tuple[list[int], int]:
        """Vector ids for ``texts``, embedding only the new ones; and how many were truncated."""
        sha = self.embedder.model_sha256
        hashes = [compose.text_hash(sha, t) for t in texts]
        known = self.store.vector_ids(hashes)
        truncated = 0
        ids: list[int] = []
        for text, text_hash, language in zip(texts, hashes, languages):
            vid = known.get(text_hash)
            if vid is None:
                vid = self.store.revive_vector(text_hash)
            if vid is None:
                embedder = self.embedder
                self.store.ensure_vector_table(embedder.dims)
                _, was_cut = embedder.fit(text)
                truncated += int(was_cut)
                vector = embedder.embed_documents([text])[0]
                vid = self.store.insert_vector(text_hash, vector, language)
                known[text_hash] = vid
                self.embedded += 1
            ids.append(vid)
        return ids, truncated
