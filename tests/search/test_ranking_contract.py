"""The ranking contract and rules on a small real repository: real git, real SQLite, the shipped model.

``confidence`` and ``match`` (strong/weak, exit 1 and one line when weak),
``ask --files``, plain-word graph questions answered from the call graph, and
the rules the files ranking keeps (coherence, documentation after code).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import hookgraph.search.boosts as boosts_module
import hookgraph.search.files as files_module
import hookgraph.search.question_weights as weights_module
import hookgraph.search.ranking as ranking_module
from hookgraph.search import answer_match, read_intent, search, search_files
from hookgraph.search.intent import is_code_name
from hookgraph.search.paths import words_match
from hookgraph.store import Store, db_path
from tests.conftest import TINY_APP, index_now, make_repo, run_cli

STORAGE = '''"""Where downloaded pages are kept between runs."""


def save_page(folder, url, body):
    """Write a downloaded page to a file named after its address."""
    with open(page_file(folder, url), "wb") as f:
        f.write(body)


def load_page(folder, url):
    """Read a page saved earlier, or None when it was never saved."""
    try:
        with open(page_file(folder, url), "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None


def page_file(folder, url):
    """The file a page is stored in: its address with slashes made safe."""
    return folder + "/" + url.replace("/", "_")
'''

README = """# Tiny app

Pages are downloaded with retries and stored on disk: saving a page writes
a file, loading a page reads the stored file again.
"""

FILES = {"app.py": TINY_APP, "storage.py": STORAGE, "README.md": README}


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = make_repo(tmp_path_factory.mktemp("ranking") / "app", FILES)
    run_cli(repo, "index", "--wait", check=True)
    return repo


def ask_json(repo: Path, *args: str) -> tuple[int, dict]:
    proc = run_cli(repo, "ask", "--json", *args)
    assert proc.stdout, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_an_answerable_question_is_a_strong_match_with_a_confidence(app: Path) -> None:
    code, payload = ask_json(app, "--top", "3", "download a page and try again when the network fails")
    assert code == 0 and payload["match"] == "strong"
    first = payload["results"][0]
    assert first["symbol"] == "fetch_page" and 0.5 <= first["confidence"] <= 1.0
    assert all(0.0 <= r["confidence"] <= first["confidence"] for r in payload["results"])


def test_a_code_name_that_does_not_exist_is_weak_and_exits_1(app: Path) -> None:
    code, payload = ask_json(app, "wt_only_func")
    assert code == 1 and payload["match"] == "weak"
    assert all(r["confidence"] < 0.5 for r in payload["results"])
    proc = run_cli(app, "ask", "wt_only_func")
    assert proc.returncode == 1 and proc.stdout  # the nearest units are still listed
    # one line says so: here the note that no unit has that name
    assert proc.stderr.splitlines() == ["note: no unit is named wt_only_func in the index"]


def test_a_question_about_what_is_not_there_says_so_in_one_line(app: Path) -> None:
    proc = run_cli(app, "ask", "OAuth login with JWT tokens")
    assert proc.returncode == 1 and proc.stdout
    weak = [line for line in proc.stderr.splitlines() if "no strong match" in line]
    assert len(weak) == 1 and weak[0].startswith("hookgraph: no strong match in the index (best confidence 0.")
    code, payload = ask_json(app, "OAuth login with JWT tokens")
    assert code == 1 and payload["match"] == "weak"


def test_an_unknown_name_weighs_against_a_match_more_than_an_unknown_plain_word() -> None:
    """Same question shape, one word the index lacks: a product name says "not here", a plain word does not."""
    from hookgraph.search.confidence import Evidence, query_confidence

    def confidence(word: str, pieces: list[list[str]]) -> float:
        evidence = Evidence(intent="question", words=[word, "container", "name", "completion"],
                            frequencies=[0, 20, 30, 50], covered=[[False, True, True, True]], units=5000,
                            best_similarity=0.55, pieces=pieces)
        return query_confidence(evidence)[0]

    assert confidence("nushell", [["nu", "sh", "ell"], [], [], []]) < 0.5 < confidence("shell", [["shell"], [], [], []])
    assert confidence("shells", [["shell", "s"], [], [], []]) == confidence("shell", [["shell"], [], [], []])  # + ending
    assert confidence("nushell", []) == confidence("shell", [["shell"], [], [], []])  # no model: no word is a name


def test_a_best_unit_that_stands_out_from_the_crowd_is_a_stronger_match() -> None:
    """Equally near at best: one unit far nearer than the 50th says "here", a crowd all about as near does not."""
    from hookgraph.search.confidence import NO_VECTOR_GAP, Evidence, query_confidence

    def confidence(gap: float | None) -> float:
        evidence = Evidence(intent="question", words=["face", "detection", "frames", "pipeline"],
                            frequencies=[40, 30, 60, 0], covered=[[True, True, False, False]], units=5000,
                            best_similarity=0.45, similarity_gap=gap, pieces=[[], [], [], ["pipeline"]])
        return query_confidence(evidence)[0]

    assert confidence(0.08) < 0.5 < confidence(0.30)
    assert confidence(None) == confidence(NO_VECTOR_GAP)  # no vectors: a typical gap


def test_the_similarity_gap_is_read_from_the_nearest_vectors(app: Path, embedder) -> None:
    from hookgraph.search.confidence import NO_VECTOR_GAP

    question = "download a page and try again when the network fails"
    with Store(app / ".hookgraph" / "index.db") as store:
        with_vectors = search(store, question, embedder=embedder)
        lexical = search(store, question)
        similarities = [1.0 - distance for _, distance in store.knn(embedder.embed_query(question), 100)]
    assert len(similarities) < 50  # a tiny repository: the gap is to the farthest vector there is
    assert with_vectors[0].features["similarity_gap"] == pytest.approx(max(similarities) - min(similarities))
    assert with_vectors[0].features["similarity_gap"] > 0.1
    assert lexical[0].features["similarity_gap"] == NO_VECTOR_GAP


def test_while_vectors_are_on_their_way_the_similarity_evidence_is_what_was_embedded(tmp_path: Path, embedder,
                                                                                     monkeypatch) -> None:
    """Right after a sync, and while the queue is worked through, the unit that answers may have no vector
    yet: its similarity, computed on the spot, is the evidence (not the nearest of the units that happen to
    have one), and with fewer vectors than the gap's rank and more waiting there is no gap to read."""
    from hookgraph.embed.queue import drain
    from hookgraph.search import confidence
    from hookgraph.sync import read_target, sync

    monkeypatch.setattr(ranking_module, "ON_THE_SPOT_SECONDS", 60.0)  # a busy machine still embeds all 8
    extra = {f"extra/step{i}.py": f'def step_{i}(value):\n    """Add {i} to the value."""\n    return value + {i}\n'
             for i in range(30)}
    repo = make_repo(tmp_path / "app", {**FILES, **extra})
    sync(repo, read_target(repo, "head"), embedder=embedder)
    question = "download a page and try again when the network fails"
    with Store(db_path(repo)) as store:
        nothing_yet = search(store, question, embedder=embedder)[0].features
    assert nothing_yet["similarity"] != confidence.NO_VECTOR_SIMILARITY  # the answer's own, embedded on the spot
    assert nothing_yet["similarity_gap"] == confidence.NO_VECTOR_GAP
    drain(db_path(repo), embedder, max_batches=1)
    with Store(db_path(repo)) as store:
        assert store.has_pending()
        nearest = [1.0 - d for _, d in store.knn(embedder.embed_query(question), 100)]
        some = search(store, question, embedder=embedder)[0].features
    assert 0 < len(nearest) < confidence.GAP_RANK
    assert some["similarity"] >= max(nearest) and some["similarity"] == pytest.approx(nothing_yet["similarity"])
    assert some["similarity_gap"] == confidence.NO_VECTOR_GAP


