"""Incremental sync by blob SHA with the real parser, the real model and real git."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookgraph import git as g
from hookgraph.store import Store, db_path
from hookgraph.sync import SyncError
from tests.conftest import commit_all, git, index_now, make_repo, run_cli, write_files

SERVICE = '''"""Billing service."""

import json


def parse_amount(text):
    """Turn '12.50' into cents."""
    whole, _, frac = text.partition(".")
    return int(whole) * 100 + int((frac + "00")[:2])


def format_amount(cents):
    """Cents back to a display string."""
    return f"{cents // 100}.{cents % 100:02d}"


class Invoice:
    """A bill for one customer."""

    def __init__(self, lines):
        self.lines = lines

    def total(self):
        return sum(parse_amount(x) for x in self.lines)

    def to_json(self):
        return json.dumps({"total": format_amount(self.total())})
'''

HELPERS = '''def slugify(title):
    """Lower-case words joined by dashes."""
    return "-".join(title.lower().split())
'''


def _sync(repo: Path, embedder, kind: str = "head", **kw):
    """A sync and then the embedding it queued (``index --wait``): the tests count what was embedded."""
    return index_now(repo, embedder, kind, **kw)


def _map(repo: Path) -> dict[str, str]:
    with Store(db_path(repo)) as store:
        return store.file_map()


def _qualnames(repo: Path) -> set[tuple[str, str]]:
    with Store(db_path(repo)) as store:
        return {(r[0], r[1]) for r in store.db.execute("SELECT path, qualname FROM units WHERE kind != 'file'")}


def _tree(repo: Path) -> dict[str, str]:
    return {p: e.blob for p, e in g.tree_map(repo).items()}


@pytest.fixture
def billing(tmp_path: Path, embedder) -> Path:
    repo = make_repo(tmp_path / "billing", {"billing/service.py": SERVICE, "billing/helpers.py": HELPERS,
                                           "README.md": "# Billing\n\nHow invoices are totalled.\n"})
    _sync(repo, embedder)
    return repo


def test_first_sync_indexes_every_file_and_matches_head(billing: Path) -> None:
    assert _map(billing) == _tree(billing)
    assert {
        ("billing/service.py", "parse_amount"),
        ("billing/service.py", "Invoice"),
        ("billing/service.py", "Invoice.total"),
        ("billing/helpers.py", "slugify"),
    } <= _qualnames(billing)


def test_second_sync_with_no_change_does_nothing(billing: Path, embedder) -> None:
    before = embedder.texts_embedded
    report = _sync(billing, embedder)
    assert report.changed == 0 and embedder.texts_embedded == before


def test_editing_one_function_reembeds_exactly_one_unit(billing: Path, embedder) -> None:
    text = (billing / "billing/service.py").read_text()
    (billing / "billing/service.py").write_text(text.replace("return sum(parse_amount(x) for x in self.lines)",
                                                             "return sum(parse_amount(x) for x in self.lines if x)"))
    commit_all(billing)
    before = embedder.texts_embedded
    report = _sync(billing, embedder)
    assert embedder.texts_embedded - before == 1
    assert report.modified == 1 and report.texts_embedded == 1
    assert _map(billing) == _tree(billing)


def test_rename_keeps_every_code_vector(billing: Path, embedder) -> None:
    git(billing, "mv", "billing/helpers.py", "billing/text.py")
    commit_all(billing)
    before = embedder.texts_embedded
    report = _sync(billing, embedder)
    # Only the file-level unit (its fingerprint names the path) is new; slugify keeps its vector.
    assert embedder.texts_embedded - before == 1
    assert report.added == 1 and report.deleted == 1
    assert ("billing/text.py", "slugify") in _qualnames(billing)
    assert ("billing/helpers.py", "slugify") not in _qualnames(billing)
    assert _map(billing) == _tree(billing)


def test_delete_removes_units_edges_and_orphan_vectors(billing: Path, embedder) -> None:
    with Store(db_path(billing)) as store:  # edges have no path (schema 4): a file's are its units'
        sources = [u.id for u in store.units_where("path = ?", ("billing/helpers.py",))]
        assert store.edges_from(sources)
    git(billing, "rm", "-q", "billing/helpers.py")
    commit_all(billing)
    _sync(billing, embedder)
    with Store(db_path(billing)) as store:
        assert store.units_where("path = ?", ("billing/helpers.py",)) == []
        assert store.edges_from(sources) == []
        assert store.db.execute(
            "SELECT count(*) FROM edges WHERE source_unit NOT IN (SELECT id FROM units)"
        ).fetchall()[0][0] == 0
        orphans = store.db.execute(
            "SELECT count(*) FROM vectors v WHERE NOT EXISTS (SELECT 1 FROM units u WHERE u.vector_id = v.id)"
        ).fetchall()[0][0]
        assert orphans == 0
        assert store.db.execute("SELECT count(*) FROM vec_units").fetchall()[0][0] == \
            store.db.execute("SELECT count(*) FROM vectors").fetchall()[0][0]
    assert _map(billing) == _tree(billing)


def test_deleted_then_restored_file_is_revived_not_reembedded(billing: Path, embedder) -> None:
    write_files(billing, {"billing/extra.py": "def refund(cents):\n    return -cents\n"})
    commit_all(billing)
    report = _sync(billing, embedder)
    assert report.added == 1 and report.texts_embedded == 2  # the function and the file unit
    git(billing, "revert", "--no-edit", "HEAD")
    _sync(billing, embedder)
    assert ("billing/extra.py", "refund") not in _qualnames(billing)
    git(billing, "revert", "--no-edit", "HEAD")  # back again: the same texts
    before = embedder.texts_embedded
    _sync(billing, embedder)
    assert embedder.texts_embedded == before
    assert ("billing/extra.py", "refund") in _qualnames(billing)
    assert _map(billing) == _tree(billing)


def test_reverted_edit_is_revived_not_reembedded(billing: Path, embedder) -> None:
    original = (billing / "billing/helpers.py").read_text()
    write_files(billing, {"billing/helpers.py": original.replace(".split()", ".split(' ')")})
    commit_all(billing)
    assert _sync(billing, embedder).texts_embedded == 1
    write_files(billing, {"billing/helpers.py": original})
    commit_all(billing)
    assert _sync(billing, embedder).texts_embedded == 0


def test_skipped_files_are_counted_by_reason(tmp_path: Path, embedder) -> None:
    repo = make_repo(tmp_path / "r", {
        "app.py": "def main():\n    return 1\n",
        "logo.png": b"\x89PNG\r\n\x1a\n\x00\x00binary",
        "blob.py": b"x = 1\x00\x00\n",
        "static/app.min.js": "var a=1;",
        "vendor/lib.py": "def theirs():\n    pass\n",
        "bundle.js": "var a=1;" * 2000,
    })
    report = _sync(repo, embedder)
    assert report.skipped == {"binary": 2, "generated": 1, "vendored": 1, "minified": 1}
    with Store(db_path(repo)) as store:
        statuses = dict(store.db.execute("SELECT path, status FROM files").fetchall())
    assert statuses["app.py"] == "indexed"
    assert statuses["logo.png"] == "skipped:binary"  # by its name: never read
    assert statuses["vendor/lib.py"] == "skipped:vendored"
    assert _map(repo) == _tree(repo)  # skipped files are still tracked, so freshness is exact


def test_index_target_reads_staged_content(billing: Path, embedder) -> None:
    write_files(billing, {"billing/helpers.py": HELPERS + "\n\ndef staged_only():\n    return 2\n"})
    git(billing, "add", "billing/helpers.py")
    write_files(billing, {"billing/helpers.py": HELPERS + "\n\ndef worktree_only():\n    return 3\n"})
    _sync(billing, embedder, kind="index")
    names = _qualnames(billing)
    assert ("billing/helpers.py", "staged_only") in names
    assert ("billing/helpers.py", "worktree_only") not in names
    _sync(billing, embedder, kind="worktree")
    names = _qualnames(billing)
    assert ("billing/helpers.py", "worktree_only") in names


def test_the_worktree_target_takes_untracked_files_git_does_not_ignore(tmp_path: Path, embedder) -> None:
    """An agent's new file is part of the working tree; an ignored one, or a flood of them, is not."""
    from hookgraph.sync import target as target_module
    from hookgraph.sync.target import read_target

    repo = make_repo(tmp_path / "r", {"app.py": "def app():\n    return 1\n", ".gitignore": "build/\n"})
    write_files(repo, {"new_feature.py": "def brand_new_feature():\n    return 2\n",
                       "build/out.py": "def built():\n    return 3\n", "vendor/dep.py": "def dep():\n    pass\n"})
    target = read_target(repo, "worktree")
    assert "new_feature.py" in target.entries and target.overrides["new_feature.py"].startswith(b"def brand_new")
    assert "build/out.py" not in target.entries  # ignored by .gitignore
    assert "vendor/dep.py" not in target.entries  # the indexer skips vendored code: not even read
    assert target.untracked_left_out == [] and "new_feature.py" not in read_target(repo, "index").entries
    _sync(repo, embedder, kind="worktree")
    assert ("new_feature.py", "brand_new_feature") in _qualnames(repo)

    write_files(repo, {f"scratch/note_{i}.py": f"x = {i}\n" for i in range(target_module.MAX_UNTRACKED + 1)})
    flooded = read_target(repo, "worktree")
    assert len(flooded.untracked_left_out) == target_module.MAX_UNTRACKED + 2  # the scratch files and the new one
    assert "new_feature.py" not in flooded.entries and "app.py" in flooded.entries
    told = run_cli(repo, "index", "--worktree", "--no-wait")
    assert told.returncode == 0 and f"{target_module.MAX_UNTRACKED + 2} untracked files are not indexed" in told.stderr


