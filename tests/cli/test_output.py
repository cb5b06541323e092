"""``ask --format``: vimgrep, jsonl, json; colour on a terminal only; shell completion."""

from __future__ import annotations

import json
import os
import pty
import select
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import TINY_APP, clean_env, make_repo, run_cli

APP = TINY_APP

ODD = 'def odd():\n    """Tab\there, and an escape \x1b[31m red."""\n    return 1\n'


@pytest.fixture(scope="module")
def app_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = make_repo(tmp_path_factory.mktemp("formats") / "app", {"app.py": APP, "odd.py": ODD})
    run_cli(repo, "index", "--wait", check=True)
    return repo


def test_vimgrep_is_path_line_col_text(app_repo: Path) -> None:
    out = run_cli(app_repo, "ask", "--format", "vimgrep", "--top", "2", "lookup", check=True).stdout.splitlines()
    assert out[0] == "app.py:25:9:Cache.lookup (method) def lookup(self, url)"
    for line in out:
        path, line_no, col, text = line.split(":", 3)
        assert path and int(line_no) >= 1 and int(col) >= 1 and text


def test_vimgrep_column_points_at_the_name(app_repo: Path) -> None:
    out = run_cli(app_repo, "ask", "--format", "vimgrep", "--top", "1", "fetch_page", check=True).stdout
    assert out.startswith("app.py:4:5:fetch_page (function) Download a page")
    line = (app_repo / "app.py").read_text().splitlines()[3]
    assert line[4:].startswith("fetch_page")


def test_vimgrep_keeps_one_line_per_result_whatever_the_text(app_repo: Path) -> None:
    out = run_cli(app_repo, "ask", "--format", "vimgrep", "--top", "1", "odd", check=True).stdout
    assert out.count("\n") == 1 and "\x1b" not in out and "\\x1b[31m" in out


def test_jsonl_is_one_contract_result_per_line(app_repo: Path) -> None:
    proc = run_cli(app_repo, "ask", "--format", "jsonl", "--top", "3", "download a page and try again when the network fails", check=True)
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(rows) == 3
    contract = json.loads(run_cli(app_repo, "ask", "--json", "--top", "3", "download a page and try again when the network fails", check=True).stdout)
    assert rows == contract["results"]


def test_format_json_is_the_json_flag(app_repo: Path) -> None:
    a = run_cli(app_repo, "ask", "--format", "json", "--top", "2", "Cache", check=True).stdout
    b = run_cli(app_repo, "ask", "--json", "--top", "2", "Cache", check=True).stdout
    assert json.loads(a) == json.loads(b)
    assert set(json.loads(a)) == {"query", "indexed_commit", "stale_paths", "pending_vectors", "notes", "match",
                                  "results"}


def test_json_flag_and_another_format_disagree(app_repo: Path) -> None:
    proc = run_cli(app_repo, "ask", "--json", "--format", "vimgrep", "Cache")
    assert proc.returncode == 2 and "--json and --format vimgrep disagree" in proc.stderr and not proc.stdout
    proc = run_cli(app_repo, "ask", "--format", "xml", "Cache")
    assert proc.returncode == 2 and "xml" in proc.stderr


def test_no_results_exit_1_in_every_format(app_repo: Path) -> None:
    for fmt in ("text", "jsonl", "vimgrep"):
        proc = run_cli(app_repo, "ask", "--format", fmt, "--path", "nowhere/", "Cache")
        assert proc.returncode == 1 and proc.stdout == "", fmt


def _run_on_a_terminal(repo: Path, args: list[str], **env: str) -> str:
    """Run hookgraph with stdout on a pseudo-terminal; returns what the terminal got."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "hookgraph.cli", *args], cwd=repo, stdout=slave,
                            stderr=subprocess.PIPE, env=clean_env(TERM="xterm", **env))
    os.close(slave)
    chunks: list[bytes] = []
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(master)
    assert proc.returncode == 0, proc.stderr.read() if proc.stderr else ""
    return b"".join(chunks).decode()


def test_colour_on_a_terminal_only_and_never_with_no_color(app_repo: Path) -> None:
    args = ["ask", "--top", "1", "Cache"]
    coloured = _run_on_a_terminal(app_repo, args)
    assert "\x1b[" in coloured and "Cache" in coloured
    plain = _run_on_a_terminal(app_repo, args, NO_COLOR="1")
    assert "\x1b[" not in plain and "app.py:22-26  Cache  (class)" in plain
    piped = run_cli(app_repo, *args, check=True).stdout
    assert "\x1b" not in piped and piped.startswith("app.py:22-26  Cache  (class)")
    vimgrep = _run_on_a_terminal(app_repo, ["ask", "--format", "vimgrep", "--top", "1", "Cache"])
    assert "\x1b[" not in vimgrep  # machine formats are never coloured


def _console_script() -> str:
    exe = shutil.which("hookgraph", path=str(Path(sys.executable).parent))
    assert exe, "the hookgraph console script is not installed next to this Python"
    return exe


def test_bash_completion_script_and_answers(app_repo: Path) -> None:
    exe = _console_script()
    script = subprocess.run([exe], env=clean_env(_HOOKGRAPH_COMPLETE="bash_source"), capture_output=True,
                            text=True, check=False)
    assert script.returncode == 0 and "_hookgraph_completion" in script.stdout and "complete " in script.stdout

    def complete(words: str) -> list[str]:
        env = clean_env(_HOOKGRAPH_COMPLETE="bash_complete", COMP_WORDS=words,
                        COMP_CWORD=str(len(words.split()) - (0 if words.endswith(" ") else 1)))
        proc = subprocess.run([exe], env=env, cwd=app_repo, capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stderr
        return [line.split(",", 1)[1] for line in proc.stdout.splitlines()]

    assert "graph" in complete("hookgraph gr") and "mcp" in complete("hookgraph m")
    assert complete("hookgraph ask --format ") == ["text", "json", "jsonl", "vimgrep"]
    assert complete("hookgraph graph Cache") == ["Cache", "Cache.lookup"]  # symbols from the index
    assert complete("hookgraph graph fetch_") == ["fetch_page"]
