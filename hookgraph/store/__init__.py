"""The SQLite store, ``.hookgraph/index.db``: what every other part of hookgraph imports from here.

One file per repository, opened through :class:`Store`. The package's modules,
each with one job:

  connection  opening a database: apsw, sqlite-vec, ``trusted_schema`` OFF.
  schema      the tables, :data:`MIGRATIONS`, the exact-schema check that keeps
              anything planted in a committed database from running.
  store       :class:`Store`: opening, checking contents, meta, closing; built on
  writes      the writes of one sync and of the embedder, built on
  reads       the queries (full text, KNN, edges, the embedding queue, counts),
  edge_reads  the questions about edges (imports, bases, declared types, use counts),
  unit_lookups units by name, place and file (``UnitRow``),
  base        the open connection and the helpers every query goes through.
  vectors     how an embedding is stored (int8) and a window's key.
  database_files  where the database lives; symlink refusal, quarantine, removal.
  unusable    :class:`StoreError` and its kinds (``cause``, ``problem``): why a database cannot be used.
  faults, lock, snapshot, vector_cache: diagnosing SQLite failures, the
              writer's lock, the committed snapshot, the vector caches.

Nothing here imports :mod:`hookgraph.embed`, :mod:`hookgraph.sync`, :mod:`hookgraph.search` or the
CLI: they read and write through the store (docs/architecture.md).
"""

from __future__ import annotations

from hookgraph.store import faults
from hookgraph.store.unusable import REBUILD, SchemaUpgradeNeeded, StoreError, UntrustedStoreError, damaged
from hookgraph.store.database_files import (
    DB_DIRNAME, DB_FILENAME, SIDECARS, check_no_links, db_path, quarantine, remove_database,
)
from hookgraph.store.reads import FTS_WEIGHTS, UnitSubset
from hookgraph.store.schema import INT8_SCHEMA, MIGRATIONS, SCHEMA_VERSION
from hookgraph.store.store import VOLATILE_META, Store
from hookgraph.store.unit_lookups import UNIT_COLUMNS, UnitRow
from hookgraph.store.vectors import dequantize, quantize, window_key
from hookgraph.store.writes import VECTOR_CACHE_LIMIT

__all__ = [
    "DB_DIRNAME", "DB_FILENAME", "FTS_WEIGHTS", "INT8_SCHEMA", "MIGRATIONS", "REBUILD", "SCHEMA_VERSION", "SIDECARS",
    "UNIT_COLUMNS", "VECTOR_CACHE_LIMIT", "VOLATILE_META",
    "SchemaUpgradeNeeded", "Store", "StoreError", "UnitRow", "UnitSubset", "UntrustedStoreError",
    "check_no_links", "damaged", "db_path", "dequantize", "faults", "quantize", "quarantine", "remove_database",
    "window_key",
]
