"""The benchmark's smoke run (`python -m bench --scale 0.05`) as the bench tests start it and
read its lines."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from bench import org
from bench.__main__ import MISSED
from support.servers import ROOT

SCALE = 0.05
REPLAY = "guardrails"  # the guardrails' replay: its own test file, beside the other scenarios
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
    return Smoke(run.returncode, printed, report, kept, began, ended, org.TODAY)


def by_name(lines: list[dict]) -> dict[str, dict]:
    return {line["name"]: line for line in lines}
