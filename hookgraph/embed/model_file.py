"""A GGUF model file's identity: its SHA-256 (remembered in a ``.sha256`` sidecar) and its header (cached).

The embedder names its model by these without loading it: a hook that touches no code must not
pay for llama.cpp, and every sync that changes something checks the store's recipe.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from pathlib import Path
from typing import Any

from hookgraph.models.presets import read_gguf_metadata

__all__ = ["cached_metadata", "read_sha256_sidecar", "sha256_file", "write_sha256_sidecar"]


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a regular file, read in chunks.

    Why the checks: the path may come from a committed ``config.toml`` (anyone's), and ``/dev/zero``,
    ``/dev/urandom`` or a FIFO never end, which hung every hook that named the model. The open does
    not wait for a FIFO's writer (``O_NONBLOCK``), and anything but a regular file is an ``OSError``
    (``EINVAL``, "not a regular file") for the callers' one-line messages.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise OSError(errno.EINVAL, "not a regular file (a device, a pipe or a directory)", str(path))
        h = hashlib.sha256()
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def read_sha256_sidecar(path: Path) -> str | None:
    """The digest in ``<model>.sha256`` if it is there and its size matches.

    The sidecar holds one line, ``<hex digest> <size in bytes>``; the size is
    a cheap guard against a model replaced without its sidecar.
    """
    if not _sidecar(path).is_file():  # absent, or a FIFO that would wait for a writer
        return None
    try:
        fields = _sidecar(path).read_text(encoding="ascii").split()
        size = path.stat().st_size
    except (OSError, UnicodeDecodeError):
        return None
    if len(fields) >= 2 and len(fields[0]) == 64 and fields[1].isdigit() and int(fields[1]) == size:
        try:
            int(fields[0], 16)
        except ValueError:
            return None
        return fields[0].lower()
    return None


def write_sha256_sidecar(path: Path) -> str:
    """Hash a model once and record ``<hex> <size>`` beside it; returns the hex."""
    path = Path(path)
    digest = sha256_file(path)
    _sidecar(path).write_text(f"{digest} {path.stat().st_size}\n", encoding="ascii")
    return digest


def header_cache_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "hookgraph" / "gguf-headers.json"


def cached_metadata(path: Path) -> dict[str, Any]:
    """``read_gguf_metadata(path)``, remembered by absolute path, size and mtime.

    Every sync that changes something checks the store's recipe, which needs
    the header (prefixes, window, dimensions): 3-30 ms to read, the high end
    when the 25 MB file is not in the page cache. The cache is one small JSON
    file per user; any problem with it just means reading the header.
    """
    import json

    try:
        st = path.stat()
    except OSError:
        return read_gguf_metadata(path)
    key = f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}"
    cache_file = header_cache_path()
    entries: dict[str, Any] = {}
    try:
        entries = json.loads(cache_file.read_text(encoding="utf-8"))
        hit = entries.get(key) if isinstance(entries, dict) else None
        if isinstance(hit, dict) and hit.get("general.architecture"):
            return hit
    except (OSError, ValueError):
        entries = {}
    meta = read_gguf_metadata(path)
    if not isinstance(entries, dict) or len(entries) > 32:
        entries = {}
    stale = f"{path.resolve()}|"
    entries = {k: v for k, v in entries.items() if not k.startswith(stale)}
    entries[key] = meta
    try:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache_file.with_name(f".{cache_file.name}.{os.getpid()}")
        tmp.write_text(json.dumps(entries), encoding="utf-8")
        tmp.replace(cache_file)
    except (OSError, TypeError, ValueError):
        pass
    return meta
