"""Sharing that costs little: a vector file whose unchanged rows stay unchanged bytes,
a commit hook that never loads the model, a merge of two snapshots by key, and older snapshots still read.

Real git, real hooks (``hookgraph install``), the real model, real subprocesses. What a commit costs in
seconds and in packed history is measured in ``benchmarks/share_bench.py``, not here.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from hookgraph.store import Store, db_path, vector_file
from tests.helpers.hook_helpers import MATH, PYTHON, TEXT, Repo, new_repo

SNAP = ".hookgraph/shared.db"


def _add_function(text: str, name: str, body: str = "return 1") -> str:
    return text + f'\n\ndef {name}():\n    """{name.replace("_", " ")}."""\n    {body}\n'


@pytest.fixture
def sharing(tmp_path: Path) -> Repo:
    """A shared-mode repository with plain hooks and the default settings, its first snapshot complete."""
    repo = new_repo(tmp_path, framework=False)
    repo.commit("initial")
    proc = repo.hookgraph("install", "--shared")  # the README's recipe: the first snapshot carries every vector
    assert proc.returncode == 0, proc.stderr
    repo.git("commit", "-q", "-m", "share the index")
    return repo


def _committed(repo: Repo, rev: str = "HEAD", cwd: Path | None = None) -> bytes:
    return subprocess.run(["git", "cat-file", "blob", f"{rev}:{SNAP}"], cwd=cwd or repo.path, env=repo.env(),
                          capture_output=True, check=True).stdout


def _records(data: bytes) -> list[bytes]:
    """The file's records as raw bytes, in file order (its header and count left out)."""
    contents = vector_file.decode(data)
    body = data[data.index(b"\n", len(vector_file.MAGIC)) + 1:]
    out, at = [], 0
    for record in contents.records.values():
        size = vector_file.KEY_BYTES + 2 + len(record.embedding)
        out.append(body[at:at + size])
        at += size
    return out


def _live_keys(root: Path) -> set[bytes]:
    with Store(db_path(root), readonly=True) as store:
        return {key for key, *_ in store.iter_vectors()}


def test_unchanged_texts_keep_their_bytes_and_the_same_vectors_give_the_same_file(sharing: Repo,
                                                                                  tmp_path: Path) -> None:
    repo = sharing
    before = _committed(repo)
    assert before.startswith(vector_file.MAGIC) and set(vector_file.decode(before).records) == _live_keys(repo.path)
    repo.write({"calc/math.py": _add_function(MATH, "triple", "return 3")})
    repo.commit("triple")  # its texts are embedded after the commit (the helper plays the background embedder)
    repo.write({"NOTES.txt": "more notes\n"})
    repo.commit("notes")  # ... and ride along with this one
    repo.git("commit", "-q", "--allow-empty", "-m", "carry the notes' vector")
    after = _committed(repo)
    old, new = _records(before), _records(after)
    kept = [r for r in new if r in set(old)]
    gone = [r for r in old if r not in set(new)]
    # every record of a text still in the tree is byte for byte the same, in the same order; only the
    # changed texts' records came and went (math.py's file unit, NOTES.txt's chunk, the new function)
    assert kept == [r for r in old if r not in gone]
    assert 1 <= len(gone) <= 2 and 2 <= len(new) - len(kept) <= 3, (len(gone), len(new) - len(kept))
    assert set(vector_file.decode(after).records) == _live_keys(repo.path)

    # A teammate who adopted every vector exports the very same bytes (sorted by key, no ids, no pages).
    mate = tmp_path / "mate"
    repo.git("clone", "-q", str(repo.path), str(mate), cwd=tmp_path)
    assert repo.hookgraph("index", "--wait", cwd=mate, HOOKGRAPH_EMBED_LOG=str(tmp_path / "log")).returncode == 0
    assert not (tmp_path / "log").exists() or all(line.split()[1] == "0" for line in
                                                   (tmp_path / "log").read_text().splitlines())
    from hookgraph.store.snapshot import export_snapshot

    assert export_snapshot(mate, dest=tmp_path / "mate.db") is True
    assert (tmp_path / "mate.db").read_bytes() == after


