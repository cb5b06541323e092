"""The ``.hookgraph/`` directory and the committed snapshot as files: layout, vectors offered, export.

Shared mode (see :mod:`hookgraph.sync.shared` for the hooks and merge driver
that use these) commits ``.hookgraph/shared.db``, the working index's vectors
by text key (:mod:`hookgraph.store.vector_file`), with the code. This module
knows only files and stores: where they live, how a snapshot offers its
vectors by text key (:class:`SnapshotVectors`; an older hookgraph's SQLite
snapshot too, whose facts are never read), and how a snapshot is written. It never syncs (that would import the sync, which
imports this): the one-way flow is sync -> store.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, cast

import apsw

from hookgraph import config, git
from hookgraph.store import vector_file
from hookgraph.store import (
    DB_DIRNAME,
    DB_FILENAME,
    SchemaUpgradeNeeded,
    Store,
    StoreError,
    check_no_links,
    db_path,
)

if TYPE_CHECKING:
    from hookgraph.store.vector_cache import CachedVector

CONFIG_FILE = "config.toml"
SNAPSHOT_FILE = "shared.db"
#: The merge driver .gitattributes names for the snapshot (:mod:`hookgraph.sync.shared` defines it in git config).
MERGE_DRIVER = "hookgraph"

GITIGNORE_DEFAULT = "# hookgraph's local index; see `hookgraph install --shared` to commit it\n*\n"
GITIGNORE_SHARED = (
    "# hookgraph shared mode: shared.db (the committed snapshot) and these settings are\n"
    "# tracked; the working index (index.db), its WAL and the lock stay local.\n"
    "*\n"
    "!.gitignore\n"
    "!.gitattributes\n"
    f"!{CONFIG_FILE}\n"
    f"!{SNAPSHOT_FILE}\n"
)
GITATTRIBUTES = (
    "# hookgraph: the snapshot is binary; its merge driver never leaves a conflict (see hookgraph.sync.shared)\n"
    f"{SNAPSHOT_FILE} binary merge={MERGE_DRIVER}\n"
)
CONFIG_TEMPLATE = (
    "# hookgraph settings for this repository (committed).\n"
    "# shared = true: commit .hookgraph/shared.db with the code (see `hookgraph install --shared`).\n"
)

#: Files ``pre-commit`` stages in shared mode, relative to the repo root.
TRACKED = tuple(f"{DB_DIRNAME}/{name}" for name in (SNAPSHOT_FILE, CONFIG_FILE, ".gitignore", ".gitattributes"))


# -- configuration --------------------------------------------------------------


def snapshot_path(root: Path) -> Path:
    return root / DB_DIRNAME / SNAPSHOT_FILE


def config_path(root: Path) -> Path:
    return root / DB_DIRNAME / CONFIG_FILE


def _shared_in(directory: Path) -> bool:
    if directory.is_symlink() or (directory / CONFIG_FILE).is_symlink():
        return False  # a planted link: never read through it
    try:
        return config.load_file(directory / CONFIG_FILE).get("shared") is True
    except config.ConfigError:
        return False  # unreadable settings: default mode (model_choice reports the file)


def is_shared(root: Path) -> bool:
    """Whether ``.hookgraph/config.toml`` says ``shared = true``."""
    return _shared_in(root / DB_DIRNAME)


def write_shared_setting(root: Path, on: bool) -> None:
    """Set the top-level ``shared = true|false`` in config.toml, keeping any other settings.

    :func:`hookgraph.config.set_value` edits the line in place (a ``shared``
    key inside some table is not the setting) and refuses to leave a file it
    cannot read back: a broken config.toml raises ``ConfigError`` naming it.
    """
    path = config_path(root)
    if not os.path.lexists(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(CONFIG_TEMPLATE, encoding="utf-8")
    config.load(root)  # a file that is not valid TOML: say so rather than write around it
    config.set_value(root, None, "shared", on)


# -- the .hookgraph/ directory ----------------------------------------------------


def prepare_directory(directory: Path) -> None:
    """Create ``.hookgraph/`` for the repository's mode; called by every sync.

    Default mode: a ``.gitignore`` with ``*`` keeps everything local. Shared
    mode: the shared ``.gitignore`` and ``.gitattributes``. A missing working
    index is never a copy of the committed snapshot: a snapshot is a source
    of vectors, never of facts (:mod:`hookgraph.embed.adopt`), so the sync
    builds it from the blobs.
    """
    check_no_links(directory / DB_FILENAME)  # a symlinked .hookgraph/ would make us write elsewhere
    directory.mkdir(parents=True, exist_ok=True)
    shared = _shared_in(directory)
    ignore = directory / ".gitignore"
    if not os.path.lexists(ignore):  # lexists: never write through a (dangling) symlink
        ignore.write_text(GITIGNORE_SHARED if shared else GITIGNORE_DEFAULT)
    if shared:
        attributes = directory / ".gitattributes"
        if not os.path.lexists(attributes):
            attributes.write_text(GITATTRIBUTES)


def write_layout(root: Path, shared: bool) -> None:
    """(Re)write ``.gitignore``/``.gitattributes`` for the mode (install and uninstall)."""
    directory = root / DB_DIRNAME
    check_no_links(directory / DB_FILENAME)
    directory.mkdir(parents=True, exist_ok=True)
    for name in (".gitignore", ".gitattributes"):
        if (directory / name).is_symlink():  # replace a link, never write through it
            (directory / name).unlink()
    (directory / ".gitignore").write_text(GITIGNORE_SHARED if shared else GITIGNORE_DEFAULT)
    attributes = directory / ".gitattributes"
    if shared:
        attributes.write_text(GITATTRIBUTES)
    elif attributes.exists():
        attributes.unlink()


def snapshot_advice(problem: StoreError, snap: Path, root: Path, *, reading: bool, name: str | None = None) -> str:
    """One line: why the committed snapshot is not used, and what to do (it is not the working index)."""
    shown = name or (str(snap.relative_to(root)) if snap.is_relative_to(root) else str(snap))
    reason = problem.problem.replace(str(snap), "").strip() or problem.cause
    if reason.startswith("is a symlink"):
        reason = "is a symlink (committed by someone?); hookgraph never follows links"
    what = f"the committed snapshot {shown} {reason}"
    if not reading:
        return f"ignored the committed snapshot {shown}: it {reason}; the index is built from the source instead"
    if problem.cause == "newer-schema":
        return f"{what}: upgrade hookgraph, or run `hookgraph index` to build the index from the source"
    return f"{what}: run `hookgraph index` to build the index from the source (your next commit replaces the snapshot)"


def renamed(exc: StoreError, old: Path, new: Path | str) -> StoreError:
    """``exc`` about a temporary copy, told about the file it is a copy of."""
    return type(exc)(str(exc).replace(str(old), str(new)), cause=exc.cause,
                     problem=exc.problem.replace(str(old), str(new)))


# -- snapshots as vector sources ----------------------------------------------------


@contextmanager
def snapshot_at(root: Path, rev: str) -> Iterator[Path | None]:
    """The snapshot committed at ``rev`` as a temporary file (None if there is none)."""
    spec = f"{rev}:{DB_DIRNAME}/{SNAPSHOT_FILE}"
    if not git.run(["rev-parse", "--verify", "-q", spec], root, check=False).strip():
        yield None
        return
    import subprocess

    fd, name = tempfile.mkstemp(prefix="hookgraph-snapshot-", suffix=".db")
    try:
        with os.fdopen(fd, "wb") as f:  # streamed: a committed snapshot may be large (1 GB of zeros, say)
            proc = subprocess.run(["git", "cat-file", "blob", spec], cwd=root, stdout=f, stderr=subprocess.PIPE)
        if proc.returncode != 0:
            raise git.GitError(f"git cat-file failed: {proc.stderr.decode('utf-8', 'replace').strip()}")
        yield Path(name)
    finally:
        _remove_with_sidecars(name)


def _remove_with_sidecars(name: str) -> None:
    """Delete a temporary database and whatever journal SQLite left beside it."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.unlink(name + suffix)
        except FileNotFoundError:
            pass


