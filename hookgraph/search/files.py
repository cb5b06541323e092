"""Files as answers: the unit ranking folded into distinct files (``ask --files``).

A question about a design ("how are sub-applications mounted?", "template
lookup and rendering") is answered by a file, or a few: what a reviewer
opens. A file is ranked by what its units showed, read the way a person
skims results:

* its best unit's score (the unit ranking already blends words, meaning and
  the graph, and weighs tests, docs and release notes down for questions);
* coherence: a file where several units answer is more likely the place
  than one with a single lucky hit, so the sum of its candidates' scores
  adds a share of the best score (``FILE_SUM_SHARE``);
* its name and folders: people name files after what they hold, so the
  share of the question's words that the file's stem or last folders match
  (inflections included, :mod:`hookgraph.search.paths`) adds up to
  ``FILE_PATH_SHARE`` of the best score, more when the words cover the whole
  stem. Relative to the best score, it means the same whether the vectors
  are in or not. Measured on the field's file-level benchmark (filebench,
  eval/RESULTS.md): the largest single gain of the file ranking;
* what the file is: documentation, data and text chunks describe or
  configure the code and come after it; test code exercises it and comes
  after it too (a test file's units are already weighed down as units; a
  file of many tests would otherwise win on coherence alone);
* a C-family header that ranks above the source file of the same stem
  gives that file its place and follows it (``decode.c``, then
  ``decode.h``): the header's documented prototypes match the question's
  words, the source file is where the design is implemented and what a
  reviewer opens. Only TypeScript's ``.d.ts`` files are left out: their
  stems (``index``) name many unrelated files, and measured on eval/ the
  rule then moved the wrong ``index.js`` up.

Each file keeps its best units (with lines) so the answer says where to look.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hookgraph.parse.languages import REGISTRY
from hookgraph.search.paths import (
    HEADER_SUFFIXES,
    SOURCE_SUFFIXES,
    file_stem,
    is_test_path,
    matched_words,
    path_words,
)

if TYPE_CHECKING:
    from hookgraph.search.result import Result

__all__ = ["FileResult", "rank_files", "fuse_file_rankings"]

#: Factor for documentation (Markdown/reST) and for data, markup and text chunks (fallback formats).
FILE_DOC_WEIGHT = 0.5
FILE_DATA_WEIGHT = 0.5
#: Factor for test files (``tests/``, ``test_x.py``, ``x_test.go``, ``x.spec.ts``...).
FILE_TEST_WEIGHT = 0.7
#: A header ranked above the source file of its stem gives that file its place (see the module docstring).
SOURCE_BEFORE_HEADER = True
HEADER_REASON = "defines what a matching header declares"
#: Question words in a file's stem or last folders lift it by this share of the best unit's score, times the
#: share of the question's words they are (relative to the best score, so it means the same with vectors
#: pending or in). Filebench, vectors pending: 0 -> 0.5 / 1.0 / 1.5 / 2.0 gave 0.773 -> 0.807 / 0.815 /
#: 0.840 / 0.842 (with the candidates and sum rules below); 1.5 keeps Python's aiohttp where 2.0 costs it.
#: 2.0 (with ``FILE_SUM_SHARE`` 0.5) lifted filebench to 0.859 / 0.871 but cost eval/'s 198 file
#: questions 0.833 -> 0.822 (held out 0.837 -> 0.807): a trade between the two benchmarks, not kept.
FILE_PATH_SHARE = 1.5
#: The same for a query that is one identifier: ``Foldable`` is defined in ``Foldable.scala``, and a
#: ``syntax/foldable.scala`` of helpers should not pass it on the name alone (symbol 0.918 -> 0.966 at 0.5).
FILE_PATH_SHARE_IDENTIFIER = 0.5
#: Half of that lift depends on how much of the stem the question covers: ``Applicative.scala`` before
#: ``CommutativeApplicative.scala`` for "how Applicative combines independent effects".
FILE_STEM_COVER = 0.5
#: A file is lifted by the summed score of its candidate units, as this share of the best unit's score times
#: its sum over the largest file's sum: a file where many units answer is the place. It replaced a share of
#: the next two units' scores (FILE_COHERENCE 0.3): filebench 0.833 without that rule, 0.828 with it.
#: 0.5 measured again with the path share above (filebench complete +0.004, eval/ file questions -0.009): not kept.
FILE_SUM_SHARE = 0.3
#: A question word that many candidate files carry in their paths tells them apart less (gson's twenty
#: ``*TypeAdapter*`` files for "type adapter factories", where the answer is ``GsonBuilder.java``): in the
#: path lift each matched word counts min(1, PATH_WORD_COMMON / candidate files whose path matches it), not
#: 1; 0: every word counts 1. Measured with the file fusion: filebench 0.848 / 0.869 -> 0.850 / 0.871,
#: eval/'s file questions 0.836 -> 0.841; 4 and 10 within 0.005 of 6 on both (eval/RESULTS.md).
PATH_WORD_COMMON = 6

#: In fusing the file ranking by words with the one by meaning (:func:`fuse_file_rankings`), the words'
#: share; the rest is meaning's. Equal halves, no tuning: 0.4 / 0.6 measured 0.869 / 0.834 and 0.867 / 0.837
#: (filebench complete / eval/'s file questions) against 0.869 / 0.836 at 0.5 (eval/RESULTS.md). Right after
#: ``index``, where meaning comes from the static table, the words are not the better half either: filebench
#: pending 0.6 0.861, 0.4 0.866, 0.5 0.866. Fused by rank instead (``(k + 1) / (k + 1 + rank)``, k 60): filebench
#: 0.868 / 0.873 (pending / complete) but fastapi -0.03 and eval/'s file questions 0.840 -> 0.821 (2026-12-07).
FILE_WORDS_SHARE = 0.5


@dataclass
class FileResult:
    """One file ranked for a question, with the units that put it there."""

    path: str
    language: str | None
    score: float
    units: list[Result] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    #: How likely this file is a right answer, 0..1 (see :mod:`hookgraph.search.confidence`).
    confidence: float = 0.0
    #: The factor for what the file is, already in ``score``: 1 for code, less for docs, data and tests.
    weight: float = 1.0


def file_weight(language: str | None, kinds: set[str]) -> tuple[float, str]:
    """How much a file's kind says it is an answer to a design question: code first."""
    spec = REGISTRY.get(language or "")
    if spec is not None and spec.sections:
        return FILE_DOC_WEIGHT, "documentation"
    if (spec is not None and spec.data) or kinds <= {"file", "chunk", "block"}:
        return FILE_DATA_WEIGHT, "data or text"
    return 1.0, ""


