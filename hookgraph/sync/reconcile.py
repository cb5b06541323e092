"""Reconcile the store with a target tree, touching only what changed, without waiting for the model.

Every entry point (``hookgraph index``, each git hook, the merge driver, the
MCP server's private copy) does the same thing: compute the target ``{path:
blob SHA}`` (:mod:`hookgraph.sync.target`), compare it with the ``files``
table, and process the difference. Nothing here trusts hook arguments, so
clones, pulls, merges, rebases and resets all come out right.

Two speeds, one store (DESIGN.md section 9). The model is the only slow part,
so a sync never runs it: files, units, full-text rows and edges are written
at once, in one transaction (a crash or Ctrl-C leaves the previous consistent
state; readers never see half a sync), and every unit gets its vector the
cheapest way there is - the index has it, the index's own revive cache has it,
or the repository's or the user's vector cache has it
(:mod:`hookgraph.store.vector_cache`). Only a text nobody has embedded yet is
*queued*: its unit waits with ``text_hash`` set, and the background embedder
(:mod:`hookgraph.embed.worker`, started here after the commit) fills it in.
Lexical search, the graph and freshness are exact when this returns.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from hookgraph import git
from hookgraph.embed import no_embed, order
from hookgraph.embed import static as static_embedding
from hookgraph.parse import compose, expansion, filters
from hookgraph.parse.version import PARSER_META, parser_fingerprint
from hookgraph.store import Store, StoreError, damaged, db_path, faults, quarantine, remove_database
from hookgraph.store.lock import write_lock
from hookgraph.sync import crash_guard, freshness
from hookgraph.embed.adopt import Offers, close_sources, offering_sources
from hookgraph.sync.parallel import FileRead, read_files
from hookgraph.sync.target import SyncError, Target

#: Meta key: the SHA-256 of the static word table the store's static vectors come from.
STATIC_MODEL_META = "static_model"
#: Meta key: the SHA-256 of the expansion table the store's expansion words come from (:mod:`hookgraph.parse.expansion`).
EXPANSION_META = "expansion_table"

if TYPE_CHECKING:
    from hookgraph.embed import Embedder
    from hookgraph.store.vector_cache import VectorCache
    from hookgraph.embed.adopt import VectorSource

__all__ = ["Progress", "SyncReport", "sync"]

#: Queue priority tier of a hook's texts (a commit's few functions) over a first index's thousands; within a
#: tier, the units most likely asked about first (:mod:`hookgraph.embed.order`).
PRIORITY_INCREMENTAL = 1
PRIORITY_BULK = 0


@dataclass
class SyncReport:
    """What one sync did, for the one-line summary and for tests."""

    added: int = 0
    modified: int = 0
    deleted: int = 0
    units_written: int = 0
    #: Texts this sync queued for the background embedder (new to the index and to every cache).
    queued: int = 0
    #: Vectors taken from the repository's or the user's cache instead of the model.
    from_cache: int = 0
    #: Texts still waiting for a vector when the sync returned (this one's and earlier ones').
    pending: int = 0
    #: Adopted vectors the background embedder has still to check in full (:mod:`hookgraph.embed.recheck`).
    unchecked: int = 0
    #: Texts a caller embedded in the foreground afterwards (``index --wait``); a sync itself embeds none.
    texts_embedded: int = 0
    truncated: int = 0
    #: Units of the written files embedded as several windows (long units).
    split: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    commit: str | None = None
    #: Whether a background embedder was started (or was already running) for the queue.
    background: bool = False
    #: A full rebuild (``--full``, ``--reembed``): every file was parsed again, none was "added".
    rebuilt: bool = False
    #: ``(bytes before, bytes after)`` when the sync compacted the index (see :func:`_compact_if_shrunk`).
    compacted: tuple[int, int] | None = None
    #: One-line notes for the user (an untrusted snapshot ignored, a broken index moved aside).
    warnings: list[str] = field(default_factory=list)

    @property
    def changed(self) -> int:
        return self.added + self.modified + self.deleted

    def summary(self, waiting: str | None = None) -> str:
        """One line; ``waiting`` says what becomes of the waiting texts ("now": embedded next, here)."""
        skipped = sum(self.skipped.values())
        reasons = ", ".join(f"{n} {r}" for r, n in sorted(self.skipped.items()))
        if self.rebuilt:
            text = f"rebuilt from scratch: {_count(self.added, 'file')} parsed; {_count(self.units_written, 'unit')} written"
        else:
            text = (
                f"{self.added} added, {self.modified} modified, {self.deleted} deleted files; "
                f"{_count(self.units_written, 'unit')} written"
            )
        if self.from_cache:
            text += f", {self.from_cache} vectors from cache"
        if self.texts_embedded:
            text += f", {self.texts_embedded} embedded"
        if skipped:
            text += f"; {skipped} skipped ({reasons})"
        if self.split:
            text += f"; {self.split} long units split into windows"
        if self.truncated:
            text += f"; {self.truncated} cut after their last window"
        text += f" in {self.seconds:.1f}s"
        if self.compacted:
            text += f"; index compacted from {self.compacted[0] / 1e6:.1f} to {self.compacted[1] / 1e6:.1f} MB"
        if self.pending:
            texts = _count(self.pending, "text")
            if waiting == "now":
                text += f"; embedding {texts} now"
            elif self.background:
                text += (f"; embedding {texts} in the background (`hookgraph status` shows progress, "
                         "`hookgraph index --wait` waits for it)")
            else:
                text += f"; {texts} waiting for vectors (`hookgraph index --wait` embeds them)"
        return text


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


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
    background: bool = True,
    snapshots: list[VectorSource] | None = None,
    defer_offers: bool = False,
) -> SyncReport:
    """Bring ``root``'s store in line with ``target``; returns what was done.

    ``embedder`` gives the embedding recipe texts are keyed by (the
    repository's configured one by default); its model is never loaded here.
    ``reembed``: rebuild with the configured model and recipe even when the
    store was embedded with another one (the refusal message points here):
    every text is queued again for the new model. SQLite failing on a damaged
    file becomes a StoreError naming the repair. ``database``: write this file
    instead of ``.hookgraph/index.db`` (the MCP server's private working-tree
    copy, see :mod:`hookgraph.sync.overlay`). ``background``: start the
    repository's background embedder when texts are left waiting (never for
    a private copy; ``HOOKGRAPH_NO_BACKGROUND=1`` turns it off everywhere).
    ``snapshots``: committed snapshots (besides the checked-out one, which
    shared mode always asks) that may offer vectors; like the caches, they
    offer vectors only, checked before use (:mod:`hookgraph.embed.adopt`).
    ``defer_offers``: ask neither the caches nor the checked-out snapshot now
    (their check needs the model): every new text is queued and the embedder
    checks and adopts what they offer first (:func:`hookgraph.embed.adopt.adopt_waiting`).
    """
    import apsw

    args = dict(full=full, reembed=reembed, embedder=embedder, progress=progress, lock_timeout=lock_timeout,
                database=database, snapshots=snapshots or [], defer_offers=defer_offers)
    path = database or db_path(root)
    fault = faults.before_writing(path)  # a read-only place or a full disk: say so before any work
    if fault is not None:
        raise StoreError.of(fault)
    created = not path.exists()
    try:
        try:
            report = _sync(root, target, **args)  # type: ignore[arg-type]
        except OSError as exc:
            if exc.errno not in faults.STORAGE_ERRNOS:
                raise
            raise damaged(path, exc) from None
    except apsw.Error as exc:
        error = damaged(path, exc)
        _forget_if_created(path, created, error)
        if not (full or reembed) or not error.movable:
            raise error from None
        # A full rebuild repairs whatever the damage: a file that opened but fails
        # on its pages is moved aside like one that did not open, and the rebuild
        # starts again from an empty database.
        with write_lock(path.parent, timeout=lock_timeout):
            moved = quarantine(path)
        report = _sync(root, target, **args)  # type: ignore[arg-type]
        report.warnings.insert(0, f"{error.problem}: moved it aside to {moved.name} and rebuilt the index")
    except StoreError as exc:
        _forget_if_created(path, created, exc)
        raise
    if database is None:  # the working index stays out of git in every mode (see hookgraph.sync.ignore)
        from hookgraph.sync.ignore import exclude_locally

        exclude_locally(root)
    if (report.pending or report.unchecked) and background and database is None:
        from hookgraph.embed.worker import start_background

        report.background = start_background(root, db_path(root))
    return report


def _forget_if_created(path: Path, created: bool, error: StoreError) -> None:
    """A first index the disk could not take leaves nothing behind (no half file, no -wal).

    Only if it holds nothing: another process's first index, committed
    meanwhile, is never removed.
    """
    if not created or error.cause not in ("no-space", "io-error") or not path.exists():
        return
    try:
        with Store(path, readonly=True) as store:
            if store.file_count():
                return
    except StoreError:
        pass  # not even readable: what this sync began
    remove_database(path)


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
    snapshots: list[VectorSource],
    defer_offers: bool = False,
) -> SyncReport:
    full = full or reembed
    started = time.perf_counter()
    report = SyncReport(commit=target.commit)
    if target.unreadable:  # counted and named, never taken for deleted (their old units stay)
        from hookgraph.sync.target import unreadable_line

        report.skipped["unreadable"] += len(target.unreadable)
        report.warnings.append(unreadable_line(target.unreadable))
    path = database or db_path(root)
    _ensure_dir(path.parent)
    with write_lock(path.parent, timeout=lock_timeout), _open(path, full, report) as store:
        if not full:
            store.check_contents()
            embedder, switched = _model_switch(root, store, embedder, database)
            if switched is not None:  # a teammate's model change, with a snapshot embedded by it: follow it
                full = True
                report.warnings.append(switched)
        stored = {} if full else store.file_map()
        wanted = {p: e for p, e in target.entries.items() if not filters.is_own_database(p)}
        changed = [p for p, e in wanted.items() if stored.get(p) != e.blob]
        deleted = [p for p in stored if p not in wanted]
        report.rebuilt = full
        report.added = sum(1 for p in changed if p not in stored)
        report.modified = len(changed) - report.added
        report.deleted = len(deleted)
        _check_space(path, sum(wanted[p].size or 0 for p in changed), full)
        caches = _caches(root) if database is None else []
        priority = PRIORITY_BULK if (full or not stored) else PRIORITY_INCREMENTAL
        # --reembed asks the model for every vector: no cache and no snapshot is read
        sources = [] if reembed else list(snapshots) if defer_offers else offering_sources(root, caches, snapshots, database)
        rule = no_embed.load_rule(root)
        embed = _VectorFinder(store, embedder, root, Offers(sources), priority, rule)
        text_chunks = filters.text_chunks_wanted(root)
        if not full:  # even with nothing to do: a switched model is reported at once
            embed.check_model()
        rule_changed = bool(stored) and store.get_meta(no_embed.RULE_META) != rule.fingerprint
        static_changed = bool(stored) and (_static_model_changed(store) or _expansion_table_changed(store))
        if not changed and not deleted and not full and not rule_changed and not static_changed:
            if target.kind == "head" and target.commit and freshness.needs_recording(store, target.commit):
                with store.transaction():  # the map equals this commit's tree: say so, it names the text later
                    freshness.record_synced(store, target.commit, stored)
            report.pending = store.pending_count()
            report.unchecked = store.unchecked_count()
            report.seconds = time.perf_counter() - started
            return report
        if full and not reembed and caches:
            _save_vectors(store, caches[0])  # a rebuild takes them back from the cache instead of the model
        bar = progress(len(changed)) if progress else None
        try:
            with store.transaction():
                if full:
                    store.clear_all()
                if reembed:  # the embedder reads no cache for this queue either
                    from hookgraph.embed.queue import NO_CACHE_META

                    store.set_meta(NO_CACHE_META, "1")
                for p in deleted:
                    store.delete_file(p)
                if rule_changed and not full:
                    again = _apply_rule(store, rule)  # files with units the rule now wants embedded
                    changed = sorted(set(changed) | {p for p in again if p in wanted})
                if static_changed and not full:  # every unit's static vector and expansion words from the new tables
                    changed = sorted(set(changed) | (_indexed_paths(store) & set(wanted)))
                empty = full or (not stored and not store.has_units())  # no unit of any path to delete first
                with git.BlobReader(root) as reader:  # on every core for a big sync (hookgraph.sync.parallel)
                    for p, read in read_files(root, target, sorted(changed), wanted, text_chunks, reader):
                        _store_file(store, p, wanted[p], read, embed, report, replace=not empty)
                        if bar:
                            bar.advance()
                embed.ask_sources()
                _write_static_vectors(store, embed.static_texts, embed.static_vectors)
                store.drop_unwanted_pending()
                if priority == PRIORITY_BULK and embed.queued:  # every edge is in now: whoever embeds orders the
                    store.set_meta(order.RANK_META, str(PRIORITY_BULK))  # queue most used first (embed.queue.rank_waiting)
                store.collect_orphan_vectors()
                if defer_offers and embed.queued:
                    from hookgraph.embed.adopt import DEFERRED_META

                    store.set_meta(DEFERRED_META, f"{time.time_ns()}-{os.getpid()}")
                if embed.used or store.get_meta("model_sha256") is None:
                    embed.record_model()
                if target.kind == "head" and target.commit:
                    freshness.record_synced(store, target.commit, store.file_map())
                if full or not stored:  # every file was parsed now (see hookgraph.parse.version)
                    store.set_meta(PARSER_META, parser_fingerprint())
                store.set_meta(no_embed.RULE_META, rule.fingerprint)
                shipped = static_embedding.shipped_sha256()
                if shipped is not None:
                    store.set_meta(STATIC_MODEL_META, shipped)
                expansion_table = expansion.shipped_sha256()
                if expansion_table is not None:
                    store.set_meta(EXPANSION_META, expansion_table)
            crash_guard.note_committed()
        finally:
            if bar:
                bar.close()
        adopted = embed.offers.adopt(store, embed.embedder, report.warnings) if any(embed.offers.offered) \
            or any(s.provider.problem for s in sources) else 0
        close_sources(sources)
        report.queued, report.from_cache = max(0, embed.queued - adopted), embed.from_cache + adopted
        report.split += embed.offers.split
        report.truncated += embed.offers.truncated
        report.pending = store.pending_count()
        report.unchecked = store.unchecked_count()
        if deleted or full:
            report.compacted = _compact_if_shrunk(store)
        if caches and not full and store.get_meta(_SEEDED) != embed.recipe_or_none():
            _save_vectors(store, caches[0])  # once per index: vectors from before the caches existed
    report.seconds = time.perf_counter() - started
    return report


#: Texts the caches and snapshots are asked for at once: a query per file cost a first index of tokio 0.015 s
#: in the one process that writes, for an empty cache; a bound keeps the texts held meanwhile small.
OFFER_BATCH = 1024

#: Compaction rule: VACUUM when at least this share of the file is free pages ...
COMPACT_FREE_SHARE = 0.5
#: ... and they are at least this many bytes. SQLite reuses free pages but never gives them back, so an index
#: that lost most of its units (50,000 removed: still 26.9 MB) stays that big; VACUUM rewrites the
#: file at about 50 MB/s here, so it only runs when it gives back megabytes, and only after a sync deleted.
COMPACT_MIN_BYTES = 4 * 1024 * 1024


def _compact_if_shrunk(store: Store) -> tuple[int, int] | None:
    """VACUUM the store (under the sync's write lock) when most of it is free; ``(bytes before, after)`` or None."""
    page_size, pages, free = store.page_counts()
    if free * page_size < COMPACT_MIN_BYTES or free < pages * COMPACT_FREE_SHARE:
        return None
    store.vacuum()
    return pages * page_size, store.page_counts()[1] * page_size


#: Meta key: the recipe whose vectors this index has copied into the repository cache.
_SEEDED = "repo_cache_seeded"


def _model_switch(root: Path, store: Store, embedder: Embedder | None,
                  database: Path | None) -> tuple[Embedder | None, str | None]:
    """``(embedder, one line)``: the line when the configured model is not the index's but the committed
    snapshot was embedded with it (a teammate switched the model and committed a matching snapshot), else
    None; the embedder made to find out (or ``embedder``), for the sync to use.

    The sync then rebuilds from the blobs and takes the snapshot's vectors for the new model, after the
    usual sampled check: the snapshot's recipe is only a hint, its keys and the check decide what is used.
    """
    from hookgraph.store import snapshot

    path = snapshot.snapshot_path(root)
    if database is not None or not snapshot.is_shared(root) or not path.is_file() \
            or not (store.has_vector_table() or store.pending_count()):
        return embedder, None
    from hookgraph.embed.choice import embedder_for_repo, store_mismatch

    embedder = embedder or embedder_for_repo(root)
    try:
        if store_mismatch(store.get_meta, embedder) is None:
            return embedder, None
        recipe = embedder.recipe
    except Exception:  # noqa: BLE001 - an unreadable model: check_model says so in its own words
        return embedder, None
    from hookgraph.sync.teammate_model import model_change, snapshot_recipe

    if snapshot_recipe(root) != recipe:
        return embedder, None
    by = model_change(root)
    return embedder, (f"the model changed to {embedder.model_name} ({embedder.model_path.name}, sha256 "
                      f"{embedder.model_sha256[:12]}){' in ' + by if by else ''}, and the committed snapshot "
                      f"was embedded with it: adopting its vectors (checked on a sample) instead of the old model's")


def _caches(root: Path) -> list[VectorCache]:
    """The repository's cache, then the user's (see :mod:`hookgraph.store.vector_cache`)."""
    from hookgraph.store.vector_cache import repo_cache, user_cache

    found = [repo_cache(root), user_cache(root)]
    return [c for c in found if c is not None and c.max_bytes > 0]


def _save_vectors(store: Store, cache: VectorCache) -> None:
    """Copy every vector of the index into ``cache`` (once per index, and before a full rebuild)."""
    recipe = store.get_meta("embed_recipe")
    if recipe is None or not store.has_vector_table():
        return
    from hookgraph.store.vector_cache import CachedVector

    dims = store.vector_dims() or 0
    batch: list[CachedVector] = []
    for key, windows, truncated, embedding in store.iter_vectors(unchecked=False):  # only this machine's own
        batch.append(CachedVector(key, dims, windows, truncated, embedding))
        if len(batch) >= 2000:
            cache.put_many(batch)
            batch.clear()
    cache.put_many(batch)
    if cache.problem is None:
        with store.transaction():
            store.set_meta(_SEEDED, recipe)


def _open(path: Path, full: bool, report: SyncReport) -> Store:
    """The store to write; for a full rebuild, an unusable one (garbage, planted SQL,
    a future schema) is moved aside first, so ``index --full`` always repairs.
    A sound file that cannot be written (read-only, full disk, locked) is never moved."""
    try:
        return Store(path, create=True)
    except StoreError as exc:
        if not full or not exc.movable:
            raise
        moved = quarantine(path)
        report.warnings.append(f"{exc.problem}: moved it aside to {moved.name} and rebuilt the index")
        return Store(path, create=True)


def _check_space(path: Path, changed_bytes: int, full: bool) -> None:
    """Refuse, before anything is parsed, embedded or written, a sync the disk has no room for."""
    size = path.stat().st_size if full and path.exists() else 0
    fault = faults.space_fault(path, faults.growth_estimate(changed_bytes, size, full=full))
    if fault is not None:
        raise StoreError.of(fault)


def _ensure_dir(directory: Path) -> None:
    """Create ``.hookgraph/`` laid out for the repository's mode.

    Default mode: a ``.gitignore`` keeps it all out of git. Shared mode (see
    :mod:`hookgraph.sync.shared`): its ``.gitignore``/``.gitattributes``. A
    missing index is built from the blobs; the committed snapshot only offers
    vectors (:mod:`hookgraph.embed.adopt`).
    """
    from hookgraph.store.snapshot import prepare_directory

    prepare_directory(directory)


def _store_file(store: Store, path: str, entry: git.Entry, read: FileRead, embed: _VectorFinder,
                report: SyncReport, *, replace: bool = True) -> None:
    """Write one file as :func:`hookgraph.sync.parallel.read_file` read it: its units, or why it is skipped.

    ``replace``: its old units go first (False in a store that holds none: a first index's four lookups a
    file found nothing, tokio's 0.01-0.02 s in the one process that writes)."""
    if replace:
        store.delete_units_of(path)
    if read.skipped is not None:
        store.upsert_file(path, entry.blob, read.language, f"skipped:{read.skipped}", 0, 0)
        report.skipped[read.skipped] += 1
        return
    parsed = read.parsed
    if parsed is None:  # text of no known format, with [index] unknown_text = "skip"
        store.upsert_file(path, entry.blob, read.language, "skipped:unknown-language", 0, 0)
        return
    truncated, split = _write_units(store, read, embed)
    report.units_written += len(parsed.units)
    report.truncated += truncated
    report.split += split
    status = "indexed:fallback" if parsed.fallback else "indexed:partial" if parsed.had_errors else "indexed"
    store.upsert_file(path, entry.blob, parsed.language, status, len(parsed.units), truncated)


def _apply_rule(store: Store, rule: no_embed.NoEmbedRule) -> set[str]:
    """The no-embed rule changed since the units were written: bring them in line without the model.

    A queued unit the rule now excludes stops waiting (its text leaves the
    queue with ``drop_unwanted_pending``); a unit without a vector that the
    rule now wants cannot be queued without its composed text, so its file
    is returned to be parsed again. Vectors already there stay.
    """
    again: set[str] = set()
    stop_waiting: list[int] = []
    for uid, path, kind, start, end, waiting in store.units_lacking_vector():
        excluded = rule.reason(path, kind, start, end) is not None
        if waiting and excluded:
            stop_waiting.append(uid)
        elif not waiting and not excluded:
            again.add(path)
    store.stop_waiting(stop_waiting)
    return again


def _write_units(store: Store, read: FileRead, embed: _VectorFinder) -> tuple[int, int]:
    """Insert the file's units (each with its vector, or queued for one) and edges; returns units truncated and split.

    A unit the no-embed rule excludes is never queued: it takes a vector
    only where one exists already, else it has none (found by words and graph).
    The units' texts and full-text columns come composed with the parse
    (:class:`hookgraph.sync.parallel.FileRead`); all of a file's rows go in
    with one statement per table.
    """
    parsed = read.parsed
    assert parsed is not None
    texts = read.texts if len(read.texts) == len(parsed.units) else compose.embed_texts(parsed)
    fts = read.fts if len(read.fts) == len(parsed.units) else compose.fts_rows(parsed.units)
    embeddable = [embed.rule.reason(u.path, u.kind, u.start_line, u.end_line) is None for u in parsed.units]
    priorities = [order.queue_priority(embed.priority, u) for u in parsed.units]
    vector_ids, hashes, truncated, split = embed.vectors_for(texts, [u.language for u in parsed.units], embeddable,
                                                             priorities)
    ids = store.insert_units(
        [
            (unit.path, unit.kind, unit.name, unit.qualname, unit.parent, unit.start_line, unit.end_line,
             unit.language, unit.signature, unit.docstring, vector_id,
             None if vector_id is not None or not wanted else text_hash)
            for unit, vector_id, text_hash, wanted in zip(parsed.units, vector_ids, hashes, embeddable)
        ],
        fts,
    )
    unit_ids: dict[str, int] = {}
    for unit, uid in zip(parsed.units, ids):
        unit_ids.setdefault(unit.qualname, uid)
    file_unit = unit_ids.get(parsed.path)
    edges = read.edges or [(e.source, e.kind, e.target, e.target_full or e.target, e.line) for e in parsed.edges]
    rows = []
    for source_name, kind, target, target_full, line in edges:
        source = unit_ids.get(source_name, file_unit)
        if source is None:
            continue
        rows.append((source, kind, target, target_full, line))
    store.insert_edges(rows)
    if len(read.static) == len(ids):  # computed by the worker that parsed the file
        embed.static_vectors.extend(zip(ids, read.static))
    else:
        embed.static_texts.extend(zip(ids, texts))
    return truncated, split


def _write_static_vectors(store: Store, rows: list[tuple[int, str]], ready: list[tuple[int, bytes | None]]) -> None:
    """Each unit's static vector, from the text it is (or would be) embedded as: no model, no queue.

    ``ready``: the vectors the parse workers computed; ``rows``: the texts of units parsed in-process,
    embedded once for the whole sync, after its files: many go through numpy together, a hook's few through
    the standard library (:meth:`hookgraph.embed.static.StaticModel.embed_many`).
    """
    model = static_embedding.shipped_model() if rows else None
    if model is not None:
        ready = ready + list(zip((uid for uid, _ in rows), model.embed_many([text for _, text in rows])))
    store.insert_static_vectors((uid, vector) for uid, vector in ready if vector is not None)


def _static_model_changed(store: Store) -> bool:
    """The store's static vectors came from another word table, or it has units and none (a store from before).

    A store whose first sync was cut short (a parser crash left one file out) has no table recorded yet and no
    units either: nothing to redo, and the file left out stays out.
    """
    shipped = static_embedding.shipped_sha256()
    if shipped is None:
        return False
    recorded = store.get_meta(STATIC_MODEL_META)
    if recorded is None:
        return store.has_units() and not store.has_static_vectors()
    return recorded != shipped


def _expansion_table_changed(store: Store) -> bool:
    """The store's expansion words came from another table, or from none (a store from before schema 8)."""
    shipped = expansion.shipped_sha256()
    return shipped is not None and store.has_units() and store.get_meta(EXPANSION_META) != shipped


def _indexed_paths(store: Store) -> set[str]:
    """Paths whose units are in the store (a file skipped for a reason stays skipped)."""
    return set(store.paths_with_status("indexed"))


class _VectorFinder:
    """Finds each unit's vector without the model, and queues the texts nobody has embedded yet.

    In order: the index's own vectors, its revive cache (a revert, a file
    that came back); a text found in neither is queued for the background
    embedder, and what the caches and snapshots offer for it is collected
    in ``offers``, to be checked and adopted after the sync's transaction
    (:mod:`hookgraph.embed.adopt`). The embedder is only asked for its
    identity (recipe, dimensions), read from the GGUF header, until then.
    """

    def __init__(self, store: Store, embedder: Embedder | None, root: Path | None,
                 offers: Offers, priority: int, rule: no_embed.NoEmbedRule = no_embed.DEFAULT) -> None:
        self.store = store
        self.rule = rule
        self._embedder = embedder
        self._root = root
        self.offers = offers
        self.priority = priority
        self.queued = 0
        self.from_cache = 0
        #: ``(unit id, composed text)`` of the units parsed in-process in this sync, for their static vectors.
        self.static_texts: list[tuple[int, str]] = []
        #: ``(unit id, static vector)`` of units whose parse worker computed it.
        self.static_vectors: list[tuple[int, bytes | None]] = []
        #: Whether any text was looked up (the model's identity was needed).
        self.used = False
        #: The queue's largest ``seq`` so far in this sync (None: not looked up yet); only this sync writes it.
        self._last_seq: int | None = None
        #: Whether the revive cache holds anything (None: not looked up yet). Only reviving takes rows out
        #: and only ``collect_orphan_vectors``, after the files are written, puts them in: empty (a first
        #: index) stays empty, and 58,000 lookups of Django's first index are saved.
        self._cache_rows: bool | None = None
        #: Whether the index holds any vector (None: not looked up yet). In a sync only reviving adds one: an
        #: index that starts without (a first index, ``--full``) is not asked for each file's texts.
        self._has_vectors: bool | None = None
        self._recipe: str | None = None
        #: ``{text hash: (text, language)}`` found nowhere in the index and not asked of the sources yet.
        self._unasked: dict[bytes, tuple[str, str]] = {}

    def ask_sources(self) -> None:
        """Ask the caches and snapshots for the texts collected since last asked (see :data:`OFFER_BATCH`);
        the sync asks once more after its last file."""
        if not self._unasked:
            return
        keys = list(self._unasked)
        self.offers.collect({key: i for i, key in enumerate(keys)}, [self._unasked[k][0] for k in keys],
                            [self._unasked[k][1] for k in keys], self.embedder.dims)
        self._unasked.clear()

    def _known(self, hashes: list[bytes]) -> dict[bytes, tuple[int, int, bool]]:
        if self._has_vectors is None:
            self._has_vectors = self.store.has_vectors()
        return self.store.vector_info(hashes) if self._has_vectors else {}

    def _revivable(self) -> bool:
        if self._cache_rows is None:
            self._cache_rows = self.store.has_vector_cache_rows()
        return self._cache_rows

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            from hookgraph.embed.choice import embedder_for_repo

            self._embedder = embedder_for_repo(self._root)
        return self._embedder

    def recipe_or_none(self) -> str | None:
        try:
            return self.embedder.recipe
        except Exception:  # noqa: BLE001 - an unreadable model: nothing to seed with
            return None

    def check_model(self) -> None:
        """Refuse to mix vectors of two models (or two recipes of one model) in one store."""
        from hookgraph.embed.choice import store_mismatch

        problem = store_mismatch(self.store.get_meta, self.embedder)
        if problem is None:
            return
        if not self.store.has_vector_table() and not self.store.pending_count():
            return  # nothing embedded or queued under the old recipe: the new one simply takes over
        from hookgraph.sync.teammate_model import explain_mismatch

        raise SyncError(explain_mismatch(self._root, problem))

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

    def vectors_for(self, texts: list[str], languages: list[str], embeddable: list[bool] | None = None,
                    priorities: list[int] | None = None) -> tuple[list[int | None], list[bytes], int, int]:
        """Per text: its vector id (None while queued, or never to be embedded) and key; and how many are
        truncated, split.

        The key is the recipe (model SHA-256, document prefix, window size)
        plus the text, so a known text needs no model at all. A text that is
        not ``embeddable`` (the no-embed rule) takes a vector found without
        the model, and is never queued. ``priorities``: each text's place in
        the queue (:mod:`hookgraph.embed.order`; the highest of its units').
        """
        self.used = True
        if self._recipe is None:  # a hash of the model's identity: once a sync, not once a file
            self._recipe = self.embedder.recipe
        hashes = [compose.text_hash(self._recipe, t) for t in texts]
        known = self._known(hashes)
        missing: dict[bytes, int] = {}
        for i, text_hash in enumerate(hashes):
            if text_hash in known or text_hash in missing:
                continue
            if self._revivable() and self.store.revive_vector(text_hash) is not None:
                self._has_vectors = True
                known.update(self.store.vector_info([text_hash]))
            else:
                missing[text_hash] = i
        if missing and self.offers.sources:  # offered vectors wait for the sample check (embed.adopt)
            for text_hash, i in missing.items():
                self._unasked.setdefault(text_hash, (texts[i], languages[i]))
            if len(self._unasked) >= OFFER_BATCH:
                self.ask_sources()
        wanted = None if embeddable is None else {hashes[i] for i, yes in enumerate(embeddable) if yes}
        queue = {h: i for h, i in missing.items() if wanted is None or h in wanted}
        if queue:
            by_priority: dict[int, list[tuple[bytes, str, str]]] = {}
            if priorities is None:
                by_priority[self.priority * order.SPAN] = [(h, languages[i], texts[i]) for h, i in queue.items()]
            else:
                best: dict[bytes, int] = {}
                for i, text_hash in enumerate(hashes):
                    if text_hash in queue and (embeddable is None or embeddable[i]):
                        best[text_hash] = max(best.get(text_hash, priorities[i]), priorities[i])
                for text_hash, i in queue.items():
                    by_priority.setdefault(best[text_hash], []).append((text_hash, languages[i], texts[i]))
            for priority, rows in sorted(by_priority.items(), reverse=True):
                added, self._last_seq = self.store.queue_texts(rows, priority, last_seq=self._last_seq)
                self.queued += added
        ids: list[int | None] = []
        truncated = split = 0
        for text_hash in hashes:
            if text_hash in known:
                vid, windows, cut = known[text_hash]
                ids.append(vid)
                truncated += int(cut)
                split += int(windows > 1)
            else:
                ids.append(None)
        return ids, hashes, truncated, split
