"""``hookgraph status``: what the index holds, how fresh it is, what waits for the model and what never will."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from hookgraph.cli.common import one_line_errors, terminal_safe, warn_if_no_merge_driver
from hookgraph.cli.common import open_store as _open_store
from hookgraph.cli.common import repo_root_here as _root
from hookgraph.cli.group import Command


@click.command(cls=Command)
@click.option("--json", "as_json", is_flag=True)
@one_line_errors
def status(as_json: bool) -> None:
    """Indexed commit, counts, model, and files stale against HEAD, the index and the working tree."""
    from hookgraph.cli.coverage import coverage_lines, language_coverage
    from hookgraph.embed import no_embed, worker
    from hookgraph.embed.queue import progress_of
    from hookgraph.sync import freshness
    from hookgraph.sync.target import read_target

    root = _root()
    rule = no_embed.load_rule(root)
    with _open_store(root) as store:
        warn_if_no_merge_driver(root)  # after opening: an unusable index is the news, this comes second
        parser_note = freshness.older_parser_note(store)
        fresh = freshness.against_head(root, store)
        model_problem = freshness.model_problem(root, store)
        worktree = read_target(root, "worktree")
        queue = progress_of(store)
        stalled = worker.stall(root)
        coverage = language_coverage(store)
        info = {
            "database": str(store.path.relative_to(root)),
            "indexed_commit": fresh.indexed_commit,
            "head": fresh.head,
            "fresh": fresh.fresh and model_problem is None,
            "model_problem": model_problem,
            "stale_vs_head": fresh.stale_paths,
            "stale_vs_index": freshness.against_index(root, store),
            "stale_vs_worktree": freshness.diff_maps(store.file_map(), worktree.entries),
            "unreadable": worktree.unreadable,
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
            "adopted_vectors": _adopted(store),
            "not_embedded": no_embed.not_embedded(store, rule),
            "kinds": _kinds(store, rule),
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
            "bytes": _index_bytes(store),
            "vector_sources_refused": _refused_sources(root, store),
        }
    if as_json:
        click.echo(json.dumps(info, indent=2))
        return
    click.echo(f"index:     {info['database']} ({info['bytes'] / 1e6:.1f} MB)")
    click.echo(f"commit:    {info['indexed_commit'] or '(none)'}" + ("  (fresh: HEAD)" if fresh.fresh else "  (not HEAD)"))
    stale = info["stale_vs_head"] or info["stale_vs_index"] or info["stale_vs_worktree"]
    if model_problem:
        click.echo(f"fresh:     no: {terminal_safe(model_problem)}")
    else:
        click.echo("fresh:     " + _fresh_line(fresh.fresh, bool(info["stale_vs_head"]), bool(stale)))
    model = info["model"]
    if model["name"]:
        click.echo(terminal_safe(f"model:     {model['name']} ({model['dims']} dims, sha256 {str(model['sha256'])[:16]})"))
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
        click.echo(("languages: " if i == 0 else "           ") + terminal_safe(line))
    units = info["units"]
    click.echo(f"units:     {sum(units.values())}" + (" (" + ", ".join(f"{n} {k}" for k, n in sorted(units.items())) + ")"
                                                     if units else ""))
    from hookgraph.plural import count

    click.echo(f"vectors:   {count(info['vectors'], 'distinct text')}; "
               f"{count(info['units_without_vector'], 'unit')} without a vector; "
               f"{info['split_units']} split into windows; {info['truncated_units']} cut after their last window")
    click.echo(f"embedding: {_queue_line(info)}")
    if info["adopted_vectors"]["total"]:
        click.echo(f"checked:   {_adopted_line(info)}")
    click.echo(f"no-embed:  {_no_embed_line(info)}")
    without = _kinds_without_vectors_line(info["kinds"])
    if without:
        click.echo(f"by kind:   {without}")
    click.echo("edges:     " + (", ".join(f"{n} {k}" for k, n in sorted(info["edges"].items())) or "0"))
    for label, key in (("HEAD", "stale_vs_head"), ("index", "stale_vs_index"), ("worktree", "stale_vs_worktree")):
        paths = info[key]
        if paths:
            listed = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
            click.echo(f"stale vs {label}: {terminal_safe(listed)}")
    if info["unreadable"]:
        from hookgraph.sync.target import unreadable_line

        click.echo(f"unreadable: {terminal_safe(unreadable_line(info['unreadable']))}")
    if parser_note:
        click.echo(f"parser:    {parser_note}")
    for line in info["vector_sources_refused"]:
        click.echo(f"refused:   {terminal_safe(line)}")


def _refused_sources(root: Path, store: Any) -> list[str]:
    """Snapshots and caches whose vectors were refused (last check), and caches that cannot be used now."""
    from hookgraph.store.vector_cache import repo_cache, user_cache
    from hookgraph.embed.adopt import rejected_sources, unusable_caches

    caches = [c for c in (repo_cache(root), user_cache(root)) if c is not None and c.max_bytes > 0]
    gone = {f"the vector cache {c.path}" for c in caches if not c.path.exists()}  # deleted since: nothing to say
    lines = [line for label, line in rejected_sources(store).items() if label not in gone]
    lines += [line for line in unusable_caches(caches) if line not in lines]
    for cache in caches:
        cache.close()
    return lines


def _adopted(store: Any) -> dict[str, Any]:
    """Vectors taken from a snapshot or a cache, how many the local model has re-embedded and agreed with, and
    the model seconds that check has taken so far."""
    from hookgraph.embed.recheck import CHECK_SECONDS_META

    checked = int(store.get_meta("adopted_checked") or 0)
    unchecked = store.unchecked_count()
    seconds = round(float(store.get_meta(CHECK_SECONDS_META) or 0.0), 2)
    return {"checked": checked, "unchecked": unchecked, "total": checked + unchecked, "model_seconds": seconds}


def _adopted_line(info: dict[str, Any]) -> str:
    """``status``'s line about the full check of adopted vectors ("1,200 of 1,834 adopted vectors")."""
    adopted = info["adopted_vectors"]
    text = f"{adopted['checked']:,} of {adopted['total']:,} adopted vectors (from a snapshot or a cache)"
    if not adopted["unchecked"]:
        return text + ": each re-embedded here and found equal"
    text += "; the rest rank meanwhile and are never exported"
    if info["embedder"]["running"]:
        return text + "; the background embedder checks them at idle priority"
    return text + "; the next hookgraph command starts the embedder that checks them (`hookgraph index --wait` does it now)"


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
    return terminal_safe(text)


