"""The root of every error hookgraph raises on purpose: :class:`HookgraphError`.

The contract each one keeps: ``str(error)`` is one line a user can act on (the file or value, the real
cause, what to do), never a traceback's worth of detail. So whoever shows it to a person needs one rule,
not a list of classes: the command line prints ``hookgraph: <message>`` and exits 2
(:func:`hookgraph.cli.common.one_line_errors`), the MCP server returns the message as the tool's error.
Any other exception is a bug, said as an internal error.

At the bottom of the stages: every package may import it, and it imports nothing of hookgraph.
"""

from __future__ import annotations

__all__ = ["HookgraphError"]


class HookgraphError(Exception):
    """An error hookgraph raises on purpose; its message is one line that names the cause and the remedy."""
