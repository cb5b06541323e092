"""Commands for git integration: ``hook``, ``install``, ``verify`` (and git's ``merge-driver``).

:func:`run_git_hook` is what a git hook runs: :mod:`hookgraph.sync.hooks` does the hook's work, this
says how it went in one line and picks the exit code (never one that blocks git unless ``--strict``).
Importing this module costs click only: the hook path must stay light (see
:mod:`hookgraph.sync.hooks`).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import click

from hookgraph.cli.common import one_line_errors, repo_root_here


def register(cli: click.Group) -> None:
    """Add ``hook``, ``install`` and ``verify`` to the ``hookgraph`` group."""

    @cli.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
    @click.option("--strict", is_flag=True, help="Fail (exit 1) when hookgraph fails, instead of warning.")
    @click.argument("hookname", required=False)
    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    def hook(strict: bool, hookname: str | None, args: tuple[str, ...]) -> None:
        """Run what git hook HOOKNAME needs (pre-commit, post-checkout, post-commit,
        post-merge, post-rewrite, post-applypatch). Without HOOKNAME, the hook is found from
        pre-commit's environment."""
        rest = list(args)
        if hookname == "--strict" or "--strict" in rest:  # accepted after the name too
            strict = True
            rest = [a for a in rest if a != "--strict"]
            if hookname == "--strict":
                hookname = rest.pop(0) if rest else None
        sys.exit(run_git_hook(hookname, rest, strict=strict))

    @cli.command()
    @click.option("--shared", is_flag=True, help="Commit the index with the code (.hookgraph/shared.db).")
    @click.option("--uninstall", is_flag=True, help="Remove the hooks (and with --shared, turn shared mode off).")
    @click.option("--no-hooks", is_flag=True,
                  help="Only set up shared mode (for pre-commit framework users).")
    @click.option("--all-repositories", is_flag=True,
                  help="core.hooksPath is set globally: (un)install there, for every repository that uses it.")
    @click.option("--force", is_flag=True,
                  help="core.hooksPath is a folder of the work tree (.husky, .githooks): write there anyway.")
    @click.option("--purge", is_flag=True,
                  help="With --uninstall: also remove the index, .git/hookgraph/ and the info/exclude line "
                       "(never a file git tracks).")
    @one_line_errors
    def install(shared: bool, uninstall: bool, no_hooks: bool, all_repositories: bool, force: bool,
                purge: bool) -> None:
        """Install plain git hooks that keep the index fresh, chaining existing hooks."""
        from hookgraph.cli.common import UserError
        from hookgraph.sync import install as installer

        root = repo_root_here()
        if purge and not uninstall:
            raise UserError("--purge removes what hookgraph made and goes with --uninstall: "
                            "`hookgraph install --uninstall --purge`")
        if uninstall:
            lines = installer.uninstall(root, shared_mode=shared, all_repositories=all_repositories, purge=purge)
        else:
            if not no_hooks:  # before any work: a refusal must leave everything as it was
                installer.check_hooks_dirs(root, all_repositories, force)
            if shared:
                _complete_index_for_the_first_snapshot(root)
            lines = installer.install(root, shared_mode=shared, hooks=not no_hooks, all_repositories=all_repositories,
                                      force=force)
        for line in lines:
            click.echo(line)

    def _complete_index_for_the_first_snapshot(root: Path) -> None:
        """Sync the index to HEAD and embed every waiting text here, before the snapshot is exported and staged.

        The first snapshot is what every teammate's clone starts from: with
        texts still queued (an ``index`` whose background embedder had barely
        begun), each teammate would embed them all again. A progress bar on a
        terminal; Ctrl-C stops before shared mode is turned on.
        """
        from hookgraph import git
        from hookgraph.cli.embedding import embed_in_foreground
        from hookgraph.embed.choice import embedder_for_repo
        from hookgraph.store import Store, db_path
        from hookgraph.sync import read_target, sync

        if git.head_commit(root) is None:
            return  # nothing committed: the first commit's hook builds and embeds the index
        embedder = embedder_for_repo(root)
        report = sync(root, read_target(root, "head"), embedder=embedder, background=False)
        for warning in report.warnings:
            click.echo(f"hookgraph: warning: {' '.join(warning.split())}", err=True)
        with Store(db_path(root), readonly=True) as store:
            pending = store.pending_count()
        if not pending:
            return
        terminal = sys.stderr.isatty()
        click.echo(f"hookgraph: embedding {pending:,} texts so the first snapshot carries every vector "
                   "(teammates then embed nothing)", err=True)
        embed_in_foreground(root, embedder, pending, bar=terminal, quiet=True)

    @cli.command("merge-driver", hidden=True)
    @click.argument("ancestor")
    @click.argument("ours")
    @click.argument("theirs")
    @click.argument("path", required=False)
    def merge_driver(ancestor: str, ours: str, theirs: str, path: str | None) -> None:
        """git's merge driver for .hookgraph/shared.db (configured by `install`).

        Exits 0 for the snapshot (our side kept at worst); any other PATH is
        refused (exit 1, after git's text merge into OURS) so git reports an
        ordinary conflict instead of a database written over the file.
        """
        from hookgraph.sync import hooks, shared

        if path is not None and path != shared.SNAPSHOT_PATH:
            shared.merge_other_path(Path(ancestor), Path(ours), Path(theirs))
            click.echo(f"hookgraph: merge driver refused {path}: {shared.REFUSAL}", err=True)
            sys.exit(1)
        started = time.perf_counter()
        outcome = hooks.Outcome("merge-driver", target="merge", shared=True, args=[path or ""])
        try:
            result = shared.run_merge_driver(Path(ours), Path(theirs), Path.cwd())
            outcome.action, outcome.imported = result.action, result.imported
            outcome.exported = result.action == "merged"  # the union was written over our snapshot
        except Exception as exc:  # keep our side; the hooks re-sync after the merge
            if os.environ.get("HOOKGRAPH_DEBUG"):
                raise
            outcome.action, outcome.error = "failed", " ".join(str(exc).split())
            click.echo(f"hookgraph: warning: kept our {path or 'snapshot'} ({outcome.error})", err=True)
        outcome.seconds = time.perf_counter() - started
        hooks.log_outcome(outcome)
        sys.exit(0)

    @cli.command()
    @click.option("--local", "local", is_flag=True, help="Check the working index instead of the committed one.")
    @click.option("--rev", default="HEAD", show_default=True, help="The commit to check (committed database only).")
    @click.option("--vectors", "full", is_flag=True,
                  help="Re-embed every vector of the snapshot with the local model, not a sample (model time: "
                       "as long as embedding the commit's texts).")
    @one_line_errors
    def verify(local: bool, rev: str, full: bool) -> None:
        """One line for CI: can a clone of REV take its vectors from the committed snapshot?

        The commit's texts are composed from its blobs and checked against the snapshot and the local
        model. Exit 1 when the snapshot cannot be read, was embedded with another model, lacks vectors
        for more than 10% of the commit's texts, or holds a vector that differs from what the local model
        computes for its text (a sample of 24; every one with --vectors, which names the forged units and
        the commit that brought them). Else 0. The repair rewrites the committed snapshot from vectors this
        machine embedded or checked (the example below).
        """
        from hookgraph.sync import shared

        root = repo_root_here()
        verdict = shared.verify_local(root) if local else shared.verify_committed(root, rev, full=full)
        click.echo(verdict.message, err=not verdict.ok)
        sys.exit(0 if verdict.ok else 1)


