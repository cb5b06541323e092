"""``hookgraph mcp`` as an agent meets it: a real subprocess, the SDK's own client over stdio."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, cast

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from hookgraph.search.pack import overhead as pack_overhead
from tests.conftest import TINY_APP, clean_env, commit_all, git, make_repo, run_cli, write_files

APP = TINY_APP

INVOICE = '''

def compute_invoice_total(lines, tax_rate):
    """Sum the invoice lines and add the sales tax."""
    return sum(lines) * (1 + tax_rate)
'''

TOOLS = {"search", "context", "callers", "callees", "status"}
CONTRACT_RESULT_FIELDS = {"path", "symbol", "kind", "start_line", "end_line", "score", "lexical", "semantic",
                          "graph", "confidence", "snippet"}

Session = Callable[[str, dict[str, Any]], Awaitable[Any]]


def serve(repo: Path, body: Callable[[ClientSession, Session], Awaitable[None]], *args: str,
          cwd: Path | None = None) -> None:
    """Start ``hookgraph mcp`` in ``repo`` and run ``body`` against it with the SDK's client."""

    async def main() -> None:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "hookgraph.cli", "mcp", *args],
            env=clean_env(),
            cwd=str(cwd or repo),
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()

            async def call(name: str, arguments: dict[str, Any]) -> Any:
                with anyio.fail_after(120):
                    return await session.call_tool(name, arguments)

            await body(session, call)

    anyio.run(main)


def ok(result: Any) -> dict[str, Any]:
    """The structured answer of a successful call; its text content is the same JSON."""
    assert not result.is_error, result.content[0].text
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").strip()


@pytest.fixture(scope="module")
def app_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = make_repo(tmp_path_factory.mktemp("mcp") / "app", {"app.py": APP})
    run_cli(repo, "index", "--wait", check=True)
    return repo


def test_lists_the_tools_and_answers_each_one(app_repo: Path) -> None:
    commit = head(app_repo)

    async def body(session: ClientSession, call: Session) -> None:
        listed = (await session.list_tools()).tools
        assert {t.name for t in listed} == TOOLS
        for tool in listed:
            assert tool.description and tool.output_schema, tool.name

        found = ok(await call("search", {"query": "retry a download after a network error", "top": 3}))
        assert set(found) == {"query", "indexed_commit", "stale_paths", "uncommitted_paths", "pending_vectors", "match",
                              "results"}
        assert found["match"] == "strong"
        assert found["indexed_commit"] == commit and found["stale_paths"] == [] and found["uncommitted_paths"] == []
        assert 1 <= len(found["results"]) <= 3
        best = found["results"][0]
        assert set(best) == CONTRACT_RESULT_FIELDS
        assert (best["path"], best["symbol"], best["kind"]) == ("app.py", "fetch_page", "function")
        assert (best["start_line"], best["end_line"]) == (4, 11)

        method = ok(await call("search", {"query": "lookup", "top": 1, "path": "app.py", "lang": "python"}))
        assert method["results"][0]["symbol"] == "Cache.lookup"

        files = ok(await call("search", {"query": "download a page and try again when the network fails", "top": 2,
                                         "files": True}))
        assert files["match"] == "strong" and files["files"][0]["path"] == "app.py"
        assert files["files"][0]["units"][0]["symbol"] == "fetch_page"
        assert files["results"] == [u for f in files["files"] for u in f["units"]]

        packed = ok(await call("context", {"query": "download a page and try again when the network fails", "budget": 150}))
        assert "def fetch_page" in packed["text"]
        assert 0 < packed["tokens"] <= 150
        assert packed["pieces"][0] == {"path": "app.py", "start_line": 4, "end_line": 11, "symbol": "fetch_page",
                                       "kind": "function", "role": "code", "cut": False}

        # search with a budget returns the same pack as context and `ask --context`, each piece with its cost
        question = "download a page and try again when the network fails"
        in_search = ok(await call("search", {"query": question, "budget": 150}))
        assert in_search["results"] and in_search["match"] == "strong"
        assert [{k: v for k, v in p.items() if k != "tokens"} for p in in_search["pieces"]] == packed["pieces"]
        assert in_search["tokens"] == packed["tokens"] <= 150
        header = re.compile(r"\[[0-9a-f]{8}\]")
        assert header.sub("[ID]", in_search["text"]) == header.sub("[ID]", packed["text"])
        cli = run_cli(app_repo, "ask", "--context", "150", question, check=True).stdout.rstrip("\n")
        assert header.sub("[ID]", cli) == header.sub("[ID]", packed["text"])
        running = pack_overhead([]) + 1 + sum(p["tokens"] for p in in_search["pieces"])
        assert running <= 150 and in_search["tokens"] <= running

        callers = ok(await call("callers", {"symbol": "fetch_page"}))
        assert [(c["symbol"], c["call_path"], c["call_line"]) for c in callers["callers"]] == [
            ("Cache.lookup", "app.py", 26)
        ]
        callees = ok(await call("callees", {"symbol": "fetch_page"}))
        ours = {c["symbol"] for c in callees["callees"] if c["path"] == "app.py"}
        assert ours == {"open_connection", "wait_a_little"}
        assert any(c["path"] is None and c["symbol"] == "range" for c in callees["callees"])  # not ours

        status = ok(await call("status", {}))
        assert status["indexed_commit"] == commit == status["head"] and status["fresh"] is True
        assert status["stale_vs_head"] == [] and status["stale_paths"] == [] and status["synced"] is True
        assert status["counts"]["units"] >= 6 and status["model"]["name"] == "all-MiniLM-L6-v2"
        assert status["server"]["model_loads"] == 1  # loaded once, kept across calls

    serve(app_repo, body)


