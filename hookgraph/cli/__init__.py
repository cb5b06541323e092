"""The ``hookgraph`` command line: parse options, call one function, print.

Exit codes (a contract, DESIGN.md section 2): 0 ok, 1 no results or a check
failed, 2 usage or input error. Every error is one line on stderr, never a
traceback (set ``HOOKGRAPH_DEBUG=1`` to see one).
"""

from __future__ import annotations

import os
import signal
import sys


def _interrupted_while_starting(signum: int, frame: object) -> None:
    """Ctrl-C while Python is still importing hookgraph: nothing is open yet, nothing to undo."""
    os.write(2, b"hookgraph: interrupted\n")
    os._exit(130)


# Run as a program (``python -m hookgraph.cli`` or the console script), Ctrl-C
# during the imports below would print Python's traceback; each command hands SIGINT
# back to KeyboardInterrupt as it starts (_Command.invoke), when it can unwind cleanly.
# (``python -m hookgraph.cli`` imports this package while argv[0] is still "-m".)
if (__name__ == "__main__" or sys.argv[0] == "-m" or os.path.basename(sys.argv[0] or "") == "hookgraph") and (
    signal.getsignal(signal.SIGINT) is signal.default_int_handler
):
    signal.signal(signal.SIGINT, _interrupted_while_starting)

import json  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import click  # noqa: E402

from hookgraph import __version__  # noqa: E402
from hookgraph.cli.common import (  # noqa: E402
    EXIT_NOTHING,
    EXIT_OK,
    EXIT_USAGE,
    UserError,
    crash_guarded,
    friendly,
    path_glob_problem,
    shown,
    shown_block,
)
from hookgraph.cli.common import open_store as _open_store  # noqa: E402
from hookgraph.cli.common import repo_root_here as _root  # noqa: E402


def _ctrl_c_unwinds() -> bool:
    """From a command's start on, Ctrl-C raises KeyboardInterrupt: transactions roll back, one line is printed.

    Returns whether the start-up handler was in place (we run as the program).
    """
    if signal.getsignal(signal.SIGINT) is _interrupted_while_starting:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        return True
    return False


class _Command(click.Command):
    def invoke(self, ctx: click.Context) -> Any:
        as_program = _ctrl_c_unwinds()  # until here (imports, parsing) the start-up handler exits at once
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:  # outside a command's own handling (its last lines): one line,
            click.echo("hookgraph: interrupted", err=True)  # not click's blank line and "Aborted!"
            sys.exit(130)
        finally:
            if as_program:  # the command is done: nothing left to undo, and click's own
                signal.signal(signal.SIGINT, _interrupted_while_starting)  # handler would print a blank line


class _Group(click.Group):
    command_class = _Command
    group_class = type  # subgroups (``hookgraph model``) are _Groups too


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hookgraph")
def cli() -> None:
    """A local, always-fresh semantic map of this git repository's code."""


@cli.command()
@click.option("--full", is_flag=True, help="Rebuild from scratch instead of syncing the difference.")
@click.option("--worktree", is_flag=True, help="Index the working tree (uncommitted edits) instead of HEAD.")
@click.option("--reembed", is_flag=True,
              help="Re-embed everything with the configured model (after `hookgraph model use`), in one transaction.")
@click.option("--embed-url", default=None, metavar="URL",
              help="Embed on a llama.cpp server serving the same GGUF (default: [embed] url in config).")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing when it worked.")
@click.option("--wait/--no-wait", "wait", default=None,
              help="Embed every waiting text before returning, with a progress bar on a terminal (--wait), or "
                   "leave them to the background embedder (--no-wait, the default).")
