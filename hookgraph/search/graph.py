"""Structural questions over the edges: who calls this, what does it call.

Edges store target names as written (``send`` with ``self.adapter.send``);
a name is resolved to definitions when asked, so the answer always reflects
the current store without any global re-resolution at write time.

Resolution reads the receiver of the call, the way a reader would:

* a bare call ``f()`` names a function or class, never a method; one defined
  in the calling file wins over others of the same name. Where the language
  calls its own methods without a receiver (registry field
  ``bare_calls_reach_methods``: Ruby), the calling class's own method comes first,
  then one of the classes it extends;
* ``self.f()`` / ``this.f()`` / ``super().f()`` (and the language's
  ``self_receivers``: PHP ``static::f()``, ``parent::f()``) name a method, the
  calling class's own first, else one of the classes it extends (from the
  ``inherits`` edges); a receiver's sigil is dropped first (``$this->f()``);
  and the overrides of the classes extending it;
* ``Name.new`` (the language's ``constructor_method``: Ruby) builds the class ``Name``;
* ``Name.f()`` with a capitalised receiver names a member of ``Name`` (or a
  function in the file that defines ``Name``, like ``AxiosError.from``); when
  the project defines nothing called ``Name`` the receiver is someone
  else's (``Buffer.from``, ``JSON.stringify``) and nothing of ours is called;
* ``module.f()`` / ``pkg.module.f()`` where ``module`` is the stem of one of
  our files names a function of that file (``utils.forEach``,
  ``util.ssl_.create_urllib3_context``), ``pkg.f()`` one re-exported by our
  package (``flask.stream_with_context``); a receiver imported from outside
  the project names nothing of ours (``dotenv.load_dotenv``);
* any other receiver (``conn.urlopen``, ``g().f``, ``args.headers.get``) has a
  type the code does not show: it names a method (or in JavaScript also a
  function hung on a plain object, ``validators.x``) only when one class in
  one file is all that defines the name and the name is not one the
  languages' own types answer to (:data:`COMMON_METHOD_NAMES`); otherwise the
  call is *ambiguous*: :class:`Resolution` ``maybe`` lists the candidates,
  which ``callees`` shows as such and ``callers`` never states (a guessed
  caller would be a wrong answer stated as a fact).

JavaScript's ``f.call(...)`` / ``f.apply`` / ``f.bind`` call ``f``. Type
declarations (``.d.ts``) only answer when no implementation does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hookgraph.parse.languages import REGISTRY, LanguageSpec
from hookgraph.parse.qualnames import ends_with, last_part, spellings, split_qualname
from hookgraph.search.declared import declared_type, type_names
from hookgraph.search.paths import TS_DECLARATION_SUFFIXES, is_test_path
from hookgraph.store import Store, UnitRow
from hookgraph.errors import HookgraphError


class SymbolNotFound(HookgraphError):
    """No unit has that name; the message says so."""


@dataclass
class Link:
    """One caller or callee: the unit on the other side (if it is ours) and the call site."""

    unit: UnitRow | None
    name: str
    call_path: str
    call_line: int
    expression: str
    #: For a callee whose receiver's type the code does not show (``unit`` None): the same-named
    #: definitions of ours it may run. For a possible caller: the definitions its call may reach.
    maybe: list[UnitRow] = field(default_factory=list)

    @property
    def resolution(self) -> str:
        """``exact`` (a unit of ours, read from the code), ``ambiguous`` (a receiver of unknown type:
        ``maybe`` lists what it could run) or ``external`` (nothing of ours)."""
        if self.maybe:
            return "ambiguous"
        return "exact" if self.unit is not None else "external"


_SIMPLE = re.compile(r"^[A-Za-z_$][\w$]*$")
_DOTTED = re.compile(r"^[A-Za-z_$][\w$]*(?:(?:\.|::|\\)[A-Za-z_$][\w$]*)*$")
#: How a call's receiver meets the called name: ``a.f``, ``A::f`` (Ruby, C++, Rust, PHP),
#: ``a->f`` (C, C++, PHP, Perl), ``a:f`` (Lua methods, Erlang modules), ``a$f`` (R).
_CALL_JOINS = (".", "::", "->", ":", "$")
#: Sigils a receiver may carry: PHP/Perl ``$this``, Ruby ``@config``.
_SIGILS = "$@"
_SELF = frozenset({"self", "this", "cls"})
#: Unit kinds that are types: ``Name.f()`` on one of them is a member of it or of a class it extends.
CLASS_KINDS = frozenset({"class", "interface", "struct", "trait", "enum", "type", "impl", "module", "object", "record"})
_SCRIPT_LANGUAGES = frozenset({"javascript", "typescript", "tsx", "jsx"})
_FUNCTION_PROTOTYPE = frozenset({"call", "apply", "bind"})
#: Words that start a path inside the project and name no module (Rust's ``crate::``, ``self::``, ``super::``).
_PATH_ROOTS = frozenset({"crate", "self", "super", "Self"})
#: The files a Rust crate's root path (``crate::other``) names.
_CRATE_ROOTS = frozenset({"lib", "main"})
#: Type arguments in a receiver (Rust's ``LinkedList::<L, T>::new``, ``Vec<u8>::new``): not part of its name.
_GENERIC_ARGUMENTS = re.compile(r"(?:::)?<[^<>]*(?:<[^<>]*>[^<>]*)*>")
#: How an import's full name is cut into module segments (``../utils:run``, ``a.b.c``, ``crate::x::f``).
_MODULE_PARTS = re.compile(r"[./\\:]+")
#: Languages whose bare call reaches another file's function only through an import of its name
#: (or a wildcard import): an unimported bare name is a parameter, a local or a builtin.
_IMPORT_SCOPED = frozenset({"python", "javascript", "typescript", "tsx", "jsx", "rust"})
#: Method names that the languages' own types answer to (containers, strings, streams, errors, futures,
#: events, formatting, cloning...). A call of one on a receiver of unknown type is far more often the
#: standard library's (``os.environ.get``, ``waiters.append``, ``err.Error()``, ``x.clone()``) than the one
#: class of ours that defines it, so such a call is never stated as an edge to ours. Compared lowercased.
COMMON_METHOD_NAMES = frozenset("""
    get set put add remove delete del pop push append extend insert clear copy clone update keys values items
    entries has contains containskey containsvalue index indexof find count len size length isempty empty
    iter iterator next hasnext map filter reduce foreach for_each collect join split strip trim replace format
    lower upper tolowercase touppercase startswith endswith encode decode tostring to_string string str repr
    equals hashcode hash eq cmp compare compareto fmt debug display default from into as_ref as_mut borrow
    unwrap expect ok err error read write readline readlines close flush open seek tell send recv receive
    run start stop call apply bind then catch finally resolve reject wait notify lock unlock acquire release
    emit on off once addlistener removelistener addeventlistener removeeventlistener dispatch dispatchevent
    parse dump dumps load loads serialize deserialize header headers cookie cookies
    new init create build execute process handle handler next_id name id type value data
    assert test setup teardown log info warn warning print println printf sprintf
    servehttp hijack writeheader flush closenotify
    poll poll_next poll_ready waker wake wake_by_ref drop deref deref_mut as_ptr into_inner get_ref get_mut
    as_fd as_raw_fd into_raw_fd from_raw_fd as_raw_socket into_raw_socket as_raw_handle into_raw_handle
