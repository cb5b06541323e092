"""How ``hookgraph ask`` prints its answers: text, JSON, JSON lines, vimgrep.

* ``text`` (default): ``path:start-end  symbol  (kind)`` and a one-line
  snippet, for people; coloured only when stdout is a terminal and
  ``NO_COLOR`` is not set (https://no-color.org), never when ``TERM=dumb``;
* ``json``: the documented contract, one object (``--json`` is the same);
* ``jsonl``: one result object per line (the contract's result fields), for
  ``jq`` and line-oriented tools; freshness notes go to stderr as in ``text``;
* ``vimgrep``: ``path:line:col:text`` like ``rg --vimgrep``, for ``:cexpr``,
  Emacs ``grep-mode``, VS Code problem matchers: line is the unit's first
  line, col the 1-based byte column of its name on that line in the working
  tree file (1 when it is not there).

Everything printed for people goes through :func:`hookgraph.cli.common.terminal_safe`:
paths, names and snippets come from the repository and from a database that
may have been committed by someone else, and a terminal must not act on them.
The JSON formats escape control characters by construction.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

FORMATS = ("text", "json", "jsonl", "vimgrep")


def result_record(r: Any) -> dict[str, Any]:
    """One result as the ``--json`` contract spells it."""
    from hookgraph.parse.compose import snippet

    u = r.unit
    return {
        "path": u.path,
        "symbol": u.qualname,
        "kind": u.kind,
        "start_line": u.start_line,
        "end_line": u.end_line,
        "score": round(r.score, 6),
        "lexical": None if r.lexical is None else round(r.lexical, 6),
        "semantic": None if r.semantic is None else round(r.semantic, 6),
        "graph": None if r.graph is None else round(r.graph, 6),
        "confidence": round(getattr(r, "confidence", 0.0), 4),
        "snippet": snippet(u.signature, u.docstring),
        **({"change": r.change.record()} if getattr(r, "change", None) is not None else {}),
    }


def file_record(f: Any) -> dict[str, Any]:
    """One file of ``ask --files`` as the ``--json`` contract spells it: the file and its best units."""
    return {
        "path": f.path,
        "language": f.language,
        "score": round(f.score, 6),
        "confidence": round(f.confidence, 4),
        "units": [result_record(r) for r in f.units],
    }


def ask_payload(query: str, indexed_commit: str | None, stale_paths: list[str], results: list[Any],
                pending_vectors: int = 0, notes: list[str] | None = None, match: str = "strong",
                files: list[Any] | None = None, since: Any = None) -> dict[str, Any]:
    """The ``ask --json`` object: ``query``, ``indexed_commit``, ``stale_paths``, ``pending_vectors``, ``notes``,
    ``match``, ``results`` (and ``files`` for ``ask --files``, ``since`` for ``ask --since``: the revision, the
    commits compared and the deleted units; each result then has its ``change``).

    ``pending_vectors``: texts still waiting for the background embedder; while
    it is above 0 their units are ranked by words and graph only. ``notes``:
    one-line remarks on coverage (an identifier defined nowhere, a language not parsed).
    ``match``: ``"strong"`` or ``"weak"`` (nothing in the index matches strongly;
    see :mod:`hookgraph.search.confidence`). ``files``: distinct files, best
    first, each with its best units; ``results`` are then those units in order.
    """
    payload = {
        "query": query,
        "indexed_commit": indexed_commit,
        "stale_paths": stale_paths,
        "pending_vectors": pending_vectors,
        "notes": list(notes or ()),
        "match": match,
        "results": [result_record(r) for r in results],
    }
    if files is not None:
        payload["files"] = [file_record(f) for f in files]
    if since is not None:
        payload["since"] = since.record()
    return payload


def explains_weak(notes: list[str] | None) -> bool:
    """Whether a note already says why nothing matches strongly ("no unit is named X"): then it is the one line."""
    return any(note.startswith("no unit is named") for note in notes or ())


def weak_line(results: list[Any]) -> str:
    """The one line plain output prints when nothing matches strongly (``match`` is ``"weak"``)."""
    if not results:
        return "nothing in the index matches this"
    best = max(r.confidence for r in results)
    return (f"no strong match in the index (best confidence {best:.2f}); "
            "the closest results follow, and may well be unrelated")


def pending_note(pending: int) -> str | None:
    """The one line ``ask`` prints on stderr while vectors are being embedded."""
    if pending <= 0:
        return None
    texts = f"{pending:,} text{'' if pending == 1 else 's'}"
    return (f"note: {texts} still waiting for vectors (`hookgraph status` shows progress); "
            "their units are ranked by words and graph until then")


def colour_wanted(stream: IO[str]) -> bool:
    """Colour only for a terminal, and never when ``NO_COLOR`` is set (to anything) or ``TERM=dumb``."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def path_from_here(root: Path) -> Callable[[str], str]:
    """How to print a stored path (relative to the root) for someone in the current directory.

    From a subfolder, ``ask`` prints paths relative to it (as git does), so
    that they open from where the user is; at the root, or outside the work
    tree, they are printed as stored. JSON keeps the stored paths (the contract).
    """
    try:
        here = Path.cwd().resolve()
        inside = here != root.resolve() and here.is_relative_to(root.resolve())
    except OSError:
        inside = False
    if not inside:
        return lambda path: path
    top = root.resolve()
    return lambda path: os.path.relpath(top / path, here)


