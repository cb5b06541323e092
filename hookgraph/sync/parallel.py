"""Read and parse a sync's files on every core, and hand them back in order.

A first index (or a checkout that changes thousands of files) spends most of
its time in tree-sitter and in the Python that walks its trees, per file and
independent. Forked processes run that on every core; threads, measured
beside them (``benchmarks/parallel_parse_bench.py``), cost no more CPU and
gained as much under load, but a crash in one of several threads cannot be
told apart by the one breadcrumb, and the Python half holds the GIL. Each
worker reads its blobs through its own ``git cat-file --batch`` and returns
what :func:`read_file` gives, a picklable :class:`FileRead`; the sync stores
them in path order, one transaction as before, so the index is the same unit
for unit whichever way it was parsed.

Small syncs (a hook's few files) stay in-process: forking workers costs more
than it saves below :data:`MIN_FILES` files, unless the files are big
(:data:`MIN_BYTES`; the crossovers measured in the benchmarks).
``HOOKGRAPH_PARSE_WORKERS=N`` sets the number of workers (1: never fork);
the default is one per core.

Crash isolation is the one :mod:`hookgraph.sync.crash_guard` gives: a
grammar that kills a worker breaks the pool, and the files not handed back
yet are parsed in-process, one by one, with the breadcrumb noted - so the
file that crashed crashes the sync as it always did, and the guard leaves
exactly that file out and runs the sync again.
"""

from __future__ import annotations

import os
import signal
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # concurrent.futures and multiprocessing only load for a big sync: a hook never pays
    from concurrent.futures import Executor, Future

    from hookgraph.git import BlobReader, Entry
    from hookgraph.parse.units import ParsedFile
    from hookgraph.sync.target import Target

__all__ = ["FileRead", "MIN_BYTES", "MIN_FILES", "chunk_files", "read_file", "read_files", "workers_wanted"]

#: Files below which a sync parses in-process. Forking, a ``git cat-file`` per worker and pickling the
#: units back cost about 0.04 s of CPU plus 13% (benchmarks/RESULTS.md, "Parsing on every core", tokio):
#: on two idle cores the workers win from about 100 files, and a hook rarely changes that many.
MIN_FILES = 128
#: Bytes of blobs from which a sync parses on every core whatever its file count: since each unit also gets its
#: static vector and expansion words in the worker, a small repository of big files gains too (first index,
#: 2 cores: aiohttp's 64 files, 0.9 MB, 0.64 -> 0.52 s; fmtlib's 16 files, 0.6 MB, 0.77 -> 0.65 s; sinatra's
#: 10 files, 0.2 MB, 0.38 s either way; benchmarks/RESULTS.md, "Workers for big files").
MIN_BYTES = 256 * 1024
#: Files per task sent to a worker: few enough to balance uneven files, enough to keep the pipes quiet.
CHUNK_FILES = 8
#: Tasks in flight per worker: bounds the parsed files held in memory while the store catches up.
IN_FLIGHT_PER_WORKER = 4
ENV_WORKERS = "HOOKGRAPH_PARSE_WORKERS"


@dataclass
class FileRead:
    """One file read and parsed, nothing stored yet."""

    #: Why it is not indexed (``files.status`` is ``skipped:<reason>``), or None.
    skipped: str | None
    language: str | None
    #: None when skipped, or when text of no known format is not indexed (``[index] unknown_text = "skip"``).
    parsed: ParsedFile | None
    #: Per unit of ``parsed``, in order: the text it is embedded as (:func:`hookgraph.parse.compose.embed_texts`)
    #: and its full-text columns and expansion words (:func:`~hookgraph.parse.compose.fts_columns`). Composed where the file was
    #: parsed: splitting every unit's words was most of a first index's time in the one process that writes.
    texts: list[str] = field(default_factory=list)
    fts: list[tuple[str, str, str, str, str, str, str]] = field(default_factory=list)
    #: ``parsed``'s edges as ``(source qualname, kind, target, target_full, line)`` (``parsed.edges`` is then
    #: empty): plain tuples cross the pipe from a worker at half the pickling cost of 100,000s of objects.
    edges: list[tuple[str, str, str, str, int]] = field(default_factory=list)
    #: Per unit of ``parsed``: its static vector (:mod:`hookgraph.embed.static`), computed in the worker that
    #: parsed it; empty when parsed in-process (the sync then embeds every unit's text in one batch at the end).
    static: list[bytes | None] = field(default_factory=list)


