"""Snapshots as an older hookgraph committed them (a compacted SQLite copy of the index), for tests.

Now hookgraph writes vector files, whose unchanged rows stay unchanged bytes (:mod:`hookgraph.store.vector_file`);
clones must still handle the SQLite snapshots already in people's histories (adopt
their vectors after the check, or ignore them with one line), and those carried
facts an attacker could forge. This writes one the way the old export did.
"""

from __future__ import annotations

import os
from pathlib import Path

import apsw

from hookgraph.store import Store, db_path
from hookgraph.store.snapshot import snapshot_path


def export_database_snapshot(root: Path, dest: Path | None = None) -> Path:
    """The pre-item-7 export: ``VACUUM INTO`` of the working index, its orphan cache dropped, rollback journal."""
    snap = dest or snapshot_path(root)
    tmp = snap.with_name(snap.name + ".legacy")
    if tmp.exists():
        tmp.unlink()
    with Store(db_path(root)) as store:
        store.db.execute("VACUUM INTO ?", (str(tmp),))
    db = apsw.Connection(str(tmp))
    try:
        db.execute("PRAGMA journal_mode=DELETE")
        db.execute("DELETE FROM vector_cache")
        db.execute("VACUUM")
    finally:
        db.close()
    os.replace(tmp, snap)
    return snap
