"""Thin git plumbing: the only module that runs git.

Everything hookgraph knows about a repository comes from here as plain data:
the repo root, ``{path: blob SHA}`` maps of HEAD's tree, the index or the
working tree, and blob contents read through one ``git cat-file --batch``
process. Paths are bytes-safe (``-z`` everywhere) and decoded with
``surrogateescape`` so odd file names round-trip.
"""

from __future__ import annotations

import hashlib
import os
import re
import signal
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

from hookgraph.errors import HookgraphError

#: Variables git sets inside hooks. They must reach git when we operate on the
#: repository the hook runs for (``GIT_INDEX_FILE`` is the index being
#: committed), and must be dropped when running git anywhere else.
GIT_ENV_VARS = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_PREFIX",
)

#: Tree entry modes we index; gitlinks (submodules, 160000) and symlinks
#: (120000) are not file contents of this repository: they are listed in the
#: maps (so the store records them as skipped, with their reason) but never read.
REGULAR_MODES = ("100644", "100755")
SYMLINK_MODE = "120000"
GITLINK_MODE = "160000"
LISTED_MODES = (*REGULAR_MODES, SYMLINK_MODE, GITLINK_MODE)

class GitError(HookgraphError):
    """A git command failed; the message is one line fit for the user."""


def signal_name(number: int) -> str:
    """``SIGINT`` for 2: how a process that died of a signal is named in messages."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def path_key(path: str) -> str:
    """A path as hookgraph stores and prints it: valid UTF-8, however git spells it.

    Paths come from git as bytes, decoded with ``surrogateescape``; a name that
    is not UTF-8 (``b"caf\\xe9.py"``) would carry lone surrogates, which SQLite
    text cannot hold. Its undecodable bytes are written as ``\\xNN`` instead;
    UTF-8 names are returned unchanged. The file's content is still read by
    blob SHA, so such a file is indexed like any other.
    """
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def safe_relative_path(path: str) -> bool:
    """Whether ``path`` names something inside a work tree, the way git tracks it.

    Refused: empty, absolute, ``.``/``..``/empty components, NUL, and anything
    under ``.git`` (git itself never tracks such paths; a stored one was
    planted). Paths from a database are checked with this before any use.
    """
    if not path or "\0" in path or path.startswith("/"):
        return False
    for part in path.split("/"):
        if part in ("", ".", "..") or part.lower() == ".git":
            return False
    return True


def no_git_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """A copy of ``env`` without the variables that pin git to another repository."""
    source = os.environ if env is None else env
    return {k: v for k, v in source.items() if k not in GIT_ENV_VARS}


def split_lines(data: bytes, keepends: bool = False) -> list[bytes]:
    """A file's lines as git, ``sed`` and the parser number them: each ended by ``\\n`` alone.

    Why not ``splitlines``: ``bytes.splitlines`` also breaks at a lone ``\\r`` and ``str.splitlines`` at form
    feeds, ``\\x0b``, ``\\x1c``-``\\x1e``, ``\\x85`` and U+2028/9, so after an Emacs page break (``^L``
    between functions, common in GNU code and CPython) a context pack showed the lines above a unit under
    its true header. A ``\\r`` before the ``\\n`` stays in the line (``keepends``) or is its caller's to drop.
    """
    lines = data.split(b"\n")
    if keepends:
        out = [line + b"\n" for line in lines[:-1]]
        return [*out, lines[-1]] if lines[-1] else out
    return lines[:-1] if lines and not lines[-1] else lines


def _not_started(cwd: Path | str) -> str:
    """Why git could not start: its directory is gone (a worktree removed meanwhile), or there is no git.

    Both are FileNotFoundError; calling the first "git is not installed" sent users after the wrong cause.
    """
    if not os.path.isdir(cwd):
        return f"{cwd}: the directory no longer exists (removed while hookgraph ran, as by git worktree remove)"
    return "git is not installed or not on PATH"


def run(args: list[str], cwd: Path | str, *, input: bytes | None = None, check: bool = True) -> bytes:
    """Run ``git ARGS`` in ``cwd`` and return stdout; raise GitError on failure."""
    try:
        proc = subprocess.run(
            ["git", *args],
            cwd=cwd,
            input=input,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    except FileNotFoundError:
        raise GitError(_not_started(cwd)) from None
    if proc.returncode == -signal.SIGINT:  # Ctrl-C reached git first (one process group): we are interrupted
        raise KeyboardInterrupt
    if check and proc.returncode != 0:
        message = _decode(proc.stderr).strip().splitlines()
        dubious = [line for line in message if "dubious ownership" in line]  # the cause, not git's last hint line
        detail = dubious[0] if dubious else message[-1] if message else f"exit code {proc.returncode}"
        raise GitError(f"git {args[0]} failed: {detail}")
    return proc.stdout


def repo_root(cwd: Path | str = ".") -> Path:
    """The top of the working tree containing ``cwd``."""
    try:
        out = run(["rev-parse", "--show-toplevel"], cwd)
    except GitError as exc:
        dubious = re.search(r"dubious ownership in repository at '(.*)'", str(exc))
        if dubious:  # git refuses a repository another user owns: its reason and remedy, not "no repository"
            raise GitError(f"git refuses {dubious.group(1)}: it is owned by another user (dubious ownership); if "
                           "you trust it, run `git config --global --add safe.directory "
                           f"{dubious.group(1)}`") from None
        raise GitError(_no_work_tree(cwd)) from None
    return Path(_decode(out).strip())


def _no_work_tree(cwd: Path | str) -> str:
    """Why ``cwd`` has no work tree: inside a ``.git`` folder, a bare repository, or no repository at all.

    The first two were told "not inside a git repository (run `git init` ...)": a wrong cause, and a
    remedy that makes a repository inside the git directory.
    """
    where = Path(cwd).resolve()
    probe = run(["rev-parse", "--is-bare-repository", "--is-inside-git-dir"], cwd, check=False).split()
    if probe[:1] == [b"true"]:
        return (f"{where} is a bare repository: it has no working tree to index; run hookgraph in a clone of it "
                "(git clone)")
    if probe[1:2] == [b"true"]:
        return f"{where} is inside a git directory, not a working tree: cd to the working tree it belongs to"
    return f"{where} is not inside a git repository (run `git init` or cd into one)"


def git_dir(root: Path) -> Path:
    """The repository's git directory (``.git``, or a worktree's own one)."""
    out = _decode(run(["rev-parse", "--absolute-git-dir"], root)).strip()
    return Path(out)


def common_dir(root: Path) -> Path:
    """The git directory every worktree of the repository shares (``.git`` of the main worktree)."""
    out = _decode(run(["rev-parse", "--git-common-dir"], root)).strip()
    path = Path(out)
    return (path if path.is_absolute() else Path(root) / path).resolve()


def head_commit(root: Path) -> str | None:
    """HEAD's commit SHA, or None in a repository with no commits yet."""
    out = run(["rev-parse", "--verify", "-q", "HEAD^{commit}"], root, check=False)
    sha = _decode(out).strip()
    return sha or None


