"""Hybrid ranking: lexical (BM25 over identifier words), semantic (KNN), graph.

Each signal alone fails somewhere: BM25 misses questions phrased in other
words than the code's, embeddings blur exact identifiers, and neither knows
that the function you want is the one the best hit calls. So we take the top
candidates of both lists, fuse them, put exact identifier matches first, and
let the best hits lift their callers and callees a little.

The steps, each measured on ``eval/`` (real projects, see eval/RESULTS.md)
and kept because it helped there:

1. fusion: both scores as a share of their list's best, 0.4 lexical + 0.6
   semantic (reciprocal rank fusion and min-max scaling were worse); a
   candidate from one list gets its real score from the other, not 0;
2. exact name or qualified name: +1, so identifiers come first;
3. keyword boost: +0.05 per query word in the name, signature or module;
4. graph: the 5 best hits pass 0.1 of their score to what they call and
   what calls them (0.25 pulled in too much);
5. for questions (not identifiers): tests x0.8, doc sections x0.8, release
   notes x0.5 — they mention everything the code does, in its words; type
   declarations (struct, enum, interface, trait, named type) x0.8 — they carry the
   words of what they configure, the code that does it is the answer;
6. a file unit ranked above one of its own definitions goes just below
   the best of them (the definition is the precise answer). The same for a
   class and its methods made things worse and is not done;
7. one place per name in a file (typing overloads), and one per document
   among the places shown: its other sections follow them.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import apsw

from hookgraph.parse.languages import REGISTRY
from hookgraph.parse.qualnames import last_part, spellings
from hookgraph.parse.words import identifier_words
from hookgraph.search import confidence as _confidence
from hookgraph.search.confidence import Evidence
from hookgraph.search.files import FileResult, rank_files
from hookgraph.search.graph import SymbolNotFound, callees_of, callers_of, find_symbol, resolve_call, resolve_name
from hookgraph.search.intent import Intent, is_code_name, looks_like_identifier, read_intent
from hookgraph.search.paths import (
    DECLARATION_SUFFIXES,
    TS_DECLARATION_SUFFIXES,
    is_test_path,
    matched_words,
    path_words,
)
from hookgraph.store import Store, UnitRow

__all__ = ["Result", "FileResult", "search", "search_files", "answer_match", "query_words", "fts_query",
           "looks_like_identifier", "read_intent", "resolve_name", "is_test_path"]

if TYPE_CHECKING:
    from hookgraph.embed import Embedder

#: How many candidates each list contributes before fusion.
CANDIDATES = 100
#: How the two lists are fused: "weighted" (normalised scores) or "rrf" (reciprocal ranks).
FUSION = "weighted"
#: Reciprocal rank fusion constant (the usual 60 flattens a short list too much).
RRF_K = 20
#: Weights of the normalised-score fusion (one reference design's 0.4 / 0.6).
LEXICAL_WEIGHT = 0.4
SEMANTIC_WEIGHT = 0.6
#: How semantic similarities are put on a 0..1 scale: "minmax" over the candidates, or "max" (share of the best).
SEMANTIC_NORM = "max"
#: Bonus per query word found in a unit's name or signature.
KEYWORD_BOOST = 0.05
#: How many top hits seed graph expansion, and how much of their score flows on.
GRAPH_SEEDS = 5
GRAPH_DECAY = 0.1
#: The keyword boost also counts words of the unit's module (file name).
KEYWORD_MODULE = True
#: Score factor for units in test files when the query is a question, not an identifier.
TEST_WEIGHT = 0.8
#: Score factor for doc sections (Markdown/reST) when the query is a question.
DOC_WEIGHT = 0.8
#: Score factor for the blocks and text windows of files hookgraph has no code parser for, for questions.
FALLBACK_WEIGHT = 0.8
#: Score factor for type declarations (struct, enum, interface, trait, named type) when the query is a question:
#: a type shares the words of what it configures or carries, but the behaviour asked about is code.
TYPE_WEIGHT = 0.8
TYPE_KINDS = "struct,enum,interface,trait,type"
#: Score factor for named values (constants, package variables, statics) when the query is a
#: question: one line that shares a word with the question (``errTimedOut``, ``MousetrapHelpText``) is
#: rarely the behaviour asked about; asked by name, a value ranks like any other unit.
VALUE_WEIGHT = 0.7
VALUE_KINDS = "constant,variable"
#: Score factor for release notes (CHANGES, CHANGELOG, HISTORY, NEWS) when the query is a question.
CHANGELOG_WEIGHT = 0.5
#: Containers (of these kinds) ranked above one of their own members go just below the best of them.
DEDUP_CONTAINERS = "file,module"
#: Places one document (its sections and file unit) may take among those shown; the rest follow. 0: no limit.
SECTIONS_PER_DOCUMENT = 1
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

# Issue 15's rules (each measured on eval/, see eval/RESULTS.md; 0 / False: off).
#: Fusion weights for an identifier-like query (one name): words decide more than meaning.
IDENTIFIER_LEXICAL_WEIGHT = 0.4
IDENTIFIER_SEMANTIC_WEIGHT = 0.6
#: Added to a unit that defines a code name written inside a question (``CamelCase``, ``snake_case``, ``Foo.bar``).
DEFINITION_BOOST = 0.0
#: Per question word matching the unit's file stem / one of its last folders (prefix-matched inflections).
PATH_BOOST = 0.0
FOLDER_BOOST = 0.0
#: A file with several strong units lifts its best one by this share of the next best two.
COHERENCE = 0.0
#: A bodiless declaration (C header prototype, ``.d.ts``) gives its place to the definition of the same name.
DECLARATIONS_GIVE_WAY = True
#: ... and, its definition shown, waits after the shown window: it would show the same function twice.
DECLARATIONS_AFTER_WINDOW = True
#: Among units named exactly as an identifier query, the one that defines it first: a definition before
#: its bodiless declaration (C header prototype, also one over several lines: a header unit with a
#: same-named twin outside headers), a class before its own constructor (Java ``X.X``).
DEFINITIONS_FIRST = True
#: "what calls X?" / "what does X call?" answered from the call graph (callers or callees of X first).
GRAPH_ANSWERS = True
#: A call that may run more than this many of our units (``@app.call`` in Rack: every
#: middleware's ``call``) is a guess: its units follow the calls that name one place.
AMBIGUOUS_CALL = 3
#: Score factor for a wrapper when the query is a question: a container whose one member is
#: another container spanning nearly all of it (``module Rack`` around ``class Static``) adds no
#: place of its own; its member is the answer. 1.0: off.
WRAPPER_WEIGHT = 0.5
#: Share of the wrapper's lines its one member must span (before it may come comments, requires, constants).
WRAPPER_SPAN = 0.3
#: Units read to rank distinct files (``search_files``).
FILES_DEPTH = 100

STOPWORDS = frozenset(
    """a an and are as at be by can do does for from get gets how i if in into is it its
    of on or so that the their them then there these this to was what when where which
    who why will with you your we our me my code function method class""".split()
)


@dataclass
class Result:
    """One ranked unit with the part each signal played."""

    unit: UnitRow
    score: float = 0.0
    lexical: float | None = None
    semantic: float | None = None
    graph: float | None = None
    exact: bool = False
    reasons: list[str] = field(default_factory=list)
    #: How likely this result is a right answer, 0..1 (see :mod:`hookgraph.search.confidence`).
    confidence: float = 0.0
    #: What ``confidence`` was computed from (:func:`hookgraph.search.confidence.features`).
    features: dict[str, float] = field(default_factory=dict)


def query_words(query: str) -> list[str]:
    """The words BM25 looks for: identifier-split, lower-case, without filler words."""
    words = [w for w in identifier_words(query) if w not in STOPWORDS and len(w) > 1]
    return list(dict.fromkeys(words))


def fts_query(words: Iterable[str]) -> str:
    """An FTS5 MATCH expression OR-ing the words (quoted: no operator injection)."""
    return " OR ".join(f'"{w}"' for w in words)


def search(
    store: Store,
    query: str,
    *,
    top: int = 10,
    embedder: Embedder | None = None,
    path_glob: str | None = None,
    language: str | None = None,
    fusion: str | None = None,
    use_graph: bool = True,
) -> list[Result]:
    """Rank units for ``query``; ``embedder`` None means lexical and graph only.

    Every result carries a ``confidence`` (:mod:`hookgraph.search.confidence`);
    :func:`answer_match` turns them into the ``strong``/``weak`` verdict.
    """
    return rank(store, query, depth=top, embedder=embedder, path_glob=path_glob, language=language,
                fusion=fusion, use_graph=use_graph)[:top]


def search_files(
    store: Store,
    query: str,
    *,
    top: int = 10,
    embedder: Embedder | None = None,
    path_glob: str | None = None,
    language: str | None = None,
    units_per_file: int = 3,
) -> list[FileResult]:
    """Distinct files for ``query``, best first, each with its best units (``ask --files``).

    The unit ranking is read deep (``FILES_DEPTH`` units) and folded into
    files by :func:`hookgraph.search.files.rank_files`: a file is as good as
    its best unit, lifted by its other strong units (coherence) and by
    question words in its name and folders.
    """
    results = rank(store, query, depth=FILES_DEPTH, embedder=embedder, path_glob=path_glob, language=language)
    files = rank_files(results, query_words(query), top=top, units_per_file=units_per_file)
    _confidence.score_files(files, results)
    return files


def answer_match(results: list[Any], query: str = "") -> str:
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
    fusion: str | None = None,
    use_graph: bool = True,
) -> list[Result]:
    """Every candidate for ``query`` ranked, with confidences; the first ``depth`` are the ones arranged for showing."""
    fusion = fusion or FUSION
    intent = read_intent(query)
    question = intent.kind != "identifier"
    words = query_words(query)
    every_lexical = store.fts_search(fts_query(words), LEXICAL_DEPTH) if words else []
    lexical = every_lexical[:CANDIDATES]
    semantic: list[tuple[int, float]] = []
    query_vector = None
    similarity_gap = None
    if embedder is not None:
        query_vector = embedder.embed_query(query)
        hits = store.knn(query_vector, CANDIDATES, language)
        similarity_gap = _similarity_gap([1.0 - distance for _, distance in hits])
        by_vector = store.units_for_vectors(v for v, _ in hits)
        for vid, distance in hits:
            for uid in by_vector.get(vid, []):
                semantic.append((uid, 1.0 - distance))
    best_similarity = max((s for _, s in semantic), default=None)
    if COMPLETE_SCORES:
        _complete(store, query_vector, dict(every_lexical), lexical, semantic)
    if query_vector is not None and embedder is not None:
        _score_waiting(store, embedder, query_vector, lexical, semantic)
    exact_ids = _exact_matches(store, query)
    named_ids = _named_definitions(store, intent) if DEFINITION_BOOST and question else []

    ids = {uid for uid, _ in lexical} | {uid for uid, _ in semantic} | set(exact_ids) | set(named_ids)
    units = store.units_by_ids(ids)
    keep = {uid for uid, u in units.items() if _passes(u, path_glob, language)}

    results: dict[int, Result] = {}
    lexical = [(u, s) for u, s in lexical if u in keep]
    semantic = [(u, s) for u, s in semantic if u in keep]
    weights = _weights(intent)
    _fuse(results, units, lexical, semantic, fusion, impute=query_vector is not None, weights=weights)
    for uid in exact_ids:
        if uid in keep:
            r = results.setdefault(uid, Result(units[uid]))
            r.exact = True
            r.score += 1.0
            r.reasons.append("exact name")
    for uid in named_ids:
        if uid in keep:
            r = results.setdefault(uid, Result(units[uid]))
            r.score += DEFINITION_BOOST
            r.reasons.append("defines a name in the question")
    _keyword_boost(results, words)
    if question and (PATH_BOOST or FOLDER_BOOST):
        _path_boost(results, words)
    if use_graph and results:
        _expand_graph(store, results, path_glob, language)
    if question:
        for r in results.values():
            factor, why = secondary_weight(r.unit)
            if factor != 1.0:
                r.score *= factor
                r.reasons.append(why)
    if question and WRAPPER_WEIGHT != 1.0:
        _weigh_wrappers(store, results)
    if question and COHERENCE:
        _file_coherence(results)
    ranked = _one_per_name(sorted(results.values(), key=lambda r: (-r.score, r.unit.path, r.unit.start_line)))
    if question:
        repeated: set[int] = set()
        if DECLARATIONS_GIVE_WAY:
            ranked, repeated = _definitions_before_declarations(store, ranked, depth, path_glob, language)
        if DEDUP_CONTAINERS:
            ranked = _containers_after_members(ranked, depth, tuple(DEDUP_CONTAINERS.split(",")))
        if SECTIONS_PER_DOCUMENT:
            ranked = _document_sections_spread(ranked, depth, SECTIONS_PER_DOCUMENT)
        if repeated and DECLARATIONS_AFTER_WINDOW:
            ranked = _after_window(ranked, repeated, depth)
    if intent.kind == "identifier" and DEFINITIONS_FIRST:
        ranked = _defining_first(store, ranked)
    answered = None
    if intent.kind == "graph" and GRAPH_ANSWERS:
        answered = _graph_answers(store, intent, ranked, path_glob, language)
        if answered is not None:
            ranked = answered
    frequencies, covered = _word_evidence(store, words, ranked[:3])
    pieces = [embedder.word_pieces(w) if f == 0 else [] for w, f in zip(words, frequencies)] if embedder else []
    evidence = Evidence(
        intent=intent.kind,
        words=words,
        frequencies=frequencies,
        covered=covered,
        units=_unit_count(store) if words else 1,
        best_similarity=best_similarity,
        similarity_gap=similarity_gap,
        exact=any(r.exact for r in ranked[:1]),
        graph_answered=answered is not None,
        code_name=intent.kind == "identifier" and is_code_name(query.strip()),
        pieces=pieces,
    )
    _confidence.score_results(ranked, evidence)
    return ranked


_CHANGELOG_STEMS = frozenset({"changes", "changelog", "history", "news", "releases", "release-notes"})


def secondary_weight(unit: UnitRow) -> tuple[float, str]:
    """How much a question should trust this unit as an answer: code first; tests, docs, release notes less."""
    stem = unit.path.rsplit("/", 1)[-1].split(".", 1)[0].lower()
    if stem in _CHANGELOG_STEMS:
        return CHANGELOG_WEIGHT, "release notes"
    if is_test_path(unit.path):
        return TEST_WEIGHT, "test code"
    if unit.kind == "section":
        return DOC_WEIGHT, "documentation"
    if FALLBACK_WEIGHT != 1.0 and unit.kind in ("block", "chunk"):
        return FALLBACK_WEIGHT, "not code: a block of markup, config or text"
    if TYPE_WEIGHT != 1.0 and unit.kind in TYPE_KINDS.split(","):
        return TYPE_WEIGHT, "a type, not behaviour"
    if VALUE_WEIGHT != 1.0 and unit.kind in VALUE_KINDS.split(","):
        return VALUE_WEIGHT, "a named value, not behaviour"
    return 1.0, ""


_NOT_CONTAINERS = frozenset({"file", "function", "method", "section", "block", "chunk"})


def _weigh_wrappers(store: Store, results: dict[int, Result]) -> None:
    """Weigh down the wrappers among the best candidates (see ``WRAPPER_WEIGHT``).

    ``module Rack`` around ``class URLMap`` holds the class's doc comment as
    well as its code, so it matched a question as well as the class did and
    took a place that shows nothing new (rack: 19 of 215 NL top-5 places).
    """
    best = sorted(results.values(), key=lambda r: -r.score)[:CANDIDATES]
    wrappers = _wrappers(store, best)
    for r in best:
        if r.unit.id in wrappers:
            r.score *= WRAPPER_WEIGHT
            r.reasons.append("a wrapper around its one member")


def _wrappers(store: Store, candidates: list[Result]) -> set[int]:
    """The ids of the candidates that are wrappers: a container whose one member is a container ending with it.

    A container with several members, or with code of its own around one
    member (at least ``WRAPPER_SPAN`` of it is the member), is not a wrapper.
    """
    members = _members(store, candidates)
    found = set()
    for r in candidates:
        u = r.unit
        own = members.get(u.id, [])
        if len(own) != 1 or own[0][0] in _NOT_CONTAINERS:
            continue
        _, start, end = own[0]
        # the member ends where the wrapper does; before it may come only comments and constants
        if end >= u.end_line - 2 and end - start + 1 >= WRAPPER_SPAN * (u.end_line - u.start_line + 1):
            found.add(u.id)
    return found


def _members(store: Store, candidates: list[Result]) -> dict[int, list[tuple[str, int, int]]]:
    """Per container among ``candidates`` (by unit id): its direct members' kinds and lines."""
    containers = [r.unit for r in candidates if r.unit.kind not in _NOT_CONTAINERS]
    if not containers:
        return {}
    rows = store.rows_in(  # by path: the index there; a file holds few units
        "SELECT path, parent, kind, start_line, end_line FROM units WHERE path IN ({in})",
        {u.path for u in containers},
    )
    by_parent: dict[tuple[str, str], list[tuple[str, int, int]]] = {}
    for path, parent, kind, start, end in rows:
        if parent is not None:
            by_parent.setdefault((path, parent), []).append((kind, start, end))
    return {u.id: by_parent.get((u.path, u.qualname), []) for u in containers}


