"""``hookgraph install [--shared] [--uninstall]``: plain git hooks, no pre-commit framework.

Each hook is a small POSIX shell script. A hook that was already there is
kept beside it as ``<name>.hookgraph-chained``, runs first with the same
arguments and stdin, and is put back by ``--uninstall``; a failing chained
``pre-commit`` still blocks the commit, as it did before.
The script calls the Python that ran ``hookgraph install`` (so a virtualenv
need not be active), falls back to ``hookgraph`` on PATH, and when neither is
there says so in one line and lets git go on.

The hooks directory is whatever git uses: ``git rev-parse --git-path hooks``
honours ``core.hooksPath`` and is the common one for all worktrees.
"""

from __future__ import annotations

import shlex
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path

from hookgraph import git
from hookgraph.sync.hooks import HOOK_NAMES
from hookgraph.sync.ignore import exclude_locally

MARKER = "# hookgraph-hook v1"
CHAINED_SUFFIX = ".hookgraph-chained"

_SCRIPT = """#!/bin/sh
{marker}: keeps hookgraph's index in step with git.
# Installed by `hookgraph install`; `hookgraph install --uninstall` removes it and puts
# back the hook that was here before (kept beside it as {name}{suffix}).
# HOOKGRAPH_SKIP=1 skips hookgraph; HOOKGRAPH_STRICT=1 lets its failure stop git.
hook_name={name}
chained="$(dirname "$0")/$hook_name{suffix}"
chained_status=0
if [ -x "$chained" ]; then
    "$chained" "$@"
    chained_status=$?
    case "$hook_name" in
        pre-*) [ "$chained_status" -ne 0 ] && exit "$chained_status" ;;
    esac
fi
[ -n "$HOOKGRAPH_SKIP" ] && exit "$chained_status"
# While a rebase replays commits, the per-commit hooks wait for its post-rewrite
# (hookgraph.sync.hooks.rebase_in_progress, the same test): answered here without
# starting Python, which costs ~0.1-0.2 s per replayed commit.
case "$hook_name" in
    pre-commit|post-checkout|post-commit|post-merge)
        gitdir="$(git rev-parse --absolute-git-dir 2>/dev/null)"
        replaying=""
        if [ -d "$gitdir/rebase-merge" ]; then
            done_list="$gitdir/rebase-merge/done"
            if [ "$hook_name" = post-checkout ]; then  # the rebase's own checkout: what is left, not done
                done_list=/dev/null
                if [ -s "$gitdir/rebase-merge/rewritten-list" ] || [ -s "$gitdir/rebase-merge/rewritten-pending" ]; then
                    replaying=1
                fi
            fi
            grep -qE '^[[:space:]]*(p|pick|r|reword|e|edit|s|squash|f|fixup|m|merge)([[:space:]]|$)' \\
                "$gitdir/rebase-merge/git-rebase-todo" "$done_list" 2>/dev/null && replaying=1
        elif [ -d "$gitdir/rebase-apply" ] && [ ! -e "$gitdir/rebase-apply/applying" ]; then
            replaying=1
        fi
        if [ -n "$replaying" ]; then
            if [ -n "$HOOKGRAPH_HOOK_LOG" ]; then
                target=head
                [ "$hook_name" = pre-commit ] && target=index
                rest='"added": 0, "modified": 0, "deleted": 0, "embedded": 0, "imported": 0, "exported": false, '
                rest="$rest"'"seconds": 0.0, "error": null, "args": [], "warnings": []'
                printf '{{"hook": "%s", "action": "skipped-rebase", "target": "%s", "shared": false, %s}}\\n' \\
                    "$hook_name" "$target" "$rest" >>"$HOOKGRAPH_HOOK_LOG" 2>/dev/null
            fi
            exit "$chained_status"
        fi
        ;;
esac
python={python}
if [ -x "$python" ] && [ -f {package}/sync/hooks.py ]; then
    "$python" -m hookgraph.cli hook "$hook_name" "$@" </dev/null
    status=$?
elif command -v hookgraph >/dev/null 2>&1; then
    hookgraph hook "$hook_name" "$@" </dev/null
    status=$?
else
    echo "hookgraph: not found (neither $python nor hookgraph on PATH); $hook_name hook skipped" >&2
    status=0
fi
if [ "$status" -ne 0 ]; then
    if [ -n "$HOOKGRAPH_STRICT" ] && [ "$HOOKGRAPH_STRICT" != 0 ]; then
        exit "$status"
    fi
    [ "$status" -ge 128 ] && echo "hookgraph: $hook_name hook died (exit $status); git goes on" >&2
fi
exit "$chained_status"
"""