def test_the_commit_hook_never_loads_the_model(sharing: Repo) -> None:
    """The pre-commit hook exports the vectors already in the index and stages them; the model is never imported,
    even when the commit brings back a text whose vector the snapshot holds (its check waits for the embedder)."""
    repo = sharing
    repo.embed_after = False
    before = _committed(repo)
    repo.entries()
    for files in ({"calc/math.py": _add_function(MATH, "quadruple", "return 4")},  # new texts
                  {"calc/math.py": MATH}):  # back to texts the snapshot holds vectors for
        repo.write(files)
        repo.git("add", "-A")
        proc = subprocess.run([PYTHON, "-X", "importtime", "-m", "hookgraph.cli", "hook", "pre-commit"],
                              cwd=repo.path, env=repo.env(HOOKGRAPH_NO_BACKGROUND="1"), capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr[-2000:]
        imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines()
                    if line.startswith("import time:")}
        assert imported and "llama_cpp" not in imported, "the commit hook loaded the model"
        (entry,) = [e for e in repo.entries() if e["hook"] == "pre-commit"]
        assert entry["exported"] and entry["embedded"] == 0 and not entry.get("error"), entry
        repo.git("commit", "-q", "--no-verify", "-m", "step")
    staged = _committed(repo)
    assert set(vector_file.decode(staged).records) <= set(vector_file.decode(before).records) | _live_keys(repo.path)