def text_lines(results: list[Any], colour: bool, where: Callable[[str], str] = str) -> Iterator[str]:
    """The people's format: a header line per result and its snippet, indented."""
    import click

    from hookgraph.cli.common import terminal_safe
    from hookgraph.parse.compose import snippet

    def paint(text: str, **style: Any) -> str:
        return click.style(text, **style) if colour else text

    for r in results:
        u = r.unit
        yield (
            f"{paint(terminal_safe(where(u.path)), fg='magenta')}:{paint(f'{u.start_line}-{u.end_line}', fg='green')}"
            f"  {paint(terminal_safe(u.qualname), bold=True)}  {paint(f'({terminal_safe(u.kind)})', fg='cyan')}"
        )
        line = snippet(u.signature, u.docstring)
        if line:
            yield f"    {terminal_safe(line)}"
        if getattr(r, "change", None) is not None:
            yield f"    {paint(terminal_safe(change_line(r.change)), fg='yellow')}"


def change_line(change: Any) -> str:
    """``ask --since``'s line under an answer: its status, where it was, and the commits that changed it."""
    text = f"since: {change.status}"
    if change.from_path:  # a file unit has no lines of its own to name: "(was a.py)", never "a.py:None-None"
        lines = f":{change.from_start_line}-{change.from_end_line}" if change.from_start_line is not None else ""
        text += f" (was {change.from_path}{lines})"
    if change.commits is None:
        text += "; its commits cannot be followed (the index holds this file ahead of its commit)"
    elif change.commits:
        text += "; " + commits_text(change.commits)
    return text


def commits_text(commits: list[Any], most: int = 3) -> str:
    """``3 commits: 1a2b3c4d 2026-01-02 fix retry, ... and 1 more``."""
    from hookgraph.plural import count

    shown_commits = ", ".join(f"{c.sha[:8]} {c.date} {c.subject}" for c in commits[:most])
    more = f" and {len(commits) - most} more" if len(commits) > most else ""
    return f"{count(len(commits), 'commit')}: {shown_commits}{more}"


def deleted_lines(since: Any, where: Callable[[str], str] = str) -> Iterator[str]:
    """``ask --since``'s deleted definitions, after the answers: as they were at the revision."""
    from hookgraph.cli.common import terminal_safe

    if not since.deleted:
        return
    if getattr(since, "ancestor", True):
        yield f"deleted since {terminal_safe(since.rev)} ({since.commit[:8]}), as they were then:"
    else:  # another branch's revision: what it holds and this commit lacks need never have been here
        yield (f"in {terminal_safe(since.rev)} ({since.commit[:8]}) and not here ({terminal_safe(since.rev)} is not "
               "an ancestor of the indexed commit: the two trees are compared), as they are there:")
    for d in since.deleted:
        line = f"{where(d.path)}:{d.start_line}-{d.end_line}  {d.symbol}  ({d.kind})"
        if d.commits:
            line += "; " + commits_text(d.commits)
        yield f"  {terminal_safe(line)}"


def file_lines(files: list[Any], colour: bool, where: Callable[[str], str] = str) -> Iterator[str]:
    """``ask --files`` for people: a line per file, then its best units indented."""
    import click

    from hookgraph.cli.common import terminal_safe

    def paint(text: str, **style: Any) -> str:
        return click.style(text, **style) if colour else text

    for f in files:
        language = terminal_safe(f.language or "text")
        yield f"{paint(terminal_safe(where(f.path)), fg='magenta')}  {paint(f'({language})', fg='cyan')}"
        for r in f.units:
            u = r.unit
            yield (f"    {paint(f'{u.start_line}-{u.end_line}', fg='green')}  {paint(terminal_safe(u.qualname), bold=True)}"
                   f"  {paint(f'({terminal_safe(u.kind)})', fg='cyan')}")


def jsonl_lines(results: list[Any]) -> Iterator[str]:
    for r in results:
        yield json.dumps(result_record(r), ensure_ascii=False)


