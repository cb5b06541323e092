"""Keeping the index in step with git: the package's face.

The work lives in modules named by their job:

* :mod:`hookgraph.sync.reconcile`: :func:`sync`, the store reconciled with a target tree;
* :mod:`hookgraph.sync.target`: the target ``{path: blob SHA}`` (HEAD, the index, a worktree);
* :mod:`hookgraph.sync.parallel`, ``crash_guard``: files read and parsed on every core, a crashing
  parser isolated;
* :mod:`hookgraph.sync.shared`, ``overlay``, ``teammate_model``: the committed snapshot, the MCP server's
  private copy, a teammate's model change (vectors taken from snapshots and caches: :mod:`hookgraph.embed.adopt`);
* :mod:`hookgraph.sync.hooks`, ``install``, ``freshness``: the git hooks, their installation, and
  whether the index is fresh.
"""

from hookgraph.sync.reconcile import Progress, SyncReport, sync
from hookgraph.sync.target import TARGETS, SyncError, Target, read_target

__all__ = ["TARGETS", "Progress", "SyncError", "SyncReport", "Target", "read_target", "sync"]