def test_two_branches_snapshots_merge_by_key_without_a_conflict(sharing: Repo) -> None:
    repo = sharing
    repo.git("checkout", "-q", "-b", "theirs")
    repo.write({"calc/text.py": _add_function(TEXT, "whisper", "return text.lower()")})
    repo.commit("whisper")
    repo.git("commit", "-q", "--allow-empty", "-m", "carry whisper's vectors")
    theirs = vector_file.decode(_committed(repo))
    repo.git("checkout", "-q", "main")
    repo.write({"calc/math.py": _add_function(MATH, "triple", "return 3")})
    repo.commit("triple")
    repo.git("commit", "-q", "--allow-empty", "-m", "carry triple's vectors")
    ours = vector_file.decode(_committed(repo))
    assert set(theirs.records) - set(ours.records) and set(ours.records) - set(theirs.records)
    repo.entries()

    proc = repo.git("merge", "-q", "--no-edit", "theirs", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert repo.git("ls-files", "-u").stdout == "" and repo.git("status", "--porcelain").stdout == ""
    (driver,) = [e for e in repo.entries() if e["hook"] == "merge-driver"]
    assert driver["action"] == "merged" and driver["imported"] == len(set(theirs.records) - set(ours.records))
    merged = vector_file.decode(_committed(repo))
    assert set(merged.records) == set(ours.records) | set(theirs.records)
    repo.assert_fresh()

    # The merge driver still refuses any path but the snapshot: git reports an ordinary conflict.
    (repo.path / "a.txt").write_text("x\n")
    direct = repo.hookgraph("merge-driver", "a.txt", "a.txt", "a.txt", "calc/math.py")
    assert direct.returncode == 1 and "refused calc/math.py" in direct.stderr


def test_an_older_sqlite_snapshot_is_adopted_and_merged_into_a_vector_file(sharing: Repo, tmp_path: Path) -> None:
    """A snapshot an older hookgraph committed (a SQLite copy of its index) still saves a clone the model's work,
    and a merge with a branch that has one writes a vector file holding both sides' vectors."""
    from tests.helpers.snapshot_helpers import export_database_snapshot

    repo = sharing
    repo.git("checkout", "-q", "-b", "old")
    repo.write({"calc/text.py": _add_function(TEXT, "whisper", "return text.lower()")})
    repo.commit("whisper")
    export_database_snapshot(repo.path)
    repo.git("add", "-f", SNAP)
    repo.git("commit", "-q", "-m", "an older hookgraph's snapshot", HOOKGRAPH_SKIP="1")
    assert _committed(repo).startswith(b"SQLite format 3\x00")

    mate = tmp_path / "mate"
    repo.git("clone", "-q", "-b", "old", str(repo.path), str(mate), cwd=tmp_path)
    log = tmp_path / "embedded.log"
    ask = repo.hookgraph("ask", "--json", "lower-case a text", cwd=mate, HOOKGRAPH_EMBED_LOG=str(log))
    assert ask.returncode == 0 and "Traceback" not in ask.stderr, ask.stderr
    assert "rejected" not in ask.stderr and "ignored" not in ask.stderr, ask.stderr
    assert json.loads(ask.stdout)["pending_vectors"] == 0  # every vector adopted after the sampled check
    assert not log.exists() or all(line.split()[1] == "0" for line in log.read_text().splitlines())

    repo.git("checkout", "-q", "main")
    repo.write({"calc/math.py": _add_function(MATH, "triple", "return 3")})
    repo.commit("triple")
    repo.git("commit", "-q", "--allow-empty", "-m", "carry triple's vectors")
    ours = set(vector_file.decode(_committed(repo)).records)
    proc = repo.git("merge", "-q", "--no-edit", "old", check=False)
    assert proc.returncode == 0 and repo.git("ls-files", "-u").stdout == "", proc.stderr
    merged = vector_file.decode(_committed(repo))
    with Store(mate / ".hookgraph" / "index.db", readonly=True) as store:
        whisper = store.db.execute("SELECT v.text_hash FROM units u JOIN vectors v ON v.id = u.vector_id "
                                   "WHERE u.qualname = 'whisper'").fetchall()[0][0]
    assert ours < set(merged.records) and whisper in merged.records


def test_a_damaged_vector_file_is_refused_whole_with_one_line(sharing: Repo, tmp_path: Path) -> None:
    """A vector file is somebody else's bytes: every cut and a bad order are refused, never half read."""
    repo = sharing
    data = _committed(repo)
    contents = vector_file.decode(data)
    for cut in range(len(vector_file.MAGIC), len(data), 97):
        with pytest.raises(vector_file.VectorFileError):
            vector_file.decode(data[:cut])
    with pytest.raises(vector_file.VectorFileError, match="bytes after"):
        vector_file.decode(data + b"\0")
    first, second = list(contents.records)[:2]
    swapped = data.replace(first, b"\xff" * 16, 1)  # the first key now sorts after the second
    with pytest.raises(vector_file.VectorFileError, match="out of order"):
        vector_file.decode(swapped)
    huge = tmp_path / "huge.db"  # sparse: a file too big to read whole is refused before it is read
    with open(huge, "wb") as f:
        f.write(vector_file.MAGIC)
        f.truncate(vector_file.MAX_FILE_BYTES + 1)
    with pytest.raises(vector_file.VectorFileError, match="larger than hookgraph reads"):
        vector_file.read(huge)

    (repo.path / SNAP).write_bytes(data[: len(data) // 2])
    repo.git("add", "-f", SNAP)
    repo.git("commit", "-q", "-m", "a cut snapshot", HOOKGRAPH_SKIP="1")
    brought = repo.git("log", "-1", "--format=%h").stdout.strip()
    mate = tmp_path / "mate"
    repo.git("clone", "-q", str(repo.path), str(mate), cwd=tmp_path)
    ask = repo.hookgraph("ask", "multiply every value", cwd=mate)
    assert ask.returncode == 0 and "scale" in ask.stdout and "Traceback" not in ask.stderr, ask.stderr
    lines = [line for line in ask.stderr.splitlines() if "snapshot" in line]
    assert len(lines) == 1, ask.stderr
    assert lines[0].startswith(f"hookgraph: warning: ignored the committed snapshot .hookgraph/shared.db of commit "
                               f"{brought}: it ends inside record "), lines
    assert lines[0].endswith(f" of {len(contents.records)}; your next commit replaces it"), lines
    verify = repo.hookgraph("verify", cwd=mate)
    assert verify.returncode == 1 and verify.stdout.count("\n") + verify.stderr.count("\n") == 1


def test_a_clone_with_the_background_embedder_adopts_every_vector_and_the_embedder_leaves(sharing: Repo,
                                                                                          tmp_path: Path) -> None:
    """The clone's first command starts the embedder before its parse (imports and model load overlap it); the
    embedder checks the sample once the queue is registered, publishes every vector, embeds nothing, and exits."""
    import time

    from hookgraph.embed import worker

    repo = sharing
    mate = tmp_path / "mate"
    repo.git("clone", "-q", str(repo.path), str(mate), cwd=tmp_path)
    env = dict(HOOKGRAPH_NO_BACKGROUND="0", HOOKGRAPH_EMBED_LOG=str(tmp_path / "embedded.log"))
    ask = repo.hookgraph("ask", "--json", "multiply every value", cwd=mate, **env)
    assert ask.returncode == 0 and "Traceback" not in ask.stderr, ask.stderr
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        status = json.loads(repo.hookgraph("status", "--json", cwd=mate, **env).stdout)
        if status["pending_vectors"] == 0 and not worker.running(mate):
            break
        time.sleep(0.2)
    assert status["pending_vectors"] == 0 and not worker.running(mate), status
    log = tmp_path / "embedded.log"
    assert not log.exists() or all(line.split()[1] == "0" for line in log.read_text().splitlines())
    with Store(db_path(mate), readonly=True) as store:
        assert store.integer("SELECT count(*) FROM vectors WHERE head IS NULL") == len(_live_keys(repo.path))


def test_a_merge_of_a_forged_branch_names_the_teammates_commit_and_takes_none_of_its_vectors(sharing: Repo) -> None:
    """The driver's union carries their vectors into the merge's snapshot, unchecked; the post-merge hook checks
    them as their commit's, refuses them naming that commit, and the next commit's snapshot drops them."""
    repo = sharing
    repo.git("checkout", "-q", "-b", "theirs")
    repo.write({"calc/text.py": _add_function(TEXT, "whisper", "return text.lower()")
                + '\n\ndef murmur(text):\n    """Say a text softly."""\n    return text.lower() + "..."\n'})
    repo.commit("whisper and murmur")
    path = repo.path / SNAP
    with Store(db_path(repo.path), readonly=True) as store:
        keys = {q: store.db.execute("SELECT v.text_hash FROM units u JOIN vectors v ON v.id = u.vector_id "
                                    "WHERE u.qualname = ?", (q,)).fetchall()[0][0] for q in ("whisper", "murmur", "add")}
    from hookgraph.store.snapshot import export_snapshot

    export_snapshot(repo.path)
    contents = vector_file.read(path)
    forged = vector_file.Record(1, False, contents.records[keys["add"]].embedding)  # another text's vector
    for name in ("whisper", "murmur"):
        contents.records[keys[name]] = forged
    path.write_bytes(vector_file.encode_file(contents))
    repo.git("add", "-f", SNAP)
    repo.git("commit", "-q", "-m", "refresh", HOOKGRAPH_SKIP="1")
    forged_commit = repo.git("rev-parse", "--short", "HEAD").stdout.strip()

    repo.git("checkout", "-q", "main")
    with Store(db_path(repo.path)) as store, store.transaction():  # this machine never had their texts
        store.db.execute("DELETE FROM vector_cache")
    repo.write({"calc/math.py": _add_function(MATH, "triple", "return 3")})
    repo.commit("triple")
    repo.entries()
    proc = repo.git("merge", "-q", "--no-edit", "theirs", check=False)
    assert proc.returncode == 0 and repo.git("ls-files", "-u").stdout == "", proc.stderr
    assert {keys["whisper"], keys["murmur"]} <= set(vector_file.decode(_committed(repo)).records)  # carried over
    warnings = [w for e in repo.entries() for w in e.get("warnings", [])]
    refused = [w for w in warnings if "rejected" in w]
    assert len(refused) == 1 and f"of commit {forged_commit}" in refused[0], warnings
    with Store(db_path(repo.path), readonly=True) as store:
        vectors = dict(store.db.execute("SELECT text_hash, id FROM vectors WHERE head IS NULL").fetchall())
        embedded = {key: store.db.execute("SELECT embedding FROM vec_units WHERE rowid = ?",
                                          (vectors[key],)).fetchall()[0][0] for key in (keys["whisper"], keys["murmur"])}
    assert all(blob != forged.embedding for blob in embedded.values())  # embedded here instead
    repo.git("commit", "-q", "--allow-empty", "-m", "next")
    nxt = vector_file.decode(_committed(repo))
    assert all(nxt.records[keys[n]].embedding == embedded[keys[n]] for n in ("whisper", "murmur"))
