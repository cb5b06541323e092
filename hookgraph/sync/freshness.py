"""Is the store fresh? Compare its ``{path: blob}`` map with HEAD, the index, the working tree.

We record the map, not a commit: the store describes HEAD exactly when its map
equals HEAD's tree (outside ``.hookgraph/``). That makes a commit made through
the pre-commit hook fresh at once, with no post-commit work.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from hookgraph import git
from hookgraph.parse.version import PARSER_META, parser_fingerprint
from hookgraph.store import Store


@dataclass
class Freshness:
    """The indexed commit (HEAD if the map matches it) and the paths that differ."""

    indexed_commit: str | None
    head: str | None
    stale_paths: list[str] = field(default_factory=list)

    @property
    def fresh(self) -> bool:
        return not self.stale_paths and self.indexed_commit is not None and self.indexed_commit == self.head


def _own(path: str) -> bool:
    return path.startswith(".hookgraph/")


def diff_maps(stored: dict[str, str], target: dict[str, git.Entry]) -> list[str]:
    """Paths whose blob differs between the store and a target (either side missing counts)."""
    paths = {p for p in stored if not _own(p)} | {p for p in target if not _own(p)}
    return sorted(p for p in paths if stored.get(p) != (target[p].blob if p in target else None))


#: Meta keys: the last commit whose tree the map was seen to equal, and a digest of the map at that moment.
SYNCED_COMMIT_META = "synced_commit"
SYNCED_MAP_META = "synced_map"


def map_digest(file_map: dict[str, str]) -> str:
    """Identity of a ``{path: blob}`` map (the index's own files left out, as every comparison does)."""
    import hashlib

    h = hashlib.sha256()
    for path, blob in sorted(file_map.items()):
        if not _own(path):
            h.update(f"{path}\0{blob}\n".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def record_synced(store: Store, commit: str, file_map: dict[str, str]) -> None:
    """Remember that the map ``file_map`` (the store's, now) equals ``commit``'s tree; inside a transaction.

    The digest is what lets :func:`indexed_commit` claim the commit later only while the map is still
    that one: a pre-commit sync or ``index --worktree`` moves the map on without a commit to name.
    """
    store.set_meta(SYNCED_COMMIT_META, commit)
    store.set_meta(SYNCED_MAP_META, map_digest(file_map))


def needs_recording(store: Store, commit: str) -> bool:
    """Whether a sync that found the map already equal to ``commit``'s tree must still record it.

    A commit made through the pre-commit hook leaves nothing for its post-commit sync to do; without this
    the remembered commit would stay an older one, and a later ``git reset`` would name it for newer text.
    """
    return store.get_meta(SYNCED_COMMIT_META) != commit or store.get_meta(SYNCED_MAP_META) is None


def indexed_commit(root: Path, store: Store, stored_map: dict[str, str], head: str | None,
                   stale: list[str]) -> str | None:
    """The commit whose blobs the map holds: HEAD when it matches HEAD's tree, else the last commit it was
    known to match while it still does, else None (DESIGN.md section 4) - never a commit for other text.
    """
    if head and not stale:
        return head
    commit = store.get_meta(SYNCED_COMMIT_META)
    if commit is None or not git.is_object_name(commit):  # a planted value never reaches git
        return None
    digest = store.get_meta(SYNCED_MAP_META)
    if digest is not None:
        return commit if digest == map_digest(stored_map) else None
    try:  # an index from before the digest was kept: compare the commit's tree itself
        return commit if not diff_maps(stored_map, git.tree_map(root, commit)) else None
    except git.GitError:  # gone from git (gc after a reset)
        return None


def against_head(root: Path, store: Store) -> Freshness:
    """Freshness for ``ask``/``status``: HEAD when the map matches its tree, else the last known commit."""
    head = git.head_commit(root)
    stored = store.file_map()
    stale = diff_maps(stored, git.tree_map(root) if head else {})
    return Freshness(indexed_commit(root, store, stored, head, stale), head, stale)


def against_index(root: Path, store: Store) -> list[str]:
    return diff_maps(store.file_map(), git.index_map(root))


def _parsed_by_this_parser(store: Store) -> bool:
    """Whether every file of the index was parsed by the parser now running (see :mod:`hookgraph.parse.version`).

    An empty index is: nothing in it is old. An index from before the
    fingerprint was recorded is not: its parser is unknown.
    """
    if not store.file_count():
        return True
    return store.get_meta(PARSER_META) == parser_fingerprint()


def older_parser_note(store: Store) -> str | None:
    """One line when the index was parsed by another version of the parser, with the remedy; else ``None``."""
    if _parsed_by_this_parser(store):
        return None
    return ("the index was parsed by another version of hookgraph: files not changed since keep the units it "
            "found; `hookgraph index --full` parses every file again")


def model_problem(root: Path, store: Store) -> str | None:
    """Why the index's vectors cannot be used with the configured model (one line, with the remedy), or None.

    A model switch merges like any setting (``[model] path`` in a committed ``config.toml``): where that
    GGUF is missing, or is another model than the one the index was embedded with, the index is not fresh
    however well its files match HEAD, and ``status`` says so with the cause.
    """
    from hookgraph.embed import EmbedderError
    from hookgraph.embed.choice import embedder_for_repo, store_mismatch

    if not store.get_meta("model_sha256") and not store.pending_count():
        return None  # nothing embedded or waiting: any model will do
    try:
        embedder = embedder_for_repo(root)
        problem = store_mismatch(store.get_meta, embedder)
    except EmbedderError as exc:
        return unusable_model_line(root, str(exc))
    if problem is None:
        return None
    from hookgraph.sync.teammate_model import explain_mismatch

    return explain_mismatch(root, problem, embedder.recipe)


def unusable_model_line(root: Path, error: str) -> str:
    """One line: the configured model cannot be used here (a file missing on this machine, most often), what
    still works, and what to do; naming the commit that changed the setting when a teammate's did."""
    from hookgraph import config
    from hookgraph.embed.choice import configured_model_path
    from hookgraph.sync.teammate_model import model_change

    try:
        configured = config.section(root, "model").get("path")
    except config.ConfigError:
        configured = None
    path = configured_model_path(root, configured)
    by = model_change(root)
    where = f"{config.config_path(root).relative_to(root)} [model] path"
    missing = isinstance(configured, str) and bool(configured) and not path.exists()
    cause = (f"the model file {path} ({where}) is not on this machine" if missing
             else f"the configured model cannot be used ({' '.join(error.split())})")
    # The remedy fits the cause: a missing file is put in place; anything else (a device, a wrong type, a
    # bad max_tokens) is a setting to correct, and "put that GGUF file there" would send the user looking.
    remedy = ("put that GGUF file there (or choose another with `hookgraph model use PATH`)" if missing
              else f"correct [model] in {config.config_path(root).relative_to(root)} (or choose a model with "
                   "`hookgraph model use PATH`)")
    return (f"{cause}{'; the setting was changed by ' + by if by else ''}: answers use words and graph only, "
            f"and hooks and `hookgraph index` stop on this until it is fixed; {remedy}, then run `hookgraph index`")
