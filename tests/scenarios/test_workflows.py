"""The GitHub Actions workflows (ours, and the one the README offers users) are valid as GitHub reads them.

No network: a YAML load (PyYAML comes with pre-commit) and the keys GitHub
requires. YAML 1.1 reads a bare ``on`` key as ``True``; GitHub reads it as
the trigger, so both spellings are accepted here, as GitHub does.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.y*ml"))
README = (ROOT / "README.md").read_text(encoding="utf-8")

#: Events a workflow in this project may be triggered by.
EVENTS = {"push", "pull_request", "workflow_dispatch", "schedule", "pull_request_target", "release"}


def readme_block(after: str, lang: str) -> str:
    """The first ```lang block after the line containing ``after`` (indentation removed)."""
    start = README.index(after)
    match = re.search(rf"^([ \t]*)```{lang}\n(.*?)^\1```", README[start:], re.S | re.M)
    assert match, f"no ```{lang} block after {after!r} in README.md"
    indent = len(match.group(1))
    return "".join(line[indent:] + "\n" for line in match.group(2).splitlines())


def check_workflow(data: Any, name: str) -> None:
    """What GitHub requires of a workflow file, and what makes one silently do nothing."""
    assert isinstance(data, dict), f"{name}: not a mapping"
    triggers = data.get("on", data.get(True))
    assert triggers, f"{name}: no `on:` trigger"
    events = {triggers} if isinstance(triggers, str) else set(triggers)
    assert events and events <= EVENTS, f"{name}: unknown events {events - EVENTS}"
    jobs = data.get("jobs")
    assert isinstance(jobs, dict) and jobs, f"{name}: no jobs"
    for job_id, job in jobs.items():
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", job_id), f"{name}: bad job id {job_id!r}"
        assert isinstance(job, dict) and job.get("runs-on"), f"{name}: job {job_id} has no runs-on"
        steps = job.get("steps")
        assert isinstance(steps, list) and steps, f"{name}: job {job_id} has no steps"
        for step in steps:
            assert isinstance(step, dict) and (("uses" in step) != ("run" in step)), \
                f"{name}: job {job_id}: a step needs exactly one of uses/run: {step}"
            if "uses" in step:
                assert re.fullmatch(r"[\w.-]+/[\w.-]+(/[\w./-]+)?@[\w.-]+", step["uses"]), step["uses"]
        matrix = (job.get("strategy") or {}).get("matrix") or {}
        for key, values in matrix.items():
            if key.endswith("version"):  # 3.10 unquoted is the float 3.1: GitHub would install Python 3.1
                assert all(isinstance(v, str) for v in values), f"{name}: quote the {key} values: {values}"


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_each_workflow_is_valid(path: Path) -> None:
    check_workflow(yaml.safe_load(path.read_text(encoding="utf-8")), path.name)


def test_the_test_workflow_runs_the_readme_command_on_every_supported_python() -> None:
    assert WORKFLOWS, "no .github/workflows/*.yml"
    data = yaml.safe_load((ROOT / ".github" / "workflows" / "tests.yml").read_text(encoding="utf-8"))
    job = data["jobs"]["test"]
    assert "ubuntu" in job["runs-on"]
    assert job["strategy"]["matrix"]["python-version"] == ["3.10", "3.11", "3.12", "3.13"]
    command = readme_block("## Run the tests", "sh").strip()
    assert [s["run"].strip() for s in job["steps"] if "run" in s][-1] == command
    setup = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/setup-python@"))
    assert setup["with"]["cache"] == "pip"  # pip's wheel cache: llama.cpp compiled once
    assert "GGML_NATIVE=OFF" in job["steps"][-1]["env"]["CMAKE_ARGS"]  # a cached wheel must run on any runner


def test_the_readme_verify_step_for_shared_mode_is_a_valid_workflow() -> None:
    data = yaml.safe_load(readme_block("**CI**: `hookgraph verify`", "yaml"))
    check_workflow(data, "README's verify workflow")
    assert set(data.get("on", data.get(True))) == {"pull_request"}
    runs = [s["run"] for job in data["jobs"].values() for s in job["steps"] if "run" in s]
    assert any(r.split("#")[0].strip() == "hookgraph verify" for r in runs), runs