def test_the_model_vocabulary_tells_names_from_plain_words(app: Path, embedder) -> None:
    from hookgraph.search.confidence import reads_as_name

    assert embedder.word_pieces("nushell") == ["nu", "sh", "ell"] and embedder.word_pieces("rotate") == ["rotate"]
    assert all(reads_as_name(w, embedder.word_pieces(w)) for w in ("nushell", "websocket", "csrf", "etag"))
    assert not any(reads_as_name(w, embedder.word_pieces(w)) for w in ("rotate", "breaks", "spellings", "forbids"))
    with Store(app / ".hookgraph" / "index.db") as store:
        named = search(store, "websocket connection for live pages", embedder=embedder)[0].features
        plain = search(store, "download a page and try again when the network breaks", embedder=embedder)[0].features
        lexical = search(store, "websocket connection for live pages")[0].features
    assert named["unknown_name_share"] > 0 and plain["unknown_name_share"] == 0 < plain["unknown"]
    assert lexical["unknown_name_share"] == 0  # without the model nothing is split


def test_an_exact_name_is_strong(app: Path) -> None:
    code, payload = ask_json(app, "page_file")
    assert code == 0 and payload["match"] == "strong"
    assert payload["results"][0]["symbol"] == "page_file" and payload["results"][0]["confidence"] >= 0.9


def test_weak_questions_keep_their_notes(app: Path) -> None:
    code, payload = ask_json(app, "wt_only_func")
    assert code == 1 and isinstance(payload["notes"], list) and payload["notes"]
    assert any("wt_only_func" in note for note in payload["notes"])


