"""``hookgraph install --uninstall --purge``: everything hookgraph made in a clone goes, nothing git tracks does
unless sharing is turned off in the same command, and then it says so (:mod:`hookgraph.sync.purge`)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import TINY_APP, git, make_repo, run_cli


def test_purge_removes_the_index_the_cache_the_exclude_line_and_the_hooks(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"app.py": TINY_APP})
    exclude = root / ".git" / "info" / "exclude"
    exclude_before = exclude.read_text()
    hooks_before = sorted(p.name for p in (root / ".git" / "hooks").iterdir())
    run_cli(root, "install", check=True)
    run_cli(root, "index", "--wait", check=True)
    assert (root / ".git" / "hookgraph" / "vectors.db").exists() and "/.hookgraph/" in exclude.read_text()

    kept_going = run_cli(root, "install", "--uninstall")  # without --purge: the index stays, as documented
    assert kept_going.returncode == 0 and (root / ".hookgraph" / "index.db").exists()
    proc = run_cli(root, "install", "--uninstall", "--purge")
    assert proc.returncode == 0, proc.stderr
    assert "purged: .hookgraph/ (" in proc.stdout and ".git/hookgraph/" in proc.stdout, proc.stdout
    assert not (root / ".hookgraph").exists()
    assert not (root / ".git" / "hookgraph").exists()
    assert exclude.read_text() == exclude_before
    assert sorted(p.name for p in (root / ".git" / "hooks").iterdir()) == hooks_before
    assert git(root, "status", "--porcelain", "--untracked-files=all") == ""
    again = run_cli(root, "install", "--uninstall", "--purge")
    assert again.returncode == 0 and "nothing of hookgraph's was left here" in again.stdout
    assert run_cli(root, "install", "--purge").returncode == 2  # --purge belongs to --uninstall


def test_purge_in_a_shared_repository_keeps_what_git_tracks_and_names_it(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"app.py": TINY_APP})
    run_cli(root, "install", "--shared", check=True)
    git(root, "commit", "-q", "-m", "share the index")
    tracked = sorted(git(root, "ls-files", ".hookgraph").split())
    assert ".hookgraph/shared.db" in tracked

    proc = run_cli(root, "install", "--uninstall", "--purge")
    assert proc.returncode == 0, proc.stderr
    assert "kept what git tracks: " + ", ".join(tracked) in proc.stdout, proc.stdout
    assert sorted(str(p.relative_to(root)) for p in (root / ".hookgraph").iterdir()) == tracked
    assert git(root, "status", "--porcelain") == ""  # the committed snapshot untouched

    stop = run_cli(root, "install", "--uninstall", "--shared", "--purge")
    assert stop.returncode == 0, stop.stderr
    assert "commit the removal" in stop.stdout, stop.stdout  # the snapshot leaves git: said, not done silently
    assert not (root / ".hookgraph").exists()
    assert sorted(git(root, "diff", "--cached", "--name-only").split()) == tracked
