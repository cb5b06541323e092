"""A call's receiver is read by the type the code declares it with (graph edges that are facts, not guesses by name).

``scoped_ptr<LoudsTrie> temp; temp.get()`` runs ``scoped_ptr::get`` and ``temp->build()`` runs
``LoudsTrie::build``; a field ``trie_`` of that type makes ``trie_.swap()`` ``scoped_ptr::swap``, never
``Trie::swap`` (the class named like the variable). marisa-trie's ``Trie::build`` and ``Agent::init_state``
(eval/, held out) were answered with only those wrong readings. One real repository in C++, Java,
Kotlin, TypeScript, Go and Rust, indexed by the real CLI, asked through the real ``callees`` command.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import make_repo, run_cli

CPP_SCOPED_PTR = """namespace marisa {
template <typename T>
class scoped_ptr {
 public:
  T *get() const { return ptr_; }
  void swap(scoped_ptr &rhs) { T *t = ptr_; ptr_ = rhs.ptr_; rhs.ptr_ = t; }
  void reset(T *ptr) { ptr_ = ptr; }
 private:
  T *ptr_;
};
}
"""
CPP_TRIE_H = """namespace marisa {
class LoudsTrie {
 public:
  void build(int flags) { flags_ = flags; }
 private:
  int flags_;
};

class Trie {
 public:
  void build(int flags);
  void swap(Trie &rhs) {}
 private:
  scoped_ptr<LoudsTrie> trie_;
};
}
"""
CPP_TRIE_CC = """namespace marisa {
void Trie::build(int flags) {
  scoped_ptr<LoudsTrie> temp;
  temp.reset(new LoudsTrie);
  if (temp.get() == 0) return;
  temp->build(flags);
  trie_.swap(temp);
}
}
"""

JAVA_WRITER = """package com.shop;

public class JsonWriter {
    public void flushAll() {}
}
"""
JAVA_CACHE = """package com.shop;

public class Cache {
    public void flushAll() {}
}
"""
JAVA_EXPORT = """package com.shop;

import java.util.List;

public class Exporter {
    private final JsonWriter out = new JsonWriter();

    void export(List<String> rows) {
        JsonWriter writer = new JsonWriter();
        writer.flushAll();
        out.flushAll();
        var cache = new Cache();
        cache.flushAll();
        rows.isEmpty();
    }
}
"""

KOTLIN_CLIENT = """package io.ktor.client

class HttpRequest {
    fun executeNow() {}
}

class Pipeline {
    fun executeNow() {}
}

class HttpClient(private val pipeline: Pipeline) {
    fun send(request: HttpRequest) {
        request.executeNow()
        pipeline.executeNow()
    }
}
"""

TS_ROUTER = """export class Router {
  routeTo(path: string): void {}
}

export class Queue {
  routeTo(path: string): void {}
}

export type Teardown = Router | (() => void);

export class App {
  private router: Router;

  constructor() {
    this.router = new Router();
  }

  start(queue: Queue, teardown: Teardown): void {
    this.router.routeTo("/");
    queue.routeTo("/jobs");
    const later = new Queue();
    later.routeTo("/later");
    teardown.routeTo("/x");
  }
}
"""

GO_ENGINE = """package gin

type RouterGroup struct{}

func (g *RouterGroup) Handle(path string) {}

type Server struct{}

func (s *Server) Handle(path string) {}

type Engine struct {
	group *RouterGroup
}

func (e *Engine) Serve(path string) {
	e.group.Handle(path)
	srv := &Server{}
	srv.Handle(path)
}
"""

RUST_DRIVER = """use std::sync::Arc;

pub struct IoStack;

impl IoStack {
    pub fn park_now(&self) {}
}

pub struct Timer;

impl Timer {
    pub fn new() -> Timer { Timer }
    pub fn park_now(&self) {}
}

pub struct Handle;

impl Handle {
    pub fn unpark_now(&self) {}
}

pub struct Other;

impl Other {
    pub fn unpark_now(&self) {}
}

pub struct Driver {
    park: IoStack,
    handle: Arc<Handle>,
}

impl Driver {
    pub fn turn(&mut self) {
        self.park.park_now();
        self.handle.unpark_now();
        let timer = Timer::new();
        timer.park_now();
    }
}
"""

PY_CONNECTOR = """from typing import Optional

from . import cli


class AbstractResolver:
    def resolve(self, host):
        raise NotImplementedError


class ThreadedResolver(AbstractResolver):
    def resolve(self, host):
        return [host]


class StreamWriter:
    def drain(self):
        return None


class Group:
    def load_dotenv(self):
        return None


class Connector:
    cli: Group

    def __init__(self, resolver: Optional[AbstractResolver] = None):
        self._resolver: AbstractResolver = resolver or ThreadedResolver()
        self._writer = StreamWriter()

    def connect(self, host, writer: StreamWriter):
        writer.drain()
        self._writer.drain()
        cli.load_dotenv()
        return self._resolver.resolve(host)
"""
RUST_MUTEX = """pub struct Mutex;

impl Mutex {
    pub fn lock(&self) {}
}
"""
RUST_PARKING = """pub struct Mutex;

impl Mutex {
    pub fn lock(&self) {}
}
"""
RUST_SEEDS = """use std::sync::Mutex;

pub struct Seeds {
    state: Mutex<u64>,
    inner: crate::sync::mutex::Mutex,
}

impl Seeds {
    pub fn next(&self) {
        self.state.lock();
        self.inner.lock();
    }
}
"""
PY_CLI = """def load_dotenv():
    return None
"""


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_repo(tmp_path_factory.mktemp("declared") / "repo", {
        "marisa/scoped-ptr.h": CPP_SCOPED_PTR, "marisa/trie.h": CPP_TRIE_H, "marisa/trie.cc": CPP_TRIE_CC,
        "src/main/java/com/shop/JsonWriter.java": JAVA_WRITER, "src/main/java/com/shop/Cache.java": JAVA_CACHE,
        "src/main/java/com/shop/Exporter.java": JAVA_EXPORT,
        "client/HttpClient.kt": KOTLIN_CLIENT, "web/app.ts": TS_ROUTER, "gin/gin.go": GO_ENGINE,
        "src/driver.rs": RUST_DRIVER, "aio/__init__.py": "", "aio/connector.py": PY_CONNECTOR, "aio/cli.py": PY_CLI,
        "src/sync/mutex.rs": RUST_MUTEX, "src/loom/mutex.rs": RUST_PARKING, "src/seeds.rs": RUST_SEEDS,
    })
    run_cli(root, "index", "--wait", check=True)
    return root


def _callees(repo: Path, symbol: str) -> dict[str, list[dict[str, Any]]]:
    out = run_cli(repo, "callees", symbol, "--json")
    assert out.returncode in (0, 1), out.stderr
    found: dict[str, list[dict[str, Any]]] = {}
    for link in json.loads(out.stdout) if out.stdout.strip() else []:
        found.setdefault(link["expression"], []).append(link)
    return found


@pytest.mark.parametrize(("caller", "expression", "runs"), [
    ("marisa::Trie::build", "temp.get", "marisa::scoped_ptr::get"),  # a local's template type
    ("marisa::Trie::build", "temp.reset", "marisa::scoped_ptr::reset"),
    ("marisa::Trie::build", "temp->build", "marisa::LoudsTrie::build"),  # -> reaches the template's argument
    ("marisa::Trie::build", "trie_.swap", "marisa::scoped_ptr::swap"),  # a field, declared in the header
    ("Exporter.export", "writer.flushAll", "JsonWriter.flushAll"),  # a local
    ("Exporter.export", "out.flushAll", "JsonWriter.flushAll"),  # a field
    ("Exporter.export", "cache.flushAll", "Cache.flushAll"),  # var cache = new Cache()
    ("HttpClient.send", "request.executeNow", "HttpRequest.executeNow"),  # a parameter
    ("HttpClient.send", "pipeline.executeNow", "Pipeline.executeNow"),  # a constructor property
    ("App.start", "this.router.routeTo", "Router.routeTo"),  # a field through this
    ("App.start", "queue.routeTo", "Queue.routeTo"),  # a parameter
    ("App.start", "later.routeTo", "Queue.routeTo"),  # const later = new Queue()
    ("Engine.Serve", "e.group.Handle", "RouterGroup.Handle"),  # a struct field through Go's named receiver
    ("Engine.Serve", "srv.Handle", "Server.Handle"),  # srv := &Server{}
    ("Driver::turn", "self.park.park_now", "IoStack::park_now"),  # a struct field through self
    ("Driver::turn", "self.handle.unpark_now", "Handle::unpark_now"),  # Arc<Handle> is seen through
    ("Driver::turn", "timer.park_now", "Timer::park_now"),  # let timer = Timer::new()
    ("Connector.connect", "writer.drain", "StreamWriter.drain"),  # a parameter's annotation
    ("Connector.connect", "self._writer.drain", "StreamWriter.drain"),  # self._writer = StreamWriter()
])
def test_a_call_is_read_by_its_receivers_declared_type(repo: Path, caller: str, expression: str, runs: str) -> None:
    links = _callees(repo, caller)[expression]
    assert [(link["symbol"], link["resolution"]) for link in links] == [(runs, "exact")], links


def test_a_declared_type_rules_out_the_class_named_like_the_variable(repo: Path) -> None:
    """``trie_.swap`` is no ``Trie::swap``; ``rows.isEmpty()`` on a ``List<String>`` runs nothing of ours."""
    callees = _callees(repo, "marisa::Trie::build")
    assert "marisa::Trie::swap" not in {link["symbol"] for link in callees["trie_.swap"]}
    assert all(link["path"] is None for link in _callees(repo, "Exporter.export").get("rows.isEmpty", []))


def test_an_alias_type_leaves_the_call_to_the_other_readings(repo: Path) -> None:
    """``teardown: Teardown`` (``Router | (() => void)``) says no one class: the call is not stated as ``Queue``'s
    (the parameter's type rules out nothing it cannot read), and stays a candidate call of both classes."""
    links = _callees(repo, "App.start")["teardown.routeTo"]
    assert all(link["resolution"] != "exact" for link in links), links


def test_a_call_on_a_declared_base_type_is_the_base_types_method(repo: Path) -> None:
    """``self._resolver: AbstractResolver``: the call is written against the base; its overrides are not each
    stated as run (every ``adapter.read()`` would otherwise be a caller of every ``TypeAdapter.read``)."""
    links = _callees(repo, "Connector.connect")["self._resolver.resolve"]
    assert [(link["symbol"], link["resolution"]) for link in links] == [("AbstractResolver.resolve", "exact")]


def test_a_type_imported_from_the_standard_library_is_not_ours(repo: Path) -> None:
    """``use std::sync::Mutex``: ``state.lock()`` is std's, though the project has a ``Mutex`` with a ``lock``;
    a type of ours imported by its whole path is read as that one."""
    callees = _callees(repo, "Seeds::next")
    assert all(link["path"] is None for link in callees["self.state.lock"]), callees["self.state.lock"]
    assert [(link["symbol"], link["path"]) for link in callees["self.inner.lock"]] == [
        ("Mutex::lock", "src/sync/mutex.rs")]


def test_a_plain_python_name_is_never_read_as_a_field(repo: Path) -> None:
    """Python reaches a field only through ``self``: ``cli.load_dotenv()`` is the imported module's function,
    though the class declares a field ``cli: Group``."""
    links = _callees(repo, "Connector.connect")["cli.load_dotenv"]
    assert [(link["symbol"], link["resolution"]) for link in links] == [("load_dotenv", "exact")], links
