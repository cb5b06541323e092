"""Every git operation that changes HEAD or the work tree, driven through the real pre-commit tool and real git.

After each operation the store's path->blob map must equal the target tree
(HEAD, or the index being committed), and the hooks must have embedded
exactly the texts that are new (a kept unit keeps its vector).
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from pathlib import Path

import pytest

from hookgraph.cli import git_commands
from hookgraph.sync import hooks
from hookgraph.store.lock import write_lock
from hookgraph.store import Store, db_path
from tests.helpers.hook_helpers import MATH, PYTHON, TEXT, Repo, hooks_of, new_repo

ZERO = "0" * 40


def _units(repo: Repo) -> set[str]:
    with Store(db_path(repo.path), readonly=True) as store:
        return {r[0] for r in store.db.execute("SELECT qualname FROM units WHERE kind != 'file'")}


def _add_function(text: str, name: str, body: str = "return 1") -> str:
    return text + f'\n\ndef {name}():\n    """{name.replace("_", " ")}."""\n    {body}\n'


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    """MATH, TEXT and a text file committed through the pre-commit framework's hooks."""
    r = new_repo(tmp_path)
    r.commit("initial")
    entries = r.entries()
    assert hooks_of(entries) == [("pre-commit", "synced"), ("post-commit", "fresh")]
    assert entries[0]["target"] == "index" and entries[0]["queued"] > 0 and entries[0]["embedded"] == 0
    r.assert_fresh()
    return r


def test_commit_partial_staging_commit_a_commit_path_and_amend(repo: Repo) -> None:
    # Partially staged: the commit (and the store) get the staged content, not the working tree's.
    repo.write({"calc/math.py": _add_function(MATH, "staged_only")})
    repo.git("add", "calc/math.py")
    repo.write({"calc/math.py": _add_function(_add_function(MATH, "staged_only"), "worktree_only")})
    before = repo.vectors()
    repo.git("commit", "-q", "-m", "partial")
    entries = repo.entries()
    assert hooks_of(entries) == [("pre-commit", "synced"), ("post-commit", "fresh")]
    repo.assert_fresh()
    assert "staged_only" in _units(repo) and "worktree_only" not in _units(repo)
    assert repo.assert_no_reembedding(before, entries) == 2  # the function and the file's fingerprint

    # git commit -a: git points GIT_INDEX_FILE at .git/index.lock; that is what gets committed.
    before = repo.vectors()
    repo.write({"calc/text.py": TEXT.replace('+ "!"', '+ "!!"')})
    repo.git("commit", "-q", "-a", "-m", "commit -a")
    entries = repo.entries()
    repo.assert_fresh()
    assert "worktree_only" in _units(repo)
    repo.assert_no_reembedding(before, entries)

    # git commit PATH: a temporary index holding HEAD plus PATH only.
    repo.write({"calc/text.py": TEXT, "calc/math.py": MATH})
    before = repo.vectors()
    repo.git("commit", "-q", "-m", "only text", "calc/text.py")
    entries = repo.entries()
    assert entries[0]["hook"] == "pre-commit"
    repo.assert_fresh()
    assert "worktree_only" in _units(repo)  # math.py's edit was not part of this commit
    assert repo.assert_no_reembedding(before, entries) == 0  # TEXT's texts were cached: revived

    # amend: pre-commit syncs the amended tree; post-rewrite (amend) then finds nothing to do.
    repo.write({"calc/text.py": _add_function(TEXT, "whisper")})
    repo.git("add", "calc/text.py")
    before = repo.vectors()
    repo.git("commit", "-q", "--amend", "--no-edit")
    entries = repo.entries()
    assert hooks_of(entries) == [("pre-commit", "synced"), ("post-commit", "fresh"), ("post-rewrite", "fresh")]
    assert entries[-1]["args"] == ["amend"]
    repo.assert_fresh()
    repo.assert_no_reembedding(before, entries)