""".split())


def _definitions(store: Store, name: str, cache: dict[str, list[UnitRow]] | None = None) -> list[UnitRow]:
    if cache is not None and name in cache:
        return cache[name]
    rows = [r for r in store.units_named(name) if r.kind not in ("file", "section")]
    if cache is not None:
        cache[name] = rows
    return rows


def _is_declaration(path: str) -> bool:
    return path.endswith(TS_DECLARATION_SUFFIXES)


def _stem(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    if name.startswith("__init__."):  # a package's __init__ is known by the package's name
        parts = path.rsplit("/", 2)
        return parts[-2] if len(parts) >= 2 else name
    return name.split(".", 1)[0]


def resolve_name(store: Store, name: str, prefer_path: str | None = None) -> list[UnitRow]:
    """Definitions a bare name may refer to: same file first, else all of that name."""
    rows = _definitions(store, name)
    if prefer_path:
        local = [r for r in rows if r.path == prefer_path]
        if local:
            return local
    return rows


@dataclass
class Resolution:
    """What one call runs, as far as the code shows.

    ``units`` are facts: the definitions the call runs, read from its receiver.
    ``maybe`` is filled when the receiver's type cannot be read (a variable, a
    parameter, an attribute chain, a call's result): the same-named definitions
    it could run, which are candidates and never stated as edges.
    """

    units: list[UnitRow]
    maybe: list[UnitRow] = field(default_factory=list)


def resolve_call(
    store: Store,
    target: str,
    full: str,
    origin: UnitRow | None,
    cache: dict[str, list[UnitRow]] | None = None,
) -> list[UnitRow]:
    """Our definitions that the call ``full`` (last name ``target``) made in ``origin`` runs (facts only)."""
    return resolve(store, target, full, origin, cache).units


def resolve(
    store: Store,
    target: str,
    full: str,
    origin: UnitRow | None,
    cache: dict[str, list[UnitRow]] | None = None,
) -> Resolution:
    """The definitions the call ``full`` in ``origin`` runs, or, when its receiver is unknown, may run."""
    full = full or target
    receiver = ""
    called_on = ""  # how the receiver is joined to the name: a value's ``.`` / ``->``, or a path's ``::``
    for join in _CALL_JOINS:
        if full.endswith(join + target):
            receiver = full[: -len(target) - len(join)]
            called_on = join
            break
    if target in _FUNCTION_PROTOTYPE and _SIMPLE.match(receiver or "-"):
        target, receiver = receiver, ""  # fn.call(thisArg, ...) runs fn
    spec = REGISTRY.get(origin.language) if origin is not None else None
    written = receiver
    receiver = _GENERIC_ARGUMENTS.sub("", _without_sigil(receiver))  # LinkedList::<L, T>::new: LinkedList
    if spec is not None and target == spec.constructor_method and _DOTTED.match(receiver or "-"):
        built = _constructed_class(store, receiver, cache)
        if built:  # Ruby's GzipStream.new(...) builds a GzipStream
            return Resolution(built)
    candidates = _definitions(store, target, cache)
    implementations = [c for c in candidates if not _is_declaration(c.path)]
    candidates = implementations or candidates
    if not candidates:
        return Resolution([])
    here = origin.path if origin else None
    methods = [c for c in candidates if _is_method(c)]
    if not receiver:
        callable_bare = [c for c in candidates if c.kind != "method"]
        local = [c for c in callable_bare if c.path == here]
        if local:
            return Resolution(local)
        if spec is not None and spec.bare_calls_reach_methods and origin is not None:
            own = _own_methods(methods, origin)  # Ruby: helper(x) is self.helper(x)
            if own:
                return Resolution(own)
            inherited = _inherited_methods(store, methods, origin)  # ... also one its class inherits
            if inherited:
                return Resolution(inherited)
        return _bare_elsewhere(store, target, callable_bare, origin)
    if receiver.startswith("super"):  # the classes it extends, never its own method
        return Resolution(_inherited_methods(store, methods, origin) if origin is not None else [])
    if receiver in _SELF or _names_self(spec, written, receiver) or _is_own_receiver(origin, receiver):
        own_class = origin.parent if origin and _is_method(origin) else None
        same = [c for c in methods if c.path == here and c.parent == own_class]
        if same and own_class:  # and the overrides of the classes that extend it
            subclasses = store.subclass_names(last_part(own_class))
            same += [c for c in methods if c.parent and last_part(c.parent) in subclasses]
        if not same and own_class and origin is not None:  # not its own: the classes it extends define it
            same = _inherited_methods(store, methods, origin)
        if same:
            return Resolution(same)
        return _unknown_receiver(target, [c for c in methods if c.path == here] or methods, origin)
    if origin is not None and origin.language in TYPED_LANGUAGES and called_on in (".", "->"):
        declared = declared_type(store, origin, receiver, _is_own_receiver(origin, receiver.split(".")[0]),
                                 spec is not None and spec.bare_calls_reach_methods)
        if declared is not None:
            by_type = _by_declared_type(store, declared, methods, origin, called_on == "->", cache)
            if by_type is not None:
                return by_type
    if _DOTTED.match(receiver):
        last = last_part(receiver)
        if last[0].isupper():
            members = [c for c in candidates if c.parent and ends_with(c.parent, last)]
            if members and "::" in receiver:  # scheduler::Handle::current: Handle of the scheduler module
                qualifier = [q for q in split_qualname(receiver)[:-1] if q not in _PATH_ROOTS]
                if qualifier:
                    members = [c for c in members if ends_with(c.parent or "", receiver)
                               or f"/{qualifier[-1]}/" in f"/{c.path}" or _stem(c.path) == qualifier[-1]]
                    if not members:
                        return Resolution([], maybe=[c for c in candidates if c.parent and ends_with(c.parent, last)])
            if members:  # Name.f(): Name's own f; several classes called Name: the one in this file
                return _one_home([c for c in members if c.path == here] or members, target)
            named = _definitions(store, last, cache) or _spelled(store, receiver)  # Perl: Shop::FrontEnd
            if not named:
                return Resolution([])  # Buffer.from, JSON.stringify, mem::ManuallyDrop::new: not ours
            homes = {d.path for d in named}
            in_home = [c for c in candidates if c.path in homes and not _is_method(c)]
            if in_home:  # AxiosError.from: a function hung on the class in its file
                return Resolution(in_home)
            if any(d.kind in CLASS_KINDS for d in named):
                bases = _ancestors(store, receiver)  # a method Name inherits
                return Resolution([c for c in methods if c.parent and last_part(c.parent) in bases])
            return _unknown_receiver(target, methods, origin)  # FormMultipart.Bind: a value, its type unseen
        named_for = _methods_of_class_named_like(methods, last)
        if named_for:  # response.read() runs Response.read, not Request.read
            return _imported_class(store, named_for, origin)
        functions = [c for c in candidates if c.kind != "method"]
        in_module = [c for c in functions if _stem(c.path) == last]
        if in_module:
            return Resolution(in_module)
        in_package = [c for c in functions if f"/{last}/" in f"/{c.path}"]
        if in_package:  # flask.stream_with_context: re-exported by our own package
            return Resolution(in_package)
        if last == receiver and origin is not None and _imported_from_outside(store, origin.path, last):
            return Resolution([])  # dotenv.load_dotenv, os.path: someone else's module
        if origin is not None and origin.language in _SCRIPT_LANGUAGES:
            return _unknown_receiver(target, candidates, origin)  # functions hang off plain objects too
    return _unknown_receiver(target, methods, origin)


#: Languages whose parser records declared types (``types`` edges: the query files' ``@name.reference.types``).
TYPED_LANGUAGES = frozenset({"cpp", "java", "kotlin", "typescript", "tsx", "go", "rust", "python"})
#: Rust's pointers that a method call sees through (``handle: Arc<Handle>``; ``handle.current()`` is Handle's).
_RUST_POINTERS = frozenset({"Box", "Arc", "Rc"})


def _by_declared_type(store: Store, declared: str, methods: list[UnitRow], origin: UnitRow,
                      arrow: bool, cache: dict[str, list[UnitRow]] | None) -> Resolution | None:
    """The methods a call runs on a receiver declared ``declared``; None where that says nothing.

    The type's own method, else one of a class it extends. A C++ ``->`` on a template
    (``scoped_ptr<LoudsTrie> temp; temp->build()``) and a Rust call on a ``Box``/``Arc``/``Rc`` reach the
    type argument first. A type of someone else's (``std::string``, ``List<String>``, a ``Mutex`` the file
    imports from ``std::sync``) runs nothing of ours; a type parameter (``T``, C++'s ``Handler``), an alias
    of ours or a type we cannot place leaves the call to the other readings. The overrides in subclasses are
    not added: the declared type is what the call is written against, and an agent reading ``callers`` of
    every ``TypeAdapter.read`` override would get each ``adapter.read()`` in the project.
    """
    names = type_names(declared)
    if names is None:
        return None
    outer, arguments = names
    if outer == "Self" and origin.parent:
        outer = last_part(origin.parent)
    order = [outer]
    if arguments and (arrow or (origin.language == "rust" and outer in _RUST_POINTERS)):
        order = [*arguments, outer]
    qualifier = _type_qualifier(declared)
    elsewhere = False  # some name of the type is positively someone else's
    ours = False  # some name of the type is a class of ours
    for name in order:
        if len(name) <= 1:
            return None  # a type parameter: its type is not written here
        written_path = qualifier if name == outer else []  # a qualified type says where it is; else the imports
        if (written_path[:1] and written_path[0] in _OUTSIDE_ROOTS) \
                or (not written_path and _imported_from_elsewhere(store, origin.path, name)):
            elsewhere = True  # std::unique_ptr, a Mutex imported from std::sync: not ours, whatever we call Mutex
            continue
        definitions = _definitions(store, name, cache)
        if any(d.kind == "type" for d in definitions):
            return None  # our alias (TypeScript's TeardownLogic = Subscription | ...): the type is not read here
        members = [c for c in methods if c.parent and last_part(c.parent) == name]
        if not members:
            bases = _ancestors(store, name)
            members = [c for c in methods if c.parent and last_part(c.parent) in bases]
        if name == outer and qualifier:  # binding.Binding, crate::sync::mutex::Mutex: where the qualifier says
            placed = ([c for c in members if _path_segments(c.path)[-len(qualifier):] == qualifier]
                      or [c for c in members if set(qualifier) & set(_path_segments(c.path))])
            if placed:
                members = placed
            elif origin.language in _MODULE_QUALIFIED or (
                    origin.language == "go" and qualifier[-1] in _GO_STANDARD_PACKAGES):
                elsewhere, members = True, []  # another crate's or package's (Go's http.Request)
                continue
        if members:
            return _declared_home(store, members, origin)
        ours = ours or any(d.kind in CLASS_KINDS for d in definitions)
    if ours and origin.language not in _DUCK_TYPED:
        return Resolution([])  # our type, and neither it nor a class it extends defines the method
    if elsewhere and not ours:
        return Resolution([])  # someone else's type runs nothing of ours
    return None  # a name we cannot place (a C++ template parameter Handler, a JDK String): other readings


#: Languages whose declared types are hints: the object may have the method though its annotated type does not
#: (aiohttp's ``request: BaseRequest`` is a ``Request`` with ``_prepare_hook``).
_DUCK_TYPED = frozenset({"python", "typescript", "tsx"})


#: First words of a written type's or import's path that name a language's own library, never the project.
_OUTSIDE_ROOTS = frozenset({"std", "core", "alloc", "java", "javax", "kotlin", "kotlinx", "android", "androidx",
                            "Foundation", "UIKit", "System", "typing", "collections", "asyncio"})
_QUALIFIED = re.compile(r"^[&*\s]*(?:(?:const|mut|dyn)\s+)*((?:[A-Za-z_]\w*\s*(?:::|\.)\s*)+)")
#: Languages whose type qualifiers are module paths, so name where the type is (``crate::sync::mutex::Mutex``,
#: ``helpers.Reader``); a C++ or Java namespace need not be a folder, nor a Go package (cobra's is the root).
_MODULE_QUALIFIED = frozenset({"rust", "python"})
#: Go's standard-library package names: ``*http.Request`` is net/http's, whatever the project calls Request.
_GO_STANDARD_PACKAGES = frozenset("""
    http io os bytes strings sync context time fmt errors json url net bufio sort strconv reflect regexp filepath
    path log tls sql template atomic big rand exec signal syscall unicode utf8 utf16 hash crypto sha1 sha256 md5
    base64 hex binary gzip zip tar ioutil fs testing runtime heap list ring mime multipart httptest httputil
    textproto xml csv html image color draw png jpeg ast parser token format types scanner tabwriter flag user
    slog slices maps cmp iter embed pprof trace x509 cipher ecdsa rsa elliptic hmac subtle pem asn1 driver
""".split())


def _type_qualifier(declared: str) -> list[str]:
    """The path a written type is qualified by, Rust's ``crate``/``self``/``super`` left out
    (``std::unique_ptr<T>`` -> ``[std]``, ``crate::sync::mutex::Mutex`` -> ``[sync, mutex]``)."""
    m = _QUALIFIED.match(declared)
    if not m:
        return []
    return [p for p in re.split(r"\s*(?:::|\.)\s*", m.group(1)) if p and p not in _PATH_ROOTS]


def _imported_from_elsewhere(store: Store, path: str, name: str) -> bool:
    """The file imports ``name`` and every import of it names a module outside the project
    (``use std::sync::Mutex``, ``import java.util.List``, ``from asyncio import StreamWriter``)."""
    modules = _imported_modules(store, path, name)
    return bool(modules) and all(not _module_is_ours(store, m) for m in modules)


def _module_is_ours(store: Store, segments: list[str]) -> bool:
    """A module path names the project when its first segments are folders of its files (``io.ktor.client``
    in ``ktor-client/.../io/ktor/client/``); ``std``, ``java.util`` and ``asyncio`` are not."""
    if not segments:
        return True  # the crate's own root (``use crate::X``)
    if segments[0] in _OUTSIDE_ROOTS:
        return False
    folders = "/".join(segments[:2])
    return store.has_file_under(folders)


def _declared_home(store: Store, members: list[UnitRow], origin: UnitRow) -> Resolution:
    """Methods of one class are a fact; of several same-named classes, the one in this file or the one an
    import names by its whole module path; otherwise candidates (never a guess from one path segment)."""
    if len({_home(m) for m in members}) <= 1:
        return Resolution(members)
    here = [m for m in members if m.path == origin.path]
    if here:
        return Resolution(here)
    modules = _imported_modules(store, origin.path, last_part(members[0].parent or ""))
    whole = [c for c in members if any(m and _path_segments(c.path)[-len(m):] == m for m in modules)]
    return Resolution(whole) if whole else Resolution([], maybe=members)


def _spelled(store: Store, qualname: str) -> list[UnitRow]:
    """Definitions whose qualified name is ``qualname`` in any language's spelling (a Perl package's unit)."""
    names = spellings(qualname)
    return [r for r in store.units_with_qualnames(names)
            if r.kind not in ("file", "section")]


def _home(unit: UnitRow) -> tuple[str, str]:
    """Where a definition lives: its class in its file (two Rust ``Driver`` types in two modules are two
    homes), or for Go its type in its package's folder (a type's methods spread over the package's files)."""
    place = unit.path.rsplit("/", 1)[0] if unit.language == "go" and "/" in unit.path else unit.path
    return (unit.parent or "", place)


