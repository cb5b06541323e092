"""Keep the local index out of git in every mode: one line in this clone's ``info/exclude``.

``.hookgraph/.gitignore`` alone is not enough. In shared mode that file is tracked, so when a teammate
turns sharing off and commits it, every clone that pulls loses it, and a clone whose index was built
by ``ask`` (never ``install``) then shows ``?? .hookgraph/`` with a megabytes-large ``index.db`` that
one ``git add -A`` commits. ``info/exclude`` belongs to the clone, no checkout touches it, and it never
hides a tracked file (the committed snapshot and settings stay tracked). So whoever writes or reads the
working index makes sure the line is there; ``install --uninstall --purge`` takes it out again.
"""

from __future__ import annotations

from pathlib import Path

from hookgraph import git

#: The line ``info/exclude`` gets, and the comment above it that says who wrote it. The files, not the
#: folder: with the folder excluded, git refuses (exit 1) a plain ``git add .hookgraph/config.toml`` even
#: of a tracked file, which a teammate in shared mode types after ``hookgraph model use``.
EXCLUDE_LINE = "/.hookgraph/*"
EXCLUDE_COMMENT = "# hookgraph's local index (hookgraph install)"
#: What earlier versions wrote: replaced by :data:`EXCLUDE_LINE` when met.
OLDER_LINES = ("/.hookgraph/",)


def exclude_file(root: Path) -> Path:
    """This clone's ``info/exclude`` (the common git dir's: every worktree reads that one)."""
    dot_git = root / ".git"
    if dot_git.is_dir() and not dot_git.is_symlink():  # the usual layout: no git process needed
        return dot_git / "info" / "exclude"
    return git.common_dir(root) / "info" / "exclude"


def exclude_locally(root: Path) -> None:
    """Ignore ``.hookgraph/`` in this clone's ``info/exclude`` if it is not yet (a read when it is).

    Never raises: ignoring is a convenience, and the tree's own ``.gitignore`` still applies.
    """
    try:
        exclude = exclude_file(root)
        text = exclude.read_text(encoding="utf-8", errors="surrogateescape") if exclude.exists() else ""
        lines = text.splitlines()
        if EXCLUDE_LINE in lines and not any(line in OLDER_LINES for line in lines):
            return
        if any(line in OLDER_LINES for line in lines):
            remove_exclude(root)
            text = exclude.read_text(encoding="utf-8", errors="surrogateescape")
        exclude.parent.mkdir(parents=True, exist_ok=True)
        with open(exclude, "a", encoding="utf-8", errors="surrogateescape") as f:
            f.write(("" if not text or text.endswith("\n") else "\n") + f"{EXCLUDE_COMMENT}\n{EXCLUDE_LINE}\n")
    except (OSError, git.GitError):
        pass


def remove_exclude(root: Path) -> bool:
    """Take the line (and its comment) out of ``info/exclude`` again; whether it was there."""
    try:
        exclude = exclude_file(root)
        if not exclude.exists():
            return False
        lines = exclude.read_text(encoding="utf-8", errors="surrogateescape").splitlines(keepends=True)
    except (OSError, git.GitError):
        return False
    kept = [line for line in lines if line.rstrip("\r\n") not in (EXCLUDE_LINE, EXCLUDE_COMMENT, *OLDER_LINES)]
    if len(kept) == len(lines):
        return False
    exclude.write_text("".join(kept), encoding="utf-8", errors="surrogateescape")
    return True
