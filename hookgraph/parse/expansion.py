"""The description words a unit's code implies but does not write, for the full-text index (issue 42).

A question is written in the words people use about code; the code writes other words. The shipped table
(``models/code-static/expansion.tsv``, made by ``python -m training.expansion`` from the same public pairs as
the static embedding) maps a code word to the description words written beside it across many projects:
``urandom`` -> random, ``refcount`` -> reference, count. Each unit gets the :data:`EXPANSION_WORDS` words its
code words imply most, leaving out words it already has; they go to a full-text table of their own
(``fts_expansion``), which the ranking's word half reads at a lower weight beside the unit's own words, so they
never count as words the index knows (the confidence's evidence) and never outweigh a word the code writes.

Measured (eval/RESULTS.md, "Learnt word expansion"): eval/'s natural-language top-5 0.850 -> 0.858, questions
whose words the code does not use 0.770 -> 0.783 (held out 0.810 -> 0.848); file rankings unchanged (they do
not read it: :data:`hookgraph.search.ranking.FILES_EXPANSION`). Its price is about a tenth of a first index.

Weights are kept in thousandths as integers, so a file's units expanded together by numpy (a first index) and
one at a time by the standard library (a hook) sum them exactly alike and choose the same words.
"""

from __future__ import annotations

import functools
import hashlib
import heapq
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hookgraph.parse.units import DOC_LANGUAGES, CodeUnit

TABLE_DIR = Path(__file__).resolve().parent.parent / "models" / "code-static"
TABLE_FILE = "expansion.tsv"
#: Words added to a unit at most. 5: a unit's strongest implications; more add the generic words
#: (``returns``, ``given``) that many units share. The one value measured.
EXPANSION_WORDS = 5
#: A word is added only when its summed weight over the unit's code words reaches this, in thousandths (one
#: strong association, ``urandom`` -> random 1.445, or several weaker ones agreeing). Swept on eval/'s tuned
#: projects (no shared word R@5 / NL R@5): 350 0.761 / 0.850, 500 0.769 / 0.854, 600 0.774 / 0.857, 700
#: 0.772 / 0.856, 850 0.758 / 0.849, 1000 0.753 / 0.847. A flat top from 500 to 700 whose steps are two
#: questions of 368, traded between projects: left at 500 (eval/RESULTS.md, 2026-12-07). Fewer words a unit
#: (``EXPANSION_WORDS`` 3) 0.764 / 0.852, more (8) 0.769 / 0.852.
EXPANSION_MIN = 500
#: Associations weaker than this (thousandths) are not read: alone they never reach :data:`EXPANSION_MIN`
#: (with :data:`NO_EXPANSION_KINDS`, half the work, for eval/'s top-5 0.859 -> 0.857).
WEIGHT_FLOOR = 100
#: Units that get no expansion words. Documentation and text windows are their own description (the table
#: maps code words to the words written about them), and a README section that already paraphrased a function
#: passed that function once it had more of the question's words too. Containers (a file, a class, a module)
#: hold their members' words, whose members get their own expansion words.
NO_EXPANSION_KINDS = frozenset({"section", "block", "chunk", "file", "module", "class", "struct", "trait",
                                "interface", "enum"})
#: Body words a unit's expansion is read from: its head (signature, first lines) says what it does, as in the
#: embedded text; the whole body measured the same (eval/'s top-5 0.857 whole, 0.858 with 60).
HEAD_WORDS = 60
#: From this many units at once, numpy sums the implications (a first index's files); fewer take the
#: standard-library path, so a hook that parses a few functions never imports numpy.
NUMPY_FROM = 32
#: Units summed in one numpy call at most (a generated file's thousands of units in bounded pieces).
BATCH = 1024


def expands(unit: CodeUnit) -> bool:
    """Whether ``unit`` gets expansion words: code that is not a container, in no documentation language."""
    return unit.kind not in NO_EXPANSION_KINDS and unit.language not in DOC_LANGUAGES