def _one_per_name(ranked: list[Result]) -> list[Result]:
    """Keep the best of several units with one name in one file.

    Typing overloads (``@overload`` stubs before the implementation) and
    re-declarations are one thing to the reader; three copies of
    ``ssl_wrap_socket`` would take three of the five places shown.
    """
    seen: set[tuple[str, str, str]] = set()
    out: list[Result] = []
    for r in ranked:
        key = (r.unit.path, r.unit.kind, r.unit.qualname)
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def _document_sections_spread(ranked: list[Result], top: int, per_document: int) -> list[Result]:
    """Let a document take at most ``per_document`` of the places shown; its other sections follow.

    A README chapter matches a question with every one of its subsections;
    five slices of one chapter are one answer, and they push the code that
    implements it off the screen. Sections held back keep their order after
    the shown window, so a longer list still has them.
    """
    window = max(top, 10)
    shown: list[Result] = []
    held: list[Result] = []
    per_path: dict[str, int] = {}
    for r in ranked:
        if len(shown) >= window:
            break
        if _is_document_part(r.unit):
            if per_path.get(r.unit.path, 0) >= per_document:
                held.append(r)
                continue
            per_path[r.unit.path] = per_path.get(r.unit.path, 0) + 1
        shown.append(r)
    rest = ranked[len(shown) + len(held):]
    return shown + held + rest


