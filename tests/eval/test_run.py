"""The eval runner's own arithmetic and fetching (eval/run.py): NDCG over distinct files, coverage of
every-unit gold, the "no shared word" subset, projects.json validation and the Debian registry path
(a real .deb built with dpkg-deb, unpacked and committed as the runner does; no network)."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

import pytest

from eval import run
from eval.run import Gold

from tests.conftest import git


def test_ndcg_of_graded_files() -> None:
    grades = {"src/flask/blueprints.py": 2, "src/flask/sansio/blueprints.py": 2, "src/flask/app.py": 1}
    perfect = ["src/flask/blueprints.py", "src/flask/sansio/blueprints.py", "src/flask/app.py", "README.md"]
    assert run.ndcg(perfect, grades) == pytest.approx(1.0)
    # the acceptable file first, then both answers: (1/1 + 3/log2 3 + 3/2) over (3 + 3/log2 3 + 1/2)
    shuffled = ["src/flask/app.py", "src/flask/blueprints.py", "src/flask/sansio/blueprints.py"]
    expected = (1 + 3 / math.log2(3) + 3 / 2) / (3 + 3 / math.log2(3) + 1 / 2)
    assert run.ndcg(shuffled, grades) == pytest.approx(expected)
    assert run.ndcg(["README.md"] * 10 + ["src/flask/app.py"], grades) == 0.0  # past the top 10
    assert run.ndcg([], grades) == 0.0


def test_distinct_files_keep_the_first_place_of_each_path() -> None:
    ranked = [("a.py", "f"), ("b.py", "g"), ("a.py", "h"), ("c.py", "c.py"), ("b.py", "B")]
    assert run.distinct_files(ranked) == ["a.py", "b.py", "c.py"]


def test_coverage_is_capped_at_k() -> None:
    gold = {("lib/core/Axios.js", "Axios._request"), ("lib/core/Axios.js", "Axios.getUri"),
            ("lib/axios.js", "createInstance")}
    ranked = [("lib/core/Axios.js", "Axios.getUri"), ("x.js", "y"), ("lib/axios.js", "createInstance")]
    assert run.coverage(gold, ranked) == pytest.approx(2 / 3)
    assert run.coverage(gold, ranked, k=1) == 1.0
    many = {(f"f{i}.py", f"f{i}") for i in range(12)}
    assert run.coverage(many, sorted(many)[:10]) == 1.0


def test_no_shared_word_subset_on_real_questions() -> None:
    settle = [Gold("lib/core/settle.js", "settle", (14, 27))]
    assert run.shares_no_word("resolve or reject the promise depending on whether the status passes a check", settle)
    request = [Gold("lib/core/Axios.js", "Axios._request", (65, 186))]
    assert not run.shares_no_word("run request hooks one after another", request)
    # plural and camelCase parts meet the name's words; filler words ("how", "the") never count
    headers = [Gold("lib/core/AxiosHeaders.js", "AxiosHeaders.normalize", (1, 2))]
    assert not run.shares_no_word("how are the header names normalised across instances of axios", headers)
    assert run.shares_no_word("how is the code of the class found", [Gold("a.py", "Code.find_class", (1, 2))]) is False
    file_unit = [Gold("lib/adapters/http.js", "lib/adapters/http.js", (1, 700))]
    assert not run.shares_no_word("which adapter talks http in node", file_unit)
    assert run.shares_no_word("which transport is used in node", file_unit)


def test_every_shipped_project_spec_is_valid() -> None:
    specs = json.loads((Path(run.EVAL_DIR) / "projects.json").read_text())["projects"]
    assert [p for spec in specs for p in run.spec_problems(spec)] == []
    assert {"debian", "npm", "pypi"} <= {spec["registry"] for spec in specs}


def test_spec_problems_name_the_field() -> None:
    bad = {"name": "x", "language": "go", "registry": "debian", "package": "golang-x-dev", "version": "1.0-1",
           "archive": "x.tar.gz", "sha256": "ABC", "root": "../usr", "held_out": "yes"}
    problems = run.spec_problems(bad)
    assert any("sha256" in p for p in problems)
    assert any(".deb" in p for p in problems)
    assert any("root" in p for p in problems)
    assert any("held_out" in p for p in problems)
    assert any("registry" in p for p in run.spec_problems({**bad, "registry": "crates"}))


@pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="dpkg-deb is not on this machine")
def test_debian_package_becomes_a_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real .deb (built here) is checked by sha256, unpacked, rooted, dropped and committed."""
    tree = tmp_path / "pkg"
    source = tree / "usr/share/gocode/src/example.org/tiny"
    source.mkdir(parents=True)
    (source / "tiny.go").write_text("package tiny\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n")
    (source / "tiny_test.go").write_text("package tiny\n")
    (source / "logo.png").write_bytes(b"\x89PNG")
    (tree / "usr/share/doc/golang-tiny-dev").mkdir(parents=True)
    (tree / "usr/share/doc/golang-tiny-dev/copyright").write_text("MIT\n")
    (tree / "DEBIAN").mkdir()
    (tree / "DEBIAN/control").write_text("Package: golang-tiny-dev\nVersion: 1.0-1\nArchitecture: all\n"
                                         "Maintainer: eval <eval@hookgraph.invalid>\nDescription: tiny\n")
    built = tmp_path / "golang-tiny-dev_1.0-1_all.deb"
    subprocess.run(["dpkg-deb", "--root-owner-group", "-b", str(tree), str(built)], check=True,
                   capture_output=True)

    cache = tmp_path / "cache"
    (cache / "downloads").mkdir(parents=True)
    shutil.copy(built, cache / "downloads" / built.name)  # in the cache already: no apt-get download
    monkeypatch.setenv("HOOKGRAPH_EVAL_CACHE", str(cache))
    spec = {"name": "tiny", "language": "go", "registry": "debian", "package": "golang-tiny-dev",
            "version": "1.0-1", "archive": built.name, "sha256": run.sha256_of(built),
            "root": "usr/share/gocode/src/example.org/tiny", "drop": ["*.png"]}
    assert run.spec_problems(spec) == []
    assert run.download_command(spec, "/tmp")[:2] == ["apt-get", "download"]

    repo = run.prepare_repo(spec)
    assert git(repo, "ls-files").split() == ["tiny.go", "tiny_test.go"]
    assert run.absent_terms_found(repo, ["func add", "websocket"]) == ["func add"]

    with pytest.raises(SystemExit, match="sha256"):
        run.fetch_archive({**spec, "sha256": "0" * 64})
    shutil.rmtree(repo)
    with pytest.raises(SystemExit, match="has no folder"):
        run.prepare_repo({**spec, "root": "usr/share/gocode/src/example.org/other"})


