"""Callers and callees resolve a call by its receiver, the way a reader would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookgraph.search import graph
from hookgraph.store import Store, db_path
from tests.conftest import index_now, make_repo, run_cli
from tests.helpers.graph_helpers import caller_names, callee_names

POOL = '''"""A pool of connections."""

import json

from shop import util


def close(conn):
    """Module-level close: not what self.close() calls."""
    conn.shutdown()


class Pool:
    def get(self):
        conn = self.make()
        util.check(conn)
        return conn

    def make(self):
        return object()

    def close(self):
        payload = json.dumps({})
        return payload

    def send(self, data):
        conn = self.get()
        conn.close()
        close(conn)
        return data


class TlsPool(Pool):
    def make(self):
        return object()
'''

UTIL = '''def check(conn):
    return conn is not None


def dumps(value):
    """Ours, but json.dumps is not this."""
    return str(value)
'''

MESSAGES = '''class Request:
    def read(self):
        return b""


class Response:
    def read(self):
        return b""


class ResponseCache:
    def read(self):
        return {}


def fetch(request, stream):
    response = Response()
    response.read()
    stream.read()
    return request.read()
'''

HEADERS_JS = '''export class Headers {
  static from(thing) {
    return thing instanceof Headers ? thing : new Headers(thing);
  }
}

function transform(data) {
  return data;
}

export function dispatch(config) {
  const headers = Headers.from(config.headers);
  const raw = Buffer.from(config.body);
  const data = transform.call(config, raw);
  return [headers, data];
}
'''


@pytest.fixture(scope="module")
def calls_repo(tmp_path_factory: pytest.TempPathFactory, embedder) -> Path:

    repo = make_repo(tmp_path_factory.mktemp("graph") / "calls", {
        "shop/__init__.py": "", "shop/pool.py": POOL, "shop/util.py": UTIL, "shop/messages.py": MESSAGES,
        "web/headers.js": HEADERS_JS,
    })
    index_now(repo, embedder)
    return repo




def test_self_calls_go_to_the_own_class_and_its_overrides(calls_repo: Path) -> None:
    assert callee_names(calls_repo, "Pool.get") == {"Pool.make", "TlsPool.make", "check"}


def test_a_bare_call_never_names_a_method_and_a_variable_receiver_never_a_function(calls_repo: Path) -> None:
    callees = callee_names(calls_repo, "Pool.send")
    assert "close" in callees  # close(conn): the module-level function
    assert "Pool.get" in callees
    # conn.close(): conn's type is not in the code and close is a name every file object answers to:
    # Pool.close is a candidate, never an edge
    assert "Pool.close" not in callees
    with Store(db_path(calls_repo)) as store:
        unknown = [link for link in graph.callees(store, "Pool.send") if link.expression == "conn.close"]
    assert [(link.unit, link.resolution, [u.qualname for u in link.maybe]) for link in unknown] == [
        (None, "ambiguous", ["Pool.close"])]


def test_a_module_from_outside_the_project_is_not_ours(calls_repo: Path) -> None:
    assert "dumps" not in callee_names(calls_repo, "Pool.close")  # json.dumps, not shop/util.py's dumps
    assert caller_names(calls_repo, "dumps") == set()


def test_module_receiver_names_the_function_of_that_file(calls_repo: Path) -> None:
    assert caller_names(calls_repo, "check") == {"Pool.get"}


def test_class_receiver_and_foreign_globals_in_javascript(calls_repo: Path) -> None:
    callees = callee_names(calls_repo, "dispatch")
    assert "Headers.from" in callees  # Headers.from(...)
    assert "transform" in callees  # transform.call(...) runs transform
    with Store(db_path(calls_repo)) as store:
        sites = [link.call_line for link in graph.callers(store, "Headers.from")]
    assert sites == [12]  # Buffer.from(...) on line 13 is Node's, not ours


def test_a_variable_named_after_a_class_calls_that_class(calls_repo: Path) -> None:
    """response.read() is Response.read; stream.read(), named after no class, may be any read: no edge."""
    with Store(db_path(calls_repo)) as store:
        by_line: dict[int, set[str]] = {}
        maybe: dict[int, set[str]] = {}
        for link in graph.callees(store, "fetch"):
            if link.unit is not None:
                by_line.setdefault(link.call_line, set()).add(link.unit.qualname)
            maybe.setdefault(link.call_line, set()).update(u.qualname for u in link.maybe)
    assert by_line[18] == {"Response.read"}
    assert 19 not in by_line
    assert maybe[19] == {"Request.read", "Response.read", "ResponseCache.read"}
    assert by_line[20] == {"Request.read"}


def test_a_symbol_is_found_in_its_own_spelling_and_dotted(tmp_path) -> None:
    """Rust qualifies with ``::``: callers/callees and ``ask`` take ``Cache::insert`` and ``Cache.insert``."""

    repo = make_repo(tmp_path / "r", {"src/lib.rs": RUST_CACHE})
    run_cli(repo, "index", "--wait", check=True)
    for spelling in ("Cache::insert", "Cache.insert"):
        out = run_cli(repo, "callees", spelling, "--json", check=True)
        assert {link["symbol"] for link in json.loads(out.stdout)} >= {"Cache::evict"}, spelling
        out = run_cli(repo, "callers", spelling, "--json", check=True)
        assert [link["symbol"] for link in json.loads(out.stdout)] == ["Cache::put_all"], spelling
        out = run_cli(repo, "ask", spelling, "--json", check=True)
        assert json.loads(out.stdout)["results"][0]["symbol"] == "Cache::insert", spelling
    out = run_cli(repo, "ask", "Cache#evict", "--json", check=True)  # Ruby's way of writing it is understood too
    assert json.loads(out.stdout)["results"][0]["symbol"] == "Cache::evict"


RUST_CACHE = """pub struct Cache { items: Vec<u32> }

impl Cache {
    pub fn insert(&mut self, v: u32) {
        self.evict();
        self.items.push(v);
    }

    fn evict(&mut self) {
        self.items.clear();
    }

    pub fn put_all(&mut self, vs: &[u32]) {
        for v in vs {
            self.insert(*v);
        }
    }
}
"""


SERVER = '''import sys


def log(message):
    print(message)


def parse_header(block):
    log("parsing")
    return block[:8]


def check(block):
    log("checking")
    return len(block) == 16


def reply(block):
    log("replying")
    return block


def handle(block):
    log("start")
    name = parse_header(block)
    sys.exit(0) if not check(block) else None
    return reply(name)
'''


def test_callees_come_most_telling_first(tmp_path: Path, embedder) -> None:
    """``log`` is called everywhere and first in ``handle``; the helpers only ``handle`` calls say what it does."""
    repo = make_repo(tmp_path / "server", {"server.py": SERVER})
    index_now(repo, embedder)
    with Store(db_path(repo)) as store:
        links = graph.callees(store, "handle")
    ours = [link.unit.qualname for link in links if link.unit is not None]
    assert ours == ["parse_header", "check", "reply", "log"], ours  # the code's order among equals
    assert links[-1].unit is None and links[-1].name == "exit", [(link.name, link.unit) for link in links]
