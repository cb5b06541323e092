"""What a unit is embedded as and found by (hookgraph/parse/compose.py), on real parses.

The recipe decides what every vector means and when a unit is embedded
again, so each of its parts is pinned here: the header, signature and
docstring, the calls listed (unique, capped), the head of the body, a class
without its members' bodies, and the path kept out of the vector but in full
text.
"""

from __future__ import annotations

import pytest

from hookgraph.parse import compose, parse_file
from hookgraph.parse.compose import embed_texts, fts_columns, text_hash
from hookgraph.parse.units import ParsedFile

FEED = '''class Feed:
    """Entries read from one news feed."""

    limit = 20

    def refresh(self, url):
        """Download the feed again and keep its newest entries."""
        body = fetch(url)
        entries = parse(body)
        entries = parse(body)
        return keep(entries)
'''


def composed(pf: ParsedFile) -> dict[str, str]:
    """Each unit's embedded text by qualname, as the sync composes it."""
    return {u.qualname: text for u, text in zip(pf.units, embed_texts(pf))}


def parsed(path: str, source: str) -> ParsedFile:
    pf = parse_file(path, source.encode())
    assert pf is not None
    return pf


def test_a_method_is_its_header_signature_docstring_calls_and_body() -> None:
    text = composed(parsed("news/feed.py", FEED))["Feed.refresh"]
    assert text.splitlines()[:4] == [
        "method Feed.refresh",
        "def refresh(self, url)",
        "Download the feed again and keep its newest entries.",
        "calls: fetch, parse, keep",  # once each, in the order they are called
    ]
    assert text.endswith("        return keep(entries)")


def test_a_class_lists_its_members_names_not_their_bodies() -> None:
    """An edit inside one method then re-embeds that method only."""
    text = composed(parsed("news/feed.py", FEED))["Feed"]
    assert "members: refresh" in text and "limit = 20" in text
    assert "fetch(url)" not in text
    edited = composed(parsed("news/feed.py", FEED.replace("fetch(url)", "fetch(url, timeout=5)")))
    assert edited["Feed"] == text and edited["Feed.refresh"] != composed(parsed("news/feed.py", FEED))["Feed.refresh"]


def test_only_the_head_of_a_long_body_is_embedded() -> None:
    """compose.BODY_LINES: all-MiniLM reads 128-256 tokens; the first lines say what a body does."""
    source = "\n".join(f"    step_{i} = {i}" for i in range(80))
    text = composed(parsed("steps.py", f"def many():\n{source}\n"))["many"]
    lines = text.splitlines()
    assert lines[:2] == ["function many", "def many()"]
    assert len(lines) - lines.index("def many():") == compose.BODY_LINES
    assert f"step_{compose.BODY_LINES - 2} =" in text and f"step_{compose.BODY_LINES - 1} =" not in text


def test_a_long_documentation_section_is_embedded_from_its_head(monkeypatch: pytest.MonkeyPatch) -> None:
    """compose.SECTION_CHARS: a long section's later windows moved no question on either benchmark."""
    changes = "\n".join(f"- Fixed issue number {i} in the nested JSON builder." for i in range(120))
    readme = f"# Change Log\n\n## 3.2.0\n\n{changes}\n\n## 3.1.0\n\nShort notes.\n"
    texts = composed(parsed("CHANGELOG.md", readme))
    limit = compose.SECTION_CHARS
    monkeypatch.setattr(compose, "SECTION_CHARS", 0)
    whole = composed(parsed("CHANGELOG.md", readme))
    key = "Change Log > 3.2.0"
    assert 0 < len(texts[key]) <= limit < len(whole[key])
    assert whole[key].startswith(texts[key]) and whole[key][len(texts[key])] in " \n"  # cut between words
    assert texts[key].startswith(f"section {key}\n- Fixed issue number 0 ")
    assert texts["Change Log > 3.1.0"] == whole["Change Log > 3.1.0"]  # a short section is whole
    monkeypatch.undo()
    source = "\n".join(f"    step_{i} = {'x' * 60}" for i in range(25))  # code keeps its BODY_LINES instead
    assert len(composed(parsed("steps.py", f"def many():\n{source}\n"))["many"]) > compose.SECTION_CHARS


