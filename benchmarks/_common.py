"""Helpers shared by the benchmark scripts (not a test; nothing here is timed in tests/).

* :func:`measured` runs a command as a child and returns its wall time, CPU
  time and peak resident memory (``wait4``'s ``ru_maxrss`` covers the child
  and every descendant it waited for, so a git hook's Python counts);
* :func:`machine` describes the machine and its load for the report;
* :func:`write_section` replaces one ``## Name`` section of
  ``benchmarks/RESULTS.md``, leaving the others as they are;
* :func:`fake_embedder` has the shipped model's identity (SHA-256, recipe,
  dimensions) but makes pseudo-random unit vectors from each text's hash
  without running the model: used to build large synthetic stores fast
  (``ask`` at 100k units, the 50k-file memory check). Search timings do not
  depend on what the vectors mean; ranking quality is measured in eval/.
"""

from __future__ import annotations

import hashlib
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RESULTS = HERE / "RESULTS.md"
PYTHON = sys.executable
IDENTITY = {
    "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}
GIT_VARS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
            "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_PREFIX")


def env(**extra: str) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if k not in GIT_VARS}
    e.update(IDENTITY)
    e.update(extra)
    return e


@dataclass
class Measured:
    wall: float
    cpu: float
    peak_mb: float
    stdout: str
    stderr: str
    returncode: int


def measured(args: list[str], cwd: Path, *, check: bool = True, input: str | None = None, **extra: str) -> Measured:
    """Run ``args``; wall seconds, CPU seconds (user + system) and peak RSS (MB) of it and its descendants."""
    import tempfile

    with tempfile.TemporaryFile() as fout, tempfile.TemporaryFile() as ferr:
        started = time.perf_counter()
        proc = subprocess.Popen(args, cwd=cwd, env=env(**extra), stdout=fout, stderr=ferr,
                                stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL)
        if input is not None:
            assert proc.stdin is not None
            proc.stdin.write(input.encode())
            proc.stdin.close()
        _, status, usage = os.wait4(proc.pid, 0)  # wait4, not wait: the rusage of this child and its descendants
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        fout.seek(0)
        ferr.seek(0)
        out, err = fout.read().decode("utf-8", "replace"), ferr.read().decode("utf-8", "replace")
    if check and proc.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, args))} failed ({proc.returncode}):\n{out}\n{err}")
    return Measured(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out, err, proc.returncode)


def run(args: list[str], cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(args, cwd=cwd, env=env(**extra), capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, args))} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def git(repo: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return run(["git", *args], repo, **extra)


def precompile() -> None:
    """Write hookgraph's bytecode first, as any install does.

    Where ``PYTHONDONTWRITEBYTECODE`` is set (this machine) and the sources
    changed since the last ``.pyc``, every process would compile ~40 modules
    again (~60 ms): a cost no installed hookgraph pays, so not one to measure.
    """
    import compileall

    compileall.compile_dir(str(REPO / "hookgraph"), quiet=1)


def baseline_code(rev: str, where: Path) -> Path:
    """``rev``'s tree unpacked in ``where`` (made here) and byte-compiled: the side a side-by-side benchmark
    runs through ``PYTHONPATH`` against this checkout."""
    where.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", rev], cwd=REPO, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(where)], input=archive, check=True)
    subprocess.run([PYTHON, "-m", "compileall", "-q", str(where / "hookgraph")], check=True, capture_output=True)
    return where


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def machine() -> dict[str, str]:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "nproc": subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip() or str(os.cpu_count()),
        "cpu": cpu or platform.processor() or "unknown CPU",
        "arch": platform.machine(),
        "python": platform.python_version(),
        "git": subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip(),
        "load": load(),
    }


def machine_line(m: dict[str, str], load_before: str) -> str:
    return (f"Machine: {m['nproc']} cores ({m['cpu']}, {m['arch']}), Python {m['python']}, {m['git']}; "
            f"load average {load_before} before, {m['load']} after (other engineers' work shares the cores).")


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def spread(values: list[float], scale: float = 1.0, fmt: str = "{:.0f}") -> str:
    return f"{fmt.format(min(values) * scale)}-{fmt.format(max(values) * scale)}"


def checkpointed_bytes(path: Path) -> int:
    """An index file's size once its WAL is copied in (mains from d3d6b74 to b16c803 left a first index's copy to the
    next connection; a baseline among them is measured alike)."""
    import apsw

    db = apsw.Connection(str(path))
    try:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.close()
    return path.stat().st_size


def write_section(name: str, section: str) -> None:
    """Replace (or append) the ``## name`` section of RESULTS.md."""
    text = RESULTS.read_text() if RESULTS.exists() else (
        "# Benchmark results\n\nMeasured by the scripts in this folder; each section says how.\n\n")
    head = f"## {name}\n"
    start = text.find(head)
    if start == -1:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        end = text.find("\n## ", start + 1)
        text = text[:start] + section.rstrip("\n") + "\n" + (text[end:] if end != -1 else "")
    RESULTS.write_text(text.rstrip("\n") + "\n")