def vimgrep_lines(root: Path, results: list[Any]) -> Iterator[str]:
    """``path:line:col:symbol (kind) snippet`` per result; one line each, whatever the text holds."""
    from hookgraph.cli.common import terminal_safe
    from hookgraph.parse.compose import snippet

    columns = _NameColumns(root)
    where = path_from_here(root)
    for r in results:
        u = r.unit
        text = f"{u.qualname} ({u.kind})"
        line = snippet(u.signature, u.docstring)
        if line:
            text += f" {line}"
        yield f"{terminal_safe(where(u.path))}:{u.start_line}:{columns.column(u.path, u.start_line, u.name)}:{terminal_safe(text)}"


class _NameColumns:
    """The 1-based byte column of a name on a line of a working-tree file (1 when absent)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files: dict[str, list[bytes]] = {}

    def column(self, path: str, line: int, name: str) -> int:
        if path not in self.files:
            from hookgraph.git import read_worktree_file
            from hookgraph.parse.filters import DEFAULT_MAX_BYTES

            from hookgraph.git import split_lines

            self.files[path] = split_lines(read_worktree_file(self.root, path, DEFAULT_MAX_BYTES) or b"")
        lines = self.files[path]
        if not name or not 1 <= line <= len(lines):
            return 1
        at = lines[line - 1].find(name.encode("utf-8", "surrogateescape"))
        return at + 1 if at >= 0 else 1


def stale_line(stale_paths: list[str]) -> str:
    """``ask``'s note when the index is behind: how many paths changed, and the remedy."""
    from hookgraph.plural import count, verb

    n = len(stale_paths)
    return f"{count(n, 'path')} {verb(n, 'has', 'have')} changed since the last index (run `hookgraph index`)"


def pack_stale_note(stale_paths: list[str], indexed_commit: str | None, head: str | None) -> str | None:
    """The same note inside a context pack, where a reader may see nothing else: which paths, which commit.

    The pack's code is the indexed text, so the reader is told it may be
    older than the files and which commit it comes from.
    """
    if not stale_paths:
        return None
    behind = ""
    if indexed_commit and head and indexed_commit != head:
        behind = f"; the code below is as of commit {indexed_commit[:12]}, HEAD is {head[:12]}"
    elif not indexed_commit:  # staged or work-tree text, or a map no commit is known to hold: name none
        behind = "; the code below for those paths is not HEAD's, and no commit is known to hold it"
    return f"{stale_line(stale_paths)}: {listed_paths(stale_paths)}{behind}"


def listed_paths(paths: list[str], most: int = 3) -> str:
    """A few paths for a one-line note: ``a, b, c and 4 more``."""
    return ", ".join(paths[:most]) + (f" and {len(paths) - most} more" if len(paths) > most else "")


def print_results(
    fmt: str,
    query: str,
    indexed_commit: str | None,
    stale_paths: list[str],
    results: list[Any],
    root: Path,
    pending_vectors: int = 0,
    notes: list[str] | None = None,
    match: str = "strong",
    files: list[Any] | None = None,
    since: Any = None,
) -> None:
    """Print ``ask``'s answers in ``fmt`` (one of :data:`FORMATS`) to stdout; notes to stderr.

    ``files`` (``ask --files``): the files are what is printed (``jsonl``: one
    file object per line; ``vimgrep``: each file's best units).
    """
    import sys

    import click

    from hookgraph.cli.common import terminal_safe

    if fmt == "json":
        payload = ask_payload(query, indexed_commit, stale_paths, results, pending_vectors, notes, match, files, since)
        click.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    if match == "weak" and results and not explains_weak(notes):
        click.echo(f"hookgraph: {weak_line(results)}", err=True)
    for note in notes or ():
        click.echo(f"note: {terminal_safe(note)}", err=True)
    if stale_paths:
        click.echo(f"note: {stale_line(stale_paths)}", err=True)
    waiting = pending_note(pending_vectors)
    if waiting:
        click.echo(waiting, err=True)
    if fmt == "jsonl" and files is not None:
        lines: Iterator[str] = (json.dumps(file_record(f), ensure_ascii=False) for f in files)
    elif fmt == "jsonl":
        lines = jsonl_lines(results)
    elif fmt == "vimgrep":
        lines = vimgrep_lines(root, results)
    else:
        colour = colour_wanted(sys.stdout)
        where = path_from_here(root)
        for line in (file_lines(files, colour, where) if files is not None else text_lines(results, colour, where)):
            click.echo(line, color=colour)
        if since is not None:
            for line in deleted_lines(since, where):
                click.echo(line)
        return
    for line in lines:
        click.echo(line)
    if since is not None and fmt == "jsonl":  # the deleted units, one object each, after the answers
        for d in since.deleted:
            click.echo(json.dumps(d.record(), ensure_ascii=False))