def test_shipped_question_sets_load_with_their_kinds() -> None:
    """Every shipped set loads; file gold carries grades, absent questions carry their proof terms."""
    specs = json.loads((Path(run.EVAL_DIR) / "projects.json").read_text())["projects"]
    for spec in specs:
        questions = run.load_questions(spec["name"], bool(spec.get("held_out")))
        assert {q.kind for q in questions} <= set(run.ALL_KINDS), spec["name"]
        assert len({q.id for q in questions}) == len(questions), spec["name"]
        for q in questions:
            assert q.held_out == bool(spec.get("held_out"))
            if q.kind == "absent":
                assert not q.gold and q.absent_terms, q.id
            elif q.kind == "file":
                assert q.gold and all(g.symbol == "" and g.grade in (1, 2) for g in q.gold), q.id
            else:
                assert q.gold and all(g.symbol and g.lines != (0, 0) for g in q.gold), q.id


def test_file_question_scored_over_distinct_files_and_tables_say_n_a() -> None:
    question = next(q for q in run.load_questions("flask") if q.kind == "file" and len(q.gold) == 3)
    best = sorted(question.gold, key=lambda g: -g.grade)
    units = [(g.path, f"unit{i}") for i, g in enumerate(best)] + [(best[0].path, "again"), ("README.md", "README.md")]
    scored = run.score_files(question, run.distinct_files(units)[:10], None)
    assert scored.ndcg == pytest.approx(1.0)
    assert scored.recall[1] == 1.0 and scored.rr == 1.0
    reversed_files = [g.path for g in reversed(best)]
    assert run.score_files(question, reversed_files, None).ndcg < 1.0

    absent = next(q for q in run.load_questions("flask") if q.kind == "absent")
    rows = [scored, run.Scored(absent, "hybrid", [], weak=None)]
    acceptance = "\n".join(run.acceptance_table(rows))
    # flask is a tuned project, so the held-out column has nothing; no verdict function yet: n/a
    assert "| absent questions flagged weak | n/a | - | n/a | >= 0.90 |" in acceptance
    assert "| file questions NDCG@10 | 1.000 | - | 1.000 | >= 0.85 |" in acceptance
    table = "\n".join(run.kinds_table(rows))
    assert "| flask | 0 | - | 0 | - | - | 1 | 1.000 | 0 | - | 1 | n/a | n/a |" in table


