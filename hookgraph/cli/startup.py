"""Ctrl-C while Python is still importing hookgraph: one line and exit 130, never a traceback.

Imported first by the package (``os``, ``signal`` and ``sys`` only, all loaded already), so the handler is in
place before click and the rest are imported; each command hands SIGINT back to KeyboardInterrupt as it
starts (:class:`hookgraph.cli.group.Command`), when it can unwind cleanly.
"""

from __future__ import annotations

import os
import signal
import sys

__all__ = ["hold_ctrl_c_while_starting", "interrupted_while_starting"]


def interrupted_while_starting(signum: int, frame: object) -> None:
    """Ctrl-C while Python is still importing hookgraph: nothing is open yet, nothing to undo."""
    os.write(2, b"hookgraph: interrupted\n")
    os._exit(130)


def hold_ctrl_c_while_starting(module_name: str) -> None:
    """Install :func:`interrupted_while_starting` when hookgraph runs as the program and nobody else set a handler.

    (``python -m hookgraph.cli`` imports the package while ``argv[0]`` is still ``-m``.)
    """
    if (module_name == "__main__" or sys.argv[0] == "-m" or os.path.basename(sys.argv[0] or "") == "hookgraph") and (
        signal.getsignal(signal.SIGINT) is signal.default_int_handler
    ):
        signal.signal(signal.SIGINT, interrupted_while_starting)
