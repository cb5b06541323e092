"""How sure a ranking is: a confidence per answer, and a strong/weak verdict per query.

``ask`` must not present an unrelated unit as the answer to a question the
index cannot answer ("JWT authentication" asked of a project that has none,
``wt_only_func`` when no such name exists). The verdict is made per query,
from what the query showed as a whole, by three rules and one fitted model:

* a query written as a code name (``snake_case``, ``camelCase``, ``Foo.bar``,
  ``LZ4F_x``; not a plain word like ``retry``) that some unit is named exactly is
  **strong** (:data:`EXACT_CONFIDENCE`); one that no unit is named but that the
  indexed code writes (a macro-made type, a value) is **strong** too
  (:data:`SPELLED_CONFIDENCE`); one the code never writes is **weak**
  (:data:`NO_EXACT_CONFIDENCE`), whatever resembles it;
* a plain-word graph question ("what calls X?") answered from the call
  graph is **strong** (:data:`GRAPH_CONFIDENCE`);
* any other question gets a logistic model over seven numbers
  (:func:`features`): how many of its words the full-text index knows at all
  (log of the count, counted up to 3), how many it does not know (at most 3)
  and their share of its words, the share of its words that the index does
  not know *and* that read as a name (see :func:`reads_as_name`; all
  three weigh less in an index of fewer than :data:`VOCABULARY_UNITS`
  units), how much of the question's specificity the
  best of the top three units covers (each word weighted by its inverse
  document frequency, a word the index does not know as the rarest), the
  best cosine similarity of the question to any unit (units embedded on the
  spot included), and how far that best similarity stands above the
  :data:`GAP_RANK`-th best (without vectors, as with ``--no-semantic``,
  typical values for both: no evidence either way; while fewer units than
  that have vectors and more wait for one, a typical gap).
  A question about something the project has meets a few units that are
  much closer than the rest; one about something it lacks meets a crowd of
  units all about as near (the project's own subject), however near that
  is. A question about what
  a project does not have usually hinges on a word the project never uses
  ("OAuth", "Kafka", "websocket"), or its rare words are spread over units
  that each hold one of them. Reading a word as a name tells such a name
  (``nushell``, ``CSRF``, ``ETag``: fragments in the model's vocabulary)
  from a plain English word that a question about code the project has may
  use and the code may not (``rotate``: one piece; ``spellings``: a word and
  an ending). Without a model (``--no-semantic``) no word reads as a name:
  no evidence either way is read as no name.

  The known-word count is capped at 3 on purpose: on eval/ the absent
  questions are short phrases and the answerable ones long sentences, so an
  uncapped count separates them better there (absent flagged 0.94) but would
  call every two-word question people type weak.

The model's weights (:data:`WEIGHTS`) were fitted on the tuned projects of
``eval/`` (absent questions against every answerable question, classes
balanced, checked leaving each project out in turn); see eval/RESULTS.md.
The best answer's confidence is that probability; each further answer's is
the best one's scaled by its score's share of the best score. The verdict is
``"strong"`` when the best confidence reaches :data:`MATCH_THRESHOLD`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Evidence", "features", "reads_as_name", "query_confidence", "score_results", "score_files", "verdict",
           "MATCH_THRESHOLD"]

#: The verdict is "strong" when the best answer's confidence reaches this. Chosen with whole projects left out
#: (``python -m eval.fit_confidence --filebench BENCH --threshold X``: 33 projects, each left out of the fit in
#: turn), preferring a missed "weak" over a false one as long as absent questions stay flagged >= 0.85: 0.5
#: flagged 0.883 of absent questions with 13 projects over 3% of answerable ones called weak; 0.43 flags 0.874
#: with 7 over 3%; 0.41 0.854 (7), 0.40 0.845 (7) (eval/RESULTS.md).
MATCH_THRESHOLD = 0.43
#: An identifier some unit is named exactly; one no unit is named; a question the graph answered.
EXACT_CONFIDENCE = 0.95
NO_EXACT_CONFIDENCE = 0.1
#: A code name no unit is named but the indexed code writes (``LocalSet`` inside ``cfg_rt! { ... }``,
#: a value made inside a function or by a macro call): the project has it, the answer shows where it is
#: written. On filebench's symbol questions, 7 of 57 were such names and all were called weak before.
SPELLED_CONFIDENCE = 0.6
GRAPH_CONFIDENCE = 0.95
#: At most this many unknown words count (a long question may have several odd words).
UNKNOWN_CAP = 3
#: Unknown words weigh in full from an index of this many units on, less below (log scale): a small
#: repository's vocabulary lacks many words that a question about it may still fairly use.
VOCABULARY_UNITS = 1000
#: The similarity assumed when there is none (``--no-semantic``, vectors still being embedded): the median
#: best similarity of answerable questions on eval/, so missing evidence counts neither way.
NO_VECTOR_SIMILARITY = 0.55
#: The best similarity is compared with the similarity of this many-th nearest vector (or the last there is).
GAP_RANK = 50
#: The gap assumed without vectors: halfway between the medians of answerable (0.23) and absent (0.13)
#: questions on eval/'s tuned projects.
NO_VECTOR_GAP = 0.18
#: Known words count up to this many (see the module docstring: length is not evidence).
KNOWN_CAP = 3
#: A word whose longest vocabulary piece has this many letters and this share of the word is a plain
#: word with an ending (``spelling`` + ``s``, ``alphabet`` + ``ically``), not a name.
WORD_PIECE_LETTERS = 4
WORD_PIECE_SHARE = 0.6


@dataclass
class Evidence:
    """What the query showed as a whole (filled in by :func:`hookgraph.search.ranking.rank`).

    ``frequencies``: per query word, in how many units it occurs (capped by
    the lookup; 0: the index does not know it). ``covered``: for each of the
    top three answers, which query words occur in it. ``units``: how many
    units the index has (for the inverse document frequency).
    """

    intent: str
    words: list[str] = field(default_factory=list)
    frequencies: list[int] = field(default_factory=list)
    covered: list[list[bool]] = field(default_factory=list)
    units: int = 1
    best_similarity: float | None = None
    #: The best similarity less the ``GAP_RANK``-th best (None: no vectors searched).
    similarity_gap: float | None = None
    exact: bool = False
    graph_answered: bool = False
    #: The query is one name written as code (not a plain word that happens to be one token).
    code_name: bool = False
    #: Per query word: the pieces the embedding model's vocabulary splits it into (empty: not looked up).
    pieces: list[list[str]] = field(default_factory=list)
    #: A code name no unit is named, that the indexed code writes all the same (a macro-made type, a value).
    spelled: bool = False


def reads_as_name(word: str, pieces: list[str]) -> bool:
    """Whether ``word``, as the model's vocabulary splits it, is a name or an acronym rather than plain English.

    One piece is a word the vocabulary knows whole. Several pieces whose
    longest is most of the word are a word and an ending. Anything else is
    fragments: ``nu``/``sh``/``ell``, ``cs``/``rf``, ``ya``/``ml``.
    """
    if len(pieces) < 2:
        return False
    longest = max(len(p) for p in pieces)
    return not (longest >= WORD_PIECE_LETTERS and longest >= WORD_PIECE_SHARE * len(word))


def _specificity_covered(e: Evidence) -> float:
    """The share of the query's specificity (IDF-weighted words) the best-covering top answer holds."""
    n = max(e.units, 1)
    idf = [math.log(n / (f + 1)) if f > 0 else math.log(n) for f in e.frequencies]
    total = sum(w for w in idf if w > 0)
    if total <= 0:
        return 0.0
    return max((sum(w for w, hit in zip(idf, cover) if hit and w > 0) / total for cover in e.covered), default=0.0)