@dataclass(frozen=True)
class Entry:
    """One file of a target tree: its blob SHA and, when known, its size and mode."""

    blob: str
    size: int | None = None
    mode: str = "100644"

    @property
    def regular(self) -> bool:
        return self.mode in REGULAR_MODES


def tree_map(root: Path, rev: str = "HEAD") -> dict[str, Entry]:
    """``{path: Entry}`` for the files, symlinks and submodules of ``rev``'s tree (empty for an unborn HEAD)."""
    if rev == "HEAD" and head_commit(root) is None:
        return {}
    out = run(["ls-tree", "-r", "-l", "-z", "--full-tree", rev], root)
    result: dict[str, Entry] = {}
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        mode, kind, sha, size = meta.split()
        if _decode(mode) not in LISTED_MODES:
            continue
        result[path_key(_decode(path))] = Entry(_decode(sha), int(size) if size.isdigit() else None, _decode(mode))
    return result


def index_map(root: Path) -> dict[str, Entry]:
    """``{path: Entry}`` of the git index (whatever ``GIT_INDEX_FILE`` points at).

    Conflicted paths (stage > 0) are left out: there is no single content to index.
    """
    out = run(["ls-files", "-s", "-z"], root)
    result: dict[str, Entry] = {}
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        mode, sha, stage = meta.split()
        if stage != b"0" or _decode(mode) not in LISTED_MODES:
            continue
        result[path_key(_decode(path))] = Entry(_decode(sha), None, _decode(mode))
    return result