def test_what_calls_x_is_answered_from_the_call_graph(app: Path) -> None:
    code, payload = ask_json(app, "--top", "5", "what calls page_file?")
    assert code == 0 and payload["match"] == "strong"
    top_two = {r["symbol"] for r in payload["results"][:2]}
    assert top_two == {"save_page", "load_page"}
    assert all(r["graph"] == 1.0 for r in payload["results"][:2])
    code, payload = ask_json(app, "--top", "5", "what does fetch_page call?")
    assert {r["symbol"] for r in payload["results"][:2]} == {"open_connection", "wait_a_little"}


def test_what_calls_x_when_nothing_does_says_so(app: Path) -> None:
    code, payload = ask_json(app, "--top", "5", "what calls save_page?")  # defined, called nowhere
    assert code == 0 and payload["results"][0]["symbol"] == "save_page"
    assert "nothing in the index calls save_page" in payload["notes"]
    proc = run_cli(app, "ask", "what calls page_file?")  # called: no such note
    assert "nothing in the index calls" not in proc.stderr


def test_graph_question_intent_is_read_from_plain_words() -> None:
    assert read_intent("who uses Session.request?").direction == "callers"
    assert read_intent("what does fetch_page depend on").direction == "callees"
    assert read_intent("what calls this?").kind == "question"  # "this" is English, not a name
    assert read_intent("retry").kind == "identifier"
    assert is_code_name("LZ4F_compress") and not is_code_name("Windows") and not is_code_name("retry")


def test_files_lists_distinct_files_with_their_best_units(app: Path) -> None:
    code, payload = ask_json(app, "--files", "--top", "3", "saving and loading stored pages on disk")
    assert code == 0 and payload["match"] == "strong"
    paths = [f["path"] for f in payload["files"]]
    assert len(paths) == len(set(paths)) and paths[0] == "storage.py"
    best = payload["files"][0]
    assert set(best) == {"path", "language", "score", "confidence", "units"}
    assert best["language"] == "python" and {u["symbol"] for u in best["units"]} <= {"save_page", "load_page",
                                                                                    "page_file", "storage.py"}
    assert payload["results"] == [u for f in payload["files"] for u in f["units"]]
    out = run_cli(app, "ask", "--files", "--top", "2", "saving and loading stored pages on disk", check=True).stdout
    lines = out.splitlines()
    assert lines[0] == "storage.py  (python)" and lines[1].startswith("    ")


def test_files_and_context_disagree(app: Path) -> None:
    proc = run_cli(app, "ask", "--files", "--context", "200", "pages")
    assert proc.returncode == 2 and "--files and --context disagree" in proc.stderr


def test_files_rank_code_before_the_readme_that_describes_it(app: Path, embedder) -> None:
    """Documentation weighs half in the files ranking: the README says the same words, the code does the work."""
    with Store(app / ".hookgraph" / "index.db") as store:
        files = search_files(store, "saving a page writes a file, loading a page reads the stored file", top=3,
                             embedder=embedder)
        units = search(store, "saving a page writes a file, loading a page reads the stored file", top=10,
                       embedder=embedder)
    paths = [f.path for f in files]
    assert paths.index("storage.py") < paths.index("README.md")
    assert any("documentation" in reason for f in files if f.path == "README.md" for reason in f.reasons)
    assert answer_match(files) == "strong" and answer_match(units) == "strong"


def test_a_file_with_several_answering_units_is_lifted(app: Path, embedder) -> None:
    with Store(app / ".hookgraph" / "index.db") as store:
        files = search_files(store, "read and write stored pages", top=3, embedder=embedder)
    assert files[0].path == "storage.py" and "several units answer" in files[0].reasons


def test_inflections_match_path_words() -> None:
    assert words_match("dependency", "dependencies") and words_match("compress", "compression")
    assert words_match("test", "tests") and not words_match("tls", "tlsx")


def test_an_index_of_a_fresh_repo_answers_in_process(tmp_path: Path, embedder) -> None:
    """The in-process API gives the same verdicts as the command (no CLI in between)."""
    repo = make_repo(tmp_path / "r", {"storage.py": STORAGE})
    index_now(repo, embedder)
    with Store(repo / ".hookgraph" / "index.db") as store:
        assert answer_match(search(store, "NoSuchHandler", embedder=embedder)) == "weak"
        assert answer_match(search(store, "load_page", embedder=embedder)) == "strong"


HEADER = """#ifndef SUM_H
#define SUM_H

/* Add two integers and return their sum, saturating at INT_MAX. */
int sum_saturating(int a, int b);

#endif
"""

SOURCE = """#include <limits.h>
#include "sum.h"

int sum_saturating(int a, int b)
{
    if (a > 0 && b > INT_MAX - a)
        return INT_MAX;
    return a + b;
}
"""

