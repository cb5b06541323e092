"""What ``status`` and ``ask`` say about how current the index is, after the ordinary things a week brings.

``indexed_commit`` names the commit whose blobs the index holds, or nothing - never a commit for text from
another one (DESIGN.md section 4); a model switch merged from a branch is told as the cause of a stale
index, while ``ask`` still answers by words and graph; a file this user may not read is named, never
counted as deleted.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import TINY_APP, clean_env, commit_all, git, make_repo, run_cli, write_files

SECOND = TINY_APP.replace("Download a page, trying again when the network fails.",
                          "Download a page, retrying with backoff when the network fails.")


def _status(root: Path) -> dict:
    return json.loads(run_cli(root, "status", "--json", check=True).stdout)


def _head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


# -- indexed_commit ------------------------------------------------------------------------------------------


def test_a_reset_after_hooked_commits_names_the_commit_the_text_is_from(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"app.py": TINY_APP})
    run_cli(root, "install", check=True)
    run_cli(root, "index", check=True)
    first = _head(root)
    write_files(root, {"app.py": SECOND})
    second = commit_all(root, "retry with backoff")  # through the hooks: the index describes it at once
    assert _status(root)["indexed_commit"] == second and _status(root)["fresh"]

    git(root, "reset", "-q", "--hard", "HEAD~1")  # runs no hook: the index still holds the second commit's text
    status = _status(root)
    assert status["head"] == first and not status["fresh"] and status["stale_vs_head"] == ["app.py"]
    assert status["indexed_commit"] == second, status  # the commit the text is from, not HEAD

    pack = run_cli(root, "ask", "fetch_page", "--no-semantic", "--context", "300")
    assert "retrying with backoff" in pack.stdout  # the indexed text, from the second commit
    assert f"the code below is as of commit {second[:12]}, HEAD is {first[:12]}" in pack.stdout, pack.stdout
    answer = json.loads(run_cli(root, "ask", "fetch_page", "--no-semantic", "--json").stdout)
    assert answer["indexed_commit"] == second and answer["stale_paths"] == ["app.py"]


def test_a_map_that_no_commit_holds_names_no_commit(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"app.py": TINY_APP})
    run_cli(root, "index", check=True)
    write_files(root, {"app.py": SECOND})
    run_cli(root, "index", "--worktree", check=True)  # uncommitted text: no commit holds it
    status = _status(root)
    assert status["stale_vs_head"] == ["app.py"] and status["indexed_commit"] is None, status
    pack = run_cli(root, "ask", "fetch_page", "--no-semantic", "--context", "300").stdout
    assert "retrying with backoff" in pack and "as of commit" not in pack
    assert "no commit is known to hold it" in pack, pack

    run_cli(root, "index", check=True)  # back to HEAD's text: HEAD again
    assert _status(root)["indexed_commit"] == _head(root)


def test_an_index_from_before_the_map_digest_is_checked_against_the_commits_tree(tmp_path: Path) -> None:
    from hookgraph.store import Store, db_path
    from hookgraph.sync import freshness

    root = make_repo(tmp_path / "repo", {"app.py": TINY_APP})
    run_cli(root, "index", check=True)
    first = _head(root)
    with Store(db_path(root)) as store, store.transaction():  # as an older hookgraph left it
        store.db.execute("DELETE FROM meta WHERE key = ?", (freshness.SYNCED_MAP_META,))
    write_files(root, {"app.py": SECOND})
    commit_all(root, "no hooks here")
    assert _status(root)["indexed_commit"] == first  # the map still equals the first commit's tree
    run_cli(root, "index", "--worktree", check=True)
    with Store(db_path(root)) as store, store.transaction():
        store.db.execute("DELETE FROM meta WHERE key = ?", (freshness.SYNCED_MAP_META,))
    git(root, "reset", "-q", "--hard", "HEAD~1")
    assert _status(root)["indexed_commit"] is None  # the map is the second commit's, and nobody recorded that

    with Store(db_path(root)) as store, store.transaction():  # a planted value is never handed to git
        store.set_meta(freshness.SYNCED_COMMIT_META, "--output=/tmp/planted")
    assert _status(root)["indexed_commit"] is None and not Path("/tmp/planted").exists()


# -- a model switch merged from a branch ----------------------------------------------------------------------


def test_a_merged_switch_to_a_model_this_machine_lacks_is_told_and_ask_still_answers(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"app.py": TINY_APP, ".gitignore": ".hookgraph/index.db*\n"})
    run_cli(root, "index", "--wait", check=True)
    git(root, "checkout", "-q", "-b", "stronger-model")
    write_files(root, {".hookgraph/config.toml": '[model]\npath = "~/models/CodeRankEmbed-Q8_0.gguf"\n'})
    git(root, "add", "-f", ".hookgraph/config.toml")
    git(root, "commit", "-q", "-m", "use CodeRankEmbed")
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--no-edit", "stronger-model")  # merges silently, as any setting does
    missing = f"{clean_env()['HOME']}/models/CodeRankEmbed-Q8_0.gguf"
    assert not os.path.exists(missing)

    asked = run_cli(root, "ask", "fetch_page")
    assert asked.returncode == 0, asked.stderr  # answered, by words and graph
    assert asked.stdout.splitlines()[0].startswith("app.py:") and "fetch_page" in asked.stdout.splitlines()[0]
    notes = [line for line in asked.stderr.splitlines() if missing in line]
    assert len(notes) == 1 and "is not on this machine" in notes[0] and "words and graph" in notes[0], asked.stderr
    assert "use CodeRankEmbed" in notes[0]  # the commit that changed the setting
    as_json = json.loads(run_cli(root, "ask", "fetch_page", "--json").stdout)
    assert as_json["results"][0]["symbol"] == "fetch_page" and as_json["results"][0]["semantic"] is None
    assert any(missing in note for note in as_json["notes"])

    status = _status(root)
    assert status["fresh"] is False and missing in status["model_problem"], status
    text = run_cli(root, "status", check=True).stdout
    fresh_line = next(line for line in text.splitlines() if line.startswith("fresh:"))
    assert fresh_line.startswith("fresh:     no: the model file") and missing in fresh_line, text

    git(root, "revert", "--no-edit", "HEAD")  # back to the shipped model: fresh again, nothing to say
    status = _status(root)
    assert status["fresh"] is True and status["model_problem"] is None, status


@pytest.mark.parametrize("target", ["/dev/zero", "fifo"])
def test_a_committed_model_path_that_never_ends_is_refused_and_git_goes_on(tmp_path: Path, target: str) -> None:
    """``[model] path`` naming a device or a FIFO (a committed config.toml is anyone's) was read for ever:
    ``status``, ``ask`` and every hook hung at 100% CPU (found by trying, stop 57). Now one line, and git goes on."""
    root = make_repo(tmp_path / "repo", {"app.py": TINY_APP})
    run_cli(root, "install", check=True)
    run_cli(root, "index", check=True)
    if target == "fifo":
        os.mkfifo(tmp_path / "model.gguf")
        target = str(tmp_path / "model.gguf")
    write_files(root, {".hookgraph/config.toml": f'[model]\npath = "{target}"\n'})

    def bounded(*command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(command, cwd=root, env=clean_env(), capture_output=True, text=True, timeout=120)

    status = bounded(sys.executable, "-m", "hookgraph.cli", "status")
    fresh_line = next(line for line in status.stdout.splitlines() if line.startswith("fresh:"))
    assert f"{target}: not a regular file" in fresh_line and "put that GGUF file there" not in fresh_line, fresh_line
    assert "correct [model] in .hookgraph/config.toml" in fresh_line
    asked = bounded(sys.executable, "-m", "hookgraph.cli", "ask", "fetch_page")
    assert asked.stdout.splitlines()[0].startswith("app.py:"), asked.stderr  # answered, by words and graph
    write_files(root, {"app.py": TINY_APP + "\n\ndef more():\n    return 1\n"})
    committed = bounded("git", "commit", "-q", "-am", "more")
    assert committed.returncode == 0, committed.stderr
    warnings = [line for line in committed.stderr.splitlines() if "hook skipped" in line]
    assert warnings and all(f"{target}: not a regular file" in line and "(git goes on)" in line for line in warnings)


def test_status_text_and_json_agree_on_fresh_with_uncommitted_edits(tmp_path: Path) -> None:
    """An edit not yet committed: ``--json`` said ``"fresh": true`` and the text ``fresh: no ... (`hookgraph
    index` syncs HEAD)``, a remedy that changed nothing (found by trying, stop 57). Both now say the index holds
    HEAD, and the text names the edits beside it; a commit the index lacks is "no" in both."""
    root = make_repo(tmp_path / "repo", {"app.py": TINY_APP})
    run_cli(root, "index", check=True)
    write_files(root, {"app.py": SECOND})

    def fresh_line() -> str:
        text = run_cli(root, "status", check=True).stdout
        return next(line for line in text.splitlines() if line.startswith("fresh:"))

    assert _status(root)["fresh"] is True and _status(root)["stale_vs_worktree"] == ["app.py"]
    assert fresh_line().startswith("fresh:     yes for HEAD; uncommitted edits differ"), fresh_line()
    run_cli(root, "index", check=True)  # what the line's remedy used to be: nothing changes
    assert fresh_line().startswith("fresh:     yes for HEAD"), fresh_line()
    commit_all(root, "second")  # no hooks: the index lacks this commit
    assert _status(root)["fresh"] is False and fresh_line().startswith("fresh:     no:"), fresh_line()


# -- a file this user may not read -----------------------------------------------------------------------------


def _without_root_powers() -> list[str] | None:
    """A prefix that runs a command without the power to read any file (root has it), or None when not needed."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        return None
    prefix = ["setpriv", "--inh-caps=-dac_override,-dac_read_search", "--bounding-set=-dac_override,-dac_read_search"]
    probe = subprocess.run([*prefix, "true"], capture_output=True)
    return prefix if probe.returncode == 0 else None


def test_an_unreadable_file_is_reported_as_unreadable_and_keeps_its_units(tmp_path: Path) -> None:
    import sys

    prefix = _without_root_powers()
    if prefix is None:
        pytest.skip("running as root without setpriv: root reads a chmod 000 file, so nothing is unreadable here")
    root = make_repo(tmp_path / "repo", {"app.py": TINY_APP, "billing.py": "def charge_card(amount):\n    return amount\n"})
    run_cli(root, "index", check=True)
    (root / "billing.py").chmod(0)
    write_files(root, {"notes.py": "def untracked_note():\n    return 1\n"})
    (root / "notes.py").chmod(0)

    def hookgraph(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*prefix, sys.executable, "-m", "hookgraph.cli", *args], cwd=root, env=clean_env(),
                              capture_output=True, text=True)

    synced = hookgraph("index", "--worktree")
    assert synced.returncode == 0, synced.stderr
    assert "1 deleted" not in synced.stdout and "0 deleted" in synced.stdout, synced.stdout
    assert "2 skipped (2 unreadable)" in synced.stdout, synced.stdout
    warning = [line for line in synced.stderr.splitlines() if "cannot be read" in line]
    assert len(warning) == 1 and "billing.py" in warning[0] and "notes.py" in warning[0], synced.stderr
    assert "permission denied" in warning[0] and "chmod u+r" in warning[0]

    found = json.loads(hookgraph("ask", "charge_card", "--no-semantic", "--json").stdout)
    assert found["results"][0]["symbol"] == "charge_card"  # its units are kept
    status = json.loads(hookgraph("status", "--json").stdout)
    assert sorted(status["unreadable"]) == ["billing.py", "notes.py"], status
    assert "billing.py" not in status["stale_vs_head"]  # the index still holds HEAD's billing.py
    text = hookgraph("status").stdout
    assert "unreadable: 2 files cannot be read (permission denied): billing.py, notes.py" in text, text