#: (tool, arguments, the whole one-line error text; "..." ends a prefix)
BAD_ARGUMENTS = [
    ("search", {"query": "pages", "top": 0}, "top: Input should be greater than or equal to 1 (got 0)"),
    ("search", {"query": "pages", "top": "many"},
     "top: Input should be a valid integer, unable to parse string as an integer (got 'many')"),
    ("search", {}, "query: Field required"),
    ("search", {"query": "   "}, "query: empty; ask a question or name an identifier"),
    ("search", {"query": "pages", "lang": "cobol"}, "lang: unknown language 'cobol'; use one of ..."),
    ("search", {"query": "pages", "path": "../*"},
     "path: '../*' can never match: paths are relative to the repository root (a folder such as 'src/' or a glob "
     "such as '*.py'), and never leave it"),
    ("context", {"query": "pages", "budget": 1}, "budget: Input should be greater than or equal to 50 (got 1)"),
    ("search", {"query": "pages", "budget": 10}, "budget: Input should be greater than or equal to 50 (got 10)"),
    ("callers", {"symbol": "no_such_function"}, "no function, method or class named 'no_such_function'..."),
    ("callers", {"symbol": "  "}, "symbol: empty; ask a question or name an identifier"),
    ("callees", {"symbol": 42}, "symbol: Input should be a valid string (got 42)"),
    ("no_such_tool", {}, "Unknown tool: no_such_tool"),
]


def test_a_bad_argument_is_a_one_line_tool_error_not_a_crash(app_repo: Path) -> None:
    """One server, every bad argument: each answered with one line (``field: problem``), and it keeps serving."""

    async def body(session: ClientSession, call: Session) -> None:
        for tool, arguments, expected in BAD_ARGUMENTS:
            result = await call(tool, arguments)
            text = result.content[0].text
            assert result.is_error and "\n" not in text and "http" not in text, (tool, arguments, text)
            if expected.endswith("..."):
                assert text.startswith(expected[:-3]), (tool, arguments, text)
            else:
                assert text == expected, (tool, arguments, text)
        assert ok(await call("status", {}))["server"]["calls"] >= 1  # still serving

    serve(app_repo, body)


def _raw_session(repo: Path, *args: str) -> subprocess.Popen[str]:
    """``hookgraph mcp ARGS`` (default ``--no-sync``) spoken to line by line, initialised."""
    proc = subprocess.Popen([sys.executable, "-m", "hookgraph.cli", "mcp", *(args or ("--no-sync",))], cwd=repo,
                            env=clean_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    assert proc.stdin is not None
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}) + "\n")
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    proc.stdin.flush()
    return proc


def _close(proc: subprocess.Popen[str]) -> str:
    """End the session (stdin closed: the server exits); its stderr."""
    assert proc.stdin is not None
    proc.stdin.close()
    try:
        proc.wait(timeout=30)
    finally:
        proc.kill()
    return proc.stderr.read() if proc.stderr else ""


def _reply(proc: subprocess.Popen[str], timeout: float = 60) -> dict[str, Any]:
    import select

    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, "no reply: a client waiting for it would hang"
    return json.loads(proc.stdout.readline())


