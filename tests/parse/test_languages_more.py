"""Parsing tests for Kotlin, Swift, Scala, Dart, Zig, OCaml, Haskell, Clojure, SQL
and Vue/Svelte components, on real source, and for gaps found later in
the eval's projects (Go named types from chi, TypeScript overloads from rxjs).

Every fixture under ``tests/fixtures/languages/<lang>/`` is a file taken verbatim
from a package on a registry (PyPI, npm, Debian), with its licence and a
``SOURCE.txt`` naming the package, its version and checksum, and each file's
original path. Each is parsed under a repository path like its project's own.
The tests pin the exact units with their lines, signatures and docstrings that
matter, and edges of every kind the language has. A few short snippets cover
what the real files do not show (named in their tests).
"""

from __future__ import annotations

from pathlib import Path

import pytest


from hookgraph.parse import parse_file
from hookgraph.parse.units import ParsedFile
from tests.helpers.parse_helpers import FILE, PATH, Case, Edge, check_case, edges_from, has_edge, unit, units_of
from tests.helpers.parse_helpers import no_parse_fallback  # noqa: F401 (an autouse fixture: imported, it applies here)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "languages"


def parse(fixture: str, path: str) -> ParsedFile:
    """The fixture ``<lang>/<file>`` parsed as the repository file ``path``."""
    pf = parse_file(path, (FIXTURES / fixture).read_bytes())
    assert pf is not None, path
    return pf


# --------------------------------------------------------------------------- Kotlin (expo-clipboard)

KT = "android/src/main/java/expo/modules/clipboard/"


# --------------------------------------------------------------------------- Swift (expo-clipboard)


SWIFT_PROTOCOL = b"""import Foundation

/// Something that can be pasted.
protocol Pasteable: AnyObject {
  /// The uniform type of the content.
  func typeIdentifier() -> String
}

actor ImageCache<T>: Pasteable {
  init(limit: Int) { self.limit = limit }
  deinit { flush() }
  func typeIdentifier() -> String { "public.image" }
}
"""


# --------------------------------------------------------------------------- Scala (plm)

SCALA = "src/lessons/lander/universe/"


SCALA_TRAITS = b"""package shapes

import scala.collection.mutable.{Map => MMap, Set}

/** Anything with an area. */
trait Shape extends Serializable with Ordered[Shape] {
  def area: Double
}

enum Color { case Red, Green }

sealed abstract class Polygon(sides: Int) extends Shape {
  override def area = math.pow(sides, 2)
}
"""


# --------------------------------------------------------------------------- Dart (maxsim-flutter templates)

DART = "lib/features/"


def test_dart_constructors_getters_and_interfaces():
    pf = parse("dart/api_exception.dart", DART + "api/domain/exceptions/api_exception.dart")
    assert not pf.had_errors
    assert units_of(pf) == {
        ('class', 'ApiException', 2, 31),
        ('method', 'ApiException.ApiException', 7, 11),
        ('method', 'ApiException.fromError', 14, 16),
        ('method', 'ApiException.isUnauthorized', 18, 18),
        ('method', 'ApiException.isForbidden', 19, 19),
        ('method', 'ApiException.isNotFound', 20, 20),
        ('method', 'ApiException.isServerError', 21, 21),
        ('method', 'ApiException.isTimeout', 22, 22),
        ('method', 'ApiException.toString', 25, 30),
    }
    assert unit(pf, "ApiException.fromError").signature == "factory ApiException.fromError(Object error)"
    assert unit(pf, "ApiException.fromError").docstring == "Creates an [ApiException] from a generic error."
    assert unit(pf, "ApiException.isTimeout").signature == "bool get isTimeout"
    assert has_edge(pf, "inherits", "ApiException", "Exception", line=2)
    assert has_edge(pf, "calls", "ApiException.fromError", "ApiException", line=15)
    assert has_edge(pf, "calls", "ApiException.fromError", "toString", "error.toString", line=15)

    impl_path = DART + "auth/data/repositories/auth_repository_impl.dart"
    impl = parse("dart/auth_repository_impl.dart", impl_path)
    assert units_of(impl) == {
        ('class', 'AuthRepositoryImpl', 5, 49),
        ('method', 'AuthRepositoryImpl.AuthRepositoryImpl', 8, 8),
        ('method', 'AuthRepositoryImpl.authStateChanges', 11, 12),
        ('method', 'AuthRepositoryImpl.currentUser', 15, 18),
        ('method', 'AuthRepositoryImpl.signInWithEmail', 21, 27),
        ('method', 'AuthRepositoryImpl.registerWithEmail', 30, 41),
        ('method', 'AuthRepositoryImpl.signOut', 44, 44),
        ('method', 'AuthRepositoryImpl.resetPassword', 47, 48),
    }
    assert has_edge(impl, "inherits", "AuthRepositoryImpl", "AuthRepository", line=5)
    assert has_edge(impl, "imports", impl_path, "../../domain/repositories/auth_repository.dart", line=2)
    assert has_edge(impl, "calls", "AuthRepositoryImpl.signOut", "signOut", "_remoteDataSource.signOut", line=44)


def test_dart_widgets_mixins_and_parts():
    path = DART + "auth/presentation/pages/login_page.dart"
    pf = parse("dart/login_page.dart", path)
    assert not pf.had_errors
    assert units_of(pf) == {
        ('class', 'LoginPage', 6, 11),
        ('method', 'LoginPage.LoginPage', 7, 7),
        ('method', 'LoginPage.createState', 10, 10),
        ('class', '_LoginPageState', 13, 118),
        ('method', '_LoginPageState.dispose', 20, 24),
        ('method', '_LoginPageState._handleLogin', 26, 51),
        ('method', '_LoginPageState.build', 54, 117),
    }
    assert has_edge(pf, "inherits", "_LoginPageState", "ConsumerState", line=13)
    assert has_edge(pf, "calls", "LoginPage.createState", "_LoginPageState", line=10)
    assert has_edge(pf, "calls", "_LoginPageState.dispose", "dispose", "super.dispose", line=23)
    assert has_edge(pf, "calls", "_LoginPageState.build", "Scaffold", line=55)

    entity_path = DART + "auth/domain/entities/user_entity.dart"
    entity = parse("dart/user_entity.dart", entity_path)
    assert units_of(entity) == {
        ('class', 'UserEntity', 6, 18),
        ('method', 'UserEntity.UserEntity', 8, 14),
        ('method', 'UserEntity.fromJson', 16, 17),
    }
    assert has_edge(entity, "inherits", "UserEntity", "_$UserEntity", line=7)  # with _$UserEntity (a mixin)
    assert has_edge(entity, "imports", entity_path, "user_entity.freezed.dart", line=3)  # part '...'


# --------------------------------------------------------------------------- Zig (ziglang std)


# --------------------------------------------------------------------------- OCaml (ounit)

ML = "src/lib/ounit2/advanced/"


OCAML_CLASSES = b"""(** A counter that logs. *)
class counter init = object (self)
  inherit base init as super
  val mutable n = init
  (** Bump it. *)
  method incr = n <- n + 1; self#log "bumped"
  method private log s = print_string s
end

module Store : STORE = struct
  let find key = Hashtbl.find table key
end
"""


# --------------------------------------------------------------------------- Haskell (Hugs QuickCheck)


HASKELL_CLASSES = b"""module Data.Shape (Shape (..), area) where

import qualified Data.Map as M

-- | Things with an area.
class (Eq a, Show a) => HasArea a where
  area :: a -> Double

-- | A shape.
data Shape = Circle Double | Square Double
  deriving (Show, Eq)

instance HasArea Shape where
  area (Circle r) = pi * r * r
  area (Square s) = s * s
"""


# --------------------------------------------------------------------------- Clojure (core.memoize)


