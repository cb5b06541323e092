"""Parsing on every core: the same index unit for unit, and a crashing file still left out alone.

Real git repositories (the requests 2.32.3 fixture), the real ``hookgraph``
command, real forked workers and real signals.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from hookgraph.store import Store, db_path
from hookgraph.sync import crash_guard
from hookgraph.sync.parallel import CHUNK_FILES, ENV_WORKERS, MIN_BYTES, MIN_FILES, chunk_files, workers_wanted
from tests.conftest import REQUESTS_FIXTURE, clean_env, commit_all, make_repo, run_cli

TABLES = {
    "files": "SELECT path, blob, language, status, units, truncated FROM files ORDER BY path",
    "units": "SELECT id, path, kind, name, qualname, parent, start_line, end_line, language, signature, docstring, "
             "vector_id, text_hash FROM units ORDER BY id",
    "edges": "SELECT source_unit, kind, target, target_full, line FROM edges ORDER BY source_unit, kind, target, line",
    "pending": "SELECT text_hash, language, text, priority, seq FROM pending ORDER BY seq",
    "fts": "SELECT rowid, * FROM fts_units ORDER BY rowid",
    "static": "SELECT unit_id, embedding FROM static_vectors ORDER BY unit_id",
}


def dump(root: Path) -> dict[str, list[tuple]]:
    with Store(db_path(root), readonly=True) as store:
        return {name: [tuple(row) for row in store.db.execute(sql)] for name, sql in TABLES.items()}


def requests_copy(where: Path) -> Path:
    shutil.copytree(REQUESTS_FIXTURE, where)
    make_repo(where)
    commit_all(where, "import requests 2.32.3")
    return where


def test_a_parallel_first_index_equals_the_serial_one_unit_for_unit(tmp_path: Path) -> None:
    serial = requests_copy(tmp_path / "serial")
    parallel = requests_copy(tmp_path / "parallel")
    run_cli(serial, "index", check=True, env=clean_env(**{ENV_WORKERS: "1"}))
    run_cli(parallel, "index", check=True, env=clean_env(**{ENV_WORKERS: "2"}))
    one, two = dump(serial), dump(parallel)
    assert len(one["units"]) > 300 and len(one["files"]) > 20 and one["pending"]
    assert len(one["static"]) > 300
    for table in TABLES:
        assert one[table] == two[table], f"{table} differs between a serial and a parallel parse"


def test_parse_workers_compute_the_static_vectors_of_what_they_parse(tmp_path: Path) -> None:
    """The static vectors of a big sync come back with each file from the worker that parsed it (on every core),
    the same bytes the sync's own batch gives; a file parsed in-process gets none (the sync embeds it)."""
    from hookgraph.embed.static import shipped_model
    from hookgraph.git import BlobReader
    from hookgraph.sync import read_target
    from hookgraph.sync.parallel import read_files

    repo = requests_copy(tmp_path / "repo")
    target = read_target(repo, "head")
    paths = sorted(target.entries)
    model = shipped_model()
    assert model is not None
    reader = BlobReader(repo)
    try:
        forked = dict(read_files(repo, target, paths, target.entries, False, reader, workers=2))
        here = dict(read_files(repo, target, paths, target.entries, False, reader, workers=1))
    finally:
        reader.close()
    parsed = [p for p, read in forked.items() if read.parsed is not None and read.texts]
    assert len(parsed) > 15
    for path in parsed:
        read = forked[path]
        assert len(read.static) == len(read.texts) and not here[path].static
        assert read.static == model.embed_many(read.texts, batched=True), path