@crash_guarded
@friendly
def index(full: bool, worktree: bool, reembed: bool, embed_url: str | None, quiet: bool, wait: bool | None) -> None:
    """Sync .hookgraph/index.db with HEAD (or the working tree).

    Text and graph are written at once (`ask` works as soon as this returns);
    new texts are embedded afterwards, in the background or, with --wait, here.
    """
    from hookgraph import git
    from hookgraph.embed.choice import embedder_for_repo
    from hookgraph.sync import read_target, sync

    root = _root()
    if not worktree and git.head_commit(root) is None:
        raise UserError(f"{root} has no commits yet: commit something first, or use `hookgraph index --worktree`")
    target = read_target(root, "worktree" if worktree else "head")
    embedder = embedder_for_repo(root, embed_url=embed_url, use_remote=True)
    terminal = sys.stderr.isatty() and not quiet
    verify = getattr(embedder, "verify", None)  # a llama.cpp server (RemoteEmbedder)
    # The model never holds up the main job unless asked (issue 33): text and graph are in when this
    # returns, on a terminal too. A server embeds only for the command that names it: drained here, through it.
    foreground = wait if wait is not None else verify is not None
    if verify is not None and foreground:
        verify()  # an unreachable or different server: one line, before anything is written
    report = sync(root, target, full=full, reembed=reembed, embedder=embedder,
                  progress=_progress_bar if terminal else None, background=not foreground)
    for warning in report.warnings:
        click.echo(f"hookgraph: warning: {shown(warning)}", err=True)
    if target.untracked_left_out:
        from hookgraph.sync.target import untracked_left_out_line

        click.echo(f"hookgraph: note: {untracked_left_out_line(target.untracked_left_out, 'indexed')}", err=True)
    if not quiet:
        click.echo(report.summary("now" if foreground else None))
    if foreground and report.pending:
        from hookgraph.cli.embedding import embed_in_foreground

        done = embed_in_foreground(root, embedder, report.pending, bar=terminal, quiet=quiet)
        if not quiet and done is not None:
            line = f"embedded {done.embedded:,} texts"
            if done.from_cache:
                line += f" ({done.from_cache:,} more from the cache)"
            line += f" in {done.seconds:.1f}s"
            if done.rate:
                line += f" ({done.rate:.1f} texts/s)"
            cosine = getattr(embedder, "probe_cosine", None)
            if cosine is not None:
                line += f" (embedded by {embedder.source}, probe cosine {cosine:.6f})"
            click.echo(line)


class _ClickProgress:
    def __init__(self, total: int) -> None:
        self.bar = click.progressbar(length=total, label="parsing", file=sys.stderr)
        self.bar.__enter__()

    def advance(self, n: int = 1) -> None:
        self.bar.update(n)

    def close(self) -> None:
        self.bar.__exit__(None, None, None)


def _progress_bar(total: int) -> Any:
    return _ClickProgress(total) if total >= 20 else None


@cli.command()
@click.argument("query")
@click.option("--top", "-k", default=10, show_default=True, type=click.IntRange(1, 1000), help="How many results.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (the documented contract).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "jsonl", "vimgrep"]), default=None,
              help="text (coloured on a terminal unless NO_COLOR is set), json (= --json), "
                   "jsonl (one result per line) or vimgrep (path:line:col:text).")
@click.option("--context", "context_tokens", type=click.IntRange(50, 2_000_000), default=None,
              help="Print the best units' code packed to fit this many tokens.")
@click.option("--path", "path_glob", default=None, help="Only paths matching this glob or under this folder.")
@click.option("--lang", "language", default=None, help="Only this language (python, go, rust, ...).")
@click.option("--no-semantic", is_flag=True, help="Skip the embedding model (lexical and graph only).")
@click.option("--files", "as_files", is_flag=True,
              help="Distinct files, best first, each with its best units (for design and module questions).")
