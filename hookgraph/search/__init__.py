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

The package's modules, each with one job:

  ranking       :func:`rank` (every step above, in order), :func:`search`,
                :func:`search_files`, :func:`answer_match`; fusion and the
                candidate lists, with their constants (``CANDIDATES``, ...).
  boosts        steps 2-4: exact names, query words in names and file names, the graph.
  question_weights  step 5: tests, docs, release notes, types, values, wrappers.
  arrange       steps 6-7 and the other rules that move units in the order shown.
  graph_answers "what calls X?" answered from the call graph.
  evidence      word frequencies and similarity gap for the confidence model.
  result        :class:`Result`, the query's words, the path/language filter.
  confidence, intent, paths, files, graph, imports, neighbourhood, pack,
  diagram: the confidence model, reading a query, path words, the files
  ranking, the call graph and its scripts, the context pack, diagrams.

Every ranking constant has one home, the module whose code reads it (at call
time), and is read and set there only: a test's monkeypatch or an experiment
sets it in that module (``eval --set search.X=v`` finds the module of the
package that defines ``X``). (The module is ``ranking``, not ``rank``: the
function :func:`rank` re-exported here would hide it from ``import
hookgraph.search.rank``.)

Nothing here imports :mod:`hookgraph.sync` or the CLI: search reads the store.
"""

from __future__ import annotations

from hookgraph.search.files import FileResult
from hookgraph.search.graph import resolve_name
from hookgraph.search.intent import looks_like_identifier, read_intent
from hookgraph.search.paths import is_test_path
from hookgraph.search.question_weights import secondary_weight
from hookgraph.search.ranking import answer_match, rank, search, search_files
from hookgraph.search.result import STOPWORDS, Result, fts_query, query_words

__all__ = ["Result", "FileResult", "search", "search_files", "answer_match", "query_words", "fts_query",
           "looks_like_identifier", "read_intent", "resolve_name", "is_test_path", "rank", "secondary_weight",
           "STOPWORDS"]