BEAN = """package num;

/** A guessing game: the player guesses a number until it is found. */
public class GuessBean {
    private int answer;

    /** Starts a new game with a random answer. */
    public GuessBean() {
        answer = 42;
    }

    public boolean guess(int n) {
        return n == answer;
    }
}
"""


@pytest.fixture(scope="module")
def definitions_repo(tmp_path_factory: pytest.TempPathFactory, embedder) -> Path:
    repo = make_repo(tmp_path_factory.mktemp("defs") / "d", {"sum.h": HEADER, "sum.c": SOURCE, "GuessBean.java": BEAN})
    index_now(repo, embedder)
    return repo


def test_an_identifier_finds_its_definition_before_its_declaration(definitions_repo: Path, embedder) -> None:
    with Store(definitions_repo / ".hookgraph" / "index.db") as store:
        first, second = search(store, "sum_saturating", top=2, embedder=embedder)
    assert (first.unit.path, second.unit.path) == ("sum.c", "sum.h")
    assert first.exact and second.exact and first.score >= second.score


def test_an_identifier_finds_the_class_before_its_constructor(definitions_repo: Path, embedder) -> None:
    with Store(definitions_repo / ".hookgraph" / "index.db") as store:
        ranked = search(store, "GuessBean", top=3, embedder=embedder)
    names = [r.unit.qualname for r in ranked if r.exact]
    assert names[:2] == ["GuessBean", "GuessBean.GuessBean"]


def test_a_question_answered_by_a_prototype_shows_the_definition_first(definitions_repo: Path, embedder) -> None:
    """The header's comment matches the words; the definition in the .c file is what a reader opens, and the
    prototype, the same function again, waits after the shown results."""
    question = "add two integers, saturating at the maximum"
    with Store(definitions_repo / ".hookgraph" / "index.db") as store:
        shown = search(store, question, top=3, embedder=embedder)
        everything = search(store, question, top=50, embedder=embedder)
    assert [r.unit.path for r in shown if r.unit.name == "sum_saturating"] == ["sum.c"]
    assert "defines a declaration that matched" in shown[0].reasons and shown[0].unit.path == "sum.c"
    paths = [r.unit.path for r in everything if r.unit.name == "sum_saturating"]
    assert paths == ["sum.c", "sum.h"]


RING_H = """#ifndef RING_H
#define RING_H

#include <stddef.h>

/* A ring buffer of bytes: a fixed block of memory read and written in a circle,
   so a producer and a consumer can stream bytes without moving them. */
typedef struct ring_buffer {
    unsigned char *bytes; /* the circular storage */
    size_t capacity;      /* how many bytes fit */
    size_t head;          /* where the next byte is written */
    size_t tail;          /* where the next byte is read */
} ring_buffer;

/* Wrap a block of memory as an empty ring buffer of bytes. */
void ring_init(ring_buffer *r, unsigned char *memory, size_t capacity);

/* Write bytes into the ring buffer; returns how many fit before it was full. */
size_t ring_write(ring_buffer *r, const unsigned char *data, size_t n);

/* Read bytes out of the ring buffer in the order they were written. */
size_t ring_read(ring_buffer *r, unsigned char *out, size_t n);

#endif
"""

RING_C = """#include "ring/ring.h"

void ring_init(ring_buffer *r, unsigned char *memory, size_t capacity)
{
    r->bytes = memory;
    r->capacity = capacity;
    r->head = r->tail = 0;
}

size_t ring_write(ring_buffer *r, const unsigned char *data, size_t n)
{
    size_t done = 0;
    while (done < n && r->head - r->tail < r->capacity) {
        r->bytes[r->head++ % r->capacity] = data[done++];
    }
    return done;
}

size_t ring_read(ring_buffer *r, unsigned char *out, size_t n)
{
    size_t done = 0;
    while (done < n && r->tail < r->head) {
        out[done++] = r->bytes[r->tail++ % r->capacity];
    }
    return done;
}
"""

THROTTLE = '''"""Limits how often a callback may run."""
import time


class Throttle:
    """Let a call through at most once per interval; later calls in the interval are dropped."""

    def __init__(self, interval):
        self.interval = interval
        self.last = None

    def allow(self):
        now = time.monotonic()
        if self.last is None or now - self.last >= self.interval:
            self.last = now
            return True
        return False
'''

THROTTLE_TESTS = '''from throttle import Throttle


def test_first_call_is_allowed():
    """The first call through a throttle always runs."""
    assert Throttle(10).allow()


def test_second_call_within_the_interval_is_dropped():
    """A call inside the interval after an allowed call is dropped by the throttle."""
    t = Throttle(10)
    t.allow()
    assert not t.allow()


def test_call_after_the_interval_runs_again():
    """Once the interval has passed, the throttle lets a call through again."""
    t = Throttle(0)
    t.allow()
    assert t.allow()
'''


