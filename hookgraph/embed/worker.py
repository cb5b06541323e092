"""The background embedder: one detached process per repository that empties every queue, then exits.

Whatever leaves texts waiting (a hook, ``hookgraph index``, the merge driver)
calls :func:`start_background` after its transaction committed. That
registers the index's queue in the repository's common git directory
(``<git common dir>/hookgraph/queues/``, so every worktree's index is seen)
and starts ``python -m hookgraph.embed.worker`` detached - new session, no
terminal, idle CPU priority (:func:`yield_cpu`) - unless one is already running. The worker holds
``embedder.lock`` there for its whole life (two never run at once), drains
the registered queues one batch at a time each (:func:`hookgraph.embed.queue.drain`),
and exits when all are empty. No daemon outlives its work, no server, no port.

Lost wake-ups are ruled out by ordering: a sync commits, then registers,
then looks for a running worker; the worker unregisters a queue only after
seeing it empty, and after releasing its lock looks at the registrations once
more. Either the worker sees the new registration, or the sync sees no worker
and starts one. A kill -9 loses at most the batch being embedded; the next
command that finds texts waiting and no worker (a hook, ``ask``, ``status``)
starts one again (:func:`resume_if_needed`).

``HOOKGRAPH_NO_BACKGROUND=1`` never starts one (tests, and CI jobs that call
``hookgraph index --wait`` instead). Failures go to ``embedder.log`` beside
the lock (last lines kept), which ``status`` shows.
"""

from __future__ import annotations

import faulthandler
import fcntl
import hashlib
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from hookgraph.embed import Embedder

__all__ = ["can_run", "start_background", "start_warm", "resume_if_needed", "running", "stall", "beat", "holder_pid", "hold", "wake",
           "last_error", "yield_cpu", "main"]

LOCK_FILE = "embedder.lock"
LOG_FILE = "embedder.log"
#: Touched by whoever holds the embedder lock after every text it embeds (and as each round starts): its
#: modification time is the embedder's heartbeat, so a stopped (SIGSTOP) or hung one is told from a slow one.
HEARTBEAT_FILE = "embedder.heartbeat"
#: Seconds without a heartbeat after which a held lock means a stalled embedder, not a busy one. One text
#: takes well under a second here and a model loads in a few; 30 s is far beyond both, even on a loaded
#: 2-core machine at the worker's low priority. ``HOOKGRAPH_STALL_SECONDS`` overrides it (tests).
STALL_SECONDS = 30.0
#: Seconds between two heartbeats at most (a touch per text would be a system call per text for nothing).
BEAT_EVERY = 1.0
QUEUES_DIR = "queues"
#: Lines of embedder.log kept (the newest).
LOG_LINES = 50
#: CPU niceness of the worker: interactive work (the user's build, their editor) comes first.
NICENESS = 10
#: Nice value of the worker's autogroup (Linux, /proc/self/autogroup). The worker runs in a session of
#: its own, and with autogroup (on by default on desktop Linux) the kernel first shares the CPU between
#: sessions, then within each: a nice task alone in its session still took a full share (40-54% of two
#: cores). 19 is the lowest weight an autogroup can have (15 against 1024 for a nice-0 one).
AUTOGROUP_NICE = 19


def _home(root: Path) -> Path:
    """``<git common dir>/hookgraph``: shared by every worktree of the repository."""
    from hookgraph.git import common_dir

    return common_dir(root) / "hookgraph"


def _disabled() -> bool:
    return os.environ.get("HOOKGRAPH_NO_BACKGROUND", "") not in ("", "0")


# -- registrations ------------------------------------------------------------------