def _is_document_part(unit: UnitRow) -> bool:
    """A section of a document, or the document's own file unit (its table of contents)."""
    if unit.kind == "section":
        return True
    spec = REGISTRY.get(unit.language)
    return unit.kind == "file" and spec is not None and bool(spec.sections)


def _is_member(unit: UnitRow, container: UnitRow) -> bool:
    if unit.path != container.path or unit.id == container.id:
        return False
    if container.kind == "file":
        return unit.kind != "file"
    return unit.parent == container.qualname


def _containers_after_members(ranked: list[Result], top: int, kinds: tuple[str, ...]) -> list[Result]:
    """Move a class (or file) that outranks its own members to just after the best of them.

    A question answered by a method also matches the class that lists it;
    the method is the answer, the class is context. Only members within the
    shown window count, so a class whose members are nowhere near stays put.
    """
    window = ranked[: max(top * 2, 20)]
    out: list[Result] = []
    waiting: dict[int, Result] = {}
    for r in window:
        if r.unit.kind in kinds and any(
            _is_member(m.unit, r.unit) for m in window[window.index(r) + 1 :]
        ):
            waiting[r.unit.id] = r
            continue
        out.append(r)
        for cid, c in list(waiting.items()):
            if _is_member(r.unit, c.unit):
                c.score = r.score
                c.reasons.append("after its member")
                out.append(c)
                del waiting[cid]
    out.extend(waiting.values())
    return out + ranked[len(window) :]


