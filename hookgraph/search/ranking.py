"""The ranking itself: candidates from both lists, fusion, then every step in order (:func:`rank`).

:func:`search` and :func:`search_files` are its two faces. The fusion and
candidate constants live here; each later step's constants live in the module
of that step (:mod:`~hookgraph.search.boosts`, :mod:`~hookgraph.search.question_weights`,
:mod:`~hookgraph.search.arrange`, :mod:`~hookgraph.search.graph_answers`), read
from there at call time, so ``eval --set search.X`` and the tests change one place.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hookgraph.search import arrange, graph_answers, question_weights
from hookgraph.search import confidence as _confidence
from hookgraph.search.arrange import (
    _after_window,
    _containers_after_members,
    _defining_first,
    _definitions_before_declarations,
    _document_sections_spread,
    _one_per_name,
)
from hookgraph.search.boosts import (
    GraphMemo,
    _exact_above_the_rest,
    _exact_matches,
    _expand_graph,
    _keyword_boost,
)
from hookgraph.search.confidence import Evidence
from hookgraph.search.evidence import _similarity_gap, _spelled_in_code, _unit_count, _word_evidence
from hookgraph.search.files import FileResult, fuse_file_rankings, rank_files
from hookgraph.search.graph_answers import _graph_answers
from hookgraph.search.intent import Intent, is_code_name, read_intent
from hookgraph.search.kinds import KindFilter
from hookgraph.search.paths import is_test_path, matched_words, path_words
from hookgraph.search.question_weights import _weigh_wrappers, secondary_weight
from hookgraph.search.result import Result, _passes, fts_query, query_words
from hookgraph.store import Store, UnitRow

if TYPE_CHECKING:
    from hookgraph.embed import Embedder

#: How many candidates each list contributes before fusion.
CANDIDATES = 100
#: The share of the semantic half a unit the no-embed rule keeps from the model gets from its words (a waiting
#: unit gets all of it: it will have a vector). Full credit let a one-line constant or an HTML block that repeats
#: the question's words pass the code that does the work (tests/search/test_ranking*.py); none at all would bury
#: a one-liner asked about in its own words.
NO_EMBED_MEANING = 0.5
#: Weights of the fusion, each list's scores as a share of its best (one reference design's 0.4 / 0.6;
#: reciprocal rank fusion and min-max scaling of the similarities were worse: eval/RESULTS.md).
LEXICAL_WEIGHT = 0.4
SEMANTIC_WEIGHT = 0.6
#: How deep the full-text list is read to give semantic candidates their
#: BM25 score; below this rank a unit's share of the best is negligible, and
#: reading every match of a common word costs ~30 ms at 100,000 units.
LEXICAL_DEPTH = 1000
#: Score every candidate on both halves (a unit outside one half's candidate
#: list gets its real score there, not 0); off: an eval/ ablation.
COMPLETE_SCORES = True
#: While the background embedder is still at work, ``ask`` embeds this many of
#: the best lexical candidates that wait for their vector, within this many
#: seconds: the model is loaded for the query anyway, and ~30-70 texts/s here
#: make 8 texts cost 0.1-0.25 s, inside the 0.5 s an answer may take. Any
#: other waiting unit is scored as if its meaning agreed with its words
#: (its lexical share stands in for the semantic one), so it is never pushed
#: down for lacking a vector.
ON_THE_SPOT = 8
ON_THE_SPOT_SECONDS = 0.25
# The rules by query kind and for the files ranking (each measured on eval/, see eval/RESULTS.md; 0 / False: off).
#: Fusion weights for an identifier-like query (one name): words decide more than meaning.
IDENTIFIER_LEXICAL_WEIGHT = 0.4
IDENTIFIER_SEMANTIC_WEIGHT = 0.6
#: Units read to rank distinct files (``search_files``).
FILES_DEPTH = 100
#: Whether the files ranking reads units' expansion words (:mod:`hookgraph.parse.expansion`). Off: a file
#: where many units each imply a question word (``query.ts`` for "retried and paused while offline") passed
#: the file the question is about, through the files' summed-score lift: with it on, filebench right after
#: ``index`` 0.866 -> 0.862, and eval/'s held-out file questions 0.863 -> 0.823 (eval/RESULTS.md, "Learnt word
#: expansion"; both measured on the first designs, before the table kept only associations several projects share).
#: Measured again with the shipped table (2026-12-07): filebench 0.866 / 0.871 -> 0.862 / 0.872 (pending /
#: complete): still off.
FILES_EXPANSION = False
#: Files whose stem or last folders match the question's words join the candidates (their file unit and
#: their best units by words), this many files at most: a file named after the subject (``JsonElement.java``
#: for "JSON element hierarchy") can hold words too common to reach the top of BM25. 0: off.
PATH_CANDIDATE_FILES = 10
#: ... and this many of each such file's units by BM25 (its file unit always).
PATH_CANDIDATE_UNITS = 3
#: Files for a question are ranked by words alone and by meaning alone, and the two file rankings fused
#: (:func:`hookgraph.search.files.fuse_file_rankings`), instead of folding the one fused unit ranking. A
#: file found by its words through one unit and by its meaning through another is the place; fused unit by
#: unit, the unit with the stronger half speaks for the file alone. Measured (eval/RESULTS.md):
#: filebench complete 0.864 -> 0.869 (pending 0.849 -> 0.848), eval/'s file questions 0.833 -> 0.836 (held
#: out 0.837 -> 0.859). Without vectors (``--no-semantic``) there is one ranking, by words, as before.
FILES_BY_EACH_HALF = True
#: A question that asks for tests themselves ("test that an oversized record errors", "where is X tested?",
#: :func:`hookgraph.search.intent.asks_for_tests`) takes test code at full weight, and a test's words stand in
#: for all of its meaning (tests are never embedded, :mod:`hookgraph.embed.no_embed`), as for a unit waiting
#: for its vector: the weights that keep tests below the code they test would bury the very answer asked for.
ASKED_TESTS_IN_FULL = True
#: The static code embedding (:mod:`hookgraph.embed.static`): every unit has its static vector from the sync
#: that wrote it, so meaning ranks from the first second. In the meaning half it stands in for a model vector
#: a unit is still waiting for, where the words stood in before (a unit the no-embed rule keeps from the model
#: keeps ``NO_EMBED_MEANING`` of its words: at full static credit a one-line constant passed the code that does
#: the work, as full word credit did); a unit with a model
#: vector keeps its model similarity alone (0.3 of the meaning half from the static vector cost the requests
#: fixture's contract tests: hybrid below meaning alone). It scores the candidates the two lists found; its own
#: nearest units as candidates were measured and dropped (filebench, vectors pending: 100 of them 0.861, 20
#: 0.866, none 0.867; eval/RESULTS.md), but for the fallback below. Embedding the best waiting candidates on
#: the spot stays: without it filebench gained 0.002 more, but the confidence reads the answer's own
#: similarity from it in the first seconds (tests/search/test_ranking_contract.py), and that was not re-fitted.
#: ... except where the words find fewer than ``STATIC_FALLBACK`` units: then the units nearest the question's
#: static vector join (this many), so a question in other words than the code's has answers before any model
#: vector exists (on filebench every question's words find more, so no number there moves).
STATIC_FALLBACK = 10
STATIC_FALLBACK_UNITS = 20


def search(
    store: Store,
    query: str,
    *,
    top: int = 10,
    embedder: Embedder | None = None,
    path_glob: str | None = None,
    language: str | None = None,
    use_graph: bool = True,
    kinds: KindFilter | None = None,
) -> list[Result]:
    """Rank units for ``query``; ``embedder`` None means lexical and graph only.

    Every result carries a ``confidence`` (:mod:`hookgraph.search.confidence`);
    :func:`answer_match` turns them into the ``strong``/``weak`` verdict.
    ``kinds``: only units of those kinds (:mod:`hookgraph.search.kinds`).
    """
    return rank(store, query, depth=top, embedder=embedder, path_glob=path_glob, language=language,
                use_graph=use_graph, kinds=kinds)[:top]


def search_files(
    store: Store,
    query: str,
    *,
    top: int = 10,
    embedder: Embedder | None = None,
    path_glob: str | None = None,
    language: str | None = None,
    units_per_file: int = 3,
    kinds: KindFilter | None = None,
) -> list[FileResult]:
    """Distinct files for ``query``, best first, each with its best units (``ask --files``).

    The unit ranking is read deep (``FILES_DEPTH`` units) and folded into
    files by :func:`hookgraph.search.files.rank_files`: a file is as good as
    its best unit, lifted by its other strong units (coherence) and by
    question words in its name and folders. For a question, with vectors to
    read (``FILES_BY_EACH_HALF``), the files are ranked twice, once by words
    alone and once by meaning alone, and the two file rankings are fused
    (:func:`hookgraph.search.files.fuse_file_rankings`); each file shows the
    units the fused unit ranking found in it.
    """
    found = _gather(store, query, embedder, path_glob, language, for_files=True, kinds=kinds)
    question = found.intent.kind != "identifier"

    def ranked(weights: tuple[float, float], with_confidence: bool = False) -> list[Result]:
        return _ranked(store, query, found, depth=FILES_DEPTH, embedder=embedder, path_glob=path_glob,
                       language=language, weights=weights, with_confidence=with_confidence)

    results = ranked(_weights(found.intent), with_confidence=True)
    by_each_half = FILES_BY_EACH_HALF and question and found.query_vector is not None
    tests_asked = found.tests_asked
    if by_each_half:
        files = fuse_file_rankings(
            *(rank_files(ranking, found.words, top=FILES_DEPTH, units_per_file=units_per_file, tests_asked=tests_asked)
              for ranking in (ranked((1.0, 0.0)), ranked((0.0, 1.0)), results)),
            top=top)
    else:
        files = rank_files(results, found.words, top=top, units_per_file=units_per_file, question=question,
                           tests_asked=tests_asked)
    _confidence.score_files(files, results)
    return files


def answer_match(results: list[Any]) -> str:
    """``"strong"`` when the best answer's confidence reaches ``MATCH_THRESHOLD``, else ``"weak"``.

    ``results`` are :class:`Result` or :class:`FileResult` items (anything with
    a ``confidence``), as :func:`search` or :func:`search_files` returned them.
    """
    return _confidence.verdict(results)


def rank(
    store: Store,
    query: str,
    *,
    depth: int = 10,
    embedder: Embedder | None = None,
    path_glob: str | None = None,
    language: str | None = None,
    use_graph: bool = True,
    for_files: bool = False,
    kinds: KindFilter | None = None,
) -> list[Result]:
    """Every candidate for ``query`` ranked, with confidences; the first ``depth`` are the ones arranged for showing.

    ``for_files``: ranked for the files ranking: files named after the question's words join the
    candidates (the unit ranking of ``search`` is measured without them).
    """
    found = _gather(store, query, embedder, path_glob, language, for_files, kinds)
    return _ranked(store, query, found, depth=depth, embedder=embedder, path_glob=path_glob, language=language,
                   weights=_weights(found.intent), use_graph=use_graph)


@dataclass
class _Candidates:
    """What one query found, before any scoring: the two lists, the names it spells, the units themselves."""

    intent: Intent
    words: list[str]
    lexical: list[tuple[int, float]]
    semantic: list[tuple[int, float]]
    query_vector: Any
    best_similarity: float | None
    similarity_gap: float | None
    exact_ids: list[int]
    units: dict[int, UnitRow]
    keep: set[int]
    never_embedded: set[int]
    #: The question asks for tests themselves and tests count in full (``ASKED_TESTS_IN_FULL``).
    tests_asked: bool
    #: Each candidate's static similarity (:mod:`hookgraph.embed.static`; empty without the table).
    static: dict[int, float] = field(default_factory=dict)
    #: Calls resolved by one scoring's graph expansion, reused by the next.
    graph_memo: GraphMemo = field(default_factory=GraphMemo)
    #: ``--kind``: only units it admits are ranked (graph neighbours included).
    kinds: KindFilter | None = None


def _gather(store: Store, query: str, embedder: Embedder | None, path_glob: str | None, language: str | None,
            for_files: bool, kinds: KindFilter | None = None) -> _Candidates:
    """The candidates of both lists with both scores (the query embedded once, waiting units on the spot).

    ``kinds`` filters inside both lists' queries, so each still brings its full count of candidates.
    """
    intent = read_intent(query)
    question = intent.kind != "identifier"
    words = query_words(query)
    among = kinds.subset(store) if kinds is not None else None
    expansion = FILES_EXPANSION or not for_files
    every_lexical = store.fts_search(fts_query(words), LEXICAL_DEPTH, among, expansion) if words else []
    candidates = CANDIDATES
    lexical = every_lexical[:candidates]
    if for_files and question and PATH_CANDIDATE_FILES and words:
        lexical = _with_path_candidates(store, words, every_lexical, lexical)
    semantic: list[tuple[int, float]] = []
    query_vector = None
    nearest: list[float] = []
    if embedder is not None:
        query_vector = embedder.embed_query(query)
        hits = store.knn(query_vector, candidates, language, among)
        nearest = [1.0 - distance for _, distance in hits]
        by_vector = store.units_for_vectors(v for v, _ in hits)
        for vid, distance in hits:
            for uid in by_vector.get(vid, []):
                semantic.append((uid, 1.0 - distance))
    static_query = _static_query(query) if store.has_static_vectors() else None
    if static_query is not None and len(every_lexical) < STATIC_FALLBACK:
        known = {uid for uid, _ in every_lexical} | {uid for uid, _ in semantic}
        extra = {uid for uid, _ in store.static_nearest(static_query, STATIC_FALLBACK_UNITS)} - known
        lexical.extend((uid, 0.0) for uid in extra)
    if COMPLETE_SCORES:
        _complete(store, query_vector, dict(every_lexical), lexical, semantic)
    if query_vector is not None and embedder is not None:
        _score_waiting(store, embedder, query_vector, lexical, semantic)
    # The confidence's similarity evidence counts the units embedded on the spot: while the queue is being
    # worked through, the unit that answers may not have its vector yet, and the nearest of those that do
    # made a right answer look absent (requests: 0.38 -> 0.25 in the first 11 s, then 0.52). While fewer
    # units than the gap's rank have vectors and more wait, there is no population to stand out from yet:
    # no evidence either way (the confidence assumes its typical gap).
    best_similarity = max((s for _, s in semantic), default=None)
    population = len(nearest) >= _confidence.GAP_RANK or (bool(nearest) and not store.has_pending())
    similarity_gap = _similarity_gap(nearest, best_similarity) if population else None
    exact_ids = _exact_matches(store, query)

    ids = {uid for uid, _ in lexical} | {uid for uid, _ in semantic} | set(exact_ids)
    static = store.static_similarities(static_query, ids) if static_query else {}
    units = store.units_by_ids(ids)
    keep = {uid for uid, u in units.items() if _passes(u, path_glob, language) and (kinds is None or kinds.admits(u))}
    lexical = [(u, s) for u, s in lexical if u in keep]
    semantic = [(u, s) for u, s in semantic if u in keep]
    never = _never_embedded(store, {uid for uid, _ in lexical} - {uid for uid, _ in semantic}) \
        if query_vector is not None and NO_EMBED_MEANING != 1.0 else set()
    tests_asked = (intent.wants_tests or (kinds is not None and kinds.tests)) and ASKED_TESTS_IN_FULL
    if tests_asked:
        never = {uid for uid in never if not is_test_path(units[uid].path)}
    static = {uid: sim for uid, sim in static.items() if uid in keep}
    return _Candidates(intent, words, lexical, semantic, query_vector, best_similarity, similarity_gap, exact_ids,
                       units, keep, never, tests_asked, static,
                       kinds=kinds)


def _static_query(query: str) -> bytes | None:
    """The question's static vector as int8 bytes, or None without the table or a known word."""
    from hookgraph.embed import static as static_embedding

    model = static_embedding.shipped_model()
    vector = model.embed(query) if model is not None else None
    return static_embedding.quantize_unit(vector) if vector is not None else None


