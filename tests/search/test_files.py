"""The files ranking's path rules: real git, real SQLite, the shipped model.

Each test turns one rule off (or to another value) and shows the order it
decides: the file named after the question's subject first, the file whose
stem the question covers first, files named after the subject found even when
their words are too common to reach the candidates, and an identifier's own
definition kept first.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import hookgraph.search as search_module
import hookgraph.search.boosts as boosts_module
import hookgraph.search.files as files_module
import hookgraph.search.ranking as ranking_module
from hookgraph.search import search_files
from hookgraph.store import Store
from tests.conftest import index_now, make_repo

# A client whose docstrings talk about retrying, and a small undocumented file named after it.
CLIENT = '''"""HTTP client."""


def send(request, session):
    """Send the request; on a dropped connection, retry it and retry again with a longer wait."""
    return session.send(request)


def close(session):
    """Close the session and its connections."""
    session.close()
'''

RETRY = '''def delay(attempt, base=0.5, cap=30.0):
    return min(cap, base * 2 ** attempt)


def attempts_left(attempt, limit):
    return attempt < limit
'''

APPLICATIVE = '''class Applicative:
    """Combine independent effects: pure lifts a value, ap applies a wrapped function."""

    def pure(self, value):
        raise NotImplementedError

    def ap(self, wrapped_function, wrapped_value):
        raise NotImplementedError
'''

COMMUTATIVE = '''class CommutativeApplicative:
    """An applicative whose independent effects can be combined in any order."""

    def ap(self, wrapped_function, wrapped_value):
        raise NotImplementedError
'''

CODEC_BASE = '''class Codec:
    """Turns values into bytes and back."""

    def encode(self, value):
        raise NotImplementedError

    def decode(self, data):
        raise NotImplementedError
'''

CODEC_HELPERS = '''def encode_all(codec, values):
    """Encode every value with the codec."""
    return [codec.encode(v) for v in values]
'''


@pytest.fixture(scope="module")
def retry_repo(tmp_path_factory: pytest.TempPathFactory, embedder) -> Path:
    repo = make_repo(tmp_path_factory.mktemp("files-rules") / "r", {"client.py": CLIENT, "retry.py": RETRY})
    index_now(repo, embedder)
    return repo


def test_the_file_named_after_the_subject_is_lifted(retry_repo: Path, embedder, monkeypatch) -> None:
    """FILE_PATH_SHARE: ``retry.py`` holds the retry policy with no word of prose; ``client.py`` talks about it.

    The lift is shown on one folded ranking (``FILES_BY_EACH_HALF`` off), where it decides the order; with
    the file fusion each half is folded the same way and the lift still raises ``retry.py``'s score.
    """
    question = "retry attempts and the wait between them"

    def score_of_retry() -> float:
        return {f.path: f.score for f in search_files(store, question, top=2, embedder=embedder)}["retry.py"]

    with Store(retry_repo / ".hookgraph" / "index.db") as store:
        fused = score_of_retry()
        monkeypatch.setattr(files_module, "FILE_PATH_SHARE", 0.0)
        assert score_of_retry() < fused
        monkeypatch.undo()
        monkeypatch.setattr(ranking_module, "FILES_BY_EACH_HALF", False)
        files = search_files(store, question, top=2, embedder=embedder)
        assert files[0].path == "retry.py" and "question words in its path" in files[0].reasons
        monkeypatch.setattr(files_module, "FILE_PATH_SHARE", 0.0)
        assert search_files(store, question, top=2, embedder=embedder)[0].path == "client.py"


def test_a_file_named_after_the_subject_joins_the_candidates(retry_repo: Path, embedder, monkeypatch) -> None:
    """PATH_CANDIDATE_FILES: with one candidate per list, only the path brings ``retry.py`` in at all."""
    monkeypatch.setattr(ranking_module, "CANDIDATES", 1)
    question = "retry connection wait"
    with Store(retry_repo / ".hookgraph" / "index.db") as store:
        assert "retry.py" in [f.path for f in search_files(store, question, top=5, embedder=None)]
        monkeypatch.setattr(ranking_module, "PATH_CANDIDATE_FILES", 0)
        assert "retry.py" not in [f.path for f in search_files(store, question, top=5, embedder=None)]


def test_the_file_whose_stem_the_question_covers_comes_first(tmp_path: Path, embedder, monkeypatch) -> None:
    """FILE_STEM_COVER: both stems hold "applicative"; only one stem is nothing else."""
    repo = make_repo(tmp_path / "fp", {"applicative.py": APPLICATIVE, "commutative_applicative.py": COMMUTATIVE})
    index_now(repo, embedder)
    question = "how applicative combines independent effects"
    with Store(repo / ".hookgraph" / "index.db") as store:
        first = search_files(store, question, top=2, embedder=embedder)
        monkeypatch.setattr(files_module, "FILE_STEM_COVER", 0.0)
        plain = search_files(store, question, top=2, embedder=embedder)
    assert first[0].path == "applicative.py"
    # Without the rule both stems count alike: the gap between the two files narrows.
    assert first[0].score - first[1].score > plain[0].score - plain[1].score


def test_an_identifier_keeps_its_definition_before_a_file_named_like_it(tmp_path: Path, embedder,
                                                                        monkeypatch) -> None:
    """FILE_PATH_SHARE_IDENTIFIER: ``Codec`` is defined in base.py; codec.py only uses it."""
    repo = make_repo(tmp_path / "codecs", {"base.py": CODEC_BASE, "codec.py": CODEC_HELPERS})
    index_now(repo, embedder)
    with Store(repo / ".hookgraph" / "index.db") as store:
        files = search_files(store, "Codec", top=2, embedder=embedder)
        assert [f.path for f in files] == ["base.py", "codec.py"]
        assert "question words in its path" in files[1].reasons
        monkeypatch.setattr(files_module, "FILE_PATH_SHARE_IDENTIFIER", files_module.FILE_PATH_SHARE * 2)
        assert search_files(store, "Codec", top=2, embedder=embedder)[0].path == "codec.py"


# An identifier whose one word is rare in its own definition, and common in the code that uses it.
PAGER = '''class PagerT:
    size = 20


def pager_next(pager, page):
    """Move the pager to the next page of the pager's results."""
    return page + 1


