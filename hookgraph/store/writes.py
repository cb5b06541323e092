"""The store's writes: one sync's files, units, text and edges; vectors, their cache and their queue.

Every method here runs inside the writer's transaction
(``with store.transaction():``, under :func:`hookgraph.store.lock.write_lock`):
all writes of one sync commit or none do.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

from hookgraph.store.reads import StoreReads
from hookgraph.store.schema import vec_table_sql
from hookgraph.store.vectors import quantize, window_key

if TYPE_CHECKING:  # numpy is imported where vectors are handled: a hook that
    import numpy as np  # touches no code must not pay ~80 ms for it

#: How many orphaned embeddings to keep for revival (oldest dropped first).
VECTOR_CACHE_LIMIT = 2000


class StoreWrites(StoreReads):
    """The writes of :class:`~hookgraph.store.Store`."""

    # -- files --------------------------------------------------------------------

    def upsert_file(self, path: str, blob: str, language: str | None, status: str, units: int, truncated: int) -> None:
        self.db.execute(
            "INSERT INTO files(path, blob, language, status, units, truncated) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(path) DO UPDATE SET blob=excluded.blob, language=excluded.language, "
            "status=excluded.status, units=excluded.units, truncated=excluded.truncated",
            (path, blob, language, status, units, truncated),
        )

    def delete_file(self, path: str) -> None:
        self.delete_units_of(path)
        self.db.execute("DELETE FROM files WHERE path = ?", (path,))


    # -- units, text, edges -------------------------------------------------------

    def delete_units_of(self, path: str) -> None:
        ids = [r[0] for r in self.db.execute("SELECT id FROM units WHERE path = ?", (path,))]
        if ids:
            self.db.executemany("DELETE FROM fts_units WHERE rowid = ?", ((i,) for i in ids))
            self.db.executemany("DELETE FROM fts_expansion WHERE rowid = ?", ((i,) for i in ids))
            # Every edge's source is a unit of its own file: edges_source finds them (no index on path).
            self.db.executemany("DELETE FROM edges WHERE source_unit = ?", ((i,) for i in ids))
            self.db.executemany("DELETE FROM static_vectors WHERE unit_id = ?", ((i,) for i in ids))
        self.db.execute("DELETE FROM units WHERE path = ?", (path,))

    def insert_units(self, rows: Sequence[Sequence[Any]], fts: Sequence[Sequence[str]]) -> list[int]:
        """Insert units (columns of UNIT_COLUMNS without id, plus vector_id and text_hash) and their FTS rows
        (:func:`hookgraph.parse.compose.fts_columns`: six columns of ``fts_units``, then the expansion words for
        ``fts_expansion``, if any); returns their ids, in order.

        The ids are the ones one-at-a-time inserts get (an INTEGER PRIMARY
        KEY without AUTOINCREMENT takes the largest id + 1), given up front
        so each table takes all of a file's rows in one ``executemany``.
        """
        if not rows:
            return []
        first = self.integer("SELECT coalesce(max(id), 0) + 1 FROM units")
        ids = list(range(first, first + len(rows)))
        self.db.executemany(
            "INSERT INTO units(id, path, kind, name, qualname, parent, start_line, end_line, language, "
            "signature, docstring, vector_id, text_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(uid, *row) for uid, row in zip(ids, rows)],
        )
        self.db.executemany(
            "INSERT INTO fts_units(rowid, name, words, path, signature, docstring, body) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(uid, *columns[:6]) for uid, columns in zip(ids, fts)],
        )
        self.db.executemany(
            "INSERT INTO fts_expansion(rowid, words) VALUES (?, ?)",
            [(uid, columns[6]) for uid, columns in zip(ids, fts) if len(columns) > 6 and columns[6]],
        )
        return ids

    def insert_static_vectors(self, rows: Iterable[tuple[int, bytes]]) -> None:
        """``(unit id, int8 static vector)`` rows (:mod:`hookgraph.embed.static`)."""
        self.db.executemany("INSERT OR REPLACE INTO static_vectors(unit_id, embedding) VALUES (?, ?)", rows)

    def insert_edges(self, rows: Iterable[tuple[int, str, str, str, int]]) -> None:
        """``(source unit, kind, target, target_full, line)`` rows; ``target_full`` is kept only where it differs."""
        self.db.executemany(
            "INSERT INTO edges(source_unit, kind, target, target_full, line) VALUES (?1, ?2, ?3, nullif(?4, ?3), ?5)",
            rows,
        )


    # -- vectors ------------------------------------------------------------------

    def ensure_vector_table(self, dims: int) -> None:
        """Create the vec0 table for ``dims``-dimensional vectors (first index only)."""
        if not self.has_vector_table():
            self.db.execute(vec_table_sql(dims, int8=True))

    def insert_vector(
        self,
        text_hash: bytes,
        vector: np.ndarray,
        language: str,
        *,
        head: int | None = None,
        windows: int = 1,
        truncated: bool = False,
    ) -> int:
        self.db.execute(
            "INSERT INTO vectors(text_hash, head, windows, truncated) VALUES (?, ?, ?, ?)",
            (text_hash, head, int(windows), int(truncated)),
        )
        vid = int(self.db.last_insert_rowid())
        self.db.execute(
            "INSERT INTO vec_units(rowid, embedding, language) VALUES (?, vec_int8(?), ?)",
            (vid, quantize(vector), language),
        )
        return vid

    def insert_windows(self, text_hash: bytes, vectors: np.ndarray, language: str, truncated: bool) -> int:
        """One text's window vectors (``(n, dims)``); returns the first window's id, the one units point at."""
        head = self.insert_vector(text_hash, vectors[0], language, windows=len(vectors), truncated=truncated)
        for n in range(1, len(vectors)):
            self.insert_vector(window_key(text_hash, n), vectors[n], language, head=head)
        return head

    def collect_orphan_vectors(self) -> int:
        """Take vectors no live unit points to out of the KNN index; a stale vector must never be ranked.

        A text's later windows go with its first. Their embeddings move to
        ``vector_cache`` (bounded), so a reverted edit or a file deleted and
        restored is revived instead of re-embedded. Returns how many texts.
        """
        heads = self.db.execute(
            "SELECT v.id, v.text_hash, v.windows, v.truncated FROM vectors v "
            "WHERE v.head IS NULL AND NOT EXISTS (SELECT 1 FROM units u WHERE u.vector_id = v.id)"
        ).fetchall()
        orphans = [(r[0], r[1], r[2], r[3]) for r in heads]
        if self.db.execute("SELECT 1 FROM vectors WHERE head IS NOT NULL LIMIT 1").fetchall():
            orphans += [
                (r[0], r[1], 1, 0)
                for r in self.db.execute(
                    "SELECT w.id, w.text_hash FROM vectors w WHERE w.head IS NOT NULL AND NOT EXISTS "
                    "(SELECT 1 FROM units u WHERE u.vector_id = w.head)"
                )
            ]
        if not orphans:
            return 0
        # An adopted vector nobody checked yet is not kept for revival: it would come back unchecked, unnamed.
        unchecked = {k for (k,) in self.rows_in("SELECT text_hash FROM adopted WHERE text_hash IN ({in})",
                                                (o[1] for o in orphans))}
        if unchecked:
            self.db.executemany("DELETE FROM adopted WHERE text_hash = ?", ((k,) for k in unchecked))
        seq = self.integer("SELECT coalesce(max(orphaned_seq), 0) FROM vector_cache")
        for vid, text_hash, windows, truncated in orphans:
            if cast(bytes, text_hash)[:16] in unchecked:  # the text's first window, or a later one (``<key>#<n>``)
                continue
            rows = self.db.execute("SELECT embedding, language FROM vec_units WHERE rowid = ?", (vid,)).fetchall()
            if rows:
                seq += 1
                self.db.execute(
                    "INSERT OR REPLACE INTO vector_cache(text_hash, language, embedding, orphaned_seq, windows, "
                    "truncated) VALUES (?, ?, ?, ?, ?, ?)",
                    (text_hash, rows[0][1], rows[0][0], seq, windows, truncated),
                )
        self.db.executemany("DELETE FROM vec_units WHERE rowid = ?", ((o[0],) for o in orphans))
        self.db.executemany("DELETE FROM vectors WHERE id = ?", ((o[0],) for o in orphans))
        self.db.execute(
            "DELETE FROM vector_cache WHERE orphaned_seq <= ?", (seq - VECTOR_CACHE_LIMIT,)
        )
        return len(heads)

    def revive_vector(self, text_hash: bytes) -> int | None:
        """Bring a cached text (all its windows) back into the index; its first window's id, or None.

        A text whose windows are not all cached any more counts as not cached.
        """
        rows = self.db.execute(
            "SELECT embedding, language, windows, truncated FROM vector_cache WHERE text_hash = ?", (text_hash,)
        ).fetchall()
        if not rows:
            return None
        embedding, language, windows, truncated = rows[0]
        language, windows = cast(str, language), cast(int, windows)  # TEXT NOT NULL, INTEGER NOT NULL
        keys = [window_key(text_hash, n) for n in range(1, int(windows))]
        parts = {k: e for k, e in self.db.execute(
            f"SELECT text_hash, embedding FROM vector_cache WHERE text_hash IN ({','.join('?' * len(keys))})", keys
        )} if keys else {}
        self.db.executemany("DELETE FROM vector_cache WHERE text_hash = ?", ((k,) for k in [text_hash, *keys]))
        if len(parts) != len(keys):
            return None
        dims = self.vector_dims()
        sizes = {len(e) if isinstance(e, bytes) else -1 for e in [embedding, *parts.values()]}
        if dims is None or sizes != {dims}:
            return None  # another model's, an older schema's (float) or a planted vector: embed the text instead
        import numpy as np

        vectors = np.stack([np.frombuffer(e, dtype=np.int8) for e in [embedding, *(parts[k] for k in keys)]])
        return self.insert_windows(text_hash, vectors, language, bool(truncated))


    # -- adopted vectors and their full check (hookgraph.embed.recheck) ---------------

    def mark_adopted(self, rows: Iterable[tuple[bytes, str, str]]) -> None:
        """``(key, source label, composed text)`` of vectors just taken from a source: unchecked until
        the local model agrees (a vector published by the local model is never in here)."""
        self.db.executemany("INSERT OR REPLACE INTO adopted(text_hash, source, text) VALUES (?, ?, ?)", rows)

    def mark_checked(self, keys: Iterable[bytes]) -> int:
        """The local model agreed with these adopted vectors: they are this machine's now; returns how many."""
        before = self.db.totalchanges()
        self.db.executemany("DELETE FROM adopted WHERE text_hash = ?", ((k,) for k in keys))
        done = int(self.db.totalchanges() - before)
        if done:  # a running count for ``status`` ("checked 1,200 of 1,834")
            self.db.execute("INSERT INTO meta(key, value) VALUES ('adopted_checked', ?) ON CONFLICT(key) DO UPDATE "
                            "SET value = CAST(CAST(value AS INTEGER) + ? AS TEXT)", (str(done), done))
        return done

    def drop_unchecked_of(self, source: str, priority: int = 0) -> int:
        """Distrust ``source``: each of its vectors not checked yet leaves the index and its text is queued.

        Its units wait for the local model like any new text (ranked by
        words and graph meanwhile). Returns how many texts were queued.
        """
        rows = self.db.execute(
            "SELECT a.text_hash, a.text, v.id, (SELECT language FROM vec_units WHERE rowid = v.id) FROM adopted a "
            "JOIN vectors v ON v.text_hash = a.text_hash WHERE a.source = ?", (source,)).fetchall()
        queue: list[tuple[bytes, str, str]] = []
        for key, text, vid, language in rows:
            windows = [vid, *(r[0] for r in self.db.execute("SELECT id FROM vectors WHERE head = ?", (vid,)))]
            self.db.executemany("DELETE FROM vec_units WHERE rowid = ?", ((w,) for w in windows))
            self.db.executemany("DELETE FROM vectors WHERE id = ?", ((w,) for w in windows))
            self.db.execute("UPDATE units SET vector_id = NULL, text_hash = ? WHERE vector_id = ?", (key, vid))
            queue.append((cast(bytes, key), str(language or "text"), str(text)))
        self.db.execute("DELETE FROM adopted WHERE source = ?", (source,))
        self.queue_texts(queue, priority)
        return len(queue)

    # -- the queue of texts without a vector --------------------------------------

    def queue_texts(self, rows: Sequence[tuple[bytes, str, str]], priority: int = 0, *,
                    last_seq: int | None = None) -> tuple[int, int]:
        """Queue ``(text hash, language, composed text)`` rows not queued yet; returns how many were new, and
        the queue's largest ``seq`` after them.

        Row n takes ``seq`` ``last_seq + n`` (queued or not), ``last_seq``
        being the largest in the queue: a caller that queues many times in
        one transaction passes the value returned last (``max(seq)`` has no
        index: asked per file, it made a first index quadratic), else it is
        looked up.
        """
        seq = self.pending_last_seq() if last_seq is None else last_seq
        before = self.db.totalchanges()
        self.db.executemany(
            "INSERT OR IGNORE INTO pending(text_hash, language, text, priority, seq) VALUES (?, ?, ?, ?, ?)",
            [(text_hash, language, text, priority, seq + n) for n, (text_hash, language, text) in enumerate(rows, 1)],
        )
        added = int(self.db.totalchanges() - before)
        if added == len(rows):
            return added, seq + added
        if added:  # some were queued already: the largest is the last row inserted (an ignored row sets no rowid)
            seq = self.integer("SELECT seq FROM pending WHERE rowid = last_insert_rowid()")
        return added, seq

    def pending_last_seq(self) -> int:
        """The largest ``seq`` in the queue (0 when empty)."""
        return self.integer("SELECT coalesce(max(seq), 0) FROM pending")

    def renumber_pending(self, seqs: Iterable[tuple[int, bytes]]) -> None:
        """Give each queued text ``(seq, text hash)`` its new place in the queue (the most used code first)."""
        self.db.executemany("UPDATE pending SET seq = ? WHERE text_hash = ?", list(seqs))

    def stop_waiting(self, unit_ids: Iterable[int]) -> None:
        """These units wait for no vector any more (the no-embed rule now keeps them from the model)."""
        self.db.executemany("UPDATE units SET text_hash = NULL WHERE id = ?", [(uid,) for uid in unit_ids])

    def publish_vector(self, text_hash: bytes, vectors: Any, language: str, truncated: bool) -> int:
        """Store a queued text's window vectors and point its waiting units at them; 0 if nobody waits.

        Run inside the writer's transaction. A text whose units all went away
        before its turn (the sync dropped its queue row) is not stored.
        """
        if not self.db.execute("SELECT 1 FROM pending WHERE text_hash = ?", (text_hash,)).fetchall():
            return 0
        self.db.execute("DELETE FROM pending WHERE text_hash = ?", (text_hash,))
        known = self.vector_info([text_hash])
        vid = known[text_hash][0] if text_hash in known else self.insert_windows(text_hash, vectors, language, truncated)
        if (known[text_hash][2] if text_hash in known else truncated):
            # files count their units cut after the last window (status, and what a sync records when known)
            self.db.execute(
                "UPDATE files SET truncated = truncated + (SELECT count(*) FROM units u WHERE u.path = files.path "
                "AND u.text_hash = ?1) WHERE path IN (SELECT path FROM units WHERE text_hash = ?1)", (text_hash,)
            )
        self.db.execute("UPDATE units SET vector_id = ?, text_hash = NULL WHERE text_hash = ?", (vid, text_hash))
        return self.db.changes()

    def drop_unwanted_pending(self) -> int:
        """Forget queued texts no unit waits for any more (their file changed again or went away)."""
        self.db.execute(
            "DELETE FROM pending WHERE text_hash NOT IN (SELECT text_hash FROM units WHERE text_hash IS NOT NULL)"
        )
        return self.db.changes()


    # -- a full rebuild -----------------------------------------------------------

    def clear_all(self) -> None:
        """Remove every file, unit, edge and vector (a full rebuild, inside a transaction)."""
        self.db.execute("DELETE FROM files")
        self.db.execute("DELETE FROM units")
        self.db.execute("DELETE FROM static_vectors")
        self.db.execute("DELETE FROM edges")
        self.db.execute("DELETE FROM fts_units")
        self.db.execute("DELETE FROM fts_expansion")
        self.db.execute("DELETE FROM vectors")
        self.db.execute("DELETE FROM vector_cache")
        self.db.execute("DELETE FROM pending")
        self.db.execute("DELETE FROM adopted")
        self.db.execute("DELETE FROM meta WHERE key = 'adopted_checked'")
        if self.has_vector_table():
            self.db.execute("DROP TABLE vec_units")