def _ranked(
    store: Store,
    query: str,
    found: _Candidates,
    *,
    depth: int,
    embedder: Embedder | None,
    path_glob: str | None,
    language: str | None,
    weights: tuple[float, float],
    use_graph: bool = True,
    with_confidence: bool = True,
) -> list[Result]:
    """The candidates scored with these fusion weights, lifted, weighed and arranged (every step in order).

    ``with_confidence`` False skips the confidence (its full-text lookups) for a ranking only read for order.
    """
    intent, words, units, keep = found.intent, found.words, found.units, found.keep
    lexical, semantic, query_vector = found.lexical, found.semantic, found.query_vector
    exact_ids = found.exact_ids
    question = intent.kind != "identifier"
    candidates = CANDIDATES
    results: dict[int, Result] = {}
    _fuse(results, units, lexical, semantic, impute=query_vector is not None, weights=weights,
          never_embedded=found.never_embedded, static=found.static)
    for uid in exact_ids:
        if uid in keep:
            r = results.setdefault(uid, Result(units[uid]))
            r.exact = True
            r.score += 1.0
            r.reasons.append("exact name")
    _keyword_boost(results, words)
    if use_graph and results:
        _expand_graph(store, results, path_glob, language, found.graph_memo)
        if found.kinds is not None:  # neighbours of another kind leave before they take a place
            results = {uid: r for uid, r in results.items() if found.kinds.admits(r.unit)}
    if question:
        for r in results.values():
            factor, why = secondary_weight(r.unit)
            if factor != 1.0 and not (found.tests_asked and is_test_path(r.unit.path)):
                r.score *= factor
                r.reasons.append(why)
    if question and question_weights.WRAPPER_WEIGHT != 1.0:
        _weigh_wrappers(store, results, candidates)
    if intent.kind == "identifier":
        _exact_above_the_rest(results)
    ranked = _one_per_name(sorted(results.values(), key=lambda r: (-r.score, r.unit.path, r.unit.start_line)))
    if question:
        repeated: set[int] = set()
        if arrange.DECLARATIONS_GIVE_WAY:
            ranked, repeated = _definitions_before_declarations(store, ranked, depth, path_glob, language)
        if arrange.DEDUP_CONTAINERS:
            ranked = _containers_after_members(ranked, depth, tuple(arrange.DEDUP_CONTAINERS.split(",")))
        if arrange.SECTIONS_PER_DOCUMENT:
            ranked = _document_sections_spread(ranked, depth, arrange.SECTIONS_PER_DOCUMENT)
        if repeated and arrange.DECLARATIONS_AFTER_WINDOW:
            ranked = _after_window(ranked, repeated, depth)
    if intent.kind == "identifier" and arrange.DEFINITIONS_FIRST:
        ranked = _defining_first(store, ranked)
    answered = None
    if intent.kind == "graph" and graph_answers.GRAPH_ANSWERS:
        answered = _graph_answers(store, intent, ranked, path_glob, language)
        if answered is not None:
            ranked = answered
    if found.kinds is not None:  # graph answers and declarations put back by the steps above
        ranked = [r for r in ranked if found.kinds.admits(r.unit)]
    if not with_confidence:
        return ranked
    frequencies, covered = _word_evidence(store, words, ranked[:3])
    pieces = [embedder.word_pieces(w) if f == 0 else [] for w, f in zip(words, frequencies)] if embedder else []
    code_name = intent.kind == "identifier" and is_code_name(query.strip())
    exact = any(r.exact for r in ranked[:1])
    evidence = Evidence(
        intent=intent.kind,
        words=words,
        frequencies=frequencies,
        covered=covered,
        units=_unit_count(store) if words else 1,
        best_similarity=found.best_similarity,
        similarity_gap=found.similarity_gap,
        exact=exact,
        graph_answered=answered is not None,
        code_name=code_name,
        pieces=pieces,
        spelled=code_name and not exact and _spelled_in_code(store, query.strip()),
    )
    _confidence.score_results(ranked, evidence)
    return ranked


