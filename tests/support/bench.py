"""The benchmark's smoke run (`python -m bench --scale 0.05`) as the bench tests start it and
read its lines."""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from bench import synthetic_orgs
from bench.__main__ import MISSED
from support.servers import ROOT

SCALE = 0.05
KEYS = 50  # 1,000 keys at full scale
HISTORY_DAYS = 1826  # the organization's five years, ending yesterday
# Scenarios run in a test file of their own, beside the others (each file's smoke on its own
# worker): the guardrails' replay, and the pages timed in chromium with the sessions' memory
# and a team lead's pages against the organization viewer's.
REPLAY = "guardrails"
IN_CHROMIUM = ("browser_pages", "session_memory", "scoped_pages")
# The data-out lines (the FOCUS export, the dataset's nightly run, the HTTP API), in a file of
# their own: the dataset's runs write thousands of partitions.
DATA_OUT = ("focus_export", "dataset_incremental", "api_usage")
# Lines whose figure is a share that is nil when all goes well (their target may be 0).
NIL_WHEN_MET = frozenset({"guardrail_overrun", "guardrail_stranded"})


@dataclass(frozen=True)
class Smoke:
    returncode: int
    printed: list[dict]
    report: dict
    kept: Path
    began: dt.datetime
    ended: dt.datetime
    today: dt.date  # the day the benchmark pins its organizations and its clock to


def run_smoke(folder: Path, *only: str) -> Smoke:
    """`python -m bench` at the smoke scale (of the scenarios `only` names, else all)."""
    output, kept = folder / "results.json", folder / "kept"
    began = dt.datetime.now(dt.UTC).replace(microsecond=0)
    command = [sys.executable, "-m", "bench", "--scale", str(SCALE), "--output", str(output)]
    command += ["--only", *only] if only else []
    run = subprocess.run(
        [*command, "--keep", str(kept)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    ended = dt.datetime.now(dt.UTC)
    assert run.returncode in (0, MISSED), run.stderr[-3000:]
    printed = [json.loads(line) for line in run.stdout.splitlines()]
    report = json.loads(output.read_text())
    return Smoke(run.returncode, printed, report, kept, began, ended, synthetic_orgs.TODAY)


def assert_reported(smoke: Smoke, targets: set[str]) -> None:
    """The run printed and wrote each of `targets` once, each with a finite positive ratio and
    target and a verdict; its exit status says whether one was missed; its results file names
    the run and the machine."""
    for lines in (smoke.printed, smoke.report["results"]):
        assert sorted(line["name"] for line in lines) == sorted(targets)
        for line in lines:
            assert isinstance(line["ratio"], float | int) and math.isfinite(line["ratio"]), line
            assert line["ratio"] > 0 and line["target"] > 0, line
            assert isinstance(line["ok"], bool), line
    missed = [line["name"] for line in smoke.report["results"] if not line["ok"]]
    assert smoke.returncode == (MISSED if missed else 0), missed
    report = smoke.report
    assert set(report) == {"date", "scale", "keys", "machine", "results"}
    assert smoke.began <= dt.datetime.fromisoformat(report["date"]) <= smoke.ended
    assert (report["scale"], report["keys"]) == (SCALE, KEYS)
    assert report["machine"]["nproc"] == os.cpu_count()
    assert report["machine"]["python"] == ".".join(map(str, sys.version_info[:3]))
    assert report["machine"]["memory_gib"] > 0 and report["machine"]["cpu"]


def by_name(lines: list[dict]) -> dict[str, dict]:
    return {line["name"]: line for line in lines}
