"""Context packs (``ask --context N``): answers, class headers and callee signatures within a budget."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hookgraph.cli.common import terminal_safe_block
from hookgraph.search.pack import build_pack, estimate_tokens
from hookgraph.search import search
from hookgraph.store import Store, db_path
from tests.conftest import index_now, make_repo, run_cli

MONEY = '''"""Money helpers."""


def round_cents(amount):
    """Round an amount to whole cents, halves away from zero."""
    sign = -1 if amount < 0 else 1
    return sign * int(abs(amount) * 100 + 0.5) / 100


def apply_tax(amount, rate):
    """Add sales tax at the given rate to an amount."""
    taxed = amount * (1 + rate)
    return taxed
'''

ORDERS = '''"""Orders and their ledger."""

from shop.money import apply_tax, round_cents


class OrderBook:
    """All open orders of one shop, with the running balance."""

    currency = "EUR"
    max_open = 500

    def __init__(self):
        self.orders = []
        self.balance = 0.0

    def settle_invoice(self, order, tax_rate):
        """Charge an order: add tax, round to cents and book it on the balance."""
        gross = apply_tax(order.total, tax_rate)
        amount = round_cents(gross)
        self.balance += amount
        self.orders.remove(order)
        return amount

    def cancel(self, order):
        """Drop an open order without charging it."""
        self.orders.remove(order)
        for line in order.lines:
            line.release()
        return order
'''

README = "# Shop\\n\\nA tiny shop used to test context packs.\\n"


@pytest.fixture(scope="module")
def shop_repo(tmp_path_factory: pytest.TempPathFactory, embedder) -> Path:

    repo = make_repo(tmp_path_factory.mktemp("pack") / "shop",
                     {"shop/__init__.py": "", "shop/money.py": MONEY, "shop/orders.py": ORDERS, "README.md": README})
    index_now(repo, embedder)
    return repo


QUESTION = "charge an order with tax and add it to the running balance"


def _pack(repo: Path, embedder, budget: int, top: int = 5):
    with Store(db_path(repo)) as store:
        results = search(store, QUESTION, top=top, embedder=embedder)
        assert results[0].unit.qualname == "OrderBook.settle_invoice"
        return build_pack(repo, store, results, budget)


def _pieces(repo: Path, embedder, budget: int, top: int = 5):
    return _pack(repo, embedder, budget, top).pieces


def test_pack_holds_the_answer_its_class_header_and_callee_signatures(shop_repo: Path, embedder) -> None:
    pack = _pack(shop_repo, embedder, 400, top=1)
    pieces = pack.pieces
    by_role = {(p.role, p.symbol) for p in pieces}
    assert ("code", "OrderBook.settle_invoice") in by_role
    assert ("header", "OrderBook") in by_role
    assert ("signature", "apply_tax") in by_role and ("signature", "round_cents") in by_role
    header = next(p for p in pieces if p.role == "header")
    assert header.code.startswith("class OrderBook:") and 'currency = "EUR"' in header.code
    assert "def __init__" not in header.code  # the header stops before the first member
    signature = next(p for p in pieces if p.symbol == "round_cents")
    assert "def round_cents(amount):" in signature.code and "Round an amount to whole cents" in signature.code
    assert "int(abs(amount)" not in signature.code  # a signature, not the body
    text = pack.render()
    assert estimate_tokens(text) <= 400


def test_a_callee_that_is_an_answer_too_is_packed_whole(shop_repo: Path, embedder) -> None:
    pieces = _pieces(shop_repo, embedder, 2000, top=10)
    assert [p.role for p in pieces if p.symbol == "apply_tax"] == ["code"]


def test_pack_is_grouped_by_file_in_line_order(shop_repo: Path, embedder) -> None:
    pieces = _pieces(shop_repo, embedder, 400)
    paths = [p.path for p in pieces]
    assert paths[0] == "shop/orders.py"  # the file of the best answer comes first
    assert paths == sorted(paths, key=paths.index)  # each file's pieces are contiguous
    for path in set(paths):
        starts = [p.start_line for p in pieces if p.path == path]
        assert starts == sorted(starts)


@pytest.mark.parametrize("budget", [60, 120, 250, 1000])
def test_pack_never_exceeds_its_budget(shop_repo: Path, embedder, budget: int) -> None:
    pack = _pack(shop_repo, embedder, budget)
    pieces = pack.pieces
    assert pieces, "even a small budget packs a cut answer"
    assert estimate_tokens(pack.render()) <= budget
    assert pieces[0].symbol == "OrderBook.settle_invoice" or any(
        p.symbol == "OrderBook.settle_invoice" for p in pieces)


def test_a_method_already_packed_whole_is_not_repeated_as_a_signature(shop_repo: Path, embedder) -> None:
    pieces = _pieces(shop_repo, embedder, 2000)
    spans = [(p.path, p.start_line, p.end_line) for p in pieces]
    for i, (path, start, end) in enumerate(spans):
        for j, (other, s2, e2) in enumerate(spans):
            if i != j and path == other:
                assert not (start <= e2 and s2 <= end), f"{pieces[i].symbol} overlaps {pieces[j].symbol}"


def test_ask_context_prints_the_pack(shop_repo: Path) -> None:
    out = run_cli(shop_repo, "ask", "--top", "1", "--context", "300", QUESTION, check=True).stdout
    assert "] shop/orders.py:" in out and "OrderBook.settle_invoice  (method)" in out
    assert "(class, class header)" in out and "(function, signature)" in out
    assert estimate_tokens(out.rstrip("\n")) <= 300
    out = run_cli(shop_repo, "ask", "--context", "5000", QUESTION, check=True).stdout
    assert "shop/__init__.py" not in out  # nothing to show for an empty file


def test_callees_the_search_found_come_before_the_others(shop_repo: Path, monkeypatch) -> None:
    from hookgraph.search import pack

    monkeypatch.setattr(pack, "MAX_CALLEES", 1)
    with Store(db_path(shop_repo)) as store:
        settle = store.units_where("qualname = ?", ("OrderBook.settle_invoice",))[0]
        rounding = store.units_where("qualname = ?", ("round_cents",))[0]
        source = pack.SourceReader(shop_repo, store)
        try:
            in_call_order = pack._Packer(store, source, 1000)
            in_call_order.callee_signatures(settle, 0, {})
            by_relevance = pack._Packer(store, source, 1000)
            by_relevance.callee_signatures(settle, 0, {rounding.id: 0.7})
        finally:
            source.close()
    assert [p.symbol for p in in_call_order.pieces] == ["apply_tax"]  # called first
    assert [p.symbol for p in by_relevance.pieces] == ["round_cents"]  # what the question is about


def _big_class(methods: int) -> str:
    """A ledger class far over 4,000 tokens (chars / 4): the kind of answer that once filled a whole pack."""
    body = ['class LedgerEngine:\n    """Posts journal entries to the general ledger and reconciles accounts."""\n']
    for i in range(methods):
        body.append(f'''
    def post_entry_{i}(self, account, amount, memo=None):
        """Post journal entry number {i} to an account of the general ledger."""
        if amount == 0:
            raise ValueError("a journal entry of zero posts nothing to the ledger")
        balance = self.balances.get(account, 0) + amount
        self.balances[account] = balance
        self.journal.append((account, amount, memo))
        return balance
''')
    return "".join(body)


LEDGER_FILES = {
    "books/engine.py": _big_class(40),
    "books/reconcile.py": '"""Reconciliation."""\n\n\ndef reconcile_ledger_accounts(ledger, statement):\n'
                          '    """Reconcile ledger accounts against a bank statement."""\n'
                          '    return [a for a in ledger.balances if a not in statement]\n',
    "books/journal.py": '"""The journal."""\n\n\ndef journal_entries_for(ledger, account):\n'
                        '    """Journal entries posted to one account of the ledger."""\n'
                        '    return [e for e in ledger.journal if e[0] == account]\n',
    "books/report.py": '"""Reports."""\n\n\ndef ledger_trial_balance(ledger):\n'
                       '    """Trial balance of the general ledger: every account and its balance."""\n'
                       '    return sorted(ledger.balances.items())\n',
}


@pytest.fixture(scope="module")
def ledger_repo(tmp_path_factory: pytest.TempPathFactory, embedder) -> Path:
    repo = make_repo(tmp_path_factory.mktemp("ledger") / "books", LEDGER_FILES)
    index_now(repo, embedder)
    return repo


def test_a_huge_best_answer_leaves_room_for_the_other_files(ledger_repo: Path, embedder) -> None:
    """The best answer is a class of ~5,000 tokens: at 500 tokens the pack still shows the other files' answers."""
    from hookgraph.search.pack import pack_for_question

    assert estimate_tokens(LEDGER_FILES["books/engine.py"]) > 4000
    with Store(db_path(ledger_repo)) as store:
        pack = pack_for_question(ledger_repo, store, "general ledger journal entries and account balances", 500,
                                 embedder=embedder)
    assert estimate_tokens(pack.render()) <= 500
    assert {p.path for p in pack.pieces} >= {"books/engine.py", "books/reconcile.py", "books/journal.py",
                                             "books/report.py"}
    assert not any(p.kind == "class" and p.cut for p in pack.pieces)  # no class cut to fill the budget


