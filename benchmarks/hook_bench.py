"""Wall time of hookgraph's pre-commit hook, by hand (not a test).

    python benchmarks/hook_bench.py [--runs 5] [--files 42] [--keep DIR] [--no-write] [--parts ...]

Builds a synthetic but realistic Python repository of about 1,000 units
(classes, methods, functions with docstrings, calls between them, a README),
indexes it, installs the plain git hooks (`hookgraph install`), and measures:

* **hook**: the installed ``.git/hooks/pre-commit`` run exactly as git runs it
  (same environment, ``GIT_INDEX_FILE`` set, whole process), after staging
  - a commit that touches no code (a ``.txt`` and a ``.toml`` file), and
  - a commit that changes 3 functions in 2 files;
* **git commit**: the whole ``git commit`` with hookgraph's hooks (pre-commit and
  post-commit), the same commit with ``--no-verify`` and hookgraph's hooks
  skipped, and the same commit through the pre-commit framework (a ``repo: local``
  ``language: system`` hook), for context;
* **branch moves**: ``git checkout`` of a branch that differs in 50 files (and
  back), and a 30-commit ``git rebase``, with hookgraph's hooks and without;
* all of the commit measurements again in shared mode (the snapshot is
  exported and staged);
* the peak memory of each hook (``wait4``: the hook and its descendants).

Every run starts from the same state: the base commit checked out and the
index database restored from a copy, so each code-change run embeds the same
new texts. Reports the median of ``--runs`` runs and writes the "Hooks"
section of ``benchmarks/RESULTS.md`` (other sections are left as they are).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402  (the synthetic code base and environment, shared)
    IDENTITY,
    PYTHON,
    RESULTS,
    build_sources,
    env,
    measured,
    precompile,
)

# -- running things -------------------------------------------------------------------


def run(args: list[str], cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(args, cwd=cwd, env=env(**extra), capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def git(repo: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return run(["git", *args], repo, **extra)


#: CPU seconds (user + system) and peak RSS (MB) of the last ``timed`` command and its descendants.
LAST_CPU = [0.0]
LAST_PEAK = [0.0]


def timed(args: list[str], cwd: Path, **extra: str) -> float:
    """Wall seconds of one command; its CPU seconds go to LAST_CPU, its peak memory to LAST_PEAK."""
    m = measured(args, cwd, **{**IDENTITY, **extra})
    LAST_CPU[0] = m.cpu
    LAST_PEAK[0] = m.peak_mb
    return m.wall


def change_no_code(repo: Path, i: int) -> list[str]:
    (repo / "CHANGELOG.txt").write_text(f"0.1 first release\n0.{i + 2} run {i}\n")
    (repo / "config/settings.toml").write_text(f"[app]\nname = 'synthetic'\nrun = {i}\n")
    return ["CHANGELOG.txt", "config/settings.toml"]


def change_three_functions(repo: Path, files: list[str], i: int) -> list[str]:
    """Edit the bodies of 3 functions in 2 files (2 + 1); a fresh edit each run."""
    changed = 0
    for path, count in ((files[0], 2), (files[1], 1)):
        text = (repo / path).read_text()
        start = 0
        for _ in range(count):
            at = text.index("    result = []\n", text.index("\n\ndef ", start))
            text = text[:at] + f"    result = []  # run {i}\n    seen_{i} = {i}\n" + text[at + len("    result = []\n"):]
            start = at + 1
            changed += 1
        (repo / path).write_text(text)
    assert changed == 3
    return files[:2]


def reset(repo: Path, base: str, saved_db: Path) -> None:
    git(repo, "reset", "-q", "--hard", base)
    db = repo / ".hookgraph/index.db"
    for suffix in ("-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    shutil.copyfile(saved_db, db)


def bench_mode(repo: Path, base: str, saved_db: Path, code_files: list[str], runs: int, shared: bool) -> dict:
    """Median seconds per measurement for one mode (default or shared)."""
    hook = Path(git(repo, "rev-parse", "--git-path", "hooks").stdout.strip())
    hook = hook if hook.is_absolute() else repo / hook
    results: dict[str, list[float]] = {}
    for case, change in (("no code", lambda i: change_no_code(repo, i)),
                         ("3 functions in 2 files", lambda i: change_three_functions(repo, code_files, i))):
        for i in range(runs):
            # the hook alone, as git runs it
            reset(repo, base, saved_db)
            git(repo, "add", *change(i))
            results.setdefault(f"hook|{case}", []).append(
                timed([str(hook / "pre-commit")], repo, GIT_INDEX_FILE=".git/index"))
            results.setdefault(f"cpu|{case}", []).append(LAST_CPU[0])
            results.setdefault(f"peak|{case}", []).append(LAST_PEAK[0])
            # the whole git commit with hookgraph's hooks
            reset(repo, base, saved_db)
            git(repo, "add", *change(i))
            results.setdefault(f"commit|{case}", []).append(timed(["git", "commit", "-q", "-m", f"run {i}"], repo))
            # git commit without hookgraph, for the baseline
            reset(repo, base, saved_db)
            git(repo, "add", *change(i))
            results.setdefault(f"baseline|{case}", []).append(
                timed(["git", "commit", "-q", "--no-verify", "-m", f"run {i}"], repo, HOOKGRAPH_SKIP="1"))
    reset(repo, base, saved_db)
    return {k: statistics.median(v) for k, v in results.items()} | {"_all": results, "_shared": shared}


def _edit_function(text: str, tag: str) -> str:
    """The same text with the body of its first module-level function changed."""
    at = text.index("    result = []\n", text.index("\n\ndef "))
    return text[:at] + f"    result = []  # {tag}\n" + text[at + len("    result = []\n"):]


def _small_module(i: int) -> str:
    return (f'"""Extra helpers {i}."""\n\n\ndef extra_helper_{i}(items, limit):\n'
            f'    """Keep the first {i} items that are set."""\n'
            f"    return [x for x in items if x][:limit + {i}]\n")


def make_branches(repo: Path, base: str, modules: list[str]) -> dict[str, str]:
    """``wide``: 50 files differ from base (every module edited, docs, 5 new modules);
    ``topic``: 30 commits on base, one function each; ``main`` gets one code commit after base,
    so rebasing topic onto it replays all 30."""
    run_env = {"HOOKGRAPH_SKIP": "1"}
    tips: dict[str, str] = {}
    git(repo, "checkout", "-q", "-b", "wide", base, **run_env)
    changed = []
    for path in modules:
        (repo / path).write_text(_edit_function((repo / path).read_text(), "wide branch"))
        changed.append(path)
    for path, text in (("README.md", "# Synthetic app\n\nWide branch.\n\n## Running\n\nRun it twice.\n"),
                       ("CHANGELOG.txt", "0.2 wide\n"), ("config/settings.toml", "[app]\nname = 'wide'\n")):
        (repo / path).write_text(text)
        changed.append(path)
    i = 0
    while len(changed) < 50:
        path = f"app/extra/helpers_{i}.py"
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(_small_module(i))
        changed.append(path)
        i += 1
    git(repo, "add", "-A", **run_env)
    git(repo, "commit", "-q", "-m", "wide change", **run_env)
    tips["wide"] = git(repo, "rev-parse", "HEAD").stdout.strip()
    tips["wide_files"] = str(len(changed))

    git(repo, "checkout", "-q", "-b", "topic", base, **run_env)
    for n in range(30):
        path = modules[n % len(modules)]
        (repo / path).write_text(_edit_function((repo / path).read_text(), f"topic {n}"))
        git(repo, "commit", "-q", "-am", f"topic {n}", **run_env)
    tips["topic"] = git(repo, "rev-parse", "HEAD").stdout.strip()

    git(repo, "checkout", "-q", "main", **run_env)
    for path in modules[-3:]:  # upstream moved on: 3 functions in files the topic does not touch
        text = (repo / path).read_text()
        at = text.rindex("    result = []\n")
        (repo / path).write_text(text[:at] + "    result = []  # upstream\n" + text[at + len("    result = []\n"):])
    git(repo, "commit", "-q", "-am", "upstream", **run_env)
    tips["main"] = git(repo, "rev-parse", "HEAD").stdout.strip()
    return tips


def bench_checkout_rebase(repo: Path, base: str, saved_db: Path, tips: dict[str, str], runs: int,
                          work: Path) -> dict:
    """``git checkout`` of a branch differing in 50 files (and back), and a 30-commit rebase, hooks on and off."""
    import json as _json

    skip = {"HOOKGRAPH_SKIP": "1"}
    db = repo / ".hookgraph/index.db"
    results: dict[str, list[float]] = {}
    log = work / "hooks.log"

    def restore(copy: Path) -> None:
        for suffix in ("-wal", "-shm"):
            Path(str(db) + suffix).unlink(missing_ok=True)
        shutil.copyfile(copy, db)

    def sync_copy(name: str) -> Path:
        run([PYTHON, "-m", "hookgraph.cli", "index"], repo)
        copy = work / f"index.db.{name}"
        import apsw

        conn = apsw.Connection(str(db))
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.close()
        shutil.copyfile(db, copy)
        return copy

    git(repo, "checkout", "-q", "main", **skip)
    git(repo, "reset", "-q", "--hard", tips["main"], **skip)
    at_main = sync_copy("main")
    git(repo, "checkout", "-q", "topic", **skip)
    at_topic = sync_copy("topic")
    for i in range(runs):
        # checkout to the wide branch: its new texts are embedded
        git(repo, "checkout", "-q", "main", **skip)
        restore(at_main)
        results.setdefault("checkout|hooks", []).append(timed(["git", "checkout", "-q", "wide"], repo))
        results.setdefault("checkout|peak", []).append(LAST_PEAK[0])
        # and back: every vector is revived from the orphan cache, nothing is embedded
        results.setdefault("back|hooks", []).append(timed(["git", "checkout", "-q", "main"], repo))
        results.setdefault("back|peak", []).append(LAST_PEAK[0])
        restore(at_main)
        results.setdefault("checkout|baseline", []).append(timed(["git", "checkout", "-q", "wide"], repo, **skip))
        git(repo, "checkout", "-q", "main", **skip)
        # a 30-commit rebase of topic onto main
        for hooks_on in (True, False):
            git(repo, "checkout", "-q", "topic", **skip)
            git(repo, "reset", "-q", "--hard", tips["topic"], **skip)
            restore(at_topic)
            log.unlink(missing_ok=True)
            extra = {"HOOKGRAPH_HOOK_LOG": str(log)} if hooks_on else skip
            seconds = timed(["git", "rebase", "-q", "main"], repo, **extra)
            if hooks_on:
                results.setdefault("rebase|hooks", []).append(seconds)
                results.setdefault("rebase|peak", []).append(LAST_PEAK[0])
                entries = [_json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
                results.setdefault("rebase|hook runs", []).append(float(len(entries)))
                results.setdefault("rebase|embedded", []).append(float(sum(e.get("embedded", 0) for e in entries)))
            else:
                results.setdefault("rebase|baseline", []).append(seconds)
    git(repo, "checkout", "-q", "main", **skip)
    git(repo, "reset", "-q", "--hard", base, **skip)
    restore(saved_db)
    return {k: statistics.median(v) for k, v in results.items()} | {"_all": results}


def bench_framework(repo: Path, base: str, saved_db: Path, code_files: list[str], runs: int) -> dict:
    """``git commit`` through the pre-commit framework (repo: local, language: system)."""
    run([PYTHON, "-m", "hookgraph.cli", "install", "--uninstall"], repo)
    run([PYTHON, "-m", "pre_commit", "install", "-t", "pre-commit", "-t", "post-commit"], repo)
    results: dict[str, list[float]] = {}
    for case, change in (("no code", lambda i: change_no_code(repo, i)),
                         ("3 functions in 2 files", lambda i: change_three_functions(repo, code_files, i))):
        for i in range(runs):
            reset(repo, base, saved_db)
            git(repo, "add", *change(i))
            results.setdefault(f"framework|{case}", []).append(
                timed(["git", "commit", "-q", "-m", f"run {i}"], repo))
    run([PYTHON, "-m", "pre_commit", "uninstall", "-t", "pre-commit", "-t", "post-commit"], repo)
    run([PYTHON, "-m", "hookgraph.cli", "install"], repo)
    reset(repo, base, saved_db)
    return {k: statistics.median(v) for k, v in results.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--files", type=int, default=42, help="modules of 23 units each (42: about 1,000 units)")
    parser.add_argument("--keep", type=Path, help="build the repository here and keep it")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    parser.add_argument("--parts", default="commit,framework,moves,shared",
                        help="what to measure (a subset prints raw medians and writes nothing)")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    precompile()

    work = args.keep or Path(tempfile.mkdtemp(prefix="hookgraph-bench-"))
    repo = work / "repo"
    if repo.exists():
        shutil.rmtree(repo)
    repo.mkdir(parents=True)
    sources = build_sources(args.files)
    for rel, text in sources.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "synthetic app")
    pc_home = work / "pre-commit-home"
    os.environ["PRE_COMMIT_HOME"] = str(pc_home)
    (repo / ".pre-commit-config.yaml").write_text(
        "repos:\n- repo: local\n  hooks:\n  - id: hookgraph\n    name: hookgraph\n"
        f"    entry: {PYTHON} -m hookgraph.cli hook\n    language: system\n"
        "    stages: [pre-commit, post-checkout, post-commit, post-merge, post-rewrite]\n"
        "    pass_filenames: false\n    always_run: true\n    require_serial: true\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pre-commit config")

    started = time.perf_counter()
    out = run([PYTHON, "-m", "hookgraph.cli", "index"], repo).stdout.strip()
    index_seconds = time.perf_counter() - started
    status = run([PYTHON, "-m", "hookgraph.cli", "status", "--json"], repo).stdout
    import json

    info = json.loads(status)
    units = sum(info["units"].values())
    print(f"indexed {units} units in {index_seconds:.1f}s: {out}", flush=True)
    run([PYTHON, "-m", "hookgraph.cli", "install"], repo)
    base = git(repo, "rev-parse", "HEAD").stdout.strip()
    saved = work / "index.db.saved"
    shutil.copyfile(repo / ".hookgraph/index.db", saved)
    code_files = sorted(p for p in sources if p.endswith(".py"))[:2]

    default = bench_mode(repo, base, saved, code_files, args.runs, shared=False) if "commit" in parts else {}
    framework = bench_framework(repo, base, saved, code_files, args.runs) if "framework" in parts else {}
    moves: dict = {}
    if "moves" in parts:
        modules = sorted(p for p in sources if p.endswith(".py"))
        tips = make_branches(repo, base, modules)
        moves = bench_checkout_rebase(repo, base, saved, tips, args.runs, work)
        moves["wide_files"] = int(tips["wide_files"])

    # shared mode: same repository, snapshot committed in the base commit
    shared: dict = {}
    snapshot_bytes = 0
    if "shared" in parts:
        run([PYTHON, "-m", "hookgraph.cli", "install", "--shared"], repo)
        git(repo, "commit", "-q", "-m", "share the index")
        shared_base = git(repo, "rev-parse", "HEAD").stdout.strip()
        shared_saved = work / "index.db.shared.saved"
        shutil.copyfile(repo / ".hookgraph/index.db", shared_saved)
        snapshot_bytes = (repo / ".hookgraph/shared.db").stat().st_size
        shared = bench_mode(repo, shared_base, shared_saved, code_files, args.runs, shared=True)
    if parts != {"commit", "framework", "moves", "shared"}:
        for name, result in (("default", default), ("framework", framework), ("moves", moves), ("shared", shared)):
            if result:
                print(name, {k: (round(v, 3) if isinstance(v, float) else v) for k, v in result.items()
                             if not k.startswith("_")})
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        return

    machine = {
        "nproc": subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip() or str(os.cpu_count()),
        "uname -m": platform.machine(),
        "python": platform.python_version(),
        "git": subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip(),
        "load": " ".join(f"{x:.1f}" for x in os.getloadavg()),
    }
    section = render(default, framework, shared, moves, units, info["bytes"], snapshot_bytes, index_seconds, args,
                     machine)
    print(section)
    if not args.no_write:
        write_section(section)
        print(f"wrote the Hooks section of {RESULTS}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


def render(default: dict, framework: dict, shared: dict, moves: dict, units: int, db_bytes: int, snapshot_bytes: int,
           index_seconds: float, args: argparse.Namespace, machine: dict) -> str:
    def ms(value: float) -> str:
        return f"{value * 1000:.0f} ms"

    cases = ("no code", "3 functions in 2 files")
    targets = {"no code": 0.4, "3 functions in 2 files": 1.0}
    lines = [
        "## Hooks",
        "",
        f"Command: `python benchmarks/hook_bench.py --runs {args.runs} --files {args.files}` "
        f"(median of {args.runs} runs; {time.strftime('%Y-%m-%d')}).",
        f"Machine: nproc {machine['nproc']}, {machine['uname -m']}, Python {machine['python']}, {machine['git']} "
        f"(load average {machine['load']} at the end: other work shared the machine).",
        "",
        f"Repository: synthetic Python, {units} units in {args.files} modules plus docs; first index "
        f"{index_seconds:.1f} s; index {db_bytes / 1e6:.1f} MB, committed snapshot (shared mode) "
        f"{snapshot_bytes / 1e6:.1f} MB.",
        "",
        "**The pre-commit hook** (`.git/hooks/pre-commit` installed by `hookgraph install`, run as git runs it, "
        "whole process, after `git add`):",
        "",
        "| commit | target | default mode | shared mode (export + `git add` of the snapshot) |",
        "|---|---|---|---|",
    ]
    def spread(mode: dict, key: str) -> str:
        runs = mode["_all"][key]
        return f"{ms(min(runs))}-{ms(max(runs))}"

    for case in cases:
        key = f"hook|{case}"
        d, s = default[key], shared[key]
        ok = "meets" if d <= targets[case] else "MISSES"
        lines.append(f"| {case} | <= {targets[case]:.1f} s | **{ms(d)}** ({ok}; runs {spread(default, key)}; "
                     f"CPU {ms(default[f'cpu|{case}'])}; peak {default[f'peak|{case}']:.0f} MB) | {ms(s)} "
                     f"(runs {spread(shared, key)}; CPU {ms(shared[f'cpu|{case}'])}; "
                     f"peak {shared[f'peak|{case}']:.0f} MB) |")
    lines += [
        "",
        "For context, the whole `git commit` (hookgraph's pre-commit and post-commit hooks included):",
        "",
        "| commit | `git commit --no-verify` | with `hookgraph install` hooks | through the pre-commit framework "
        "| shared mode, `hookgraph install` hooks |",
        "|---|---|---|---|---|",
    ]
    for case in cases:
        lines.append(f"| {case} | {ms(default[f'baseline|{case}'])} | {ms(default[f'commit|{case}'])} | "
                     f"{ms(framework[f'framework|{case}'])} | {ms(shared[f'commit|{case}'])} |")
    lines += [
        "",
        f"**Branch moves** (default mode, hooks from `hookgraph install`; whole git command, median of {args.runs}):",
        "",
        "| operation | without hookgraph (`HOOKGRAPH_SKIP=1`) | with hookgraph's hooks | peak memory | "
        "what the hooks did |",
        "|---|---:|---:|---:|---|",
        f"| `git checkout` of a branch differing in {moves['wide_files']} files (every module edited, docs, 5 new "
        f"modules) | {ms(moves['checkout|baseline'])} | **{ms(moves['checkout|hooks'])}** "
        f"(runs {spread(moves, 'checkout|hooks')}) | {moves['checkout|peak']:.0f} MB | one post-checkout sync: "
        "the changed units embedded |",
        f"| `git checkout` back | - | **{ms(moves['back|hooks'])}** (runs {spread(moves, 'back|hooks')}) | "
        f"{moves['back|peak']:.0f} MB | vectors revived from the orphan cache, nothing embedded |",
        f"| `git rebase` of 30 commits (one function each) onto a main with 3 new function edits | "
        f"{ms(moves['rebase|baseline'])} | **{ms(moves['rebase|hooks'])}** (runs {spread(moves, 'rebase|hooks')}) | "
        f"{moves['rebase|peak']:.0f} MB | {moves['rebase|hook runs']:.0f} hook runs: the per-commit ones return at "
        f"once, post-rewrite syncs once ({moves['rebase|embedded']:.0f} texts embedded: main's edits were indexed "
        "before the topic was checked out, so their vectors are revived from the orphan cache) |",
        "",
        "CPU is user + system time of the hook's processes (median): it moves less than wall time when other "
        "work shares the cores. "
        "Each run starts from the base commit with the index restored from a copy, so every code-change run "
        "embeds the same new texts (the 3 functions, no file fingerprint changes). A code-free commit imports "
        "neither numpy nor tree-sitter nor llama_cpp (`python -X importtime`; tested in tests/sync/test_hooks.py). "
        "The framework column includes pre-commit's own start-up and stash check. "
        "During the rebase the per-commit hooks (post-checkout, 30 post-commits) see the rebase in progress in "
        "the installed shell script and return without starting Python; post-rewrite syncs once. Bytecode is "
        "compiled before measuring (`compileall`), as an install does.",
        "",
    ]
    return "\n".join(lines)


def write_section(section: str) -> None:
    text = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n\nMeasured by the scripts in this folder; each section says how.\n\n"
    start = text.find("## Hooks\n")
    if start == -1:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        end = text.find("\n## ", start + 1)
        text = text[:start] + section + (text[end + 1:] if end != -1 else "")
    RESULTS.write_text(text.rstrip("\n") + "\n")


if __name__ == "__main__":
    main()