@friendly
def ask(query: str, top: int, as_json: bool, fmt: str | None, context_tokens: int | None, path_glob: str | None,
        language: str | None, no_semantic: bool, as_files: bool) -> None:
    """Ranked answers to a question or an identifier.

    Exits 1 when nothing matches strongly ("match": "weak" in --json; one
    line on stderr otherwise), as when nothing matches at all.
    """
    from hookgraph.sync import freshness
    from hookgraph.cli.coverage import ask_notes, graph_note
    from hookgraph.cli.output import explains_weak, print_results, weak_line
    from hookgraph.search import answer_match, search, search_files

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
    root = _root()
    if path_glob is not None:
        path_glob = _path_from_here(root, path_glob)
    with _open_store(root) as store:
        _warn_if_no_merge_driver(root)  # after opening: an unusable index is the news, this comes second
        embedder = None if no_semantic else _embedder_for(store, root)
        files = None
        if as_files:
            files = search_files(store, query, top=top, embedder=embedder, path_glob=path_glob, language=language)
            results = [r for f in files for r in f.units]
            match = answer_match(files, query)
        else:
            results = search(store, query, top=top, embedder=embedder, path_glob=path_glob, language=language)
            match = answer_match(results, query)
        fresh = freshness.against_head(root, store)
        pending = store.pending_count()
        if not results and path_glob and not _any_path_matches(store, path_glob):
            click.echo(f"hookgraph: no indexed path matches --path {shown(path_glob)!r}", err=True)
        notes = ask_notes(store, query)
        parser_note = freshness.older_parser_note(store)
        if parser_note:
            notes.append(parser_note)
        no_links = graph_note(query, results)
        if no_links:
            notes.append(no_links)
        if context_tokens is not None:
            from hookgraph.cli.output import pack_stale_note, stale_line
            from hookgraph.search.pack import build_pack

            # The stale note goes in the pack too: an agent may read only the pack.
            in_pack = pack_stale_note(fresh.stale_paths, fresh.indexed_commit, fresh.head)
            pack = build_pack(root, store, results, context_tokens, notes=[in_pack] if in_pack else [])
            if match == "weak" and results and not explains_weak(notes):
                click.echo(f"hookgraph: {weak_line(results)}", err=True)
            for note in notes:
                click.echo(f"note: {shown(note)}", err=True)
            if fresh.stale_paths:
                click.echo(f"note: {stale_line(fresh.stale_paths)}", err=True)
            for line in pack.left_out:
                click.echo(f"note: {shown(line)}", err=True)
            if not pack.pieces:
                sys.exit(EXIT_NOTHING)
            for piece in pack.pieces:  # a header line must stay one line
                piece.path, piece.symbol = shown(piece.path), shown(piece.symbol)
            click.echo(shown_block(pack.render()))
            if match == "weak":
                sys.exit(EXIT_NOTHING)
            return
    fmt = "json" if as_json else fmt or "text"
    print_results(fmt, query, fresh.indexed_commit, fresh.stale_paths, results, root, pending, notes, match, files)
    if not results or match == "weak":
        sys.exit(EXIT_NOTHING)


def _warn_if_no_merge_driver(root: Path) -> None:
    """Shared mode in a clone that never ran `hookgraph install`: say so before its first merge conflicts."""
    from hookgraph.sync.shared import missing_driver_line

    line = missing_driver_line(root)
    if line:
        click.echo(f"hookgraph: warning: {line}", err=True)


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


def _check_language(language: str) -> None:
    from hookgraph.parse.languages import REGISTRY

    if language not in REGISTRY:
        known = ", ".join(sorted(REGISTRY))
        raise UserError(f"unknown language {language!r}: use one of {known}")


def _embedder_for(store: Any, root: Path | None = None) -> Any:
    """The configured embedder if it matches the store's; refuse one that would mix vectors.

    None when nothing is embedded or waiting (a store without units).
    """
    from hookgraph.embed.choice import embedder_for_repo, store_mismatch

    if not store.has_vector_table() and not store.pending_count():
        return None
    embedder = embedder_for_repo(root)
    problem = store_mismatch(store.get_meta, embedder)
    if problem:
        from hookgraph.sync.shared import explain_mismatch

        raise UserError(explain_mismatch(root, problem, embedder.recipe))
    return embedder


#: Candidates named per ambiguous call in ``callers``/``callees`` output; the count says how many there are.
_CANDIDATES_SHOWN = 5


def _where(unit: Any) -> str:
    return f"{unit.qualname} {unit.path}:{unit.start_line}"