def test_how_many_workers() -> None:
    saved = os.environ.pop(ENV_WORKERS, None)
    try:
        assert workers_wanted(MIN_FILES - 1) == 1  # a hook's few files: no fork
        assert workers_wanted(MIN_FILES - 1, MIN_BYTES - 1) == 1
        cores = len(os.sched_getaffinity(0))
        assert workers_wanted(10_000) == cores
        # a few big files parse on every core; fewer files than a task holds never fork (a hook's big commit)
        assert workers_wanted(64, MIN_BYTES) == min(cores, 64 // CHUNK_FILES)
        assert workers_wanted(CHUNK_FILES, 10 * MIN_BYTES) == 1
        os.environ[ENV_WORKERS] = "3"
        assert workers_wanted(5) == 1 and workers_wanted(17) == 3  # never more workers than chunks of files
        os.environ[ENV_WORKERS] = "many"
        assert workers_wanted(10_000) == 1
    finally:
        os.environ.pop(ENV_WORKERS, None)
        if saved is not None:
            os.environ[ENV_WORKERS] = saved


def test_tasks_are_smaller_for_few_files() -> None:
    """Each worker gets several tasks to balance, and a big sync keeps the full-size task."""
    assert chunk_files(10_000, 2) == CHUNK_FILES
    assert chunk_files(16, 2) == 2 and chunk_files(3, 2) == 1


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _is_python(pid: int) -> bool:
    try:
        return "python" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode()
    except OSError:
        return False


BIG = "".join(f"def handler_{i}(request, response):\n    return request.get({i}) or response\n\n"
              for i in range(9000))  # ~700 KB: parsing takes long enough to be caught at it


def test_a_file_that_crashes_a_parse_worker_is_left_out_alone(tmp_path: Path) -> None:
    """A grammar that crashes kills a worker (SIGSEGV); the same file then crashes the in-process parse of
    the rest, which the crash guard catches as before: that file alone is left out, the rest is indexed."""
    files: dict[str, str | bytes] = {f"gen/big_{n}.py": BIG for n in range(2)}
    files.update({f"pkg/mod_{n:02d}.py": f"def work_{n}(job):\n    return job.run({n})\n" for n in range(40)})
    repo = make_repo(tmp_path / "repo", files)
    env = clean_env(HOOKGRAPH_NO_BACKGROUND="1", **{ENV_WORKERS: "2"})
    index = subprocess.Popen([sys.executable, "-m", "hookgraph.cli", "index", "--no-wait"], cwd=repo, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    crumb = crash_guard.breadcrumb_path(index.pid)
    worker_killed = False
    crashed: str | None = None
    deadline = time.monotonic() + 90
    while index.poll() is None and time.monotonic() < deadline and crashed is None:
        guarded = _children(index.pid)  # the crash guard's child, which runs the sync
        if not worker_killed:
            workers = {w for g in guarded for w in _children(g) if _is_python(w)}
            time.sleep(0.05)  # a child still Python 50 ms on is a worker, not a git command before its exec
            workers &= {w for g in guarded for w in _children(g) if _is_python(w)}
            if workers:
                os.kill(min(workers), signal.SIGSEGV)  # the worker's grammar "crashes"
                worker_killed = True
        else:
            try:
                noted = crumb.read_bytes().split(b"\0", 1)[0].decode()
            except OSError:
                noted = ""
            if " gen/big_" in noted and guarded:  # the same file, parsed again in-process: it crashes again
                for g in guarded:
                    os.kill(g, signal.SIGSEGV)
                crashed = noted.split(" ", 1)[1]
        time.sleep(0.002)
    out, err = index.communicate(timeout=120)
    assert worker_killed, f"no parse worker was ever started: {err}"
    assert crashed is not None, f"after the worker's crash the rest was not parsed in-process: {err}"
    assert index.returncode == 0, err
    assert f"the parser crashed on {crashed} (SIGSEGV)" in err and "Traceback" not in err, err
    with Store(db_path(repo), readonly=True) as store:
        statuses = dict(store.db.execute("SELECT path, status FROM files"))
        names = {row[0] for row in store.db.execute("SELECT qualname FROM units")}
    assert statuses.pop(crashed) == crash_guard.SKIP_STATUS
    assert set(statuses.values()) == {"indexed"} and len(statuses) == len(files) - 1, statuses
    assert {f"work_{n}" for n in range(40)} <= names
    assert not [p for p in _children(os.getpid()) if p != index.pid and _is_python(p) and
                f"{repo}" in Path(f"/proc/{p}/cwd").resolve().as_posix()], "a parse worker outlived its sync"
