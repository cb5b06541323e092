"""Forged vectors in a committed snapshot: every adopted vector is checked, not a sample.

The attack: a teammate swaps the vectors of two units in ``.hookgraph/shared.db``
of a real project (requests 2.32.3: ``SessionRedirectMixin.rebuild_auth`` and
``Session.close``, 308 texts) and commits with ``HOOKGRAPH_SKIP=1``. A sample of
24 vectors misses two forged among 308 most of the time (85%); a clone must
still never rank those units by the forged vectors once its background
embedder has checked every adopted vector, ``verify --vectors`` must name both
units and the commit, and no commit may pass a forged (or any unchecked) vector on.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from hookgraph.store import Store, db_path, vector_file
from tests.conftest import REQUESTS_FIXTURE
from tests.helpers.hook_helpers import PYTHON, Repo, new_repo

SWAPPED = ("SessionRedirectMixin.rebuild_auth", "Session.close")
#: The README's own example question, answered by ``rebuild_auth``.
QUESTIONS = ["where are credentials dropped on redirect?", "close the session and its adapters",
             "strip the authorization header when redirected to another host"]


def _fixture_files() -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {}
    for path in sorted(REQUESTS_FIXTURE.rglob("*")):
        if path.is_file():
            files[str(path.relative_to(REQUESTS_FIXTURE))] = path.read_bytes()
    return files


def _keys(root: Path, qualnames: tuple[str, ...]) -> list[bytes]:
    with Store(db_path(root), readonly=True) as store:
        return [store.db.execute("SELECT v.text_hash FROM units u JOIN vectors v ON v.id = u.vector_id "
                                 "WHERE u.qualname = ?", (q,)).fetchall()[0][0] for q in qualnames]


def _unit_vector(root: Path, qualname: str) -> np.ndarray | None:
    """The first window a unit ranks with in ``root``'s index (None while it waits for one)."""
    with Store(db_path(root), readonly=True) as store:
        rows = store.db.execute("SELECT e.embedding FROM units u JOIN vec_units e ON e.rowid = u.vector_id "
                                "WHERE u.qualname = ?", (qualname,)).fetchall()
    return np.frombuffer(rows[0][0], dtype=np.int8).astype(np.float32) if rows else None


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def _first_window(record: vector_file.Record, dims: int) -> np.ndarray:
    return np.frombuffer(record.embedding[:dims], dtype=np.int8).astype(np.float32)


def _ranked(repo: Repo, root: Path) -> list[list[tuple[str, float | None]]]:
    """Each question's results as ``(symbol, semantic score)``, best first."""
    out = []
    for question in QUESTIONS:
        proc = repo.hookgraph("ask", "--json", "--top", "8", question, cwd=root)
        assert proc.returncode in (0, 1), proc.stderr
        out.append([(r["symbol"], r["semantic"]) for r in json.loads(proc.stdout)["results"]])
    return out


@dataclass
class Forged:
    repo: Repo
    #: The commit that swapped the two records (short hash), and the honest one before it.
    commit: str
    honest_commit: str
    #: Per swapped unit: its text key and its honest first window.
    keys: list[bytes]
    honest: list[np.ndarray]
    dims: int


@pytest.fixture(scope="module")
def forged(tmp_path_factory: pytest.TempPathFactory) -> Forged:
    """requests 2.32.3 in shared mode with a complete snapshot, then a commit that swaps two of its vectors."""
    base = tmp_path_factory.mktemp("forgery")
    repo = new_repo(base, files=_fixture_files())
    repo.extra_env.update(HOME=str(base / "home"), XDG_CACHE_HOME=str(base / "xdg"))
    proc = repo.hookgraph("install", "--shared", "--no-hooks")
    assert proc.returncode == 0, proc.stderr
    config = repo.path / ".hookgraph" / "config.toml"
    config.write_text(config.read_text() + "\n[snapshot]\nembed_seconds = 600\n")
    repo.commit("requests 2.32.3")
    honest_commit = repo.git("rev-parse", "--short=12", "HEAD").stdout.strip()
    path = repo.path / ".hookgraph" / "shared.db"
    contents = vector_file.read(path)
    assert len(contents.records) >= 300
    keys = _keys(repo.path, SWAPPED)
    honest = [_first_window(contents.records[k], contents.dims) for k in keys]
    records = contents.records
    records[keys[0]], records[keys[1]] = records[keys[1]], records[keys[0]]
    path.write_bytes(vector_file.encode_file(contents))
    repo.git("add", ".hookgraph/shared.db")
    repo.git("commit", "-q", "-m", "refresh the index", HOOKGRAPH_SKIP="1")
    commit = repo.git("rev-parse", "--short=7", "HEAD").stdout.strip()
    repo.entries()
    return Forged(repo, commit, honest_commit, keys, honest, contents.dims)