def _imported_class(store: Store, methods: list[UnitRow], origin: UnitRow | None) -> Resolution:
    """Methods of one class are a fact; of several same-named classes, those of the one the file imports
    (``use crate::runtime::driver::Driver``), else those in this file; otherwise candidates."""
    if len({_home(m) for m in methods}) <= 1 or origin is None:
        return Resolution(methods)
    here = [m for m in methods if m.path == origin.path]
    if here:
        return Resolution(here)
    imported = _from_imports(store, origin.path, last_part(methods[0].parent or ""), methods)
    return Resolution(imported) if imported else Resolution([], maybe=methods)


def _unknown_receiver(target: str, options: list[UnitRow], origin: UnitRow | None) -> Resolution:
    """A call on a receiver whose type the code does not show: a fact only when no other reading exists.

    That is when one class (or one file) of ours defines the name, outside the
    tests unless the caller is a test, and the name is not one that the
    languages' own types answer to too (:data:`COMMON_METHOD_NAMES`:
    ``os.environ.get``, ``waiters.append``). Otherwise the same-named
    definitions are only candidates.
    """
    pool = options
    if origin is not None and not is_test_path(origin.path):
        pool = [c for c in options if not is_test_path(c.path)]
    homes = {_home(c) for c in pool}
    if len(homes) == 1 and target.lower() not in COMMON_METHOD_NAMES:
        return Resolution(pool)
    return Resolution([], maybe=options)