def _passes(unit: UnitRow, path_glob: str | None, language: str | None) -> bool:
    if language and unit.language != language:
        return False
    if path_glob and not (fnmatch.fnmatch(unit.path, path_glob) or unit.path.startswith(path_glob.rstrip("/") + "/")):
        return False
    return True


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


def _exact_matches(store: Store, query: str) -> list[int]:
    """Units whose name or qualified name is exactly the query (an identifier search)."""
    q = query.strip()
    if not looks_like_identifier(q):
        return []
    names = spellings(q)
    marks = ",".join("?" * len(names))
    rows = store.units_where(f"qualname IN ({marks}) OR name IN ({marks})", (*names, *names))
    if not rows and len(names) > 1:
        rows = store.units_where("name = ?", (last_part(q),))
    # Prefer code definitions over file units and doc sections of the same name.
    return [r.id for r in rows if r.kind not in ("file", "section")] or [r.id for r in rows]


def _fuse(
    results: dict[int, Result],
    units: dict[int, UnitRow],
    lexical: list[tuple[int, float]],
    semantic: list[tuple[int, float]],
    fusion: str,
    impute: bool = False,
    weights: tuple[float, float] | None = None,
) -> None:
    """Fuse the two halves into ``results``; ``impute``: a lexical candidate with no semantic score
    (its vector is still being embedded, or the no-embed rule gave it none: see
    :mod:`hookgraph.embed.no_embed`) gets its lexical share for the semantic half too."""
    if fusion == "rrf":
        for rank, (uid, score) in enumerate(lexical):
            r = results.setdefault(uid, Result(units[uid]))
            r.lexical = score
            r.score += 1.0 / (RRF_K + rank + 1)
        for rank, (uid, sim) in enumerate(semantic):
            r = results.setdefault(uid, Result(units[uid]))
            r.semantic = sim
            r.score += 1.0 / (RRF_K + rank + 1)
        # Put RRF on the same 0..1-ish scale as the boosts.
        for r in results.values():
            r.score *= RRF_K / 2
        return
    if fusion != "weighted":
        raise ValueError(f"unknown fusion {fusion!r}")
    lexical_weight, semantic_weight = weights or (LEXICAL_WEIGHT, SEMANTIC_WEIGHT)
    best_lexical = max((s for _, s in lexical), default=0.0) or 1.0
    for uid, score in lexical:
        r = results.setdefault(uid, Result(units[uid]))
        r.lexical = score
        r.score += lexical_weight * (score / best_lexical)
    if semantic:
        sims = [s for _, s in semantic]
        floor = min(sims) if SEMANTIC_NORM == "minmax" else 0.0
        spread = (max(sims) - floor) or 1.0
        for uid, sim in semantic:
            r = results.setdefault(uid, Result(units[uid]))
            r.semantic = sim
            r.score += semantic_weight * ((sim - floor) / spread)
    if impute:
        with_meaning = {uid for uid, _ in semantic}
        for uid, score in lexical:
            if uid not in with_meaning:
                r = results[uid]
                r.score += semantic_weight * (score / best_lexical)
                r.reasons.append("no vector (waiting, or not embedded by rule): words stand in for meaning")