def _print_links(links: list[Any], as_json: bool, direction: str, symbol: str = "") -> None:
    """One line (or JSON object) per call; a call whose receiver's type is unknown says so and names
    what it may run, so nobody reads a guess as an edge."""
    if as_json:
        click.echo(json.dumps([
            {
                "symbol": link.unit.qualname if link.unit else link.name,
                "path": link.unit.path if link.unit else None,
                "start_line": link.unit.start_line if link.unit else None,
                "end_line": link.unit.end_line if link.unit else None,
                "kind": link.unit.kind if link.unit else None,
                "call_path": link.call_path,
                "call_line": link.call_line,
                "expression": link.expression,
                "resolution": link.resolution,
                "candidates": [_where(u) for u in link.maybe],
            }
            for link in links
        ], indent=2))
    else:
        for link in links:
            if link.maybe and link.unit is None:  # a callee of unknown receiver
                names = ", ".join(_where(u) for u in link.maybe[:_CANDIDATES_SHOWN])
                more = f" and {len(link.maybe) - _CANDIDATES_SHOWN} more" if len(link.maybe) > _CANDIDATES_SHOWN else ""
                target = f"? {link.name}  (receiver type unknown; may be one of {len(link.maybe)}: {names}{more})"
            elif link.maybe:  # a possible caller
                target = f"{link.unit.qualname} {link.unit.path}:{link.unit.start_line}  (maybe: receiver type unknown)"
            elif link.unit is not None:
                target = f"{link.unit.qualname}  {link.unit.path}:{link.unit.start_line}"
            else:
                target = f"{link.name}  (not in this repository)"
            click.echo(shown(f"{link.call_path}:{link.call_line}  {direction} {link.expression}  -> {target}"))
    if not links:
        if not as_json:  # a silent exit 1 looked like a failure; say what was found: nothing
            click.echo(f"hookgraph: {_no_links_line(symbol, direction)}", err=True)
        sys.exit(EXIT_NOTHING)


def _no_links_line(symbol: str, direction: str) -> str:
    if direction == "calls":
        return f"{shown(symbol)} calls nothing (no call in its body)"
    return (f"nothing in the index calls {shown(symbol)} (dynamic calls, callbacks and other repositories are "
            "not seen)")


@cli.command()
@click.argument("symbol")
@click.option("--json", "as_json", is_flag=True)
@click.option("--all", "show_all", is_flag=True,
              help="Also list calls that may reach SYMBOL: same name, receiver of unknown type (not facts).")
@friendly
def callers(symbol: str, as_json: bool, show_all: bool) -> None:
    """Units that call SYMBOL (a name or Class.method)."""
    from hookgraph.search.graph import callers as find_callers
    from hookgraph.search.graph import possible_callers

    with _open_store(_root()) as store:
        links = find_callers(store, symbol)
        maybe = possible_callers(store, symbol)
    if show_all:
        links = links + maybe
    elif maybe:
        click.echo(f"hookgraph: {len(maybe)} more call(s) of {maybe[0].name} on receivers of unknown type "
                   "may reach it; `--all` lists them", err=True)
    _print_links(links, as_json, "called as", symbol)


@cli.command()
@click.argument("symbol")
@click.option("--json", "as_json", is_flag=True)
@friendly
def callees(symbol: str, as_json: bool) -> None:
    """What SYMBOL calls, resolved to this repository's definitions where the code shows the receiver."""
    from hookgraph.search.graph import callees as find_callees

    with _open_store(_root()) as store:
        links = find_callees(store, symbol)
    _print_links(links, as_json, "calls", symbol)


