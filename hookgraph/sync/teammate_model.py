"""A teammate's model change: the commit that changed the committed model setting, and the one line that says so.

Shared by the sync (follow a model switch that came with a matching snapshot), the freshness report and
``ask`` (name the teammate's commit when the index and the configured model disagree); kept apart from
:mod:`hookgraph.sync.shared` so that the sync and shared mode do not import each other.
"""

from __future__ import annotations

from pathlib import Path

from hookgraph import git

__all__ = ["explain_mismatch", "model_change", "snapshot_recipe"]


def model_change(root: Path) -> str | None:
    """``commit <hash> (<author>: <subject>)``: the last commit that changed the committed model setting.

    None when the setting is not tracked, or differs from HEAD's here (then the
    change is this user's own ``hookgraph model use``, not a teammate's).
    """
    from hookgraph.store.snapshot import CONFIG_FILE, DB_DIRNAME

    config = f"{DB_DIRNAME}/{CONFIG_FILE}"
    try:
        if git.run(["status", "--porcelain", "--", config], root).strip():
            return None
        line = git.run(["log", "-1", "--format=%h%x00%an%x00%s", "--", config], root).decode(
            "utf-8", "replace").strip()
    except git.GitError:
        return None
    if not line:
        return None
    commit, author, subject = (line.split("\0") + ["", ""])[:3]
    return f"commit {commit} ({' '.join(author.split())}: {' '.join(subject.split())[:60]})"


def snapshot_recipe(root: Path) -> str | None:
    """The embedding recipe the checked-out snapshot says it holds (a hint: its vectors are still checked)."""
    from hookgraph.store.snapshot import SnapshotVectors, is_shared, snapshot_path

    path = snapshot_path(root)
    if not is_shared(root) or not path.is_file():
        return None
    offered = SnapshotVectors(path, "the committed snapshot", root)
    try:
        return offered.recipe()
    finally:
        offered.close()


def explain_mismatch(root: Path | None, problem: str, recipe: str | None = None) -> str:
    """A store/model mismatch, naming the teammate's commit that changed the model when there is one.

    A model change that came with a matching snapshot is followed by the sync
    itself (see ``_model_switch`` in :mod:`hookgraph.sync`); this is the other case: the one command left.
    """
    from hookgraph.store.snapshot import is_shared

    by = model_change(root) if root is not None and is_shared(root) else None
    if by is None:
        return problem
    head = problem.split(": run `", 1)[0]
    if recipe is not None and snapshot_recipe(root) == recipe:  # type: ignore[arg-type]
        return (f"{head}; the model was changed by {by} with a snapshot embedded by it: run `hookgraph index` "
                f"to follow it (the snapshot's vectors are adopted after a sampled check)")
    return (f"{head}; the model was changed by {by}, and the committed snapshot holds no vectors for it: "
            f"run `hookgraph index --reembed` to follow it (every text is embedded with the new model)")