def rank_files(results: list[Result], words: list[str], *, top: int = 10, units_per_file: int = 3,
               question: bool = True, tests_asked: bool = False) -> list[FileResult]:
    """Distinct files from a ranked unit list, best first (see the module docstring).

    ``tests_asked``: the question asks for tests themselves (:func:`hookgraph.search.intent.asks_for_tests`),
    so test files keep their full weight."""
    by_path: dict[str, list[Result]] = {}
    for r in results:
        by_path.setdefault(r.unit.path, []).append(r)
    files = []
    top_unit = max((r.score for r in results), default=0.0)
    sums = {path: sum(max(m.score, 0.0) for m in members) for path, members in by_path.items()}
    top_sum = max(sums.values(), default=0.0) or 1.0
    share = FILE_PATH_SHARE if question else FILE_PATH_SHARE_IDENTIFIER
    word_weight = path_word_weights(words, list(by_path)) if share and words else {}
    for path, members in by_path.items():
        members = sorted(members, key=lambda r: -r.score)
        best = members[0]
        f = FileResult(path, best.unit.language, best.score)
        if FILE_SUM_SHARE:
            f.score += FILE_SUM_SHARE * top_unit * sums[path] / top_sum
            if len(members) > 1:
                f.reasons.append("several units answer")
        if share and words:
            pw = path_words(path)
            hit = matched_words(words, pw.stem | pw.folders)
            if hit:
                covered = len(matched_words(words, pw.stem)) / max(len(pw.stem), 1)
                weight = sum(word_weight.get(w, 1.0) for w in hit)
                f.score += share * top_unit * weight / len(words) * (1 - FILE_STEM_COVER + FILE_STEM_COVER * covered)
                f.reasons.append("question words in its path")
        factor, why = file_weight(best.unit.language, {m.unit.kind for m in members})
        if factor != 1.0:
            f.weight *= factor
            f.reasons.append(why)
        if FILE_TEST_WEIGHT != 1.0 and not tests_asked and is_test_path(path):
            f.weight *= FILE_TEST_WEIGHT
            f.reasons.append("test code")
        f.score *= f.weight
        code = [m for m in members if m.unit.kind != "file"] or members
        f.units = code[:units_per_file]
        files.append(f)
    files.sort(key=lambda f: (-f.score, f.path))
    if SOURCE_BEFORE_HEADER:
        files = sources_before_headers(files)
    return files[:top]