def _one_home(options: list[UnitRow], target: str) -> Resolution:
    """Members of one class are a fact; of several same-named classes in other files, candidates."""
    if len({_home(c) for c in options}) == 1:
        return Resolution(options)
    return Resolution([], maybe=options)


def _bare_elsewhere(store: Store, target: str, options: list[UnitRow], origin: UnitRow | None) -> Resolution:
    """A bare call of a function defined in another file: the one its imports name, else the only one.

    Where a language reaches another file's function only through an import
    (:data:`_IMPORT_SCOPED`), a name neither defined here nor imported is a
    parameter, a local or a builtin: the functions named so are candidates
    unless one file outside the tests is all there is. Go calls its own
    package's (folder's) functions bare and no other's. Elsewhere (C's global
    functions, a header and its source, shell functions) every function of
    that name is one the call may link to, as before.
    """
    if not options or origin is None:
        return Resolution(options)
    modules = _imported_modules(store, origin.path, target)
    if modules:
        named = _from_imports(store, origin.path, target, options)
        if named:
            return Resolution(named)
    if origin.language == "go":
        folder = origin.path.rsplit("/", 1)[0] if "/" in origin.path else ""
        package = [c for c in options if (c.path.rsplit("/", 1)[0] if "/" in c.path else "") == folder]
        return Resolution(package) if package else Resolution([], maybe=options)
    if origin.language not in _IMPORT_SCOPED:
        return Resolution(options)
    pool = options if is_test_path(origin.path) else [c for c in options if not is_test_path(c.path)]
    if (modules or store.imports_everything(origin.path)) and len({c.path for c in pool}) == 1:
        return Resolution(pool)
    return Resolution([], maybe=options)


