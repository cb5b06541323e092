"""The order shown: rules that move ranked units, not their scores' making.

One place per name in a file, one per document among the places shown, a
container after its own members, a definition in its declaration's place
(the declaration after the shown window), and among exact-name matches the
defining unit first.
"""

from __future__ import annotations

from hookgraph.parse.languages import REGISTRY
from hookgraph.parse.qualnames import last_part
from hookgraph.search.paths import DECLARATION_SUFFIXES, TS_DECLARATION_SUFFIXES
from hookgraph.search.question_weights import _members
from hookgraph.search.result import Result, _passes
from hookgraph.store import Store, UnitRow

#: Containers (of these kinds) ranked above one of their own members go just below the best of them.
DEDUP_CONTAINERS = "file,module"
#: Places one document (its sections and file unit) may take among those shown; the rest follow. 0: no limit.
SECTIONS_PER_DOCUMENT = 1
#: A bodiless declaration (C header prototype, ``.d.ts``) gives its place to the definition of the same name.
DECLARATIONS_GIVE_WAY = True
#: ... and, its definition shown, waits after the shown window: it would show the same function twice.
DECLARATIONS_AFTER_WINDOW = True
#: Among units named exactly as an identifier query, the one that defines it first: a definition before
#: its bodiless declaration (C header prototype, also one over several lines: a header unit with a
#: same-named twin outside headers), a class before its own constructor (Java ``X.X``).
DEFINITIONS_FIRST = True


def _one_per_name(ranked: list[Result]) -> list[Result]:
    """Keep the best of several units with one name in one file.

    Typing overloads (``@overload`` stubs before the implementation) and
    re-declarations are one thing to the reader; three copies of
    ``ssl_wrap_socket`` would take three of the five places shown.
    """
    seen: set[tuple[str, str, str]] = set()
    out: list[Result] = []
    for r in ranked:
        key = (r.unit.path, r.unit.kind, r.unit.qualname)
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def _document_sections_spread(ranked: list[Result], top: int, per_document: int) -> list[Result]:
    """Let a document take at most ``per_document`` of the places shown; its other sections follow.

    A README chapter matches a question with every one of its subsections;
    five slices of one chapter are one answer, and they push the code that
    implements it off the screen. Sections held back keep their order after
    the shown window, so a longer list still has them.
    """
    window = max(top, 10)
    shown: list[Result] = []
    held: list[Result] = []
    per_path: dict[str, int] = {}
    for r in ranked:
        if len(shown) >= window:
            break
        if _is_document_part(r.unit):
            if per_path.get(r.unit.path, 0) >= per_document:
                held.append(r)
                continue
            per_path[r.unit.path] = per_path.get(r.unit.path, 0) + 1
        shown.append(r)
    rest = ranked[len(shown) + len(held):]
    return shown + held + rest


def _is_document_part(unit: UnitRow) -> bool:
    """A section of a document, or the document's own file unit (its table of contents)."""
    if unit.kind == "section":
        return True
    spec = REGISTRY.get(unit.language)
    return unit.kind == "file" and spec is not None and bool(spec.sections)


def _is_member(unit: UnitRow, container: UnitRow) -> bool:
    if unit.path != container.path or unit.id == container.id:
        return False
    if container.kind == "file":
        return unit.kind != "file"
    return unit.parent == container.qualname


def _containers_after_members(ranked: list[Result], top: int, kinds: tuple[str, ...]) -> list[Result]:
    """Move a class (or file) that outranks its own members to just after the best of them.

    A question answered by a method also matches the class that lists it;
    the method is the answer, the class is context. Only members within the
    shown window count, so a class whose members are nowhere near stays put.
    """
    window = ranked[: max(top * 2, 20)]
    out: list[Result] = []
    waiting: dict[int, Result] = {}
    for r in window:
        if r.unit.kind in kinds and any(
            _is_member(m.unit, r.unit) for m in window[window.index(r) + 1 :]
        ):
            waiting[r.unit.id] = r
            continue
        out.append(r)
        for cid, c in list(waiting.items()):
            if _is_member(r.unit, c.unit):
                c.score = r.score
                c.reasons.append("after its member")
                out.append(c)
                del waiting[cid]
    out.extend(waiting.values())
    return out + ranked[len(window) :]


_DECLARATION_KINDS = frozenset({"function", "method"})


