"""Learn which description words a unit's code words imply, from the documented pairs (issue 42).

    python -m training.expansion            # after `collect pairs`; writes hookgraph/models/code-static/expansion.tsv

A question asks in the words people write about code ("random bytes from the OS entropy source"); the code
writes other words (``urandom``, ``getrandom``). The documented pairs say, over hundreds of projects, which
words a doc comment uses beside which code words: ``urandom`` -> random, ``refcount`` -> reference, count,
``deadline`` -> timeout, until, cancel. At index time each unit gets the few description words its code words
imply most and does not already write (:mod:`hookgraph.parse.expansion`), in a full-text table of their own
that the ranking's word half reads at a lower weight.

An association is kept when it is frequent, specific and common to several projects:

- both words appear in at least ``MIN_PAIRS`` pairs, together in at least ``MIN_TOGETHER``;
- the description word is at least ``MIN_LIFT`` times likelier beside the code word than anywhere;
- the two appear together in at least ``MIN_SOURCES`` source packages: one project's dialect (a library
  whose every doc comment links the CSS specification) teaches nothing about another's code.

Each is weighted P(description word | code word) x log(lift); a code word keeps its ``PER_WORD`` best. Only
doc-comment pairs count (name-split pairs describe a name by its own words). numpy only, deterministic: the
pairs file gives the same table byte for byte (about 30 s on 2 cores).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from pathlib import Path

import numpy as np

from hookgraph.embed.static import static_words
from hookgraph.search.result import query_words

OUT = Path(__file__).resolve().parent.parent / "hookgraph" / "models" / "code-static"
DATA = Path.home() / ".cache" / "hookgraph-training"

MIN_PAIRS = 20
MIN_TOGETHER = 8
MIN_LIFT = 4.0
MIN_SOURCES = 3
PER_WORD = 8


def description_words(text: str) -> list[str]:
    """A description's words as a question would put them: plain alphabetic words of three letters or more."""
    return [w for w in query_words(text) if w.isalpha() and len(w) > 2]


def build(pairs_path: Path) -> dict[str, list[tuple[str, float]]]:
    """code word -> [(description word, weight)], best first, from the pairs file's doc pairs."""
    q_ids: dict[str, int] = {}
    c_ids: dict[str, int] = {}
    sources: dict[str, int] = {}
    rows: list[tuple[np.ndarray, np.ndarray, int]] = []
    with open(pairs_path, encoding="utf-8") as handle:
        for line in handle:
            pair = json.loads(line)
            if pair.get("kind") != "doc":
                continue
            described = sorted({q_ids.setdefault(w, len(q_ids)) for w in description_words(pair["q"])})
            written = sorted({c_ids.setdefault(w, len(c_ids)) for w in static_words(pair["d"])})
            if described and written:
                rows.append((np.array(written, dtype=np.int64), np.array(described, dtype=np.int64),
                             sources.setdefault(pair.get("src", ""), len(sources))))
    n = len(rows)
    df_q = np.bincount(np.concatenate([q for _, q, _ in rows]), minlength=len(q_ids))
    df_c = np.bincount(np.concatenate([c for c, _, _ in rows]), minlength=len(c_ids))
    keep_q, keep_c = df_q >= MIN_PAIRS, df_c >= MIN_PAIRS
    width = len(q_ids)
    keys, tagged = [], []
    for cs, qs, source in rows:
        cs, qs = cs[keep_c[cs]], qs[keep_q[qs]]
        if len(cs) and len(qs):
            key = (cs[:, None] * width + qs[None, :]).ravel()
            keys.append(key)
            tagged.append(key * len(sources) + source)
    if not keys:
        return {}
    together_keys, together = np.unique(np.concatenate(keys), return_counts=True)
    spread_keys, spread = np.unique(np.unique(np.concatenate(tagged)) // len(sources), return_counts=True)
    assert np.array_equal(together_keys, spread_keys)
    q_words = sorted(q_ids, key=q_ids.__getitem__)
    c_words = sorted(c_ids, key=c_ids.__getitem__)
    table: dict[str, list[tuple[str, float]]] = {}
    for key, count, spread_count in zip(together_keys.tolist(), together.tolist(), spread.tolist()):
        if count < MIN_TOGETHER or spread_count < MIN_SOURCES:
            continue
        c, q = divmod(key, width)
        lift = count * n / (int(df_c[c]) * int(df_q[q]))
        if lift < MIN_LIFT:
            continue
        table.setdefault(c_words[c], []).append((q_words[q], count / int(df_c[c]) * math.log(lift)))
    return {word: sorted(found, key=lambda e: (-e[1], e[0]))[:PER_WORD] for word, found in sorted(table.items())}


def write(table: dict[str, list[tuple[str, float]]], out: Path) -> Path:
    """``expansion.tsv`` (one code word a line: the word, a tab, then word/weight pairs) and its SHA-256 sidecar."""
    out.mkdir(parents=True, exist_ok=True)
    lines = [word + "\t" + " ".join(f"{w} {weight:.3f}" for w, weight in found) for word, found in table.items()]
    path = out / "expansion.tsv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out / "expansion.sha256").write_text(hashlib.sha256(path.read_bytes()).hexdigest() + "\n")
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="the folder `collect pairs` wrote pairs.jsonl into")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    pairs = args.data / "pairs.jsonl"
    if not pairs.exists():
        print(f"error: {pairs} does not exist: run `python -m training.collect pairs` first", file=sys.stderr)
        return 1
    table = build(pairs)
    path = write(table, args.out)
    print(f"{len(table)} code words with expansions -> {path} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