def test_the_calls_listed_are_capped() -> None:
    """compose.MAX_CALLS_LISTED: a dispatcher's many calls would crowd out its own words."""
    calls = "\n".join(f"    handler_{i}()" for i in range(20))
    text = composed(parsed("dispatch.py", f"def dispatch():\n{calls}\n"))["dispatch"]
    (listed,) = [line for line in text.splitlines() if line.startswith("calls: ")]
    assert listed == "calls: " + ", ".join(f"handler_{i}" for i in range(compose.MAX_CALLS_LISTED))
    assert 0 < compose.MAX_CALLS_LISTED < 20


def test_a_moved_file_keeps_its_vectors_and_full_text_sees_its_new_path() -> None:
    """The path is left out of the embedded text (a move re-embeds nothing) but its words reach full text."""
    before = parsed("news/feed.py", FEED)
    after = parsed("archive/rss_reader.py", FEED)
    assert composed(before)["Feed.refresh"] == composed(after)["Feed.refresh"]
    (method,) = [u for u in after.units if u.qualname == "Feed.refresh"]
    name, words, path, *_ = fts_columns(method)
    assert path.split() == ["archive", "rss", "reader", "py"]
    assert "refresh" in name.split() and "feed" in words.split()


def test_full_text_columns_hold_identifier_split_words() -> None:
    """``max_retries`` is found by ``retries`` and ``RetryPolicy`` by ``policy``."""
    pf = parsed("policy.py", "class RetryPolicy:\n    def wait(self, max_retries):\n        return max_retries * 2\n")
    (method,) = [u for u in pf.units if u.qualname == "RetryPolicy.wait"]
    name, words, _path, signature, _doc, body, implied = fts_columns(method)
    assert {"retry", "policy", "wait"} <= set(words.split())
    assert {"max", "retries"} <= set(signature.split()) and {"max", "retries"} <= set(body.split())
    assert not set(implied.split()) & set(body.split())  # expansion words are words the unit does not write


def test_a_vector_key_names_the_model_and_the_exact_text() -> None:
    """Vectors from another model are never mixed in: the key changes with the model's checksum."""
    key = text_hash("a" * 64, "function f")
    assert len(key) == compose.KEY_BYTES
    assert key == text_hash("a" * 64, "function f")
    assert key != text_hash("b" * 64, "function f") and key != text_hash("a" * 64, "function g")


TRICKY = [
    "", "   ", "resolve_redirects", "getHTTPResponseCode", "Session.request", "max_retries2", "123abc a1b2 ABC X",
    "ünïcode_naïve café2Go", "x = foo(bar)[0] + 0x1F", "IOError HTTPServer v2Beta __init__ 3.14e10",
]


def test_full_text_words_of_whole_texts_are_the_identifier_words_joined(monkeypatch) -> None:
    """``identifier_text`` (what a sync writes, fast) gives exactly ``" ".join(identifier_words(...))`` (what
    search splits a query into), on odd strings and on every file of a real project, across memo resets."""
    from hookgraph.parse import words
    from tests.conftest import REQUESTS_FIXTURE

    texts = TRICKY + [p.read_text(encoding="utf-8", errors="replace") for p in sorted(REQUESTS_FIXTURE.rglob("*.py"))]
    assert len(texts) > 20
    for text in texts:
        assert words.identifier_text(text) == " ".join(words.identifier_words(text))
    monkeypatch.setattr(words, "_MEMO_TOKENS", 5)  # the memo starts over many times within one text
    words._token_words.clear()
    for text in texts:
        assert words.identifier_text(text) == " ".join(words.identifier_words(text))
    assert 0 < len(words._token_words) <= 5