@pytest.fixture(scope="module")
def layout_repo(tmp_path_factory: pytest.TempPathFactory, embedder) -> Path:
    """A C library with its header in include/ and its source in src/, and a Python module with its tests."""
    files = {"include/ring/ring.h": RING_H, "src/ring.c": RING_C, "throttle.py": THROTTLE,
             "tests/test_throttle.py": THROTTLE_TESTS}
    repo = make_repo(tmp_path_factory.mktemp("layout") / "l", files)
    index_now(repo, embedder)
    return repo


def test_files_put_the_source_before_the_header_that_matched(layout_repo: Path, embedder) -> None:
    """The header's comments match the words (ring.h alone would rank first); ring.c implements it."""
    with Store(layout_repo / ".hookgraph" / "index.db") as store:
        files = search_files(store, "circular storage a producer and a consumer stream bytes through", top=3,
                             embedder=embedder)
    assert [f.path for f in files[:2]] == ["src/ring.c", "include/ring/ring.h"]
    assert "defines what a matching header declares" in files[0].reasons and files[0].score >= files[1].score


def test_files_put_code_before_the_tests_that_exercise_it(layout_repo: Path, embedder) -> None:
    """Three tests that each say "throttle" and "interval" would outweigh the one class on coherence."""
    with Store(layout_repo / ".hookgraph" / "index.db") as store:
        files = search_files(store, "how are calls within the interval dropped by the throttle", top=3,
                             embedder=embedder)
    paths = [f.path for f in files]
    assert paths.index("throttle.py") < paths.index("tests/test_throttle.py")
    assert "test code" in files[paths.index("tests/test_throttle.py")].reasons


MIDDLEWARE = '''"""Middlewares that each wrap the next application."""


class Logger:
    def call(self, env):
        return env


class Timer:
    def call(self, env):
        return env


class Gzip:
    def call(self, env):
        return env


class Lock:
    def call(self, env):
        return env


class Deflater:
    def __init__(self, app):
        self.app = app

    def call(self, env):
        response = self.app.call(env)
        if self.should_deflate(response):
            return compress_body(response)
        return response

    def should_deflate(self, response):
        return bool(response)


def compress_body(response):
    """Gzip a response body."""
    return response
'''


def test_what_x_calls_puts_calls_that_name_one_place_before_guesses(tmp_path: Path, embedder) -> None:
    """``self.app.call(env)`` may run any of five ``call`` methods: a guess. ``self.should_deflate``
    and ``compress_body`` name one unit each, so they answer first (search.AMBIGUOUS_CALL)."""
    repo = make_repo(tmp_path / "mw", {"middleware.py": MIDDLEWARE})
    index_now(repo, embedder)
    with Store(repo / ".hookgraph" / "index.db") as store:
        results = search(store, "what does Deflater.call call?", top=8, embedder=embedder)
    answers = [r.unit.qualname for r in results if r.graph == 1.0]
    assert set(answers[:2]) == {"Deflater.should_deflate", "compress_body"}
    assert {"Logger.call", "Timer.call", "Gzip.call", "Lock.call"} <= set(answers[2:])


RETRY_GO = """package retry

import "time"

// Policy says how often and how long to wait between attempts of a request.
type Policy struct {
	Attempts int
	Delay    time.Duration
	Backoff  float64
}

// Do runs the request, and when it fails waits and runs it again, growing the wait each time,
// until it succeeds or the attempts of the policy are used up.
func Do(p Policy, request func() error) error {
	var err error
	delay := p.Delay
	for i := 0; i < p.Attempts; i++ {
		if err = request(); err == nil {
			return nil
		}
		time.Sleep(delay)
		delay = time.Duration(float64(delay) * p.Backoff)
	}
	return err
}
"""


def test_a_question_about_behaviour_ranks_the_function_before_the_type_it_takes(tmp_path: Path, embedder) -> None:
    """search.TYPE_WEIGHT: a struct whose comment shares the question's words is context, the
    function that does it is the answer (Policy came first without the rule); the type is still shown,
    and its name alone still finds it first."""
    repo = make_repo(tmp_path / "retry", {"retry.go": RETRY_GO})
    index_now(repo, embedder)
    with Store(repo / ".hookgraph" / "index.db") as store:
        ranked = [r.unit.qualname for r in search(store, "how long to wait between attempts of a failed request",
                                                  top=3, embedder=embedder)]
        assert ranked[:2] == ["Do", "Policy"]
        assert search(store, "Policy", top=1, embedder=embedder)[0].unit.qualname == "Policy"