PACK_QUESTIONS = [
    "how are cookies merged into a session's request",
    "where are credentials stripped on a redirect to another host",
    "Session",
    "retry an adapter connection with a connection pool",
    "parse the charset from a content type header",
]


@pytest.mark.parametrize("budget", [50, 120, 300, 500, 1000, 2000, 4000, 12000])
def test_the_pack_shows_each_line_once_whole_lines_and_keeps_its_budget(requests_repo: Path, embedder,
                                                                          budget: int) -> None:
    """The pack's promises, on a real library, every budget: no line range twice, whole lines as in the file
    (a signature entry adds its docstring line after them), within the budget by its own documented count."""
    from hookgraph import git as hg_git
    from hookgraph.search.pack import overhead, pack_for_question

    with Store(db_path(requests_repo)) as store:
        blobs = store.file_map()
        for question in PACK_QUESTIONS:
            pack = pack_for_question(requests_repo, store, question, budget, embedder=embedder)
            assert pack.pieces, question
            text = pack.render()
            assert estimate_tokens(text) <= budget, (question, budget)
            assert overhead(pack.notes) + 1 + sum(p.cost() for p in pack.pieces) <= budget, (question, budget)
            for i, p in enumerate(pack.pieces):
                for q in pack.pieces[i + 1:]:
                    assert p.path != q.path or p.end_line < q.start_line or q.end_line < p.start_line, \
                        (question, budget, p.symbol, q.symbol)
                reader = hg_git.BlobReader(requests_repo)
                try:
                    data = reader.read(blobs[p.path])
                finally:
                    reader.close()
                assert data is not None
                file_lines = data.decode("utf-8", "replace").splitlines()
                shown_lines = p.code.split("\n")
                span = p.end_line - p.start_line + 1
                assert shown_lines[:span] == file_lines[p.start_line - 1 : p.end_line], (question, budget, p.symbol)
                extra = shown_lines[span:]
                assert p.role == "signature" and len(extra) == 1 or not extra, (question, p.symbol, extra)