@dataclass
class InstallReport:
    hooks_dir: Path
    installed: list[str] = field(default_factory=list)
    chained: list[str] = field(default_factory=list)
    restored: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def hooks_dir(root: Path) -> Path:
    """Where git looks for this repository's hooks (``core.hooksPath`` honoured)."""
    out = git.run(["rev-parse", "--git-path", "hooks"], root).decode("utf-8", "surrogateescape").strip()
    path = Path(out)
    return path if path.is_absolute() else root / path


def hooks_dir_shared_by_others(root: Path) -> str | None:
    """Where ``core.hooksPath`` comes from when it points outside this repository (one line), else None.

    A ``core.hooksPath`` set globally (``~/.gitconfig``) or system-wide is one
    directory for every repository on the machine: hooks installed there run
    in all of them, and removing them removes them for all: installing there
    needs ``--all-repositories`` (:func:`_check_hooks_dir`).
    """
    out = git.run(["config", "--show-origin", "--get", "core.hooksPath"], root, check=False)
    if not out.strip():
        return None
    directory = hooks_dir(root).resolve()
    for inside in (git.common_dir(root), root.resolve()):
        try:
            directory.relative_to(inside)
            return None  # the repository's own (.git/hooks, or a folder of the work tree like .githooks)
        except ValueError:
            continue
    origin = out.decode("utf-8", "replace").split("\t", 1)[0].removeprefix("file:")
    return f"{directory} is core.hooksPath (set in {origin})"


def script(name: str, python: str | None = None) -> str:
    """The shell script installed as hook ``name``."""
    package = Path(__file__).resolve().parent.parent  # the hookgraph package folder
    return _SCRIPT.format(
        marker=MARKER,
        name=name,
        suffix=CHAINED_SUFFIX,
        python=shlex.quote(python or sys.executable),
        package=shlex.quote(str(package)),
    )