def features(e: Evidence) -> dict[str, float]:
    """The numbers a question's confidence is computed from (the model's inputs)."""
    known = sum(1 for f in e.frequencies if f > 0)
    unknown = len(e.frequencies) - known
    names = sum(1 for w, f, p in zip(e.words, e.frequencies, e.pieces) if f == 0 and reads_as_name(w, p))
    vocabulary = min(1.0, math.log(max(e.units, 2)) / math.log(VOCABULARY_UNITS))
    return {
        "log_known": math.log1p(min(known, KNOWN_CAP)),
        "unknown": vocabulary * min(unknown, UNKNOWN_CAP),
        "unknown_share": vocabulary * (unknown / len(e.frequencies) if e.frequencies else 0.0),
        "unknown_name_share": vocabulary * (names / len(e.frequencies) if e.frequencies else 0.0),
        "covered": _specificity_covered(e),
        "similarity": e.best_similarity if e.best_similarity is not None else NO_VECTOR_SIMILARITY,
        "similarity_gap": e.similarity_gap if e.similarity_gap is not None else NO_VECTOR_GAP,
    }


#: Logistic weights over :func:`features` (intercept under "bias"), fitted on eval/'s tuned projects
#: by ``python -m eval.fit_confidence`` (which prints them).
WEIGHTS: dict[str, float] = {"bias": -6.0, "log_known": 2.87, "unknown": 0.57, "unknown_share": -6.72,
                             "unknown_name_share": -4.19, "covered": 1.81, "similarity": 3.82,
                             "similarity_gap": 3.8}


def _logistic(values: dict[str, float]) -> float:
    z = WEIGHTS.get("bias", 0.0) + sum(WEIGHTS.get(k, 0.0) * v for k, v in values.items())
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def query_confidence(e: Evidence) -> tuple[float, dict[str, float]]:
    """The best answer's confidence for this query, and what it was computed from."""
    if e.intent == "identifier" and (e.exact or e.code_name):
        if e.exact:
            return EXACT_CONFIDENCE, {"exact": 1.0}
        return (SPELLED_CONFIDENCE if e.spelled else NO_EXACT_CONFIDENCE), {"exact": 0.0, "spelled": float(e.spelled)}
    if e.graph_answered:
        return GRAPH_CONFIDENCE, {"graph": 1.0}
    values = features(e)
    return _logistic(values), values


def score_results(ranked: list[Any], evidence: Evidence) -> None:
    """Set ``confidence`` (and ``features``) on every ranked result, in place."""
    if not ranked:
        return
    best, values = query_confidence(evidence)
    top_score = ranked[0].score
    for r in ranked:
        share = r.score / top_score if top_score > 0 else 0.0
        r.confidence = round(best * max(0.0, min(1.0, share)), 4)
        r.features = values
    ranked[0].confidence = round(best, 4)


def score_files(files: list[Any], results: list[Any]) -> None:
    """Set ``confidence`` on ranked files, in place: the query's confidence scaled by the file's share."""
    if not files or not results:
        return
    best = results[0].confidence
    top_score = files[0].score
    for f in files:
        share = f.score / top_score if top_score > 0 else 0.0
        f.confidence = round(best * max(0.0, min(1.0, share)), 4)


def verdict(results: list[Any]) -> str:
    """``"strong"`` when the best answer's confidence reaches ``MATCH_THRESHOLD``, else ``"weak"``."""
    return "strong" if results and max(r.confidence for r in results) >= MATCH_THRESHOLD else "weak"