def _keyword_boost(results: dict[int, Result], words: list[str]) -> None:
    """A small bonus per query word in the name or signature: lifts 2nd to 1st, no more."""
    if not words:
        return
    wanted = set(words)
    for r in results.values():
        u = r.unit
        text = f"{u.qualname} {u.signature}"
        if KEYWORD_MODULE and u.kind != "section":
            text += " " + u.path.rsplit("/", 1)[-1].split(".", 1)[0]
        hit = wanted & set(identifier_words(text))
        if hit:
            r.score += KEYWORD_BOOST * len(hit)


def _expand_graph(store: Store, results: dict[int, Result], path_glob: str | None, language: str | None) -> None:
    """Let the best hits lift what they call and what calls them."""
    seeds = sorted(results.values(), key=lambda r: -r.score)[:GRAPH_SEEDS]
    seed_ids = [r.unit.id for r in seeds]
    seed_score = {r.unit.id: r.score for r in seeds}
    flows: dict[int, float] = {}
    cache: dict[str, list[UnitRow]] = {}
    # Callees: what a seed calls, resolved to definitions.
    for source, _kind, target, full, _line in store.edges_from(seed_ids, "calls"):
        for callee in resolve_call(store, target, full, results[source].unit, cache):
            flows[callee.id] = max(flows.get(callee.id, 0.0), GRAPH_DECAY * seed_score[source])
    # Callers: units whose calls resolve to a seed.
    names = list({results[s].unit.name for s in seed_ids})
    edges = store.edges_to(names, "calls")
    origins = store.units_by_ids({e[0] for e in edges})
    for source, target, full, _line in edges:
        origin = origins.get(source)
        if origin is None:
            continue
        hit = [seed_score[u.id] for u in resolve_call(store, target, full, origin, cache) if u.id in seed_score]
        if hit:
            flows[source] = max(flows.get(source, 0.0), GRAPH_DECAY * max(hit))
    flows = {uid: f for uid, f in flows.items() if uid not in seed_score}
    if not flows:
        return
    units = store.units_by_ids(flows)
    for uid, flow in flows.items():
        unit = units.get(uid)
        if unit is None or not _passes(unit, path_glob, language):
            continue
        r = results.setdefault(uid, Result(unit))
        r.graph = flow
        r.score += flow


