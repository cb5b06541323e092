"""``ask --since REV``: for each answer, whether its unit changed since REV, and the commits that changed it.

Ranking is untouched; this reads what git and the index already hold, after it:

1. one tree diff from REV to the indexed commit, with rename detection, tells each answer's file then: the
   same path, the path it was renamed from, or none (a new file);
2. a file whose blob is the same at REV as in the index needs nothing more: its units are unchanged (or
   moved, when the file was renamed). Otherwise the old blob is parsed by hookgraph's own parser (once per
   blob) and the unit found in it by qualified name and kind; the two texts are compared line for line. A
   unit found in neither is looked for in the old blobs of the other changed files that spell its name (a
   definition moved to another file);
3. one ``git log -p`` walk over the changed answers' files gives the commits that changed each one's lines,
   followed through renames and merges as ``git log -L`` follows them (:mod:`hookgraph.search.lines`). An
   unchanged unit needs no history;
4. definitions that were in the answers' files at REV, or in files deleted since that spell a question word,
   and are gone from the index (by qualified name and kind) are reported as deleted when they were in an
   answer's file or share a word with the question, each with the commits that changed how often its first
   line occurs there (as ``git log -S`` finds them: the commit that removed it), read from the same walk.

No history is re-parsed beyond the REV-side blobs of the answers' files and of changed files that mention
a name or word sought. Statuses: ``unchanged``, ``moved`` (same text, another file or a renamed one),
``changed`` (other text; ``from_path`` says where it was when that was elsewhere), ``added``, ``deleted``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hookgraph import git
from hookgraph.parse.words import identifier_words
from hookgraph.search.lines import Range, commits_that_changed
from hookgraph.errors import HookgraphError

if TYPE_CHECKING:
    from collections.abc import Callable

    from hookgraph.parse import CodeUnit
    from hookgraph.search.result import Result
    from hookgraph.store import Store

#: Changed files read on the REV side to find where a unit came from or what was deleted (the ones whose
#: old text spells a name or word sought): beyond this many, the rest are not read.
MAX_OTHER_FILES = 20
#: Blobs larger than this are not read (the indexer's own limit is of the same order).
MAX_BLOB_BYTES = 2_000_000
#: Walks of history at most: a file renamed more than once is found under each older name by one more walk.
RENAME_ROUNDS = 3


class SinceError(HookgraphError, ValueError):
    """A ``--since`` revision that names no commit, or a repository with nothing to compare."""


@dataclass
class UnitChange:
    """How one answer's unit differs from its REV self."""

    status: str
    from_path: str | None = None
    from_start_line: int | None = None
    from_end_line: int | None = None
    #: Newest first; None when git could not follow the lines (a path the index holds ahead of its commit).
    commits: list[git.Commit] | None = field(default_factory=list)

    def record(self) -> dict[str, Any]:
        """The ``change`` field of an ``ask --since --json`` result."""
        return {"status": self.status, "from_path": self.from_path, "from_start_line": self.from_start_line,
                "from_end_line": self.from_end_line,
                "commits": None if self.commits is None else [commit_record(c) for c in self.commits]}


@dataclass
class DeletedUnit:
    """A definition REV had that the index no longer has anywhere."""

    path: str
    symbol: str
    kind: str
    start_line: int
    end_line: int
    commits: list[git.Commit]

    def record(self) -> dict[str, Any]:
        return {"path": self.path, "symbol": self.symbol, "kind": self.kind, "start_line": self.start_line,
                "end_line": self.end_line, "status": "deleted", "commits": [commit_record(c) for c in self.commits]}


@dataclass
class SinceReport:
    """What ``ask --since`` adds: the commits compared, a change per answer (by unit id), the deleted units."""

    rev: str
    commit: str
    until: str
    changes: dict[int, UnitChange]
    deleted: list[DeletedUnit]
    #: False when REV is not in the indexed commit's history (another branch): statuses then compare the two
    #: trees, and "deleted" lists what REV holds and this commit lacks, which may never have been here.
    ancestor: bool = True

    def record(self) -> dict[str, Any]:
        """The ``since`` field of ``ask --since --json``."""
        return {"rev": self.rev, "commit": self.commit, "until": self.until, "ancestor": self.ancestor,
                "deleted": [d.record() for d in self.deleted]}


def commit_record(commit: git.Commit) -> dict[str, str]:
    return {"commit": commit.sha, "date": commit.date, "subject": commit.subject}