def _imported_modules(store: Store, path: str, name: str) -> list[list[str]]:
    """The module path of each import of ``name`` by the file, as segments (``../utils:run`` -> ``[utils]``,
    ``crate::runtime::driver::Driver`` -> ``[runtime, driver]``)."""
    modules = []
    for full in store.imports_of_file(path):  # a file imports tens of names: filtered here
        written = [p for p in _MODULE_PARTS.split(full) if p]
        parts = [p for p in written if p not in _PATH_ROOTS]
        if parts and parts[-1] == name and (len(parts) >= 2 or written[0] in _PATH_ROOTS):
            modules.append(parts[:-1])  # use crate::other: [] is the crate's root file
    return modules


def _from_imports(store: Store, path: str, name: str, options: list[UnitRow]) -> list[UnitRow]:
    """Those of ``options`` in the file an import of ``name`` names: the whole module path first, else its
    last segment as a file's stem or folder."""
    modules = _imported_modules(store, path, name)
    if [] in modules:  # from the crate's root: lib.rs or main.rs
        return [c for c in options if _stem(c.path) in _CRATE_ROOTS]
    whole = [c for c in options if any(_path_segments(c.path)[-len(m):] == m for m in modules)]
    return whole or [c for c in options if any(_stem(c.path) == m[-1] or f"/{m[-1]}/" in f"/{c.path}"
                                               for m in modules)]