def fake_embedder() -> Any:
    """An Embedder with the shipped model's identity whose vectors are pseudo-random (no model run)."""
    import numpy as np

    from hookgraph.embed import Embedder

    class _Fake(Embedder):
        def embed_windows(self, texts: list[str]) -> list[tuple[Any, bool]]:
            out = []
            for text in texts:
                seed = int.from_bytes(hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:8], "little")
                v = np.random.default_rng(seed).standard_normal(self.dims).astype(np.float32)
                out.append(((v / np.linalg.norm(v))[None, :], False))
                self.texts_embedded += 1
            return out

    return _Fake()


# -- a synthetic code base (shared with hook_bench) -------------------------------------

NOUNS = ["invoice", "customer", "order", "payment", "ledger", "account", "report", "session", "token",
         "message", "queue", "cache", "record", "schedule", "shipment", "product", "price", "discount",
         "refund", "balance", "tax", "currency", "receipt", "profile", "address", "event", "metric",
         "batch", "export", "import"]
VERBS = ["load", "save", "parse", "format", "validate", "compute", "merge", "split", "render", "send",
         "fetch", "retry", "close", "open", "filter", "sort", "group", "apply", "reset", "encode"]
ADJ = ["pending", "expired", "active", "monthly", "daily", "remote", "local", "cached", "signed", "draft"]


def _function(rng: random.Random, name: str, callees: list[str], indent: str = "", method: bool = False) -> str:
    noun, adj = rng.choice(NOUNS), rng.choice(ADJ)
    params = ", ".join(["self"] * method + rng.sample(["items", "limit", "strict", "when", "key", "value"], 2))
    calls = "\n".join(f"{indent}        result = {c}(result)" for c in callees)
    return (
        f"{indent}def {name}({params}):\n"
        f'{indent}    """{name.replace("_", " ").capitalize()} for {adj} {noun}s; returns the updated {noun}."""\n'
        f"{indent}    result = []\n"
        f"{indent}    for entry in items or []:\n"
        f"{indent}        if strict and not entry:\n"
        f"{indent}            continue\n"
        f"{indent}        result.append(entry)\n"
        f"{calls + chr(10) if calls else ''}"
        f"{indent}    if limit is not None:\n"
        f"{indent}        result = result[:limit]\n"
        f"{indent}    return result\n"
    )


def build_sources(n_files: int, seed: int = 7) -> dict[str, str]:
    """``{path: text}``: n_files modules of 2 classes x 5 methods + 10 functions each, and docs."""
    rng = random.Random(seed)
    files: dict[str, str] = {}
    for i in range(n_files):
        package = f"app/{NOUNS[i % len(NOUNS)]}"
        module = f"{package}/{VERBS[i % len(VERBS)]}_{i}.py"
        parts = [f'"""{NOUNS[i % len(NOUNS)].capitalize()} handling: {VERBS[i % len(VERBS)]} step {i}."""\n\n'
                 "import logging\n\nlog = logging.getLogger(__name__)\n"]
        for c in range(2):
            cls = f"{rng.choice(ADJ).capitalize()}{NOUNS[(i + c) % len(NOUNS)].capitalize()}Handler{i}_{c}"
            parts.append(f"\n\nclass {cls}:\n    \"\"\"Keeps {NOUNS[(i + c) % len(NOUNS)]}s together.\"\"\"\n")
            for m in range(5):
                parts.append("\n" + _function(rng, f"{VERBS[(m + c) % len(VERBS)]}_{rng.choice(NOUNS)}",
                                                [], indent="    ", method=True))
        defined: list[str] = []
        for f in range(10):
            name = f"{rng.choice(VERBS)}_{rng.choice(ADJ)}_{rng.choice(NOUNS)}_{i}_{f}"
            callees = rng.sample(defined, min(2, len(defined))) if f % 3 == 2 else []
            parts.append("\n\n" + _function(rng, name, callees))
            defined.append(name)
        files[module] = "".join(parts)
    files["README.md"] = "# Synthetic app\n\nOrders, invoices and payments.\n\n## Running\n\nRun it.\n"
    files["CHANGELOG.txt"] = "0.1 first release\n"
    files["config/settings.toml"] = "[app]\nname = 'synthetic'\n"
    return files


def write_repo(repo: Path, sources: dict[str, str], message: str = "synthetic app") -> str:
    """A new git repository at ``repo`` holding ``sources``, committed; returns the commit."""
    repo.mkdir(parents=True, exist_ok=True)
    for rel, text in sources.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").stdout.strip()