def fuse_file_rankings(by_words: list[FileResult], by_meaning: list[FileResult], shown: list[FileResult], *,
                       top: int) -> list[FileResult]:
    """One file ranking from the ranking by words alone and the one by meaning alone, best first.

    Each file scores ``FILE_WORDS_SHARE`` of its share of the best score by words plus the rest of its
    share of the best by meaning (a file one ranking lacks has 0 there), then the factor for what it is
    (documentation, data, tests): shares are taken of scores before that factor, or a YAML file whose
    comments repeat the question would be "the best by words" at full share however little it is worth.
    The file itself, its units and reasons, is taken from ``shown`` (the files of the fused unit ranking)
    where it is there. A source file still goes just before a same-stem header that the fusion put above it.
    """
    score: dict[str, float] = {}
    for share, ranking in ((FILE_WORDS_SHARE, by_words), (1.0 - FILE_WORDS_SHARE, by_meaning)):
        raw = {f.path: max(f.score, 0.0) / f.weight for f in ranking}
        best = max(raw.values(), default=0.0) or 1.0
        for path, value in raw.items():
            score[path] = score.get(path, 0.0) + share * value / best
    files = {f.path: f for f in (*by_meaning, *by_words, *shown)}  # later wins: shown first
    for path in score:
        score[path] *= files[path].weight
    out = []
    for path in sorted(score, key=lambda p: (-score[p], p)):
        f = files[path]
        f.score = score[path]
        out.append(f)
    if SOURCE_BEFORE_HEADER:
        out = sources_before_headers(out)
    return out[:top]


def path_word_weights(words: list[str], paths: list[str]) -> dict[str, float]:
    """Each matched question word's weight in the path lift: lower when many candidate files carry it.

    Counted over the candidate files (the question's own neighbourhood), not the whole repository: a word
    all over the paths of the files the question reached is what fails to tell them apart there.
    """
    if not PATH_WORD_COMMON:
        return {}
    carriers: dict[str, int] = {}
    for path in paths:
        pw = path_words(path)
        for w in matched_words(words, pw.stem | pw.folders):
            carriers[w] = carriers.get(w, 0) + 1
    return {w: min(1.0, PATH_WORD_COMMON / n) for w, n in carriers.items()}


def sources_before_headers(files: list[FileResult]) -> list[FileResult]:
    """Each source file placed just before a same-stem header that ranked above it (scores kept monotone)."""
    sources: dict[str, FileResult] = {}
    for f in files:
        if f.path.endswith(SOURCE_SUFFIXES):
            sources.setdefault(file_stem(f.path), f)
    out: list[FileResult] = []
    placed: set[str] = set()
    for f in files:
        if f.path in placed:
            continue
        source = sources.get(file_stem(f.path)) if f.path.endswith(HEADER_SUFFIXES) else None
        if source is not None and source.path not in placed:
            source.score = max(source.score, f.score)
            if HEADER_REASON not in source.reasons:  # the fused files are placed twice (see fuse_file_rankings)
                source.reasons.append(HEADER_REASON)
            out.append(source)
            placed.add(source.path)
        out.append(f)
        placed.add(f.path)
    return out