def test_every_kind_is_asked_of_a_real_index(tmp_path: Path, embedder) -> None:
    """The runner's path from question to scored row, on a tiny real repo indexed with the shipped model."""
    from hookgraph.store import Store, db_path
    from hookgraph.sync import read_target, sync

    from tests.conftest import TINY_APP, commit_all, make_repo, write_files

    root = make_repo(tmp_path / "repo")
    write_files(root, {"app.py": TINY_APP, "notes/cache.md": "# Cache\n\nPages are kept in memory.\n"})
    commit_all(root, "tiny app")
    sync(root, read_target(root, "head"), embedder=embedder)

    with Store(db_path(root)) as store:
        def unit(symbol: str) -> Gold:
            (row,) = store.units_where("path = ? AND qualname = ?", ("app.py", symbol))
            return Gold("app.py", symbol, (row.start_line, row.end_line))

        questions = [
            run.Question("t-nl", "tiny", "nl", "download a page and try again when the network fails",
                         [unit("fetch_page")]),
            run.Question("t-file", "tiny", "file", "keeping pages in memory",
                         [Gold("app.py", "", (0, 0), 2), Gold("notes/cache.md", "", (0, 0), 1)]),
            run.Question("t-graph", "tiny", "graph", "what calls open_connection?", [unit("fetch_page")]),
            run.Question("t-absent", "tiny", "absent", "websocket frames", [], absent_terms=["websocket"]),
        ]
        assert run.check_questions(questions, store, root) == []
        bad_absent = run.Question("t-bad", "tiny", "absent", "pages in memory", [], absent_terms=["Keeps pages"])
        assert run.check_questions([bad_absent], store, root) == ["t-bad: 'Keeps pages' does occur in the project"]

        rows = {q.kind: run.ask(q, store, embedder, hybrid_only=False) for q in questions}
    assert [r.config for r in rows["nl"]] == ["hybrid", "bm25", "embed"]  # baselines still asked of nl
    assert [r.config for r in rows["graph"]] == ["hybrid"] and [r.config for r in rows["absent"]] == ["hybrid"]
    files = [path for path, _ in rows["file"][0].ranked]
    assert sorted(files) == ["app.py", "notes/cache.md"]  # each file once, whatever its number of units
    assert rows["file"][0].ndcg is not None and 0.0 < rows["file"][0].ndcg <= 1.0
    assert rows["graph"][0].recall[10] in (0.0, 1.0)
    for scored in (r for kind_rows in rows.values() for r in kind_rows):
        assert scored.weak is None or isinstance(scored.weak, bool)


def test_leak_check_splits_every_languages_qualified_names() -> None:
    """Rust's Foo::bar is checked part by part, as Python's Foo.bar always was."""
    rust = [Gold("src/proxy.rs", "Proxy::verify_response", (163, 179))]
    assert run.leaked_identifiers("check the reply of the proxy tunnel", rust) == ["Proxy"]
    assert run.leaked_identifiers("check the reply to an HTTP CONNECT tunnel request", rust) == []
    python = [Gold("src/flask/app.py", "Flask.handle_exception", (1, 2))]
    assert run.leaked_identifiers("what flask does with an unhandled error", python) == ["Flask"]


def test_the_confidence_fit_recovers_a_known_logistic_model() -> None:
    """eval/fit_confidence.py's Newton fit: labels drawn from known weights come back near those weights,
    and the balanced classes put the boundary where the rare class's evidence says (not at its rarity)."""
    import numpy as np

    from eval.fit_confidence import fit, predict

    rng = np.random.default_rng(7)
    x = rng.normal(size=(4000, 2))
    truth = np.array([0.5, 2.0, -1.0])  # intercept, then one weight per feature
    y = (rng.random(4000) < 1 / (1 + np.exp(-(truth[0] + x @ truth[1:])))).astype(float)
    b = fit(x, y)
    assert np.allclose(b[1:], truth[1:], atol=0.25)  # the slopes; balancing moves only the intercept
    p = predict(b, x)
    assert ((p >= 0.5) == (y == 1)).mean() > 0.75
    assert abs((p[y == 0] < 0.5).mean() - (p[y == 1] >= 0.5).mean()) < 0.1  # both classes recalled alike