def test_full_rebuild_gives_the_same_units(billing: Path, embedder) -> None:
    before = _qualnames(billing)
    report = _sync(billing, embedder, full=True)
    assert report.added == len(_tree(billing))
    assert _qualnames(billing) == before


def test_failed_sync_leaves_previous_state(billing: Path, embedder, monkeypatch: pytest.MonkeyPatch) -> None:
    """An error in the middle of a sync rolls the whole sync back."""
    before = _map(billing)
    write_files(billing, {"billing/a.py": "def a():\n    pass\n", "billing/z.py": "def z():\n    pass\n"})
    commit_all(billing)
    import hookgraph.sync.reconcile as sync_module

    real = sync_module._write_units
    calls = {"n": 0}

    def failing(store, parsed, embed):
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("disk on fire")
        return real(store, parsed, embed)

    monkeypatch.setattr(sync_module, "_write_units", failing)
    with pytest.raises(RuntimeError):
        _sync(billing, embedder)
    assert _map(billing) == before
    monkeypatch.undo()
    _sync(billing, embedder)
    assert _map(billing) == _tree(billing)


def test_sync_refuses_another_models_store(billing: Path, embedder) -> None:
    with Store(db_path(billing)) as store:
        store.set_meta("model_sha256", "f" * 64)
    write_files(billing, {"billing/new.py": "def new():\n    pass\n"})
    commit_all(billing)
    with pytest.raises(SyncError, match="index --full"):
        _sync(billing, embedder)