class _OldFiles:
    """REV-side blobs, read and parsed at most once each."""

    def __init__(self, root: Path) -> None:
        self.reader = git.BlobReader(root)
        self.parsed: dict[str, tuple[list[bytes], list[CodeUnit]]] = {}
        self.raw: dict[str, list[bytes]] = {}

    def data(self, blob: str) -> bytes | None:
        return self.reader.read(blob, MAX_BLOB_BYTES)

    def lines(self, blob: str) -> list[bytes]:
        """The blob's lines (with their ends), read once."""
        if blob not in self.raw:
            self.raw[blob] = git.split_lines(self.data(blob) or b"", keepends=True)
        return self.raw[blob]

    def units(self, path: str, blob: str, data: bytes | None = None) -> tuple[list[bytes], list[CodeUnit]]:
        if blob not in self.parsed:
            from hookgraph.parse import parse_file

            if data is None:
                data = b"".join(self.raw[blob]) if blob in self.raw else self.data(blob)
            parsed = parse_file(path, data) if data is not None else None
            self.parsed[blob] = (git.split_lines(data or b"", keepends=True),
                                 [u for u in parsed.units if u.kind != "file"] if parsed else [])
        return self.parsed[blob]


def _lines(lines: list[bytes], start: int, end: int) -> list[bytes]:
    return lines[start - 1:end]


def _block_starts(lines: list[bytes], block: list[bytes], most: int = 2) -> list[int]:
    """The first lines (1-based) where ``block`` stands in ``lines``, line for line; at most ``most`` of them."""
    first, size, starts = block[0], len(block), []
    for i, line in enumerate(lines):
        if line == first and lines[i:i + size] == block:
            starts.append(i + 1)
            if len(starts) >= most:
                break
    return starts


def _find(units: list[CodeUnit], lines: list[bytes], qualname: str, kind: str, text: list[bytes]) -> CodeUnit | None:
    """The unit of that qualified name and kind, the one with this very text first (overloads share a name)."""
    same = [u for u in units if u.qualname == qualname and u.kind == kind]
    for u in same:
        if _lines(lines, u.start_line, u.end_line) == text:
            return u
    return same[0] if same else None


def changes_since(root: Path, store: Store, rev: str, results: list[Result], words: list[str],
                  until: str | None) -> SinceReport:
    """Each answer's change since ``rev`` and the definitions deleted since, up to ``until`` (the indexed commit)."""
    since = git.resolve_commit(root, rev)
    if since is None:
        raise SinceError(f"--since {rev!r} names no commit in this repository: give a tag, a branch, a commit "
                         "or HEAD~N")
    if until is None:
        raise SinceError("--since needs a commit to compare with: this repository has none yet")
    renamed_from: dict[str, str] = {}
    changed_old: list[str] = []  # REV-side paths of files modified, renamed or deleted since
    deleted_files: list[str] = []
    for change in git.tree_changes(root, since, until):
        if change.old_path is not None:
            changed_old.append(change.old_path)
        if change.status == "D" and change.old_path:
            deleted_files.append(change.old_path)
        if change.status in ("R", "C") and change.old_path and change.new_path:
            renamed_from.setdefault(change.new_path, change.old_path)
    paths = sorted({r.unit.path for r in results})
    # The walk of history starts now, over every file it may need, and runs while blobs are parsed.
    walked = set(paths) | {renamed_from[p] for p in paths if p in renamed_from} | set(deleted_files[:MAX_OTHER_FILES])
    walk = (git.start_commit_parents(root, since, until), git.start_file_patches(root, since, until, sorted(walked)))
    now_blobs = store.file_map()
    wanted_old = sorted({renamed_from.get(p, p) for p in paths} | set(changed_old))
    old_blobs = git.blobs_at(root, since, wanted_old)
    old = _OldFiles(root)
    renamed_to = {before: after for after, before in renamed_from.items()}

    def still_there(place: str, qualname: str, kind: str) -> bool:
        """Whether the definition ``place`` held at REV stands there (or where it was renamed to) now."""
        return any(u.kind == kind for u in store.units_at(renamed_to.get(place, place), qualname))

    try:
        changes: dict[int, UnitChange] = {}
        now_lines: dict[str, list[bytes]] = {}
        for r in results:
            changes[r.unit.id] = _change(r.unit, renamed_from, old_blobs, now_blobs, now_lines, changed_old, old,
                                         still_there)
        gone = _deleted(store, results, words, renamed_from, old_blobs, now_blobs, deleted_files, old)
    except BaseException:
        for running in walk:
            running.cancel()
        raise
    finally:
        old.reader.close()
    todo = [r.unit for r in results if changes[r.unit.id].status != "unchanged"]
    until_blobs = git.blobs_at(root, until, sorted({u.path for u in todo}))
    followed = []
    for u in todo:  # lines the indexed commit does not hold (the index is ahead of it there) cannot be followed
        if until_blobs.get(u.path) is not None and until_blobs[u.path] == now_blobs.get(u.path):
            followed.append(u)
        else:
            changes[u.id].commits = None
    renamed_to = {before: after for after, before in renamed_from.items()}
    watched = [(head, sorted({d.path, renamed_to.get(d.path, d.path)})) for d, head in gone]
    lines_changed, heads_changed = _history(root, since, until, [Range(u.path, u.start_line, u.end_line)
                                                                  for u in followed], walked, watched, walk)
    for u, commits in zip(followed, lines_changed):
        changes[u.id].commits = commits
    for (d, _), commits in zip(gone, heads_changed):
        d.commits = commits
    return SinceReport(rev=rev, commit=since, until=until, changes=changes, deleted=[d for d, _ in gone],
                       ancestor=git.is_ancestor(root, since, until))