def _complete(
    store: Store,
    query_vector: Any,
    every_lexical: dict[int, float],
    lexical: list[tuple[int, float]],
    semantic: list[tuple[int, float]],
) -> None:
    """Give every candidate both scores, in place.

    A unit found by one half only is not scored 0 by the other: it simply
    fell outside that half's candidate list. Without this, a function that
    is 3rd by its words but 101st by meaning gets no semantic credit at all
    and sinks below units that are mediocre on both.
    """
    lexical_ids = {uid for uid, _ in lexical}
    semantic_ids = {uid for uid, _ in semantic}
    if query_vector is not None:
        missing = store.vector_ids_of_units(lexical_ids - semantic_ids)
        distances = store.vector_distances(query_vector, set(missing.values()))
        semantic.extend((uid, 1.0 - distances[vid]) for uid, vid in missing.items() if vid in distances)
    lexical.extend((uid, every_lexical[uid]) for uid in semantic_ids - lexical_ids if uid in every_lexical)
    lexical.sort(key=lambda item: -item[1])  # best first, as each half's own list is
    semantic.sort(key=lambda item: -item[1])


def _score_waiting(
    store: Store,
    embedder: Embedder,
    query_vector: Any,
    lexical: list[tuple[int, float]],
    semantic: list[tuple[int, float]],
) -> None:
    """Embed the best lexical candidates still waiting for their vector, on the spot (bounded), in place.

    A unit the no-embed rule keeps from the model is never waiting, so never embedded here either: the
    rule exists to save model time, and ``_fuse`` lets its words stand in for its meaning.
    """
    import time

    scored = {uid for uid, _ in semantic}
    waiting_ids = [uid for uid, _ in lexical if uid not in scored][: ON_THE_SPOT * 4]
    if not waiting_ids:
        return
    waiting = store.pending_of_units(waiting_ids)
    if not waiting:
        return
    import numpy as np  # only here: a new ``ask`` process with nothing waiting never imports it (60-80 ms)

    deadline = time.monotonic() + ON_THE_SPOT_SECONDS
    query = np.asarray(query_vector, dtype=np.float32)
    done: dict[bytes, float] = {}
    for uid in [u for u in waiting_ids if u in waiting][:ON_THE_SPOT]:
        text_hash, text = waiting[uid]
        if text_hash not in done:
            if time.monotonic() >= deadline:
                break
            ((windows, _cut),) = embedder.embed_windows([text])
            done[text_hash] = float(np.max(np.asarray(windows, dtype=np.float32) @ query))
        semantic.append((uid, done[text_hash]))
    semantic.sort(key=lambda item: -item[1])


