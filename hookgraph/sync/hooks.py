"""What each git hook does: ``hookgraph hook HOOKNAME [ARGS...]`` (printed and exited by
:func:`hookgraph.cli.git_commands.run_git_hook`).

Every hook does the same thing (DESIGN.md section 4): pick the target tree
and run the one sync-by-blob-SHA routine, :func:`hookgraph.sync.sync`.

=================  =============================================================
hook               target
=================  =============================================================
pre-commit         the index being committed (``GIT_INDEX_FILE``: under
                   ``git commit -a`` or ``git commit PATH`` a temporary index)
post-checkout      HEAD's tree (branch switch, file checkout, clone, worktree add)
post-commit        HEAD's tree (commits made with ``--no-verify``, cherry-picks)
post-merge         HEAD's tree (pull, fast-forward or true merge)
post-rewrite       HEAD's tree (after ``commit --amend`` and after a rebase)
=================  =============================================================

Hook arguments are never trusted: the store is compared with the target, so
clones (all-zero old ref), resets, stash pops and file checkouts come out
right at the next hook. While a rebase is replaying commits, per-commit hooks
do nothing; its ``post-rewrite`` catches up once. A rebase that rewrites
nothing (a fast-forward, every commit already upstream) has no post-rewrite,
so its checkout syncs at once.

In shared mode (:mod:`hookgraph.sync.shared`) the working index is topped up with
vectors from committed snapshots before syncing, and ``pre-commit`` exports
the snapshot and ``git add``-s it, so it lands in the commit it describes.
(``pre-merge-commit`` is not used: git has computed the merge's tree before
it runs, so what it stages misses the merge commit and stays behind as a
staged change; the snapshot's merge driver does that job instead.)

Never in the way: a failure prints one warning line and exits 0 unless
``--strict`` (or ``HOOKGRAPH_STRICT=1``); writers serialise on the store's lock
with a timeout (``HOOKGRAPH_LOCK_TIMEOUT``, seconds); success prints one short
line when something changed, nothing otherwise. ``HOOKGRAPH_SKIP=1`` skips.
``HOOKGRAPH_HOOK_LOG=FILE`` appends one JSON line per run (tests read it).

A hook never waits for the model (DESIGN.md section 9): the sync writes
text and graph at once and queues new texts; the background embedder
(:mod:`hookgraph.embed.worker`) is started afterwards and git has its prompt
back. That holds for shared mode's ``pre-commit`` too: the snapshot it stages
carries the vectors already in the index, and the commit's new texts ride
along with the next commit once the background embedder filled them in (a
teammate's embedder fills in the few missing meanwhile); ``[snapshot]
embed_seconds`` opts into embedding them in the hook.

Imports are kept light: a hook for a commit that touches no code never
imports numpy, tree-sitter or llama_cpp, and never loads the model.
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from hookgraph import git
from hookgraph.errors import HookgraphError

if TYPE_CHECKING:
    from hookgraph.embed import Embedder
    from hookgraph.sync.reconcile import SyncReport

#: Hook name -> which tree the store must describe afterwards.
TARGETS = {
    "pre-commit": "index",
    "post-checkout": "head",
    "post-commit": "head",
    "post-merge": "head",
    "post-rewrite": "head",
    # `git am` commits each patch without post-commit; it runs post-applypatch after each one.
    "post-applypatch": "head",
}
HOOK_NAMES = tuple(TARGETS)

#: Hooks that run once per replayed commit and wait for post-rewrite in a rebase.
PER_COMMIT = frozenset({"pre-commit", "post-checkout", "post-commit", "post-merge"})

#: Rebase todo commands that create commits (and so end in a post-rewrite).
_REWRITING = frozenset({"p", "pick", "r", "reword", "e", "edit", "s", "squash", "f", "fixup", "m", "merge"})

DEFAULT_LOCK_TIMEOUT = 10.0


class HookUsageError(HookgraphError):
    """The hook name is unknown; the message says which ones exist."""


@dataclass
class Outcome:
    """What one hook run did (logged as JSON under HOOKGRAPH_HOOK_LOG)."""

    hook: str
    action: str = "synced"  # synced | fresh | skipped-rebase | skipped | failed (merge-driver: merged | kept-ours:*)
    target: str | None = None
    shared: bool = False
    added: int = 0
    modified: int = 0
    deleted: int = 0
    #: Texts queued for the background embedder by this hook's sync.
    queued: int = 0
    #: Vectors found in the repository's or the user's cache.
    from_cache: int = 0
    #: Texts embedded in the hook itself (shared-mode pre-commit only, within its budget).
    embedded: int = 0
    #: Texts still waiting for vectors when the hook returned.
    pending: int = 0
    background: bool = False
    imported: int = 0
    exported: bool = False
    seconds: float = 0.0
    error: str | None = None
    args: list[str] = field(default_factory=list)
    #: Lines the user must see even from a quiet hook (an untrusted snapshot ignored).
    warnings: list[str] = field(default_factory=list)

    def line(self) -> str | None:
        """The one short line for the terminal, or None when there is nothing to say."""
        if self.action != "synced":
            return None
        changed = self.added + self.modified + self.deleted
        if not changed and not self.exported:
            return None
        text = f"hookgraph: {changed} file{'s' if changed != 1 else ''} synced"
        if self.embedded:
            text += f", {self.embedded} embedded"
        if self.exported:
            text += ", snapshot staged"
        if self.pending:
            texts = f"{self.pending} text{'s' if self.pending != 1 else ''}"
            text += (f"; embedding {texts} in the background" if self.background
                     else f"; {texts} to embed (`hookgraph index --wait`)")
        return text + f" ({self.seconds:.1f}s)"


# -- which hook are we? ------------------------------------------------------------


def detect_hook_name(environ: dict[str, str] | os._Environ[str] | None = None) -> str | None:
    """The hook we run for when called without a name (the pre-commit framework's way).

    pre-commit passes no hook name, but sets ``PRE_COMMIT_CHECKOUT_TYPE``
    (post-checkout), ``PRE_COMMIT_IS_SQUASH_MERGE`` (post-merge) and
    ``PRE_COMMIT_REWRITE_COMMAND`` (post-rewrite). For pre-commit and
    post-commit it sets nothing, so those are read from the parent pre-commit
    process's ``--hook-type``.
    """
    env = os.environ if environ is None else environ
    if "PRE_COMMIT_CHECKOUT_TYPE" in env:
        return "post-checkout"
    if "PRE_COMMIT_IS_SQUASH_MERGE" in env:
        return "post-merge"
    if "PRE_COMMIT_REWRITE_COMMAND" in env:
        return "post-rewrite"
    parent = _parent_hook_type()
    if parent:
        return parent  # main() lets stages that need nothing from us pass
    if "GIT_INDEX_FILE" in env:  # pre-commit or post-commit: after a commit the index is HEAD's tree
        return "pre-commit"
    return None


def _parent_hook_type() -> str | None:
    """``--hook-type`` of the parent ``pre-commit hook-impl`` process, if that is our parent."""
    ppid = os.getppid()
    args: list[str] = []
    try:
        with open(f"/proc/{ppid}/cmdline", "rb") as f:
            args = [a.decode("utf-8", "replace") for a in f.read().split(b"\0") if a]
    except OSError:
        if sys.platform != "win32":
            import subprocess

            try:
                out = subprocess.run(["ps", "-o", "args=", "-p", str(ppid)], capture_output=True, timeout=2)
                args = out.stdout.decode("utf-8", "replace").split()
            except (OSError, subprocess.SubprocessError):
                return None
    for i, arg in enumerate(args):
        if arg.startswith("--hook-type="):
            return arg.split("=", 1)[1]
        if arg == "--hook-type" and i + 1 < len(args):
            return args[i + 1]
    return None


def args_from_pre_commit(hook: str) -> list[str]:
    """The hook's git arguments as pre-commit passes them (environment), for the log."""
    env = os.environ
    names = {
        "post-checkout": ("PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF", "PRE_COMMIT_CHECKOUT_TYPE"),
        "post-merge": ("PRE_COMMIT_IS_SQUASH_MERGE",),
        "post-rewrite": ("PRE_COMMIT_REWRITE_COMMAND",),
    }.get(hook, ())
    if not names or any(n not in env for n in names):
        return []
    return [env[n] for n in names]


# -- git state ---------------------------------------------------------------------


def locate(cwd: Path) -> tuple[Path, Path]:
    """Work-tree root and (worktree-specific) git dir, in one git call."""
    out = git.run(["rev-parse", "--show-toplevel", "--absolute-git-dir"], cwd).decode("utf-8", "surrogateescape")
    lines = out.splitlines()
    if len(lines) < 2 or not lines[0]:
        raise git.GitError(f"{cwd} is not inside a git work tree")
    return Path(lines[0]), Path(lines[1])


def rebase_in_progress(gitdir: Path, hook: str = "post-commit") -> bool:
    """True while a rebase is replaying commits and a post-rewrite will follow.

    ``rebase-merge/`` (the default backend) lists what is left and what is done;
    when neither names a command that makes a commit (a fast-forward, or
    every commit already upstream), no post-rewrite comes, so the hooks must
    not wait for it. ``rebase-apply/`` is ``git rebase --apply``, or ``git am``
    when ``applying`` is there (am has no post-rewrite: not a rebase for us).

    The rebase's own checkout (``post-checkout``) reads what is left, not what is done: git
    fast-forwards over the leading picks whose parent is already there before it checks out, and
    lists them as done, yet they rewrite nothing. ``rebase -i`` that keeps the first commits and
    drops the last (a WIP) is only that: no post-rewrite came, and the index kept the dropped
    commit's files until the next hook. Commits already rewritten (``rewritten-list``) still promise one.
    """
    merge_dir = gitdir / "rebase-merge"
    if merge_dir.is_dir():
        names = ("git-rebase-todo",) if hook == "post-checkout" else ("git-rebase-todo", "done")
        if hook == "post-checkout" and any(_non_empty(merge_dir / name)
                                           for name in ("rewritten-list", "rewritten-pending")):
            return True
        for name in names:
            try:
                text = (merge_dir / name).read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            for line in text.splitlines():
                words = line.split(None, 1)
                if words and not words[0].startswith("#") and words[0] in _REWRITING:
                    return True
        return False
    apply_dir = gitdir / "rebase-apply"
    return apply_dir.is_dir() and not (apply_dir / "applying").exists()


def _non_empty(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def _vector_sources(root: Path, gitdir: Path, hook: str) -> list[str]:
    """Revisions whose committed snapshots may hold vectors for this sync's changed files."""
    revs: list[str] = []
    for ref in ("MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD"):
        try:
            text = (gitdir / ref).read_text(encoding="ascii", errors="replace")
        except OSError:
            continue
        revs.extend(line.split()[0] for line in text.splitlines() if line.strip())
    if hook == "post-merge":
        out = git.run(["rev-list", "--parents", "-n", "1", "HEAD"], root, check=False).decode().split()
        revs.extend(out[2:])  # a merge commit's other parents
    return revs


# -- the hook ----------------------------------------------------------------------


def run_hook(
    hook: str,
    args: list[str] | None = None,
    *,
    cwd: Path | None = None,
    embedder: Embedder | None = None,
    lock_timeout: float | None = None,
) -> Outcome:
    """Bring the store in line with the hook's target; raises on failure (``main`` reports)."""
    if hook not in TARGETS:
        raise HookUsageError(f"unknown hook {hook!r}: use one of {', '.join(HOOK_NAMES)}")
    started = time.perf_counter()
    outcome = Outcome(hook, target=TARGETS[hook], args=list(args or []))
    if os.environ.get("HOOKGRAPH_SKIP"):
        outcome.action = "skipped"
        return outcome
    root, gitdir = locate(cwd or Path.cwd())
    if hook in PER_COMMIT and rebase_in_progress(gitdir, hook):
        outcome.action = "skipped-rebase"
        return outcome
    if lock_timeout is None:
        lock_timeout = _env_float("HOOKGRAPH_LOCK_TIMEOUT", DEFAULT_LOCK_TIMEOUT, outcome.warnings)

    from hookgraph.sync import shared
    from hookgraph.store import snapshot
    from hookgraph.sync.reconcile import sync
    from hookgraph.sync.target import read_target

    if TARGETS[hook] == "head" and git.head_commit(root) is None:
        outcome.action = "fresh"  # an unborn branch: nothing committed to describe
        return outcome
    target = read_target(root, TARGETS[hook])
    outcome.shared = snapshot.is_shared(root)
    if outcome.shared:
        if shared.configure_merge_driver(root) == "added":
            outcome.warnings.append(f"configured git's merge driver for {shared.SNAPSHOT_PATH} in this clone "
                                    "(it had none: a merge that changed the snapshot on both sides would have "
                                    f"stopped on a conflict; `{shared.SETUP_COMMAND}` does this for a new clone)")
    with shared.snapshot_sources(root, _vector_sources(root, gitdir, hook) if outcome.shared else []) as sources:
        # Shared mode's pre-commit never loads the model: what the snapshot at hand or a cache offers for the
        # commit's texts is checked by the background embedder, like a clone's first index.
        report = sync(root, target, embedder=embedder, lock_timeout=lock_timeout, background=False, snapshots=sources,
                      defer_offers=outcome.shared and hook == "pre-commit")
    outcome.imported = report.from_cache
    record_report(outcome, report)
    if outcome.shared and hook == "pre-commit":
        budget = _embed_budget(root, outcome) if report.pending else 0.0
        if budget > 0:
            _embed_for_the_snapshot(root, embedder, lock_timeout, outcome, budget)
        outcome.exported = _export_and_stage(root, lock_timeout)
    if outcome.pending or report.unchecked:  # texts to embed, or adopted vectors to check in full
        from hookgraph.embed.worker import start_background
        from hookgraph.store import db_path

        outcome.background = start_background(root, db_path(root))
    if not report.changed and not outcome.exported:
        outcome.action = "fresh"
    outcome.seconds = time.perf_counter() - started
    return outcome


def record_report(outcome: Outcome, report: SyncReport) -> None:
    outcome.added, outcome.modified, outcome.deleted = report.added, report.modified, report.deleted
    outcome.queued, outcome.from_cache, outcome.pending = report.queued, report.from_cache, report.pending
    outcome.embedded = report.texts_embedded
    outcome.warnings.extend(report.warnings)


#: Seconds the shared-mode pre-commit hook may embed so its snapshot carries the commit's vectors: none by
#: default. Loading the model and embedding a 3-function commit cost ~0.5 s of every
#: commit; the snapshot instead carries every vector already in the index, and the texts the background
#: embedder fills in after this commit ride along with the next one (a teammate's embedder fills in the
#: few that are missing meanwhile). ``[snapshot] embed_seconds`` buys complete snapshots per commit.
SHARED_EMBED_SECONDS = 0.0
#: The most a config may give it (``inf`` would hold every commit until everything is embedded).
MAX_EMBED_SECONDS = 600.0
#: The longest ``HOOKGRAPH_LOCK_TIMEOUT`` a hook accepts.
MAX_LOCK_TIMEOUT = 3600.0


def _embed_budget(root: Path, outcome: Outcome) -> float:
    """``[snapshot] embed_seconds``, checked (a committed config.toml is anyone's); 0 by default."""
    from hookgraph import config

    try:
        budget = config.get(root, "snapshot", "embed_seconds", SHARED_EMBED_SECONDS)
    except config.ConfigError:
        budget = SHARED_EMBED_SECONDS
    if not isinstance(budget, (int, float)) or isinstance(budget, bool) or not 0 <= budget <= MAX_EMBED_SECONDS:
        # a committed config.toml is anyone's: `inf` would hold every commit until all is embedded
        outcome.warnings.append(f"{config.config_path(root)}: [snapshot] embed_seconds = {budget!r} is not a time "
                                f"budget: use seconds from 0 to {MAX_EMBED_SECONDS:g}, or remove the line "
                                f"(default {SHARED_EMBED_SECONDS:g}); the default was used")
        budget = SHARED_EMBED_SECONDS
    return float(budget)


def _embed_for_the_snapshot(root: Path, embedder: Embedder | None, lock_timeout: float, outcome: Outcome,
                            budget: float) -> None:
    """Shared mode, opted in by ``[snapshot] embed_seconds``: embed the commit's new texts within that budget.

    Why a budget and not all: a commit must stay fast; a huge one commits
    its texts as queued, and each teammate's embedder fills them in.
    """
    from hookgraph.embed.choice import embedder_for_repo
    from hookgraph.embed.queue import drain
    from hookgraph.store import db_path

    report = drain(db_path(root), embedder or embedder_for_repo(root), deadline=time.monotonic() + float(budget),
                   lock_timeout=lock_timeout)
    outcome.embedded += report.embedded
    outcome.pending = report.remaining

def _export_and_stage(root: Path, lock_timeout: float) -> bool:
    """Export the snapshot if it does not match the working index; ``git add`` the shared files."""
    from hookgraph.sync import shared
    from hookgraph.store import snapshot
    from hookgraph.store.lock import write_lock
    from hookgraph.store import db_path

    live = db_path(root)
    with write_lock(live.parent, timeout=lock_timeout):
        exported = snapshot.export_snapshot(root)
    shared.stage(root)
    return exported


def _env_float(name: str, default: float, warnings: list[str]) -> float:
    """A number of seconds from the environment; ``inf``, ``nan``, a negative number or text is named in one
    warning and the default is used (an endless lock wait would hold git forever)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not 0 <= value <= MAX_LOCK_TIMEOUT:
        warnings.append(f"{name}={raw} (environment) is not a number of seconds from 0 to {MAX_LOCK_TIMEOUT:g}; "
                        f"the default {default:g} was used")
        return default
    return value


def log_outcome(outcome: Outcome) -> None:
    path = os.environ.get("HOOKGRAPH_HOOK_LOG")
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(asdict(outcome)) + "\n")
    except OSError:
        pass