def run_git_hook(hook: str | None, args: list[str], *, strict: bool = False, embedder: Any = None) -> int:
    """Run one hook for git: never a traceback, exit 0 unless strict.

    Returns the process exit code: 0 (worked, or failed without ``--strict``),
    1 (failed with ``--strict``), 2 (unknown hook name).
    """
    from hookgraph.sync import crash_guard, hooks

    strict = strict or os.environ.get("HOOKGRAPH_STRICT", "") not in ("", "0")
    name = hook or hooks.detect_hook_name()
    if name is None:
        print("hookgraph: which hook? pass one of " + ", ".join(hooks.HOOK_NAMES), file=sys.stderr)
        return 2
    if hook is None and name not in hooks.TARGETS:  # pre-commit runs us at a stage we have no use for
        return 0
    if not args:
        args = hooks.args_from_pre_commit(name)

    def work() -> int:
        return _run_and_report(name, args, strict=strict, embedder=embedder)

    result, left_out = crash_guard.run_leaving_out_crashes(work, _root_or_none, last=True)
    if left_out and isinstance(result, int):
        print(crash_guard.left_out_warning(left_out, git=True), file=sys.stderr)
    if isinstance(result, int):
        return result
    message = f"it died ({result.describe()}); the index is unchanged"
    hooks.log_outcome(hooks.Outcome(name, action="failed", target=hooks.TARGETS.get(name), error=message,
                                    args=list(args)))
    if strict:
        print(f"hookgraph: {name} hook failed: {message}", file=sys.stderr)
        return 1
    print(f"hookgraph: warning: {name} hook skipped: {message} (git goes on)", file=sys.stderr)
    return 0


def _root_or_none() -> Path | None:
    from hookgraph.sync.hooks import locate

    try:
        return locate(Path.cwd())[0]
    except Exception:  # noqa: BLE001 - not in a repository any more: nothing to record
        return None


def _run_and_report(name: str, args: list[str], *, strict: bool, embedder: Any) -> int:
    """Run the hook and say how it went: the exit code :func:`run_git_hook` returns (see there)."""
    from hookgraph.sync import hooks

    started = time.perf_counter()
    try:
        outcome = hooks.run_hook(name, args, embedder=embedder)
    except hooks.HookUsageError as exc:
        print(f"hookgraph: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        from hookgraph.sync.crash_guard import INTERRUPTED_LINE

        print(INTERRUPTED_LINE, file=sys.stderr)
        return 130
    except Exception as exc:  # never block git on our own failure
        if os.environ.get("HOOKGRAPH_DEBUG"):
            raise
        message = " ".join(str(exc).split()) or type(exc).__name__
        if type(exc).__module__ == "apsw":  # SQLite failed outside a sync (a snapshot export, a vector top-up)
            message = _diagnosed(exc)
        outcome = hooks.Outcome(name, action="failed", target=hooks.TARGETS.get(name), error=message,
                                args=list(args), seconds=time.perf_counter() - started)
        hooks.log_outcome(outcome)
        if strict:
            print(f"hookgraph: {name} hook failed: {message}", file=sys.stderr)
            return 1
        print(f"hookgraph: warning: {name} hook skipped: {message} (git goes on)", file=sys.stderr)
        return 0
    hooks.log_outcome(outcome)
    for warning in outcome.warnings:
        print("hookgraph: warning: " + " ".join(warning.split()), file=sys.stderr)
    line = outcome.line()
    if line and not os.environ.get("HOOKGRAPH_QUIET"):
        print(line, file=sys.stderr)
    return 0


def _diagnosed(exc: BaseException) -> str:
    """SQLite's error as its real cause (a full disk, a read-only place, ...) for the hook's one line."""
    from hookgraph.store import db_path
    from hookgraph.store.faults import diagnose
    from hookgraph.sync.hooks import locate

    try:
        root, _gitdir = locate(Path.cwd())
    except Exception:
        return " ".join(str(exc).split()) or type(exc).__name__
    return diagnose(db_path(root), exc).message