def test_clojure_def_forms_types_and_protocol_methods():
    path = "src/main/clojure/clojure/core/memoize.clj"
    pf = parse("clojure/memoize.clj", path)
    assert pf.language == "clojure" and not pf.had_errors
    # defn/defn-/defmacro, (def name #(...)), deftype and its method bodies, and any
    # def-like macro (def-deprecated fifo ...)
    assert units_of(pf) == {
        ('class', 'RetryingDelay', 35, 55),
        ('method', 'RetryingDelay.deref', 37, 52),
        ('method', 'RetryingDelay.isRealized', 54, 55),
        ('function', 'd-lay', 57, 58),
        ('function', 'make-derefable', 60, 69),
        ('function', 'derefable-seed', 71, 74),
        ('class', 'PluggableMemoization', 78, 96),
        ('method', 'PluggableMemoization.has?', 80, 81),
        ('method', 'PluggableMemoization.hit', 82, 83),
        ('method', 'PluggableMemoization.miss', 84, 85),
        ('method', 'PluggableMemoization.evict', 86, 87),
        ('method', 'PluggableMemoization.lookup', 88, 89),
        ('method', 'PluggableMemoization.lookup', 90, 91),
        ('method', 'PluggableMemoization.seed', 92, 94),
        ('method', 'PluggableMemoization.toString', 96, 96),
        ('function', 'args-fn', 100, 102),
        ('function', 'through*', 104, 112),
        ('function', 'cache-id', 114, 116),
        ('function', 'snapshot', 121, 129),
        ('function', 'lazy-snapshot', 131, 141),
        ('function', 'memoized?', 143, 146),
        ('function', 'memo-clear!', 148, 164),
        ('function', 'memo-reset!', 166, 180),
        ('function', 'memo-swap!', 182, 210),
        ('function', 'memo-unwrap', 212, 214),
        ('function', 'cached-function', 216, 243),
        ('function', 'memoizer', 247, 262),
        ('function', 'build-memoizer', 264, 276),
        ('function', 'memo', 278, 312),
        ('function', '!!', 316, 320),
        ('function', 'def-deprecated', 322, 325),
        ('function', 'massert', 327, 329),
        ('function', 'check-args', 331, 344),
        ('function', 'fifo', 350, 355),
        ('function', 'fifo', 357, 387),
        ('function', 'lru', 391, 396),
        ('function', 'lru', 398, 439),
        ('function', 'ttl', 443, 448),
        ('function', 'ttl', 450, 476),
        ('function', 'lu', 480, 485),
        ('function', 'lu', 487, 509),
    }
    # the ns docstring describes the file; a defn's docstring is its doc
    assert pf.units[0].docstring.startswith("core.memoize is a memoization library")
    memo = unit(pf, "memo-clear!")
    assert memo.signature == "(defn memo-clear!"
    assert memo.docstring.startswith("Reaches into an core.memo-memoized function and clears the cache.")
    assert unit(pf, "RetryingDelay").signature == (
        "(deftype RetryingDelay [fun ^:volatile-mutable available? ^:volatile-mutable value]"
    )
    assert unit(pf, "RetryingDelay").docstring.startswith("Similar to clojure.lang.Delay")
    assert unit(pf, "PluggableMemoization.has?").signature == "(has? [_ item]"
    assert unit(pf, "fifo", 350).signature == "(def-deprecated fifo"
    assert unit(pf, "fifo", 350).docstring == "DEPRECATED: Please use clojure.core.memoize/fifo instead."

    assert has_edge(pf, "contains", "PluggableMemoization", "PluggableMemoization.seed")
    assert has_edge(pf, "imports", path, "clojure.core.cache", line=26)
    # the protocols and interfaces a deftype lists
    assert has_edge(pf, "inherits", "RetryingDelay", "IDeref", "clojure.lang.IDeref", line=36)  # known by its last part
    assert has_edge(pf, "inherits", "PluggableMemoization", "CacheProtocol", "cache/CacheProtocol", line=79)
    assert has_edge(pf, "calls", "PluggableMemoization.has?", "has?", "clojure.core.cache/has?", line=81)
    assert has_edge(pf, "calls", "d-lay", "->RetryingDelay", line=58)
    assert has_edge(pf, "calls", "memoizer", "cached-function")
    # special forms and core macros are not calls; a method's own name is not a call
    assert not {"let", "if", "fn", "when", "defn"} & edges_from(pf, "calls", "memo-swap!")
    assert "has?" not in {e.target for e in pf.edges if e.kind == "calls" and e.line == 80}


CLOJURE_RECORDS = b"""(ns geometry.core
  "Shapes and their areas."
  (:require [clojure.string :as str])
  (:import (java.util Date UUID)))

(defprotocol Shape
  "Something with an area."
  (area [s] "The area of s."))

(defrecord Circle [r]
  Shape
  (area [_] (* Math/PI r r)))

(extend-type String Shape (area [s] (count s)))
"""


# --------------------------------------------------------------------------- SQL (procrastinate, pg_stat_kcache)


# --------------------------------------------------------------------------- Go named types (chi)


def test_go_named_types_that_are_no_struct_are_units_with_their_docs():
    """chi's ``type Middlewares []func(http.Handler) http.Handler`` has methods (in chain.go) and a doc."""
    pf = parse("go/chi.go", "chi.go")
    assert not pf.had_errors
    mws = unit(pf, "Middlewares")
    assert (mws.kind, mws.start_line, mws.end_line) == ("type", 134, 134)
    assert mws.signature == "type Middlewares []func(http.Handler) http.Handler"
    assert mws.docstring.startswith("Middlewares type is a slice of standard middleware handlers")
    assert has_edge(pf, "contains", "chi.go", "Middlewares")
    assert unit(pf, "Router").kind == "interface"  # a struct or an interface keeps its own kind
    chain = parse("go/chain.go", "chain.go")
    assert unit(chain, "Middlewares.Handler").parent == "Middlewares"  # the parent is a unit now
    assert unit(chain, "ChainHandler").kind == "struct" and not [u for u in chain.units if u.kind == "type"]
    # a snippet: function, map and named-integer types, also inside a type ( ... ) group
    pf = parse_file("tree.go", b"package chi\n\n// WalkFunc is called for each route.\n"
                               b"type WalkFunc func(method string) error\n\ntype (\n\tmethodTyp uint\n"
                               b"\tendpoints map[methodTyp]string\n)\n")
    assert pf is not None and {(u.kind, u.name, u.start_line) for u in pf.units if u.kind == "type"} == {
        ("type", "WalkFunc", 4), ("type", "methodTyp", 7), ("type", "endpoints", 8)}
    assert unit(pf, "WalkFunc").docstring == "WalkFunc is called for each route."


# --------------------------------------------------------------------------- named values (chi, ureq, requests)


def test_go_package_constants_and_variables_are_units_with_their_docs():
    """chi documents ``DefaultLogger`` and ``RequestIDHeader`` as package variables: ``ask`` finds them by name."""
    pf = parse("go/middleware/logger.go", "middleware/logger.go")
    assert not pf.had_errors
    logger = unit(pf, "DefaultLogger")  # the second name of a var ( ... ) group
    assert (logger.kind, logger.start_line, logger.end_line) == ("variable", 20, 20)
    assert logger.signature == "DefaultLogger func(next http.Handler) http.Handler"
    assert logger.docstring.startswith("DefaultLogger is called by the Logger middleware handler to log each request.")
    assert unit(pf, "LogEntryCtxKey").kind == "variable"
    assert has_edge(pf, "contains", "middleware/logger.go", "DefaultLogger")
    # only package-level values: the ones inside functions are part of them
    assert {u.name for u in pf.units if u.kind in ("constant", "variable")} == {"LogEntryCtxKey", "DefaultLogger"}
    # the file unit lists what the file does, not its values
    assert "DefaultLogger" not in pf.units[0].text and "RequestLogger" in pf.units[0].text

    pf = parse("go/middleware/request_id.go", "middleware/request_id.go")
    key = unit(pf, "RequestIDKey")  # a lone `const X T = v`: the unit holds the keyword and its doc
    assert (key.kind, key.start_line, key.signature) == ("constant", 21, "const RequestIDKey ctxKeyRequestID = 0")
    assert key.docstring == "RequestIDKey is the key that holds the unique request ID in a request context."
    header = unit(pf, "RequestIDHeader")
    assert (header.kind, header.start_line, header.end_line) == ("variable", 25, 25)
    assert header.docstring.startswith("RequestIDHeader is the name of the HTTP Header which contains the request id.")
    assert unit(pf, "prefix").docstring == "" and unit(pf, "reqid").kind == "variable"
    # `var _ Router = &Mux{}` (an interface check) names nothing
    pf = parse_file("mux.go", b"package chi\n\nvar _ Router = &Mux{}\n\nconst (\n\t_ = iota\n\tmA\n)\n")
    assert pf is not None and {(u.kind, u.name) for u in pf.units if u.kind != "file"} == {("constant", "mA")}


