"""Calling llama.cpp safely: its bindings imported late and kept quiet, Ctrl-C held while it runs.

Both matter wherever llama.cpp runs (the embedder, the model converter): llama.cpp logs to
stderr on its own, and a KeyboardInterrupt raised inside one of its callbacks is lost.
"""

from __future__ import annotations

import contextlib
import ctypes
from typing import Any

__all__ = ["interrupts_deferred", "quiet_llama"]

_log_callback: Any = None  # must outlive every llama.cpp call: C keeps the pointer


def quiet_llama() -> Any:
    """llama-cpp-python's ctypes bindings, with llama.cpp/ggml logging routed to nowhere.

    ``Llama(verbose=False)`` still lets warnings through on stderr (and the
    quantiser logs every tensor); a hook may print one line at most.
    """
    global _log_callback
    from hookgraph.llama.lite import bindings

    llama_cpp = bindings()  # the ctypes layer only: ~35 ms instead of 100-200 for the whole package
    if _log_callback is None:

        @llama_cpp.llama_log_callback
        def _discard(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
            return None

        _log_callback = _discard
        llama_cpp.llama_log_set(_log_callback, ctypes.c_void_p(0))
    return llama_cpp


@contextlib.contextmanager
def interrupts_deferred() -> Any:
    """Hold Ctrl-C while llama.cpp runs; raise it as KeyboardInterrupt right after.

    llama.cpp calls back into Python (the log callback above) while it loads a
    model or decodes; a KeyboardInterrupt raised inside a ctypes callback is
    "ignored" with a traceback on stderr, the load fails with stderr still
    redirected by llama_cpp, and the process exits 1 in silence.
    Catching the signal here and re-raising it in our own code keeps Ctrl-C
    to one line. Only the main thread can set handlers; elsewhere, and when
    someone installed their own handler, nothing changes.
    """
    import signal
    import threading

    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield
        return
    caught: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        if caught:
            raise KeyboardInterrupt
