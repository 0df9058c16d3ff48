"""The benchmark harness at 1/20 scale: every scenario runs and every output is identical.

Timings are not checked here (a busy test machine says nothing about them); `python -m bench`
at full scale is the measurement.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from bench.__main__ import MISSED, machine
from bench.scenarios import SCENARIOS, naive_key_day, tidy_key_day
from emulator.usage_report import build_report

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {
    "decode_vs_naive",
    "decode_vs_orjson",
    "csv_export",
    "memory_export",
    "pages_scale",
    "incremental_refresh",
    "concurrent_windows",
}


@pytest.fixture(scope="module")
def smoke(tmp_path_factory) -> tuple[list[dict], dict]:
    output = tmp_path_factory.mktemp("bench") / "results.json"
    run = subprocess.run(
        [sys.executable, "-m", "bench", "--scale", "0.05", "--output", str(output)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert run.returncode in (0, MISSED), run.stderr[-3000:]
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    return lines, json.loads(output.read_text())


def test_every_target_prints_one_line_with_a_ratio(smoke):
    lines, _ = smoke
    assert {line["name"] for line in lines} == TARGETS
    assert len(lines) == len(TARGETS)
    for line in lines:
        assert line["ratio"] > 0 and line["target"] > 0
        assert isinstance(line["ok"], bool)
        assert not line["ok"] or line["ratio"] <= line["target"], line


def test_outputs_are_identical_and_side_conditions_hold(smoke):
    lines, _ = smoke
    by_name = {line["name"]: line for line in lines}
    for name in ("decode_vs_naive", "csv_export", "incremental_refresh", "concurrent_windows"):
        assert by_name[name]["identical"] is True, name
    assert by_name["incremental_refresh"]["only_open_days_fetched"] is True
    assert by_name["incremental_refresh"]["second_run_windows"] == 1
    assert by_name["memory_export"]["export_succeeded"] is True
    assert by_name["memory_export"]["rows"] > 0
    assert by_name["pages_scale"]["figures_under_1mb"] is True
    assert by_name["concurrent_windows"]["windows"] == 5


def test_results_file_holds_the_printed_lines_and_the_machine(smoke):
    lines, report = smoke
    assert report["results"] == lines
    assert report["scale"] == 0.05
    assert report["machine"]["nproc"] == os.cpu_count()
    assert set(report["machine"]) >= {"cpu", "memory_gib", "python"}


def test_scenarios_cover_every_target_name():
    assert set(SCENARIOS) == {
        "decoding",
        "csv_export",
        "memory",
        "pages",
        "incremental_refresh",
        "concurrent_windows",
    }


def test_naive_baseline_builds_the_documented_frame(emulator_app):
    """The baseline is only fair if it produces exactly the frame the pipeline does."""
    emulator = emulator_app.state.emulator
    report = build_report(emulator.store, "2025-04-01", "2025-06-01", "key_and_day")
    body = orjson.dumps(report)
    naive, tidy = naive_key_day(body), tidy_key_day(body)
    assert len(tidy) == len(report["usage_report"]["key_and_day_usages"]) > 0
    assert tidy["api_key_label"].dtype == "category"
    assert naive.equals(tidy)
    assert (naive.dtypes == tidy.dtypes).all()


def test_machine_names_the_cpu_and_memory():
    info = machine()
    assert info["nproc"] == os.cpu_count()
    assert info["memory_gib"] > 0
    assert info["cpu"]