@cli.command()
@click.option("--json", "as_json", is_flag=True)
@friendly
def status(as_json: bool) -> None:
    """Indexed commit, counts, model, and files stale against HEAD, the index and the working tree."""
    from hookgraph.embed import no_embed, worker
    from hookgraph.embed.queue import progress_of
    from hookgraph.cli.coverage import coverage_lines, language_coverage
    from hookgraph.sync import freshness

    root = _root()
    rule = no_embed.load_rule(root)
    with _open_store(root) as store:
        _warn_if_no_merge_driver(root)  # after opening: an unusable index is the news, this comes second
        parser_note = freshness.older_parser_note(store)
        fresh = freshness.against_head(root, store)
        queue = progress_of(store)
        stalled = worker.stall(root)
        coverage = language_coverage(store)
        info = {
            "database": str(store.path.relative_to(root)),
            "indexed_commit": fresh.indexed_commit,
            "head": fresh.head,
            "fresh": fresh.fresh,
            "stale_vs_head": fresh.stale_paths,
            "stale_vs_index": freshness.against_index(root, store),
            "stale_vs_worktree": freshness.against_worktree(root, store),
            "model": {
                "name": store.get_meta("model_name"),
                "file": store.get_meta("model_file"),
                "sha256": store.get_meta("model_sha256"),
                "dims": int(store.get_meta("dims") or 0) or None,
                "query_prefix": store.get_meta("query_prefix"),
                "document_prefix": store.get_meta("document_prefix"),
                "window_tokens": int(store.get_meta("max_tokens") or 0) or None,
            },
            **store.counts(),
            "pending_vectors": queue.pending,
            "not_embedded": no_embed.not_embedded(store, rule),
            "no_embed_rule_applied": no_embed.rule_applied(store, rule),
            "embedder": {  # a stalled one (stopped, hung) is not "running", and its old rate says nothing
                "running": stalled is None and worker.running(root),
                "stalled": None if stalled is None else {
                    "pid": stalled.pid, "quiet_seconds": round(stalled.quiet_seconds, 1),
                    "message": stalled.describe()},
                "rate": None if queue.rate is None or stalled else round(queue.rate, 2),
                "eta_seconds": None if queue.eta_seconds is None or stalled else round(queue.eta_seconds, 1),
                "last_update": queue.updated,
                "last_error": worker.last_error(root),
                "cannot_start": worker.cannot_start(root),
            },
            "languages": [c.as_json() for c in coverage],
            "parsed_by_this_version": parser_note is None,
            "bytes": store.path.stat().st_size,
            "vector_sources_refused": _refused_sources(root, store),
        }
    if as_json:
        click.echo(json.dumps(info, indent=2))
        return
    click.echo(f"index:     {info['database']} ({info['bytes'] / 1e6:.1f} MB)")
    click.echo(f"commit:    {info['indexed_commit'] or '(none)'}" + ("  (fresh: HEAD)" if fresh.fresh else "  (not HEAD)"))
    stale = info["stale_vs_head"] or info["stale_vs_index"] or info["stale_vs_worktree"]
    click.echo("fresh:     " + ("yes: the index matches HEAD, the git index and the working tree" if fresh.fresh
                                and not stale else "no: see the stale lines below (`hookgraph index` syncs HEAD)"))
    model = info["model"]
    if model["name"]:
        click.echo(shown(f"model:     {model['name']} ({model['dims']} dims, sha256 {str(model['sha256'])[:16]})"))
    else:
        click.echo("model:     none yet (the first index records it)")
    files = info["files"]
    indexed = sum(n for s, n in files.items() if s.startswith("indexed"))
    skipped = {s.split(":", 1)[1]: n for s, n in files.items() if s.startswith("skipped:")}
    by_fallback = files.get("indexed:fallback", 0)
    click.echo(f"files:     {indexed} indexed" + (f" ({by_fallback} by fallback)" if by_fallback else "")
               + "".join(f", {n} {r}" for r, n in sorted(skipped.items())))
    lines = coverage_lines(coverage)
    for i, line in enumerate(lines):
        click.echo(("languages: " if i == 0 else "           ") + shown(line))
    units = info["units"]
    click.echo(f"units:     {sum(units.values())}" + (" (" + ", ".join(f"{n} {k}" for k, n in sorted(units.items())) + ")"
                                                     if units else ""))
    from hookgraph.plural import count

    click.echo(f"vectors:   {count(info['vectors'], 'distinct text')}; "
               f"{count(info['units_without_vector'], 'unit')} without a vector; "
               f"{info['split_units']} split into windows; {info['truncated_units']} cut after their last window")
    click.echo(f"embedding: {_queue_line(info)}")
    click.echo(f"no-embed:  {_no_embed_line(info)}")
    click.echo("edges:     " + (", ".join(f"{n} {k}" for k, n in sorted(info["edges"].items())) or "0"))
    for label, key in (("HEAD", "stale_vs_head"), ("index", "stale_vs_index"), ("worktree", "stale_vs_worktree")):
        paths = info[key]
        if paths:
            listed = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
            click.echo(f"stale vs {label}: {shown(listed)}")
    if parser_note:
        click.echo(f"parser:    {parser_note}")
    for line in info["vector_sources_refused"]:
        click.echo(f"refused:   {shown(line)}")