def test_a_pack_numbers_lines_as_git_does_past_form_feeds_and_lone_carriage_returns(tmp_path: Path) -> None:
    """The pack split files with ``str.splitlines``, which also breaks at form feeds (Emacs page breaks between
    functions), ``\\x0b`` and U+2028: the code under a true header was shifted up and lost its last lines
    (found by trying, stop 57). Every piece must be exactly its header's lines as ``sed -n`` prints them."""
    files = {
        "ff.py": "def ff_first():\n    return 1\n\x0c\n\ndef ff_second():\n    \"\"\"After a page break.\"\"\"\n"
                 "    return 2\n",
        "vt.py": "def vt_text():\n    s = 'a\x0bb\u2028c'\n    return s\n",
        "crlf.py": "def crlf_fn():\r\n    return 3\r\n",
    }
    root = make_repo(tmp_path / "repo", files)
    run_cli(root, "index", check=True)
    header = re.compile(r"^## \[[0-9a-f]{8}\] (\S+):(\d+)-(\d+)  (\S+)")
    for name in ("ff_second", "vt_text", "crlf_fn"):
        out = run_cli(root, "ask", name, "--context", "2000", "--no-semantic", check=True).stdout.split("\n")
        starts = [i for i, line in enumerate(out) if header.match(line) and header.match(line).group(4) == name]
        assert starts, out
        path, first, last = header.match(out[starts[0]]).group(1, 2, 3)
        fence = out[starts[0] + 1]
        body = out[starts[0] + 2:out.index(fence, starts[0] + 2)]
        truth = (root / path).read_bytes().split(b"\n")[int(first) - 1:int(last)]
        # the terminal sees control characters escaped (terminal_safe_block), the lines themselves unchanged
        assert body == [terminal_safe_block(line.decode().removesuffix("\r")) for line in truth], (name, body)