def test_branch_checkout_and_file_checkout(repo: Repo) -> None:
    repo.git("checkout", "-q", "-b", "feat")
    assert hooks_of(repo.entries()) == [("post-checkout", "fresh")]
    repo.write({"calc/math.py": _add_function(MATH, "feature")})
    repo.commit("feature")
    repo.entries()

    before = repo.vectors()
    repo.git("checkout", "-q", "main")
    entries = repo.entries()
    assert hooks_of(entries) == [("post-checkout", "synced")]
    repo.assert_fresh()
    assert "feature" not in _units(repo)
    assert repo.assert_no_reembedding(before, entries) == 0

    before = repo.vectors()
    repo.git("checkout", "-q", "feat")
    entries = repo.entries()
    repo.assert_fresh()
    assert "feature" in _units(repo)
    assert repo.assert_no_reembedding(before, entries) == 0  # revived from the cache

    # A file checkout changes the index and working tree, not HEAD: the store keeps describing HEAD...
    repo.git("checkout", "-q", "main")
    repo.entries()
    repo.git("checkout", "feat", "--", "calc/math.py")
    entries = repo.entries()
    assert [e["hook"] for e in entries] == ["post-checkout"] and entries[0]["args"][2] == "0"
    repo.assert_fresh()
    # ...and the commit that follows brings the checked-out file in, without embedding.
    before = repo.vectors()
    repo.git("commit", "-q", "-m", "take feat's math")
    entries = repo.entries()
    repo.assert_fresh()
    assert "feature" in _units(repo)
    assert repo.assert_no_reembedding(before, entries) == 0


def test_fast_forward_and_true_merge(repo: Repo) -> None:
    repo.git("checkout", "-q", "-b", "side")
    repo.write({"calc/text.py": _add_function(TEXT, "murmur")})
    repo.commit("side work")
    repo.git("checkout", "-q", "main")
    repo.entries()

    before = repo.vectors()
    repo.git("merge", "-q", "--ff-only", "side")
    entries = repo.entries()
    assert hooks_of(entries) == [("post-merge", "synced")]
    assert entries[0]["args"] == ["0"]
    repo.assert_fresh()
    assert repo.assert_no_reembedding(before, entries) == 0

    repo.git("checkout", "-q", "-b", "other", "HEAD~1")
    repo.write({"calc/math.py": _add_function(MATH, "other_side")})
    repo.commit("other work")
    repo.git("checkout", "-q", "main")
    repo.write({"calc/text.py": _add_function(_add_function(TEXT, "murmur"), "mainline")})
    repo.commit("main work")
    repo.entries()

    before = repo.vectors()
    repo.git("merge", "-q", "--no-edit", "other")
    entries = repo.entries()
    assert hooks_of(entries) == [("post-merge", "synced")]
    repo.assert_fresh()
    assert {"murmur", "mainline", "other_side"} <= _units(repo)
    assert repo.assert_no_reembedding(before, entries) == 0  # both sides' texts were known


