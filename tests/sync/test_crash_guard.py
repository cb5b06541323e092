"""A crash in native code during a hook: git goes on, the file that crashed the parser is left out.

Real fork, real signals, a real repository and the real ``hookgraph hook``
process; the crash is a real SIGSEGV sent to the hook's working child while
its breadcrumb says it is parsing a file (a grammar that crashes does so at
that point).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from hookgraph.store import Store, db_path
from hookgraph.sync import crash_guard
from tests.conftest import clean_env, git, index_now, make_repo


def _dies_of(number: signal.Signals) -> crash_guard.Crash:
    def work() -> int:
        crash_guard.note("scripts/odd.sh", "0123abcd")
        os.kill(os.getpid(), number)
        return 0

    crash = crash_guard.run_guarded(work)
    assert isinstance(crash, crash_guard.Crash)
    return crash


def test_a_child_that_crashes_is_told_with_the_file_it_was_parsing() -> None:
    crash = _dies_of(signal.SIGSEGV)
    assert (crash.signal, crash.path, crash.blob) == ("SIGSEGV", "scripts/odd.sh", "0123abcd")
    assert crash.where is not None and "test_crash_guard.py" in crash.where and "work" in crash.where
    assert crash_guard.run_guarded(lambda: 3) == 3  # a child that exits gives its code
    assert not crash_guard.breadcrumb_path(os.getpid()).exists()  # the breadcrumb is cleaned up


def test_a_child_killed_from_outside_leaves_no_file_out() -> None:
    """SIGTERM (or the out-of-memory killer's SIGKILL) while a file is parsed is not the file's fault."""
    crash = _dies_of(signal.SIGTERM)
    assert (crash.signal, crash.path, crash.native) == ("SIGTERM", None, False)
    assert crash.describe() == "killed by SIGTERM"


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _crash_the_parser(process: subprocess.Popen, times: int) -> list[str]:
    """SIGSEGV the working child of ``process`` each time its breadcrumb names a new big file; those files."""
    crumb = crash_guard.breadcrumb_path(process.pid)
    killed: list[str] = []
    deadline = time.monotonic() + 60
    while len(killed) < times and process.poll() is None and time.monotonic() < deadline:
        try:
            noted = crumb.read_bytes().split(b"\0", 1)[0].decode()
        except OSError:
            noted = ""
        if " gen/big_" in noted and noted.split(" ", 1)[1] not in killed and _children(process.pid):
            for child in _children(process.pid):
                os.kill(child, signal.SIGSEGV)
            killed.append(noted.split(" ", 1)[1])
        time.sleep(0.005)
    return killed


BIG = "".join(f"def handler_{i}(request, response):\n    return request.get({i}) or response\n\n"
              for i in range(9000))  # ~700 KB: parsing takes long enough to be caught at it


def test_a_hook_whose_parser_crashes_lets_git_go_on_and_indexes_the_rest(tmp_path: Path, embedder) -> None:
    repo = make_repo(tmp_path / "repo", {"app/base.py": "def base():\n    return 1\n"})
    index_now(repo, embedder)
    for n in range(4):
        (repo / f"gen/big_{n}.py").parent.mkdir(exist_ok=True)
        (repo / f"gen/big_{n}.py").write_text(BIG)
    (repo / "app/retry.py").write_text("def retry_later(job):\n    return job.schedule(delay=30)\n")
    git(repo, "add", "-A")

    env = clean_env() | {"HOOKGRAPH_NO_BACKGROUND": "1"}
    hook = subprocess.Popen([sys.executable, "-m", "hookgraph.cli", "hook", "pre-commit"], cwd=repo, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killed = _crash_the_parser(hook, times=2)  # two files crash the parser in turn: both left out
    out, err = hook.communicate(timeout=120)
    assert len(killed) == 2, f"the hook did not parse two big files while watched: {killed} {err}"
    assert hook.returncode == 0, err
    assert f"the parser crashed on {killed[0]} (SIGSEGV), {killed[1]} (SIGSEGV)" in err and "git goes on" in err, err
    assert "Traceback" not in err and "Fatal Python error" not in err, err
    with Store(db_path(repo)) as store:
        statuses = dict(store.db.execute("SELECT path, status FROM files"))
        names = {row[0] for row in store.db.execute("SELECT qualname FROM units")}
    assert statuses[killed[0]] == statuses[killed[1]] == crash_guard.SKIP_STATUS
    assert statuses["app/retry.py"] == "indexed" and "retry_later" in names  # the rest of the change is in
    others = [f"gen/big_{n}.py" for n in range(4) if f"gen/big_{n}.py" not in killed]
    assert all(statuses[p] == "indexed" for p in others), statuses

    status = subprocess.run([sys.executable, "-m", "hookgraph.cli", "status"], cwd=repo, env=env,
                            capture_output=True, text=True, timeout=60)
    assert "parser-crash" in status.stdout + status.stderr, status.stdout

    # the file stays out until it changes (no crash loop), and comes back when it does
    again = subprocess.run([sys.executable, "-m", "hookgraph.cli", "hook", "pre-commit"], cwd=repo, env=env,
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and "crashed" not in again.stderr, again.stderr
    with Store(db_path(repo)) as store:
        assert dict(store.db.execute("SELECT path, status FROM files"))[killed[0]] == crash_guard.SKIP_STATUS
    (repo / killed[0]).write_text("def small_now():\n    return 0\n")
    git(repo, "add", killed[0])
    subprocess.run([sys.executable, "-m", "hookgraph.cli", "hook", "pre-commit"], cwd=repo, env=env,
                   capture_output=True, text=True, timeout=120, check=True)
    with Store(db_path(repo)) as store:
        assert dict(store.db.execute("SELECT path, status FROM files"))[killed[0]] == "indexed"


def test_a_crash_outside_parsing_is_one_line_and_git_goes_on(tmp_path: Path) -> None:
    """Killed before any file is parsed: no file to leave out; the hook still exits 0 unless --strict."""
    repo = make_repo(tmp_path / "repo", {"a.py": "def a():\n    return 1\n"})
    env = clean_env() | {"HOOKGRAPH_NO_BACKGROUND": "1"}
    code = ("import os, signal, sys\n"
            "from hookgraph.cli import git_commands\n"
            "from hookgraph.sync import hooks\n"
            "hooks.run_hook = lambda *a, **k: os.kill(os.getpid(), signal.SIGABRT)\n"
            "sys.exit(git_commands.run_git_hook('post-commit', [], strict='--strict' in sys.argv))\n")
    for strict, expected in ((False, 0), (True, 1)):
        done = subprocess.run([sys.executable, "-c", code, *(["--strict"] if strict else [])], cwd=repo, env=env,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == expected, done.stderr
        lines = [line for line in done.stderr.splitlines() if line.startswith("hookgraph:")]
        assert len(lines) == 1 and "died (SIGABRT in native code" in lines[0], done.stderr
        assert ("failed" in lines[0]) if strict else ("git goes on" in lines[0])


def test_index_run_by_hand_leaves_the_crashing_file_out_too(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {**{f"gen/big_{n}.py": BIG for n in range(3)},
                                         "app/retry.py": "def retry_later(job):\n    return job.schedule(delay=30)\n"})
    env = clean_env() | {"HOOKGRAPH_NO_BACKGROUND": "1"}
    index = subprocess.Popen([sys.executable, "-m", "hookgraph.cli", "index", "--no-wait"], cwd=repo, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killed = _crash_the_parser(index, times=1)
    out, err = index.communicate(timeout=120)
    assert len(killed) == 1, f"index did not parse a big file while watched: {err}"
    assert index.returncode == 0, err
    assert f"the parser crashed on {killed[0]} (SIGSEGV)" in err and "Traceback" not in err, err
    with Store(db_path(repo)) as store:
        statuses = dict(store.db.execute("SELECT path, status FROM files"))
    assert statuses[killed[0]] == crash_guard.SKIP_STATUS and statuses["app/retry.py"] == "indexed", statuses



CTRL_C_AT_FORK = """
import os, signal, sys
from hookgraph.sync import crash_guard

side = sys.argv[1]  # which process the Ctrl-C lands in, as fork returns
if side == "child":
    os.register_at_fork(after_in_child=lambda: os.kill(os.getpid(), signal.SIGINT))
else:
    os.register_at_fork(after_in_parent=lambda: os.kill(os.getpid(), signal.SIGINT))

def work():
    print("worked", flush=True)
    return 0

print("result", crash_guard.run_guarded(work), flush=True)
"""


def test_ctrl_c_as_fork_returns_is_answered_by_the_child_not_lost_in_an_at_fork_handler(tmp_path: Path) -> None:
    """A SIGINT landing while the at-fork handlers run (logging's lock release) was raised inside one:
    Python printed "Exception ignored ... Traceback" and dropped it. Held across the fork, it reaches the
    child: landed there, it stops before any work with the one interrupted line; landed in the parent, it is
    passed on to the child."""
    script = tmp_path / "ctrl_c_at_fork.py"
    script.write_text(CTRL_C_AT_FORK)
    for side in ("child", "parent"):
        proc = subprocess.run([sys.executable, str(script), side], capture_output=True, text=True, timeout=60,
                              env=clean_env(PYTHONPATH=str(Path(__file__).resolve().parents[2])))
        assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr, (side, proc.stderr)
        interrupted = proc.stderr.strip() == crash_guard.INTERRUPTED_LINE and "result 130" in proc.stdout
        if side == "child":  # held until the child's first step: it never starts the work
            assert interrupted and "worked" not in proc.stdout, proc
        else:  # forwarded to the child, which may have done its one print by then: either outcome, one line at most
            assert interrupted or (proc.stderr == "" and "result 0" in proc.stdout), proc


CTRL_C_AFTER_THE_SYNC = """
import os, signal, sys
from hookgraph.sync import crash_guard

signal.signal(signal.SIGINT, signal.default_int_handler)  # as a command runs (hookgraph.cli.group)


def work():
    crash_guard.note_committed()  # the sync's transaction is in
    os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C before the command's last line
    print("not reached", flush=True)
    return 0


print("result", crash_guard.run_guarded(work, last=sys.argv[1] == "last"), flush=True)
try:
    os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C after the child finished, as the process exits
    print("exits with the child's code", flush=True)
except KeyboardInterrupt:
    print("interrupted in the parent", flush=True)
"""


def test_ctrl_c_after_the_sync_committed_never_says_the_index_is_unchanged(tmp_path: Path) -> None:
    """The child tells the truth about a sync that committed before the Ctrl-C; a command's parent whose child
    finished exits with its code, not with an "interrupted" line under the summary (``last``)."""
    script = tmp_path / "ctrl_c_after_the_sync.py"
    script.write_text(CTRL_C_AFTER_THE_SYNC)
    for mode, after in (("last", "exits with the child's code"), ("library", "interrupted in the parent")):
        proc = subprocess.run([sys.executable, str(script), mode], capture_output=True, text=True, timeout=60,
                              env=clean_env(PYTHONPATH=str(Path(__file__).resolve().parents[2])))
        assert proc.stderr.strip() == crash_guard.INTERRUPTED_AFTER_SYNC_LINE, (mode, proc.stderr)
        assert proc.stdout.split("\n")[:2] == ["result 130", after], (mode, proc.stdout)