def _kinds(store: Any, rule: Any) -> dict[str, dict[str, Any]]:
    """Per unit kind: units, how many have a vector or wait for one, and the no-embed rule's reasons for the
    rest. ``ask --kind`` finds a kind without vectors by its words and the graph only."""
    from hookgraph.embed import no_embed

    never = no_embed.not_embedded_by_kind(store, rule)
    return {kind: {"units": n, "vectors": with_vector, "pending": waiting, "not_embedded": never.get(kind, {})}
            for kind, (n, with_vector, waiting) in store.vectors_by_kind().items()}


def _kinds_without_vectors_line(kinds: dict[str, dict[str, Any]]) -> str:
    """Which kinds the no-embed rule keeps (wholly or partly) from the model, and why: a typed search of such a
    kind (``ask --kind``) matches them by words and graph only."""
    parts = []
    for kind, info in kinds.items():
        never = sum(info["not_embedded"].values())
        if not never:
            continue
        why = ", ".join(f"{n:,} {reason}" for reason, n in info["not_embedded"].items())
        share = f"all {never:,}" if never == info["units"] else f"{never:,} of {info['units']:,}"
        parts.append(f"{kind}: {share} (no-embed rule: {why})")
    if not parts:
        return ""
    return terminal_safe("no vectors, found by words and graph only: " + "; ".join(parts))


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


def register(cli: click.Group) -> None:
    """Add ``status`` to the ``hookgraph`` group."""
    cli.add_command(status)



def _index_bytes(store: Any) -> int:
    """The index's size as SQLite sees it (pages x page size), wherever its pages are: pages a running embedder
    committed wait in the WAL until its next checkpoint, and the file alone says less."""
    page_size, pages, _free = store.page_counts()
    return int(page_size * pages)


def _fresh_line(head_fresh: bool, stale_vs_head: bool, stale: bool) -> str:
    """The text form of ``--json``'s ``fresh`` (the index holds HEAD), with the uncommitted edits beside it.

    Why not "no" for edits alone: ``--json`` said ``"fresh": true`` for the same state, and the remedy
    offered (``hookgraph index`` syncs HEAD) changed nothing; edits are indexed when they are committed.
    """
    if head_fresh and not stale_vs_head:
        if not stale:
            return "yes: the index matches HEAD, the git index and the working tree"
        return ("yes for HEAD; uncommitted edits differ (the stale lines below): they are indexed when committed, "
                "or now with `hookgraph index --worktree`")
    return "no: see the stale lines below (`hookgraph index` syncs HEAD)"