def read_file(reader: BlobReader, target: Target, path: str, entry: Entry, text_chunks: bool,
              expand: bool = True) -> FileRead:
    """Decide whether ``path`` is indexed and parse it: what needs no read (vendored, too large, a symlink)
    is decided first; the language after reading, since the bytes decide a ``.h`` or a ``#!`` script.
    ``expand=False``: the units' expansion words are left for :func:`_with_expansions` (a chunk's at once)."""
    from hookgraph import git
    from hookgraph.parse import compose, filters, parse_file
    from hookgraph.parse.languages import language_for, language_for_path
    from hookgraph.sync import crash_guard

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
            from hookgraph.parse.encoding import to_utf8

            data = to_utf8(data)  # a BOM or a coding cookie: UTF-16 is text, Latin-1 names stay whole
            reason = filters.content_skip_reason(data)
    if reason is not None or data is None:
        language = language_for(path, data) if data is not None else language_for_path(path)
        return FileRead(reason or "unreadable", language, None)
    crash_guard.note(path, entry.blob)  # a grammar that crashes here is told by name (sync.crash_guard)
    parsed = parse_file(path, data, text_chunks=text_chunks)
    crash_guard.note(None)
    if parsed is None:  # text of no known format, with [index] unknown_text = "skip"
        return FileRead(None, language_for(path, data), None)
    texts = compose.embed_texts(parsed)  # reads the calls off parsed.edges, before they become tuples
    edges = [(e.source, e.kind, e.target, e.target_full or e.target, e.line) for e in parsed.edges]
    return FileRead(None, parsed.language, replace(parsed, edges=[]), texts,
                    compose.fts_rows(parsed.units, expand), edges)