def test_a_first_index_leaves_no_wal_for_the_next_process_to_recover(tmp_path: Path, embedder) -> None:
    """A whole index is copied from the WAL into the file before the sync returns. A WAL left with the index in it
    (d3d6b74 to b16c803) made the next process to open the store (the background embedder) recover and copy it while
    holding SQLite's locks: an embedder frozen in that moment blocked every other command (benchmarks/RESULTS.md)."""
    from hookgraph.sync import read_target, sync

    repo = make_repo(tmp_path / "billing", {"billing/service.py": SERVICE, "billing/helpers.py": HELPERS})
    sync(repo, read_target(repo, "head"), embedder=embedder, background=False)
    database = db_path(repo)
    wal = Path(f"{database}-wal")
    assert not wal.exists() or wal.stat().st_size == 0
    with Store(database, readonly=True, immutable=True) as store:  # the file alone holds the whole index
        units = store.integer("SELECT count(*) FROM units")
        assert units > 5 and store.file_map() == _tree(repo)
    sync(repo, read_target(repo, "head"), embedder=embedder, background=False, full=True)  # --full alike
    assert not wal.exists() or wal.stat().st_size == 0
    write_files(repo, {"billing/helpers.py": HELPERS + "\n\ndef shout(text):\n    return text.upper()\n"})
    commit_all(repo, "shout")
    sync(repo, read_target(repo, "head"), embedder=embedder, background=False)
    assert not wal.exists() or wal.stat().st_size == 0  # a sync of a change closes as always: checkpointed
    with Store(database, readonly=True, immutable=True) as store:
        assert store.integer("SELECT count(*) FROM units") > units
