"""Every error hookgraph raises on purpose derives from one root, and the command line shows it in one way.

One root means one rule for whoever shows an error to a person (:mod:`hookgraph.errors`): a new error class
that forgot the root would reach the user as "internal error: ..." instead of its own line.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import subprocess
import sys
from pathlib import Path

import hookgraph
from hookgraph.errors import HookgraphError
from hookgraph.git import no_git_env


def _error_classes() -> dict[str, type[BaseException]]:
    """Every exception class defined in a module of hookgraph/, by qualified name."""
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(hookgraph.__path__, "hookgraph."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if (inspect.isclass(value) and issubclass(value, BaseException)
                    and value.__module__ == info.name):
                found[f"{info.name}.{name}"] = value
    return found


def test_every_hookgraph_error_derives_from_the_root() -> None:
    classes = _error_classes()
    assert len(classes) >= 18  # the walk found the package's errors, not an empty list
    assert [name for name, cls in sorted(classes.items()) if not issubclass(cls, HookgraphError)] == []


def test_errors_that_were_value_errors_still_are() -> None:
    """Callers that catch ``ValueError`` (a bad ``--kind``, a malformed vector file) keep catching them."""
    from hookgraph.models.presets import GGUFFormatError
    from hookgraph.search.kinds import KindError
    from hookgraph.search.since import SinceError
    from hookgraph.store.vector_file import VectorFileError

    assert all(issubclass(cls, ValueError) for cls in (GGUFFormatError, KindError, SinceError, VectorFileError))


def test_a_hookgraph_error_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """Through the real command line: the error's own line after ``hookgraph:``, no traceback."""
    env = no_git_env()  # a suite run from inside a git hook must not reach the outer repository
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, env=env)
    done = subprocess.run([sys.executable, "-m", "hookgraph.cli", "ask", "x", "--kind", "nosuchkind"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("hookgraph: ") and "nosuchkind" in lines[0], done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