STORE_H = """#ifndef STORE_H
#define STORE_H

/* Writes one meta-block of commands to the output, choosing the cheapest code. */
void store_meta_block(const unsigned char* input, unsigned long start,
                      unsigned long length, unsigned long mask,
                      int is_last, unsigned char* storage);

#endif
"""

STORE_C = """#include "store.h"

void store_meta_block(const unsigned char* input, unsigned long start,
                      unsigned long length, unsigned long mask,
                      int is_last, unsigned char* storage)
{
    unsigned long i;
    for (i = 0; i < length; ++i)
        storage[i] = input[(start + i) & mask];
    storage[length] = (unsigned char)is_last;
}
"""


def test_an_identifier_finds_its_definition_before_a_prototype_over_several_lines(tmp_path: Path, embedder) -> None:
    """search.DEFINITIONS_FIRST: a prototype wrapped over lines (brotli's style) is a declaration too,
    known by its same-named twin outside the headers; it used to come first, with the doc comment's words."""
    repo = make_repo(tmp_path / "store", {"store.h": STORE_H, "store.c": STORE_C})
    index_now(repo, embedder)
    with Store(repo / ".hookgraph" / "index.db") as store:
        ranked = [r.unit.path for r in search(store, "store_meta_block", top=3, embedder=embedder)
                  if r.unit.qualname == "store_meta_block"]
    assert ranked == ["store.c", "store.h"]


CACHE_GO = """package cache

import "time"

// DefaultTTL is how long an entry stays in the cache before it expires and is dropped.
const DefaultTTL = 10 * time.Minute

type entry struct {
	value   string
	expires time.Time
}

type Cache struct {
	entries map[string]entry
}

// Sweep walks the map and deletes every entry whose deadline has passed.
func (c *Cache) Sweep(now time.Time) int {
	removed := 0
	for key, e := range c.entries {
		if now.After(e.expires) {
			delete(c.entries, key)
			removed++
		}
	}
	return removed
}
"""


def test_a_question_about_behaviour_ranks_the_code_before_a_named_value(tmp_path: Path, embedder, monkeypatch) -> None:
    """search.VALUE_WEIGHT: a constant whose one-line comment shares the question's words is a
    setting, the method that does the work is the answer; asked by its name, the value still comes first."""
    repo = make_repo(tmp_path / "cache", {"cache.go": CACHE_GO})
    index_now(repo, embedder)
    question = "drop the entries that have expired from the cache"
    with Store(repo / ".hookgraph" / "index.db") as store:
        ranked = [r.unit.qualname for r in search(store, question, top=2, embedder=embedder)]
        assert ranked == ["Cache.Sweep", "DefaultTTL"]
        assert search(store, "DefaultTTL", top=1, embedder=embedder)[0].unit.kind == "constant"
        # The one-line constant gets no vector (the no-embed rule): its words earn it half the semantic half
        # (search.NO_EMBED_MEANING); with all of it, as a unit that waited for its vector got before static
        # vectors stood in for meaning, the value wins.
        monkeypatch.setattr(ranking_module, "NO_EMBED_MEANING", 1.0)
        monkeypatch.setattr(ranking_module, "_static_query", lambda query: None)
        assert search(store, question, top=1, embedder=embedder)[0].unit.qualname == "DefaultTTL"
        monkeypatch.undo()
        monkeypatch.setattr(weights_module, "VALUE_WEIGHT", 1.0)  # without the rule the value wins
        monkeypatch.setattr(ranking_module, "NO_EMBED_MEANING", 1.0)
        assert search(store, question, top=1, embedder=embedder)[0].unit.qualname == "DefaultTTL"


UPLOAD_PY = '''"""Receiving files that clients upload."""


def store_upload(request, folder):
    """Save an uploaded file into the folder, refusing one whose digest does not match."""
    data = request.body
    if _sha256_hex(data) != request.headers["X-Digest"]:
        raise ValueError("digest mismatch")
    (folder / request.filename).write_bytes(data)


def _sha256_hex(data):
    import hashlib
    return hashlib.sha256(data).hexdigest()


def list_uploads(folder):
    """Every uploaded file in the folder, newest first."""
    return sorted(folder.iterdir(), key=lambda p: -p.stat().st_mtime)


def delete_upload(folder, name):
    """Remove one uploaded file from the folder."""
    (folder / name).unlink()


def upload_path(folder, name):
    """Where an uploaded file with this name is saved."""
    return folder / name


def digest_header(request):
    """The digest a client sent with its upload."""
    return request.headers.get("X-Digest", "")


def count_uploads(folder):
    """How many files were uploaded into the folder."""
    return sum(1 for _ in folder.iterdir())


def parse_range(header):
    start, _, end = header.partition("-")
    return int(start), int(end)


def format_size(n):
    for unit in ("B", "KB", "MB"):
        if n < 1024:
            return f"{n} {unit}"
        n /= 1024
    return f"{n} GB"
'''