@contextmanager
def current_schema(path: Path) -> Iterator[Path]:
    """``path`` itself, or a migrated temporary copy when an older hookgraph wrote it.

    A snapshot committed before an upgrade stays useful (its vectors still
    save the embedding) and the committed file is never written. The copy is
    checked like any store before it is migrated: planted SQL is refused, not
    upgraded. Other problems raise :class:`StoreError` as opening would.
    """
    try:
        with Store(path, readonly=True):
            pass
    except SchemaUpgradeNeeded:
        pass
    else:
        yield path
        return
    fd, name = tempfile.mkstemp(prefix="hookgraph-upgrade-", suffix=".db")
    try:
        with os.fdopen(fd, "wb") as out, open(path, "rb") as src:
            shutil.copyfileobj(src, out, 1 << 20)
        try:
            Store(Path(name)).close()  # opening it read-write migrates it
        except StoreError as exc:  # say it of the snapshot: the temporary copy is nobody's business
            raise renamed(exc, Path(name), path) from None
        yield Path(name)
    finally:
        _remove_with_sidecars(name)


class SnapshotVectors:
    """A committed snapshot read as a source of vectors by text key, and of nothing else.

    Its files, units, text, line ranges and edges are never read: a
    teammate's snapshot could say anything there, and the sync derives all of
    them from the blobs. What it offers here is checked by the sync against
    the local model before any of it is used (:mod:`hookgraph.embed.check`).
    Opened on first use (most syncs find every text in the index); an
    unreadable or untrusted file offers nothing, and ``problem`` says why.
    """

    def __init__(self, path: Path, label: str, root: Path | None = None) -> None:
        self.path = path
        #: The work tree, to refuse a snapshot naming paths through its symlinks (see Store.check_contents).
        self.root = root
        #: How messages name it: the path and the commit that brought it.
        self.label = label
        self.problem: str | None = None
        self._stack: ExitStack | None = None
        self._store: Store | None = None
        #: The file's contents when it is a vector file (the format written now; an older snapshot is SQLite).
        self._file: vector_file.VectorFile | None = None

    def _read_file(self) -> vector_file.VectorFile | None:
        """The vector file's contents (None when the snapshot is an older SQLite one, or broken: ``problem``)."""
        if self._file is not None or self.problem is not None:
            return self._file
        if self.path.is_symlink() or not vector_file.is_vector_file(self.path):
            return None
        try:
            self._file = vector_file.read(self.path)
        except vector_file.VectorFileError as exc:
            self.problem = str(exc)
        except OSError as exc:
            self.problem = f"cannot be read ({exc.strerror or exc})"
        return self._file

    def _open(self) -> Store | None:
        if self._store is not None or self.problem is not None:
            return self._store
        stack = ExitStack()
        try:
            readable = stack.enter_context(current_schema(self.path))
            store = stack.enter_context(Store(readable, readonly=True))
            store.check_contents(self.root)  # planted paths are never read, but they tell of a forgery
        except StoreError as exc:
            stack.close()
            self.problem = exc.problem.replace(str(self.path), "").strip(" :") or exc.cause
            return None
        except OSError as exc:
            stack.close()
            self.problem = f"cannot be read ({exc.strerror or exc})"
            return None
        self._stack, self._store = stack, store
        return store

    def recipe(self) -> str | None:
        """The embedding recipe the snapshot says it was embedded with (a hint only: keys and the check decide)."""
        contents = self._read_file()
        if contents is not None or self.problem is not None:
            return contents.recipe if contents is not None else None
        store = self._open()
        try:
            return store.get_meta("embed_recipe") if store is not None else None
        except (apsw.Error, StoreError):
            return None

    def get_many(self, keys: Iterable[bytes], dims: int) -> dict[bytes, CachedVector]:
        """The snapshot's vectors among ``keys`` (every window, int8), at ``dims`` only."""
        from hookgraph.store import window_key
        from hookgraph.store.vector_cache import CachedVector

        wanted = list(dict.fromkeys(keys))
        contents = self._read_file() if wanted else None
        if contents is not None:
            if contents.dims != dims:
                return {}
            return {k: CachedVector(k, dims, r.windows, r.truncated, r.embedding)
                    for k in wanted if (r := contents.records.get(k)) is not None}
        if self.problem is not None:
            return {}
        store = self._open() if wanted else None
        if store is None or not store.has_vector_table() or store.vector_dims() != dims:
            return {}
        found: dict[bytes, CachedVector] = {}
        try:
            heads = store.rows_in("SELECT id, text_hash, windows, truncated FROM vectors "
                                  "WHERE head IS NULL AND text_hash IN ({in})", wanted)
            for vid, key, windows, truncated in heads:
                if not (isinstance(key, bytes) and isinstance(windows, int) and 1 <= windows <= 64):
                    continue
                ids = [vid]
                for n in range(1, windows):
                    rows = store.db.execute("SELECT id FROM vectors WHERE text_hash = ? AND head = ?",
                                            (window_key(key, n), vid)).fetchall()
                    ids += [rows[0][0]] if rows else []
                parts = [store.db.execute("SELECT embedding FROM vec_units WHERE rowid = ?", (i,)).fetchall()
                         for i in ids]
                blobs = [r[0][0] for r in parts if r and isinstance(r[0][0], bytes) and len(r[0][0]) == dims]
                if len(blobs) == windows:
                    found[key] = CachedVector(key, dims, windows, bool(truncated), b"".join(blobs))
        except (apsw.Error, StoreError) as exc:
            self.problem = " ".join(str(exc).split()) or type(exc).__name__
            return {}
        return found

    def all_vectors(self) -> vector_file.VectorFile | None:
        """Every vector the snapshot holds, whatever its format (the merge driver's union); None if unusable."""
        contents = self._read_file()
        if contents is not None or self.problem is not None:
            return contents
        store = self._open()
        if store is None:
            return None
        try:
            dims = store.vector_dims() if store.has_vector_table() else None
            records = {key: vector_file.Record(windows, truncated, embedding)
                       for key, windows, truncated, embedding in store.iter_vectors()}
            return vector_file.VectorFile(store.get_meta("embed_recipe"), store.get_meta("model_sha256"),
                                          dims or 0, records) if dims else None
        except (apsw.Error, StoreError) as exc:
            self.problem = " ".join(str(exc).split()) or type(exc).__name__
            return None

    def close(self) -> None:
        if self._stack is not None:
            self._stack.close()
        self._stack = self._store = None


