"""The store's queries: files, units, full text, vectors (KNN), edges, the embedding queue, counts.

Nothing here writes. Searches (:mod:`hookgraph.search`), the graph commands
and ``status`` read through these; so does a sync deciding what to write.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import apsw

from hookgraph.store.edge_reads import EdgeReads
from hookgraph.store.unit_lookups import UNIT_COLUMNS, UnitLookups, UnitRow
from hookgraph.store.vectors import quantize

if TYPE_CHECKING:  # numpy is imported where vectors are handled: a hook that
    import numpy as np  # touches no code must not pay ~80 ms for it

#: FTS column weights for bm25(): a hit in the name outweighs one in the body.
FTS_WEIGHTS = (10.0, 6.0, 2.0, 3.0, 2.0, 1.0)
#: A unit's expansion words (``fts_expansion``: words its code implies, :mod:`hookgraph.parse.expansion`) add
#: their BM25 score at this weight: half a body word's, so they decide between units the question's own words
#: leave close and bring in units those words miss, but never outweigh a word the code writes. 0.5 is the one
#: value measured (eval/RESULTS.md, "Learnt word expansion"); it was not tuned.
EXPANSION_WEIGHT = 0.5


@dataclass(frozen=True)
class UncheckedVector:
    """An adopted vector waiting for the full check: what to embed, and what to compare with."""

    key: bytes
    source: str
    text: str
    vector_id: int
    language: str
    #: The int8 windows as stored, in order.
    windows: list[bytes]
    truncated: bool


@dataclass(frozen=True)
class UnitSubset:
    """Units of some kinds, some languages or some files: a filter the store applies inside its queries.

    Applied inside the KNN query and the full-text query (not to their results), so a kind that is rare
    among the nearest vectors or the best BM25 matches still fills the candidate lists: a filter applied
    after the nearest-k cut starves them. A unit is in the subset when any one of the three matches.
    """

    kinds: frozenset[str] = frozenset()
    languages: frozenset[str] = frozenset()
    paths: frozenset[str] = frozenset()

    def where(self, alias: str = "") -> tuple[str, list[str]]:
        """An SQL condition on ``units`` (columns prefixed with ``alias.``) and its parameters.

        Each list is one JSON parameter read by ``json_each``: a repository's test files may number
        thousands, more than SQLite's bound-variable limit.
        """
        prefix = f"{alias}." if alias else ""
        parts, params = [], []
        for column, values in (("kind", self.kinds), ("language", self.languages), ("path", self.paths)):
            if values:
                parts.append(f"{prefix}{column} IN (SELECT value FROM json_each(?))")
                params.append(json.dumps(sorted(values)))
        return ("(" + " OR ".join(parts) + ")" if parts else "0"), params


class StoreReads(EdgeReads, UnitLookups):
    """The read queries of :class:`~hookgraph.store.Store` (questions about edges in :class:`EdgeReads`, lookups
    of units by name and place in :class:`UnitLookups`)."""

    # -- files --------------------------------------------------------------------

    def file_map(self) -> dict[str, str]:
        """``{path: blob}`` of everything the last sync saw."""
        # files: path TEXT PRIMARY KEY, blob TEXT NOT NULL
        return dict(cast("list[tuple[str, str]]", self.db.execute("SELECT path, blob FROM files").fetchall()))

    def paths_with_status(self, status: str) -> list[str]:
        """The paths whose file row has this status (``skipped:parser-crash``), sorted."""
        rows = cast("list[tuple[str]]", self.db.execute(
            "SELECT path FROM files WHERE status = ? ORDER BY path", (status,)).fetchall())
        return [path for (path,) in rows]


    def file_paths(self) -> list[str]:
        """Every indexed path, in the table's own order (a question's words are matched against them)."""
        return [path for (path,) in self.db.execute("SELECT path FROM files")]

    def file_count(self) -> int:
        """How many files the last sync saw (0: nothing indexed yet, whatever meta says)."""
        return self.integer("SELECT count(*) FROM files")

    def has_file_under(self, folders: str) -> bool:
        """Whether a path holds ``folders`` (``io/ktor``) right after a slash: an import's module path names
        the project itself when its first segments are folders of its files."""
        return self.db.execute("SELECT 1 FROM files WHERE '/' || path LIKE ? LIMIT 1",
                               (f"%/{folders}%",)).fetchone() is not None

    def files_by_language_and_status(self) -> list[tuple[str | None, str, int]]:
        """``(language, status, files)`` for each pair present (``status --languages``' coverage table)."""
        return cast("list[tuple[str | None, str, int]]", self.db.execute(
            "SELECT language, status, count(*) FROM files GROUP BY language, status"
        ).fetchall())


    # -- units, text, edges -------------------------------------------------------

    def units_by_ids(self, ids: Iterable[int]) -> dict[int, UnitRow]:
        return {row[0]: UnitRow(*row) for row in self.rows_in(f"SELECT {UNIT_COLUMNS} FROM units WHERE id IN ({{in}})", ids)}

    def qualnames_starting(self, prefix: str, limit: int) -> list[str]:
        """The first ``limit`` qualified names of definitions (not files or sections) that start with
        ``prefix``, sorted: what shell completion offers for a symbol being typed."""
        pattern = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        rows = self.db.execute(
            "SELECT DISTINCT qualname FROM units WHERE kind NOT IN ('file', 'section') "
            "AND qualname LIKE ? ESCAPE '\\' ORDER BY qualname LIMIT ?",
            (pattern, int(limit)),
        ).fetchall()
        return [r[0] for r in rows if isinstance(r[0], str)]

    def kinds_of_names(self, qualnames: Iterable[str]) -> set[tuple[str, str]]:
        """``(qualname, kind)`` of the units that have one of these qualified names, in any file."""
        return {(str(q), str(k)) for q, k in self.rows_in(
            "SELECT DISTINCT qualname, kind FROM units WHERE qualname IN ({in})", set(qualnames))}

    def fts_search(self, match: str, limit: int, among: UnitSubset | None = None,
                   expansion: bool = True) -> list[tuple[int, float]]:
        """``(unit id, bm25 score)`` best first; bm25() is negative, we return it positive.

        ``among``: only units of that subset, the ``limit`` best of them. ``expansion``: each unit's score
        plus :data:`EXPANSION_WEIGHT` times its expansion words' (a unit only they match comes in with that
        alone); the two tables keep their own statistics, so the words a unit writes score as without them.
        """
        own = self._bm25("fts_units", FTS_WEIGHTS, match, limit, among)
        if not expansion or not EXPANSION_WEIGHT:
            return own
        scores = dict(own)
        for uid, score in self._bm25("fts_expansion", (), match, limit, among):
            scores[uid] = scores.get(uid, 0.0) + EXPANSION_WEIGHT * score
        return sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:limit]

    def _bm25(self, table: str, weights: Sequence[float], match: str, limit: int,
              among: UnitSubset | None) -> list[tuple[int, float]]:
        """``(unit id, bm25 score)`` from one full-text table (its column weights), best first."""
        arguments = "".join(f", {w}" for w in weights)
        within, params = ("", []) if among is None else among.where()
        if among is not None:  # ``+rowid``: a filter on the matches, never handed to FTS5 as rowids to look up
            within = f" AND +rowid IN (SELECT id FROM units WHERE {within})"  # (that ran MATCH once per unit)
        try:
            rows = cast("list[tuple[int, float]]", self.db.execute(
                f"SELECT rowid, -bm25({table}{arguments}) AS score FROM {table} "
                f"WHERE {table} MATCH ?{within} ORDER BY score DESC LIMIT ?",
                (match, *params, limit),
            ).fetchall())
        except apsw.SQLError:
            return []
        return [(int(r[0]), float(r[1])) for r in rows]

    def fts_has_match(self, match: str) -> bool:
        """Whether any unit's text matches the FTS5 expression (one an FTS5 refuses matches nothing): a name
        the project spells somewhere is its own, even where no unit is named so."""
        try:
            return self.db.execute("SELECT 1 FROM fts_units WHERE fts_units MATCH ? LIMIT 1", (match,)).fetchone() is not None
        except apsw.SQLError:
            return False

    def fts_match_count(self, match: str, cap: int) -> int:
        """How many units match the FTS5 expression, counted up to ``cap`` (how rare a word is; an
        expression FTS5 refuses: 0, like a word no unit holds)."""
        try:
            row = self.db.execute("SELECT count(*) FROM (SELECT rowid FROM fts_units WHERE fts_units MATCH ? LIMIT ?)",
                                  (match, cap)).fetchone()
        except apsw.SQLError:
            return 0
        return int(row[0]) if row else 0

    def fts_unit_matches(self, match: str, unit_id: int) -> bool:
        """Whether this one unit's text matches the FTS5 expression (an answer holds the word or not)."""
        try:
            return self.db.execute("SELECT rowid FROM fts_units WHERE fts_units MATCH ? AND rowid = ?",
                                   (match, unit_id)).fetchone() is not None
        except apsw.SQLError:
            return False

    def largest_unit_id(self) -> int | None:
        """The largest unit id (None when there are none): about how many units, from one index lookup
        where ``count(*)`` would read them all."""
        row = self.db.execute("SELECT max(rowid) FROM units").fetchone()
        return int(row[0]) if row and row[0] is not None else None

    def edges_from(self, unit_ids: Sequence[int], kind: str | None = None) -> list[tuple[int, str, str, str, int]]:
        """``(source unit, kind, target, target_full, line)`` for edges leaving these units."""
        sql = "SELECT source_unit, kind, target, coalesce(target_full, target), line FROM edges WHERE source_unit IN ({in})"
        if kind:
            return self.rows_in(sql + " AND kind = ?", unit_ids, after=[kind])
        return self.rows_in(sql, unit_ids)

    def edges_to(self, names: Sequence[str], kind: str) -> list[tuple[int, str, str, int]]:
        """``(source unit, target, target_full, line)`` for edges of ``kind`` naming any of ``names``."""
        return self.rows_in(
            "SELECT source_unit, target, coalesce(target_full, target), line FROM edges WHERE kind = ? AND target IN ({in})",
            names, before=[kind],
        )


    def edge_counts(self, names: Sequence[str], kind: str) -> dict[str, int]:
        """How many edges of ``kind`` name each of ``names`` (counted in SQL: a name the whole repository calls
        has thousands of call sites, and only their number is wanted)."""
        return {str(target): int(n) for target, n in self.rows_in(
            "SELECT target, count(*) FROM edges WHERE kind = ? AND target IN ({in}) GROUP BY target", names,
            before=[kind])}

    # -- vectors ------------------------------------------------------------------

    def vector_ids(self, text_hashes: Iterable[bytes]) -> dict[bytes, int]:
        """Which of these text hashes already have a vector, and its id."""
        return {
            text_hash: int(vid)
            for text_hash, vid in self.rows_in("SELECT text_hash, id FROM vectors WHERE text_hash IN ({in})", text_hashes)
        }

    def vector_info(self, text_hashes: Iterable[bytes]) -> dict[bytes, tuple[int, int, bool]]:
        """``{text hash: (first window's vector id, windows, truncated)}`` for the known ones."""
        return {
            text_hash: (int(vid), int(windows), bool(truncated))
            for text_hash, vid, windows, truncated in self.rows_in(
                "SELECT text_hash, id, windows, truncated FROM vectors WHERE text_hash IN ({in})", text_hashes
            )
        }

    def static_nearest(self, query: bytes, k: int) -> list[tuple[int, float]]:
        """``(unit id, cosine similarity)`` of the ``k`` units whose static vectors are nearest ``query``
        (int8 bytes, :func:`hookgraph.embed.static.quantize_unit`): a scan, 256 bytes a unit."""
        return [(int(uid), 1.0 - float(d)) for uid, d in self.db.execute(
            "SELECT unit_id, vec_distance_cosine(vec_int8(embedding), vec_int8(?1)) AS d FROM static_vectors "
            "ORDER BY d LIMIT ?2", (query, int(k)))]

    def static_similarities(self, query: bytes, unit_ids: Iterable[int]) -> dict[int, float]:
        """Cosine similarity of ``query`` to each of these units' static vectors (units without one left out)."""
        return {int(uid): 1.0 - float(d) for uid, d in self.rows_in(
            "SELECT unit_id, vec_distance_cosine(vec_int8(embedding), vec_int8(?)) FROM static_vectors "
            "WHERE unit_id IN ({in})", list(unit_ids), before=(query,))}

    def has_vectors(self) -> bool:
        """Whether the index holds any vector (a first index holds none: a sync then skips its lookups)."""
        return bool(self.integer("SELECT EXISTS (SELECT 1 FROM vectors)"))

    def has_vector_cache_rows(self) -> bool:
        """Whether the in-index cache of orphaned vectors holds any (if not, a sync skips its lookups)."""
        return bool(self.integer("SELECT EXISTS (SELECT 1 FROM vector_cache)"))

    def has_units(self) -> bool:
        return bool(self.db.execute("SELECT 1 FROM units LIMIT 1").fetchall())

    def has_static_vectors(self) -> bool:
        return bool(self.db.execute("SELECT 1 FROM static_vectors LIMIT 1").fetchall())

    def vector_ids_of_units(self, unit_ids: Iterable[int]) -> dict[int, int]:
        """``{unit id: vector id}`` for the units that have a vector."""
        return dict(self.rows_in("SELECT id, vector_id FROM units WHERE id IN ({in}) AND vector_id IS NOT NULL", unit_ids))

    def units_for_vectors(self, vector_ids: Iterable[int]) -> dict[int, list[int]]:
        """``{vector id: [unit ids]}``: several units may share one embedded text."""
        result: dict[int, list[int]] = {}
        for uid, vid in self.rows_in("SELECT id, vector_id FROM units WHERE vector_id IN ({in})", vector_ids):
            result.setdefault(vid, []).append(uid)
        return result

    def knn(self, query: Sequence[float] | np.ndarray, k: int, language: str | None = None,
            among: UnitSubset | None = None) -> list[tuple[int, float]]:
        """``(vector id, cosine distance)`` nearest first, optionally within one language.

        A text split into windows counts once, at its best window, under its
        first window's id (the one units point at). ``among``: only the
        vectors of that subset's units, filtered inside the KNN query
        (sqlite-vec's ``rowid IN (subquery)``), so the ``k`` nearest of them
        come back however far the subset lies from the query.
        """
        if not self.has_vector_table():
            return []
        extra = 0
        if self.db.execute("SELECT 1 FROM vectors WHERE head IS NOT NULL LIMIT 1").fetchall():
            extra = self.integer("SELECT count(*) FROM vectors WHERE head IS NOT NULL")
        blob = quantize(query)
        sql = "SELECT rowid, distance FROM vec_units WHERE embedding MATCH vec_int8(?) AND k = ?"
        params: list[Any] = [blob, min(int(k) + extra, 4096)]  # 4096: sqlite-vec's largest k
        if language:
            sql += " AND language = ?"
            params.append(language)
        if among is not None:
            condition, values = among.where()
            sql += f" AND rowid IN (SELECT vector_id FROM units WHERE vector_id IS NOT NULL AND {condition}"
            params += values
            if extra:  # a split text's later windows, whose heads are the subset's vectors
                condition, values = among.where("u")
                sql += f" UNION ALL SELECT v.id FROM vectors v JOIN units u ON v.head = u.vector_id WHERE {condition}"
                params += values
            sql += ")"
        hits = [(int(r[0]), float(r[1])) for r in self.db.execute(sql, params)]
        if not extra:
            return hits
        heads: dict[int, int] = dict(self.rows_in(
            "SELECT id, head FROM vectors WHERE id IN ({in}) AND head IS NOT NULL", [v for v, _ in hits]
        ))
        best: dict[int, float] = {}
        for vid, distance in hits:  # nearest first: the first window seen is the best
            best.setdefault(heads.get(vid, vid), distance)
        return list(best.items())[: int(k)]

    def vector_distances(self, query: Sequence[float] | np.ndarray, vector_ids: Iterable[int]) -> dict[int, float]:
        """Cosine distance from ``query`` to each of these vectors, as ``knn`` measures it.

        A text split into windows is at the distance of its nearest window,
        under its first window's id, like in ``knn``.
        """
        if not self.has_vector_table():
            return {}
        blob = quantize(query)
        ids = list(vector_ids)
        windows: dict[int, int] = dict(self.rows_in("SELECT id, head FROM vectors WHERE head IN ({in})", ids))
        best: dict[int, float] = {}
        # One point query per vector: vec0 answers ``rowid = ?`` from its
        # rowid map, but ``rowid IN (...)`` scans every chunk (30 ms at 100k).
        for rowid in ids + list(windows):
            rows = cast("list[tuple[float | None]]", self.db.execute(
                "SELECT vec_distance_cosine(embedding, vec_int8(?)) FROM vec_units WHERE rowid = ?",
                (blob, rowid),
            ).fetchall())
            head = windows.get(rowid, rowid)
            for (distance,) in rows:
                if distance is not None and float(distance) < best.get(head, 3.0):
                    best[head] = float(distance)
        return best

    def iter_vectors(self, *, unchecked: bool = True) -> Iterator[tuple[bytes, int, bool, bytes]]:
        """Every stored text as ``(key, windows, truncated, int8 embedding of its windows in order)``.

        ``unchecked=False`` leaves out adopted vectors the local model has not
        checked yet (what is copied on must be this machine's own).
        """
        if not self.has_vector_table():
            return
        heads = self.db.execute("SELECT id, text_hash, windows, truncated FROM vectors WHERE head IS NULL" + (
            "" if unchecked else " AND text_hash NOT IN (SELECT text_hash FROM adopted)")).fetchall()
        for vid, key, windows, truncated in heads:
            ids = [int(vid)]  # type: ignore[arg-type]
            if int(windows) > 1:  # type: ignore[arg-type]
                ids += [int(cast(int, r[0])) for r in self.db.execute(
                    "SELECT id FROM vectors WHERE head = ? ORDER BY id", (vid,))]
            parts = []
            for rowid in ids:
                rows = self.db.execute("SELECT embedding FROM vec_units WHERE rowid = ?", (rowid,)).fetchall()
                if not rows or not isinstance(rows[0][0], bytes):
                    break
                parts.append(rows[0][0])
            if len(parts) == len(ids) and isinstance(key, bytes):
                yield key, len(parts), bool(truncated), b"".join(parts)


    # -- adopted vectors not checked yet (hookgraph.embed.recheck) -------------------

    def unchecked_count(self) -> int:
        """Adopted vectors the local model has not re-embedded yet (they rank meanwhile)."""
        return self.integer("SELECT count(*) FROM adopted")

    def next_unchecked(self, limit: int) -> list[UncheckedVector]:
        """Up to ``limit`` adopted vectors still to check, with their text, source and windows, oldest source first.

        A row whose vector went away (its units changed before the check) is
        not returned; :meth:`~hookgraph.store.Store.forget_unchecked_orphans` drops it.
        """
        if not self.has_vector_table():
            return []
        rows = self.db.execute(
            "SELECT a.text_hash, a.source, a.text, v.id, v.windows, v.truncated FROM adopted a "
            "JOIN vectors v ON v.text_hash = a.text_hash ORDER BY a.source, a.text_hash LIMIT ?", (int(limit),)
        ).fetchall()
        found = []
        for key, source, text, vid, windows, truncated in rows:
            ids = [int(cast(int, vid))] + [int(cast(int, r[0])) for r in self.db.execute(
                "SELECT id FROM vectors WHERE head = ? ORDER BY id", (vid,))]
            parts = [self.db.execute("SELECT embedding, language FROM vec_units WHERE rowid = ?", (i,)).fetchall()
                     for i in ids]
            if len(ids) != int(cast(int, windows)) or not all(p and isinstance(p[0][0], bytes) for p in parts):
                continue
            found.append(UncheckedVector(cast(bytes, key), str(source), str(text), int(cast(int, vid)),
                                         str(parts[0][0][1]), [cast(bytes, p[0][0]) for p in parts], bool(truncated)))
        return found

    def units_of_vector(self, vector_id: int) -> list[tuple[str, str]]:
        """``(qualname, path)`` of the units that point at a vector (how a message names a forged one)."""
        return [(str(q), str(p)) for q, p in self.db.execute(
            "SELECT qualname, path FROM units WHERE vector_id = ? ORDER BY path, start_line", (vector_id,))]


    # -- the queue of texts without a vector --------------------------------------

    def pending_count(self) -> int:
        """Distinct texts waiting for a vector."""
        return self.integer("SELECT count(*) FROM pending")

    def has_pending(self) -> bool:
        """Whether any text waits for a vector (one row read, whatever the queue's length)."""
        return self.integer("SELECT count(*) FROM (SELECT 1 FROM pending LIMIT 1)") > 0

    def next_pending(self, limit: int) -> list[tuple[bytes, str, str]]:
        """The next ``limit`` queued texts ``(hash, language, text)``: hooks' texts first, then in order."""
        rows = cast("list[tuple[bytes, str, str]]", self.db.execute(  # BLOB PRIMARY KEY, TEXT NOT NULL x2
            "SELECT text_hash, language, text FROM pending ORDER BY priority DESC, seq LIMIT ?", (int(limit),)
        ).fetchall())
        return [(bytes(h), str(lang), str(text)) for h, lang, text in rows]

    def queued_code(self, priority: int) -> list[tuple[bytes, int, str, str, str, str]]:
        """``(text hash, seq, name, kind, path, docstring)`` of each unit waiting with a text queued at
        ``priority`` (a text shared by several units comes once per unit): what orders the queue by use."""
        return cast("list[tuple[bytes, int, str, str, str, str]]", self.db.execute(
            "SELECT p.text_hash, p.seq, u.name, u.kind, u.path, u.docstring FROM pending p "
            "JOIN units u ON u.text_hash = p.text_hash WHERE p.priority = ?", (priority,)).fetchall())

    def pending_of_units(self, unit_ids: Iterable[int]) -> dict[int, tuple[bytes, str]]:
        """``{unit id: (text hash, composed text)}`` for these units that wait for a vector."""
        return {
            int(uid): (bytes(h), str(text))
            for uid, h, text in self.rows_in(
                "SELECT u.id, p.text_hash, p.text FROM units u JOIN pending p ON p.text_hash = u.text_hash "
                "WHERE u.id IN ({in})", unit_ids,
            )
        }


    # -- status -------------------------------------------------------------------

    def vectors_by_kind(self) -> dict[str, tuple[int, int, int]]:
        """``{kind: (units, units with a vector, units waiting for one)}`` (``status``'s per-kind line)."""
        rows = self.db.execute(
            "SELECT kind, count(*), count(vector_id), count(text_hash) FROM units GROUP BY kind ORDER BY kind")
        return {str(kind): (int(n), int(with_vector), int(waiting)) for kind, n, with_vector, waiting in rows}

    def units_lacking_vector(self) -> list[tuple[int, str, str, int, int, bool]]:
        """``(id, path, kind, start line, end line, waits for one)`` of every unit without a vector: what a
        changed no-embed rule must bring in line."""
        return cast("list[tuple[int, str, str, int, int, bool]]", self.db.execute(
            "SELECT id, path, kind, start_line, end_line, text_hash IS NOT NULL FROM units WHERE vector_id IS NULL"
        ).fetchall())

    def units_without_vector(self) -> Iterator[tuple[str, str, int, int]]:
        """``(path, kind, start line, end line)`` of every unit that has no vector and waits for none."""
        yield from self.db.execute(
            "SELECT path, kind, start_line, end_line FROM units WHERE vector_id IS NULL AND text_hash IS NULL")

    def counts(self) -> dict[str, Any]:
        """Numbers for ``status``: files by status, units by kind, vectors, edges by kind."""
        def grouped(sql: str) -> dict[str, int]:  # (status or kind: TEXT NOT NULL, count(*))
            return dict(cast("list[tuple[str, int]]", self.db.execute(sql).fetchall()))

        count = self.integer
        return {
            "files": grouped("SELECT status, count(*) FROM files GROUP BY status"),
            "units": grouped("SELECT kind, count(*) FROM units GROUP BY kind"),
            "vectors": count("SELECT count(*) FROM vectors WHERE head IS NULL"),
            "windows": count("SELECT count(*) FROM vectors"),
            "units_without_vector": count("SELECT count(*) FROM units WHERE vector_id IS NULL AND text_hash IS NULL"),
            "pending_texts": count("SELECT count(*) FROM pending"),
            "pending_units": count("SELECT count(*) FROM units WHERE text_hash IS NOT NULL"),
            "edges": grouped("SELECT kind, count(*) FROM edges GROUP BY kind"),
            "split_units": count(
                "SELECT count(*) FROM units u JOIN vectors v ON v.id = u.vector_id WHERE v.windows > 1"
            ),
            "truncated_units": count(
                "SELECT count(*) FROM units u JOIN vectors v ON v.id = u.vector_id WHERE v.truncated"
            ),
        }