def test_the_best_hits_lift_what_they_call(tmp_path: Path, embedder) -> None:
    """search.GRAPH_DECAY: the helper a top hit calls shares no word with the question, yet it is part of
    the answer; the call lifts it by a tenth of its caller's score, past units that only share words."""
    repo = make_repo(tmp_path / "upload", {"upload.py": UPLOAD_PY})
    index_now(repo, embedder)
    question = "save an uploaded file and refuse it when its digest does not match"
    with Store(repo / ".hookgraph" / "index.db") as store:
        lifted = search(store, question, top=10, embedder=embedder)
        plain = search(store, question, top=10, embedder=embedder, use_graph=False)
    order = [r.unit.qualname for r in lifted]
    helper = next(r for r in lifted if r.unit.qualname == "_sha256_hex")
    assert order[0] == "store_upload"
    assert helper.graph == pytest.approx(boosts_module.GRAPH_DECAY * lifted[0].score)
    assert order.index("_sha256_hex") < order.index("list_uploads")
    plain_order = [r.unit.qualname for r in plain]
    assert plain_order.index("_sha256_hex") > plain_order.index("list_uploads")
    assert all(r.graph is None for r in plain)


ATTEMPT_PY = '''def attempt(job):
    """Try the job once and tell whether it worked."""
    try:
        job()
    except Exception:
        return False
    return True
'''


def test_a_question_word_in_the_file_name_counts_for_the_keyword_boost(tmp_path: Path, embedder, monkeypatch) -> None:
    """search.KEYWORD_MODULE: two same functions in retry.py and queue.py; "retry" in the question is
    worth one keyword boost to the unit in retry.py (its module's name), on top of what full text gives."""
    repo = make_repo(tmp_path / "twins", {"retry.py": ATTEMPT_PY, "queue.py": ATTEMPT_PY})
    index_now(repo, embedder)
    question = "try the job once in the retry code and tell whether it worked"

    def lead() -> float:
        with Store(repo / ".hookgraph" / "index.db") as store:
            scores = {r.unit.path: r.score for r in search(store, question, top=4, embedder=embedder)
                      if r.unit.qualname == "attempt"}
        return scores["retry.py"] - scores["queue.py"]

    with_module = lead()
    monkeypatch.setattr(boosts_module, "KEYWORD_MODULE", False)
    assert with_module - lead() == pytest.approx(boosts_module.KEYWORD_BOOST)


REPLY_PY = '''def quote(message, prefix="> "):
    out = []
    for line in message.splitlines():
        if line.startswith(prefix):
            out.append(prefix.strip() + line)
        elif not line.strip():
            out.append(prefix.rstrip())
        else:
            out.append(prefix + line)
    return "\\n".join(out)


def answer_to(message, sender):
    """Start an answer: who wrote the message, then every line of it marked as cited."""
    head = f"{sender} wrote:"
    return head + "\\n" + quote(message)
'''


def test_each_question_word_in_a_name_or_signature_is_worth_one_keyword_boost(tmp_path: Path, embedder,
                                                                                monkeypatch) -> None:
    """search.KEYWORD_BOOST: "quote" and "message" stand in ``quote(message, prefix)``, "message" alone in
    ``answer_to(message, sender)``, "line" only in bodies; each word in a name or signature adds one boost
    on top of what full text and meaning give, a word of the body adds none."""
    repo = make_repo(tmp_path / "reply", {"reply.py": REPLY_PY})
    index_now(repo, embedder)
    question = "quote each line of the message"

    def scores() -> dict[str, float]:
        with Store(repo / ".hookgraph" / "index.db") as store:
            return {r.unit.qualname: r.score for r in search(store, question, top=5, embedder=embedder,
                                                              use_graph=False)}

    shipped = boosts_module.KEYWORD_BOOST
    assert shipped > 0  # the rule is on
    boosted = scores()
    monkeypatch.setattr(boosts_module, "KEYWORD_BOOST", 0.0)
    plain = scores()
    assert boosted["quote"] - plain["quote"] == pytest.approx(2 * shipped)
    assert boosted["answer_to"] - plain["answer_to"] == pytest.approx(shipped)
    assert boosted["reply.py"] == pytest.approx(plain["reply.py"])


CLIENT_PY = '''import time


def call_with_retries(request, attempts, backoff):
    """Call the request; when it fails, sleep and call it again, longer each time."""
    delay = 1.0
    for _ in range(attempts):
        try:
            return request()
        except OSError:
            time.sleep(delay)
            delay *= backoff
    raise RuntimeError("out of attempts")
'''