def test_rust_consts_statics_and_python_module_constants_are_units():
    """ureq 2.6.2's response.rs limits (Debian librust-ureq-dev) and requests' adapters.py defaults."""
    source = b"""pub const DEFAULT_CONTENT_TYPE: &str = "text/plain";
pub const DEFAULT_CHARACTER_SET: &str = "utf-8";
const INTO_STRING_LIMIT: usize = 10 * 1_024 * 1_024;
// Follow the example of curl and limit a single header to 100kB:
// https://curl.se/libcurl/c/CURLOPT_HEADERFUNCTION.html
const MAX_HEADER_SIZE: usize = 100 * 1_024;
static NEXT_ID: AtomicUsize = AtomicUsize::new(0);

impl Response {
    const LIMIT: usize = 8;
    fn size(&self) -> usize { const LOCAL: usize = 1; LOCAL }
}
"""
    pf = parse_file("src/response.rs", source)
    assert pf is not None and not pf.had_errors
    values = {(u.kind, u.qualname, u.start_line) for u in pf.units if u.kind in ("constant", "variable")}
    assert values == {("constant", "DEFAULT_CONTENT_TYPE", 1), ("constant", "DEFAULT_CHARACTER_SET", 2),
                      ("constant", "INTO_STRING_LIMIT", 3), ("constant", "MAX_HEADER_SIZE", 6),
                      ("variable", "NEXT_ID", 7), ("constant", "Response::LIMIT", 10)}  # not LOCAL: inside a fn
    assert unit(pf, "MAX_HEADER_SIZE").docstring.startswith("Follow the example of curl and limit a single header")
    assert has_edge(pf, "calls", "NEXT_ID", "new")

    path = Path(__file__).resolve().parents[1] / "fixtures" / "requests_repo" / "requests" / "adapters.py"
    pf = parse_file("requests/adapters.py", path.read_bytes())
    assert pf is not None
    values = {(u.name, u.start_line) for u in pf.units if u.kind == "constant"}
    assert {("DEFAULT_POOLBLOCK", 71), ("DEFAULT_POOLSIZE", 72), ("DEFAULT_RETRIES", 73)} <= values
    assert all(name.lstrip("_").isupper() for name, _line in values)  # module names in lower case are no constants
    assert unit(pf, "DEFAULT_POOLSIZE").signature == "DEFAULT_POOLSIZE = 10"


def test_exported_javascript_and_typescript_values_are_units():
    """rxjs exports ``AjaxError`` as a const made by ``createErrorClass``: a unit now, and the calls inside the
    function it is made from are its own (they were the file's)."""
    pf = parse("typescript/src/internal/ajax/errors.ts", "src/internal/ajax/errors.ts")
    assert not pf.had_errors
    value = [u for u in pf.units if u.kind == "constant"]
    assert [(u.qualname, u.start_line, u.end_line) for u in value] == [("AjaxError", 57, 76)]
    assert value[0].signature.startswith("export const AjaxError: AjaxErrorCtor = createErrorClass(")
    assert value[0].docstring.startswith("Thrown when an error occurs during an AJAX request.")
    assert has_edge(pf, "calls", "AjaxError", "getXHRResponse", line=70)
    assert unit(pf, "AjaxTimeoutErrorImpl").kind == "function"  # a function stays a function
    # a snippet in the shape of luxon's formats.js and axios' defaults: an UPPER_CASE object is a value, a
    # lower-case one of functions a container, and a value's own object of functions does not name its
    # members twice; a function value stays a function; what is not exported is no unit
    pf = parse_file("src/formats.js", b"""const n = "numeric";
/** A short date: 10/14/1983. */
export const DATE_SHORT = { year: n, month: n, day: n };
export const VERSION = "3.5.0", RELEASED = true;
export const defaults = { validateStatus(status) { return status < 300; } };
export const HANDLERS = { run(x) { return x; } };
export const round = (x) => Math.round(x);
""")
    assert pf is not None and not pf.had_errors
    assert {(u.kind, u.qualname) for u in pf.units if u.kind != "file"} == {
        ("constant", "DATE_SHORT"), ("constant", "VERSION"), ("constant", "RELEASED"),
        ("method", "defaults.validateStatus"), ("constant", "HANDLERS"), ("method", "HANDLERS.run"),
        ("function", "round")}
    assert unit(pf, "DATE_SHORT").docstring == "A short date: 10/14/1983."
    assert unit(pf, "HANDLERS.run").parent == "HANDLERS" and has_edge(pf, "contains", "HANDLERS", "HANDLERS.run")


# --------------------------------------------------------------------------- TypeScript overloads (rxjs)


def test_typescript_overload_docs_are_the_implementations_doc():
    """rxjs documents ``timer`` and ``Observable.forEach`` on their overload signatures, not on the body."""
    pf = parse("typescript/src/internal/observable/timer.ts", "src/internal/observable/timer.ts")
    assert not pf.had_errors
    assert units_of(pf) == {("function", "timer", 133, 186)}  # the three signatures are no units
    doc = unit(pf, "timer").docstring
    assert doc.startswith("Creates an observable that will wait for a specified time period, or exact date")
    # every overload's comment, in source order: the second one's, then the third one's deprecation
    second = doc.index("Creates an observable that starts an interval after a specified delay")
    assert 0 < second < doc.index("@deprecated The signature allowing `undefined`")

    pf = parse("typescript/src/internal/Observable.ts", "src/internal/Observable.ts")
    for_each = unit(pf, "Observable.forEach")
    assert (for_each.kind, for_each.start_line, for_each.end_line) == ("method", 312, 330)
    assert for_each.docstring.startswith("Used as a NON-CANCELLABLE means of subscribing to an observable")
    assert "a constructor function used to instantiate the Promise" in for_each.docstring  # the blank-line-apart one
    # an implementation with a comment of its own keeps it alone (subscribe's overloads' deprecation stays out)
    subscribe = unit(pf, "Observable.subscribe")
    assert subscribe.docstring.startswith("Invokes an execution of an Observable") and "will be removed in v8" not in subscribe.docstring
    # a snippet: a function right after another name's signature takes nothing from it
    pf = parse_file("x.ts", b"/** Of a. */\nexport function a(x: number): number;\nexport function b(x: any) { return x; }\n")
    assert pf is not None and unit(pf, "b").docstring == ""


# --------------------------------------------------------------------------- Vue and Svelte components


def test_vue_script_setup_in_typescript():
    path = "src/client/theme-default/components/VPSidebarItem.vue"
    pf = parse("vue/VPSidebarItem.vue", path)
    assert pf.language == "vue" and not pf.had_errors
    # <script setup lang="ts"> is parsed as TypeScript; lines are the .vue file's
    assert units_of(pf) == {
        ('function', 'onItemInteraction', 45, 50),
        ('function', 'onCaretClick', 52, 54),
    }
    assert all(u.language == "vue" for u in pf.units)
    click = unit(pf, "onItemInteraction")
    assert click.signature == "function onItemInteraction(e: MouseEvent | Event)"
    assert click.text.startswith("function onItemInteraction(")
    assert pf.units[0].end_line == 251
    assert has_edge(pf, "imports", path, "computed", "vue:computed", line=3)
    assert has_edge(pf, "imports", path, "./VPLink.vue", line=5)
    assert has_edge(pf, "calls", path, "defineProps", line=7)
    assert has_edge(pf, "calls", "onCaretClick", "toggle", line=53)