def _path_segments(path: str) -> list[str]:
    """``src/runtime/driver.rs`` -> ``[src, runtime, driver]``; a folder's own file is the folder."""
    parts = path.rsplit(".", 1)[0].split("/") if "." in path.rsplit("/", 1)[-1] else path.split("/")
    if len(parts) > 1 and parts[-1] in ("__init__", "index", "mod"):
        parts = parts[:-1]
    return parts


_GO_RECEIVER = re.compile(r"^func\s*\(\s*([A-Za-z_]\w*)\s")


def _is_own_receiver(origin: UnitRow | None, receiver: str) -> bool:
    """Go names a method's receiver itself (``func (c *Context) Next()``): ``c.f()`` is its ``self.f()``."""
    if origin is None or origin.language != "go" or origin.kind != "method":
        return False
    m = _GO_RECEIVER.match(origin.signature)
    return m is not None and m.group(1) == receiver


def _constructed_class(store: Store, receiver: str, cache: dict[str, list[UnitRow]] | None) -> list[UnitRow]:
    """The classes ``Receiver.new`` builds: those named like the receiver, the ones spelled that way first."""
    last = last_part(receiver)
    if not last[:1].isupper():
        return []
    classes = [d for d in _definitions(store, last, cache) if d.kind == "class"]
    return [c for c in classes if ends_with(c.qualname, receiver)] or classes