def _weights(intent: Intent) -> tuple[float, float]:
    """Fusion weights by query type: an identifier leans on its words, a question on both."""
    if intent.kind == "identifier":
        return IDENTIFIER_LEXICAL_WEIGHT, IDENTIFIER_SEMANTIC_WEIGHT
    return LEXICAL_WEIGHT, SEMANTIC_WEIGHT


def _named_definitions(store: Store, intent: Intent) -> list[int]:
    """Code units defining a name the question spells (``CamelCase``, ``snake_case``, ``Foo.bar``)."""
    out: list[int] = []
    for name in intent.names:
        names = spellings(name)
        marks = ",".join("?" * len(names))
        rows = store.units_where(f"qualname IN ({marks}) OR name IN ({marks})", (*names, *names))
        out += [r.id for r in rows if r.kind not in _NOT_DEFINITIONS]
    return list(dict.fromkeys(out))


_NOT_DEFINITIONS = frozenset({"file", "section", "chunk", "block"})


def _path_boost(results: dict[int, Result], words: list[str]) -> None:
    """A bonus per question word matching the unit's file stem or last folders (inflections included).

    The exact stem words already count in the keyword boost; this adds what
    only a prefix match or a folder sees (``compressed`` -> ``compressionFilters/``).
    """
    for r in results.values():
        if r.unit.kind == "section":
            continue
        pw = path_words(r.unit.path)
        stem = matched_words(words, pw.stem)
        folders = matched_words(words, pw.folders) - stem
        bonus = PATH_BOOST * len(stem) + FOLDER_BOOST * len(folders)
        if bonus:
            r.score += bonus
            r.reasons.append("question words in its path")


def _file_coherence(results: dict[int, Result]) -> None:
    """A file whose several units answer lifts its best unit: a share of the next best two's scores."""
    by_path: dict[str, list[Result]] = {}
    for r in results.values():
        if r.unit.kind != "file":
            by_path.setdefault(r.unit.path, []).append(r)
    for members in by_path.values():
        if len(members) < 2:
            continue
        members.sort(key=lambda r: -r.score)
        lift = COHERENCE * sum(m.score for m in members[1:3])
        members[0].score += lift
        members[0].reasons.append("its file answers too")


