"""``hookgraph verify``: is the committed snapshot one a teammate can take vectors from?

A snapshot holds vectors by text key and nothing else, so what can be wrong
with it is the vectors: another model's, too few for the commit's texts, or
forged. Each is checked against the commit itself - its texts composed here
from its blobs (no working index needed, so CI can run it on a fresh clone)
and the local model:

* unreadable, or embedded with another model than this repository's: exit 1;
* more than :data:`MAX_MISSING_SHARE` of the commit's texts without a vector:
  exit 1 (a commit's own new texts ride along with the next commit when the
  hook does not embed, so a few are normal);
* a sample of the vectors (:data:`hookgraph.embed.check.SAMPLE_SIZE`), or with
  ``--vectors`` every one, embedded here and compared: any that differs is
  exit 1, naming its units and the commit that brought it into the snapshot.

The repair is :data:`REPAIR`: the working index gets every vector from the
local model or a full check (``index --wait``), the pre-commit hook writes the
snapshot from it (it never exports an unchecked vector), and a commit carries it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hookgraph import git
from hookgraph.store.snapshot import DB_DIRNAME, SNAPSHOT_FILE

if TYPE_CHECKING:
    from hookgraph.embed import Embedder
    from hookgraph.store.vector_file import VectorFile

__all__ = ["MAX_MISSING_SHARE", "REPAIR", "CommitText", "check_vectors", "commit_texts"]

#: Share of a commit's texts its snapshot may lack vectors for before ``verify`` fails.
MAX_MISSING_SHARE = 0.10
#: The command that rewrites the committed snapshot from vectors this machine computed or checked.
REPAIR = ("hookgraph index --wait && hookgraph hook pre-commit && "
          "git commit -m 'hookgraph: repair the committed snapshot'")
#: Commits looked through to find which one brought a forged vector into the snapshot.
HISTORY_LIMIT = 200
#: Units a message names at most.
NAMED = 6


@dataclass
class CommitText:
    """One composed text of the commit: what is embedded, and the units that are embedded as it."""

    text: str
    units: list[str]


def commit_texts(root: Path, commit: str, recipe: str) -> dict[bytes, CommitText]:
    """``{key: CommitText}`` of every text the commit's units are embedded as (the no-embed rule applied).

    Parsed from the commit's blobs exactly as a sync parses them, so the keys
    are those a clone of the commit asks a snapshot for.
    """
    from hookgraph.embed import no_embed
    from hookgraph.parse import compose, filters
    from hookgraph.sync.parallel import read_files
    from hookgraph.sync.target import Target

    target = Target("head", git.tree_map(root, commit), commit=commit)
    wanted = {p: e for p, e in target.entries.items() if not filters.is_own_database(p)}
    rule = no_embed.load_rule(root)
    found: dict[bytes, CommitText] = {}
    with git.BlobReader(root) as reader:
        for path, read in read_files(root, target, sorted(wanted), wanted, filters.text_chunks_wanted(root), reader):
            parsed = read.parsed
            if parsed is None:
                continue
            texts = read.texts if len(read.texts) == len(parsed.units) else compose.embed_texts(parsed)
            for unit, text in zip(parsed.units, texts):
                if rule.reason(unit.path, unit.kind, unit.start_line, unit.end_line) is not None:
                    continue
                entry = found.setdefault(compose.text_hash(recipe, text), CommitText(text, []))
                entry.units.append(f"`{unit.qualname}` ({path})")
    return found


def check_vectors(root: Path, commit: str, contents: VectorFile, *, full: bool,
                  embedder: Embedder | None = None) -> tuple[bool, str]:
    """``(ok, one line)`` for a snapshot's vectors against ``commit``'s texts and the local model."""
    from hookgraph.embed.check import SAMPLE_SIZE, agrees, sample_keys
    from hookgraph.embed.choice import embedder_for_repo

    short = commit[:12]
    embedder = embedder or embedder_for_repo(root)
    held = f"the committed snapshot of {short}"
    if contents.records and contents.recipe != embedder.recipe:
        return False, (f"{held} was embedded with another model ({contents.recipe}) than this repository's "
                       f"({embedder.recipe}): repair it with `{REPAIR}`")
    texts = commit_texts(root, commit, embedder.recipe)
    present = [key for key in texts if key in contents.records]
    lacking = len(texts) - len(present)
    if texts and lacking > MAX_MISSING_SHARE * len(texts):
        paths = sorted({unit.rsplit(" (", 1)[-1].rstrip(")") for key, t in texts.items()
                        if key not in contents.records for unit in t.units})
        shown = ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
        return False, (f"{held} lacks vectors for {lacking} of its {len(texts)} texts ({lacking / len(texts):.0%}; "
                       f"at most {MAX_MISSING_SHARE:.0%} may wait for the next commit), in {shown}: "
                       f"repair it with `{REPAIR}`")
    chosen = sorted(present) if full else sample_keys(sorted(present), SAMPLE_SIZE)
    forged = []
    for key in chosen:
        windows, _truncated = embedder.embed_windows([texts[key].text])[0]
        record = contents.records[key]
        import numpy as np

        theirs = np.frombuffer(record.embedding, dtype=np.int8).reshape(record.windows, contents.dims)
        if not agrees(windows, theirs):
            forged.append(key)
    how = "every one" if full else f"a sample of {len(chosen)}"
    waiting = f", {lacking} waiting for the next commit" if lacking else ""
    if not forged:
        return True, (f"{held} holds vectors for {len(present)} of its {len(texts)} texts{waiting}; {how} "
                      f"agrees with the local model" + ("" if full else " (`hookgraph verify --vectors` checks all)"))
    units = [unit for key in forged for unit in texts[key].units]
    named = ", ".join(units[:NAMED]) + (f" and {len(units) - NAMED} more" if len(units) > NAMED else "")
    bringers = sorted({brought_by(root, commit, key, contents.records[key].embedding) for key in forged})
    return False, (f"{held} holds forged vectors: {len(forged)} of {how if full else len(chosen)} checked differ "
                   f"from what the local model computes for their text, for {named}; brought by "
                   f"{', '.join(bringers)}: repair it with `{REPAIR}`")


def brought_by(root: Path, commit: str, key: bytes, embedding: bytes) -> str:
    """``commit <hash> (<author>: <subject>)``: the commit that put this record into the snapshot.

    Walks back the commits that changed the snapshot, from ``commit``, while
    the record is there with the same bytes; the oldest of that run brought it.
    """
    from hookgraph.store import vector_file

    spec = f"{DB_DIRNAME}/{SNAPSHOT_FILE}"
    out = git.run(["log", f"-{HISTORY_LIMIT}", "--format=%H", commit, "--", spec], root, check=False)
    bringer = None
    for line in out.decode("ascii", "replace").split():
        blob = git.run(["cat-file", "blob", f"{line}:{spec}"], root, check=False)
        try:
            record = vector_file.decode(blob).records.get(key) if blob else None
        except vector_file.VectorFileError:
            record = None
        if record is None or record.embedding != embedding:
            break
        bringer = line
    if bringer is None:
        return f"commit {commit[:12]}"
    info = git.run(["log", "-1", "--format=%h%x00%an%x00%s", bringer], root, check=False).decode("utf-8", "replace")
    short, author, subject = (info.strip().split("\0") + ["", ""])[:3]
    return f"commit {short} ({' '.join(author.split())}: {' '.join(subject.split())[:60]})"