#: A line on the wire -> the JSON-RPC error it must get (code, id). The SDK alone answers none of these.
MALFORMED = [
    ("this is not json", -32700, None),
    ('{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "search"', -32700, None),
    ('{"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": "a string"}', -32600, 8),
    ('{"jsonrpc": "2.0", "id": "nine", "method": "tools/list", "params": [1, 2]}', -32600, "nine"),
    ('{"jsonrpc": "1.0", "id": 10, "method": "tools/list"}', -32600, 10),
    ('{"jsonrpc": "2.0", "id": 11, "method": 42}', -32600, 11),
    ('[{"jsonrpc": "2.0", "id": 12, "method": "tools/list"}]', -32600, None),
    ('"just a string"', -32600, None),
    ("\xff\xfe garbage bytes", -32700, None),
    # Python's parser takes these, the SDK's reader drops them without a word (found by trying, stop 57):
    ('{"jsonrpc": "2.0", "id": 13, "method": "tools/call", "params": {"name": "search", '
     '"arguments": {"query": "\\ud800abc"}}}', -32700, 13),  # a lone surrogate escape
    ('{"jsonrpc": "2.0", "id": 14, "method": "tools/list", "params": {"x": ' + "[" * 300 + "]" * 300 + "}}",
     -32700, 14),  # past pydantic's nesting limit
    ("[" * 5000 + "]" * 5000, -32700, None),  # past Python's: was a RecursionError that ended the server
    ('{"jsonrpc": "2.0", "id": "\\udcff", "method": "tools/list"}', -32700, None),  # echoed, it ended the writer
    ('{"jsonrpc": "2.0", "id": 7.5, "method": "tools/list"}', -32600, None),  # the SDK reads a notification
    ('{"jsonrpc": "2.0", "id": null, "method": "tools/list"}', -32600, None),
    ('{"jsonrpc": "2.0", "id": ' + "1" * 5000 + ', "method": "ping"}', -32700, None),  # past Python's int digits
]


def test_malformed_json_rpc_gets_an_error_reply_and_the_server_keeps_serving(app_repo: Path) -> None:
    proc = _raw_session(app_repo)
    assert proc.stdin is not None
    try:
        assert _reply(proc)["id"] == 1  # initialized
        for line, code, request_id in MALFORMED:
            proc.stdin.write(line + "\n")
            proc.stdin.flush()
            reply = _reply(proc, timeout=20)
            assert reply["jsonrpc"] == "2.0" and reply["id"] == request_id, (line, reply)
            assert reply["error"]["code"] == code and "\n" not in reply["error"]["message"], (line, reply)
        proc.stdin.write("\n")  # a blank line is no message: no reply, nothing breaks
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 20, "method": "tools/call",
                                     "params": {"name": "search", "arguments": {"query": "fetch page"}}}) + "\n")
        proc.stdin.flush()
        answer = _reply(proc)
        assert answer["id"] == 20 and not answer["result"].get("isError"), answer
        assert "fetch_page" in answer["result"]["content"][0]["text"]
    finally:
        err = _close(proc)
    assert proc.returncode == 0 and "Traceback" not in err


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_answers_follow_the_working_tree_and_the_index_is_left_alone(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app", {"app.py": APP, "notes.md": "# Notes\n\nNothing yet.\n"})
    run_cli(repo, "index", "--wait", check=True)
    first = head(repo)
    index = repo / ".hookgraph" / "index.db"

    async def body(session: ClientSession, call: Session) -> None:
        before = _sha(index)
        ok(await call("status", {}))

        write_files(repo, {"app.py": APP + INVOICE})  # an agent's uncommitted edit
        found = ok(await call("search", {"query": "compute_invoice_total", "top": 1}))
        assert found["results"][0]["symbol"] == "compute_invoice_total"
        assert found["results"][0]["start_line"] == 29
        assert found["uncommitted_paths"] == ["app.py"] and found["stale_paths"] == []
        assert found["indexed_commit"] == first  # the index still describes HEAD
        status = ok(await call("status", {}))
        assert status["fresh"] is True and status["stale_vs_head"] == [] and status["files_synced"] == 0
        packed = ok(await call("context", {"query": "add sales tax to an invoice", "budget": 200}))
        assert "return sum(lines) * (1 + tax_rate)" in packed["text"]
        assert _sha(index) == before  # never written
        cli_status = json.loads(run_cli(repo, "status", "--json", check=True).stdout)
        assert cli_status["stale_vs_head"] == [] and cli_status["stale_vs_worktree"] == ["app.py"]

        git(repo, "checkout", "--", "app.py")  # the edit is undone
        gone = ok(await call("search", {"query": "compute_invoice_total", "top": 3}))
        assert all(r["symbol"] != "compute_invoice_total" for r in gone["results"])
        assert gone["uncommitted_paths"] == []

        write_files(repo, {"app.py": APP + INVOICE})
        second = commit_all(repo, "invoices")  # no hooks installed: the index falls behind HEAD
        status = ok(await call("status", {}))
        assert status["head"] == second and status["indexed_commit"] == first
        assert status["stale_vs_head"] == ["app.py"] and status["fresh"] is False
        assert status["uncommitted_paths"] == [] and status["stale_paths"] == []  # answers match the disk
        found = ok(await call("callers", {"symbol": "compute_invoice_total"}))
        assert found["callers"] == []

        run_cli(repo, "index", "--wait", check=True)  # the index catches up: the server takes a new copy
        status = ok(await call("status", {}))
        assert status["indexed_commit"] == second and status["fresh"] is True and status["stale_paths"] == []
        assert status["server"]["model_loads"] == 1

    serve(repo, body)


def test_a_new_untracked_file_is_in_the_answers_and_a_flood_of_them_is_told(tmp_path: Path) -> None:
    """An agent writes a new file (not yet `git add`ed): the next answer has it; 200+ scratch files are said."""
    from hookgraph.sync.target import MAX_UNTRACKED

    repo = make_repo(tmp_path / "app", {"app.py": APP, ".gitignore": "build/\n"})
    run_cli(repo, "index", "--wait", check=True)

    async def body(session: ClientSession, call: Session) -> None:
        write_files(repo, {"invoices.py": INVOICE, "build/gen.py": INVOICE.replace("compute_", "generated_")})
        found = ok(await call("search", {"query": "compute_invoice_total", "top": 3}))
        assert found["results"][0]["symbol"] == "compute_invoice_total"
        assert found["results"][0]["path"] == "invoices.py"
        assert found["uncommitted_paths"] == ["invoices.py"] and found["stale_paths"] == []  # build/ is ignored
        write_files(repo, {f"scratch/s{i}.py": f"x = {i}\n" for i in range(MAX_UNTRACKED + 1)})
        status = ok(await call("status", {}))
        assert f"{MAX_UNTRACKED + 2} untracked files are not in these answers (too many" in status["note"]
        assert "git add" in status["note"]

    serve(repo, body)


def test_untracked_files_give_way_when_they_and_the_edits_exceed_max_sync(tmp_path: Path) -> None:
    """`hookgraph index` cannot take untracked files in, so they must never stop tracked edits from syncing."""
    repo = make_repo(tmp_path / "app", {"app.py": APP})
    run_cli(repo, "index", "--wait", check=True)

    async def body(session: ClientSession, call: Session) -> None:
        write_files(repo, {"app.py": APP + INVOICE, **{f"notes/n{i}.py": f"y = {i}\n" for i in range(6)}})
        found = ok(await call("search", {"query": "compute_invoice_total", "top": 3}))
        assert found["results"][0]["symbol"] == "compute_invoice_total"  # the tracked edit is synced
        assert found["uncommitted_paths"] == ["app.py"] and found["stale_paths"] == []
        status = ok(await call("status", {}))
        assert "6 untracked files are not in these answers" in status["note"] and status["synced"] is True

    serve(repo, body, "--max-sync", "5")


def test_without_sync_it_says_which_paths_are_stale(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app", {"app.py": APP})
    run_cli(repo, "index", "--wait", check=True)
    write_files(repo, {"app.py": APP + INVOICE})

    async def body(session: ClientSession, call: Session) -> None:
        found = ok(await call("search", {"query": "compute_invoice_total", "top": 3}))
        assert found["stale_paths"] == ["app.py"] and found["uncommitted_paths"] == ["app.py"]
        assert all(r["symbol"] != "compute_invoice_total" for r in found["results"])
        status = ok(await call("status", {}))
        assert status["synced"] is False and "app.py" in status["stale_paths"] and "--no-sync" in status["note"]

    serve(repo, body, "--no-sync")


def test_too_many_changes_are_reported_not_synced(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app", {"app.py": APP})
    run_cli(repo, "index", "--wait", check=True)
    write_files(repo, {"app.py": APP + INVOICE})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    async def body(session: ClientSession, call: Session) -> None:
        status = ok(await call("status", {}))
        assert status["stale_paths"] == ["app.py"] and "hookgraph index" in status["note"]
        assert status["root"] == str(repo)

    serve(repo, body, "--max-sync", "0", "--repo", str(repo), cwd=elsewhere)  # started outside the repo


def _descendants(pid: int) -> list[int]:
    """Children of any thread of ``pid`` (the server forks from a worker thread)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def _call(proc: subprocess.Popen[str], request_id: int, name: str, arguments: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                                 "params": {"name": name, "arguments": arguments}}) + "\n")
    proc.stdin.flush()


def _answer(reply: dict[str, Any]) -> dict[str, Any]:
    assert not reply["result"].get("isError"), reply
    return cast("dict[str, Any]", json.loads(reply["result"]["content"][0]["text"]))


BIG = "".join(f"def handler_{i}(request, response):\n    return request.get({i}) or response\n\n"
              for i in range(9000))  # ~700 KB: parsing takes long enough to be caught at it


def test_a_parser_crash_while_syncing_the_working_tree_leaves_the_file_out_not_the_server(tmp_path: Path) -> None:
    """A real SIGSEGV to the server's syncing child while it parses a file: the server answers, names the file."""
    from hookgraph.store import Store, db_path
    from hookgraph.sync import crash_guard

    repo = make_repo(tmp_path / "app", {"app.py": APP})
    run_cli(repo, "index", "--wait", check=True)
    write_files(repo, {**{f"gen/big_{n}.py": BIG for n in range(3)},
                       "app/retry.py": "def retry_later(job):\n    return job.schedule(delay=30)\n"})
    git(repo, "add", "-A")  # an agent's new files, staged (the working-tree view is of tracked files)
    proc = _raw_session(repo, "--max-sync", "200")  # syncing, as agents run it
    assert proc.stdout is not None
    try:
        assert _reply(proc)["id"] == 1
        _call(proc, 2, "search", {"query": "retry_later", "top": 3})
        crumb = crash_guard.breadcrumb_path(proc.pid)
        killed = ""
        import select

        deadline = time.monotonic() + 120
        while not select.select([proc.stdout], [], [], 0.005)[0] and time.monotonic() < deadline:
            try:
                noted = crumb.read_bytes().split(b"\0", 1)[0].decode()
            except OSError:
                noted = ""
            if not killed and " gen/big_" in noted and _descendants(proc.pid):
                for child in _descendants(proc.pid):
                    os.kill(child, signal.SIGSEGV)
                killed = noted.split(" ", 1)[1]
        assert killed, "the server did not parse a big file while watched"
        found = _answer(_reply(proc))
        assert found["results"][0]["symbol"] == "retry_later"  # the rest of the working tree is synced
        assert killed in found["stale_paths"]  # and the answer says which file it lacks
        _call(proc, 3, "status", {})
        status = _answer(_reply(proc))
        assert f"the parser crashed on {killed}: left out of these answers until it changes" in status["note"]
        assert status["files_synced"] == 0 and killed in status["stale_paths"]  # no crash loop: not parsed again
        others = [f"gen/big_{n}.py" for n in range(3) if f"gen/big_{n}.py" != killed]
        _call(proc, 4, "search", {"query": "handler_8999", "top": 5})
        assert {r["path"] for r in _answer(_reply(proc))["results"]} >= set(others)
    finally:
        err = _close(proc)
    assert proc.returncode == 0 and "Traceback" not in err and "Fatal Python error" not in err, err
    with Store(db_path(repo)) as store:  # the index itself is never written: the crash stays in the copy
        assert not [p for p in store.file_map() if p.startswith("gen/")]


def test_mcp_without_an_index_says_what_to_do(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app", {"app.py": APP})
    proc = run_cli(repo, "mcp")
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("hookgraph: no index in") and "hookgraph index" in proc.stderr


def test_other_commands_do_not_import_the_sdk(app_repo: Path) -> None:
    code = "import sys, hookgraph.cli; print('mcp' in sys.modules, 'hookgraph.cli.mcp_server' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                         env=clean_env(), cwd=app_repo).stdout.split()
    assert out == ["False", "False"]