def workers_wanted(files: int, size: int | None = None) -> int:
    """How many processes parse ``files`` files of ``size`` bytes in all (None: not known): one per core for a
    big sync, 1 (in-process) for a small one or a single core; ``HOOKGRAPH_PARSE_WORKERS`` wins over both (not
    a number: 1)."""
    if not hasattr(os, "fork"):
        return 1
    configured = os.environ.get(ENV_WORKERS, "").strip()
    if configured:
        try:
            count = max(1, int(configured))
        except ValueError:
            count = 1
    elif files < MIN_FILES and (size is None or size < MIN_BYTES):
        return 1
    else:
        count = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(count, -(-files // CHUNK_FILES)))


def chunk_files(files: int, workers: int) -> int:
    """Files per task: :data:`CHUNK_FILES`, fewer for a sync of few files, so that each worker gets a few tasks
    to balance (16 big files in two tasks of 8 left one worker idle while the other parsed the biggest)."""
    return max(1, min(CHUNK_FILES, -(-files // (workers * IN_FLIGHT_PER_WORKER))))


def _known_size(paths: list[str], entries: dict[str, Entry]) -> int | None:
    """The paths' blob bytes in all, or None where a size is not known (the git index lists none)."""
    total = 0
    for path in paths:
        size = entries[path].size
        if size is None:
            return None
        total += size
    return total


# -- the workers ------------------------------------------------------------------------------------

#: What a worker needs, set before the pool forks (inherited, never pickled).
_job: tuple[Path, Target, dict[str, Entry], bool] | None = None
_reader: BlobReader | None = None


def _start_worker() -> None:
    """In a new worker: Ctrl-C is the sync's to answer, and the breadcrumb is the sync's alone."""
    from hookgraph.sync import crash_guard

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    crash_guard._breadcrumb = None  # a worker's crash breaks the pool; the sync then notes and parses itself
    _die_with_parent()


def _die_with_parent() -> None:
    """Linux: a worker whose sync was killed (SIGKILL, a crash) goes too, instead of waiting forever for work."""
    parent = os.getppid()
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the sync died before the request took effect
        os._exit(1)


def _read_chunk(paths: list[str]) -> list[FileRead]:
    from hookgraph.git import BlobReader

    global _reader
    assert _job is not None
    root, target, entries, text_chunks = _job
    if _reader is None:
        _reader = BlobReader(root)
    reads = [read_file(_reader, target, p, entries[p], text_chunks, expand=False) for p in paths]
    return _with_static_vectors(_with_expansions(reads))


def _load_static_model() -> None:
    """The static table, numpy and the expansion table's arrays, loaded once before the workers fork: each worker
    loading its own cost a first index 0.1-0.2 CPU seconds a worker (the table is a mapped file, shared, never
    copied)."""
    from hookgraph.embed.static import shipped_model

    from hookgraph.parse.expansion import shipped_table

    model = shipped_model()
    if model is not None:
        model.arrays  # noqa: B018 - imports numpy and maps the rows
    table = shipped_table()
    if table is not None:
        table.arrays  # noqa: B018 - every line parsed once, shared by the workers


def _with_expansions(reads: list[FileRead]) -> list[FileRead]:
    """The expansion words of a chunk's units, found together (:func:`hookgraph.parse.compose.with_expansions`):
    one file's few units at a time, a first index spent a tenth more of its time on them than in one batch."""
    from hookgraph.parse import compose

    parsed = [read for read in reads if read.parsed is not None]
    units = [unit for read in parsed for unit in read.parsed.units]  # type: ignore[union-attr]
    rows = iter(compose.with_expansions(units, [row for read in parsed for row in read.fts]))
    for read in parsed:
        read.fts = [next(rows) for _ in read.fts]
    return reads


def _with_static_vectors(reads: list[FileRead]) -> list[FileRead]:
    """The chunk's static vectors, computed here: on every core, beside the parse that composed the texts
    (in the one process that writes, they were a third of a first index's time; benchmarks/RESULTS.md)."""
    from hookgraph.embed.static import shipped_model

    model = shipped_model()
    texts = [text for read in reads if read.parsed is not None for text in read.texts]
    if model is None or not texts:
        return reads
    vectors = iter(model.embed_many(texts, batched=True))
    for read in reads:
        if read.parsed is not None:
            read.static = [next(vectors) for _ in read.texts]
    return reads


def read_files(
    root: Path,
    target: Target,
    paths: list[str],
    entries: dict[str, Entry],
    text_chunks: bool,
    reader: BlobReader,
    *,
    workers: int | None = None,
    threads: bool = False,
) -> Iterator[tuple[str, FileRead]]:
    """``(path, FileRead)`` for every path, in the order given; in ``workers`` processes when it pays.

    ``reader`` serves the in-process reads. ``threads``: a thread pool
    instead (measured against processes in the benchmark; not used otherwise).
    """
    count = workers_wanted(len(paths), _known_size(paths, entries)) if workers is None else workers
    if count <= 1:
        for start in range(0, len(paths), CHUNK_FILES):
            chunk = paths[start:start + CHUNK_FILES]
            reads = _with_expansions([read_file(reader, target, p, entries[p], text_chunks, expand=False) for p in chunk])
            yield from zip(chunk, reads)
        return
    from concurrent.futures.process import BrokenProcessPool

    global _job
    _job = (root, target, entries, text_chunks)
    _load_static_model()
    size = chunk_files(len(paths), count)
    chunks = [paths[i:i + size] for i in range(0, len(paths), size)]
    done = 0  # chunks handed back
    try:
        with _pool(count, threads) as pool:
            pending: deque[Future[list[FileRead]]] = deque()
            submitted = 0
            while done < len(chunks):
                while submitted < len(chunks) and len(pending) < count * IN_FLIGHT_PER_WORKER:
                    pending.append(pool.submit(_threaded_chunk if threads else _read_chunk, chunks[submitted]))
                    submitted += 1
                reads = pending.popleft().result()
                yield from zip(chunks[done], reads)
                done += 1
    except BrokenProcessPool:
        # A worker died (a grammar crashed on some file, or it was killed): parse the rest here, where
        # the crash guard sees which file it is.
        for p in (p for chunk in chunks[done:] for p in chunk):
            yield p, read_file(reader, target, p, entries[p], text_chunks)
    finally:
        _job = None
        for thread_reader in _thread_readers.values():
            thread_reader.close()
        _thread_readers.clear()


def _pool(count: int, threads: bool) -> Executor:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

    if threads:
        return ThreadPoolExecutor(count)
    return ProcessPoolExecutor(count, mp_context=multiprocessing.get_context("fork"), initializer=_start_worker)


_thread_readers: dict[int, BlobReader] = {}


def _threaded_chunk(paths: list[str]) -> list[FileRead]:
    """:func:`_read_chunk` for a thread: one ``git cat-file`` per thread."""
    import threading

    from hookgraph.git import BlobReader

    assert _job is not None
    root, target, entries, text_chunks = _job
    reader = _thread_readers.setdefault(threading.get_ident(), BlobReader(root))
    return _with_static_vectors([read_file(reader, target, p, entries[p], text_chunks) for p in paths])

