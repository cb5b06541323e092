"""The schema: its migrations, and the checks that a database has exactly the schema they make.

Tables:
  meta      key/value: schema version, model SHA-256/name/dims/prefixes.
  files     every tracked path of the last synced tree with its blob SHA and
            what became of it (``indexed`` or ``skipped:<reason>``).
  units     code units (one row per definition / file / doc section).
  vectors   one row per embedded window (key: the first 16 bytes of the
            SHA-256 of the embedding recipe + composed text, a BLOB since
            schema 4; ``<key>#<n>`` for window n > 0,
            :func:`~hookgraph.store.vectors.window_key`);
            ``vec_units`` holds the embedding under the same id. A unit points at its text's
            first window (``units.vector_id``); later windows name it in
            ``head`` and die with it. The first window's row records how many
            windows the text has and whether text was left past the last one.
            Embeddings are int8 (schema 3): each unit vector scaled by 127 /
            its largest component and rounded
            (:func:`~hookgraph.store.vectors.quantize`); cosine
            distance does not depend on the scale, so only rounding is lost
            (eval/RESULTS.md: same search quality), at a quarter of the bytes.
  pending   composed texts that have no vector yet (schema 5), keyed by their
            vector key: the queue the background embedder drains
            (:mod:`hookgraph.embed.queue`). A unit waiting for its vector has
            ``vector_id`` NULL and ``text_hash`` set to that key; once the
            vector is published it points at it and ``text_hash`` is NULL
            again, so a finished store pays nothing for the queue.
  adopted   vectors taken from somebody else (a committed snapshot, a vector
            cache) that the local model has not re-embedded yet (schema 6):
            key, the source that brought it (as messages name it) and the
            composed text to check it with. A row leaves when the background
            embedder's full check agrees with the vector
            (:mod:`hookgraph.embed.recheck`); such a vector ranks meanwhile,
            but is never exported into a snapshot or copied into a cache.
  static_vectors  each unit's vector from the shipped static word table (schema 7), by unit id,
            written in the sync that writes the unit (:mod:`hookgraph.embed.static`).
  vector_cache  recently orphaned embeddings, out of the KNN index: a revert
            or a file that comes back is revived from here, not re-embedded.
  fts_units contentless FTS5 over identifier-split words, keyed by unit id.
  fts_expansion  contentless FTS5 over each unit's expansion words (schema 8), keyed by unit id:
            the description words its code implies (:mod:`hookgraph.parse.expansion`).
  edges     source unit -> target *name*; names are resolved at query time,
            so an edit never forces re-resolution elsewhere. Since schema 4
            an edge has no path (its source unit's file is its file) and
            ``target_full`` is NULL when it equals ``target``; the readers
            here give it back as ``coalesce(target_full, target)``.

A database is trusted only if its ``sqlite_master`` equals, object for object,
what :data:`MIGRATIONS` (and our vec table) build in memory
(:func:`check_schema`): nothing planted in a committed database ever runs.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import cast

import apsw

from hookgraph.store.connection import load_vec
from hookgraph.store.unusable import REBUILD, SchemaUpgradeNeeded, StoreError, UntrustedStoreError
from hookgraph.store.vectors import float_blob_to_int8

SCHEMA_VERSION = 8


def _migration_1(db: apsw.Connection) -> None:
    db.execute(
        """
        CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE files(
            path TEXT PRIMARY KEY,
            blob TEXT NOT NULL,
            language TEXT,
            status TEXT NOT NULL,
            units INTEGER NOT NULL DEFAULT 0,
            truncated INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE units(
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL,
            kind TEXT NOT NULL,
            name TEXT NOT NULL,
            qualname TEXT NOT NULL,
            parent TEXT,
            start_line INTEGER NOT NULL,
            end_line INTEGER NOT NULL,
            language TEXT NOT NULL,
            signature TEXT NOT NULL,
            docstring TEXT NOT NULL,
            vector_id INTEGER
        );
        CREATE INDEX units_path ON units(path);
        CREATE INDEX units_name ON units(name);
        CREATE INDEX units_qualname ON units(qualname);
        CREATE INDEX units_vector ON units(vector_id);
        CREATE TABLE vectors(id INTEGER PRIMARY KEY, text_hash TEXT NOT NULL UNIQUE);
        CREATE TABLE vector_cache(
            text_hash TEXT PRIMARY KEY,
            language TEXT NOT NULL,
            embedding BLOB NOT NULL,
            orphaned_seq INTEGER NOT NULL
        );
        CREATE VIRTUAL TABLE fts_units USING fts5(
            name, words, path, signature, docstring, body,
            content='', contentless_delete=1, tokenize='porter unicode61'
        );
        CREATE TABLE edges(
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL,
            source_unit INTEGER NOT NULL,
            kind TEXT NOT NULL,
            target TEXT NOT NULL,
            target_full TEXT NOT NULL,
            line INTEGER NOT NULL
        );
        CREATE INDEX edges_source ON edges(source_unit);
        CREATE INDEX edges_target ON edges(target, kind);
        CREATE INDEX edges_path ON edges(path);
        """
    )


def _migration_2(db: apsw.Connection) -> None:
    """Long units: a text may be embedded as several windows (one 256-token window lost the rest of a long unit)."""
    db.execute(
        """
        ALTER TABLE vectors ADD COLUMN head INTEGER;
        ALTER TABLE vectors ADD COLUMN windows INTEGER NOT NULL DEFAULT 1;
        ALTER TABLE vectors ADD COLUMN truncated INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX vectors_head ON vectors(head) WHERE head IS NOT NULL;
        ALTER TABLE vector_cache ADD COLUMN windows INTEGER NOT NULL DEFAULT 1;
        ALTER TABLE vector_cache ADD COLUMN truncated INTEGER NOT NULL DEFAULT 0;
        """
    )


def _migration_3(db: apsw.Connection) -> None:
    """Smaller stores: int8 vectors in chunks of 256, no index on ``edges.path``.

    The vec table and the orphan cache are converted in place; rows pass
    through a temporary table in batches, so memory stays bounded however big
    the store. A file's edges are deleted through their source units (every
    edge's source is a unit of its own file), so ``edges_path`` (~150-250
    bytes per unit on real code) is not needed.
    """
    db.execute("DROP INDEX edges_path")
    rows = db.execute("SELECT sql FROM sqlite_master WHERE name = 'vec_units'").fetchall()
    match = VEC_TABLE_RE.fullmatch(" ".join(str(rows[0][0]).split())) if rows else None
    if match is None:
        db.execute("DELETE FROM vector_cache")  # no vec table: nothing a cached vector could go back into
        return
    kind, dims = match.group(1), int(match.group(2))
    if kind == "float":
        db.execute("CREATE TEMP TABLE vec_migrate(id INTEGER PRIMARY KEY, embedding BLOB NOT NULL, language TEXT)")
        batch: list[tuple[int, bytes, str]] = []
        for rowid, embedding, language in db.execute("SELECT rowid, embedding, language FROM vec_units"):
            batch.append((rowid, float_blob_to_int8(embedding, dims), language))
            if len(batch) >= 1000:
                db.executemany("INSERT INTO temp.vec_migrate VALUES (?, ?, ?)", batch)
                batch.clear()
        db.executemany("INSERT INTO temp.vec_migrate VALUES (?, ?, ?)", batch)
        db.execute("DROP TABLE vec_units")
        db.execute(vec_table_sql(dims, int8=True))
        db.execute("INSERT INTO vec_units(rowid, embedding, language) "
                   "SELECT id, vec_int8(embedding), language FROM temp.vec_migrate")
        db.execute("DROP TABLE temp.vec_migrate")
    cached = [(h, e) for h, e in db.execute("SELECT text_hash, embedding FROM vector_cache")]
    for text_hash, embedding in cached:
        if isinstance(embedding, bytes) and len(embedding) == 4 * dims:
            db.execute("UPDATE vector_cache SET embedding = ? WHERE text_hash = ?",
                       (float_blob_to_int8(embedding, dims), text_hash))
        elif not (isinstance(embedding, bytes) and len(embedding) == dims):
            db.execute("DELETE FROM vector_cache WHERE text_hash = ?", (text_hash,))


#: A schema-3 vector key as schema 4 stores it: 64 hex characters -> their
#: first 16 bytes, ``<hex>#<n>`` (window n) -> those 16 bytes + ``#<n>``
#: (:func:`hookgraph.store.vectors.window_key`). A key hookgraph never wrote keeps its bytes, as a BLOB.
_KEY_FROM_HEX_SQL = """CASE
    WHEN typeof(text_hash) = 'text' AND length(text_hash) = 64 AND NOT text_hash GLOB '*[^0-9a-f]*'
        THEN unhex(substr(text_hash, 1, 32))
    WHEN typeof(text_hash) = 'text' AND length(text_hash) > 65 AND substr(text_hash, 65, 1) = '#'
            AND NOT substr(text_hash, 1, 64) GLOB '*[^0-9a-f]*' AND NOT substr(text_hash, 66) GLOB '*[^0-9]*'
        THEN unhex(substr(text_hash, 1, 32) || hex(substr(text_hash, 65)))
    ELSE CAST(text_hash AS BLOB) END"""


def _migration_4(db: apsw.Connection) -> None:
    """Smaller stores, second step: 16-byte BLOB vector keys; edges without ``path``, ``target_full`` when it differs.

    A vector key was the 64-character hex SHA-256 of recipe and text,
    stored twice (row and UNIQUE index): now its first 16 bytes (128 bits;
    keys only need to tell texts apart). ``edges.path`` was the source
    unit's path on every edge (edges are found through their source units,
    schema 3), and ``target_full`` repeated ``target`` on about half of them.
    Each table is renamed, re-created under its own name and filled by one
    ``INSERT .. SELECT`` (SQLite streams it: memory stays bounded however big
    the store); ids are kept, so ``units.vector_id``, ``vectors.head`` and the
    vec table's rowids still match, and edges come back in the same order.
    """
    db.execute(
        f"""
        ALTER TABLE vectors RENAME TO vectors_v3;
        CREATE TABLE vectors(
            id INTEGER PRIMARY KEY,
            text_hash BLOB NOT NULL UNIQUE,
            head INTEGER,
            windows INTEGER NOT NULL DEFAULT 1,
            truncated INTEGER NOT NULL DEFAULT 0
        );
        INSERT INTO vectors(id, text_hash, head, windows, truncated)
            SELECT id, {_KEY_FROM_HEX_SQL}, head, windows, truncated FROM vectors_v3 ORDER BY id;
        DROP TABLE vectors_v3;
        CREATE INDEX vectors_head ON vectors(head) WHERE head IS NOT NULL;

        ALTER TABLE vector_cache RENAME TO vector_cache_v3;
        CREATE TABLE vector_cache(
            text_hash BLOB PRIMARY KEY,
            language TEXT NOT NULL,
            embedding BLOB NOT NULL,
            orphaned_seq INTEGER NOT NULL,
            windows INTEGER NOT NULL DEFAULT 1,
            truncated INTEGER NOT NULL DEFAULT 0
        );
        INSERT INTO vector_cache(text_hash, language, embedding, orphaned_seq, windows, truncated)
            SELECT {_KEY_FROM_HEX_SQL}, language, embedding, orphaned_seq, windows, truncated
            FROM vector_cache_v3 ORDER BY rowid;
        DROP TABLE vector_cache_v3;

        ALTER TABLE edges RENAME TO edges_v3;
        CREATE TABLE edges(
            id INTEGER PRIMARY KEY,
            source_unit INTEGER NOT NULL,
            kind TEXT NOT NULL,
            target TEXT NOT NULL,
            target_full TEXT,
            line INTEGER NOT NULL
        );
        INSERT INTO edges(id, source_unit, kind, target, target_full, line)
            SELECT id, source_unit, kind, target, nullif(target_full, target), line FROM edges_v3 ORDER BY id;
        DROP TABLE edges_v3;
        CREATE INDEX edges_source ON edges(source_unit);
        CREATE INDEX edges_target ON edges(target, kind);
        """
    )


def _migration_5(db: apsw.Connection) -> None:
    """Vectors as a queue: syncs never wait for the model.

    A sync writes units, full text and edges at once and queues each composed
    text that has no vector in ``pending``; the units wait with their key in
    ``text_hash`` (indexed only where set). ``priority`` lets a hook's few new
    texts overtake a first index's thousands; ``seq`` keeps the rest in order.
    """
    db.execute(
        """
        ALTER TABLE units ADD COLUMN text_hash BLOB;
        CREATE INDEX units_pending ON units(text_hash) WHERE text_hash IS NOT NULL;
        CREATE TABLE pending(
            text_hash BLOB PRIMARY KEY,
            language TEXT NOT NULL,
            text TEXT NOT NULL,
            priority INTEGER NOT NULL DEFAULT 0,
            seq INTEGER NOT NULL
        );
        CREATE INDEX pending_order ON pending(priority DESC, seq);
        """
    )


def _migration_6(db: apsw.Connection) -> None:
    """Every adopted vector checked, not a sample: the vectors still waiting for that check.

    A sampled check cannot see a forgery of a few vectors among thousands, so
    each adopted vector is remembered here with its source and text until the
    background embedder has embedded that text itself and compared.
    """
    db.execute(
        """
        CREATE TABLE adopted(
            text_hash BLOB PRIMARY KEY,
            source TEXT NOT NULL,
            text TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX adopted_source ON adopted(source);
        """
    )


def _migration_7(db: apsw.Connection) -> None:
    """Static vectors: every unit's vector from the shipped word table (:mod:`hookgraph.embed.static`),
    written with the unit in the same sync, so meaning ranks before the model has embedded anything.

    One row per unit (int8, as ``vec_units``), read by sqlite-vec's distance function in a scan: the
    table is small (a unit's 256 bytes) and dies with its unit.
    """
    db.execute("CREATE TABLE static_vectors(unit_id INTEGER PRIMARY KEY, embedding BLOB NOT NULL)")


def _migration_8(db: apsw.Connection) -> None:
    """Expansion words: the description words a unit's code implies (:mod:`hookgraph.parse.expansion`), in a
    full-text table of their own so they neither count as the unit's words nor change their statistics.

    Keyed by unit id like ``fts_units``; a store from before gets its rows when the sync that follows notices
    it has no expansion table recorded and parses every file again.
    """
    db.execute(
        """
        CREATE VIRTUAL TABLE fts_expansion USING fts5(
            words, content='', contentless_delete=1, tokenize='porter unicode61'
        );
        """
    )


#: Schema migrations, in order; migration N brings the schema to version N.
#: A database is trusted only if its schema is exactly what these create (see
#: :func:`check_schema`): never edit a released migration's SQL (whitespace
#: aside), add a new one.
MIGRATIONS = [_migration_1, _migration_2, _migration_3, _migration_4, _migration_5, _migration_6, _migration_7,
              _migration_8]

#: The first schema whose vec table holds int8 embeddings.
INT8_SCHEMA = 3


def vec_table_sql(dims: int, *, int8: bool = True) -> str:
    """The vec table: int8 embeddings in chunks of 256 since schema 3 (float32, chunks of 1024 before).

    sqlite-vec allocates a whole chunk at a time: 256 wastes at most 96 KB
    (384 dims) where 1024 wasted up to 384 KB, a quarter of a small store.
    """
    if not int8:
        return (
            f"CREATE VIRTUAL TABLE vec_units USING vec0("
            f"embedding float[{int(dims)}] distance_metric=cosine, language text)"
        )
    return (
        f"CREATE VIRTUAL TABLE vec_units USING vec0("
        f"embedding int8[{int(dims)}] distance_metric=cosine, language text, chunk_size=256)"
    )


VEC_TABLE_RE = re.compile(
    r"CREATE VIRTUAL TABLE vec_units USING vec0\(embedding (float|int8)\[([1-9][0-9]{0,4})\] "
    r"distance_metric=cosine, language text(?:, chunk_size=256)?\)"
)


#: SQLite's own tables, which may or may not exist (``sqlite_sequence`` stays
#: after the vec table is dropped by a full rebuild).
_INTERNAL_TABLES = frozenset({
    ("table", "sqlite_sequence", "sqlite_sequence", "CREATE TABLE sqlite_sequence(name,seq)"),
})

_SchemaRow = tuple[str, str, str, "str | None"]
_REFERENCE: dict[tuple[int, int | None], frozenset[_SchemaRow]] = {}


def _schema_rows(db: apsw.Connection) -> set[_SchemaRow]:
    """``sqlite_master`` as ``(type, name, table, sql)``, SQL whitespace-normalised.

    Reading ``sqlite_master`` runs nothing: it is the one safe look at a
    database nobody has vetted yet.
    """
    return {
        (str(t), str(n), str(tbl), None if sql is None else " ".join(str(sql).split()))
        for t, n, tbl, sql in db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master")
    }


def _reference_schema(version: int, dims: int | None) -> frozenset[_SchemaRow]:
    """What our own migrations (and, with ``dims``, our vec table) create, built once in memory."""
    key = (version, dims)
    if key not in _REFERENCE:
        db = apsw.Connection(":memory:")
        try:
            if dims is not None:
                load_vec(db)
            for migration in MIGRATIONS[:version]:
                migration(db)
            if dims is not None:
                db.execute(vec_table_sql(dims, int8=version >= INT8_SCHEMA))
            _REFERENCE[key] = frozenset(_schema_rows(db) - _INTERNAL_TABLES)
        finally:
            db.close()
    return _REFERENCE[key]


def _describe(row: _SchemaRow) -> str:
    return f"{row[0]} {row[1]!r}"


def user_version(db: apsw.Connection) -> int:
    """The schema version recorded in the database (``PRAGMA user_version``)."""
    return int(cast(int, db.execute("PRAGMA user_version").fetchall()[0][0]))


def check_version(db: apsw.Connection, path: Path) -> int:
    """The database's schema version; a newer one than this code knows is refused."""
    version = user_version(db)
    if version > len(MIGRATIONS) or version < 0:
        raise StoreError(
            f"{path} was written by a newer hookgraph (schema {version}, this one knows "
            f"{len(MIGRATIONS)}): upgrade hookgraph or rebuild with `hookgraph index --full`",
            cause="newer-schema",
            problem=f"{path} was written by a newer hookgraph (schema {version}, this one knows "
                    f"{len(MIGRATIONS)})",
        )
    return version


def check_schema(db: apsw.Connection, path: Path, version: int) -> None:
    """Refuse any schema object our migrations would not have created, and any one missing.

    A trigger or view can run SQL (``trusted_schema=OFF`` only stops
    functions with side effects, not a trigger's plain ``DELETE``); an
    altered table can carry defaults or checks. So the schema must equal,
    object for object and statement for statement, what this code makes.
    """
    rows = _schema_rows(db)
    dims = None
    for row in rows:
        if row[1] == "vec_units":
            match = VEC_TABLE_RE.fullmatch(row[3] or "")
            if row[0] != "table" or not match:
                raise UntrustedStoreError(
                    f"{path} is not trustworthy: its vec_units table is not one hookgraph creates "
                    f"(planted?); hookgraph will not use it: {REBUILD}"
                )
            dims = int(match.group(2))
    expected = _reference_schema(version, dims)
    extra = sorted(rows - expected - _INTERNAL_TABLES, key=lambda r: (r[0] not in ("trigger", "view"), r[1]))
    if extra:
        names = {r[1] for r in expected}
        what = _describe(extra[0])
        why = "altered" if extra[0][1] in names else "which hookgraph never creates (planted?)"
        more = f" and {len(extra) - 1} more" if len(extra) > 1 else ""
        raise UntrustedStoreError(
            f"{path} is not trustworthy: it holds {what}{more}, {why}; "
            f"hookgraph will not use it: {REBUILD}"
        )
    missing = sorted(expected - rows)
    if missing:
        raise StoreError(f"{path} is damaged: {_describe(missing[0])} is missing: {REBUILD}", cause="damaged")


def migrate(db: apsw.Connection, path: Path, readonly: bool) -> None:
    """Bring the schema to the newest version (a writer), or refuse an older one (a reader)."""
    version = check_version(db, path)
    if version == len(MIGRATIONS):
        return
    if readonly:
        if version == 0 and not db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall():
            # created, then killed before its first transaction committed: nothing to upgrade
            raise SchemaUpgradeNeeded(f"{path} holds no index yet (its first index did not finish): "
                                      f"run `hookgraph index`")
        raise SchemaUpgradeNeeded(f"{path} needs a schema upgrade: run `hookgraph index`")
    # IMMEDIATE: one writer migrates; a hook or `ask` opening the store at the
    # same moment waits for it, then finds the version current and does nothing.
    db.execute("BEGIN IMMEDIATE")
    try:
        version = check_version(db, path)
        for number, migration in enumerate(MIGRATIONS[version:], start=version + 1):
            migration(db)
            db.execute(f"PRAGMA user_version={number}")
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise

