"""Per-language parsing tests: realistic snippets through real tree-sitter grammars.

Each snippet is the kind of code a project really has (a class with methods,
inheritance, imports, calls, doc comments, a closure, decorators / generics /
receivers as the language has them). The tests pin the exact set of units with
their lines, some signatures and docstrings, and edges of every kind.
"""

from __future__ import annotations


import pytest

from hookgraph.parse import parse_file
from tests.helpers.parse_helpers import FILE, PATH, Case, Edge, check_case, has_edge, unit, units_of
from tests.helpers.parse_helpers import no_parse_fallback  # noqa: F401 (an autouse fixture: imported, it applies here)
from tests.conftest import FIXTURES


PYTHON = r'''#!/usr/bin/env python
"""Session management for the HTTP client.

Sessions persist settings and connection pools across requests.
"""
from __future__ import annotations

import os.path
from collections import OrderedDict as OD
from .adapters import HTTPAdapter, BaseAdapter as BA
from . import hooks


# Default number of redirects to follow.
DEFAULT_REDIRECTS = 30


def merge_setting(request_setting, session_setting, dict_class=OD):
    """Merge a request setting with the session's one."""
    if session_setting is None:
        return request_setting

    def to_key_val_list(value):
        return list(value.items())

    merged = dict_class(to_key_val_list(session_setting))
    return merged


class SessionRedirectMixin:
    # Resolves redirects for a session.
    def resolve_redirects(self, resp, req):
        return self.rebuild_auth(req)


@dataclass_like(frozen=True)
class Session(SessionRedirectMixin, hooks.Hookable):
    """A Requests session.

    Provides cookie persistence.
    """

    class Config:
        retries = 3

    def __init__(self):
        self.adapters = OD()
        self.mount("https://", HTTPAdapter())

    @property
    def closed(self) -> bool:
        return not self.adapters

    def request(
        self,
        method,
        url,
        params=None,
    ):
        import json
        prep = self.prepare_request(method, url)
        return self.adapters["https://"].send(json.dumps(prep))


def session():
    return Session()
'''

JAVASCRIPT = r"""/**
 * HTTP client helpers: retries and JSON decoding.
 */
import axios from "axios";
import { retry, backoff as delay } from "./utils";
const path = require("path");

// Default request timeout in milliseconds.
export const DEFAULT_TIMEOUT = 5000;

/**
 * Fetch a URL and decode its JSON body.
 * @param {string} url
 */
export const fetchJson = async (url, options = {}) => {
  const response = await axios.get(url, { timeout: DEFAULT_TIMEOUT, ...options });
  return response.data;
};

function buildUrl(base, query) {
  const encode = (value) => encodeURIComponent(value);
  return base + "?" + Object.keys(query).map((k) => `${k}=${encode(query[k])}`).join("&");
}

export class ApiClient extends EventEmitter {
  constructor(baseUrl) {
    super();
    this.baseUrl = baseUrl;
  }

  // Retry a GET until it succeeds.
  async get(resource) {
    const url = buildUrl(this.baseUrl, { resource });
    return retry(() => fetchJson(url), delay(3));
  }

  handleError = (err) => {
    this.emit("error", new errors.ApiError(err.message));
  };
}

export default ApiClient;
"""

TYPESCRIPT = r"""// Typed key-value store with pluggable persistence backends.
import { EventEmitter } from "events";
import type { Backend, Serializer } from "./backend";
import * as path from "path";

/** Options accepted by {@link Store}. */
export interface StoreOptions<T> extends BaseOptions {
  backend: Backend<T>;
  serialize?(value: T): string;
}

export enum Mode {
  ReadOnly,
  ReadWrite,
}

@injectable()
export class Store<T> extends EventEmitter implements Disposable, Iterable<T> {
  private cache = new Map<string, T>();

  constructor(private readonly options: StoreOptions<T>) {
    super();
  }

  /** Read a value, falling back to the backend. */
  async get(key: string): Promise<T | undefined> {
    const hit = this.cache.get(key);
    if (hit !== undefined) {
      return hit;
    }
    const loaded = await this.options.backend.load<T>(path.join("keys", key));
    this.cache.set(key, loaded);
    return loaded;
  }

  dispose = (): void => {
    this.cache.clear();
    this.emit("disposed");
  };
}

export const createStore = <T,>(backend: Backend<T>): Store<T> =>
  new Store<T>({ backend });

export function isStore(value: unknown): value is Store<unknown> {
  return value instanceof Store;
}
"""

TSX = r"""// Todo list widget: renders items and lets the user toggle them.
import React, { useState, useCallback } from "react";
import { Todo, saveTodos } from "../api/todos";

export interface TodoListProps {
  initial: Todo[];
  onChange?: (todos: Todo[]) => void;
}

/** Render a single todo row. */
const TodoItem = ({ todo, onToggle }: { todo: Todo; onToggle: (id: number) => void }) => (
  <li className={todo.done ? "done" : ""} onClick={() => onToggle(todo.id)}>
    {todo.title}
  </li>
);

export function TodoList({ initial, onChange }: TodoListProps): JSX.Element {
  const [todos, setTodos] = useState<Todo[]>(initial);

  const toggle = useCallback((id: number) => {
    const next = todos.map((t) => (t.id === id ? { ...t, done: !t.done } : t));
    setTodos(next);
    onChange?.(next);
  }, [todos, onChange]);

  return (
    <ul>
      {todos.map((todo) => (
        <TodoItem key={todo.id} todo={todo} onToggle={toggle} />
      ))}
    </ul>
  );
}

export class TodoStore<T extends Todo> extends BaseStore<T> {
  /** Persist every todo. */
  async flush(items: T[]): Promise<void> {
    await saveTodos(items);
  }
}
"""

GO = r"""// Copyright 2024 The Example Authors. All rights reserved.

// Package server implements a small HTTP server with graceful shutdown.
package server

import (
	"context"
	"fmt"
	nethttp "net/http"

	"example.com/app/internal/log"
)

// Handler serves one route.
type Handler interface {
	log.Named
	// ServeRoute handles a request for its route.
	ServeRoute(ctx context.Context, path string) (int, error)
}

// Server wraps net/http with routing and logging.
type Server struct {
	*log.Logger
	Config
	routes map[string]Handler
	srv    *nethttp.Server
}

type (
	// Config holds listen settings.
	Config struct {
		Addr string
	}
	Option func(*Server)
)

// New builds a server listening on addr.
func New(addr string, opts ...Option) *Server {
	s := &Server{routes: make(map[string]Handler), Config: Config{Addr: addr}}
	for _, opt := range opts {
		opt(s)
	}
	return s
}

// Serve accepts connections until ctx is done.
func (s *Server) Serve(ctx context.Context) error {
	shutdown := func() error {
		return s.srv.Shutdown(context.Background())
	}
	go func() {
		<-ctx.Done()
		_ = shutdown()
	}()
	s.Infof("listening on %s", s.Addr)
	return fmt.Errorf("serve: %w", s.srv.ListenAndServe())
}

func (s Server) Routes() []string {
	return nil
}
"""

RUST = r"""//! A bounded LRU cache with pluggable eviction hooks.

use std::collections::HashMap;
use std::fmt::{self, Display};
use crate::hooks::*;

/// Called when an entry is evicted.
pub trait EvictionHook<K>: Send + fmt::Debug {
    /// Notify about one evicted key.
    fn on_evict(&self, key: &K);

    fn name(&self) -> &str {
        "hook"
    }
}

/// A least-recently-used cache.
#[derive(Debug, Clone)]
pub struct LruCache<K, V> {
    capacity: usize,
    map: HashMap<K, V>,
    order: Vec<K>,
}

impl<K: Clone + Eq + std::hash::Hash, V> LruCache<K, V> {
    /// Create an empty cache holding at most `capacity` entries.
    pub fn new(capacity: usize) -> Self {
        LruCache { capacity, map: HashMap::with_capacity(capacity), order: Vec::new() }
    }

    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        let touch = |order: &mut Vec<K>, k: &K| order.retain(|x| x != k);
        touch(&mut self.order, &key);
        self.order.push(key.clone());
        self.evict_if_full();
        self.map.insert(key, value)
    }

    fn evict_if_full(&mut self) {
        if self.order.len() > self.capacity {
            let oldest = self.order.remove(0);
            self.map.remove(&oldest);
        }
    }
}

impl<K, V> fmt::Display for LruCache<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LruCache({})", self.capacity)
    }
}

pub enum Policy {
    Lru,
    Fifo,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_oldest() {
        let mut c = LruCache::new(1);
        c.insert(1, "a");
        assert!(c.insert(2, "b").is_none());
    }
}
"""

JAVA = r"""package com.example.orders;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.*;
import com.example.payments.PaymentGateway;

/**
 * Coordinates order placement and payment capture.
 */
public class OrderService<T extends Order> extends AbstractService implements Closeable, Repository<T> {
    private final PaymentGateway gateway;
    private final List<T> pending = new ArrayList<>();

    public OrderService(PaymentGateway gateway) {
        super("orders");
        this.gateway = gateway;
    }

    /**
     * Place an order and capture its payment.
     *
     * @param order the order to place
     * @return the confirmation id
     */
    @Override
    public <R extends Receipt> String place(T order, Class<R> receiptType) throws PaymentException {
        validate(order);
        Runnable audit = () -> log.info("placing " + order.getId());
        audit.run();
        pending.add(order);
        return gateway.capture(order.total()).getConfirmationId();
    }

    // Drop orders that were never paid.
    void purge() {
        pending.removeIf(o -> !o.isPaid());
    }

    public static class Builder {
        public OrderService<Order> build() {
            return new OrderService<>(new StripeGateway());
        }
    }

    interface Listener {
        void onPlaced(Order order);
    }

    enum Status { NEW, PAID }
}
"""


# --------------------------------------------------------------------------- Python


# --------------------------------------------------------------------------- JavaScript


# --------------------------------------------------------------------------- TypeScript / TSX


OBJECT_MODULE = """const known = { http: httpAdapter };

/** Pick the first adapter the platform supports. */
export default {
  getAdapter: (names) => {
    return names.map(find).find(Boolean);
  },
  isKnown(name) {
    return has(known, name);
  },
  legacy: function (name) { return lookup(name); },
  adapters: known,
};
module.exports.reset = function () { clear(known); };
"""


@pytest.mark.parametrize("path", ["lib/adapters.js", "lib/adapters.ts", "lib/adapters.tsx"])
def test_functions_in_object_literals_are_units(path):
    """A module written as an object of functions has units, in all three ECMAScript grammars."""
    pf = parse_file(path, OBJECT_MODULE.encode())
    assert not pf.had_errors
    # the default-exported object is the module: its members are named after the file
    assert units_of(pf) == {
        ("method", "adapters.getAdapter", 5, 7),
        ("method", "adapters.isKnown", 8, 10),
        ("method", "adapters.legacy", 11, 11),
        ("function", "reset", 14, 14),
    }
    assert has_edge(pf, "calls", "adapters.getAdapter", "find")
    assert has_edge(pf, "calls", "adapters.isKnown", "has")
    assert has_edge(pf, "calls", "reset", "clear")


# --------------------------------------------------------------------------- Go


# --------------------------------------------------------------------------- Rust


# --------------------------------------------------------------------------- Java


# CommonJS in the style of express 4 (lib/router/index.js, lib/response.js) and of
# axios 1.x's lib/core/AxiosError.js: a constructor with prototype methods, functions
# kept on objects, a module that is one function, and a lint pragma above a definition.
COMMONJS = """'use strict';

var methods = require('methods');

/**
 * Initialize a new `Router` with the given `options`.
 */
function Router(options) {
  this.stack = [];
}

/** Dispatch a req, res into the router. */
Router.prototype.handle = function handle(req, res, out) {
  return next(req, res);
};

Router.prototype = {
  route(path) { return new Route(path); },
  use: function use(fn) { this.stack.push(fn); },
};

// eslint-disable-next-line func-names
Router.from = (other) => copy(other);

res.status = function status(code) {
  this.statusCode = code;
  return this;
};

exports.compile = function (val) { return compileETag(val); };
module.exports.flatten = function flatten(arr) { return arr.flat(); };
"""

ONE_FUNCTION_MODULE = """const parse = require('./parse');

// eslint-disable-next-line no-unused-vars
module.exports = function (req, res, next) {
  return parse(req.url);
};
"""


def test_a_module_that_is_one_function_is_named_after_its_file():
    """module.exports = function () {} and export default (x) => {} (axios's
    lib/helpers/resolveConfig.js) are units named after the file, or its folder for index files."""
    pf = parse_file("lib/middleware/query.js", ONE_FUNCTION_MODULE.encode())
    assert units_of(pf) == {("function", "query", 4, 6)}
    assert unit(pf, "query").docstring == ""
    assert has_edge(pf, "calls", "query", "parse")

    esm = "import mergeConfig from '../core/mergeConfig.js';\n\nexport default (config) => {\n  return mergeConfig({}, config);\n};\n"
    pf = parse_file("lib/helpers/resolveConfig.ts", esm.encode())
    assert units_of(pf) == {("function", "resolveConfig", 3, 5)}
    assert unit(pf, "resolveConfig").signature == "export default (config) =>"
    assert has_edge(pf, "calls", "resolveConfig", "mergeConfig")

    pf = parse_file("src/diff/index.js", b"export default function (earlier, later) {\n  return later - earlier;\n}\n")
    assert units_of(pf) == {("function", "diff", 1, 3)}
    pf = parse_file("src/zones/index.js", b"export default class extends Zone {\n  get type() { return 'x'; }\n}\n")
    assert units_of(pf) == {("class", "zones", 1, 3), ("method", "zones.type", 2, 2)}
    pf = parse_file("lib/route.js", b"module.exports = class Route {\n  dispatch(req) { return req; }\n};\n")
    assert units_of(pf) == {("class", "Route", 1, 3), ("method", "Route.dispatch", 2, 2)}


# A barrel in the style of luxon 3's src/luxon.js and axios 1.x's index.js, plus
# exported constants (luxon's src/impl/formats.js).
BARREL = """import DateTime from "./datetime.js";
import Duration from "./duration.js";
import axios from "./lib/axios.js";

const VERSION = "3.5.0";
export const DATE_SHORT = { year: "numeric", month: "numeric" };

export { axios as default, DateTime, Duration as Span, VERSION };
export * from "./zones/index.js";
export * as formats from "./impl/formats.js";
"""


@pytest.mark.parametrize("path", ["src/luxon.js", "src/luxon.ts"])
def test_a_barrel_file_unit_lists_what_it_exports(path):
    pf = parse_file(path, BARREL.encode())
    assert not pf.had_errors
    assert units_of(pf) == {("constant", "DATE_SHORT", 6, 6)}  # a value is a unit and stays under "exports"
    assert pf.units[0].text == (
        f"{path}\nexports: DATE_SHORT, axios, DateTime, Span, VERSION, ./zones/index.js, formats"
    )
    assert has_edge(pf, "imports", path, "./zones/index.js")


def test_commonjs_exports_are_listed_and_defined_names_not_twice():
    src = "function parse(s) { return s; }\nconst format = (d) => d;\nmodule.exports = { parse, format, VERSION: '1' };\n"
    pf = parse_file("lib/fmt.js", src.encode())
    assert units_of(pf) == {("function", "parse", 1, 1), ("function", "format", 2, 2)}
    assert pf.units[0].text == "lib/fmt.js\ndefines: parse, format\nexports: VERSION"


# axios 1.x's lib/core/InterceptorManager.js, shortened: one class, its methods documented.
INTERCEPTORS = """'use strict';

/** Keeps the interceptors of one direction, request or response. */
class InterceptorManager {
  constructor() {
    this.handlers = [];
  }

  /** Add a new interceptor to the stack. */
  use(fulfilled, rejected) {
    this.handlers.push({ fulfilled, rejected });
    return this.handlers.length - 1;
  }

  /** Remove an interceptor from the stack. */
  eject(id) {
    this.handlers[id] = null;
  }
}

export default InterceptorManager;
"""


def test_file_unit_lists_class_members_and_is_embedded_without_repeats():
    """The file unit names what its classes do (their members), and its embedded
    text says the path and the doc sentence once each."""
    from hookgraph.parse.compose import embed_text

    path = "lib/core/InterceptorManager.js"
    pf = parse_file(path, INTERCEPTORS.encode())
    file_unit = pf.units[0]
    assert file_unit.text == (
        f"{path}\ndefines: InterceptorManager (constructor, use, eject)\n"
        "Keeps the interceptors of one direction, request or response."
    )
    text = embed_text(file_unit, [])
    assert text == (
        f"file {path}\ndefines: InterceptorManager (constructor, use, eject)\n"
        "Keeps the interceptors of one direction, request or response."
    )


# JSDoc in the style of luxon 3's src/zones/IANAZone.js and axios 1.x's InterceptorManager.
JSDOC = """export default class IANAZone extends Zone {
  /**
   * Returns the offset's common name (such as EST) at the specified timestamp
   * @override
   * @param {number} ts - Epoch milliseconds for which to get the name
   * @param {Object} opts - Options to affect the format
   * @param {string} opts.format - What style of offset to return.
   * @return {string}
   */
  offsetName(ts, { format }) {
    return parseZoneInfo(ts, format, this.name);
  }

  /**
   * Add a new interceptor to the stack
   *
   * @param {Function} fulfilled
   * @returns {Number} An ID used to remove interceptor later
   * @private
   */
  use(fulfilled) {
    return this.handlers.push(fulfilled) - 1;
  }
}
"""


RUST_CFG = b"""//! Blocking work.

cfg_rt! {
    /// Runs the provided closure on a thread where blocking is acceptable.
    pub fn spawn_blocking<F, R>(f: F) -> JoinHandle<R> {
        crate::runtime::spawn_blocking(f)
    }

    pub struct Pool {
        size: usize,
    }
}

cfg_not_rt! {
    pub fn block_in_place() {}
}

impl Pool {
    pub fn size(&self) -> usize {
        self.size
    }

    cfg_metrics! {
        /// How many workers are idle (a `}` in a comment, '}' and "}{" in literals count for nothing).
        pub fn idle(&self) -> usize {
            let _brace = '}';
            let _both = "}{";
            0
        }
    }

    pub fn after_the_block(&self) {}
}

/// Waits on several branches, returning when the first completes.
#[macro_export]
macro_rules! select {
    ($($tokens:tt)*) => { $crate::select_inner!($($tokens)*) };
}
"""


def test_rust_items_inside_top_level_cfg_macros_are_units() -> None:
    """languages.json ``mask`` for Rust: tokio wraps most of its code in ``cfg_rt! { ... }``; tree-sitter sees a
    token tree there, so ``spawn_blocking`` was no unit (filebench: task/blocking.rs had only its file unit)."""
    parsed = parse_file("src/task/blocking.rs", RUST_CFG)
    assert parsed is not None
    spawn = unit(parsed, "spawn_blocking")
    assert (spawn.kind, spawn.start_line, spawn.end_line) == ("function", 5, 7)
    assert "blocking is acceptable" in spawn.docstring
    assert unit(parsed, "Pool").kind == "struct" and unit(parsed, "block_in_place").start_line == 15
    assert unit(parsed, "Pool::size").kind == "method"  # the stray closing braces end nothing they should not


def test_rust_items_inside_cfg_macros_within_impl_blocks_are_methods() -> None:
    """languages.json ``mask_blocks``: a ``cfg_*! {`` inside an ``impl`` is blanked with its own closing brace
    (found past braces in comments and literals), so its functions are the type's methods and the impl goes on
    after it; blanking the opener alone would end the impl at the block's brace (tokio: 121 methods missing)."""
    parsed = parse_file("src/task/blocking.rs", RUST_CFG)
    assert parsed is not None
    idle = unit(parsed, "Pool::idle")
    assert (idle.kind, idle.start_line, idle.end_line) == ("method", 25, 29)
    assert "workers are idle" in idle.docstring
    assert unit(parsed, "Pool::after_the_block").kind == "method"


def test_rust_macro_rules_are_units_named_like_functions() -> None:
    """``macro_rules! select`` is called like a function (``select!``) and documented like one: tokio's
    ``select!``, ``join!`` and ``pin!`` were no units, so "wait for the first of several futures" had no
    definition to find."""
    parsed = parse_file("src/macros/select.rs", RUST_CFG)
    assert parsed is not None
    select = unit(parsed, "select")
    assert (select.kind, select.start_line) == ("function", 37)
    assert select.docstring == "Waits on several branches, returning when the first completes."


TYPE_ALIASES = {
    "src/procedure.ts": (b'/** The input of a procedure. */\nexport type inferProcedureInput<T extends AnyProcedure> = T["_def"];\n',
                         "inferProcedureInput", "The input of a procedure."),
    "src/error.rs": (b"/// Our result.\npub type Result<T> = std::result::Result<T, Error>;\nimpl Op for A {\n    type Output = u8;\n}\n",
                     "Result", "Our result."),
    "src/Handler.kt": (b"/** Handles one event. */\ntypealias Handler = (Int) -> Unit\n", "Handler", "Handles one event."),
    "Source/Params.swift": (b"/// A dictionary of parameters.\npublic typealias Parameters = [String: Any]\n", "Parameters",
                            "A dictionary of parameters."),
    "core/package.scala": (b"package object data {\n  /** A validated value with a non-empty error list. */\n"
                           b"  type ValidatedNel[+E, +A] = Validated[NonEmptyList[E], A]\n}\n", "ValidatedNel",
                           "A validated value with a non-empty error list."),
    "include/fmt/base.h": (b"namespace fmt {\n/// An alias for the default format arguments.\nusing format_args = basic_format_args<context>;\n"
                           b"class buffer {\n  using value_type = char;\n};\n}\n", "fmt::format_args",
                           "An alias for the default format arguments."),
}


@pytest.mark.parametrize("path", sorted(TYPE_ALIASES))
def test_named_type_aliases_are_units_of_kind_type(path: str) -> None:
    """Type aliases are what a type-level codebase defines (tRPC's ``inferProcedureInput`` is one): a symbol
    question for one found only the files that use it (filebench trpc complete 0.861 -> 0.891). A class's or
    impl's member alias (``using value_type``, ``type Output``) stays part of its container."""
    source, name, doc = TYPE_ALIASES[path]
    parsed = parse_file(path, source)
    assert parsed is not None
    alias = unit(parsed, name)
    assert (alias.kind, alias.docstring) == ("type", doc)
    assert [u.qualname for u in parsed.units if u.kind == "type"] == [name]


KOTLIN_PLUGIN = b'''private val LOGGER = KtorSimpleLogger("io.ktor.client.plugins.HttpCallValidator")

/**
 * The response validator plugin is used for validating an HTTP response and handling response exceptions.
 */
public val HttpCallValidator: ClientPlugin<HttpCallValidatorConfig> = createClientPlugin(
    "HttpResponseValidator",
    ::HttpCallValidatorConfig
) {
    suspend fun validateResponse(response: HttpResponse) {
        responseValidators.forEach { it(response) }
    }
}

class HttpCallValidatorConfig {
    val responseValidators = mutableListOf<ResponseValidator>()
}
'''


def test_kotlin_top_level_values_are_units_and_hold_what_their_lambda_defines() -> None:
    """Ktor defines a plugin as a top-level ``val X = createClientPlugin(...) { ... }``: the plugin and its doc
    were in no unit but the file's (filebench ktor complete 0.840 -> 0.852). A class's properties stay its own."""
    parsed = parse_file("plugins/HttpCallValidator.kt", KOTLIN_PLUGIN)
    assert parsed is not None
    plugin = unit(parsed, "HttpCallValidator")
    assert (plugin.kind, plugin.start_line, plugin.end_line) == ("variable", 6, 13)
    assert plugin.docstring.startswith("The response validator plugin is used for validating")
    assert unit(parsed, "HttpCallValidator.validateResponse").kind == "function"
    assert unit(parsed, "LOGGER").kind == "variable"
    assert not [u for u in parsed.units if u.name == "responseValidators"]


SCALA_DOC_GAP = b"""package cats
package arrow

trait Arrow[F[_, _]] extends Category[F] {

  /**
   * Create a new computation `F` that splits its input between `f` and `g`
   * and combines the output of each.
   */

  def split[A, B, C, D](f: F[A, B], g: F[C, D]): F[(A, C), (B, D)] =
    andThen(first(f), second(g))

  /**
   * Create a new computation `F` that merge outputs of `f` and `g` both having the same input
   */

  def merge[A, B, C](f: F[A, B], g: F[A, C]): F[A, (B, C)] =
    andThen(lift((x: A) => (x, x)), split(f, g))

  // ---- derived operations

  def second2[A, B](fa: F[A, B]): F[A, B] = fa
}
"""

KOTLIN_DOC_GAP = b"""package io.ktor.client.call

/**
 * Exception thrown when the response body is received twice.
 */

public class DoubleReceiveException(call: HttpClientCall) : IllegalStateException()

/* Not a documentation comment: a note above a group. */

public class NoTransformationFoundException : UnsupportedOperationException()
"""


def test_a_documentation_comment_documents_the_definition_across_blank_lines():
    """``/**`` (javadoc, scaladoc, dokka) and ``///`` (rustdoc) comments belong to the next definition even
    with a blank line between, as those tools read them (cats writes a blank line after many of its
    scaladocs); a plain comment above a blank line titles a group and documents nothing."""
    pf = parse_file("core/src/main/scala/cats/arrow/Arrow.scala", SCALA_DOC_GAP)
    assert unit(pf, "Arrow.split").docstring.startswith("Create a new computation `F` that splits its input")
    assert unit(pf, "Arrow.merge").docstring.startswith("Create a new computation `F` that merge outputs")
    assert unit(pf, "Arrow.second2").docstring == ""
    kt = parse_file("call/HttpClientCall.kt", KOTLIN_DOC_GAP)
    assert unit(kt, "DoubleReceiveException").docstring == "Exception thrown when the response body is received twice."
    assert unit(kt, "NoTransformationFoundException").docstring == ""
    rs = parse_file("src/task.rs", b"/// Spawns a task on the runtime.\n\npub fn spawn() {}\n\n// plain\n\npub fn plain() {}\n")
    assert unit(rs, "spawn").docstring == "Spawns a task on the runtime."
    assert unit(rs, "plain").docstring == ""
    far = parse_file("src/far.rs", b"/// Three blank lines away: detached.\n\n\n\npub fn far() {}\n")
    assert unit(far, "far").docstring == ""


def test_a_definition_ends_before_the_comments_after_its_last_line():
    """tree-sitter-scala ends ``def split(...) = expr`` after the comment that follows it (the next
    definition's scaladoc): the unit's lines, and so its text, stop at its own last line."""
    pf = parse_file("core/src/main/scala/cats/arrow/Arrow.scala", SCALA_DOC_GAP)
    split, merge = unit(pf, "Arrow.split"), unit(pf, "Arrow.merge")
    assert (split.start_line, split.end_line) == (11, 12)
    assert (merge.start_line, merge.end_line) == (18, 19)
    assert "merge outputs" not in split.text
RUST_DOC_MACRO = b"""macro_rules! doc {
    ($select:item) => {
        /// Waits on multiple concurrent branches, returning when the **first** branch
        /// completes, cancelling the remaining branches.
        ///
        /// The `select!` macro must be used inside of async functions.
        $select
    };
}

macro_rules! count {
    () => {
        // not documentation: a note inside the expansion
        0
    };
}
"""


def test_declared_types_are_recorded_as_types_edges():
    """A variable, parameter or field and the type it is declared with, as written (a field is its class's);
    an inferred declaration (``auto``) records nothing."""
    cc = parse_file("lib/trie.cc", b"""class Trie {
  void build(Keyset &keyset) {
    scoped_ptr<grimoire::LoudsTrie> temp(new LoudsTrie);
    State *state = 0;
    auto guess = make();
  }
  scoped_ptr<grimoire::LoudsTrie> trie_;
};
""")
    types = {(e.source, e.target, e.target_full) for e in cc.edges if e.kind == "types"}
    assert types == {
        ("Trie::build", "keyset", "Keyset"),
        ("Trie::build", "temp", "scoped_ptr<grimoire::LoudsTrie>"),
        ("Trie::build", "state", "State"),
        ("Trie", "trie_", "scoped_ptr<grimoire::LoudsTrie>"),
    }
    go = parse_file("gin/engine.go", b"package gin\n\ntype Engine struct {\n\tgroup *RouterGroup\n}\n\n"
                                      b"func (e *Engine) Serve(c *Context) {\n\tsrv := &Server{}\n\t_ = srv\n}\n")
    assert {(e.source, e.target, e.target_full) for e in go.edges if e.kind == "types"} == {
        ("Engine", "group", "*RouterGroup"), ("Engine.Serve", "e", "*Engine"), ("Engine.Serve", "c", "*Context"),
        ("Engine.Serve", "srv", "=Server"),  # built, not declared: a declaration of srv would go first
    }


# --------------------------------------------------------------------------- the table: one row per parsed file
#: Each row parses one file as one repository path and pins what the parse must hold (see ``Case``); the
#: tests above are the ones that ask something a row cannot say.
CASES = [
    Case(
        "python_units", path="src/requests/sessions.py", source=PYTHON.encode(), language="python", clean=True,
        units={
            ("constant", "DEFAULT_REDIRECTS", 15, 15),  # a module-level UPPER_CASE name
            ("function", "merge_setting", 18, 27),
            ("class", "SessionRedirectMixin", 30, 33),
            ("method", "SessionRedirectMixin.resolve_redirects", 32, 33),
            # the decorator belongs to the class
            ("class", "Session", 36, 62),
            ("class", "Session.Config", 43, 44),
            ("method", "Session.__init__", 46, 48),
            ("method", "Session.closed", 50, 52),
            ("method", "Session.request", 54, 62),
            ("function", "session", 65, 66),
        },
        checks=[
            ("DEFAULT_REDIRECTS", "docstring", "==", "Default number of redirects to follow."),
        ],
        not_units=[
            # the closure to_key_val_list is part of merge_setting, not a unit
            "to_key_val_list",
        ],
    ),
    Case(
        "python_signatures_docstrings_and_text", path="src/requests/sessions.py", source=PYTHON.encode(),
        checks=[
            ("Session.request", "signature", "==", "def request(self, method, url, params=None)"),
            ("Session.request", "parent", "==", "Session"),
            ("Session.closed", "signature", "==", "def closed(self) -> bool"),
            ("Session", "signature", "==", "class Session(SessionRedirectMixin, hooks.Hookable)"),
            ("Session", "docstring", "==", "A Requests session.\n\nProvides cookie persistence."),
            ("merge_setting", "docstring", "==", "Merge a request setting with the session's one."),
            # a comment directly above a definition is its docstring when it has none
            ("SessionRedirectMixin.resolve_redirects", "docstring", "==", "Resolves redirects for a session."),
            ("session", "docstring", "==", ""),
            ("merge_setting", "text", "startswith", "def merge_setting("),
            ("merge_setting", "text", "endswith", "return merged"),
            ("Session", "text", "startswith", "@dataclass_like(frozen=True)\nclass Session("),
        ],
    ),
    Case(
        "python_edges", path="src/requests/sessions.py", source=PYTHON.encode(),
        edges=[
            # contains
            Edge("contains", PATH, "Session", line=36),
            Edge("contains", "Session", "Session.request"),
            Edge("contains", "Session", "Session.Config"),
            # imports, module-level and local
            Edge("imports", PATH, "os.path", line=8),
            Edge("imports", PATH, "collections"),
            Edge("imports", PATH, "OrderedDict", "collections.OrderedDict"),
            Edge("imports", PATH, ".adapters"),
            Edge("imports", PATH, "HTTPAdapter", ".adapters.HTTPAdapter", line=10),
            Edge("imports", PATH, "hooks", ".hooks"),
            Edge("imports", "Session.request", "json", line=60),
            # calls: last identifier + full callee; closure calls belong to the enclosing function
            Edge("calls", "Session.request", "send", 'self.adapters["https://"].send', line=62),
            Edge("calls", "Session.request", "prepare_request", "self.prepare_request"),
            Edge("calls", "Session.__init__", "mount", "self.mount"),
            Edge("calls", "merge_setting", "items", "value.items", line=24),
            Edge("calls", "merge_setting", "to_key_val_list"),
            Edge("calls", "session", "Session"),
            # inherits: bare and dotted bases, keyword arguments are not bases
            Edge("inherits", "Session", "SessionRedirectMixin"),
            Edge("inherits", "Session", "Hookable", "hooks.Hookable", line=37),
        ],
        edge_sets=[
            ("contains", PATH, {"DEFAULT_REDIRECTS", "merge_setting", "SessionRedirectMixin", "Session",
                                                            "session"}),
            ("inherits", "Session", {"SessionRedirectMixin", "Hookable"}),
        ],
    ),
    Case(
        "python_file_unit_fingerprint", path="src/requests/sessions.py", source=PYTHON.encode(),
        checks=[
            (FILE, "kind", "==", "file"),
            (FILE, "name", "==", "sessions.py"),
            (FILE, "qualname", "==", "src/requests/sessions.py"),
            (FILE, "start_line", "==", 1),
            (FILE, "end_line", "==", 66),
            (FILE, "docstring", "==", "Session management for the HTTP client."),
            (FILE, "text", "==", "src/requests/sessions.py\n"
                    "defines: merge_setting, SessionRedirectMixin (resolve_redirects), Session (Config, __init__, closed, request), session\n"
                    "Session management for the HTTP client."),
        ],
    ),
    Case(
        "javascript", path="web/src/client.js", source=JAVASCRIPT.encode(), language="javascript", clean=True,
        units={
            ("constant", "DEFAULT_TIMEOUT", 9, 9),
            ("function", "fetchJson", 15, 18),
            ("function", "buildUrl", 20, 23),
            ("class", "ApiClient", 25, 40),
            ("method", "ApiClient.constructor", 26, 29),
            ("method", "ApiClient.get", 32, 35),
            ("method", "ApiClient.handleError", 37, 39),
        },
        checks=[
            ("fetchJson", "signature", "==", "export const fetchJson = async (url, options = {}) =>"),
            # JSDoc markup dropped
            ("fetchJson", "docstring", "==", "Fetch a URL and decode its JSON body.\nstring url"),
            ("ApiClient.get", "signature", "==", "async get(resource)"),
            ("ApiClient.get", "docstring", "==", "Retry a GET until it succeeds."),
            ("ApiClient", "signature", "==", "export class ApiClient extends EventEmitter"),
            (FILE, "docstring", "==", "HTTP client helpers: retries and JSON decoding."),
        ],
        edges=[
            Edge("contains", PATH, "ApiClient"),
            Edge("contains", "ApiClient", "ApiClient.handleError"),
            Edge("imports", PATH, "axios", line=4),
            Edge("imports", PATH, "./utils", line=5),
            Edge("imports", PATH, "retry", "./utils:retry"),
            Edge("imports", PATH, "backoff", "./utils:backoff"),
            # require("path")
            Edge("imports", PATH, "path", line=6),
            Edge("calls", "fetchJson", "get", "axios.get", line=16),
            # the arrow function `encode` is part of buildUrl
            Edge("calls", "buildUrl", "encodeURIComponent", line=21),
            Edge("calls", "buildUrl", "join", "Object.keys().map().join"),
            Edge("calls", "ApiClient.get", "buildUrl", line=33),
            Edge("calls", "ApiClient.get", "fetchJson"),
            Edge("calls", "ApiClient.handleError", "ApiError", "errors.ApiError"),
            Edge("inherits", "ApiClient", "EventEmitter", line=25),
        ],
    ),
    Case(
        "typescript", path="src/store.ts", source=TYPESCRIPT.encode(), language="typescript", clean=True,
        units={
            ("interface", "StoreOptions", 7, 10),
            ("method", "StoreOptions.serialize", 9, 9),
            ("enum", "Mode", 12, 15),
            ("class", "Store", 17, 40),
            ("method", "Store.constructor", 21, 23),
            ("method", "Store.get", 26, 34),
            ("method", "Store.dispose", 36, 39),
            ("function", "createStore", 42, 43),
            ("function", "isStore", 45, 47),
        },
        checks=[
            ("Store", "signature", "==", "export class Store<T> extends EventEmitter implements Disposable, Iterable<T>"),
            ("Store.get", "signature", "==", "async get(key: string): Promise<T | undefined>"),
            ("Store.get", "docstring", "==", "Read a value, falling back to the backend."),
            ("StoreOptions", "docstring", "==", "Options accepted by {@link Store}."),
            ("createStore", "signature", "==", "export const createStore = <T,>(backend: Backend<T>): Store<T> =>"),
            (FILE, "docstring", "==", "Typed key-value store with pluggable persistence backends."),
        ],
        edges=[
            Edge("contains", PATH, "Store"),
            Edge("contains", "Store", "Store.dispose"),
            Edge("imports", PATH, "events"),
            Edge("imports", PATH, "EventEmitter", "events:EventEmitter", line=2),
            Edge("imports", PATH, "./backend"),
            Edge("imports", PATH, "Serializer", "./backend:Serializer"),
            Edge("calls", "Store.get", "get", "this.cache.get", line=27),
            Edge("calls", "Store.get", "load", line=31),
            Edge("calls", "Store.get", "join", "path.join", line=31),
            Edge("calls", "Store.dispose", "emit", "this.emit"),
            Edge("calls", "createStore", "Store", line=43),
            Edge("inherits", "Store", "EventEmitter", line=18),
            Edge("inherits", "Store", "Disposable"),
            Edge("inherits", "Store", "Iterable"),
            Edge("inherits", "StoreOptions", "BaseOptions", line=7),
        ],
    ),
    Case(
        "tsx", path="ui/TodoList.tsx", source=TSX.encode(), language="tsx", clean=True,
        units={
            ("interface", "TodoListProps", 5, 8),
            ("function", "TodoItem", 11, 15),
            ("function", "TodoList", 17, 33),
            ("class", "TodoStore", 35, 40),
            ("method", "TodoStore.flush", 37, 39),
        },
        checks=[
            ("TodoList", "signature", "==", "export function TodoList({ initial, onChange }: TodoListProps): JSX.Element"),
            ("TodoItem", "docstring", "==", "Render a single todo row."),
            ("TodoStore.flush", "docstring", "==", "Persist every todo."),
        ],
        edges=[
            Edge("contains", PATH, "TodoList"),
            Edge("contains", "TodoStore", "TodoStore.flush"),
            Edge("imports", PATH, "react", line=2),
            Edge("imports", PATH, "useState", "react:useState"),
            Edge("imports", PATH, "../api/todos", line=3),
            # calls inside the useCallback closure belong to TodoList
            Edge("calls", "TodoList", "setTodos", line=22),
            Edge("calls", "TodoList", "useCallback", line=20),
            # rendering a component counts as calling it; HTML elements do not
            Edge("calls", "TodoList", "TodoItem", line=29),
            Edge("calls", "TodoStore.flush", "saveTodos"),
            Edge("inherits", "TodoStore", "BaseStore", line=35),
        ],
        absent=[
            ("calls", "TodoList", "ul"),
        ],
    ),
    Case(
        "go", path="internal/server/server.go", source=GO.encode(), language="go", clean=True,
        units={
            ("interface", "Handler", 15, 19),
            ("method", "Handler.ServeRoute", 18, 18),
            ("struct", "Server", 22, 27),
            # a struct declared inside a `type ( ... )` group covers its own lines
            ("struct", "Config", 31, 33),
            ("type", "Option", 34, 34),  # a named function type is a unit too
            ("function", "New", 38, 44),
            ("method", "Server.Serve", 47, 57),
            ("method", "Server.Routes", 59, 61),
        },
        checks=[
            ("Server.Serve", "signature", "==", "func (s *Server) Serve(ctx context.Context) error"),
            ("Server.Serve", "docstring", "==", "Serve accepts connections until ctx is done."),
            ("Server.Serve", "parent", "==", "Server"),
            ("Server.Routes", "signature", "==", "func (s Server) Routes() []string"),
            ("Server", "signature", "==", "type Server struct"),
            ("Handler", "signature", "==", "type Handler interface"),
            ("Handler.ServeRoute", "docstring", "==", "ServeRoute handles a request for its route."),
            # the licence header is skipped; the package comment describes the file
            (FILE, "docstring", "==", "Package server implements a small HTTP server with graceful shutdown."),
        ],
        edges=[
            Edge("contains", PATH, "Server"),
            Edge("contains", "Server", "Server.Serve"),
            Edge("contains", "Handler", "Handler.ServeRoute"),
            Edge("imports", PATH, "fmt", line=8),
            Edge("imports", PATH, "net/http", line=9),
            Edge("imports", PATH, "example.com/app/internal/log"),
            # the closures' calls belong to Serve
            Edge("calls", "Server.Serve", "Shutdown", "s.srv.Shutdown", line=49),
            Edge("calls", "Server.Serve", "Done", "ctx.Done"),
            Edge("calls", "Server.Serve", "Errorf", "fmt.Errorf", line=56),
            Edge("calls", "New", "opt", line=41),
            # struct and interface embedding
            Edge("inherits", "Server", "Logger", "log.Logger", line=23),
            Edge("inherits", "Server", "Config", line=24),
            Edge("inherits", "Handler", "Named", "log.Named"),
        ],
        absent=[
            ("inherits", "Server", "routes"),
        ],
    ),
    Case(
        "rust", path="src/cache.rs", source=RUST.encode(), language="rust", clean=True,
        units={
            ("trait", "EvictionHook", 8, 15),
            ("method", "EvictionHook::on_evict", 10, 10),
            ("method", "EvictionHook::name", 12, 14),
            ("struct", "LruCache", 19, 23),
            # methods of `impl ... LruCache<K, V>` blocks (not units themselves)
            ("method", "LruCache::new", 27, 29),
            ("method", "LruCache::insert", 31, 37),
            ("method", "LruCache::evict_if_full", 39, 44),
            ("method", "LruCache::fmt", 48, 50),
            ("enum", "Policy", 53, 56),
            ("module", "tests", 59, 68),
            ("function", "tests::evicts_oldest", 63, 67),
        },
        checks=[
            ("LruCache::insert", "signature", "==", "pub fn insert(&mut self, key: K, value: V) -> Option<V>"),
            ("LruCache::insert", "parent", "==", "LruCache"),
            ("LruCache::new", "docstring", "==", "Create an empty cache holding at most `capacity` entries."),
            # a doc comment above #[derive(...)] still documents the struct
            ("LruCache", "docstring", "==", "A least-recently-used cache."),
            ("EvictionHook", "signature", "==", "pub trait EvictionHook<K>: Send + fmt::Debug"),
            ("EvictionHook::on_evict", "signature", "==", "fn on_evict(&self, key: &K)"),
            (FILE, "docstring", "==", "A bounded LRU cache with pluggable eviction hooks."),
        ],
        edges=[
            Edge("contains", PATH, "LruCache"),
            Edge("contains", "LruCache", "LruCache::fmt"),
            Edge("contains", "tests", "tests::evicts_oldest"),
            Edge("imports", PATH, "std::collections::HashMap", line=3),
            Edge("imports", PATH, "Display", "std::fmt::Display", line=4),
            Edge("imports", PATH, "crate::hooks", line=5),
            Edge("imports", "tests", "super"),
            # the closure `touch` is part of insert
            Edge("calls", "LruCache::insert", "retain", "order.retain", line=32),
            Edge("calls", "LruCache::insert", "evict_if_full", "self.evict_if_full"),
            Edge("calls", "LruCache::new", "with_capacity", "HashMap::with_capacity", line=28),
            Edge("calls", "tests::evicts_oldest", "new", "LruCache::new"),
            # impl Trait for Type, and supertraits
            Edge("inherits", "LruCache", "Display", "fmt::Display", line=47),
            Edge("inherits", "EvictionHook", "Send"),
            Edge("inherits", "EvictionHook", "Debug", "fmt::Debug"),
        ],
    ),
    Case(
        "java", path="src/main/java/com/example/orders/OrderService.java", source=JAVA.encode(),
        language="java", clean=True,
        units={
            ("class", "OrderService", 11, 51),
            ("method", "OrderService.OrderService", 15, 18),
            ("method", "OrderService.place", 26, 33),
            ("method", "OrderService.purge", 36, 38),
            ("class", "OrderService.Builder", 40, 44),
            ("method", "OrderService.Builder.build", 41, 43),
            ("interface", "OrderService.Listener", 46, 48),
            ("method", "OrderService.Listener.onPlaced", 47, 47),
            ("enum", "OrderService.Status", 50, 50),
        },
        checks=[
            ("OrderService.place", "signature", "==", "public <R extends Receipt> String place(T order, Class<R> receiptType) throws PaymentException"),
            ("OrderService.place", "docstring", "==", "Place an order and capture its payment.\n\n"
                    "@param order the order to place\n"
                    "@return the confirmation id"),
            ("OrderService.place", "text", "startswith", "    @Override\n"),
            ("OrderService.purge", "docstring", "==", "Drop orders that were never paid."),
            ("OrderService", "docstring", "==", "Coordinates order placement and payment capture."),
            # one class per file: its Javadoc describes the file
            (FILE, "docstring", "==", "Coordinates order placement and payment capture."),
        ],
        edges=[
            Edge("contains", PATH, "OrderService"),
            Edge("contains", "OrderService", "OrderService.Builder"),
            Edge("contains", "OrderService.Builder", "OrderService.Builder.build"),
            Edge("imports", PATH, "java.util.List", line=4),
            Edge("imports", PATH, "java.util.concurrent", line=5),
            Edge("imports", PATH, "com.example.payments.PaymentGateway"),
            # the lambda's calls belong to place
            Edge("calls", "OrderService.place", "info", "log.info", line=29),
            Edge("calls", "OrderService.place", "getConfirmationId", "gateway.capture().getConfirmationId"),
            Edge("calls", "OrderService.place", "validate", line=28),
            Edge("calls", "OrderService.Builder.build", "StripeGateway", line=42),
            Edge("inherits", "OrderService", "AbstractService", line=11),
            Edge("inherits", "OrderService", "Closeable"),
            Edge("inherits", "OrderService", "Repository"),
        ],
    ),
    Case(
        "commonjs_prototype_and_object_functions_are_qualified", path="lib/router/index.js", source=COMMONJS.encode(),
        clean=True,
        units={
            ("function", "Router", 8, 10),
            ("method", "Router.handle", 13, 15),
            ("method", "Router.route", 18, 18),
            ("method", "Router.use", 19, 19),
            ("method", "Router.from", 23, 23),
            ("method", "res.status", 25, 28),
            ("function", "compile", 30, 30),
            ("function", "flatten", 31, 31),
        },
        checks=[
            ("Router.handle", "parent", "==", "Router"),
            ("Router.handle", "docstring", "==", "Dispatch a req, res into the router."),
            # a lint pragma is not documentation
            ("Router.from", "docstring", "==", ""),
        ],
        edges=[
            Edge("contains", "Router", "Router.handle"),
            Edge("calls", "Router.handle", "next"),
            Edge("calls", "Router.route", "Route"),
        ],
    ),
    Case(
        "jsdoc_tags_keep_their_words_not_their_markup", path="src/zones/IANAZone.js", source=JSDOC.encode(),
        checks=[
            ("IANAZone.offsetName", "docstring", "==", "Returns the offset's common name (such as EST) at the specified timestamp\n"
                    "number ts - Epoch milliseconds for which to get the name\n"
                    "Object opts - Options to affect the format\n"
                    "string opts.format - What style of offset to return.\n"
                    "string"),
            ("IANAZone.use", "docstring", "==", "Add a new interceptor to the stack\n\nFunction fulfilled\nNumber An ID used to remove interceptor later"),
        ],
    ),
    Case(
        "a_rust_macro_takes_the_docs_at_the_head_of_its_expansion",
        path="tokio/src/macros/select.rs", source=RUST_DOC_MACRO,
        checks=[
            ("doc", "docstring", "==", "Waits on multiple concurrent branches, returning when the **first** branch\n"
                    "completes, cancelling the remaining branches.\n\nThe `select!` macro must be used inside of async functions."),
            ("count", "docstring", "==", ""),
        ],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_the_parse_holds_what_its_row_says(case: Case) -> None:
    check_case(case, FIXTURES / "languages")