SFC = b"""<template>
  <button @click="toggle">{{ label }}</button>
</template>

<script lang="ts">
// Shared by every instance.
export function format(n: number): string { return n.toFixed(2) }
</script>

<script setup lang="ts">
import { ref } from 'vue'
const open = ref(false)
function toggle(): void { open.value = !open.value; format(1) }
</script>

<script lang="coffee">
square = (x) -> x * x
</script>

<style scoped>
button { color: red }
</style>
"""

SVELTE_MODULE = b"""<script context="module" lang="ts">
  export function preload(page: string) { return fetch(page) }
</script>

<script>
  export let name;
  function greet() { alert(name) }
</script>

<h1 on:click={greet}>Hello {name}!</h1>
"""


def test_components_with_several_script_blocks():
    """Snippets: a block per language attribute, an unknown one skipped, lines kept."""
    pf = parse_file("src/components/Toggle.vue", SFC)
    assert not pf.had_errors
    assert units_of(pf) == {("function", "format", 7, 7), ("function", "toggle", 13, 13)}
    assert unit(pf, "format").docstring == "Shared by every instance."
    assert unit(pf, "format").signature == "export function format(n: number): string"
    assert has_edge(pf, "imports", "src/components/Toggle.vue", "vue", line=11)
    assert has_edge(pf, "calls", "toggle", "format", line=13)
    assert "square" not in {u.name for u in pf.units}  # lang="coffee" is not parsed
    assert "defines: format, toggle" in pf.units[0].text

    sv = parse_file("src/routes/Hello.svelte", SVELTE_MODULE)
    assert units_of(sv) == {("function", "preload", 2, 2), ("function", "greet", 7, 7)}
    assert has_edge(sv, "calls", "preload", "fetch", line=2)
    assert has_edge(sv, "calls", "greet", "alert", line=7)

    empty = parse_file("src/components/Static.vue", b"<template><p>hi</p></template>\n")
    assert [u.kind for u in empty.units] == ["file"] and not empty.edges