def _is_method(unit: UnitRow) -> bool:
    """A method, or a function of a package that its language lets callers call as one (Perl's subs)."""
    if unit.kind == "method":
        return True
    if unit.kind != "function" or not unit.parent:
        return False
    spec = REGISTRY.get(unit.language)
    return spec is not None and spec.functions_are_methods


def _without_sigil(receiver: str) -> str:
    """``$this`` -> ``this``, ``@config`` -> ``config``; a bare ``$`` (jQuery) stays."""
    stripped = receiver.lstrip(_SIGILS)
    return stripped if stripped and (stripped[0].isalpha() or stripped[0] == "_") else receiver


def _names_self(spec: LanguageSpec | None, written: str, receiver: str) -> bool:
    """A receiver the calling language uses for the calling object or its class (PHP ``static``, ``parent``)."""
    return spec is not None and (written in spec.self_receivers or receiver in spec.self_receivers)


def _own_methods(methods: list[UnitRow], origin: UnitRow) -> list[UnitRow]:
    """Methods of the calling method's own class (the class may be reopened in another file)."""
    own_class = origin.parent if _is_method(origin) else None
    if not own_class:
        return []
    here = [c for c in methods if c.parent == own_class and c.path == origin.path]
    return here or [c for c in methods if c.parent == own_class]


def _inherited_methods(store: Store, methods: list[UnitRow], origin: UnitRow) -> list[UnitRow]:
    """Methods of the classes the calling method's class extends (``save_response`` in ``NetHttp < Adapter``)."""
    own_class = origin.parent if _is_method(origin) else None
    if not own_class or not methods:
        return []
    bases = _ancestors(store, own_class)
    return [c for c in methods if c.parent and last_part(c.parent) in bases]


def _methods_of_class_named_like(methods: list[UnitRow], variable: str) -> list[UnitRow]:
    """Methods of the class a variable is named after: ``response`` -> ``Response``, ``url_map`` -> ``UrlMap``.

    The usual way to name an instance is after its class; when one of the
    candidate methods' classes matches the variable exactly (case and
    underscores aside), that is the best guess without type inference.
    """
    wanted = variable.replace("_", "").lower()
    if not wanted:
        return []
    return [m for m in methods if m.parent and last_part(m.parent).replace("_", "").lower() == wanted]


#: How many generations of base classes an inherited call is looked up in.
_ANCESTOR_DEPTH = 5


def _ancestors(store: Store, qualname: str) -> set[str]:
    """Last names of the classes ``qualname`` extends, theirs, and so on (``_ANCESTOR_DEPTH`` generations).

    A class unit is found by its name or its qualified name (a Perl package's
    unit is named ``Shop::FrontEnd``, a Python class ``FrontEnd``), and a base
    by the edge's short or full target, so every language's spelling meets.
    """
    found: set[str] = set()
    names, fulls = {last_part(qualname)}, {qualname}
    for _ in range(_ANCESTOR_DEPTH):
        rows = store.bases_of(sorted(names | fulls))
        names = {last_part(target) for target, _ in rows} - found
        fulls = {full for _, full in rows}
        if not names:
            break
        found |= names
    return found


def _imported_from_outside(store: Store, path: str, name: str) -> bool:
    """``name`` is a module the file imports by an absolute name we do not have a file for."""
    # Edges have no path (schema 4): the file's edges are those of its units (both sides indexed).
    return any(not full.startswith(".") and not full.startswith("/") for full in store.imports_of_name(path, name))