_DECLARATION_KINDS = frozenset({"function", "method"})


def _is_declaration(unit: UnitRow) -> bool:
    """A function or method declared without a body: a prototype in a C/C++ header, a ``.d.ts`` signature.

    Only in the files made for declarations (:data:`DECLARATION_SUFFIXES`): a
    one-line Python or Go function is a definition however short it is.
    """
    if unit.kind not in _DECLARATION_KINDS or not unit.path.endswith(DECLARATION_SUFFIXES):
        return False
    return unit.path.endswith(TS_DECLARATION_SUFFIXES) or (
        unit.start_line == unit.end_line and "{" not in unit.signature
    )


def _in_header(unit: UnitRow) -> bool:
    """A function or method in a file made for declarations (a prototype, or an inline definition)."""
    return unit.kind in _DECLARATION_KINDS and unit.path.endswith(DECLARATION_SUFFIXES)


def _definitions_before_declarations(
    store: Store, ranked: list[Result], depth: int, path_glob: str | None, language: str | None
) -> tuple[list[Result], set[int]]:
    """Put the definition of a declared name in its declaration's place, the declaration just after.

    A header prototype carries the documentation and so matches the
    question's words; the definition in the ``.c`` file is what does the
    work and what a reader opens. Only declarations within the shown window
    move anything. Returns the new order and the declarations that gave
    way: once its definition is shown, a prototype would only show the same
    function twice, so ``rank`` moves them after the shown window
    (``DECLARATIONS_AFTER_WINDOW``).
    """
    window = max(depth, 10)
    placed: set[int] = set()
    out: list[Result] = []
    repeated: set[int] = set()
    by_id = {r.unit.id: r for r in ranked}
    for r in ranked[:window]:
        if r.unit.id in placed:
            continue
        if _is_declaration(r.unit):
            definitions = [
                u for u in store.units_where("name = ? AND qualname = ? AND path != ?",
                                             (r.unit.name, r.unit.qualname, r.unit.path))
                if u.kind == r.unit.kind and not _is_declaration(u) and _passes(u, path_glob, language)
            ]
            for u in definitions[:1]:
                d = by_id.get(u.id) or Result(u)
                if d.unit.id not in placed:
                    d.score = max(d.score, r.score)
                    d.reasons.append("defines a declaration that matched")
                    out.append(d)
                    placed.add(d.unit.id)
                    repeated.add(r.unit.id)
        out.append(r)
        placed.add(r.unit.id)
    return out + [r for r in ranked if r.unit.id not in placed], repeated


def _after_window(ranked: list[Result], ids: set[int], depth: int) -> list[Result]:
    """The results in ``ids`` moved to just after the first ``depth`` others, in their order."""
    moved = [r for r in ranked if r.unit.id in ids]
    rest = [r for r in ranked if r.unit.id not in ids]
    return rest[:depth] + moved + rest[depth:]


def _defining_first(store: Store, ranked: list[Result]) -> list[Result]:
    """Reorder the exact-name matches so the defining unit leads (see ``DEFINITIONS_FIRST``).

    The exact matches keep the places (and scores) they held; only who
    stands where among them changes: definitions before declarations, a
    class before a constructor named after it, a class before its
    reopenings, the ones with fewer members than it (``class Adapter``
    around ``class NetHttp < Adapter`` in thirteen of faraday's files, or
    around an autoload list).
    """
    exact = [r for r in ranked if r.exact]
    if len(exact) < 2:
        return ranked
    named = {r.unit.qualname for r in exact}

    defined_outside_headers = {(r.unit.qualname, r.unit.kind) for r in exact if not _in_header(r.unit)}
    members = {uid: len(own) for uid, own in _members(store, exact).items()}
    most: dict[tuple[str, str], int] = {}
    for r in exact:
        if r.unit.id in members:
            key = (r.unit.qualname, r.unit.kind)
            most[key] = max(most.get(key, 0), members[r.unit.id])

    def defers(r: Result) -> tuple[bool, bool, bool]:
        u = r.unit
        constructor = u.kind == "method" and u.parent is not None and u.parent in named and last_part(u.parent) == u.name
        declared = _is_declaration(u) or (_in_header(u) and (u.qualname, u.kind) in defined_outside_headers)
        reopening = u.id in members and members[u.id] < most[(u.qualname, u.kind)]
        return declared, reopening, constructor

    reordered = sorted(exact, key=defers)  # stable: ties keep the ranking's order
    if reordered == exact:
        return ranked
    scores = [r.score for r in exact]
    for r, score in zip(reordered, scores):
        if r.score != score:
            r.reasons.append("defines the name")
        r.score = score
    it = iter(reordered)
    return [next(it) if r.exact else r for r in ranked]