def commit_of_snapshot(root: Path, rev: str | None = None) -> str:
    """The short hash of the commit that last changed the snapshot (at ``rev``, or HEAD), or "uncommitted"."""
    args = ["log", "-1", "--format=%h", *([rev] if rev else []), "--", f"{DB_DIRNAME}/{SNAPSHOT_FILE}"]
    out = git.run(args, root, check=False).decode("utf-8", "replace").strip()
    return out or "uncommitted"


def snapshot_label(root: Path, rev: str | None = None) -> str:
    """How a message names the snapshot: its path and the commit that brought it."""
    return f"the committed snapshot {DB_DIRNAME}/{SNAPSHOT_FILE} of commit {commit_of_snapshot(root, rev)}"


# -- export -------------------------------------------------------------------------


def export_snapshot(root: Path, dest: Path | None = None) -> bool:
    """Write ``.hookgraph/shared.db`` (or ``dest``) from the working index's vectors; returns whether it changed.

    Only vectors already in the index go in (never the model: a commit does
    not wait for it; texts embedded later ride along with the next commit),
    and only those of live texts (never the local cache of orphaned vectors:
    an uncommitted edit's vector does not travel). The layout is
    :mod:`hookgraph.store.vector_file`'s: sorted by key, so unchanged texts
    are unchanged bytes. The file is replaced atomically, and only when its
    bytes differ (an unchanged snapshot is not rewritten, and ``git add`` of it
    hashes nothing new).
    """
    live = db_path(root)
    snap = dest or snapshot_path(root)
    with Store(live, readonly=True) as store:
        data = vector_file.encode(store.get_meta("embed_recipe"), store.get_meta("model_sha256"),
                                  store.vector_dims() or 0 if store.has_vector_table() else 0,
                                  _live_vectors(store))
    if not snap.is_symlink():
        try:
            if snap.read_bytes() == data:
                return False
        except OSError:
            pass
    fd, tmp_name = tempfile.mkstemp(prefix=".shared.db.", dir=snap.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp_name, snap)  # a symlink there is replaced, never written through
    except BaseException:
        _remove_with_sidecars(tmp_name)
        raise
    return True


