"""Graph edges are facts, never guesses by name: a call on a receiver of unknown type is no edge to a same-named method,
``self``/``this`` calls still are, and a standard-library import is never drawn as a file of ours.

One real repository in Python, TypeScript, Go and Java, indexed by the real CLI; every question asked
through the real ``callers``/``callees``/``graph`` commands. The Python part is the httpie report:
``args.headers.get`` was listed as ``_GenericColorCaster.get`` and ``callers _GenericColorCaster.get``
answered with ``os.environ.get`` and ``{}.get``; ``import http.client`` was drawn as ``lexers/http.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import make_repo, run_cli

PY_INIT = ""
PY_CORE = '''import os
import http.client
from .lexers import http as http_lexer


class _GenericColorCaster:
    def get(self, name):
        return self.lookup(name)

    def lookup(self, name):
        return name


def collect_messages(args):
    headers = args.headers.get("Host")
    home = os.environ.get("HOME")
    empty = {}.get("x")
    caster = _GenericColorCaster()
    return headers, home, empty, caster, http.client.HTTPConnection, http_lexer
'''
PY_LEXER = '''def lex(text):
    return text.split()
'''

TS_CACHE = '''import * as path from "path";
import { readFileSync } from "fs";
import { slug } from "./util";

export class Cache {
  get(key: string): string {
    return this.lookup(key);
  }

  lookup(key: string): string {
    return slug(key);
  }
}

export function handle(req: Request, seen: Map<string, number>): number {
  const host = req.headers.get("host");
  const n = seen.get(host || "");
  return (n || 0) + path.sep.length + readFileSync.length;
}
'''
TS_UTIL = '''export function slug(s: string): string {
  return s.toLowerCase();
}
'''
TS_PATH = '''export function join(a: string, b: string): string {
  return a + "/" + b;
}
'''

GO_STORE = '''package store

import (
	"net/http"
	"net/url"
)

type Store struct{ items map[string]string }

func (s *Store) Get(key string) string {
	return s.lookup(key)
}

func (s *Store) lookup(key string) string {
	return s.items[key]
}

func Handle(r *http.Request) string {
	return r.Header.Get("Host") + url.PathEscape("x")
}
'''
GO_URL = '''package url

func Parse() {}
'''

JAVA_REGISTRY = '''package com.shop;

import java.util.Map;
import java.net.http.HttpClient;

public class Registry {
    public Object get(String key) {
        return this.lookup(key);
    }

    Object lookup(String key) {
        return normalise(key);
    }

    Object normalise(String key) {
        return key;
    }

    static Object read(Map<String, Object> config) {
        return config.get("name");
    }
}
'''
JAVA_HTTP_CLIENT = '''package com.shop.http;

public class HttpClient {
    public void send() {}
}
'''


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_repo(tmp_path_factory.mktemp("facts") / "repo", {
        "httpie/__init__.py": PY_INIT, "httpie/core.py": PY_CORE,
        "httpie/lexers/__init__.py": PY_INIT, "httpie/lexers/http.py": PY_LEXER,
        "web/cache.ts": TS_CACHE, "web/util.ts": TS_UTIL, "web/path.ts": TS_PATH,
        "store/store.go": GO_STORE, "url/url.go": GO_URL,
        "src/main/java/com/shop/Registry.java": JAVA_REGISTRY,
        "src/main/java/com/shop/http/HttpClient.java": JAVA_HTTP_CLIENT,
    })
    run_cli(root, "index", "--wait", check=True)
    return root


def _links(repo: Path, command: str, symbol: str, *extra: str) -> list[dict[str, Any]]:
    out = run_cli(repo, command, symbol, "--json", *extra)
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout) if out.stdout.strip() else []


@pytest.mark.parametrize(("caller", "method", "calls"), [
    ("collect_messages", "_GenericColorCaster.get", {"args.headers.get", "os.environ.get", "{}.get"}),
    ("handle", "Cache.get", {"req.headers.get", "seen.get"}),
    ("Handle", "Store.Get", {"r.Header.Get"}),
    ("Registry.read", "Registry.get", {"config.get"}),
])
def test_a_call_on_a_receiver_of_unknown_type_is_no_edge_to_a_same_named_method(
    repo: Path, caller: str, method: str, calls: set[str]
) -> None:
    callees = [link for link in _links(repo, "callees", caller) if link["expression"] in calls]
    assert {link["expression"] for link in callees} == calls
    assert all(link["resolution"] != "exact" and link["path"] is None for link in callees), callees
    # and the method's callers are not those calls: they are at most possible callers, said as such
    out = run_cli(repo, "callers", method)
    assert not any(call in out.stdout for call in calls), out.stdout
    possible = _links(repo, "callers", method, "--all")
    assert all(link["resolution"] == "ambiguous" for link in possible if link["expression"] in calls)


@pytest.mark.parametrize(("method", "own"), [
    ("_GenericColorCaster.get", "_GenericColorCaster.lookup"),  # self.lookup()
    ("Cache.get", "Cache.lookup"),  # this.lookup()
    ("Store.Get", "Store.lookup"),  # s.lookup(): Go's named receiver is the calling object
    ("Registry.get", "Registry.lookup"),  # this.lookup()
    ("Registry.lookup", "Registry.normalise"),  # normalise(): Java's bare call is this.normalise()
])
def test_self_and_this_calls_are_still_edges(repo: Path, method: str, own: str) -> None:
    exact = {(link["symbol"], link["resolution"]) for link in _links(repo, "callees", method)}
    assert (own, "exact") in exact
    assert any(link["resolution"] == "exact" for link in _links(repo, "callers", own))


def _imports(repo: Path, symbol: str) -> dict[str, bool]:
    """What the picture draws ``symbol``'s file importing: label -> drawn as a module from outside."""
    data = json.loads(run_cli(repo, "graph", symbol, "--format", "json", check=True).stdout)
    nodes = {n["id"]: n for n in data["nodes"]}
    return {nodes[e["target"]]["label"]: nodes[e["target"]]["external"] for e in data["edges"] if e["kind"] == "imports"}


@pytest.mark.parametrize(("symbol", "outside", "ours", "never"), [
    ("collect_messages", "http.client", "httpie/lexers/http.py", "httpie/lexers/http.py"),
    ("handle", "path", "web/util.ts", "web/path.ts"),
    ("Handle", "net/url", None, "url/url.go"),
    ("Registry.read", "java.net.http.HttpClient", None, "src/main/java/com/shop/http/HttpClient.java"),
])
def test_a_standard_library_import_is_not_drawn_as_a_file_of_ours(
    repo: Path, symbol: str, outside: str, ours: str | None, never: str
) -> None:
    drawn = _imports(repo, symbol)
    assert drawn.get(outside) is True, drawn  # the standard library's module, as a module from outside
    if ours is not None:  # while a relative import of ours still points at our file
        assert drawn.get(ours) is False, drawn
    if never != ours:
        assert never not in drawn, drawn
