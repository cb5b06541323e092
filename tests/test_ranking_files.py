"""The files ranking's path rules (issue 30): real git, real SQLite, the shipped model.

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
import hookgraph.search.files as files_module
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
    """FILE_PATH_SHARE: ``retry.py`` holds the retry policy with no word of prose; ``client.py`` talks about it."""
    question = "retry attempts and the wait between them"
    with Store(retry_repo / ".hookgraph" / "index.db") as store:
        files = search_files(store, question, top=2, embedder=embedder)
        assert files[0].path == "retry.py" and "question words in its path" in files[0].reasons
        monkeypatch.setattr(files_module, "FILE_PATH_SHARE", 0.0)
        assert search_files(store, question, top=2, embedder=embedder)[0].path == "client.py"


def test_a_file_named_after_the_subject_joins_the_candidates(retry_repo: Path, embedder, monkeypatch) -> None:
    """PATH_CANDIDATE_FILES: with one candidate per list, only the path brings ``retry.py`` in at all."""
    monkeypatch.setattr(search_module, "CANDIDATES", 1)
    question = "retry connection wait"
    with Store(retry_repo / ".hookgraph" / "index.db") as store:
        assert "retry.py" in [f.path for f in search_files(store, question, top=5, embedder=None)]
        monkeypatch.setattr(search_module, "PATH_CANDIDATE_FILES", 0)
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