def test_a_clone_checks_every_adopted_vector_drops_the_forged_source_and_never_exports_it(
        forged: Forged, tmp_path: Path) -> None:
    from hookgraph.embed import worker

    repo = forged.repo
    victim = tmp_path / "victim"
    repo.git("clone", "-q", str(repo.path), str(victim), cwd=tmp_path)
    background = dict(HOOKGRAPH_NO_BACKGROUND="0")
    with worker.hold(victim) as mine:  # the embedder this command starts finds the lock taken and leaves
        assert mine
        first = repo.hookgraph("ask", "--json", QUESTIONS[0], cwd=victim, **background)
        assert first.returncode in (0, 1) and "Traceback" not in first.stderr, first.stderr  # 1: a weak match
    # The background embedder, run to its end: the sampled check, then every adopted vector re-embedded.
    proc = subprocess.run([PYTHON, "-m", "hookgraph.embed.worker", str(victim)], cwd=victim,
                          env=repo.env(**background), capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr

    # Neither unit ranks by the forged vector: each has its own text's vector, and the answers are the
    # author's (whose index embedded every text itself).
    for qualname, honest in zip(SWAPPED, forged.honest):
        mine_now = _unit_vector(victim, qualname)
        assert mine_now is not None and _cosine(mine_now, honest) >= 0.999, qualname
    assert _ranked(repo, victim) == _ranked(repo, repo.path)

    status = json.loads(repo.hookgraph("status", "--json", cwd=victim).stdout)
    assert status["pending_vectors"] == 0 and status["adopted_vectors"]["unchecked"] == 0, status
    refused = [line for line in status["vector_sources_refused"] if f"of commit {forged.commit}" in line]
    assert len(refused) == 1, status["vector_sources_refused"]
    # The sample (24 of the 309 texts offered, drawn with the OS's randomness) meets one of the two forged
    # vectors in about one run in seven: the source is then refused by the sample, before any vector is
    # adopted. Otherwise the full check catches one and names it (`verify --vectors` names both every time,
    # below). Either way nothing forged is ranked (above) or passed on (below).
    by_sample = "sampled vectors differ" in refused[0]
    assert by_sample or any(f"`{name}`" in refused[0] for name in SWAPPED), refused[0]
    text = repo.hookgraph("status", cwd=victim).stdout
    assert f"refused:   {refused[0]}" in text and (by_sample or "checked:" in text), text  # nothing adopted

    # The victim's next shared commit passes neither forged vector on.
    hooks = subprocess.run([PYTHON, "-m", "pre_commit", "install"], cwd=victim, env=repo.env(),
                           capture_output=True, text=True)
    assert hooks.returncode == 0, hooks.stderr
    session = victim / "requests" / "sessions.py"
    session.write_text(session.read_text() + "\n\ndef victim_helper():\n    \"\"\"A teammate's change.\"\"\"\n"
                                             "    return None\n")
    repo.git("commit", "-q", "-a", "-m", "a change", cwd=victim)
    committed = subprocess.run(["git", "cat-file", "blob", "HEAD:.hookgraph/shared.db"], cwd=victim,
                               env=repo.env(), capture_output=True).stdout
    exported = vector_file.decode(committed)
    for key, honest in zip(forged.keys, forged.honest):
        assert key in exported.records  # checked or embedded here by now: passed on, honest
        assert _cosine(_first_window(exported.records[key], exported.dims), honest) >= 0.999


def test_verify_vectors_names_both_forged_units_and_the_commit_that_brought_them(forged: Forged) -> None:
    repo = forged.repo
    proc = repo.hookgraph("verify", "--vectors")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert all(f"`{name}` (requests/sessions.py)" in lines[0] for name in SWAPPED), lines[0]
    assert f"commit {forged.commit} (Test: refresh the index)" in lines[0], lines[0]
    assert "2 of every one checked differ" in lines[0] or "2 of" in lines[0]
    honest = repo.hookgraph("verify", "--vectors", "--rev", forged.honest_commit)
    assert honest.returncode == 0 and "every one agrees with the local model" in honest.stdout, honest.stderr


# -- a snapshot that lacks vectors, and what the repair does -------------------------------------------------


SMALL = {f"pkg/mod{i}.py": "".join(f'\n\ndef task_{i}_{j}(value):\n    """Step {j} of job {i}: scale the value."""\n'
                                   f'    return value * {j + 2} + {i}\n' for j in range(4)) for i in range(5)}


@pytest.fixture
def small(tmp_path: Path) -> Repo:
    """A shared-mode repository whose hooks never load the model (the default): its first snapshot is empty."""
    repo = new_repo(tmp_path, files=SMALL)
    repo.extra_env.update(HOME=str(tmp_path / "home"), XDG_CACHE_HOME=str(tmp_path / "xdg"))
    repo.embed_after = False
    proc = repo.hookgraph("install", "--shared", "--no-hooks")
    assert proc.returncode == 0, proc.stderr
    repo.commit("initial")
    return repo


def test_verify_fails_a_snapshot_without_vectors_for_the_commits_texts_and_its_repair_rewrites_it(small: Repo) -> None:
    repo = small
    proc = repo.hookgraph("verify")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert re.search(r"lacks vectors for (\d+) of its \1 texts \(100%; at most 10% may wait", proc.stderr), proc.stderr
    help_text = repo.hookgraph("verify", "--help").stdout
    assert "10%" in help_text and "hook pre-commit" in help_text
    from hookgraph.sync.verify import REPAIR

    repair = subprocess.run(["bash", "-c", REPAIR], cwd=repo.path, env=repo.env(), capture_output=True, text=True)
    assert repair.returncode == 0, repair.stdout + repair.stderr
    after = repo.hookgraph("verify", "--vectors")
    assert after.returncode == 0, after.stderr
    assert re.search(r"holds vectors for (\d+) of its \1 texts; every one agrees", after.stdout), after.stdout


def test_a_commit_never_exports_an_adopted_vector_before_the_full_check(small: Repo, tmp_path: Path) -> None:
    """A teammate's vectors rank in a clone at once, but its commits pass on only what its model checked."""
    repo = small
    assert repo.hookgraph("index", "--wait").returncode == 0
    repo.write({"pkg/extra.py": '"""More."""\n\n\ndef extra():\n    """Another step."""\n    return 1\n'})
    repo.commit("extra")  # the snapshot now holds the 20 texts embedded here
    mate = tmp_path / "mate"
    repo.git("clone", "-q", str(repo.path), str(mate), cwd=tmp_path)
    hooks = subprocess.run([PYTHON, "-m", "pre_commit", "install"], cwd=mate, env=repo.env(),
                           capture_output=True, text=True)
    assert hooks.returncode == 0, hooks.stderr
    assert repo.hookgraph("ask", "scale the value", cwd=mate).returncode == 0  # adopts after the sampled check
    status = json.loads(repo.hookgraph("status", "--json", cwd=mate).stdout)
    adopted = status["adopted_vectors"]
    assert adopted["unchecked"] >= 20 and adopted["checked"] == 0, adopted
    with Store(db_path(mate), readonly=True) as store:
        unchecked = {key for (key,) in store.db.execute("SELECT text_hash FROM adopted")}
    (mate / "pkg" / "mod0.py").write_text(SMALL["pkg/mod0.py"] + "\n\ndef mate_step():\n    return 2\n")
    repo.git("commit", "-q", "-a", "-m", "mate", cwd=mate)
    exported = vector_file.decode(subprocess.run(["git", "cat-file", "blob", "HEAD:.hookgraph/shared.db"], cwd=mate,
                                                 env=repo.env(), capture_output=True).stdout)
    assert not unchecked & set(exported.records), "an unchecked vector was exported"

    assert repo.hookgraph("index", "--wait", cwd=mate).returncode == 0  # checks every adopted vector here
    status = json.loads(repo.hookgraph("status", "--json", cwd=mate).stdout)
    assert status["adopted_vectors"]["unchecked"] == 0 and status["adopted_vectors"]["checked"] >= 20, status
    text = repo.hookgraph("status", cwd=mate).stdout
    line = next(line for line in text.splitlines() if line.startswith("checked:"))
    n = status["adopted_vectors"]["checked"]
    assert f"{n} of {n} adopted vectors" in line, line
    (mate / "pkg" / "mod1.py").write_text(SMALL["pkg/mod1.py"] + "\n\ndef mate_other():\n    return 3\n")
    repo.git("commit", "-q", "-a", "-m", "mate again", cwd=mate)
    exported = vector_file.decode(subprocess.run(["git", "cat-file", "blob", "HEAD:.hookgraph/shared.db"], cwd=mate,
                                                 env=repo.env(), capture_output=True).stdout)
    with Store(db_path(mate), readonly=True) as store:
        live = {key for key, *_ in store.iter_vectors()}
    assert len(unchecked & live) >= 18 and set(exported.records) == live  # checked now: every one passed on
    assert os.environ.get("HOOKGRAPH_NO_BACKGROUND") == "1"  # nothing ran behind the test's back
