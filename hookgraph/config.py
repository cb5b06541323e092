"""``.hookgraph/config.toml``: a tiny, general key/value settings file.

Read with ``tomllib`` (``tomli`` on Python 3.10); written by editing lines in
place, so comments, unknown keys and other people's settings survive a
``set_value``. Values are strings, integers, floats or booleans.

Schema (every key optional; a missing file means all defaults)::

    shared = true                 # top level: commit the index (hookgraph.sync.shared)

    [model]
    path = "~/models/CodeRankEmbed.Q8_0.gguf"   # GGUF to embed with (default: the shipped one);
                                                # relative paths are relative to the repo root
    query_prefix = "..."          # override the family preset's query instruction
    document_prefix = "..."       # override the family preset's document prefix
    max_tokens = 512              # tokens per window (prefix and special tokens included)

    [embed]
    url = "http://gpu-box:8080"   # a llama.cpp server for `hookgraph index` (same GGUF as model.path)
    batch_size = 8                # texts per /v1/embeddings request

    [snapshot]
    embed_seconds = 2             # shared mode: how long pre-commit may embed for the snapshot it stages

    [no_embed]                    # units that never get a vector (hookgraph.embed.no_embed; defaults there)
    kinds = ["chunk", "block"]    # unit kinds
    tests = ["tests", "test_*"]   # path patterns by reason: tests, generated, vendored, data, paths
    min_lines = 2                 # units shorter than this (file units excepted)

    [cache]
    user_mb = 512                 # bound of ~/.cache/hookgraph/vectors.db (0: off; HOOKGRAPH_CACHE_MB wins)
    repo_mb = 256                 # bound of <git dir>/hookgraph/vectors.db (HOOKGRAPH_REPO_CACHE_MB wins)

Keys other modules add go in their own table; :func:`get` and :func:`set_value`
work for any ``(table, key)``, with ``table=None`` for the top level.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any, Union

from hookgraph.errors import HookgraphError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

Value = Union[str, int, float, bool]

CONFIG_DIR = ".hookgraph"
CONFIG_FILE = "config.toml"


class ConfigError(HookgraphError):
    """The settings file cannot be read; the message names the file and the problem."""


def config_path(root: Path) -> Path:
    return Path(root) / CONFIG_DIR / CONFIG_FILE


def load(root: Path) -> dict[str, Any]:
    """All settings of the repository at ``root`` (``{}`` when there is no file)."""
    path = config_path(root)
    if path.is_symlink() or path.parent.is_symlink():  # committed links must not make us read elsewhere
        raise ConfigError(f"{path}: is a symlink (committed by someone?); hookgraph never reads settings "
                          "through a link: replace it with a file")
    return load_file(path)


def load_file(path: Path) -> dict[str, Any]:
    """All settings in the file at ``path`` (``{}`` when there is no file)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):  # no file; or .hookgraph is a file (the store says so)
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read it ({exc})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc}); fix or delete it") from None


def get(root: Path, table: str | None, key: str, default: Any = None) -> Any:
    """One setting: ``get(root, "model", "path")``; ``table=None`` for a top-level key."""
    data = load(root)
    if table is not None:
        table_data = data.get(table)
        if not isinstance(table_data, dict):
            return default
        data = table_data
    return data.get(key, default)


def section(root: Path, table: str) -> dict[str, Any]:
    """One table as a dict (``{}`` when absent)."""
    data = load(root).get(table)
    return data if isinstance(data, dict) else {}


# -- writing ----------------------------------------------------------------------

_HEADER = re.compile(r"^\s*\[\s*([A-Za-z0-9_.-]+)\s*\]\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*=")


def format_value(value: Value) -> str:
    """A TOML literal for one value (strings as basic strings, escaped)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        out = []
        for ch in value:
            if ch in ('"', "\\"):
                out.append("\\" + ch)
            elif ch == "\n":
                out.append("\\n")
            elif ch == "\t":
                out.append("\\t")
            elif ord(ch) < 0x20 or ord(ch) == 0x7F:
                out.append(f"\\u{ord(ch):04x}")
            else:
                out.append(ch)
        return '"' + "".join(out) + '"'
    raise TypeError(f"cannot write {type(value).__name__} to config.toml")


def set_value(root: Path, table: str | None, key: str, value: Value | None) -> Path:
    """Set (or with ``None`` remove) one key, editing the file in place; returns its path.

    Other lines, comments and tables are kept as they are. A key is assumed to
    be written on one line (what this writer and hand-written simple files do).
    """
    if not re.fullmatch(r"[A-Za-z0-9_-]+", key) or (table is not None and not re.fullmatch(r"[A-Za-z0-9_-]+", table)):
        raise ValueError(f"bad config key {table}.{key}")
    path = config_path(root)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        lines = []
    new_line = None if value is None else f"{key} = {format_value(value)}"

    # Where the table's lines are: [start, end) (top level: before the first header).
    start, end = None, None
    current: str | None = None
    if table is None:
        start = 0
    for i, line in enumerate(lines):
        m = _HEADER.match(line)
        if m:
            if start is not None and end is None and current == table:
                end = i
            current = m.group(1)
            if current == table and start is None:
                start = i + 1
            if table is None and end is None:
                end = i
    if start is not None and end is None:
        end = len(lines)

    if start is None:  # no such table yet
        if new_line is not None:
            if lines and lines[-1].strip():
                lines.append("")
            lines += [f"[{table}]", new_line]
    else:
        assert end is not None
        for i in range(start, end):
            m = _KEY.match(lines[i])
            if m and m.group(1) == key:
                if new_line is None:
                    del lines[i]
                else:
                    lines[i] = new_line
                break
        else:
            if new_line is not None:
                at = end
                while at > start and not lines[at - 1].strip():  # before the blank lines that end the table
                    at -= 1
                lines.insert(at, new_line)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "\n".join(lines).rstrip("\n") + "\n"
    tomllib.loads(text)  # never leave a file we cannot read back
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return path