def _is_declaration(unit: UnitRow) -> bool:
    """A function or method declared without a body: a prototype in a C/C++ header, a ``.d.ts`` signature.

    Only in the files made for declarations (:data:`DECLARATION_SUFFIXES`): a
    one-line Python or Go function is a definition however short it is.
    """
    if unit.kind not in _DECLARATION_KINDS or not unit.path.endswith(DECLARATION_SUFFIXES):
        return False
    return unit.path.endswith(TS_DECLARATION_SUFFIXES) or (
        unit.start_line == unit.end_line and "{" not in unit.signature
    )


def _in_header(unit: UnitRow) -> bool:
    """A function or method in a file made for declarations (a prototype, or an inline definition)."""
    return unit.kind in _DECLARATION_KINDS and unit.path.endswith(DECLARATION_SUFFIXES)


def _definitions_before_declarations(
    store: Store, ranked: list[Result], depth: int, path_glob: str | None, language: str | None
) -> tuple[list[Result], set[int]]:
    """Put the definition of a declared name in its declaration's place, the declaration just after.

    A header prototype carries the documentation and so matches the
    question's words; the definition in the ``.c`` file is what does the
    work and what a reader opens. Only declarations within the shown window
    move anything. Returns the new order and the declarations that gave
    way: once its definition is shown, a prototype would only show the same
    function twice, so ``rank`` moves them after the shown window
    (``DECLARATIONS_AFTER_WINDOW``).
    """
    window = max(depth, 10)
    placed: set[int] = set()
    out: list[Result] = []
    repeated: set[int] = set()
    by_id = {r.unit.id: r for r in ranked}
    for r in ranked[:window]:
        if r.unit.id in placed:
            continue
        if _is_declaration(r.unit):
            definitions = [
                u for u in store.same_definitions_elsewhere(r.unit.name, r.unit.qualname, r.unit.path)
                if u.kind == r.unit.kind and not _is_declaration(u) and _passes(u, path_glob, language)
            ]
            for u in definitions[:1]:
                d = by_id.get(u.id) or Result(u)
                if d.unit.id not in placed:
                    d.score = max(d.score, r.score)
                    d.reasons.append("defines a declaration that matched")
                    out.append(d)
                    placed.add(d.unit.id)
                    repeated.add(r.unit.id)
        out.append(r)
        placed.add(r.unit.id)
    return out + [r for r in ranked if r.unit.id not in placed], repeated


def _after_window(ranked: list[Result], ids: set[int], depth: int) -> list[Result]:
    """The results in ``ids`` moved to just after the first ``depth`` others, in their order."""
    moved = [r for r in ranked if r.unit.id in ids]
    rest = [r for r in ranked if r.unit.id not in ids]
    return rest[:depth] + moved + rest[depth:]


def _defining_first(store: Store, ranked: list[Result]) -> list[Result]:
    """Reorder the exact-name matches so the defining unit leads (see ``DEFINITIONS_FIRST``).

    The exact matches keep the places (and scores) they held; only who
    stands where among them changes: definitions before declarations, a
    class before a constructor named after it, a class before its
    reopenings, the ones with fewer members than it (``class Adapter``
    around ``class NetHttp < Adapter`` in thirteen of faraday's files, or
    around an autoload list).
    """
    exact = [r for r in ranked if r.exact]
    if len(exact) < 2:
        return ranked
    named = {r.unit.qualname for r in exact}

    defined_outside_headers = {(r.unit.qualname, r.unit.kind) for r in exact if not _in_header(r.unit)}
    members = {uid: len(own) for uid, own in _members(store, exact).items()}
    most: dict[tuple[str, str], int] = {}
    for r in exact:
        if r.unit.id in members:
            key = (r.unit.qualname, r.unit.kind)
            most[key] = max(most.get(key, 0), members[r.unit.id])

    def defers(r: Result) -> tuple[bool, bool, bool]:
        u = r.unit
        constructor = u.kind == "method" and u.parent is not None and u.parent in named and last_part(u.parent) == u.name
        declared = _is_declaration(u) or (_in_header(u) and (u.qualname, u.kind) in defined_outside_headers)
        reopening = u.id in members and members[u.id] < most[(u.qualname, u.kind)]
        return declared, reopening, constructor

    reordered = sorted(exact, key=defers)  # stable: ties keep the ranking's order
    if reordered == exact:
        return ranked
    scores = [r.score for r in exact]
    for r, score in zip(reordered, scores):
        if r.score != score:
            r.reasons.append("defines the name")
        r.score = score
    it = iter(reordered)
    return [next(it) if r.exact else r for r in ranked]