def test_pull_fast_forward_and_merge(repo: Repo, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    repo.git("clone", "-q", "--bare", str(repo.path), str(remote), cwd=tmp_path)
    repo.git("remote", "add", "origin", str(remote))
    repo.git("fetch", "-q", "origin")
    repo.git("branch", "-q", "--set-upstream-to=origin/main")
    mate = tmp_path / "mate"
    repo.git("clone", "-q", str(remote), str(mate), cwd=tmp_path)  # a teammate without hooks

    def mate_commits(files: dict[str, str], message: str) -> None:
        (mate / next(iter(files))).write_text(next(iter(files.values())))
        repo.git("commit", "-q", "-a", "-m", message, cwd=mate)
        repo.git("push", "-q", "origin", "main", cwd=mate)

    mate_commits({"calc/text.py": _add_function(TEXT, "from_mate")}, "mate 1")
    repo.entries()
    before = repo.vectors()
    repo.git("pull", "-q", "--no-rebase", "origin", "main")
    entries = repo.entries()
    assert hooks_of(entries) == [("post-merge", "synced")]
    repo.assert_fresh()
    assert "from_mate" in _units(repo)
    assert repo.assert_no_reembedding(before, entries) == 2  # the function and the file's fingerprint

    mate_commits({"calc/text.py": _add_function(_add_function(TEXT, "from_mate"), "again")}, "mate 2")
    repo.write({"calc/math.py": _add_function(MATH, "local_work")})
    repo.commit("local")
    repo.entries()
    before = repo.vectors()
    repo.git("pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
    entries = repo.entries()
    assert hooks_of(entries) == [("post-merge", "synced")]
    repo.assert_fresh()
    assert {"local_work", "again"} <= _units(repo)
    repo.assert_no_reembedding(before, entries)


def test_rebase_does_nothing_per_commit_and_catches_up_once(repo: Repo) -> None:
    repo.git("checkout", "-q", "-b", "topic")
    repo.write({"calc/text.py": _add_function(TEXT, "first")})
    repo.commit("topic 1")
    repo.write({"calc/text.py": _add_function(_add_function(TEXT, "first"), "second")})
    repo.commit("topic 2")
    repo.git("checkout", "-q", "main")
    repo.write({"calc/math.py": _add_function(MATH, "upstream")})
    repo.commit("upstream")
    repo.git("checkout", "-q", "topic")
    repo.entries()

    before = repo.vectors()
    repo.git("rebase", "-q", "main")
    entries = repo.entries()
    assert hooks_of(entries) == [
        ("post-checkout", "skipped-rebase"),
        ("post-commit", "skipped-rebase"),
        ("post-commit", "skipped-rebase"),
        ("post-rewrite", "synced"),
    ]
    assert entries[-1]["args"] == ["rebase"]
    repo.assert_fresh()
    assert {"first", "second", "upstream"} <= _units(repo)
    assert repo.assert_no_reembedding(before, entries) == 0

    # A rebase that only fast-forwards rewrites nothing and has no post-rewrite: its checkout syncs.
    repo.git("checkout", "-q", "-b", "behind", "main~1")
    repo.entries()
    repo.git("rebase", "-q", "main")
    entries = repo.entries()
    assert hooks_of(entries)[-1] == ("post-checkout", "synced")
    repo.assert_fresh()


def test_rebase_that_drops_the_last_commit_syncs_at_its_checkout(repo: Repo) -> None:
    """``rebase -i`` keeping the first commits and dropping the last (a WIP): git fast-forwards over the kept
    ones before it checks out, lists them as done and rewrites nothing, so no post-rewrite comes. The checkout
    waited for one anyway, and the index kept the dropped commit's function (found by trying, stop 57)."""
    repo.write({"calc/text.py": _add_function(TEXT, "kept")})
    repo.commit("kept")
    repo.write({"calc/math.py": _add_function(MATH, "wip_experiment")})
    repo.commit("wip")
    repo.entries()
    repo.git("rebase", "-q", "-i", "HEAD~2", GIT_SEQUENCE_EDITOR="sed -i '/ wip$/s/^pick/drop/'")
    entries = repo.entries()
    assert hooks_of(entries) == [("post-checkout", "synced")]
    repo.assert_fresh()
    assert "kept" in _units(repo) and "wip_experiment" not in _units(repo)

    # Dropping the first commit instead rewrites the rest: the checkout waits, the post-rewrite catches up.
    repo.write({"calc/math.py": _add_function(MATH, "again")})
    repo.commit("again")
    repo.entries()
    repo.git("rebase", "-q", "-i", "HEAD~2", GIT_SEQUENCE_EDITOR="sed -i '1s/^pick/drop/'")
    entries = repo.entries()
    assert hooks_of(entries)[0] == ("post-checkout", "skipped-rebase") and hooks_of(entries)[-1] == (
        "post-rewrite", "synced"), entries
    repo.assert_fresh()
    assert "kept" not in _units(repo) and "again" in _units(repo)


def test_pull_rebase(repo: Repo, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    repo.git("clone", "-q", "--bare", str(repo.path), str(remote), cwd=tmp_path)
    repo.git("remote", "add", "origin", str(remote))
    mate = tmp_path / "mate"
    repo.git("clone", "-q", str(remote), str(mate), cwd=tmp_path)
    (mate / "calc/math.py").write_text(_add_function(MATH, "mate_fn"))
    repo.git("commit", "-q", "-a", "-m", "mate", cwd=mate)
    repo.git("push", "-q", "origin", "main", cwd=mate)
    repo.write({"calc/text.py": _add_function(TEXT, "mine")})
    repo.commit("mine")
    repo.entries()
    before = repo.vectors()
    repo.git("pull", "-q", "--rebase", "origin", "main")
    entries = repo.entries()
    assert [a for _, a in hooks_of(entries)].count("synced") == 1
    assert hooks_of(entries)[-1] == ("post-rewrite", "synced")
    repo.assert_fresh()
    assert repo.assert_no_reembedding(before, entries) == 2  # mate_fn and math.py's fingerprint


def test_cherry_pick(repo: Repo) -> None:
    repo.git("checkout", "-q", "-b", "fix")
    repo.write({"calc/text.py": _add_function(TEXT, "hotfix")})
    repo.commit("hotfix")
    repo.git("checkout", "-q", "main")
    repo.write({"calc/math.py": _add_function(MATH, "mainline")})
    repo.commit("mainline")
    repo.entries()
    before = repo.vectors()
    repo.git("cherry-pick", "fix")
    entries = repo.entries()
    assert hooks_of(entries) == [("post-commit", "synced")]  # cherry-pick runs no pre-commit hook
    repo.assert_fresh()
    assert {"hotfix", "mainline"} <= _units(repo)
    assert repo.assert_no_reembedding(before, entries) == 0


def test_reset_and_stash_pop(repo: Repo) -> None:
    repo.write({"calc/math.py": _add_function(MATH, "later")})
    repo.commit("later")
    repo.entries()

    # git reset runs no hook: the store says it is stale, and the next hook catches up.
    repo.git("reset", "-q", "--hard", "HEAD~1")
    assert repo.entries() == []
    status = json.loads(repo.hookgraph("status", "--json").stdout)
    assert status["stale_vs_head"] == ["calc/math.py"] and status["indexed_commit"] != status["head"]
    before = repo.vectors()
    repo.git("checkout", "-q", "-b", "after-reset")
    entries = repo.entries()
    assert hooks_of(entries) == [("post-checkout", "synced")]
    repo.assert_fresh()
    assert "later" not in _units(repo)
    assert repo.assert_no_reembedding(before, entries) == 0

    # reset --soft keeps the index: the next commit (pre-commit on the index) is right.
    repo.write({"calc/text.py": _add_function(TEXT, "soft")})
    repo.commit("soft 1")
    repo.git("reset", "-q", "--soft", "HEAD~1")
    repo.entries()
    repo.git("commit", "-q", "-m", "soft 2")
    # the store still described the index (the old HEAD): nothing to do at all
    assert hooks_of(repo.entries()) == [("pre-commit", "fresh"), ("post-commit", "fresh")]
    repo.assert_fresh()

    # stash / stash pop touch the working tree only: the store keeps describing HEAD.
    repo.write({"calc/math.py": _add_function(MATH, "stashed")})
    repo.git("stash", "-q")
    repo.git("stash", "pop", "-q")
    assert repo.entries() == []
    repo.assert_fresh()
    before = repo.vectors()
    repo.git("commit", "-q", "-a", "-m", "popped")
    entries = repo.entries()
    repo.assert_fresh()
    assert "stashed" in _units(repo)
    assert repo.assert_no_reembedding(before, entries) == 2


def test_clone_runs_post_checkout_from_the_all_zero_ref(repo: Repo, tmp_path: Path) -> None:
    template = tmp_path / "template"
    proc = subprocess.run([PYTHON, "-m", "pre_commit", "init-templatedir", "-t", "post-checkout", str(template)],
                          cwd=repo.path, env=repo.env(), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    clone = tmp_path / "clone"
    repo.git("clone", "-q", "--template", str(template), str(repo.path), str(clone), cwd=tmp_path)
    entries = repo.entries()
    assert hooks_of(entries) == [("post-checkout", "synced")]
    assert entries[0]["args"][0] == ZERO
    repo.assert_fresh(root=clone)


# -- never in the way --------------------------------------------------------------------


def test_a_failing_hook_warns_in_one_line_and_lets_git_go_on(repo: Repo) -> None:
    db_path(repo.path).write_bytes(b"this is not a database" * 100)
    for name in ("-wal", "-shm"):
        Path(str(db_path(repo.path)) + name).unlink(missing_ok=True)
    repo.write({"calc/math.py": _add_function(MATH, "broken_store")})
    repo.git("add", "-A")
    proc = repo.hookgraph("hook", "pre-commit")
    assert proc.returncode == 0
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("hookgraph: warning: pre-commit hook skipped:")
    strict = repo.hookgraph("hook", "--strict", "pre-commit")
    assert strict.returncode == 1 and len(strict.stderr.splitlines()) == 1
    strict_env = repo.hookgraph("hook", "pre-commit", HOOKGRAPH_STRICT="1")
    assert strict_env.returncode == 1
    repo.git("commit", "-q", "-m", "commits anyway")  # through the pre-commit framework
    assert [e["action"] for e in repo.entries()][-2:] == ["failed", "failed"]


def test_concurrent_hooks_serialise_on_the_lock(repo: Repo) -> None:
    repo.write({"calc/math.py": _add_function(MATH, "racy")})
    repo.git("add", "-A")
    repo.git("commit", "-q", "--no-verify", "-m", "no pre-commit", HOOKGRAPH_SKIP="1")
    repo.entries()

    # Another writer holds the lock longer than we wait: one warning line, exit 0, store untouched.
    before_map = repo.store_map()
    with write_lock(db_path(repo.path).parent, timeout=5):
        proc = repo.hookgraph("hook", "post-commit", HOOKGRAPH_LOCK_TIMEOUT="0.5")
    assert proc.returncode == 0
    assert len(proc.stderr.splitlines()) == 1 and "another hookgraph process" in proc.stderr
    assert repo.store_map() == before_map
    assert [e["action"] for e in repo.entries()] == ["failed"]

    # Two hooks at once (an editor's git and a terminal's): both succeed, the second finds the work done.
    before = repo.vectors()
    results: list[subprocess.CompletedProcess[str]] = []

    def run() -> None:
        results.append(repo.hookgraph("hook", "post-commit"))

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r.returncode for r in results] == [0, 0]
    entries = repo.entries()
    assert sorted(e["action"] for e in entries) == ["fresh", "synced"]
    repo.assert_fresh()
    assert repo.assert_no_reembedding(before, entries) == 2
    with Store(db_path(repo.path), readonly=True) as store:
        assert store.db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]


def test_hook_output_is_one_short_line_or_nothing(repo: Repo) -> None:
    proc = repo.hookgraph("hook", "post-checkout", ZERO, ZERO, "1")
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    repo.write({"calc/math.py": _add_function(MATH, "talkative")})
    repo.git("add", "-A")
    proc = repo.hookgraph("hook", "pre-commit")
    assert proc.returncode == 0 and proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and len(proc.stderr) < 100
    assert proc.stderr.startswith("hookgraph: 1 file synced; 2 texts to embed (`hookgraph index --wait`)"), proc.stderr


def test_a_commit_without_code_imports_nothing_heavy(repo: Repo) -> None:
    # Plain text is indexed as chunks by default, and the pre-commit hook embeds them (until
    # embedding leaves the hook); with unknown_text = "skip" a text-only commit is code-free.
    repo.write({"NOTES.txt": "more notes\n", ".hookgraph/config.toml": '[index]\nunknown_text = "skip"\n'})
    repo.git("add", "NOTES.txt")
    proc = subprocess.run([PYTHON, "-X", "importtime", "-m", "hookgraph.cli", "hook", "pre-commit"],
                          cwd=repo.path, env=repo.env(), capture_output=True, text=True)
    assert proc.returncode == 0
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert imported, proc.stderr[-500:]
    for heavy in ("llama_cpp", "numpy", "tree_sitter", "tree_sitter_language_pack", "sqlite3"):
        assert heavy not in imported, f"{heavy} imported by a code-free hook"
    assert hooks_of(repo.entries()) == [("pre-commit", "synced")]
    repo.assert_fresh(target="index")


def test_skip_variable_and_unknown_hook(repo: Repo) -> None:
    proc = repo.hookgraph("hook", "post-checkout", HOOKGRAPH_SKIP="1")
    assert proc.returncode == 0 and repo.entries()[0]["action"] == "skipped"
    proc = repo.hookgraph("hook", "pre-push")
    assert proc.returncode == 2 and "unknown hook" in proc.stderr


# -- units ---------------------------------------------------------------------------------


def test_detect_hook_name_from_pre_commit_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hooks, "_parent_hook_type", lambda: None)
    assert hooks.detect_hook_name({"PRE_COMMIT_CHECKOUT_TYPE": "1"}) == "post-checkout"
    assert hooks.detect_hook_name({"PRE_COMMIT_IS_SQUASH_MERGE": "0"}) == "post-merge"
    assert hooks.detect_hook_name({"PRE_COMMIT_REWRITE_COMMAND": "rebase"}) == "post-rewrite"
    assert hooks.detect_hook_name({"GIT_INDEX_FILE": ".git/index"}) == "pre-commit"
    assert hooks.detect_hook_name({}) is None
    monkeypatch.setattr(hooks, "_parent_hook_type", lambda: "post-commit")
    assert hooks.detect_hook_name({"GIT_INDEX_FILE": ".git/index"}) == "post-commit"
    # A stage we have no use for (a user's config added pre-merge-commit): exit 0, nothing done.
    monkeypatch.setattr(hooks, "_parent_hook_type", lambda: "pre-merge-commit")
    assert git_commands.run_git_hook(None, []) == 0


def test_rebase_state(tmp_path: Path) -> None:
    gitdir = tmp_path / "git"
    (gitdir / "rebase-merge").mkdir(parents=True)
    (gitdir / "rebase-merge" / "git-rebase-todo").write_text("# nothing to do\n")
    (gitdir / "rebase-merge" / "done").write_text("noop\n")
    assert not hooks.rebase_in_progress(gitdir)  # a fast-forward: no post-rewrite will come
    (gitdir / "rebase-merge" / "git-rebase-todo").write_text("pick 1234567 work\n# comment\n")
    assert hooks.rebase_in_progress(gitdir)
    os.rename(gitdir / "rebase-merge", gitdir / "rebase-apply")
    assert hooks.rebase_in_progress(gitdir)
    (gitdir / "rebase-apply" / "applying").write_text("")
    assert not hooks.rebase_in_progress(gitdir)  # git am: no post-rewrite
    os.rename(gitdir / "rebase-apply", gitdir / "rebase-merge")
    (gitdir / "rebase-merge" / "applying").unlink()
    (gitdir / "rebase-merge" / "git-rebase-todo").write_text("drop 89abcde wip\n")
    (gitdir / "rebase-merge" / "done").write_text("pick 1234567 kept\n")  # fast-forwarded before the checkout
    assert hooks.rebase_in_progress(gitdir)  # a commit's hook: the pick in done is the one being made
    assert not hooks.rebase_in_progress(gitdir, "post-checkout")  # the rebase's checkout: nothing left rewrites
    (gitdir / "rebase-merge" / "rewritten-list").write_text("1234567 fedcba9\n")
    assert hooks.rebase_in_progress(gitdir, "post-checkout")  # something was rewritten: a post-rewrite comes