def _history(root: Path, since: str, until: str, ranges: list[Range], names: set[str],
             watched: list[tuple[str, list[str]]], started: tuple[git.Running, git.Running] | None = None,
             ) -> tuple[list[list[git.Commit]], list[list[git.Commit]]]:
    """One walk of history for everything asked: the commits that changed each range's lines, and for each
    watched ``(first line, paths)`` the commits that changed how often that line occurs there (as ``git log
    -S`` finds the commit that removed a definition). A file the walk sees appear under a walked name may
    have been renamed from a name not walked (renamed twice): its old name joins and the walk is redone over
    every name (a walk of some names only would see the other side of a rename as a deletion).
    ``started``: the parents listing and the first walk over ``names``, begun earlier."""
    if not ranges and not watched:
        for running in started or ():
            running.cancel()
        return [], []
    first = None
    if started is not None and {p for _, ps in watched for p in ps} <= names:
        parents, first = git.commit_parents_of(started[0]), started[1]
    else:
        for running in started or ():
            running.cancel()
        names = names | {p for _, ps in watched for p in ps}
        parents = git.commit_parents(root, since, until)
    watch = frozenset(head for head, _ in watched)
    merges = {commit: ps for commit, ps in parents.items() if len(ps) > 1}
    patches, info = git.file_patches(root, since, until, sorted(names), watch, started=first, merges=merges)
    checked: set[str] = set()
    for _ in range(RENAME_ROUNDS - 1):
        appeared = [c for c, entries in patches.items() if c not in checked and len(entries) == 1
                    and any(p.old_path is None and p.new_path in names for p in entries[0])]
        checked.update(appeared)
        renamed = {(new, old) for (_, new), old in git.rename_sources(root, appeared).items()
                   if new in names and old not in names}
        if not renamed:
            break
        names |= {old for _, old in renamed}
        patches, info = git.file_patches(root, since, until, sorted(names), watch, merges=merges)
    order = {commit: i for i, commit in enumerate(parents)}
    by_lines = [[info[c] for c in commits if c in info]
                for commits in commits_that_changed(ranges, until, parents, patches)]
    by_heads: list[list[git.Commit]] = []
    for head, paths in watched:
        if not head:
            by_heads.append([])
            continue
        found = [c for c, entries in patches.items() if len(entries) == 1 and any(
            p.watched.get(head) and (p.old_path in paths or p.new_path in paths) for p in entries[0])]
        by_heads.append([info[c] for c in sorted(found, key=lambda c: order.get(c, len(order)))])
    return by_lines, by_heads


