"""git plumbing against real repositories."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from hookgraph import git as g
from tests.conftest import commit_all, git, make_repo, write_files


def test_tree_map_lists_regular_files_with_blob_and_size(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n", "dir/b.go": "package b\n"})
    (repo / "link").symlink_to("a.py")
    commit_all(repo)
    tree = g.tree_map(repo)
    assert set(tree) == {"a.py", "dir/b.go", "link"}
    assert not tree["link"].regular  # listed, so the store counts it as skipped, but not file content
    expected = git(repo, "rev-parse", "HEAD:a.py").strip()
    assert tree["a.py"] == g.Entry(expected, 6)


def test_empty_repo_has_no_head_and_an_empty_tree(repo: Path) -> None:
    assert g.head_commit(repo) is None
    assert g.tree_map(repo) == {}


def test_index_map_reads_staged_content_not_worktree(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    (repo / "a.py").write_text("x = 2\n")
    git(repo, "add", "a.py")
    (repo / "a.py").write_text("x = 3\n")  # partially staged: index has x = 2
    staged = g.index_map(repo)["a.py"].blob
    assert staged == g.blob_sha(b"x = 2\n")
    assert g.worktree_changes(repo) == ["a.py"]


def test_blob_sha_matches_git_hash_object(tmp_path: Path) -> None:
    data = b"hello\x00world\n" * 3
    path = tmp_path / "f"
    path.write_bytes(data)
    out = subprocess.run(["git", "hash-object", str(path)], capture_output=True, text=True, check=True)
    assert g.blob_sha(data) == out.stdout.strip()


def test_blob_reader_reads_many_blobs_through_one_process(tmp_path: Path) -> None:
    files = {f"m{i}.py": f"value = {i}\n" * (i + 1) for i in range(20)}
    repo = make_repo(tmp_path / "r", files)
    tree = g.tree_map(repo)
    with g.BlobReader(repo) as reader:
        for path, entry in tree.items():
            assert reader.read(entry.blob) == files[path].encode()
        assert reader.read("0" * 40) is None


def test_a_blob_reader_whose_git_was_interrupted_is_interrupted_not_missing_a_blob(tmp_path: Path) -> None:
    """Ctrl-C reaches ``git cat-file`` too (one process group) and it may die before Python hears of it: the
    next read is a KeyboardInterrupt (the hook's one "interrupted" line), not a broken pipe reported as the
    hook's own failure, and never None as if the blob were missing. Another death is a GitError."""
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n", "b.py": "y = 2\n"})
    tree = g.tree_map(repo)
    a, b = tree["a.py"].blob, tree["b.py"].blob
    for sig, raised in ((signal.SIGINT, KeyboardInterrupt), (signal.SIGKILL, g.GitError)):
        with g.BlobReader(repo) as reader:
            assert reader.read(a) == b"x = 1\n"
            proc = reader._proc
            assert proc is not None
            proc.send_signal(sig)
            proc.wait()
            with pytest.raises(raised):
                reader.read(b)
            assert reader.read(b) == b"y = 2\n"  # a new process for the next read


def test_a_git_command_that_dies_of_ctrl_c_is_an_interruption(tmp_path: Path) -> None:
    """git.run: a git that a Ctrl-C killed (here an alias that sends SIGINT to its git) is KeyboardInterrupt,
    not a GitError the hook would report as its own failure; another failure stays a GitError."""
    with pytest.raises(KeyboardInterrupt):
        g.run(["-c", "alias.interrupted=!kill -INT $PPID", "interrupted"], tmp_path)
    with pytest.raises(g.GitError):
        g.run(["-c", "alias.failed=!exit 3", "failed"], tmp_path)


def test_odd_file_names_round_trip(tmp_path: Path) -> None:
    names = ["with space.py", "quote\"d.py", "ünïcode.py", "new\nline.py"]
    repo = make_repo(tmp_path / "r", {n: "x = 1\n" for n in names})
    assert set(g.tree_map(repo)) == set(names)


def test_repo_root_outside_a_repository_says_so(tmp_path: Path) -> None:
    with pytest.raises(g.GitError, match="not inside a git repository"):
        g.repo_root(tmp_path)


def test_read_worktree_file_refuses_to_leave_the_repository(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "x\n"})
    (tmp_path / "secret").write_text("s")
    (repo / "out").symlink_to(tmp_path / "secret")
    assert g.read_worktree_file(repo, "a.py") == b"x\n"
    assert g.read_worktree_file(repo, "../secret") is None
    assert g.read_worktree_file(repo, "out") is None
    write_files(repo, {"b.py": "y\n"})
    assert g.read_worktree_file(repo, "b.py") == b"y\n"