def pager_prev(pager, page):
    """Move the pager back one page; the pager stops at the first page."""
    return max(0, page - 1)


def pager_reset(pager):
    """Put the pager back on its first page."""
    return 0
'''

TIMEOUT_KT = '''package demo

/** Installs the plugins a client starts with; the timeout is made here, a value local to this function. */
fun defaultPlugins(client: HttpClientConfig<*>) {
    val HttpTimeout = createClientPlugin("HttpTimeout", ::TimeoutConfig) {
        onRequest { request, _ -> request.attributes.put(Limit, pluginConfig.limit) }
    }
    client.install(HttpTimeout)
}

class TimeoutConfig {
    var limit: Long = 1000
}

fun HttpClientConfig<*>.withTimeout() = install(HttpTimeout)
'''


def test_an_exact_name_leads_while_vectors_are_pending() -> None:
    """EXACT_MARGIN: with no vector yet, words stand in for meaning, so a unit that only mentions the name
    scores past ``+1`` (cats, vectors pending: ``EitherT.transform`` 1.206 against the class ``EitherT`` 1.1,
    whose one word is in more than LEXICAL_DEPTH other units). Every exact match is lifted above the rest,
    in its own order, and nothing else moves."""
    from hookgraph.search import Result
    from hookgraph.store import UnitRow

    def unit(uid: int, qualname: str, kind: str) -> UnitRow:
        return UnitRow(uid, "EitherT.scala", kind, qualname.rsplit(".", 1)[-1], qualname,
                       None, uid, uid, "scala", qualname, "")

    results = {1: Result(unit(1, "EitherT", "class"), score=1.1, exact=True),
               2: Result(unit(2, "EitherT", "object"), score=1.05, exact=True),
               3: Result(unit(3, "EitherT.transform", "method"), score=1.206),
               4: Result(unit(4, "EitherT.fold", "method"), score=0.9)}
    boosts_module._exact_above_the_rest(results)
    order = [r.unit.id for r in sorted(results.values(), key=lambda r: -r.score)]
    assert order == [1, 2, 3, 4]
    assert results[2].score == pytest.approx(1.206 + boosts_module.EXACT_MARGIN)
    assert results[3].score == 1.206 and results[4].score == 0.9


def test_a_name_the_code_writes_but_no_unit_is_named_is_strong(tmp_path: Path, embedder, monkeypatch) -> None:
    """SPELLED_CONFIDENCE: a value made inside a function (``val HttpTimeout = createClientPlugin(...)``) is no
    unit, but the project has it. (A top-level ``val`` is a unit, so the example makes it inside a function.)"""
    import hookgraph.search.confidence as confidence_module
    from hookgraph.search import answer_match

    repo = make_repo(tmp_path / "kt", {"Timeout.kt": TIMEOUT_KT})
    index_now(repo, embedder)
    with Store(repo / ".hookgraph" / "index.db") as store:
        assert answer_match(search_module.search(store, "HttpTimeout", embedder=embedder)) == "strong"
        assert answer_match(search_module.search(store, "HttpRetryPolicy", embedder=embedder)) == "weak"
        monkeypatch.setattr(confidence_module, "SPELLED_CONFIDENCE", confidence_module.NO_EXACT_CONFIDENCE)
        assert answer_match(search_module.search(store, "HttpTimeout", embedder=embedder)) == "weak"


def _file(path: str, score: float, weight: float = 1.0) -> files_module.FileResult:
    return files_module.FileResult(path, "python", score * weight, weight=weight)


def test_a_file_both_halves_find_comes_before_one_that_only_one_half_finds() -> None:
    """fuse_file_rankings: ``store.py`` is second by words and second by meaning; each half's first file is
    found by that half alone. Folded from one fused unit ranking, a single strong unit decided instead."""
    by_words = [_file("parser.py", 2.0), _file("store.py", 1.6)]
    by_meaning = [_file("cache.py", 1.0), _file("store.py", 0.9), _file("parser.py", 0.1)]
    files = files_module.fuse_file_rankings(by_words, by_meaning, [], top=3)
    assert [f.path for f in files] == ["store.py", "parser.py", "cache.py"]
    assert files[0].score == pytest.approx(0.5 * 1.6 / 2.0 + 0.5 * 0.9 / 1.0)


def test_what_a_file_is_weighs_after_the_fusion_not_inside_each_half() -> None:
    """A data file whose comments repeat the question is first by words even at half weight; its share of
    the words' best is taken before the factor, so the code file the meaning prefers stays first."""
    by_words = [_file("retries.yaml", 1.4, weight=0.5), _file("client.py", 0.1)]
    by_meaning = [_file("client.py", 1.4), _file("retries.yaml", 0.9, weight=0.5)]
    files = files_module.fuse_file_rankings(by_words, by_meaning, [], top=2)
    assert [f.path for f in files] == ["client.py", "retries.yaml"]
    assert files[1].score == pytest.approx(0.5 * (0.5 * 1.0 + 0.5 * 0.9 / 1.4))


def test_the_fused_files_keep_the_units_the_fused_unit_ranking_found() -> None:
    """The file shown (its units, its reasons) is the one folded from the fused unit ranking."""
    shown = _file("store.py", 0.7)
    shown.reasons.append("several units answer")
    files = files_module.fuse_file_rankings([_file("store.py", 1.0)], [_file("store.py", 1.0)], [shown], top=1)
    assert files[0] is shown and files[0].score == pytest.approx(1.0)


def test_files_are_one_ranking_by_words_without_vectors(retry_repo: Path, monkeypatch) -> None:
    """With no model (``--no-semantic``) there is nothing to fuse: the fold of the words ranking, as before."""
    question = "retry attempts and the wait between them"
    with Store(retry_repo / ".hookgraph" / "index.db") as store:
        plain = [(f.path, f.score) for f in search_files(store, question, top=2)]
        monkeypatch.setattr(ranking_module, "FILES_BY_EACH_HALF", False)
        assert [(f.path, f.score) for f in search_files(store, question, top=2)] == plain


ADAPTER_KINDS = ["map", "list", "enum", "date", "number", "array", "object", "tree", "set", "queue", "byte", "char"]


def test_a_path_word_many_candidate_files_carry_lifts_each_less() -> None:
    """path_word_weights: 12 files carry "type", "adapter" and "factory" in their names, one carries "registry"."""
    paths = [f"adapters/{k}_type_adapter_factory.py" for k in ADAPTER_KINDS] + ["registry.py"]
    weights = files_module.path_word_weights(["type", "adapter", "factories", "registry"], paths)
    assert weights["type"] == weights["adapter"] == weights["factories"] == pytest.approx(6 / 12)
    assert weights["registry"] == 1.0


def test_the_builder_stands_further_above_the_files_named_after_the_words(tmp_path: Path, embedder,
                                                                           monkeypatch) -> None:
    """PATH_WORD_COMMON: "type adapter factories" names twelve factory files; the answer to how they are
    registered is the builder, and their shared name lifts each of them less."""
    files = {f"adapters/{k}_type_adapter_factory.py":
             f'class {k.title()}TypeAdapterFactory:\n    """Makes the type adapter for {k} values."""\n\n'
             f"    def create(self, kind):\n        return {k.title()}Adapter()\n" for k in ADAPTER_KINDS}
    files["builder.py"] = (
        "class Builder:\n    def __init__(self):\n        self.factories = []\n\n"
        "    def register_type_adapter_factory(self, factory):\n"
        '        """Register a type adapter factory; factories are asked in order, the first that knows the type'
        ' wins."""\n        self.factories.append(factory)\n        return self\n')
    repo = make_repo(tmp_path / "r", files)
    index_now(repo, embedder)
    question = "how type adapter factories are registered and selected for a given type"

    def lead() -> float:
        ranked = search_files(store, question, top=3, embedder=embedder)
        assert ranked[0].path == "builder.py"
        return ranked[0].score - ranked[1].score

    with Store(repo / ".hookgraph" / "index.db") as store:
        shipped = lead()
        monkeypatch.setattr(files_module, "PATH_WORD_COMMON", 0)
        assert lead() < shipped


def test_the_fusion_still_puts_a_source_before_its_header() -> None:
    """Both halves put ``ring.h`` first (its comments hold the words); ``ring.c`` implements it and takes
    the header's place, as in one folded ranking (SOURCE_BEFORE_HEADER)."""
    by_words = [_file("include/ring.h", 1.0), _file("src/ring.c", 0.5)]
    by_meaning = [_file("include/ring.h", 1.0), _file("src/ring.c", 0.9)]
    source = _file("src/ring.c", 0.4)
    source.reasons.append(files_module.HEADER_REASON)  # placed once already, in the fused unit ranking's files
    files = files_module.fuse_file_rankings(by_words, by_meaning, [source], top=2)
    assert [f.path for f in files] == ["src/ring.c", "include/ring.h"]
    assert files[0].score >= files[1].score
    assert files[0].reasons.count(files_module.HEADER_REASON) == 1