def is_ours(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return MARKER.encode() in f.read(4096)
    except OSError:
        return False


def _is_pre_commit_framework(path: Path) -> bool:
    try:
        return b"File generated by pre-commit" in path.read_bytes()[:4096]
    except OSError:
        return False


def _make_executable(path: Path) -> None:
    mode = path.stat().st_mode
    path.chmod(mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def install_hooks(root: Path, names: tuple[str, ...] = HOOK_NAMES, python: str | None = None) -> InstallReport:
    """Install (or refresh) our hooks, chaining whatever hook was there."""
    directory = hooks_dir(root)
    directory.mkdir(parents=True, exist_ok=True)
    report = InstallReport(directory)
    for name in names:
        path = directory / name
        chained = directory / (name + CHAINED_SUFFIX)
        if (path.exists() or path.is_symlink()) and not is_ours(path):
            if chained.exists() or chained.is_symlink():
                raise git.GitError(
                    f"{path} and {chained.name} both exist and neither is hookgraph's: "
                    f"move one away, then run `hookgraph install` again"
                )
            path.rename(chained)
            report.chained.append(name)
        tmp = directory / f".{name}.hookgraph-tmp"
        tmp.write_text(script(name, python))
        _make_executable(tmp)
        tmp.replace(path)
        report.installed.append(name)
    return report


def uninstall_hooks(root: Path, names: tuple[str, ...] = HOOK_NAMES) -> InstallReport:
    """Remove our hooks and put back the ones they chained; leave other people's hooks alone."""
    directory = hooks_dir(root)
    report = InstallReport(directory)
    for name in names:
        path = directory / name
        chained = directory / (name + CHAINED_SUFFIX)
        if not is_ours(path):
            if chained.exists():
                report.notes.append(f"{name}: not hookgraph's any more; {chained.name} left in place")
            continue
        path.unlink()
        if chained.exists() or chained.is_symlink():
            chained.rename(path)
            report.restored.append(name)
        else:
            report.removed.append(name)
    return report


def enable_shared(root: Path) -> list[str]:
    """Turn shared mode on: config, layout, merge driver, and stage the files for the next commit."""
    from hookgraph.sync import shared
    from hookgraph.store import snapshot
    from hookgraph.store import db_path

    notes: list[str] = []
    snapshot.write_shared_setting(root, True)
    snapshot.write_layout(root, shared=True)
    shared.configure_merge_driver(root)
    if db_path(root).exists():
        snapshot.export_snapshot(root)
    git.add(root, [p for p in snapshot.TRACKED if (root / p).exists()])
    if not snapshot.snapshot_path(root).exists():
        notes.append("the next commit builds the index and commits .hookgraph/shared.db "
                     "(run `hookgraph index` first on a large repository)")
    return notes


def disable_shared(root: Path) -> list[str]:
    """Turn shared mode off: stop tracking the snapshot and the settings; drop the merge driver."""
    from hookgraph.sync import shared
    from hookgraph.store import snapshot
    from hookgraph.store import DB_DIRNAME

    snapshot.write_shared_setting(root, False)
    snapshot.write_layout(root, shared=False)
    shared.remove_merge_driver(root)
    tracked = [f"{DB_DIRNAME}/{n}" for n in (snapshot.SNAPSHOT_FILE, snapshot.CONFIG_FILE, ".gitignore", ".gitattributes")]
    git.run(["rm", "--cached", "-q", "--ignore-unmatch", "--", *tracked], root)
    snap = snapshot.snapshot_path(root)
    if snap.exists():
        snap.unlink()
    exclude_locally(root)
    return ["shared mode off: commit the removal of .hookgraph/ files from git"]


def _check_hooks_dir(root: Path, all_repositories: bool, doing: str, command: str) -> None:
    """Refuse to change a hooks directory other repositories use, unless that was chosen explicitly."""
    shared_dir = None if all_repositories else hooks_dir_shared_by_others(root)
    if shared_dir:
        raise git.GitError(
            f"{shared_dir}, the hooks of every repository that uses that setting: {doing} there would do it for "
            f"all of them. Choose: `{command} --all-repositories` for all of them, or this repository alone: "
            f"`git config core.hooksPath .git/hooks` (it then skips the shared hooks) and `{command}`")


#: The line a team adds to each hook of its own runner (husky, lefthook, a tracked .githooks/) instead: it
#: calls whichever hookgraph each machine has on PATH, and does nothing where there is none.
RUNNER_LINE = 'if command -v hookgraph >/dev/null; then hookgraph hook {name} "$@"; fi'


def hooks_in_work_tree(root: Path) -> str | None:
    """``core.hooksPath`` as a folder of the work tree (``.husky``), relative to the root, or None.

    Such a folder is the team's (tracked, usually): its hooks run on every clone, so a script written
    there with this machine's Python path, and the team's own hooks moved aside, would be committed by
    the next ``git add -A``. The git directory's own ``hooks`` is not such a folder.
    """
    directory = hooks_dir(root).resolve()
    for own in (git.common_dir(root), git.git_dir(root).resolve()):
        if directory.is_relative_to(own):
            return None
    top = root.resolve()
    if not directory.is_relative_to(top):
        return None
    return directory.relative_to(top).as_posix()


def _check_work_tree_hooks(root: Path, force: bool) -> None:
    """Refuse to write into a hooks folder of the work tree unless ``--force``; say what to add instead."""
    folder = None if force else hooks_in_work_tree(root)
    if folder is None:
        return
    tracked = git.run(["ls-files", "--", folder], root, check=False).strip()
    kind = "a folder of the work tree that git tracks" if tracked else "a folder of the work tree"
    raise git.GitError(
        f"core.hooksPath is {folder}/, {kind}: `hookgraph install` would move the team's hooks aside and write "
        f"this machine's Python path into that folder, so nothing was changed. Add this line to each hook of "
        f"your hook runner instead ({', '.join(HOOK_NAMES)}), e.g. in {folder}/pre-commit: "
        f"`{RUNNER_LINE.format(name='pre-commit')}` (or use the pre-commit framework, see the README); "
        f"`hookgraph install --force` writes there anyway")


def check_hooks_dirs(root: Path, all_repositories: bool, force: bool) -> None:
    """Both refusals of ``install``, for the command to ask before any other work (a first index, say)."""
    _check_hooks_dir(root, all_repositories, "turning hookgraph on", "hookgraph install")
    _check_work_tree_hooks(root, force)


def install(root: Path, *, shared_mode: bool = False, hooks: bool = True, python: str | None = None,
            all_repositories: bool = False, force: bool = False) -> list[str]:
    """``hookgraph install``: the lines to print."""
    from hookgraph.sync import shared
    from hookgraph.store import snapshot

    lines: list[str] = []
    if hooks:
        _check_hooks_dir(root, all_repositories, "turning hookgraph on", "hookgraph install")
        _check_work_tree_hooks(root, force)
        report = install_hooks(root, python=python)
        where = report.hooks_dir
        try:
            where = where.relative_to(root)
        except ValueError:
            pass
        lines.append(f"installed {', '.join(report.installed)} in {where}")
        if report.chained:
            lines.append(f"kept and chained the existing {', '.join(report.chained)} hook(s)")
        framework = [n for n in report.chained if _is_pre_commit_framework(report.hooks_dir / (n + CHAINED_SUFFIX))]
        if framework:
            lines.append("note: pre-commit's own hooks are chained; if .pre-commit-config.yaml already runs "
                         "hookgraph, `hookgraph install --uninstall` and keep pre-commit alone")
    if shared_mode:
        lines.extend(enable_shared(root))
        lines.append("shared mode on: .hookgraph/shared.db is committed with the code (staged now)")
    elif snapshot.is_shared(root):
        shared.configure_merge_driver(root)
        shared.build_first_index(root, lines)
        lines.append("this repository commits its index (shared mode): merge driver configured")
    else:
        exclude_locally(root)
    return lines


def uninstall(root: Path, *, shared_mode: bool = False, all_repositories: bool = False,
              purge: bool = False) -> list[str]:
    """``hookgraph install --uninstall [--purge]``: the lines to print."""
    _check_hooks_dir(root, all_repositories, "removing hookgraph's hooks", "hookgraph install --uninstall")
    if purge:
        from hookgraph.sync.purge import refuse_while_embedding

        refuse_while_embedding(root)  # before anything is removed
    report = uninstall_hooks(root)
    lines: list[str] = []
    if report.removed or report.restored:
        lines.append(f"removed hookgraph's {', '.join(report.removed + report.restored)} hook(s)")
    if report.restored:
        lines.append(f"restored the previous {', '.join(report.restored)} hook(s)")
    if not (report.removed or report.restored):
        lines.append("no hookgraph hooks were installed")
    lines.extend(report.notes)
    if shared_mode:
        lines.extend(disable_shared(root))
    if purge:
        from hookgraph.sync.purge import purge as purge_all

        lines.extend(purge_all(root))
    return lines