def _live_vectors(store: Store) -> Iterator[tuple[bytes, int, bool, bytes]]:
    """``(key, windows, truncated, int8 windows)`` of every text a unit points to, read in two scans.

    (:meth:`Store.iter_vectors` looks each window up by rowid: 2,200 lookups
    in vec0 cost more than one pass over it.)
    """
    if not store.has_vector_table():
        return
    embeddings = {int(cast(int, rowid)): blob for rowid, blob in
                  store.db.execute("SELECT rowid, embedding FROM vec_units")}
    parts: dict[int, list[int]] = {}
    for vid, head in store.db.execute("SELECT id, head FROM vectors WHERE head IS NOT NULL ORDER BY id"):
        parts.setdefault(int(cast(int, head)), []).append(int(cast(int, vid)))
    # An adopted vector the local model has not checked yet is never passed on (hookgraph.embed.recheck):
    # a teammate's forged vector must not ride along in this commit's snapshot, vouched for by it.
    heads = store.db.execute("SELECT id, text_hash, windows, truncated FROM vectors WHERE head IS NULL AND id IN "
                             "(SELECT vector_id FROM units WHERE vector_id IS NOT NULL) "
                             "AND text_hash NOT IN (SELECT text_hash FROM adopted)")
    for vid, key, windows, truncated in heads:
        ids = [int(cast(int, vid)), *parts.get(int(cast(int, vid)), [])]
        blobs = [embeddings.get(i) for i in ids]
        if isinstance(key, bytes) and len(ids) == windows and all(isinstance(b, bytes) for b in blobs):
            yield key, len(ids), bool(truncated), b"".join(cast(list[bytes], blobs))
