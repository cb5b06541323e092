"""A damaged index: one clear line naming the file and the repair, and
``hookgraph index --full`` repairs it, whatever the damage.

Real processes on a real (tiny) repository; each damage is applied to a copy of
a good index.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import apsw
import pytest

from hookgraph.store import MIGRATIONS, db_path
from hookgraph.store.connection import load_vec
from tests.conftest import index_now, make_repo, run_cli
from tests.helpers.reliability import record, store_state, tree

FILES = {
    "app/models.py": 'class User:\n    """A person with a login."""\n\n    def greet(self):\n        return "hi"\n',
    "app/util.py": 'def slug(text):\n    """Lower-case words joined by dashes."""\n    return "-".join(text.split())\n',
}


@pytest.fixture(scope="module")
def good_index(tmp_path_factory: pytest.TempPathFactory, embedder) -> tuple[Path, bytes]:
    root = make_repo(tmp_path_factory.mktemp("corrupt") / "repo", FILES)
    index_now(root, embedder)
    db = db_path(root)
    con = apsw.Connection(str(db))
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    return root, db.read_bytes()


def _sql(*statements: str) -> Callable[[Path], None]:
    def damage(db: Path) -> None:
        con = apsw.Connection(str(db))
        load_vec(con)
        for statement in statements:
            con.execute(statement)
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        con.close()

    return damage


def _garbage(db: Path) -> None:
    db.write_bytes(os.urandom(64 * 1024))


def _truncated(db: Path) -> None:
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 3])


def _header_only(db: Path) -> None:
    db.write_bytes(db.read_bytes()[:100])


def _zeroed_pages(db: Path) -> None:
    data = bytearray(db.read_bytes())
    page = 4096
    for n in range(2, len(data) // page, 3):  # every third page after the schema
        data[n * page : (n + 1) * page] = bytes(page)
    db.write_bytes(bytes(data))


def _garbage_wal(db: Path) -> None:
    Path(f"{db}-wal").write_bytes(os.urandom(32 * 1024))


#: name -> (damage, what the one-line message must say, or None when SQLite copes by itself)
DAMAGE: dict[str, tuple[Callable[[Path], None], str | None]] = {
    "random bytes": (_garbage, "is not a hookgraph database (not an SQLite file)"),
    "truncated to a third": (_truncated, "index --full"),
    "header only": (_header_only, "index --full"),
    "zeroed pages": (_zeroed_pages, "index --full"),
    "future schema version": (_sql(f"PRAGMA user_version={len(MIGRATIONS) + 1}"), "newer hookgraph"),
    "vec table dropped": (_sql("DROP TABLE vec_units"), "vector table (vec_units) is missing"),
    "a shadow table dropped": (_sql("DROP TABLE fts_units_docsize"), "is damaged"),
    "vector chunk garbled": (_sql("UPDATE vec_units_chunks SET rowids = x'00'"), "index --full"),
    "garbage WAL beside it": (_garbage_wal, None),
}


@pytest.mark.parametrize("name", list(DAMAGE))
def test_damage_is_one_clear_line_and_index_full_repairs_it(name: str, good_index, tmp_path: Path) -> None:
    source, good = good_index
    root = tmp_path / "repo"
    shutil.copytree(source, root, symlinks=True)
    db = db_path(root)
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    db.write_bytes(good)
    damage, needle = DAMAGE[name]
    damage(db)

    # a query: one line on stderr naming the file and the repair (exit 2), or a normal answer
    semantic = [] if "vec" in name else ["--no-semantic"]  # the model is only needed to reach the vectors
    ask = run_cli(root, "ask", "user greeting", *semantic, "--json")
    assert "Traceback" not in ask.stderr
    if needle is None:
        assert ask.returncode == 0, ask.stderr
    else:
        assert ask.returncode == 2, (ask.returncode, ask.stdout[-300:])
        lines = ask.stderr.splitlines()
        assert len(lines) == 1, ask.stderr
        assert needle in lines[0] and ".hookgraph/index.db" in lines[0] and "hookgraph index --full" in lines[0], lines
        # a hook warns in one line (or, with nothing to sync, need not touch the damage) and lets git go on
        hook = run_cli(root, "hook", "post-commit")
        assert hook.returncode == 0 and len(hook.stderr.splitlines()) <= 1, hook.stderr
        assert "Traceback" not in hook.stderr and (not hook.stderr or "warning" in hook.stderr)

    # the repair
    full = run_cli(root, "index", "--full")
    assert full.returncode == 0, full.stderr
    assert "Traceback" not in full.stderr
    if needle is not None:
        assert "moved it aside" in full.stderr or "index.db" in full.stderr or full.stderr == "", full.stderr
    assert store_state(root) == tree(root)
    ask = run_cli(root, "ask", "user greeting", "--no-semantic", "--json")
    assert ask.returncode == 0, ask.stderr
    if needle is not None and "moved it aside" in full.stderr:
        assert list((db.parent).glob("index.db.broken-*")), "the damaged file is kept for inspection"
    record(f"damaged index.db: {name}", 1, "one line naming the file and `index --full`; --full rebuilt it"
           if needle else "SQLite ignored it; index kept working")