def _registration(home: Path, database: Path) -> Path:
    key = hashlib.sha256(str(database.resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return home / QUEUES_DIR / key


def register(root: Path, database: Path) -> None:
    """Tell the repository's embedder that ``database`` (of the work tree ``root``) has texts waiting."""
    home = _home(root)
    (home / QUEUES_DIR).mkdir(parents=True, exist_ok=True)
    path = _registration(home, database)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_text(f"{database.resolve()}\n{Path(root).resolve()}\n", encoding="utf-8", errors="surrogateescape")
    os.replace(tmp, path)


def _registrations(home: Path) -> list[tuple[Path, Path, Path]]:
    """``(registration file, database, work tree)`` of every queue registered."""
    out = []
    try:
        entries = sorted((home / QUEUES_DIR).iterdir())
    except OSError:
        return []
    for entry in entries:
        if entry.name.startswith("."):
            continue
        try:
            lines = entry.read_text(encoding="utf-8", errors="surrogateescape").splitlines()
        except OSError:
            continue
        if len(lines) >= 2:
            out.append((entry, Path(lines[0]), Path(lines[1])))
    return out


# -- the lock -------------------------------------------------------------------------


@contextmanager
def _held(home: Path) -> Iterator[bool]:
    """Try to hold the embedder lock without waiting; yields whether we have it."""
    home.mkdir(parents=True, exist_ok=True)
    fd = os.open(home / LOCK_FILE, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


@contextmanager
def hold(root: Path) -> Iterator[bool]:
    """Be the repository's embedder for a while (``index --wait``); yields False when another one runs.

    Where the lock cannot be made (a read-only git directory) no background
    embedder can run either: this process is the only one, and embeds.
    """
    try:
        held = _held(_home(root))
        mine = held.__enter__()
    except OSError:
        yield True
        return
    try:
        yield mine
    except BaseException as exc:
        if not held.__exit__(type(exc), exc, exc.__traceback__):
            raise
    else:
        held.__exit__(None, None, None)


def cannot_start(root: Path) -> str | None:
    """Why no background embedder can start for ``root`` (its git directory cannot be written), or None."""
    try:
        home = _home(root)
    except Exception:  # noqa: BLE001 - no repository: nothing to say here
        return None
    where = home if home.exists() else home.parent
    if os.access(where, os.W_OK):
        return None
    return (f"no background embedder can start: {where} cannot be written (read-only or not yours); "
            "`hookgraph index --wait` embeds here")


def stall_seconds() -> float:
    """The stall bound: :data:`STALL_SECONDS`, or ``HOOKGRAPH_STALL_SECONDS`` when that is a positive number."""
    raw = os.environ.get("HOOKGRAPH_STALL_SECONDS", "")
    try:
        value = float(raw)
    except ValueError:
        return STALL_SECONDS
    return value if 0 < value < float("inf") else STALL_SECONDS


_last_beat = 0.0


def beat(home: Path, *, force: bool = False) -> None:
    """Say "still embedding" (at most every :data:`BEAT_EVERY` seconds unless ``force``); never raises."""
    global _last_beat
    now = time.monotonic()
    if not force and now - _last_beat < BEAT_EVERY:
        return
    _last_beat = now
    path = home / HEARTBEAT_FILE
    try:
        try:
            os.utime(path)
        except FileNotFoundError:
            path.touch()
    except OSError:
        pass


def beat_for(root: Path) -> None:
    """:func:`beat` for the repository of ``root`` (the foreground ``index --wait`` holding the lock)."""
    try:
        beat(_home(root))
    except Exception:  # noqa: BLE001 - a heartbeat never fails the work it reports on
        pass


def holder_pid(root: Path) -> int | None:
    """The pid written in the embedder lock by its holder (None: unreadable)."""
    try:
        text = (_home(root) / LOCK_FILE).read_text(encoding="ascii", errors="replace").strip()
    except (OSError, Exception):  # noqa: BLE001 - no repository, no file: nobody to name
        return None
    return int(text) if text.isdigit() else None


@dataclass
class Stall:
    """A held embedder lock with no heartbeat for longer than :func:`stall_seconds`."""

    pid: int | None
    #: Seconds since the last sign of life (the heartbeat, or the lock taken).
    quiet_seconds: float

    def describe(self) -> str:
        who = f"pid {self.pid}" if self.pid else "its process"
        kill = f"`kill {self.pid}`" if self.pid else "ending it"
        return (f"the embedder ({who}) has made no progress for {_seconds(self.quiet_seconds)} (stopped or hung): "
                f"{kill} lets the next hookgraph command start another")


def _seconds(value: float) -> str:
    return f"{value:.0f} s" if value < 120 else f"{value / 60:.0f} min"


def stall(root: Path) -> Stall | None:
    """The stalled embedder of ``root``'s repository, or None (none runs, or it makes progress)."""
    try:
        home = _home(root)
        if not running(root):
            return None
        times = []
        for name in (HEARTBEAT_FILE, LOCK_FILE):  # the lock is written as it is taken: a sign of life too
            try:
                times.append((home / name).stat().st_mtime)
            except OSError:
                pass
    except Exception:  # noqa: BLE001 - no repository: no embedder
        return None
    quiet = time.time() - max(times, default=0.0)
    if quiet < stall_seconds():
        return None
    return Stall(holder_pid(root), quiet)


def wake(root: Path) -> None:
    """Start the background embedder if any queue of the repository is registered and none runs."""
    if _disabled():
        return
    try:
        if _registrations(_home(root)) and not running(root):
            _spawn(root)
    except OSError:
        pass


def can_run(root: Path) -> bool:
    """Whether a background embedder may be started for ``root`` (not turned off, its git directory writable)."""
    return not _disabled() and cannot_start(root) is None


def running(root: Path) -> bool:
    """Whether the repository's background embedder is running now."""
    try:
        with _held(_home(root)) as free:
            return not free
    except OSError:
        return False


# -- starting -------------------------------------------------------------------------


def start_background(root: Path, database: Path) -> bool:
    """Register ``database``'s queue and make sure an embedder runs; True when one runs. Never raises.

    The index being read-only, the git directory being read-only or a
    missing interpreter only mean no background embedding: the texts stay
    queued and ``status`` says so.
    """
    if _disabled():
        return False
    try:
        register(root, database)
        if running(root):
            return True
        _spawn(root)
        return True
    except OSError:
        return False


def resume_if_needed(root: Path, database: Path, pending: int) -> bool:
    """After a kill or a reboot: start the embedder again when texts wait and none runs."""
    if pending <= 0:
        return False
    return start_background(root, database)


#: Set for a worker started before the sync it serves (:func:`start_warm`).
WARM_ENV = "HOOKGRAPH_WORKER_WARM"
#: How long a warm worker waits for the sync to register its queue: a first index's parse takes seconds
#: (1-3 s for 2,000 units here); a sync that failed registers nothing, and the worker then just leaves.
WARM_WAIT_SECONDS = 20.0


def start_warm(root: Path) -> bool:
    """Start the embedder *before* a shared clone's first sync; True when one runs. Never raises.

    That sync defers the sampled check of the snapshot's vectors to the
    embedder (its first answer waits for no model). Started after the sync,
    the embedder's Python start, imports and model load (0.6-0.8 s here)
    came after the parse; started now, they overlap it, and the check begins
    as soon as the queue is registered. The check itself is unchanged.
    """
    if _disabled():
        return False
    try:
        if running(root):
            return True
        _spawn(root, warm=True)
        return True
    except OSError:
        return False


#: Every worker this process started. The worker runs on after us, detached; a dropped ``Popen`` is finalised
#: at once, and a Ctrl-C landing in that finaliser is swallowed and printed as a traceback ("Exception ignored
#: in Popen.__del__") while the command carries on. Held here, the finaliser runs only as Python exits, when
#: Ctrl-C no longer raises (:mod:`hookgraph.cli.startup`'s handler is back).
_SPAWNED: list[subprocess.Popen[bytes]] = []


def _spawn(root: Path, *, warm: bool = False) -> None:
    from hookgraph.git import no_git_env

    env = no_git_env()
    env["HOOKGRAPH_WORKER"] = "1"
    if warm:
        env[WARM_ENV] = "1"
    log = _home(root) / LOG_FILE
    _SPAWNED[:] = [proc for proc in _SPAWNED if proc.poll() is None]  # reap the ones done (a long-lived ``mcp``)
    with open(os.devnull, "rb") as devnull_in, open(log, "ab") as err:
        _SPAWNED.append(subprocess.Popen(
            [sys.executable, "-m", "hookgraph.embed.worker", str(root)],
            cwd=str(root),
            env=env,
            stdin=devnull_in,
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,
            close_fds=True,
        ))


# -- the worker -----------------------------------------------------------------------


def _log(home: Path, line: str) -> None:
    path = home / LOG_FILE
    try:
        old = path.read_text(encoding="utf-8", errors="replace").splitlines()[-(LOG_LINES - 1):]
    except OSError:
        old = []
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    try:
        path.write_text("\n".join([*old, f"{stamp} {' '.join(line.split())}"]) + "\n", encoding="utf-8")
    except OSError:
        pass


def last_error(root: Path) -> str | None:
    """The newest failure in embedder.log, as one line, or None.

    Most are lines the worker wrote itself (:func:`_log`). A crash inside the
    model (a segfault in llama.cpp) kills the process before it can write
    anything; ``faulthandler`` then dumps the Python stack to the worker's
    stderr, which is this file. That dump is told in one line: what killed
    it and the innermost frame.
    """
    try:
        lines = (_home(root) / LOG_FILE).read_text(encoding="utf-8", errors="replace").splitlines()
    except (OSError, Exception):  # noqa: BLE001 - no log, no repository: nothing to report
        return None
    fatal = max((i for i, line in enumerate(lines) if line.startswith("Fatal Python error:")), default=-1)
    if fatal >= 0 and not any(_STAMP.match(line) for line in lines[fatal:]):
        frames = [line.strip() for line in lines[fatal:] if line.strip().startswith("File ")]
        where = f" at {frames[0]}" if frames else ""
        what = lines[fatal].removeprefix("Fatal Python error:").strip()
        return (f"the background embedder died ({what}){where}; its stack is in {_home(root) / LOG_FILE}, "
                f"and the next command starts it again where it stopped")
    return lines[-1] if lines else None


#: How :func:`_log` starts a line: a failure the worker wrote, as opposed to a crash dump.
_STAMP = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} ")


def _drain_round(home: Path, embedders: dict[str, Embedder]) -> bool:
    """One batch for every registered queue; True when any work was done or is left."""
    from hookgraph.embed.choice import embedder_for_repo
    from hookgraph.embed.queue import EmbedMismatch, drain
    from hookgraph.store import Store, StoreError, damaged
    from hookgraph.store.vector_cache import repo_cache, user_cache

    busy = False
    for registration, database, root in _registrations(home):
        try:
            if not database.exists():
                registration.unlink(missing_ok=True)
                continue
            key = str(root)
            if key not in embedders:
                embedders[key] = _background(embedder_for_repo(root))
            caches = [c for c in (repo_cache(root), user_cache(root)) if c is not None and c.max_bytes > 0]
            beat(home, force=True)  # loading a model, reading a cache: alive
            from hookgraph.embed.adopt import adopt_waiting

            try:  # a clone's snapshot: checked before any embedding, at the priority of the command that started us
                adopt_waiting(root, database, embedders[key], caches)
            finally:
                yield_cpu()  # see ADOPT_AT_NORMAL_PRIORITY
            beat(home, force=True)
            from hookgraph.embed.recheck import check_adopted

            # Every adopted vector re-embedded and compared, one batch a round between the queue's batches:
            # neither a forged vector's check nor a commit's new texts wait for all of the other.
            checking = check_adopted(database, embedders[key], max_batches=1, beat=lambda: beat(home))
            report = drain(database, embedders[key], caches=caches, max_batches=1,
                           progress=lambda _done, _total: beat(home))
            for cache in caches:
                cache.close()
            if report.remaining == 0 and checking.remaining == 0:
                registration.unlink(missing_ok=True)
                with Store(database) as store:  # a sync may have queued (or adopted) more meanwhile
                    if store.pending_count() or store.unchecked_count():
                        register(root, database)
                        busy = True
            else:
                busy = True
        except Exception as exc:  # noqa: BLE001 - logged with its real cause, never a loop
            if not root.is_dir():  # a worktree removed while its queue was drained: no failure, nothing left
                registration.unlink(missing_ok=True)
                continue
            if type(exc).__module__ == "apsw" or isinstance(exc, OSError):
                exc = damaged(database, exc)  # a full disk, a read-only index: said as such
            reason = str(exc) if isinstance(exc, (EmbedMismatch, StoreError)) else f"{type(exc).__name__}: {exc}"
            _log(home, f"{database}: {reason}")
            registration.unlink(missing_ok=True)
    return busy


#: A copy of the worker's stderr (embedder.log) for faulthandler; kept open for the process's life.
_crash_stream: IO[str] | None = None


def _trace_crashes() -> None:
    """A crash in the model leaves the Python stack in embedder.log (see :func:`last_error`).

    On a copy of stderr, not fd 2 itself: llama-cpp-python points fd 2 at
    /dev/null while it loads a model, which would swallow a crash there.
    """
    global _crash_stream
    try:
        _crash_stream = os.fdopen(os.dup(2), "w")
        faulthandler.enable(file=_crash_stream)
    except (OSError, ValueError):  # no stderr at all: nothing to write a trace to
        pass


#: Why the deferred check of a snapshot's (or a cache's) vectors runs before :func:`yield_cpu`: it is a
#: bounded burst (the model's load and at most SAMPLE_SIZE texts a source, ~1-2 s of one core), paid once
#: per clone or pull, and it stands between the user and thousands of vectors that need no model at all.
#: At SCHED_IDLE on a busy 2-core machine it waited behind every other process: a clone of a 2,200-unit
#: project had its first answer in 2.2 s but every vector only after 92 s (load 6.6, benchmarks/RESULTS.md).
#: The queue's embedding, which is the long work, still runs idle.
ADOPT_AT_NORMAL_PRIORITY = True


def yield_cpu() -> None:
    """Make this process (and the model threads it starts later) run only when the CPU has nothing else to do.

    Three steps, each skipped silently where the system does not allow it:
    ``nice`` (every Unix); the ``SCHED_IDLE`` class (Linux: such a task only
    runs on a core no normal task wants; threads created later inherit it);
    and the autogroup's own nice, because both of the others only weigh
    against tasks of the same session while the kernel shares the CPU
    between sessions first. Lowering one's own priority needs no privilege.
    The autogroup is only touched by a session leader (the worker is started
    with a session of its own): otherwise it would be its caller's too.
    """
    if hasattr(os, "sched_getscheduler") and hasattr(os, "SCHED_IDLE") and os.sched_getscheduler(0) == os.SCHED_IDLE:
        return  # done already (a second round of the worker's loop)
    try:
        os.nice(NICENESS)
    except OSError:
        pass
    # Every thread, not just this one: Linux keeps nice and the scheduling class per thread, and the model's
    # OpenMP threads, created by a check that ran before (ADOPT_AT_NORMAL_PRIORITY), live on.
    me = threading.get_native_id()
    for tid in sorted(_threads(), key=lambda t: t in (me, 0)):  # this thread last: its class says "done"
        try:
            if tid not in (me, 0):
                os.setpriority(os.PRIO_PROCESS, tid, max(NICENESS, os.getpriority(os.PRIO_PROCESS, tid)))
        except (OSError, AttributeError):
            pass
        if hasattr(os, "sched_setscheduler") and hasattr(os, "SCHED_IDLE"):
            try:
                os.sched_setscheduler(tid, os.SCHED_IDLE, os.sched_param(0))
            except OSError:
                pass
    if os.getsid(0) != os.getpid():
        return  # the autogroup is the whole session's (a terminal's, say): never slow down what started us
    try:
        with open("/proc/self/autogroup", "w", encoding="ascii") as f:
            f.write(f"{AUTOGROUP_NICE}\n")
    except OSError:  # not Linux, autogroup compiled out, or a read-only /proc: nothing more to give away
        pass


#: Model contexts the background embedder runs side by side on an idle machine (see ``Embedder._compute``).
BACKGROUND_CONTEXTS = 2


def _background(embedder: Embedder) -> Embedder:
    """The repository's embedder as the background worker runs it: two model contexts when the cores are idle."""
    embedder.contexts = BACKGROUND_CONTEXTS
    return embedder


def _warm_up(root: Path, home: Path, embedders: dict[str, Embedder]) -> None:
    """Load the repository's model, then wait (holding the lock, beating) until a queue is registered."""
    from hookgraph.embed.choice import embedder_for_repo

    deadline = time.monotonic() + WARM_WAIT_SECONDS
    try:
        embedder = embedders.setdefault(str(root), _background(embedder_for_repo(root)))
        embedder.embed_windows(["warm up"])  # imports llama_cpp and loads the model now
    except Exception as exc:  # noqa: BLE001 - the real rounds report a broken model in their own words
        embedders.pop(str(root), None)
        _log(home, f"{root}: warming up the model failed ({type(exc).__name__}: {exc})")
    while not _registrations(home) and time.monotonic() < deadline:
        beat(home)
        time.sleep(0.05)


def _threads() -> list[int]:
    """This process's thread ids (Linux: /proc/self/task), or just this thread's where there is no /proc."""
    try:
        return sorted(int(name) for name in os.listdir("/proc/self/task") if name.isdigit())
    except OSError:
        return [0]


def main(argv: list[str] | None = None) -> int:
    """``python -m hookgraph.embed.worker ROOT``: drain every registered queue of ROOT's repository."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m hookgraph.embed.worker REPO_ROOT", file=sys.stderr)
        return 2
    from hookgraph.git import GitError

    root = Path(args[0])
    _trace_crashes()
    try:
        home = _home(root)
    except GitError as exc:
        if not root.is_dir():  # its worktree was removed as it started: nothing of it is left to embed
            return 0
        print(f"hookgraph: background embedder for {root}: {exc}", file=sys.stderr)  # one line in embedder.log
        return 2
    embedders: dict[str, Embedder] = {}
    warm = os.environ.pop(WARM_ENV, "") == "1"
    while True:
        with _held(home) as mine:
            if not mine:
                return 0  # another embedder runs; it will see our registration
            if warm:
                warm = False
                _warm_up(root, home, embedders)
            # Only now: started idle, a busy machine could keep it from ever taking the lock, and `status`
            # would say no embedder runs (and the next command start another). By default not even now:
            # each round yields the CPU once a snapshot's deferred check is done (ADOPT_AT_NORMAL_PRIORITY).
            if not ADOPT_AT_NORMAL_PRIORITY:
                yield_cpu()
            while _drain_round(home, embedders):
                pass
        # Released: a sync that found us running just before may have registered after our last look.
        if not _registrations(home):
            return 0


if __name__ == "__main__":  # pragma: no cover - run as a detached process
    sys.exit(main())
