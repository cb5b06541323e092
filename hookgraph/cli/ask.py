"""``hookgraph ask``: ranked units or files for a question or an identifier, as text, JSON or a context pack."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from hookgraph.cli.common import (
    EXIT_NOTHING,
    UserError,
    one_line_errors,
    path_glob_problem,
    terminal_safe,
    terminal_safe_block,
    warn_if_no_merge_driver,
)
from hookgraph.cli.common import open_store as _open_store
from hookgraph.cli.common import repo_root_here as _root
from hookgraph.cli.query_args import QueryCommand


@click.command(cls=QueryCommand)
@click.argument("query")
@click.option("--top", "-k", default=10, show_default=True, type=click.IntRange(1, 1000), help="How many results.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (the documented contract).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "jsonl", "vimgrep"]), default=None,
              help="text (coloured on a terminal unless NO_COLOR is set), json (= --json), "
                   "jsonl (one result per line) or vimgrep (path:line:col:text).")
@click.option("--context", "context_tokens", type=click.IntRange(50, 2_000_000), default=None,
              help="Print the code that answers, packed to fit this many tokens (chars / 4): the --top best "
                   "files, each with its best unit, then whole code, class headers and callees as room allows.")
@click.option("--path", "path_glob", default=None, help="Only paths matching this glob or under this folder.")
@click.option("--lang", "language", default=None, help="Only this language (python, go, rust, ...).")
@click.option("--kind", "kind_names", default=None, metavar="KIND[,KIND]",
              help="Only units of these kinds (function, method, class, type, file, section, ...) or groups "
                   "(test, doc, config).")
@click.option("--since", "since_rev", default=None, metavar="REV",
              help="Show for each answer whether it changed since REV (added, changed, moved) and the commits "
                   "that changed it, and the definitions deleted since.")
@click.option("--no-semantic", is_flag=True, help="Skip the embedding model (lexical and graph only).")
@click.option("--files", "as_files", is_flag=True,
              help="Distinct files, best first, each with its best units (for design and module questions).")
@one_line_errors
def ask(query: str, top: int, as_json: bool, fmt: str | None, context_tokens: int | None, path_glob: str | None,
        language: str | None, no_semantic: bool, as_files: bool, kind_names: str | None,
        since_rev: str | None) -> None:
    """Ranked answers to a question or an identifier.

    Exits 1 when nothing matches strongly ("match": "weak" in --json; one
    line on stderr otherwise), as when nothing matches at all.

    A query that starts with "-" goes after "--", options before it:
    `hookgraph ask --json -- -refund`. One that holds a space needs nothing:
    `hookgraph ask "-x flag handling"`.
    """
    from hookgraph.cli.coverage import ask_notes, graph_note
    from hookgraph.cli.output import explains_weak, print_results, weak_line
    from hookgraph.search import answer_match, search, search_files
    from hookgraph.sync import freshness

    if as_json and fmt not in (None, "json"):
        raise UserError(f"--json and --format {fmt} disagree: use one of them")
    if as_files and context_tokens is not None:
        raise UserError("--files and --context disagree: --context packs units' code, --files lists files; use one")
    if not query.strip():
        raise UserError("the query is empty: ask a question or name an identifier")
    if not any(ch.isalnum() for ch in query):  # nothing a word index or the model could look for
        raise UserError(f"the query {query!r} has no letters or digits, so nothing can match it: ask a question "
                        "or name an identifier")
    if language is not None:
        if not language.strip():
            raise UserError("--lang '' is empty: name a language (python, go, rust, ...) or leave --lang out")
        _check_language(language)
    kinds = _kinds(kind_names) if kind_names is not None else None
    if since_rev is not None:
        if as_files or context_tokens is not None or fmt == "vimgrep":
            used = "--files" if as_files else "--context" if context_tokens is not None else "--format vimgrep"
            raise UserError(f"--since and {used} disagree: --since adds each answer's changes to the text, json "
                            "and jsonl formats; leave one out")
        if not since_rev.strip():
            raise UserError("--since '' is empty: give a tag, a branch, a commit or HEAD~N, or leave --since out")
    root = _root()
    if path_glob is not None:
        path_glob = _path_from_here(root, path_glob)
    with _open_store(root) as store:
        warn_if_no_merge_driver(root)  # after opening: an unusable index is the news, this comes second
        embedder, model_note = (None, None) if no_semantic else _embedder_for(store, root)
        files = None
        if as_files or context_tokens is not None:  # a pack's files are --files's ranking
            files = search_files(store, query, top=top, embedder=embedder, path_glob=path_glob, language=language,
                                 kinds=kinds)
            results = [r for f in files for r in f.units]
            match = answer_match(files)
        else:
            results = search(store, query, top=top, embedder=embedder, path_glob=path_glob, language=language,
                             kinds=kinds)
            match = answer_match(results)
        fresh = freshness.against_head(root, store)
        pending = store.pending_count()
        since = None
        if since_rev is not None:
            since = _changes_since(root, store, since_rev, results, query, fresh.indexed_commit or fresh.head)
        if not results and path_glob and not _any_path_matches(store, path_glob):
            click.echo(f"hookgraph: no indexed path matches --path {terminal_safe(path_glob)!r}", err=True)
        notes = ask_notes(store, query)
        if model_note:
            notes.insert(0, model_note)
        parser_note = freshness.older_parser_note(store)
        if parser_note:
            notes.append(parser_note)
        no_links = graph_note(query, results)
        if no_links:
            notes.append(no_links)
        if since is not None and not since.ancestor:
            notes.append(f"--since {since_rev} is not an ancestor of the indexed commit (another branch?): each "
                         "status compares the two trees, and what it lists as gone may never have been on this "
                         "history")
        if context_tokens is not None:
            from hookgraph.cli.output import pack_stale_note, stale_line
            from hookgraph.search.pack import build_pack

            # The stale note goes in the pack too: an agent may read only the pack.
            in_pack = pack_stale_note(fresh.stale_paths, fresh.indexed_commit, fresh.head)
            pack = build_pack(root, store, results, context_tokens, notes=[in_pack] if in_pack else [])
            if match == "weak" and results and not explains_weak(notes):
                click.echo(f"hookgraph: {weak_line(results)}", err=True)
            for note in notes:
                click.echo(f"note: {terminal_safe(note)}", err=True)
            if fresh.stale_paths:
                click.echo(f"note: {stale_line(fresh.stale_paths)}", err=True)
            for line in pack.left_out:
                click.echo(f"note: {terminal_safe(line)}", err=True)
            if not pack.pieces:
                sys.exit(EXIT_NOTHING)
            for piece in pack.pieces:  # a header line must stay one line
                piece.path, piece.symbol = terminal_safe(piece.path), terminal_safe(piece.symbol)
            click.echo(terminal_safe_block(pack.render()))
            if match == "weak":
                sys.exit(EXIT_NOTHING)
            return
    fmt = "json" if as_json else fmt or "text"
    print_results(fmt, query, fresh.indexed_commit, fresh.stale_paths, results, root, pending, notes, match, files,
                  since)
    if not results or match == "weak":
        sys.exit(EXIT_NOTHING)


def _any_path_matches(store: Any, path_glob: str) -> bool:
    """Whether any indexed file matches ``--path`` as search matches it (glob, or folder prefix)."""
    import fnmatch

    prefix = path_glob.rstrip("/") + "/"
    return any(fnmatch.fnmatch(p, path_glob) or p.startswith(prefix) for p in store.file_map())


def _path_from_here(root: Path, path_glob: str) -> str | None:
    """``--path`` as the index stores paths (relative to the root), read relative to the current directory.

    ``ask --path .`` from ``src/`` means ``src``, as for git. An empty value
    is a usage error, not "no filter" (a script's unset variable).
    """
    import posixpath

    if not path_glob.strip():
        raise UserError("--path '' is empty: give a folder (src/) or a glob ('*.py'), or leave --path out")
    problem = path_glob_problem(path_glob) if path_glob.startswith("/") else None
    try:
        here = Path.cwd().resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        here = "."
    joined = posixpath.normpath(posixpath.join(here, path_glob.replace("\\", "/")))
    if problem or joined == ".." or joined.startswith("../"):
        if here == ".":  # at the root, as before: relative to the root, never leaving it
            problem = problem or path_glob_problem(path_glob)
        raise UserError(problem or f"--path {path_glob!r} leaves the repository: paths are read from the current "
                        "directory and stay inside the repository")
    keep_slash = "/" if path_glob.endswith("/") and joined != "." else ""
    return None if joined == "." else joined + keep_slash


def _changes_since(root: Path, store: Any, rev: str, results: list[Any], query: str, until: str | None) -> Any:
    """``--since``: each result's change (set on the result) and the report; a revision that names no commit
    is a usage error."""
    from hookgraph.search.result import query_words
    from hookgraph.search.since import changes_since

    report = changes_since(root, store, rev, results, query_words(query), until)  # SinceError: one line, exit 2
    for r in results:
        r.change = report.changes.get(r.unit.id)
    return report


def _kinds(kind_names: str) -> Any:
    """``--kind`` read into the search's filter; a name that is no kind is a usage error listing the known ones."""
    from hookgraph.search.kinds import read_kinds

    return read_kinds(kind_names)  # KindError: one line, exit 2 (one_line_errors)


def _check_language(language: str) -> None:
    from hookgraph.parse.languages import REGISTRY

    if language not in REGISTRY:
        known = ", ".join(sorted(REGISTRY))
        raise UserError(f"unknown language {language!r}: use one of {known}")


def _embedder_for(store: Any, root: Path) -> tuple[Any, str | None]:
    """``(embedder, note)``: the configured embedder if it matches the store's; refuse one that would mix vectors.

    None when nothing is embedded or waiting (a store without units). When the configured model cannot be
    used here (a teammate's model switch merged, its GGUF not on this machine), the answer still comes, by
    words and graph, with one note naming the file and the remedy: the question is not the model's to block.
    """
    from hookgraph.embed import EmbedderError
    from hookgraph.embed.choice import embedder_for_repo, store_mismatch
    from hookgraph.sync.freshness import unusable_model_line

    if not store.has_vector_table() and not store.pending_count():
        return None, None
    try:
        embedder = embedder_for_repo(root)
        problem = store_mismatch(store.get_meta, embedder)
    except EmbedderError as exc:
        return None, unusable_model_line(root, str(exc))
    if problem:
        from hookgraph.sync.teammate_model import explain_mismatch

        raise UserError(explain_mismatch(root, problem, embedder.recipe))
    return embedder, None


def register(cli: click.Group) -> None:
    """Add ``ask`` to the ``hookgraph`` group."""
    cli.add_command(ask)