def _never_embedded(store: Store, unit_ids: set[int]) -> set[int]:
    """The units among these that the no-embed rule keeps from the model (no text to embed, ever)."""
    if not unit_ids:
        return set()
    return store.units_not_waiting(unit_ids)


def _fuse(
    results: dict[int, Result],
    units: dict[int, UnitRow],
    lexical: list[tuple[int, float]],
    semantic: list[tuple[int, float]],
    impute: bool = False,
    weights: tuple[float, float] | None = None,
    never_embedded: set[int] | frozenset[int] = frozenset(),
    static: dict[int, float] | None = None,
) -> None:
    """Fuse the two halves into ``results``; ``static``: each candidate's static similarity, the meaning of a
    candidate without a model vector;
    ``impute``: a lexical candidate with no semantic score
    (its vector is still being embedded, or the no-embed rule gave it none: see
    :mod:`hookgraph.embed.no_embed`) gets its lexical share for the semantic half too."""
    lexical_weight, semantic_weight = weights or (LEXICAL_WEIGHT, SEMANTIC_WEIGHT)
    best_lexical = max((s for _, s in lexical), default=0.0) or 1.0
    for uid, score in lexical:
        r = results.setdefault(uid, Result(units[uid]))
        r.lexical = score
        r.score += lexical_weight * (score / best_lexical)
    static = static or {}
    best_static = max(static.values(), default=0.0)

    def static_share(uid: int) -> float | None:
        sim = static.get(uid)
        return None if sim is None or best_static <= 0.0 else max(sim, 0.0) / best_static

    if semantic:
        best_semantic = max(s for _, s in semantic) or 1.0
        for uid, sim in semantic:
            r = results.setdefault(uid, Result(units[uid]))
            r.semantic = sim
            r.score += semantic_weight * (sim / best_semantic)
    with_meaning = {uid for uid, _ in semantic}
    if static:
        for uid in static:
            by_table = static_share(uid)
            if uid in with_meaning or by_table is None or uid in never_embedded:
                continue
            r = results.setdefault(uid, Result(units[uid]))
            r.score += semantic_weight * by_table
            r.reasons.append("no model vector: its static vector stands in for its meaning")
        with_meaning |= set(static) - set(never_embedded)
    if impute:
        for uid, score in lexical:
            if uid not in with_meaning:
                r = results[uid]
                if uid in never_embedded:
                    r.score += NO_EMBED_MEANING * semantic_weight * (score / best_lexical)
                    r.reasons.append("no vector (not embedded by rule): its words stand in for part of its meaning")
                else:
                    r.score += semantic_weight * (score / best_lexical)
                    r.reasons.append("no vector yet: words stand in for meaning")