def test_a_set_override_of_a_re_exported_store_constant_reaches_the_code_that_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--set store.FTS_WEIGHTS=...`` (eval/RESULTS.md) must change the BM25 weights a query uses.

    hookgraph.store's face re-exports FTS_WEIGHTS from store/reads.py, where ``fts_search`` reads it.
    """
    from hookgraph import store as store_package
    from hookgraph.store import Store
    from hookgraph.store import reads

    for module in (store_package, reads):
        monkeypatch.setattr(module, "FTS_WEIGHTS", module.FTS_WEIGHTS)  # restored after the test
    monkeypatch.setattr(run, "RECIPE_OVERRIDES", [])
    run.apply_overrides(["store.FTS_WEIGHTS=0,0,0,0,0,1"], embedder=None)  # type: ignore[arg-type]
    assert run.RECIPE_OVERRIDES == ["store.FTS_WEIGHTS=0,0,0,0,0,1"]
    with Store(tmp_path / "index.db", create=True) as store, store.transaction():
        name_hit, body_hit = store.insert_units(
            [("a.py", "function", "ledger", "ledger", None, 1, 2, "python", "", "", None, None),
             ("b.py", "function", "other", "other", None, 1, 2, "python", "", "", None, None)],
            [("ledger", "ledger", "a.py", "", "", "pass"), ("other", "other", "b.py", "", "", "ledger ledger")])
        # only the body column counts now: the unit named "ledger" scores nothing
        assert [uid for uid, score in store.fts_search("ledger", 10) if score > 0] == [body_hit]
        assert name_hit != body_hit


def test_a_set_override_of_a_search_constant_reaches_the_module_that_reads_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--set search.CANDIDATES=...`` (eval/run.py and eval/filebench.py) changes what rank() reads.

    hookgraph.search's face re-exports no constant: the override finds the module that assigns it
    (CANDIDATES in search/ranking.py, KEYWORD_BOOST in search/boosts.py); filebench's ``--try`` puts
    them back afterwards.
    """
    from eval import filebench
    from hookgraph import search as search_package
    from hookgraph.search import boosts, ranking

    for module, name in ((ranking, "CANDIDATES"), (boosts, "KEYWORD_BOOST")):
        monkeypatch.setattr(module, name, getattr(module, name))  # restored after the test
    monkeypatch.setattr(run, "RECIPE_OVERRIDES", [])
    shipped = ranking.CANDIDATES
    run.apply_overrides(["search.CANDIDATES=7"], embedder=None)  # type: ignore[arg-type]
    assert ranking.CANDIDATES == 7 and not hasattr(search_package, "CANDIDATES")

    boost = boosts.KEYWORD_BOOST
    config = ["search.CANDIDATES=3", "search.KEYWORD_BOOST=0.5"]
    saved = filebench.snapshot_constants(config)
    filebench.apply_sets(config)
    assert (ranking.CANDIDATES, boosts.KEYWORD_BOOST) == (3, 0.5)
    filebench.restore_constants(saved)
    assert (ranking.CANDIDATES, boosts.KEYWORD_BOOST) == (7, boost)
    assert shipped != 7
    with pytest.raises(SystemExit, match="has no NO_SUCH_CONSTANT"):
        run.parse_setting("search.NO_SUCH_CONSTANT=1")


def test_the_no_embed_rule_is_part_of_an_index_recipe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Indexes are cached per recipe hash (eval.run, eval.filebench): a rule that embeds other units must not
    reuse an index built under the old one (else a rule change is measured on stale indexes)."""
    copy = tmp_path / "repo"
    shutil.copytree(run.REPO / "hookgraph", copy / "hookgraph", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(run, "REPO", copy)
    before = run.recipe_hash("model")
    rule = copy / "hookgraph" / "embed" / "no_embed.py"
    rule.write_text(rule.read_text().replace('"min_lines": 2,', '"min_lines": 4,'))
    assert run.recipe_hash("model") != before


def test_token_budget_accounting_counts_a_file_once_its_chunk_fits() -> None:
    """eval/tokens.py: chunks in delivery order with their running token count; a gold file counts at a budget
    when a chunk of it ends within it; tokens to the first gold file is that chunk's running count."""
    from eval.tokens import score_list

    def suffix(path: str, gold: str) -> bool:
        return path == gold or path.endswith("/" + gold) or gold.endswith("/" + path)

    entries = [("src/a.py", 120), ("src/b.py", 480), ("src/c.py", 950), ("src/a.py", 1800), ("src/d.py", 4100)]
    recall, hit, first = score_list(entries, ["b.py", "c.py"], (500, 1000, 2000, 4000), suffix)
    assert recall == {500: 0.5, 1000: 1.0, 2000: 1.0, 4000: 1.0} and hit[500] and first == 480
    recall, hit, first = score_list(entries, ["d.py"], (500, 1000, 2000, 4000), suffix)
    assert recall[4000] == 0.0 and not hit[4000] and math.isinf(first)  # ends past the largest budget


def test_token_budget_running_count_is_the_rendered_pack(tmp_path: Path) -> None:
    """The running count the benchmark reads off a pack ends at the rendered pack's own size (or just above:
    each piece is counted with the blank line that separates it from the next)."""
    from eval.tokens import pack_entries
    from hookgraph.search.pack import Pack, Piece, estimate_tokens

    pieces = [Piece("a.py", 1, 3, "f", "function", "def f():\n    return 1\n"),
              Piece("b.py", 10, 10, "g", "function", "def g(x):\n    # Add one.", role="signature")]
    pack = Pack(pieces)
    entries = pack_entries(pack, [])
    assert [p for p, _ in entries] == ["a.py", "b.py"]
    assert entries[0][1] < entries[1][1]
    assert estimate_tokens(pack.render()) <= entries[-1][1] <= estimate_tokens(pack.render()) + len(pieces) + 2