def _graph_answers(
    store: Store, intent: Intent, ranked: list[Result], path_glob: str | None, language: str | None
) -> list[Result] | None:
    """"What calls X?": X's callers (or callees) first, then X itself, then the rest; None if X is unknown.

    The answers keep the order the ranking gave them (the question's words
    still say which caller matters most), the others follow by how many call
    sites they have. Each carries ``graph`` 1.0: it is linked to X directly.
    """
    symbol = intent.symbol or ""
    for spelled in dict.fromkeys((symbol, symbol.rstrip("?"))):
        if not spelled:
            continue
        try:
            targets = find_symbol(store, spelled)
        except SymbolNotFound:
            continue
        links = callers_of(store, targets) if intent.direction == "callers" else callees_of(store, targets)
        sites: dict[int, int] = {}
        linked: dict[int, UnitRow] = {}
        readings: dict[tuple[str, int, str], int] = {}  # call site -> how many units it may run
        for link in links:
            site = (link.call_path, link.call_line, link.expression)
            readings[site] = readings.get(site, 0) + 1
        ambiguous: dict[int, bool] = {}
        for link in links:
            if link.unit is not None and _passes(link.unit, path_glob, language):
                sites[link.unit.id] = sites.get(link.unit.id, 0) + 1
                linked[link.unit.id] = link.unit
                unsure = readings[(link.call_path, link.call_line, link.expression)] > AMBIGUOUS_CALL
                ambiguous[link.unit.id] = ambiguous.get(link.unit.id, True) and unsure
        position = {r.unit.id: i for i, r in enumerate(ranked)}
        by_id = {r.unit.id: r for r in ranked}
        order = sorted(linked, key=lambda uid: (ambiguous[uid], position.get(uid, len(ranked)), -sites[uid],
                                                linked[uid].path))
        top_score = ranked[0].score if ranked else 1.0
        answers = []
        for i, uid in enumerate(order):
            r = by_id.get(uid) or Result(linked[uid])
            r.graph = 1.0
            r.score = top_score + 1.0 + 1.0 / (i + 2)
            r.reasons.append(f"{'calls' if intent.direction == 'callers' else 'called by'} {spelled}")
            answers.append(r)
        target_ids = [t.id for t in targets if t.id not in linked]
        defined = []
        for t in targets:
            if t.id in linked or not _passes(t, path_glob, language):
                continue
            r = by_id.get(t.id) or Result(t)
            r.score = top_score + 1.0
            r.reasons.append("the unit asked about")
            defined.append(r)
        shown = set(linked) | set(target_ids)
        return answers + defined + [r for r in ranked if r.unit.id not in shown]
    return None


def _unit_count(store: Store) -> int:
    """About how many units the index has (the largest id: one index lookup, not a count)."""
    row = store.db.execute("SELECT max(rowid) FROM units").fetchone()
    return int(row[0] or 1) if row else 1


#: A word's document frequency is counted up to this many units (enough to tell common from rare).
FREQUENCY_CAP = 500


def _similarity_gap(similarities: list[float]) -> float | None:
    """The best similarity less the ``GAP_RANK``-th best (or the last): how far the nearest stand out."""
    if not similarities:
        return None
    ranked = sorted(similarities, reverse=True)
    return ranked[0] - ranked[min(_confidence.GAP_RANK, len(ranked)) - 1]


def _word_evidence(store: Store, words: list[str], top: list[Result]) -> tuple[list[int], list[list[bool]]]:
    """Per query word: in how many units it occurs (capped), and whether each top answer holds it.

    A few small full-text lookups per word (no scoring); what the confidence
    model reads (:mod:`hookgraph.search.confidence`).
    """
    frequencies: list[int] = []
    covered: list[list[bool]] = [[] for _ in top]
    for w in words:
        match = fts_query([w])
        try:
            row = store.db.execute("SELECT count(*) FROM (SELECT rowid FROM fts_units WHERE fts_units MATCH ? LIMIT ?)",
                                   (match, FREQUENCY_CAP)).fetchone()
            n = int(row[0]) if row else 0
            hits = [n > 0 and store.db.execute("SELECT rowid FROM fts_units WHERE fts_units MATCH ? AND rowid = ?",
                                               (match, r.unit.id)).fetchone() is not None for r in top]
        except apsw.SQLError:  # an odd word FTS5 refuses: unknown, like one it does not have
            n, hits = 0, [False] * len(top)
        frequencies.append(n)
        for cover, hit in zip(covered, hits):
            cover.append(bool(hit))
    return frequencies, covered