def _weights(intent: Intent) -> tuple[float, float]:
    """Fusion weights by query type: an identifier leans on its words, a question on both."""
    if intent.kind == "identifier":
        return IDENTIFIER_LEXICAL_WEIGHT, IDENTIFIER_SEMANTIC_WEIGHT
    return LEXICAL_WEIGHT, SEMANTIC_WEIGHT


def _with_path_candidates(
    store: Store, words: list[str], every_lexical: list[tuple[int, float]], lexical: list[tuple[int, float]]
) -> list[tuple[int, float]]:
    """``lexical`` plus the units of the files whose paths match the question best (``PATH_CANDIDATE_FILES``).

    Files are ranked by how many question words their stem and folders
    match, then by how much of the stem those words cover (``Applicative``
    before ``CommutativeApplicative`` for "applicative"). Each brings its
    file unit and its best units by words, with their real BM25 scores (0
    when the words are not in them: the semantic half and the file
    ranking's path lift decide).
    """
    matches = []
    for path in store.file_paths():
        pw = path_words(path)
        hit = matched_words(words, pw.stem | pw.folders)
        if hit:
            stem_hit = len(matched_words(words, pw.stem))
            matches.append((-len(hit), -(stem_hit / max(len(pw.stem), 1)), path))
    if not matches:
        return lexical
    chosen = {path for _, _, path in sorted(matches)[:PATH_CANDIDATE_FILES]}
    have = {uid for uid, _ in lexical}
    scores = dict(every_lexical)
    extra: list[tuple[int, float]] = []
    per_file: dict[str, int] = {}
    rows = store.units_of_files(chosen)
    for uid, path, kind in sorted(rows, key=lambda row: (row[2] != "file", -scores.get(row[0], 0.0))):
        if uid in have or (kind != "file" and uid not in scores):
            continue
        if per_file.get(path, 0) > PATH_CANDIDATE_UNITS:
            continue
        per_file[path] = per_file.get(path, 0) + 1
        extra.append((uid, scores.get(uid, 0.0)))
    return sorted(lexical + extra, key=lambda item: -item[1])
