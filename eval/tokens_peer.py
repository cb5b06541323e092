"""The peer's ranked chunks for the token-budget benchmark: semble 0.7.0, words-only, in one process.

Run by ``eval/tokens.py`` with the peer's own Python (``/tmp/sembleside/venv/bin/python``, set up as
``../shared/filebench/peer/README.md`` says); imports nothing from hookgraph, only semble.

    tokens_peer.py REPO_DIR MODEL_DIR TOP_K < questions.json > chunks.jsonl

Builds semble's index of REPO_DIR the way ``peer/semble_ask.py --build`` does (content = code, semble's
default; the dummy static model, which with alpha = 0.0 cannot change a ranking), then asks every
question of the JSON list on stdin with ``alpha=0.0, rerank=True`` (the words-only configuration) and
prints one JSON line per question: its ranked chunks, each ``[path, start_line, end_line, characters]``.
One process per repository instead of one per question: the ranking is the same, the wall time is not.
"""

from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("SEMBLE_INDEX_WORKERS", "0")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def main() -> None:
    repo, model, top_k = sys.argv[1], sys.argv[2], int(sys.argv[3])
    os.environ.setdefault("SEMBLE_CACHE_LOCATION", os.path.join(os.path.dirname(model), "cache", "_semble_home"))
    from semble import SembleIndex

    index = SembleIndex.from_path(repo, model_path=model)
    for query in json.load(sys.stdin):
        results = index.search(query, top_k=top_k, alpha=0.0, rerank=True)
        chunks = [[r.chunk.file_path.replace("\\", "/"), r.chunk.start_line, r.chunk.end_line, len(r.chunk.content)]
                  for r in results]
        print(json.dumps({"query": query, "chunks": chunks}), flush=True)


if __name__ == "__main__":
    main()