# --------------------------------------------------------------------------- the table: one row per parsed file
#: Each row parses one file as one repository path and pins what the parse must hold (see ``Case``); the
#: tests above are the ones that ask something a row cannot say.
CASES = [
    Case(
        "kotlin_classes_companion_interface_and_nested_classes",
        path=KT + "ClipboardFileProvider.kt", fixture="kotlin/ClipboardFileProvider.kt",
        language="kotlin", clean=True,
        units={
            ('class', 'ClipboardFileProvider', 38, 354),
            ('method', 'ClipboardFileProvider.onCreate', 43, 43),
            ('method', 'ClipboardFileProvider.attachInfo', 52, 55),
            ('method', 'ClipboardFileProvider.getType', 66, 76),
            ('method', 'ClipboardFileProvider.query', 78, 102),
            ('method', 'ClipboardFileProvider.insert', 104, 105),
            ('method', 'ClipboardFileProvider.update', 107, 108),
            ('method', 'ClipboardFileProvider.delete', 110, 111),
            ('method', 'ClipboardFileProvider.openFile', 113, 118),
            ('method', 'ClipboardFileProvider.getUriForFile', 152, 155),
            ('method', 'ClipboardFileProvider.getPathStrategy', 161, 181),
            ('method', 'ClipboardFileProvider.parsePathStrategy', 189, 210),
            ('method', 'ClipboardFileProvider.targetFileFromTag', 212, 228),
            ('method', 'ClipboardFileProvider.buildPath', 230, 238),
            ('interface', 'ClipboardFileProvider.PathStrategy', 256, 266),
            ('method', 'ClipboardFileProvider.PathStrategy.getUriForFile', 260, 260),
            ('method', 'ClipboardFileProvider.PathStrategy.getFileForUri', 265, 265),
            ('class', 'ClipboardFileProvider.SimplePathStrategy', 279, 353),
            ('method', 'ClipboardFileProvider.SimplePathStrategy.addRoot', 286, 295),
            ('method', 'ClipboardFileProvider.SimplePathStrategy.getUriForFile', 297, 333),
            ('method', 'ClipboardFileProvider.SimplePathStrategy.getFileForUri', 335, 352),
        },
        checks=[
            ("ClipboardFileProvider", "signature", "==", "class ClipboardFileProvider : ContentProvider()"),
            # the KDoc that the grammar keeps inside the import list still documents the class
            ("ClipboardFileProvider", "docstring", "startswith", "A read-only [ContentProvider] that exposes clipboard image files"),
            (FILE, "docstring", "startswith", "A read-only [ContentProvider]"),
            ("ClipboardFileProvider.attachInfo", "signature", "==", "override fun attachInfo(context: Context, info: ProviderInfo)"),
            ("ClipboardFileProvider.attachInfo", "docstring", "startswith", "After the [ClipboardFileProvider] is instantiated"),
            # members of the companion object are called through the class
            ("ClipboardFileProvider.getUriForFile", "parent", "==", "ClipboardFileProvider"),
            ("ClipboardFileProvider.PathStrategy", "signature", "==", "internal interface PathStrategy"),
            ("ClipboardFileProvider.PathStrategy.getFileForUri", "docstring", "==", "Return a [File] that represents the given [Uri]."),
        ],
        edges=[
            Edge("contains", PATH, "ClipboardFileProvider"),
            Edge("contains", "ClipboardFileProvider", "ClipboardFileProvider.SimplePathStrategy"),
            Edge("contains", "ClipboardFileProvider.PathStrategy", "ClipboardFileProvider.PathStrategy.getUriForFile"),
            Edge("imports", PATH, "android.content.ContentProvider", line=3),
            Edge("imports", PATH, "org.xmlpull.v1.XmlPullParser.END_DOCUMENT", line=17),
            Edge("inherits", "ClipboardFileProvider", "ContentProvider", line=38),
            Edge("inherits", "ClipboardFileProvider.SimplePathStrategy", "PathStrategy", line=279),
            Edge("calls", "ClipboardFileProvider.attachInfo", "attachInfo", "super.attachInfo", line=53),
            Edge("calls", "ClipboardFileProvider.attachInfo", "getPathStrategy", line=54),
            Edge("calls", "ClipboardFileProvider.parsePathStrategy", "SimplePathStrategy", line=191),
            Edge("calls", "ClipboardFileProvider.parsePathStrategy", "addRoot", "pathStrategy.addRoot", line=206),
            # trailing lambdas are emptied like argument lists
            Edge("calls", "ClipboardFileProvider.targetFileFromTag", "let", "externalFilesDirs.takeIf {}?.let", line=219),
        ],
    ),
    Case(
        "kotlin_enum_classes_and_records", path=KT + "ClipboardOptions.kt", fixture="kotlin/ClipboardOptions.kt",
        clean=True,
        units={
            ('class', 'GetImageOptions', 9, 16),
            ('class', 'GetStringOptions', 18, 22),
            ('class', 'SetStringOptions', 24, 28),
            ('enum', 'ImageFormat', 30, 45),
            ('enum', 'StringFormat', 47, 50),
        },
        checks=[
            ("ImageFormat", "signature", "==", "internal enum class ImageFormat(val jsName: String) : Enumerable"),
        ],
        edges=[
            Edge("inherits", "GetImageOptions", "Record", line=10),
            Edge("inherits", "ImageFormat", "Enumerable", line=30),
            Edge("imports", KT + "ClipboardOptions.kt", "expo.modules.kotlin.types.Enumerable", line=6),
        ],
    ),
    Case(
        "kotlin_top_level_and_extension_functions", path=KT + "ClipboardImage.kt", fixture="kotlin/ClipboardImage.kt",
        clean=True,
        units={
            ('variable', 'PNG_PREFIX', 25, 25),  # top-level values
            ('variable', 'JPEG_PREFIX', 26, 26),
            ('class', 'ImageResult', 29, 41),
            ('method', 'ImageResult.toBundle', 34, 40),
            ('function', 'getImageFormatFromBase64', 54, 61),
            ('function', 'imageFromContentUri', 73, 99),
            ('function', 'clearClipboardCache', 101, 111),
            ('function', 'hashFileName', 113, 123),
            ('function', 'clipDataFromBase64Image', 138, 179),
            ('function', 'bitmapFromContentUriAsync', 189, 203),
            ('function', 'bitmapFromBase64String', 205, 214),
            ('method', 'File.ensureExists', 219, 222),
        },
        checks=[
            # fun File.ensureExists(): a member of its receiver type
            ("File.ensureExists", "signature", "==", "private suspend fun File.ensureExists()"),
            ("File.ensureExists", "docstring", "==", "Creates the file and all its parent directories if they don't exist already."),
            ("getImageFormatFromBase64", "signature", "==", "internal fun getImageFormatFromBase64(base64Image: String): ImageFormat"),
            ("getImageFormatFromBase64", "docstring", "startswith", "Gets the image format from the base64 encoded image string"),
        ],
        edges=[
            Edge("contains", "ImageResult", "ImageResult.toBundle"),
            Edge("calls", "clipDataFromBase64Image", "hashFileName", line=153),
            Edge("calls", "clipDataFromBase64Image", "getUriForFile", "ClipboardFileProvider.getUriForFile", line=173),
            Edge("calls", "clipDataFromBase64Image", "ensureExists", "it.ensureExists", line=162),
            Edge("imports", PATH, "kotlinx.coroutines.runInterruptible", line=14),
        ],
    ),
    Case(
        "swift_class_methods_and_calls",
        path="ios/ClipboardPasteButton.swift", fixture="swift/ClipboardPasteButton.swift",
        language="swift", clean=True,
        units={
            ('class', 'ClipboardPasteButton', 5, 174),
            ('method', 'ClipboardPasteButton.update', 18, 25),
            ('method', 'ClipboardPasteButton.mountView', 27, 49),
            ('method', 'ClipboardPasteButton.canPaste', 51, 61),
            ('method', 'ClipboardPasteButton.paste', 63, 112),
            ('method', 'ClipboardPasteButton.setContentTypes', 114, 125),
            ('method', 'ClipboardPasteButton.processImage', 127, 147),
            ('method', 'ClipboardPasteButton.processHtml', 149, 161),
            ('method', 'ClipboardPasteButton.unmountChild', 163, 166),
            ('method', 'ClipboardPasteButton.imageToData', 168, 173),
        },
        checks=[
            ("ClipboardPasteButton", "signature", "==", "class ClipboardPasteButton: ExpoView"),
            ("ClipboardPasteButton.canPaste", "signature", "==", "override func canPaste(_ itemProviders: [NSItemProvider]) -> Bool"),
            # an attribute (@available) belongs to the method it marks
            ("ClipboardPasteButton.mountView", "text", "startswith", "  @available(iOS 16.0, *)\n"),
        ],
        edges=[
            Edge("contains", "ClipboardPasteButton", "ClipboardPasteButton.paste"),
            Edge("imports", PATH, "ExpoModulesCore", line=2),
            Edge("inherits", "ClipboardPasteButton", "ExpoView", line=5),
            Edge("calls", "ClipboardPasteButton.mountView", "UIPasteControl", line=35),
            Edge("calls", "ClipboardPasteButton.update", "unmountChild", line=19),
            # calls inside trailing closures belong to the method
            Edge("calls", "ClipboardPasteButton.paste", "processImage", "self.processImage", line=71),
            Edge("calls", "ClipboardPasteButton.canPaste", "contains", "itemProviders.contains", line=52),
        ],
    ),
    Case(
        "swift_structs_enums_and_conformances",
        path="ios/ClipboardOptions.swift", fixture="swift/ClipboardOptions.swift",
        clean=True,
        units={
            ('struct', 'GetImageOptions', 5, 11),
            ('enum', 'ImageFormat', 13, 25),
            ('method', 'ImageFormat.getMimeType', 17, 24),
            ('struct', 'GetStringOptions', 27, 30),
            ('struct', 'SetStringOptions', 32, 35),
            ('enum', 'StringFormat', 37, 40),
        },
        checks=[
            ("GetImageOptions", "signature", "==", "internal struct GetImageOptions: Record"),
        ],
        edges=[
            Edge("inherits", "ImageFormat", "String", line=13),
            Edge("inherits", "ImageFormat", "Enumerable", line=13),
            Edge("contains", "ImageFormat", "ImageFormat.getMimeType"),
        ],
    ),
    Case(
        "swift_extensions_prefix_their_members",
        path="ios/NSPasteboard+Clipboard.swift", fixture="swift/NSPasteboard+Clipboard.swift",
        clean=True,
        # extension UIImage / extension UIPasteboard are containers; computed properties run code
        units={
            ('method', 'UIImage.pngData', 7, 13),
            ('method', 'UIImage.jpegData', 15, 24),
            ('method', 'UIPasteboard.url', 28, 42),
            ('method', 'UIPasteboard.html', 44, 82),
            ('method', 'UIPasteboard.hasStrings', 84, 86),
            ('method', 'UIPasteboard.hasURLs', 88, 90),
            ('method', 'UIPasteboard.hasHTML', 92, 97),
            ('method', 'UIPasteboard.hasImages', 99, 101),
            ('method', 'UIPasteboard.image', 103, 115),
        },
        checks=[
            ("UIPasteboard.url", "signature", "==", "var url: URL?"),
        ],
        edges=[
            Edge("calls", "UIPasteboard.url", "readObjects", "self.readObjects", line=31),
            Edge("calls", "UIImage.pngData", "NSBitmapImageRep", line=9),
        ],
    ),
    Case(
        "swift_protocols_actors_init_deinit", path="Sources/ImageCache.swift", source=SWIFT_PROTOCOL, clean=True,
        units={
            ("interface", "Pasteable", 4, 7),
            ("method", "Pasteable.typeIdentifier", 6, 6),
            ("class", "ImageCache", 9, 13),
            ("method", "ImageCache.init", 10, 10),
            ("method", "ImageCache.deinit", 11, 11),
            ("method", "ImageCache.typeIdentifier", 12, 12),
        },
        checks=[
            ("Pasteable", "docstring", "==", "Something that can be pasted."),
            ("Pasteable.typeIdentifier", "docstring", "==", "The uniform type of the content."),
        ],
        edges=[
            Edge("inherits", "Pasteable", "AnyObject"),
            Edge("inherits", "ImageCache", "Pasteable"),
            Edge("calls", "ImageCache.deinit", "flush"),
        ],
    ),
    Case(
        "scala_objects_case_classes_and_operators", path=SCALA + "Geometry.scala", fixture="scala/Geometry.scala",
        language="scala", clean=True,
        # overloads keep one qualname each, as in Java
        units={
            ('class', 'NumUtil', 7, 18),
            ('method', 'NumUtil.clamp', 8, 10),
            ('method', 'NumUtil.clamp', 11, 13),
            ('method', 'NumUtil.radianToVector', 15, 15),
            ('method', 'NumUtil.gameAngleToRadian', 17, 17),
            ('class', 'Point', 20, 31),
            ('method', 'Point.+', 21, 21),
            ('method', 'Point.-', 22, 22),
            ('method', 'Point.*', 23, 23),
            ('method', 'Point./', 24, 24),
            ('method', 'Point.unary_-', 25, 25),
            ('method', 'Point.length', 27, 27),
            ('method', 'Point.normed', 28, 28),
            ('method', 'Point.dot', 29, 29),
            ('method', 'Point.cross', 30, 30),
            ('class', 'Segment', 33, 33),
            ('class', 'Ray', 35, 47),
            ('method', 'Ray.intersects', 36, 46),
        },
        checks=[
            ("NumUtil", "signature", "==", "object NumUtil"),
            (("NumUtil.clamp", 8), "signature", "==", "def clamp(min: Double, max: Double, value: Double): Double"),
            ("Point", "signature", "==", "case class Point(x: Double, y: Double)"),
            ("Point.+", "signature", "==", "def +(p: Point): Point"),
        ],
        edges=[
            Edge("contains", "Ray", "Ray.intersects"),
            Edge("imports", PATH, "Math.PI", line=3),
            Edge("calls", "NumUtil.radianToVector", "Point", line=15),
            Edge("calls", "NumUtil.radianToVector", "cos", line=15),
            Edge("calls", "Ray.intersects", "cross", "direction.cross", line=38),
        ],
    ),
    Case(
        "scala_companion_object_class_and_imports", path=SCALA + "LanderWorld.scala", fixture="scala/LanderWorld.scala",
        clean=True,
        units={
            ('class', 'LanderWorld', 13, 19),
            ('class', 'LanderWorld.State', 14, 16),
            ('class', 'LanderWorld', 21, 148),
            ('method', 'LanderWorld.getIcon', 45, 45),
            ('method', 'LanderWorld.setupBindings', 47, 79),
            ('method', 'LanderWorld.winning', 82, 82),
            ('method', 'LanderWorld.diffTo', 84, 84),
            ('method', 'LanderWorld.reset', 86, 98),
            ('method', 'LanderWorld.getView', 100, 100),
            ('method', 'LanderWorld.toString', 102, 102),
            ('method', 'LanderWorld.angleRadian', 106, 106),
            ('method', 'LanderWorld.groundSegments', 108, 111),
            ('method', 'LanderWorld.flatSegments', 113, 113),
            ('method', 'LanderWorld.touchesSomeFlatSegment', 115, 117),
            ('method', 'LanderWorld.isUnderground', 119, 120),
            ('method', 'LanderWorld.simulate', 122, 147),
        },
        checks=[
            ("LanderWorld.winning", "docstring", "==", "Returns true if both worlds have same name and same state."),
            ("LanderWorld.winning", "signature", "==", "def winning(target: World): Boolean"),
            # a Scala 3 indented body ends on its last line, not in the next definition's indent
            ("LanderWorld.isUnderground", "end_line", "==", 120),
        ],
        edges=[
            Edge("contains", "LanderWorld", "LanderWorld.State"),
            Edge("inherits", "LanderWorld.State", "Enumeration", line=14),
            Edge("imports", PATH, "javax.script.ScriptEngine", line=5),
            # import NumUtil._ inside the class
            Edge("imports", "LanderWorld", "NumUtil", line=24),
            Edge("calls", "LanderWorld.isUnderground", "Ray", "Ray", line=120),
            Edge("calls", "LanderWorld.isUnderground", "intersects", "new Ray().intersects", line=120),
        ],
    ),
    Case(
        "scala_traits_enums_and_selector_imports", path="src/main/scala/shapes/Shape.scala", source=SCALA_TRAITS,
        clean=True,
        units={
            ("trait", "Shape", 6, 8),
            ("method", "Shape.area", 7, 7),
            ("enum", "Color", 10, 10),
            ("class", "Polygon", 12, 14),
            ("method", "Polygon.area", 13, 13),
        },
        checks=[
            ("Shape", "docstring", "==", "Anything with an area."),
        ],
        edges=[
            Edge("imports", PATH, "Map", "scala.collection.mutable.Map", line=3),
            Edge("imports", PATH, "Set", "scala.collection.mutable.Set", line=3),
            Edge("inherits", "Shape", "Serializable"),
            Edge("inherits", "Shape", "Ordered"),
            Edge("inherits", "Polygon", "Shape"),
            Edge("calls", "Polygon.area", "pow", "math.pow"),
        ],
    ),
    Case(
        "dart_methods_span_signature_and_body",
        path=DART + "api/data/interceptors/retry_interceptor.dart", fixture="dart/retry_interceptor.dart",
        language="dart", clean=True,
        # a method is a signature node plus a sibling body node: the unit covers both
        units={
            ('class', 'RetryInterceptor', 6, 42),
            ('method', 'RetryInterceptor.RetryInterceptor', 10, 13),
            ('method', 'RetryInterceptor.onError', 16, 35),
            ('method', 'RetryInterceptor._shouldRetry', 37, 41),
        },
        checks=[
            ("RetryInterceptor", "signature", "==", "class RetryInterceptor extends Interceptor"),
            ("RetryInterceptor", "docstring", "startswith", "Interceptor that retries failed requests with exponential backoff."),
            ("RetryInterceptor.onError", "signature", "==", "void onError(DioException err, ErrorInterceptorHandler handler)"),
        ],
        edges=[
            Edge("contains", "RetryInterceptor", "RetryInterceptor._shouldRetry"),
            Edge("imports", PATH, "package:dio/dio.dart", line=1),
            Edge("inherits", "RetryInterceptor", "Interceptor", line=6),
            Edge("calls", "RetryInterceptor.onError", "_shouldRetry", line=17),
            Edge("calls", "RetryInterceptor.onError", "fetch", "dio.fetch", line=25),
        ],
    ),
    Case(
        "zig_struct_constants_and_their_functions", path="lib/std/buf_map.zig", fixture="zig/buf_map.zig",
        language="zig", clean=True,
        # test "BufMap" { ... } blocks are not units: their calls belong to the file
        units={
            ('struct', 'BufMap', 9, 100),
            ('method', 'BufMap.init', 17, 19),
            ('method', 'BufMap.deinit', 23, 31),
            ('method', 'BufMap.putMove', 36, 44),
            ('method', 'BufMap.put', 47, 60),
            ('method', 'BufMap.getPtr', 64, 66),
            ('method', 'BufMap.get', 71, 73),
            ('method', 'BufMap.remove', 77, 81),
            ('method', 'BufMap.count', 84, 86),
            ('method', 'BufMap.iterator', 89, 91),
            ('method', 'BufMap.free', 93, 95),
            ('method', 'BufMap.copy', 97, 99),
        },
        checks=[
            ("BufMap", "signature", "==", "const BufMap = struct"),
            ("BufMap", "docstring", "startswith", "BufMap copies keys and values before they go into the map"),
            ("BufMap.init", "signature", "==", "fn init(allocator: Allocator) BufMap"),
            # /// doc comments end inside the next line's indent; they still document it
            ("BufMap.init", "docstring", "==", "Create a BufMap backed by a specific allocator.\n"
                    "That allocator will be used for both backing allocations\n"
                    "and string deduplication."),
        ],
        edges=[
            Edge("contains", "BufMap", "BufMap.putMove"),
            Edge("imports", PATH, "std.zig", line=1),
            Edge("calls", "BufMap.init", "init", "BufMapHashMap.init", line=18),
            Edge("calls", "BufMap.put", "getOrPut", "self.hash_map.getOrPut", line=50),
            Edge("calls", PATH, "init", "BufMap.init", line=104),
        ],
        edge_sets=[
            # Zig has no inheritance
            ("inherits", "BufMap", set()),
        ],
    ),
    Case(
        "zig_file_as_struct_with_nested_type", path="lib/std/SinglyLinkedList.zig", fixture="zig/SinglyLinkedList.zig",
        clean=True,
        units={
            ('struct', 'Node', 25, 81),
            ('method', 'Node.insertAfter', 28, 31),
            ('method', 'Node.removeNext', 34, 38),
            ('method', 'Node.findLast', 45, 50),
            ('method', 'Node.countChildren', 57, 64),
            ('method', 'Node.reverse', 70, 80),
            ('function', 'prepend', 83, 86),
            ('function', 'remove', 90, 100),
            ('function', 'popFirst', 103, 107),
            ('function', 'len', 113, 119),
        },
        checks=[
            # the //! comment documents the file (a file is a struct in Zig)
            (FILE, "docstring", "startswith", "A singly-linked list is headed by a single forward pointer."),
            ("remove", "docstring", "==", "Remove `node` from the list.\nAsserts that `node` is in the list."),
            ("Node.insertAfter", "parent", "==", "Node"),
        ],
        edges=[
            Edge("calls", PATH, "popFirst", "list.popFirst", line=155),
        ],
    ),
    Case(
        "ocaml_module_types_and_functors", path=ML + "oUnitPlugin.ml", fixture="ocaml/oUnitPlugin.ml",
        language="ocaml", clean=True,
        # values without parameters (let all = ref ...) are not functions
        units={
            ('interface', 'SETTINGS', 38, 45),
            ('module', 'Make', 47, 73),
            ('function', 'Make.register', 51, 52),
            ('function', 'Make.of_name', 54, 58),
            ('function', 'Make.preset', 67, 71),
        },
        checks=[
            ("Make", "signature", "==", "module Make(Settings: SETTINGS)"),
            ("Make.register", "signature", "==", "let register name pref f"),
            # the licence header is skipped; the (** *) comment after it describes the file
            (FILE, "docstring", "==", "Standard functions for plugin (register, choose)."),
        ],
        edges=[
            Edge("contains", "Make", "Make.of_name"),
            Edge("calls", "Make.of_name", "assoc", "List.assoc", line=56),
            Edge("calls", "Make.of_name", "failwithf", "OUnitUtils.failwithf"),
        ],
    ),
    Case(
        "ocaml_records_variants_functor_application_and_include",
        path=ML + "oUnitChooser.ml", fixture="ocaml/oUnitChooser.ml",
        clean=True,
        units={
            ('struct', 't', 41, 47),
            ('enum', 'choice', 49, 53),
            ('function', 'string_of_choice', 55, 62),
            ('function', 'simple', 68, 71),
            ('module', 'Plugin', 73, 82),
            ('function', 'allskip', 86, 89),
            ('function', 'failfirst', 91, 133),
        },
        checks=[
            ("simple", "docstring", "==", "Most simple heuristic, just pick the first test."),
            ("simple", "signature", "==", "let simple t"),
            ("choice", "signature", "==", "type choice"),
        ],
        edges=[
            Edge("imports", PATH, "OUnitTest", line=39),
            # module Plugin = OUnitPlugin.Make (struct ... end): applying a functor calls it
            Edge("calls", "Plugin", "Make", "OUnitPlugin.Make", line=74),
            # include Plugin: the file takes the module's definitions
            Edge("inherits", PATH, "Plugin", line=84),
            # the local let rec find_failing is part of failfirst
            Edge("calls", "failfirst", "get_result", "OUnitCache.get_result", line=97),
            Edge("calls", "failfirst", "find_failing", line=133),
            Edge("calls", PATH, "register", line=136),
        ],
    ),
    Case(
        "ocaml_classes_and_signature_constraints", path="src/counter.ml", source=OCAML_CLASSES, clean=True,
        units={
            ("class", "counter", 2, 8),
            ("method", "counter.incr", 6, 6),
            ("method", "counter.log", 7, 7),
            ("module", "Store", 10, 12),
            ("function", "Store.find", 11, 11),
        },
        checks=[
            ("counter", "docstring", "==", "A counter that logs."),
            ("counter.incr", "docstring", "==", "Bump it."),
        ],
        edges=[
            Edge("inherits", "counter", "base", line=3),
            Edge("inherits", "Store", "STORE", line=10),
            Edge("calls", "counter.incr", "log", "self#log"),
            Edge("calls", "Store.find", "find", "Hashtbl.find"),
        ],
    ),
    Case(
        "haskell_signatures_and_equations_are_one_unit", path="Test/QuickCheck.hs", fixture="haskell/QuickCheck.hs",
        language="haskell",
        # (a tab in the export list's comments is an error node for the grammar)
        units={
            ('struct', 'Gen', 83, 84),
            ('function', 'sized', 86, 87),
            ('function', 'resize', 89, 90),
            ('function', 'rand', 92, 93),
            ('function', 'promote', 95, 96),
            ('function', 'variant', 98, 101),
            ('function', 'generate', 103, 106),
            ('method', 'Gen.fmap', 109, 109),
            ('method', 'Gen.return', 112, 112),
            ('method', 'Gen.>>=', 113, 116),
            ('function', 'choose', 120, 121),
            ('function', 'elements', 123, 124),
            ('function', 'vector', 126, 127),
            ('function', 'oneof', 129, 130),
            ('function', 'frequency', 132, 139),
            ('function', 'two', 143, 144),
            ('function', 'three', 146, 147),
            ('function', 'four', 149, 150),
            ('interface', 'Arbitrary', 155, 157),
            ('method', 'Arbitrary.arbitrary', 156, 156),
            ('method', 'Arbitrary.coarbitrary', 157, 157),
            ('method', '().arbitrary', 160, 160),
            ('method', '().coarbitrary', 161, 161),
            ('method', 'Bool.arbitrary', 164, 164),
            ('method', 'Bool.coarbitrary', 165, 165),
            ('method', 'Int.arbitrary', 168, 168),
            ('method', 'Int.coarbitrary', 169, 169),
            ('method', 'Integer.arbitrary', 172, 172),
            ('method', 'Integer.coarbitrary', 173, 173),
            ('method', 'Float.arbitrary', 176, 176),
            ('method', 'Float.coarbitrary', 177, 177),
            ('method', 'Double.arbitrary', 180, 180),
            ('method', 'Double.coarbitrary', 181, 181),
            ('function', 'fraction', 183, 183),
            ('method', '(a, b).arbitrary', 186, 186),
            ('method', '(a, b).coarbitrary', 187, 187),
            ('method', '(a, b, c).arbitrary', 190, 190),
            ('method', '(a, b, c).coarbitrary', 191, 191),
            ('method', '(a, b, c, d).arbitrary', 196, 196),
            ('method', '(a, b, c, d).coarbitrary', 197, 198),
            ('method', '[a].arbitrary', 201, 201),
            ('method', '[a].coarbitrary', 202, 203),
            ('method', '(a -> b).arbitrary', 206, 206),
            ('method', '(a -> b).coarbitrary', 207, 207),
            ('struct', 'Result', 212, 213),
            ('function', 'nothing', 215, 216),
            ('struct', 'Property', 218, 219),
            ('function', 'result', 221, 222),
            ('function', 'evaluate', 224, 225),
            ('interface', 'Testable', 227, 228),
            ('method', 'Testable.property', 228, 228),
            ('method', '().property', 231, 231),
            ('method', 'Bool.property', 234, 234),
            ('method', 'Result.property', 237, 237),
            ('method', 'Property.property', 240, 240),
            ('method', '(a -> b).property', 243, 243),
            ('function', 'forAll', 245, 251),
            ('function', '==>', 253, 255),
            ('function', 'label', 257, 260),
            ('function', 'classify', 262, 264),
            ('function', 'trivial', 266, 267),
            ('function', 'collect', 269, 270),
            ('struct', 'Config', 275, 280),
            ('function', 'quick', 282, 288),
            ('function', 'verbose', 290, 293),
            ('function', 'defaultConfig', 295, 296),
            ('function', 'test', 299, 299),
            ('function', 'quickCheck', 300, 300),
            ('function', 'verboseCheck', 301, 301),
            ('function', 'check', 303, 306),
            ('function', 'tests', 308, 327),
            ('function', 'done', 329, 352),
        },
        checks=[
            # the type signature and the equations: one unit, the signature is the type
            ("variant", "start_line", "==", 98),
            ("variant", "end_line", "==", 101),
            ("variant", "signature", "==", "variant :: Int -> Gen a -> Gen a"),
            ("==>", "signature", "==", "(==>) :: Testable a => Bool -> a -> Property"),
            # no type signature: the equation's head
            ("fraction", "signature", "==", "fraction a b c"),
            ("Arbitrary", "signature", "==", "class Arbitrary a where"),
            ("Arbitrary.coarbitrary", "signature", "==", "coarbitrary :: a -> Gen b -> Gen b"),
            ("Gen", "signature", "==", "newtype Gen a = Gen (Int -> StdGen -> a)"),
        ],
        edges=[
            Edge("contains", "Arbitrary", "Arbitrary.arbitrary"),
            Edge("imports", PATH, "System.Random", line=73),
            Edge("imports", PATH, "liftM2", "Control.Monad.liftM2", line=75),
            # instance Arbitrary Bool where ...: Bool's methods, and Bool inherits the class
            Edge("inherits", "Bool", "Arbitrary", line=163),
            Edge("inherits", "Gen", "Monad", line=111),
            Edge("calls", "Bool.arbitrary", "elements", line=164),
            # calls in where-clauses belong to the function; `fmap` in backquotes is a call
            Edge("calls", "frequency", "pick", line=139),
            Edge("calls", "choose", "fmap", line=121),
            Edge("calls", "two", "liftM2", line=144),
        ],
    ),
    Case(
        "haskell_superclasses_data_enums_and_instance_clauses", path="src/Data/Shape.hs", source=HASKELL_CLASSES,
        clean=True,
        units={
            ("interface", "HasArea", 6, 7),
            ("method", "HasArea.area", 7, 7),
            ("enum", "Shape", 10, 11),
            ("method", "Shape.area", 14, 15),  # two equations, one unit
        },
        checks=[
            ("HasArea", "docstring", "==", "Things with an area."),
            ("Shape", "docstring", "==", "A shape."),
        ],
        edges=[
            Edge("imports", PATH, "Data.Map", line=3),
            Edge("inherits", "HasArea", "Eq"),
            Edge("inherits", "HasArea", "Show"),
            Edge("inherits", "Shape", "HasArea", line=13),
        ],
    ),
    Case(
        "clojure_protocols_records_extend_type_and_imports", path="src/geometry/core.clj", source=CLOJURE_RECORDS,
        clean=True,
        units={
            ("interface", "Shape", 6, 8),
            ("method", "Shape.area", 8, 8),
            ("class", "Circle", 10, 12),
            ("method", "Circle.area", 12, 12),
            ("method", "String.area", 14, 14),
        },
        checks=[
            (FILE, "docstring", "==", "Shapes and their areas."),
            ("Shape", "docstring", "==", "Something with an area."),
            ("Shape.area", "docstring", "==", "The area of s."),
        ],
        edges=[
            Edge("imports", PATH, "clojure.string", line=3),
            Edge("imports", PATH, "Date", "java.util.Date", line=4),
            Edge("inherits", "Circle", "Shape", line=11),
            Edge("inherits", "String", "Shape", line=14),
            Edge("calls", "String.area", "count"),
        ],
        absent=[
            ("calls", PATH, "java.util"),
        ],
    ),
    Case(
        "sql_tables_types_functions_and_triggers",
        path="procrastinate/sql/migrations/00.00.00_01_initial.sql", fixture="sql/procrastinate_initial.sql",
        language="sql",
        # (plpgsql bodies are partly error nodes for the grammar; what it recovers is kept)
        units={
            ('table', 'procrastinate_version', 3, 8),
            ('enum', 'procrastinate_job_status', 10, 15),
            ('enum', 'procrastinate_job_event_type', 17, 25),
            ('table', 'procrastinate_jobs', 27, 37),
            ('table', 'procrastinate_events', 39, 44),
            ('table', 'procrastinate_job_locks', 46, 48),
            ('function', 'procrastinate_fetch_job', 50, 82),
            ('function', 'procrastinate_finish_job', 84, 97),
            ('function', 'procrastinate_notify_queue', 99, 107),
            ('function', 'procrastinate_trigger_status_events_procedure_insert', 109, 117),
            ('function', 'procrastinate_trigger_status_events_procedure_update', 119, 152),
            ('function', 'procrastinate_trigger_scheduled_events_procedure', 154, 163),
            ('function', 'procrastinate_jobs_notify_queue', 167, 170),
            ('function', 'procrastinate_trigger_status_events_update', 172, 175),
            ('function', 'procrastinate_trigger_status_events_insert', 177, 180),
            ('function', 'procrastinate_trigger_scheduled_events', 182, 185),
        },
        checks=[
            ("procrastinate_jobs", "signature", "==", "CREATE TABLE procrastinate_jobs"),
            ("procrastinate_version", "signature", "==", "CREATE TABLE IF NOT EXISTS procrastinate_version"),
            ("procrastinate_job_status", "signature", "==", "CREATE TYPE procrastinate_job_status AS ENUM"),
            ("procrastinate_fetch_job", "signature", "==", "CREATE FUNCTION procrastinate_fetch_job(target_queue_names character varying[])"
                    " RETURNS procrastinate_jobs LANGUAGE plpgsql"),
        ],
        edges=[
            # tables a function reads or writes are imports; functions it calls are calls
            Edge("imports", "procrastinate_fetch_job", "procrastinate_jobs", line=58),
            Edge("imports", "procrastinate_fetch_job", "procrastinate_job_locks", line=59),
            # DELETE FROM
            Edge("imports", "procrastinate_finish_job", "procrastinate_job_locks", line=95),
            Edge("calls", "procrastinate_finish_job", "COALESCE", line=92),
            # a foreign key references its table
            Edge("imports", "procrastinate_events", "procrastinate_jobs", line=41),
            # a trigger depends on its table and calls its function
            Edge("imports", "procrastinate_jobs_notify_queue", "procrastinate_jobs", line=168),
            Edge("calls", "procrastinate_jobs_notify_queue", "procrastinate_notify_queue", line=170),
            Edge("contains", PATH, "procrastinate_jobs"),
        ],
    ),
    Case(
        "sql_views_read_tables_views_and_functions",
        path="pg_stat_kcache--2.2.1.sql", fixture="sql/pg_stat_kcache--2.2.1.sql",
        units={
            ('function', 'pg_stat_kcache', 12, 46),
            ('function', 'pg_stat_kcache_reset', 49, 52),
            ('view', 'pg_stat_kcache_detail', 55, 91),
            ('view', 'pg_stat_kcache', 94, 126),
        },
        checks=[
            ("pg_stat_kcache_detail", "signature", "==", "CREATE VIEW pg_stat_kcache_detail"),
            ("pg_stat_kcache_reset", "signature", "==", "CREATE FUNCTION pg_stat_kcache_reset() RETURNS void LANGUAGE c COST 1000"),
        ],
        edges=[
            # FROM pg_stat_kcache() k is a call; JOINs are imports; a view reads another view
            Edge("calls", "pg_stat_kcache_detail", "pg_stat_kcache", line=85),
            Edge("imports", "pg_stat_kcache_detail", "pg_stat_statements", line=86),
            Edge("imports", "pg_stat_kcache_detail", "pg_roles", line=90),
            Edge("imports", "pg_stat_kcache", "pg_stat_kcache_detail", line=124),
            Edge("calls", "pg_stat_kcache", "SUM", line=96),
        ],
    ),
    Case(
        "sql_schema_qualified_names_and_procedures",
        path="db/schema.sql", source=b"""CREATE MATERIALIZED VIEW app.daily AS SELECT * FROM app.events;
    CREATE PROCEDURE archive(p int) LANGUAGE sql AS $$ DELETE FROM app.events WHERE id = p; $$;
    """,
        units={("view", "daily", 1, 1)},
        edges=[
            Edge("imports", "daily", "events", "app.events", line=1),
            # no CREATE PROCEDURE in the grammar: not a unit, but its statements still give edges
            Edge("imports", PATH, "events", "app.events", line=2),
        ],
    ),
    Case(
        "svelte_script_in_javascript", path="VirtualList.svelte", fixture="svelte/VirtualList.svelte",
        language="svelte", clean=True,
        units={
            ('function', 'refresh', 35, 65),
            ('function', 'handle_scroll', 67, 128),
        },
        checks=[
            ("refresh", "signature", "==", "async function refresh(items, viewport_height, itemHeight)"),
        ],
        edges=[
            Edge("imports", PATH, "onMount", "svelte:onMount", line=2),
            Edge("calls", "refresh", "tick", line=38),
            Edge("calls", "handle_scroll", "scrollTo", "viewport.scrollTo", line=122),
            Edge("calls", PATH, "onMount", line=131),
        ],
        absent=[
            # markup and styles are not code
            ("calls", PATH, "div"),
        ],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_the_parse_holds_what_its_row_says(case: Case) -> None:
    check_case(case, FIXTURES)
