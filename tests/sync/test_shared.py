"""Shared mode: the index is committed with the code, teammates get it for free, merges never stop on it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from hookgraph.search import search
from hookgraph.store import Store, db_path
from tests.helpers.hook_helpers import MATH, PYTHON, TEXT, Repo, hooks_of, new_repo


def _add_function(text: str, name: str, body: str = "return 1") -> str:
    return text + f'\n\ndef {name}():\n    """{name.replace("_", " ")}."""\n    {body}\n'


def _status(repo: Repo, cwd: Path | None = None) -> str:
    return repo.git("status", "--porcelain", cwd=cwd).stdout


class NoDocumentEmbedding:
    """The real embedder for queries; fails the test if anything asks it to embed a document."""

    def __init__(self, real) -> None:
        self._real = real

    def embed_documents(self, texts):  # pragma: no cover - reaching it is the failure
        raise AssertionError(f"embedded {len(texts)} documents")

    def __getattr__(self, name):
        return getattr(self._real, name)


@pytest.fixture
def shared_repo(tmp_path: Path) -> Repo:
    """A shared-mode repository using the pre-commit framework, with one commit made through it.

    Its hooks embed a commit's texts before exporting (``[snapshot] embed_seconds``, opt-in), so each commit's snapshot carries that commit's vectors; the default (the hook never loads the
    model) is tested on its own below.
    """
    r = new_repo(tmp_path)
    proc = r.hookgraph("install", "--shared", "--no-hooks")
    assert proc.returncode == 0, proc.stderr
    assert "shared mode on" in proc.stdout
    config = r.path / ".hookgraph" / "config.toml"
    config.write_text(config.read_text() + "\n[snapshot]\nembed_seconds = 120\n")
    r.commit("initial")
    entries = r.entries()
    assert hooks_of(entries) == [("pre-commit", "synced"), ("post-commit", "fresh")]
    assert entries[0]["exported"] and entries[0]["shared"]
    return r


def _remote_and_mate(repo: Repo, tmp_path: Path, hooks: bool = True) -> Path:
    """A bare remote for ``repo`` and a teammate's clone of it (with pre-commit hooks installed)."""
    remote = tmp_path / "remote.git"
    repo.git("clone", "-q", "--bare", str(repo.path), str(remote), cwd=tmp_path)
    repo.git("remote", "add", "origin", str(remote))
    repo.git("fetch", "-q", "origin")
    repo.git("branch", "-q", "--set-upstream-to=origin/main")
    mate = tmp_path / "mate"
    repo.git("clone", "-q", str(remote), str(mate), cwd=tmp_path)
    if hooks:
        proc = subprocess.run([PYTHON, "-m", "pre_commit", "install"], cwd=mate, env=repo.env(),
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
    return mate


def _verify(repo: Repo, *args: str, cwd: Path | None = None) -> tuple[int, list[str]]:
    proc = repo.hookgraph("verify", *args, cwd=cwd)
    return proc.returncode, (proc.stdout + proc.stderr).splitlines()


def test_shared_mode_commits_a_compact_snapshot_with_the_code(shared_repo: Repo) -> None:
    repo = shared_repo
    tracked = repo.git("ls-files", ".hookgraph").stdout.split()
    assert tracked == [".hookgraph/.gitattributes", ".hookgraph/.gitignore", ".hookgraph/config.toml",
                       ".hookgraph/shared.db"]
    assert repo.git("check-ignore", "-q", ".hookgraph/index.db", check=False).returncode == 0
    assert "shared = true" in (repo.path / ".hookgraph/config.toml").read_text()
    assert repo.git("check-attr", "merge", "binary", "--", ".hookgraph/shared.db").stdout.split("\n")[0].endswith(
        "merge: hookgraph")
    assert "merge-driver" in repo.git("config", "--get", "merge.hookgraph.driver").stdout
    code, lines = _verify(repo)
    assert code == 0 and len(lines) == 1 and "holds vectors for 7 of its 7 texts; a sample of 7 agrees" in lines[0], lines

    # The committed file: the index's live vectors by text key (a vector file), nothing else.
    from hookgraph.store import vector_file

    snap = repo.path / ".hookgraph/shared.db"
    committed = subprocess.run(["git", "cat-file", "blob", "HEAD:.hookgraph/shared.db"], cwd=repo.path,
                               env=repo.env(), capture_output=True).stdout
    assert committed == snap.read_bytes()
    assert committed.startswith(vector_file.MAGIC)
    with Store(db_path(repo.path), readonly=True) as store:
        live = {key for key, *_ in store.iter_vectors()}
        assert set(vector_file.decode(committed).records) == live and live
    assert _status(repo) == ""

    # Switching branches syncs the working index and never leaves the tracked snapshot dirty.
    repo.git("checkout", "-q", "-b", "feat")
    repo.write({"calc/math.py": _add_function(MATH, "feature")})
    repo.commit("feature")
    assert _verify(repo)[0] == 0
    for branch in ("main", "feat", "main"):
        repo.git("checkout", "-q", branch)
        assert _status(repo) == ""
        repo.assert_fresh()
    entries = repo.entries()
    assert sum(e["embedded"] for e in entries) == 2  # only the feature commit embedded anything

    # A commit without code still refreshes the snapshot (its file map changed).
    repo.write({"NOTES.txt": "new notes\n"})
    repo.commit("notes")
    assert _verify(repo)[0] == 0 and _status(repo) == ""


def test_a_teammate_who_clones_asks_without_embedding(shared_repo: Repo, tmp_path: Path, embedder) -> None:
    repo = shared_repo
    repo.write({"calc/text.py": _add_function(TEXT, "whisper", "return text.lower()")})
    repo.commit("whisper")
    head = repo.git("rev-parse", "HEAD").stdout.strip()
    mate = tmp_path / "mate"
    repo.git("clone", "-q", str(repo.path), str(mate), cwd=tmp_path)  # plain clone: no hooks ran
    assert not db_path(mate).exists()

    proc = repo.hookgraph("ask", "--json", "--top", "3", "multiply every value", cwd=mate)
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    assert payload["indexed_commit"] == head and payload["stale_paths"] == []
    assert payload["results"][0]["symbol"] == "scale"

    with Store(db_path(mate)) as store:
        assert store.get_meta("model_sha256") == embedder.model_sha256
        results = search(store, "upper-case text with an exclamation", top=3, embedder=NoDocumentEmbedding(embedder))
        assert results[0].unit.qualname == "shout"
        assert all(r.semantic is not None for r in results[:1])
    out = repo.hookgraph("index", cwd=mate)
    assert out.returncode == 0 and "embedded" not in out.stdout and "waiting" not in out.stdout, out.stdout
    assert _status(repo, cwd=mate) == ""


def test_two_branches_that_changed_code_merge_without_a_step_on_the_database(shared_repo: Repo, tmp_path: Path) -> None:
    repo = shared_repo
    mate = _remote_and_mate(repo, tmp_path)
    # The teammate changes text.py and math.py's scale; we change math.py's add: same file, other function.
    (mate / "calc/text.py").write_text(_add_function(TEXT, "from_mate"))
    (mate / "calc/math.py").write_text(MATH.replace("[v * factor for v in values]", "[factor * v for v in values]"))
    repo.git("commit", "-q", "-a", "-m", "mate", cwd=mate)
    repo.git("push", "-q", "origin", "main", cwd=mate)
    repo.write({"calc/math.py": MATH.replace("return a + b", "return b + a")})
    repo.commit("ours")
    repo.entries()

    before = repo.vectors()
    repo.git("pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
    entries = repo.entries()
    assert [e["hook"] for e in entries] == ["merge-driver", "post-merge"]
    driver = entries[0]
    assert driver["action"] == "merged" and driver["imported"] > 0  # their vectors joined ours in the snapshot
    assert entries[1]["action"] == "synced"  # the hook took them from the merged snapshot, checked
    assert repo.git("ls-files", "-u").stdout == ""  # no conflict left anywhere
    assert _status(repo) == ""
    repo.assert_fresh()
    assert _verify(repo)[0] == 0  # the merge commit carries a snapshot of itself
    # Their units came with their snapshot; only the merged file's new texts were embedded.
    embedded = repo.assert_no_reembedding(before, entries)
    assert embedded <= 2
    with Store(db_path(repo.path), readonly=True) as store:
        names = {r[0] for r in store.db.execute("SELECT qualname FROM units")}
    assert {"from_mate", "add", "scale"} <= names


def test_a_code_conflict_stops_on_code_only_and_the_merge_commit_is_fresh(shared_repo: Repo) -> None:
    repo = shared_repo
    repo.git("checkout", "-q", "-b", "theirs")
    repo.write({"calc/math.py": MATH.replace("return a + b", "return a + b + 0")})
    repo.commit("theirs")
    repo.git("checkout", "-q", "main")
    repo.write({"calc/math.py": MATH.replace("return a + b", "return a + b + 1")})
    repo.commit("ours")
    repo.entries()
    proc = repo.git("merge", "--no-edit", "theirs", check=False)
    assert proc.returncode == 1
    conflicted = {line.split("\t")[1] for line in repo.git("ls-files", "-u").stdout.splitlines()}
    assert conflicted == {"calc/math.py"}
    repo.write({"calc/math.py": MATH.replace("return a + b", "return a + b + 2")})
    repo.git("add", "calc/math.py")
    repo.git("commit", "-q", "--no-edit")
    assert _verify(repo)[0] == 0 and _status(repo) == ""
    repo.assert_fresh()


def test_pull_fast_forward_from_a_teammate_embeds_nothing(shared_repo: Repo, tmp_path: Path) -> None:
    repo = shared_repo
    mate = _remote_and_mate(repo, tmp_path)
    (mate / "calc/text.py").write_text(_add_function(TEXT, "mate_only", "return text[::-1]"))
    repo.git("commit", "-q", "-a", "-m", "mate", cwd=mate)
    repo.git("push", "-q", "origin", "main", cwd=mate)
    repo.entries()
    repo.git("pull", "-q", "--ff-only", "origin", "main")
    entries = repo.entries()
    assert hooks_of(entries) == [("post-merge", "synced")]
    assert entries[0]["imported"] == 2 and entries[0]["embedded"] == 0
    repo.assert_fresh()
    assert _verify(repo)[0] == 0 and _status(repo) == ""


def test_rebase_onto_a_teammate_keeps_the_working_index_fresh(shared_repo: Repo, tmp_path: Path) -> None:
    repo = shared_repo
    mate = _remote_and_mate(repo, tmp_path)
    (mate / "calc/text.py").write_text(_add_function(TEXT, "mate_fn"))
    repo.git("commit", "-q", "-a", "-m", "mate", cwd=mate)
    repo.git("push", "-q", "origin", "main", cwd=mate)
    repo.write({"calc/math.py": _add_function(MATH, "mine")})
    repo.commit("mine")
    repo.entries()
    repo.git("pull", "-q", "--rebase", "origin", "main")
    entries = repo.entries()
    assert hooks_of(entries)[-1] == ("post-rewrite", "synced")
    assert sum(e["embedded"] for e in entries) == 0  # the teammate's vectors came from their snapshot
    repo.assert_fresh()
    assert _status(repo) == "" and repo.git("ls-files", "-u").stdout == ""
    # Hooks do not run per replayed commit, but the merge driver does for the pick: the replayed commit's
    # snapshot is the union of both sides' vectors, so it lacks none of its texts.
    code, lines = _verify(repo)
    assert code == 0 and "waiting" not in lines[0], lines
    repo.write({"NOTES.txt": "after rebase\n"})
    repo.commit("next")
    assert _verify(repo)[0] == 0


def test_verify_is_one_line_and_exits_1_when_the_committed_database_is_stale(shared_repo: Repo, tmp_path: Path) -> None:
    repo = shared_repo
    repo.write({"calc/math.py": _add_function(MATH, "unverified")})
    repo.git("add", "-A")
    repo.git("commit", "-q", "--no-verify", "-m", "skip the pre-commit hook")
    # A vector snapshot holds no facts to be stale about: verify says which of the commit's texts it lacks, and
    # fails when they are more than 10% of them (2 of 8 here).
    code, lines = _verify(repo)
    assert code == 1 and len(lines) == 1 and "lacks vectors for 2 of its 8 texts (25%" in lines[0], lines
    assert "in calc/math.py: repair it with `hookgraph index --wait && hookgraph hook pre-commit" in lines[0], lines
    code, lines = _verify(repo, "--local")  # post-commit still synced the working index
    assert code == 0 and len(lines) == 1
    assert _verify(repo, "--rev", "HEAD~1")[0] == 0
    # A repository without shared mode has no committed database: verify fails, saying so.
    plain = new_repo(tmp_path, "plain")
    plain.commit("initial")
    code, lines = _verify(plain)
    assert code == 1 and len(lines) == 1 and "no committed database" in lines[0]
    assert _verify(plain, "--local")[0] == 0


def test_uninstall_shared_stops_tracking_the_snapshot(shared_repo: Repo) -> None:
    repo = shared_repo
    proc = repo.hookgraph("install", "--uninstall", "--shared")
    assert proc.returncode == 0, proc.stderr
    repo.git("commit", "-q", "-m", "stop sharing")
    assert repo.git("ls-files", ".hookgraph").stdout == ""
    assert repo.git("config", "--get", "merge.hookgraph.driver", check=False).returncode == 1
    assert (repo.path / ".hookgraph/.gitignore").read_text().endswith("*\n")
    repo.assert_fresh()
    assert _status(repo) == ""


def test_commit_of_some_paths_leaves_no_staged_snapshot_behind(shared_repo: Repo) -> None:
    """`git commit PATH` commits from a temporary index; the real one must not keep an old snapshot."""
    repo = shared_repo
    repo.write({"calc/math.py": _add_function(MATH, "partial"), "NOTES.txt": "not committed\n"})
    repo.git("commit", "-q", "-m", "math only", "calc/math.py")
    assert _status(repo) == " M NOTES.txt\n"
    assert _verify(repo)[0] == 0
    repo.git("checkout", "-q", "HEAD~1")  # a checkout that changes the snapshot is not blocked
    repo.assert_fresh()


def test_snapshot_is_exported_again_when_only_the_model_meta_changed(shared_repo: Repo, monkeypatch) -> None:
    """New vectors (`index --reembed`): the committed snapshot must follow."""
    from hookgraph.sync import hooks

    repo = shared_repo
    monkeypatch.delenv("GIT_INDEX_FILE", raising=False)
    assert hooks._export_and_stage(repo.path, 5) is False  # up to date: nothing written
    with Store(db_path(repo.path)) as store:
        store.set_meta("embed_recipe", "a-new-recipe")
    assert hooks._export_and_stage(repo.path, 5) is True
    from hookgraph.store import vector_file

    assert vector_file.read(repo.path / ".hookgraph/shared.db").recipe == "a-new-recipe"


# --------------------------------------------------------------------------- stores from an older hookgraph


def test_an_older_snapshot_is_read_through_a_migrated_copy(tmp_path: Path) -> None:
    """A snapshot committed before an upgrade still gives its vectors; the committed file is not written."""
    import numpy as np

    from hookgraph.store.snapshot import SnapshotVectors, current_schema
    from hookgraph.store import MIGRATIONS, SchemaUpgradeNeeded
    from tests.store.test_store import _hex_key, _schema_3_store, _unit

    rng = np.random.default_rng(7)
    snapshot = tmp_path / "shared.db"
    _schema_3_store(snapshot, [_unit(rng, 16) for _ in range(6)])
    committed = snapshot.read_bytes()
    with pytest.raises(SchemaUpgradeNeeded, match="needs a schema upgrade"):
        Store(snapshot, readonly=True)
    with current_schema(snapshot) as readable:
        assert readable != snapshot
        with Store(readable, readonly=True) as copy:
            assert copy.integer("PRAGMA user_version") == len(MIGRATIONS)
    assert not readable.exists()  # the copy is gone with the context
    source = SnapshotVectors(snapshot, "the snapshot")
    keys = [bytes.fromhex(_hex_key(name)[:32]) for name in ("f", "g")]  # schema 4's keys of schema 3's
    offered = source.get_many(keys, 16)
    source.close()
    assert {k: v.windows for k, v in offered.items()} == {keys[0]: 1, keys[1]: 3}  # f, and g's three windows
    assert snapshot.read_bytes() == committed
    Store(tmp_path / "index.db", create=True).close()
    with current_schema(tmp_path / "index.db") as readable:  # a current store is read in place
        assert readable == tmp_path / "index.db"


def test_a_hook_after_an_upgrade_migrates_the_older_index(tmp_path: Path) -> None:
    """A sync offered an older snapshot's vectors after an upgrade migrates the older index (it failed on every hook)."""
    import numpy as np

    from hookgraph.store import MIGRATIONS
    from hookgraph.store.snapshot import SnapshotVectors
    from hookgraph.sync import read_target, sync
    from hookgraph.embed.adopt import VectorSource
    from tests.conftest import make_repo
    from tests.store.test_store import _schema_3_store, _unit

    repo = make_repo(tmp_path / "repo", {"p.py": "def f():\n    return 1\n"})
    live = db_path(repo)
    live.parent.mkdir()
    rng = np.random.default_rng(8)
    _schema_3_store(live, [_unit(rng, 16) for _ in range(6)])
    snapshot = tmp_path / "snapshot.db"
    _schema_3_store(snapshot, [_unit(rng, 16) for _ in range(6)])
    source = SnapshotVectors(snapshot, "the snapshot")
    sync(repo, read_target(repo, "head"), lock_timeout=5, snapshots=[VectorSource(source, "the snapshot", "")])
    source.close()
    with Store(live, readonly=True) as store:
        assert store.integer("PRAGMA user_version") == len(MIGRATIONS)


def test_a_snapshot_committed_with_texts_still_waiting_answers_at_once_and_says_so(shared_repo: Repo,
                                                                                    tmp_path: Path) -> None:
    """No time to embed in the commit ([snapshot] embed_seconds = 0, the default): the snapshot lacks the
    commit's texts; a teammate's clone answers at once by words and graph, and `verify` says N waiting."""
    repo = shared_repo
    config = repo.path / ".hookgraph" / "config.toml"
    config.write_text(config.read_text().replace("embed_seconds = 120", "embed_seconds = 0"))
    repo.write({"calc/text.py": _add_function(TEXT, "whisper", "return text.lower()")})
    repo.commit("whisper, no time to embed")
    (entry,) = [e for e in repo.entries() if e["hook"] == "pre-commit"]
    assert entry["embedded"] == 0 and entry["pending"] == 2 and entry["exported"], entry["error"]
    code, lines = _verify(repo)  # 2 of 8 texts without a vector: more than the 10% a snapshot may lack
    assert code == 1 and any("lacks vectors for 2 of its 8 texts (25%" in line and "in calc/text.py" in line
                             for line in lines), lines

    mate = tmp_path / "mate"
    repo.git("clone", "-q", str(repo.path), str(mate), cwd=tmp_path)
    proc = repo.hookgraph("ask", "--json", "whisper", cwd=mate, HOOKGRAPH_NO_BACKGROUND="1")
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    assert payload["pending_vectors"] == 2 and payload["results"][0]["symbol"] == "whisper"
    status = json.loads(repo.hookgraph("status", "--json", cwd=mate, HOOKGRAPH_NO_BACKGROUND="1").stdout)
    assert status["fresh"] and status["pending_vectors"] == 2


def test_a_source_file_mapped_to_the_merge_driver_conflicts_and_keeps_both_edits(shared_repo: Repo) -> None:
    """Issue 31, item 3: the driver writes only the snapshot; any other path is an ordinary conflict."""
    repo = shared_repo
    repo.write({".gitattributes": "calc/math.py merge=hookgraph\n"})
    repo.commit("map a source file to the snapshot's driver (by mistake)")
    repo.git("checkout", "-q", "-b", "theirs")
    repo.write({"calc/math.py": MATH.replace('"""Sum of two numbers."""', '"""Sum of two numbers (theirs)."""')})
    repo.commit("theirs")
    repo.git("checkout", "-q", "main")
    repo.write({"calc/math.py": MATH.replace('"""Multiply every value by factor."""',
                                             '"""Multiply every value by factor (ours)."""')})
    repo.commit("ours")
    repo.entries()

    proc = repo.git("merge", "--no-edit", "theirs", check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "CONFLICT" in proc.stdout and "calc/math.py" in proc.stdout
    refusals = [line for line in proc.stderr.splitlines() if "merge driver refused" in line]
    assert refusals == ["hookgraph: merge driver refused calc/math.py: merges only .hookgraph/shared.db; "
                        "remove merge=hookgraph for this path from .gitattributes, then resolve the conflict as usual"]
    assert repo.git("ls-files", "-u", "--", "calc/math.py").stdout.count("calc/math.py") == 3
    merged = (repo.path / "calc/math.py").read_bytes()
    assert not merged.startswith(b"SQLite format 3")
    text = merged.decode()
    assert "(theirs)" in text and "(ours)" in text  # both sides' edits survive in the file
    drivers = [e for e in repo.entries() if e["hook"] == "merge-driver"]
    assert [e["args"] for e in drivers] == [[".hookgraph/shared.db"]]  # Python never ran for the source file

    # Called directly (a driver configured by hand without the shell's guard): the same refusal.
    for side, label in (("ours", "(ours)"), ("theirs", "(theirs)")):
        rev = "HEAD" if side == "ours" else "theirs"
        (repo.path / f"{side}.tmp").write_text(repo.git("show", f"{rev}:calc/math.py").stdout)
    (repo.path / "base.tmp").write_text(repo.git("show", "HEAD~1:calc/math.py").stdout)
    direct = repo.hookgraph("merge-driver", "base.tmp", "ours.tmp", "theirs.tmp", "calc/math.py")
    assert direct.returncode == 1 and direct.stderr.count("\n") == 1 and "refused calc/math.py" in direct.stderr
    both = (repo.path / "ours.tmp").read_text()
    assert "(theirs)" in both and "(ours)" in both


def test_an_older_driver_config_without_the_path_guard_is_rewritten(shared_repo: Repo) -> None:
    """A clone configured by an earlier hookgraph gets the guarded driver at its next hook, same Python."""
    from hookgraph.sync.shared import configure_merge_driver, merge_driver_command

    repo = shared_repo
    old = f'[ -n "$HOOKGRAPH_MERGE_DRIVER" ] || {PYTHON} -m hookgraph.cli merge-driver %O %A %B %P || true'
    repo.git("config", "merge.hookgraph.driver", old)
    assert configure_merge_driver(repo.path) == "updated"
    assert repo.git("config", "--get", "merge.hookgraph.driver").stdout.strip() == merge_driver_command(PYTHON)
    assert configure_merge_driver(repo.path) is None


NO_DRIVER = ("hookgraph: warning: this repository commits its index (.hookgraph/shared.db) but this clone has no "
             "merge driver for it, so a merge that changes it on both sides stops on a conflict: run "
             "`hookgraph install` once here")


def test_a_teammate_who_did_nothing_is_told_the_one_command_before_a_merge_conflicts(shared_repo: Repo,
                                                                                      tmp_path: Path) -> None:
    """Issue 31, item 6: the driver lives in local git config; `ask`, `status` and the hooks say so."""
    repo = shared_repo
    mate = tmp_path / "mate"
    repo.git("clone", "-q", str(repo.path), str(mate), cwd=tmp_path)  # plain clone: no install, no hooks
    assert repo.git("config", "--get", "merge.hookgraph.driver", cwd=mate, check=False).returncode == 1

    ask = repo.hookgraph("ask", "--no-semantic", "multiply every value", cwd=mate)
    status = repo.hookgraph("status", cwd=mate)
    status_json = repo.hookgraph("status", "--json", cwd=mate)
    for proc in (ask, status, status_json):
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr.splitlines().count(NO_DRIVER) == 1, proc.stderr
    json.loads(status_json.stdout)  # stdout stays the JSON object

    # The named command configures it; then nothing more is said.
    assert repo.hookgraph("install", cwd=mate).returncode == 0
    assert "case %P in .hookgraph/shared.db)" in repo.git("config", "--get", "merge.hookgraph.driver", cwd=mate).stdout
    for args in (("ask", "--no-semantic", "multiply every value"), ("status",)):
        assert "merge driver" not in repo.hookgraph(*args, cwd=mate).stderr

    # A hook in a clone without the driver (pre-commit installed, `hookgraph install` never run) configures it
    # and says so, once.
    other = tmp_path / "other"
    repo.git("clone", "-q", str(repo.path), str(other), cwd=tmp_path)
    first = repo.hookgraph("hook", "post-checkout", cwd=other)
    assert first.returncode == 0
    assert [line for line in first.stderr.splitlines() if "merge driver" in line] == [
        "hookgraph: warning: configured git's merge driver for .hookgraph/shared.db in this clone (it had none: "
        "a merge that changed the snapshot on both sides would have stopped on a conflict; `hookgraph install` "
        "does this for a new clone)"]
    assert "merge driver" not in repo.hookgraph("hook", "post-checkout", cwd=other).stderr
    assert "merge driver" not in repo.hookgraph("status", cwd=other).stderr


def _stderr_on_a_terminal(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str, str]:
    """Run ``cmd`` with stderr on a pseudo-terminal (a person's shell): exit code, stdout, what the terminal got."""
    import os
    import pty
    import threading

    master, slave = pty.openpty()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    chunks: list[bytes] = []

    def read() -> None:
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # EIO: the process closed its end
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=read)
    reader.start()
    out, _ = proc.communicate(timeout=600)
    reader.join(timeout=30)
    os.close(master)
    return proc.returncode, out.decode(), b"".join(chunks).decode("utf-8", "replace")


def test_install_shared_commits_a_first_snapshot_with_every_vector(tmp_path: Path) -> None:
    """Issue 31, item 6: the README's recipe (index, `install --shared`, commit) must not commit a queue."""
    from tests.conftest import clean_env, commit_all, make_repo

    files = {"calc/math.py": MATH, "calc/text.py": TEXT,
             "calc/more.py": "".join(_add_function("", f"helper_{i}", f"return {i}") for i in range(12))}
    repo = make_repo(tmp_path / "repo", files)
    env = clean_env()
    indexed = subprocess.run([PYTHON, "-m", "hookgraph.cli", "index", "--no-wait"], cwd=repo, env=env,
                             capture_output=True, text=True)
    assert indexed.returncode == 0, indexed.stderr
    waiting = json.loads(subprocess.run([PYTHON, "-m", "hookgraph.cli", "status", "--json"], cwd=repo, env=env,
                                        capture_output=True, text=True).stdout)["pending_vectors"]
    assert waiting >= 15  # the embedder has not caught up (the tests run without the background one)

    code, out, terminal = _stderr_on_a_terminal([PYTHON, "-m", "hookgraph.cli", "install", "--shared", "--no-hooks"],
                                                repo, env)
    assert code == 0, terminal
    assert "shared mode on" in out
    staged = subprocess.run(["git", "cat-file", "blob", ":.hookgraph/shared.db"], cwd=repo, env=env,
                            capture_output=True, check=True).stdout
    from hookgraph.store import vector_file

    assert len(vector_file.decode(staged).records) >= waiting
    assert f"hookgraph: embedding {waiting} texts so the first snapshot carries every vector" in terminal
    assert f"{waiting}/{waiting}" in terminal  # the progress bar reached the end
    commit_all(repo, "share the index")  # no hooks: exactly what install staged is committed
    mate = tmp_path / "mate"
    subprocess.run(["git", "clone", "-q", str(repo), str(mate)], env=env, check=True, capture_output=True)
    status = json.loads(subprocess.run([PYTHON, "-m", "hookgraph.cli", "status", "--json"], cwd=mate, env=env,
                                       capture_output=True, text=True).stdout)
    assert status["pending_vectors"] == 0 and status["units_without_vector"] == 0