def _refused_sources(root: Path, store: Any) -> list[str]:
    """Snapshots and caches whose vectors were refused (last check), and caches that cannot be used now."""
    from hookgraph.store.vector_cache import repo_cache, user_cache
    from hookgraph.sync.adopt import rejected_sources, unusable_caches

    caches = [c for c in (repo_cache(root), user_cache(root)) if c is not None and c.max_bytes > 0]
    gone = {f"the vector cache {c.path}" for c in caches if not c.path.exists()}  # deleted since: nothing to say
    lines = [line for label, line in rejected_sources(store).items() if label not in gone]
    lines += [line for line in unusable_caches(caches) if line not in lines]
    for cache in caches:
        cache.close()
    return lines


def _queue_line(info: dict[str, Any]) -> str:
    """``status``'s line about the background embedder: done, waiting, pace and time left."""
    pending = info["pending_vectors"]
    embedder = info["embedder"]
    if not pending:
        return "complete (no text waiting for a vector)"
    text = f"{pending:,} text{'' if pending == 1 else 's'} waiting ({info['pending_units']:,} units)"
    if embedder["rate"]:
        text += f", {embedder['rate']:.1f} texts/s"
    if embedder["eta_seconds"] is not None:
        from hookgraph.cli.embedding import duration

        text += f", about {duration(embedder['eta_seconds'])} left"
    if embedder["stalled"]:
        text += f"; stalled: {embedder['stalled']['message']}"
    elif embedder["running"]:
        text += "; the background embedder is running"
    elif embedder["cannot_start"]:
        text += f"; {embedder['cannot_start']}"
    else:
        text += "; no embedder running (the next hookgraph command starts one, or run `hookgraph index --wait`)"
        if embedder["last_error"]:
            text += f"; last failure: {embedder['last_error']}"
    return shown(text)


def _no_embed_line(info: dict[str, Any]) -> str:
    """``status``'s line about the units the no-embed rule keeps from the model, and why."""
    from hookgraph.plural import count

    reasons = info["not_embedded"]
    text = (f"{count(sum(reasons.values()), 'unit')} never embedded (found by words and graph): "
            + ", ".join(f"{n:,} {r}" for r, n in reasons.items())) if reasons else "every unit is embedded"
    text += "; [no_embed] in .hookgraph/config.toml sets the rule"
    if not info["no_embed_rule_applied"]:
        text += "; the rule changed since the last sync, the next one applies it"
    return text


def _register_extra_commands() -> None:
    """Commands that live in their own modules (one module per command family)."""
    from importlib import import_module

    for name in ("hookgraph.cli.hooks", "hookgraph.cli.model", "hookgraph.cli.graph", "hookgraph.cli.mcp"):
        try:
            module = import_module(name)
        except ImportError:  # pragma: no cover - present in every release
            continue
        module.register(cli)
    from hookgraph.cli.help_texts import apply

    apply(cli)


_register_extra_commands()


def _arguments() -> list[str]:
    """The command line as storable text: bytes that are not UTF-8 (``ask $'\\xff'``) arrive as
    lone surrogates, which neither SQLite nor the tokenizer accept; they become ``\\xNN``,
    as in stored file names (:func:`hookgraph.git.path_key`), so ``--path`` still matches those."""
    from hookgraph.git import path_key

    return [path_key(arg) for arg in sys.argv[1:]]


def main() -> None:
    """Console entry point: click's usage errors exit 2 with one line, as ours do."""
    try:
        cli.main(args=_arguments(), standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as exc:
        click.echo(exc.ctx.get_help() if exc.ctx else "usage: hookgraph COMMAND")
        sys.exit(EXIT_OK)
    except BrokenPipeError:
        # `hookgraph ask ... | head`: the reader left; that is not an error.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(EXIT_OK)
    except click.exceptions.Abort:
        click.echo("hookgraph: interrupted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        message = exc.format_message()
        if isinstance(exc, click.UsageError) and exc.ctx is not None:
            message += f" (see `{exc.ctx.command_path} --help`)"
        click.echo(f"hookgraph: {message}", err=True)
        sys.exit(exc.exit_code if isinstance(exc, UserError) else EXIT_USAGE)
    except SystemExit:
        raise
    except KeyboardInterrupt:
        click.echo("hookgraph: interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":  # pragma: no cover
    main()