class ExpansionTable:
    """code word -> [(description word, weight in thousandths)], each line parsed when its word is first needed.

    A hook expands a few units: splitting every line up front would cost more than its lookups.
    """

    def __init__(self, path: Path) -> None:
        self._raw: dict[str, str] = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            word, _, rest = line.partition("\t")
            if word and rest:
                self._raw[word] = rest
        self._parsed: dict[str, tuple[tuple[str, int], ...]] = {}

    def __len__(self) -> int:
        return len(self._raw)

    def implied(self, word: str) -> tuple[tuple[str, int], ...]:
        """The description words ``word`` implies at :data:`WEIGHT_FLOOR` or more, best first (thousandths)."""
        found = self._parsed.get(word)
        if found is None:
            fields = self._raw.get(word, "").split()
            pairs = ((fields[i], round(float(fields[i + 1]) * 1000)) for i in range(0, len(fields) - 1, 2))
            found = self._parsed[word] = tuple((w, weight) for w, weight in pairs if weight >= WEIGHT_FLOOR)
        return found

    def expand(self, words: set[str]) -> list[str]:
        """The words ``words`` imply most and do not contain, strongest first (ties: alphabetical)."""
        scores: dict[str, int] = {}
        for word in self._raw.keys() & words:  # most of a unit's words imply nothing: skipped in C
            for implied, weight in self.implied(word):
                scores[implied] = scores.get(implied, 0) + weight
        strong = [(-score, w) for w, score in scores.items() if score >= EXPANSION_MIN and w not in words]
        return [w for _, w in heapq.nsmallest(EXPANSION_WORDS, strong)]

    def expand_many(self, word_sets: Sequence[set[str]]) -> list[list[str]]:
        """:meth:`expand` for each set; numpy sums them together from :data:`NUMPY_FROM` sets on."""
        if len(word_sets) < NUMPY_FROM:
            return [self.expand(words) for words in word_sets]
        out: list[list[str]] = []
        for start in range(0, len(word_sets), BATCH):  # the sums array is batch x description words
            out.extend(self._expand_batch(word_sets[start:start + BATCH]))
        return out

    def _expand_batch(self, word_sets: Sequence[set[str]]) -> list[list[str]]:
        import numpy as np

        codes, descriptions, indptr, weights = self.arrays
        known = self._raw.keys()
        slots: list[int] = []
        rows: list[int] = []
        for slot, words in enumerate(word_sets):
            for word in known & words:
                slots.append(slot)
                rows.append(codes[word])
        out: list[list[str]] = [[] for _ in word_sets]
        if not rows:
            return out
        row_array = np.array(rows, dtype=np.int64)
        starts = indptr[row_array]
        lengths = indptr[row_array + 1] - starts
        within = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        entries = np.repeat(starts, lengths) + within
        width = len(descriptions)
        keys = np.repeat(np.array(slots, dtype=np.int64), lengths) * width + weights[1][entries]
        found, where = np.unique(keys, return_inverse=True)  # sparse: a batch x every word would be mostly zeros
        sums = np.bincount(where, weights=weights[0][entries])
        strong = sums >= EXPANSION_MIN
        hits, score_of = found[strong], sums[strong]
        slot_of, word_of = hits // width, hits % width
        order = np.lexsort((word_of, -score_of, slot_of))
        for slot, word_id in zip(slot_of[order].tolist(), word_of[order].tolist()):  # Python ints, not numpy's
            chosen = out[slot]
            if len(chosen) < EXPANSION_WORDS:
                word = descriptions[word_id]
                if word not in word_sets[slot]:
                    chosen.append(word)
        return out

    @functools.cached_property
    def arrays(self) -> tuple[dict[str, int], list[str], Any, tuple[Any, Any]]:
        """Every line parsed at once, as arrays: code word -> row, description words (alphabetical, so a row's
        id order is the tie order), row offsets, and per entry (weight, description id). Built before a first
        index's workers fork, with dictionaries rather than numpy's string sort (a third of the time)."""
        import numpy as np

        codes = {word: row for row, word in enumerate(self._raw)}
        fields = " ".join(self._raw.values()).split()
        pairs = np.array([rest.count(" ") + 1 for rest in self._raw.values()]) // 2
        weights = np.rint(np.array(fields[1::2], dtype=np.float64) * 1000)
        keep = weights >= WEIGHT_FLOOR
        kept = [word for word, wanted in zip(fields[0::2], keep.tolist()) if wanted]
        descriptions = sorted(set(kept))
        ids = {word: i for i, word in enumerate(descriptions)}
        targets = np.array([ids[word] for word in kept], dtype=np.int64)
        rows = np.repeat(np.arange(len(pairs)), pairs)
        indptr = np.concatenate(([0], np.cumsum(np.bincount(rows[keep], minlength=len(pairs))))).astype(np.int64)
        return codes, descriptions, indptr, (weights[keep], targets)


@functools.cache
def shipped_table() -> ExpansionTable | None:
    """The table shipped in the package, read once per process; None when it is missing (a broken install)."""
    try:
        return ExpansionTable(TABLE_DIR / TABLE_FILE)
    except OSError:
        return None


def shipped_sha256() -> str | None:
    """The shipped table's identity, from its sidecar: a store records it, and a new table re-expands every unit."""
    try:
        return (TABLE_DIR / "expansion.sha256").read_text().strip() or None
    except OSError:
        return None


def table_sha256(path: Path) -> str:
    """SHA-256 of a table file (what its sidecar records)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def unit_words(name: str, docstring: str, body: str) -> set[str]:
    """The words a unit's expansion is read from and never repeats, from its full-text columns (name and body
    split into lower-case words, the docstring as written): its name, its docstring and the first
    :data:`HEAD_WORDS` words of its body."""
    return set(body.split(None, HEAD_WORDS)[:HEAD_WORDS]) | set(name.split()) | set(docstring.lower().split())


def expansion_texts(word_sets: Sequence[set[str] | None]) -> list[str]:
    """Each unit's expansion words, space-separated (what ``fts_expansion`` holds), or "" for None (a unit
    :func:`expands` leaves out) or without the table."""
    table = shipped_table()
    wanted = [i for i, words in enumerate(word_sets) if words is not None]
    texts = [""] * len(word_sets)
    if table is None or not wanted:
        return texts
    for i, words in zip(wanted, table.expand_many([word_sets[i] or set() for i in wanted])):
        texts[i] = " ".join(words)
    return texts
