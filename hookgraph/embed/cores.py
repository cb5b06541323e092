"""How many cores the model may use now: all of them on an idle machine, only the free ones on a busy one.

llama.cpp's threads meet at spinning barriers after every operation, so a thread that shares a
core with another busy process slows every text down (measured: ~40x). These checks read
``/proc`` (Linux) and cost ~80 µs; elsewhere every core counts as free.
"""

from __future__ import annotations

import glob
import os

__all__ = ["cpu_count", "others_running", "threads_from_env", "threads_now"]


def threads_from_env() -> int | None:
    """``$HOOKGRAPH_THREADS`` when set to a positive number, at most this process's cores.

    Why the ceiling: llama.cpp starts that many threads per matrix product; 100,000 of them died in native
    code (SIGSEGV in ``ask``, with no line from hookgraph), 1,000 ran 26 times slower, and no count above
    the cores this process may use computes anything sooner.
    """
    env = os.environ.get("HOOKGRAPH_THREADS", "").strip()
    if not env.isdigit() or int(env) <= 0:
        return None
    return min(int(env), cpu_count())


def cpu_count() -> int:
    """Cores this process may run on (affinity-aware)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def own_runnable() -> int:
    """Threads of this process running or runnable now (this one included)."""
    n = 0
    for stat in glob.glob("/proc/self/task/*/stat"):
        try:
            with open(stat, encoding="ascii", errors="replace") as f:
                n += f.read().rsplit(")", 1)[1].split()[0] == "R"
        except (OSError, IndexError):
            continue
    return n


def others_running() -> int | None:
    """Threads of other processes wanting a CPU right now (Linux), else ``None``.

    The fourth field of ``/proc/loadavg`` counts runnable threads at this
    instant, system-wide. Our own are taken off: llama.cpp's OpenMP workers
    spin for a while after each text and are not competition. ~80 µs.
    """
    try:
        mine = own_runnable()  # first: a worker that stops meanwhile errs towards "idle"
        with open("/proc/loadavg", encoding="ascii") as f:
            total = int(f.read().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return None
    return max(0, total - mine)


def threads_now(ncpu: int) -> int:
    """Every core on an idle machine; only the free ones on a busy one.

    llama.cpp's threads meet at spinning barriers after every operation: when
    one of them shares a core with another busy process, each barrier waits
    for a whole scheduler slice. Measured here with one other busy process:
    2 threads 1.2 texts/s, 1 thread 25 texts/s. On an idle machine the checks
    cost ~5% (41 vs 44 texts/s at ~100 tokens): blips of other activity.
    """
    first = others_running()
    if first is None:
        return ncpu
    busy = min(first, others_running() or 0)  # a busy process stays busy; blips do not
    return max(1, min(ncpu, ncpu - busy))