def find_symbol(store: Store, symbol: str) -> list[UnitRow]:
    """Units named by ``symbol``: a qualified name in any language's spelling
    (``Session.request``, ``Net::HTTP::get`` or ``Net.HTTP.get``) or a bare name."""
    names = spellings(symbol)
    rows = store.units_with_qualnames(names)
    if not rows:
        rows = store.units_named(last_part(symbol))
        if len(names) > 1:
            rows = [r for r in rows if ends_with(r.qualname, symbol)] or rows
    rows = [r for r in rows if r.kind not in ("file", "section")]
    if not rows:
        raise SymbolNotFound(f"no function, method or class named {symbol!r} in the index")
    return rows


def callees(store: Store, symbol: str) -> list[Link]:
    """What the units named ``symbol`` call, resolved to our definitions where we have them."""
    return callees_of(store, find_symbol(store, symbol))


def callees_of(store: Store, units: list[UnitRow]) -> list[Link]:
    """What these units call, resolved to our definitions where we have them (None: not ours), most telling
    first (see ``CALLEES_MOST_TELLING_FIRST``)."""
    by_id = {u.id: u for u in units}
    links: list[Link] = []
    seen: set[tuple[str, int, str]] = set()
    cache: dict[str, list[UnitRow]] = {}
    for source, _kind, target, full, line in store.edges_from(list(by_id), "calls"):
        origin = by_id[source]
        found = resolve(store, target, full, origin, cache)
        options: list[UnitRow | None] = list(found.units) or [None]
        for unit in options:
            key = (unit.qualname if unit else target, line, origin.path)
            if key in seen:
                continue
            seen.add(key)
            links.append(Link(unit, target, origin.path, line, full, [] if unit else found.maybe))
    return _most_telling_first(store, links) if CALLEES_MOST_TELLING_FIRST else links


#: List a unit's callees most telling first: facts before calls whose receiver is unknown or not ours, and
#: among facts, the callee the rest of the repository calls least first (stable: the code's order among
#: equals). A function's own collaborators (``LZ4F_writeLE32``, ``XXH32_digest``) say what it does; the
#: logging, assert and error macros everything calls (``DEBUGLOG``, ``RETURN_ERROR_IF``) say little and came
#: first in the code's order. eval/ callers/callees top 5: 0.979 -> 0.986 (callees 0.949 -> 0.967, top 1
#: 0.889 -> 0.972; lz4 0.917 -> 1.000, vision-camera-ios 0.925 -> 0.950), eval/RESULTS.md.
CALLEES_MOST_TELLING_FIRST = True


def _most_telling_first(store: Store, links: list[Link]) -> list[Link]:
    """The callees reordered: facts first, the least called across the repository first among them."""
    calls = store.edge_counts(sorted({link.unit.name for link in links if link.unit is not None}), "calls")
    return sorted(links, key=lambda link: (link.unit is None, calls.get(link.unit.name, 0) if link.unit else 0))


def callers(store: Store, symbol: str) -> list[Link]:
    """Units whose calls resolve to any unit named ``symbol``."""
    return callers_of(store, find_symbol(store, symbol))


def callers_of(store: Store, units: list[UnitRow]) -> list[Link]:
    """Units whose calls resolve to any of these units."""
    return _calling(store, units, possible=False)


def possible_callers(store: Store, symbol: str) -> list[Link]:
    """Calls that may reach the units named ``symbol``: their receivers' types are not in the code."""
    return possible_callers_of(store, find_symbol(store, symbol))


def possible_callers_of(store: Store, units: list[UnitRow]) -> list[Link]:
    """Calls of these units' names on receivers of unknown type that could run one of them (not facts)."""
    return _calling(store, units, possible=True)


def _calling(store: Store, units: list[UnitRow], possible: bool) -> list[Link]:
    wanted = {u.id for u in units}
    names = {u.name for u in units}
    scripts = any(u.language in ("javascript", "typescript", "tsx", "jsx") for u in units)
    builders = {spec.constructor_method for u in units if u.kind == "class"
                for spec in [REGISTRY.get(u.language)] if spec is not None and spec.constructor_method}
    edges = [
        e for e in store.edges_to(list(names | (_FUNCTION_PROTOTYPE if scripts else set()) | builders), "calls")
        if e[1] in names or last_part(e[2].rsplit(".", 1)[0]) in names  # fn.call(...), Name.new(...): ours only
    ]
    sources = store.units_by_ids({e[0] for e in edges})
    cache: dict[str, list[UnitRow]] = {}
    links = []
    for source, target, full, line in edges:
        unit = sources.get(source)
        if unit is None:
            continue
        found = resolve(store, target, full, unit, cache)
        if possible:
            reached = [t for t in found.maybe if t.id in wanted]
            if reached:
                links.append(Link(unit, target, unit.path, line, full, reached))
            continue
        if not any(t.id in wanted for t in found.units):
            continue
        links.append(Link(unit, target, unit.path, line, full))
    links.sort(key=lambda link: (link.call_path, link.call_line))
    return links