def _change(unit: Any, renamed_from: dict[str, str], old_blobs: dict[str, str], now_blobs: dict[str, str],
            now_lines: dict[str, list[bytes]], changed_old: list[str], old: _OldFiles,
            still_there: Callable[[str, str, str], bool]) -> UnitChange:
    """The unit's change since REV. Found elsewhere at REV, it "moved" or "changed (was ...)" only when that
    definition no longer stands in its own file: a new ``helper`` beside an edited one of another file is added."""
    path = unit.path
    old_path = renamed_from.get(path, path)
    old_blob = old_blobs.get(old_path)
    now_blob = now_blobs.get(path)
    if old_blob is not None and old_blob == now_blob:  # the same file: every unit in it is as it was
        if old_path == path:
            return UnitChange("unchanged")
        return UnitChange("moved", old_path, unit.start_line, unit.end_line)
    if unit.kind == "file":  # a file unit is its whole file: another blob is another text
        if old_blob is None:
            return UnitChange("added")
        return UnitChange("changed", None if old_path == path else old_path)
    if path not in now_lines:
        data = old.data(now_blob) if now_blob else None
        now_lines[path] = git.split_lines(data or b"", keepends=True)
    text = _lines(now_lines[path], unit.start_line, unit.end_line)
    # The very text still in its file, and only once on both sides: no parse needed (the parser's first use in a
    # process costs more than all the rest here). Twice (two classes' identical close()) is the parse's to settle
    # by qualified name: a method added since was called "unchanged" for its twin's text.
    if old_blob is not None and text and len(_block_starts(now_lines[path], text)) == 1:
        starts = _block_starts(old.lines(old_blob), text)
        if len(starts) == 1:
            if old_path == path:
                return UnitChange("unchanged")
            return UnitChange("moved", old_path, starts[0], starts[0] + len(text) - 1)
    places = ([old_path] if old_blob is not None else []) + [
        p for p in changed_old if p != old_path and p in old_blobs]
    name = unit.name.encode("utf-8", "surrogateescape")
    for i, place in enumerate(places[: MAX_OTHER_FILES + 1]):
        data = None
        if i > 0:  # another file: parsed only when its old text spells the name at all
            data = old.data(old_blobs[place])
            if data is None or name not in data:
                continue
        lines, units = old.units(place, old_blobs[place], data)
        found = _find(units, lines, unit.qualname, unit.kind, text)
        if found is None or (i > 0 and still_there(place, unit.qualname, unit.kind)):
            continue
        same_text = _lines(lines, found.start_line, found.end_line) == text
        if place == path and same_text:
            return UnitChange("unchanged")
        status = "moved" if same_text else "changed"
        return UnitChange(status, None if place == path else place, found.start_line, found.end_line)
    return UnitChange("added")


def _deleted(store: Store, results: list[Result], words: list[str], renamed_from: dict[str, str],
             old_blobs: dict[str, str], now_blobs: dict[str, str], deleted_files: list[str],
             old: _OldFiles) -> list[tuple[DeletedUnit, str]]:
    """Definitions of the answers' files (as they were at REV) and of files deleted since that spell a question
    word, which the index has nowhere now (by qualified name and kind); best matches of the question first,
    as many as there are answers; each with its first line (the text whose removal dates it)."""
    answer_files = {renamed_from.get(r.unit.path, r.unit.path) for r in results}
    renamed_to = {before: after for after, before in renamed_from.items()}
    sought = {w.lower() for w in words}
    places = sorted(p for p in answer_files if p in old_blobs and old_blobs[p] != now_blobs.get(renamed_to.get(p, p)))
    spelled = [w.encode() for w in sought]
    for path in deleted_files[:MAX_OTHER_FILES] if spelled else []:
        data = old.data(old_blobs[path]) if path in old_blobs else None
        if data is not None and any(w in data.lower() for w in spelled):
            old.units(path, old_blobs[path], data)
            places.append(path)
    gone: list[tuple[int, str, CodeUnit, list[bytes]]] = []
    for path in places:
        lines, units = old.units(path, old_blobs[path])
        if not units:
            continue
        present = store.kinds_of_names(u.qualname for u in units)
        for u in units:
            if (u.qualname, u.kind) in present:
                continue
            overlap = len(sought & set(identifier_words(f"{u.qualname} {u.signature} {u.docstring}")))
            if overlap or path in answer_files:
                gone.append((overlap, path, u, lines))
    gone.sort(key=lambda g: (-g[0], g[1], g[2].start_line))
    chosen = []
    for _, path, u, lines in gone[: max(len(results), 1)]:
        chosen.append((DeletedUnit(path, u.qualname, u.kind, u.start_line, u.end_line, []), _head(u, lines)))
    return chosen


def _head(unit: CodeUnit, lines: list[bytes]) -> str:
    """The line that dates a definition's removal: its first line that spells its name (a decorator line
    above it, ``@staticmethod``, would date every decorated definition), else its first line; stripped."""
    text = [line.decode("utf-8", "replace").strip() for line in _lines(lines, unit.start_line, unit.end_line)]
    return next((line for line in text if unit.name and unit.name in line), text[0] if text else "")