RETRIES_YAML = """# How the client retries a failed request.
retries:
  attempts: 5        # times a failed request is retried
  backoff: 2.0       # each wait is this many times the last
  statuses: [502, 503, 504]
"""


def test_files_put_the_code_before_the_config_that_names_it(tmp_path: Path, embedder, monkeypatch) -> None:
    """search.files.FILE_DATA_WEIGHT: a YAML file whose comments say the question's words settles numbers;
    the file that does the retrying is the answer (the YAML came first without the rule), and stays listed."""
    repo = make_repo(tmp_path / "client", {"client.py": CLIENT_PY, "retries.yaml": RETRIES_YAML})
    index_now(repo, embedder)
    question = "how a failed request is retried with a growing wait"
    with Store(repo / ".hookgraph" / "index.db") as store:
        files = search_files(store, question, top=3, embedder=embedder)
        assert [f.path for f in files] == ["client.py", "retries.yaml"]
        assert "data or text" in files[1].reasons
        monkeypatch.setattr(files_module, "FILE_DATA_WEIGHT", 1.0)
        assert search_files(store, question, top=1, embedder=embedder)[0].path == "retries.yaml"


ELIXIR_ROUTER = b'''defmodule Shop.Router do
  @moduledoc """
  Defines the routes of the shop and dispatches each request to its controller.
  """

  def match(conn, path), do: {conn, path}
end
'''


def test_a_dotted_module_asked_by_its_last_part_is_an_exact_strong_match(tmp_path: Path, embedder) -> None:
    """Elixir names a module by its whole dotted name (``defmodule Phoenix.Router``): the symbol question
    ``Router`` found router.ex first but, matching no unit's name exactly, was called weak (filebench
    phoenix). A name that ends in ``.Router`` is the exact match of ``Router``; ``Route`` is not."""
    repo = make_repo(tmp_path / "shop", {"lib/shop/router.ex": ELIXIR_ROUTER.decode(), "README.md": "# Shop\n"})
    index_now(repo, embedder)
    with Store(db_path(repo)) as store:
        ranked = search(store, "Router", embedder=embedder)
        assert ranked[0].unit.qualname == "Shop.Router" and ranked[0].exact
        assert answer_match(ranked) == "strong"
        assert not any(r.exact for r in search(store, "Route", embedder=embedder))


PARSER = '''"""Reading the fixed-size header that starts every record."""


def parse_header(block):
    """Split a 16-byte header into its name and size; an empty or short block is refused."""
    if len(block) < 16:
        raise ValueError("header too short")
    name = block[:8].rstrip(b"\\0").decode()
    size = int(block[8:16].rstrip(b"\\0") or b"0", 8)
    return name, size
'''

PARSER_TESTS = '''from parser import parse_header


def test_a_short_header_is_refused():
    try:
        parse_header(b"abc")
    except ValueError:
        return
    raise AssertionError("a short header was accepted")


def test_a_header_gives_its_name_and_size():
    assert parse_header(b"file.txt" + b"00000017") == ("file.txt", 15)
'''


def test_a_question_that_asks_for_tests_finds_the_test_itself(tmp_path: Path, embedder) -> None:
    """Tests weigh less than the code they test, and have no vector (no-embed rule); asked for, they come first."""
    repo = make_repo(tmp_path / "records", {"parser.py": PARSER, "tests/test_parser.py": PARSER_TESTS})
    index_now(repo, embedder)
    with Store(db_path(repo)) as store:
        asked = search(store, "test that a short header is refused", embedder=embedder)
        assert asked[0].unit.path == "tests/test_parser.py", [(r.unit.path, r.unit.name) for r in asked]
        assert asked[0].unit.name == "test_a_short_header_is_refused"
        assert "test code" not in asked[0].reasons
        files = search_files(store, "test that a short header is refused", embedder=embedder)
        assert files[0].path == "tests/test_parser.py", [f.path for f in files]
        plain = search(store, "a short header is refused", embedder=embedder)
        assert plain[0].unit.name == "parse_header", [(r.unit.path, r.unit.name) for r in plain]
        assert any("test code" in r.reasons for r in plain if r.unit.path.startswith("tests/"))


def test_which_questions_ask_for_tests() -> None:
    from hookgraph.search.intent import asks_for_tests

    for asked in ("test that a record claiming the maximum size overflows", "tests for the router",
                  "where is redirect handling tested?", "which tests cover retries", "test cases of the parser"):
        assert asks_for_tests(asked), asked
        assert read_intent(asked).wants_tests, asked
    for helper in ("transport for tests that answers every request", "in a test, open the cookie data",
                   "the test client used in tests", "can I test whether a path would be handled",
                   "marble testing: virtual time"):
        assert not asks_for_tests(helper), helper