def blob_sha(data: bytes) -> str:
    """The SHA-1 git would give ``data`` as a blob, computed without a process."""
    header = b"blob %d\0" % len(data)
    return hashlib.sha1(header + data, usedforsecurity=False).hexdigest()


def worktree_changes(root: Path) -> list[str]:
    """Tracked paths whose working-tree file differs from the index (modified or deleted).

    As git spells them (``surrogateescape``), so they can be opened; their
    :func:`path_key` is what the maps and the store use.
    """
    out = run(["diff-files", "--name-only", "-z"], root)
    return [_decode(p) for p in out.split(b"\0") if p]


def untracked_files(root: Path) -> list[str]:
    """Files git does not track and does not ignore (``.gitignore``, ``info/exclude``), as git spells them."""
    out = run(["ls-files", "--others", "--exclude-standard", "-z"], root)
    return [_decode(p) for p in out.split(b"\0") if p]


_OBJECT_NAME = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


def is_object_name(text: str) -> bool:
    """Whether ``text`` is a full object name (SHA-1 or SHA-256 hex): what a stored commit must be before
    it is passed to git (a planted ``--output=...`` would be an option)."""
    return bool(_OBJECT_NAME.fullmatch(text))


class BlobReader:
    """Reads many blobs through one ``git cat-file --batch`` process.

    One process for a whole sync instead of one per file: on a checkout that
    touches hundreds of files this is the difference between milliseconds and
    seconds.
    """

    def __init__(self, root: Path) -> None:
        self._root = root
        self._proc: subprocess.Popen[bytes] | None = None
        #: Size of the last object asked for (None when missing or refused).
        self.last_size: int | None = None

    def _start(self) -> subprocess.Popen[bytes]:
        if self._proc is None:
            self._proc = subprocess.Popen(
                ["git", "cat-file", "--batch"],
                cwd=self._root,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
            )
        return self._proc

    def read(self, sha: str, max_bytes: int | None = None) -> bytes | None:
        """The blob's bytes, or None when the object is not in this repository.

        ``sha`` must be an object name (40 or 64 hex digits): a stored one
        comes from a database, and anything else (``HEAD:path``, a newline
        that would desynchronise the batch protocol) is refused. A blob over
        ``max_bytes`` is skipped without being held in memory: None, with its
        size in :attr:`last_size`.
        """
        self.last_size = None
        if not _OBJECT_NAME.fullmatch(sha):
            return None
        proc = self._start()
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(sha.encode() + b"\n")
            proc.stdin.flush()
        except BrokenPipeError:
            self._gone(proc)
        header = proc.stdout.readline()
        if not header:  # end of output: the process is gone, not the object
            self._gone(proc)
        parts = header.split()
        if len(parts) < 3 or parts[1] == b"missing":
            return None
        size = int(parts[2])
        self.last_size = size
        if max_bytes is not None and size > max_bytes:
            left = size + 1  # and the newline after the object
            while left > 0:
                left -= len(proc.stdout.read(min(left, 1 << 20)) or b"\0" * left)
            return None
        data = proc.stdout.read(size)
        proc.stdout.read(1)  # the newline after each object
        return data

    def _gone(self, proc: subprocess.Popen[bytes]) -> NoReturn:
        """``git cat-file`` ended under us: the user's Ctrl-C (it is in the terminal's process group too and
        may die of it before we hear of it) is an interruption; anything else is a git error, never a
        blob that looks missing."""
        self._proc = None
        try:
            code = proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
        if code == -signal.SIGINT:
            raise KeyboardInterrupt
        how = f"killed by {signal_name(-code)}" if code < 0 else f"exit {code}"
        raise GitError(f"git cat-file --batch ended while reading blobs ({how}) in {self._root}")

    def close(self) -> None:
        if self._proc is not None:
            if self._proc.stdin:
                self._proc.stdin.close()
            self._proc.wait()
            self._proc = None

    def __enter__(self) -> BlobReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _open_worktree_file(root: Path, path: str) -> int | None:
    """A descriptor on a regular file of the work tree, or None (see :func:`read_worktree_file`)."""
    if not safe_relative_path(path):
        return None
    try:  # a link loop on the way (`ln -s a b; ln -s b a`) is RuntimeError before Python 3.13, OSError after
        top = root.resolve()
        full = (top / path).resolve()
        rel = full.relative_to(top)
    except (OSError, RuntimeError, ValueError):
        return None
    if not rel.parts or rel.parts[0].lower() == ".git":
        return None
    try:
        fd = os.open(top / path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None  # missing, a symlink (ELOOP), unreadable
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def read_worktree_file(root: Path, path: str, max_bytes: int | None = None) -> bytes | None:
    """A tracked file's bytes on disk, refusing anything that leaves the repository.

    Refused: paths that are not plain repository paths (``..``, absolute,
    ``.git/...``: see :func:`safe_relative_path`), paths that resolve outside
    the work tree through a symlinked directory, symlinks, and anything that
    is not a regular file (a FIFO would block, a device never ends). A file
    over ``max_bytes`` is not read at all (None): its size is looked at first.
    """
    fd = _open_worktree_file(root, path)
    if fd is None:
        return None
    try:
        if max_bytes is not None and os.fstat(fd).st_size > max_bytes:
            return None
        with os.fdopen(fd, "rb") as f:
            fd = -1
            return f.read()
    except OSError:
        return None
    finally:
        if fd >= 0:
            os.close(fd)


#: Bytes read at a time when a big working-tree file is hashed without being held.
_HASH_CHUNK = 1 << 20


def worktree_blob(root: Path, path: str, max_bytes: int) -> tuple[str, int, bytes | None] | None:
    """``(blob sha, size, bytes)`` of a working-tree file; bytes None when it is over ``max_bytes``.

    A file too large to index is still hashed (freshness needs its blob name),
    a megabyte at a time: a 1.2 GB file modified in the work tree costs 1 MB of
    memory, not the 2.5 GB that reading it whole took. None when :func:`read_worktree_file` refuses it.
    """
    fd = _open_worktree_file(root, path)
    if fd is None:
        return None
    try:
        with os.fdopen(fd, "rb") as f:
            fd = -1
            size = os.fstat(f.fileno()).st_size
            if size <= max_bytes:
                data = f.read()
                return blob_sha(data), len(data), data
            digest = hashlib.sha1(b"blob %d\0" % size, usedforsecurity=False)
            read = 0
            while chunk := f.read(_HASH_CHUNK):
                digest.update(chunk)
                read += len(chunk)
            if read != size:  # written to while we read: a name that matches no blob, and the right size
                digest.update(b"\0changed")
            return digest.hexdigest(), size, None
    except OSError:
        return None
    finally:
        if fd >= 0:
            os.close(fd)


#: What :func:`worktree_kind` calls a work-tree path that :func:`read_worktree_file` refused.
MISSING, SYMLINK, UNREADABLE, OTHER = "missing", "symlink", "unreadable", "other"


def worktree_kind(root: Path, path: str) -> str:
    """Why a work-tree path could not be read as a file: :data:`MISSING`, :data:`SYMLINK` (a loop too),
    :data:`UNREADABLE` (a regular file this user may not read) or :data:`OTHER` (a FIFO, a folder, a path
    that leaves the work tree through a linked folder, a name git never tracks).

    Told apart because each is reported differently: a deleted file leaves the index, a link is listed as
    a link (skipped, as tracked links are), an unreadable file keeps what the index knows and is named.
    Never follows a link and never raises: a link loop is a link like any other.
    """
    if not safe_relative_path(path):
        return OTHER
    try:
        top = root.resolve()
        parent = (top / path).parent.resolve()
        parent.relative_to(top)
        info = os.lstat(parent / Path(path).name)
    except FileNotFoundError:
        return MISSING
    except NotADirectoryError:
        return MISSING  # a folder of it became a file: the path is gone
    except (OSError, RuntimeError, ValueError):
        return OTHER
    if stat.S_ISLNK(info.st_mode):
        return SYMLINK
    if stat.S_ISREG(info.st_mode):
        try:  # the open itself decides: root may read a file whose mode says nobody can
            os.close(os.open(parent / Path(path).name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK))
        except PermissionError:
            return UNREADABLE
        except OSError:
            return OTHER
    return OTHER


def worktree_symlink_entry(root: Path, path: str) -> Entry | None:
    """A work-tree symlink as git would store it: a blob of its target's bytes, mode 120000; never followed."""
    try:
        top = root.resolve()
        parent = (top / path).parent.resolve()
        parent.relative_to(top)
        target = os.readlink(os.fsencode(parent / Path(path).name))
    except (OSError, RuntimeError, ValueError):
        return None
    return Entry(blob_sha(target), len(target), SYMLINK_MODE)


def add(root: Path, paths: list[str]) -> None:
    """``git add`` paths (force: the database may be ignored in default mode)."""
    run(["add", "-f", "--", *paths], root)


# -- history since a revision (``ask --since``) --------------------------------------

#: Separates a commit's fields in ``git log --format`` output: a byte no commit subject or date holds as such
#: (subjects are one line; git keeps control bytes out of ``%s`` only loosely, so the record starts with a
#: record separator at the start of a line, which no diff line of ours starts with).
_RECORD, _FIELD = "\x1e", "\x1f"
_LOG_FORMAT = f"--format={_RECORD}%H{_FIELD}%cs{_FIELD}%s"


@dataclass(frozen=True)
class Commit:
    """A commit as ``ask --since`` shows it."""

    sha: str
    date: str
    subject: str


@dataclass(frozen=True)
class TreeChange:
    """One entry of a tree diff with rename detection: ``status`` is git's letter (A, D, M, R, C, T)."""

    status: str
    old_path: str | None
    new_path: str | None


def is_ancestor(root: Path, older: str, newer: str) -> bool:
    """Whether commit ``older`` is in ``newer``'s history (git's exit status says it: 0 yes, 1 no)."""
    try:
        done = subprocess.run(["git", "merge-base", "--is-ancestor", older, newer], cwd=root,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except FileNotFoundError:
        raise GitError(_not_started(root)) from None
    return done.returncode == 0


def resolve_commit(root: Path, rev: str) -> str | None:
    """The commit ``rev`` names (a tag, a branch, ``HEAD~3``, a SHA), or None when it names none here."""
    if not rev or rev.startswith("-") or "\n" in rev or "\0" in rev:
        return None
    out = run(["rev-parse", "--verify", "-q", "--end-of-options", f"{rev}^{{commit}}"], root, check=False)
    sha = _decode(out).strip()
    return sha if _OBJECT_NAME.fullmatch(sha) else None


def tree_changes(root: Path, old: str, new: str) -> list[TreeChange]:
    """What changed from commit ``old``'s tree to ``new``'s, renames detected (git's default similarity)."""
    out = run(["diff-tree", "-r", "-M", "--no-commit-id", "--name-status", "-z", old, new], root)
    fields = [_decode(f) for f in out.split(b"\0")]
    changes: list[TreeChange] = []
    i = 0
    while i < len(fields) and fields[i]:
        status = fields[i][:1]
        if status in ("R", "C"):
            changes.append(TreeChange(status, path_key(fields[i + 1]), path_key(fields[i + 2])))
            i += 3
        else:
            path = path_key(fields[i + 1])
            changes.append(TreeChange(status, None if status == "A" else path, None if status == "D" else path))
            i += 2
    return changes


def blobs_at(root: Path, rev: str, paths: list[str]) -> dict[str, str]:
    """``{path: blob SHA}`` of these paths in ``rev``'s tree (a path it does not have is left out)."""
    if not paths:
        return {}
    out = run(["--literal-pathspecs", "ls-tree", "-z", "--full-tree", rev, "--", *paths], root)
    found: dict[str, str] = {}
    for record in out.split(b"\0"):
        meta, _, path = record.partition(b"\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == b"blob":
            found[path_key(_decode(path))] = _decode(parts[2])
    return found


@dataclass(frozen=True)
class Hunk:
    """One ``-U0`` hunk: ``old_count`` lines from ``old_start`` became ``new_count`` lines from ``new_start``
    (a count of 0: the start is the line after which lines were inserted, or deleted)."""

    old_start: int
    old_count: int
    new_start: int
    new_count: int


@dataclass
class FilePatch:
    """How one file differs between a commit and one of its parents (the parent's path may be another name).

    A path is None for the side where the file does not exist, ``""`` where the patch does not say (a
    change of mode only: no lines changed). ``watched``: for each watched text, lines equal to it (once
    stripped) added less lines removed.
    """

    old_path: str | None
    new_path: str | None
    hunks: list[Hunk]
    watched: dict[str, int] = field(default_factory=dict)


_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _patch_path(raw: bytes, prefix: bytes) -> str | None:
    """A path of a ``---``/``+++`` line (C-quoted by git when odd), or None for ``/dev/null``."""
    import codecs

    raw = raw.rstrip(b"\n").rstrip(b"\t")
    if raw == b"/dev/null":
        return None
    if raw.startswith(b'"') and raw.endswith(b'"'):
        raw = codecs.escape_decode(raw[1:-1])[0]
    return path_key(_decode(raw[len(prefix):] if raw.startswith(prefix) else raw))


class Running:
    """A git command started now and read later. A thread drains its output as it comes, so git never waits
    on a full pipe: ``ask --since`` starts its history walks first and parses blobs while they run."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        import threading

        self.args = args
        self._out, self._err = b"", b""
        try:
            self._proc = subprocess.Popen(["git", *args], cwd=cwd, stdin=subprocess.DEVNULL,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except FileNotFoundError:
            raise GitError(_not_started(cwd)) from None
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        self._out, self._err = self._proc.communicate()

    def output(self) -> bytes:
        """Its stdout once it ended; GitError (git's last line) when it failed."""
        self._thread.join()
        code = self._proc.returncode
        if code == -signal.SIGINT:
            raise KeyboardInterrupt
        if code != 0:
            lines = _decode(self._err).strip().splitlines()
            raise GitError(f"git {self.args[0]} failed: {lines[-1] if lines else f'exit code {code}'}")
        return self._out

    def cancel(self) -> None:
        """Stop it: its answer is not needed after all."""
        if self._proc.poll() is None:
            self._proc.kill()
        self._thread.join()


def start_commit_parents(root: Path, since: str, until: str) -> Running:
    """Start listing every commit after ``since`` up to ``until`` with its parents, children first
    (``git rev-list --topo-order --parents``)."""
    return Running(["rev-list", "--topo-order", "--parents", f"{since}..{until}"], root)


def commit_parents_of(running: Running) -> dict[str, list[str]]:
    """``{commit: [parents]}``, children before parents, from :func:`start_commit_parents`."""
    out = _decode(running.output())
    return {line.split()[0]: line.split()[1:] for line in out.split("\n") if line.strip()}


def commit_parents(root: Path, since: str, until: str) -> dict[str, list[str]]:
    """``{commit: [parents]}`` for every commit after ``since`` up to ``until``, children before parents."""
    return commit_parents_of(start_commit_parents(root, since, until))


def rename_sources(root: Path, commits: list[str]) -> dict[tuple[str, str], str]:
    """``{(commit, new path): old path}`` for the renames these (non-merge) commits made: where a file that a
    path-limited walk saw appear came from (one ``git diff-tree --stdin`` for all of them)."""
    if not commits:
        return {}
    out = run(["diff-tree", "--stdin", "-r", "-M", "--name-status", "-z"], root,
              input="".join(f"{c}\n" for c in commits).encode())
    fields = [_decode(f) for f in out.split(b"\0")]
    found: dict[tuple[str, str], str] = {}
    commit = ""
    i = 0
    while i < len(fields):
        field_ = fields[i].strip("\n")
        if _OBJECT_NAME.fullmatch(field_):
            commit, i = field_, i + 1
        elif field_[:1] in ("R", "C") and i + 2 < len(fields):
            found[(commit, path_key(fields[i + 2]))] = path_key(fields[i + 1])
            i += 3
        else:
            i += 2 if field_ else 1
    return found


def start_file_patches(root: Path, since: str, until: str, paths: list[str]) -> Running:
    """Start the walk :func:`file_patches` reads: the non-merge commits that changed these paths."""
    return Running(["--literal-pathspecs", "log", "--no-merges", "-p", "-U0", "-M", "--no-color", "--no-ext-diff",
                    _LOG_FORMAT, f"{since}..{until}", "--", *paths], root)


def file_patches(root: Path, since: str, until: str, paths: list[str], watch: frozenset[str] = frozenset(),
                 started: Running | None = None, merges: dict[str, list[str]] | None = None,
                 ) -> tuple[dict[str, list[list[FilePatch]]], dict[str, Commit]]:
    """The ``-U0`` patches of these paths for each commit after ``since`` up to ``until`` that changed them:
    ``{commit: [patches against parent 1, against parent 2, ...]}`` and each such commit's date and subject.

    One ``git log -p`` walk of the non-merge commits for all the paths, and one ``git diff-tree --stdin``
    for the ``merges`` (``{merge: [parents]}``) against each parent in turn, an empty patch list where it
    does not differ there (``--always``: ``git log -m`` leaves such a parent out, and the entries could not
    be told apart). Lines equal to a ``watch`` text are counted in each patch (:attr:`FilePatch.watched`).
    ``started``: the same walk, begun earlier by :func:`start_file_patches`.
    """
    patches: dict[str, list[list[FilePatch]]] = {}
    info: dict[str, Commit] = {}
    out = (started or start_file_patches(root, since, until, paths)).output()
    for commit, entry in _patch_entries(out, watch):
        info[commit.sha] = commit
        patches[commit.sha] = [entry]
    pairs = "".join(f"{merge} {parent}\n" for merge, parents in (merges or {}).items() for parent in parents)
    if pairs:
        out = run(["--literal-pathspecs", "diff-tree", "--stdin", "--always", "-p", "-U0", "-M", "--no-color",
                   "--no-ext-diff", _LOG_FORMAT, "--", *paths], root, input=pairs.encode())
        for commit, entry in _patch_entries(out, watch):
            if any(entry):
                info[commit.sha] = commit
            patches.setdefault(commit.sha, []).append(entry)
    return patches, info


def _patch_entries(out: bytes, watch: frozenset[str]) -> list[tuple[Commit, list[FilePatch]]]:
    """``(commit, its patches)`` for each record of ``git log -p`` / ``git diff-tree -p`` output in
    :data:`_LOG_FORMAT`, in order."""
    entries: list[tuple[Commit, list[FilePatch]]] = []
    current: list[FilePatch] | None = None
    in_header = False  # ---/+++ are paths only before a patch's first hunk; inside it, a line removed or added
    for line in out.split(b"\n"):
        if line.startswith(_RECORD.encode()):
            sha, date, subject = (_decode(line[1:]).split(_FIELD, 2) + ["", ""])[:3]
            current = []
            entries.append((Commit(sha, date, subject), current))
        elif current is None:
            continue
        elif line.startswith(b"diff --git "):  # paths follow: ---/+++ lines, or rename lines for a pure rename
            current.append(FilePatch("", "", []))
            in_header = True
        elif not current:
            continue
        elif not in_header and not line.startswith(b"@@"):  # a line of a hunk
            if watch and line[:1] in (b"+", b"-"):
                text = _decode(line[1:]).strip()
                if text in watch:
                    watched = current[-1].watched
                    watched[text] = watched.get(text, 0) + (1 if line[:1] == b"+" else -1)
            continue
        elif line.startswith(b"--- "):
            current[-1].old_path = _patch_path(line[4:], b"a/")
        elif line.startswith(b"+++ "):
            current[-1].new_path = _patch_path(line[4:], b"b/")
        elif line.startswith(b"rename from "):
            current[-1].old_path = _patch_path(line[12:], b"")
        elif line.startswith(b"rename to "):
            current[-1].new_path = _patch_path(line[10:], b"")
        if line.startswith(b"@@"):
            in_header = False
            match = _HUNK.match(line)
            if match:
                a, b, c, d = match.groups()
                current[-1].hunks.append(Hunk(int(a), 1 if b is None else int(b), int(c), 1 if d is None else int(d)))
    return entries
