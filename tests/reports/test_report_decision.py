"""The meeting report's Decision section through `report`: the what-ifs given as to `capacity
recommend`, read by the same parsing, give the same recommendation and figures."""

from __future__ import annotations

import html
import json
import re
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from analytics.cli import app
from analytics.cli.shared import EXIT_USAGE
from analytics.usage.metrics import format_value

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()
WHAT_IFS = ["--growth", "10%", "--add", "speech pilot 500 minutes a month", "--risk", "100%"]


def test_the_report_decides_as_recommend_does_under_the_same_what_ifs(demo_env, tmp_path):
    written = tmp_path / "report.html"
    done = runner.invoke(
        app, ["report", "--period", "last-30-days", "-o", str(written), *WHAT_IFS, "--demo"]
    )
    assert done.exit_code == 0, done.output
    # The report's contract year is the budgets file's: the demo's example starts it in April.
    year = tomllib.loads((ROOT / "budgets.example.toml").read_text())["contract_year_start"]
    answer = runner.invoke(
        app,
        ["capacity", "recommend", *WHAT_IFS, "--year-start", year, "--format", "json", "--demo"],
    )
    assert answer.exit_code == 0, answer.output
    expected = json.loads(answer.stdout)
    page = html.unescape(written.read_text(encoding="utf-8"))
    decision = page[page.index("<h2>Decision</h2>") :]
    assert (
        "What-ifs: growth +10%; speech pilot 500 minutes a month · risk setting 100.0 % · term "
        "12 months" in decision
    )
    chosen = next(o for o in expected["options"] if o["name"] == expected["recommended"])
    said = re.search(r"Recommended for the 12 months from (\S+): (.+?) \(", decision)
    assert said.groups() == (expected["term_start"], expected["recommended"])
    assert f"expected cost {chosen['expected_cost']:,.2f} EUR" in decision
    # Every option's row, and the forecasts each with its model, as `recommend` priced them.
    for option in expected["options"]:
        assert f"<td>{option['expected_cost']:,.2f} EUR</td>" in decision
    for row in expected["forecasts"]:
        projected = format_value(row["projected"], row["metric"])
        assert f"<td>{projected}</td>" in decision, row
    assert "<h3>Accuracy record</h3>" in decision


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--growth", "lots"], "growth must be a percentage"),
        (["--add", "more characters"], "a planned workload reads like"),
        (["--risk", "150%"], "--risk must be a percentage from 0% to 100%"),
    ],
)
def test_a_bad_what_if_stops_the_report_as_it_stops_recommend(extra, said, demo_env, tmp_path):
    for command in (["report", "-o", str(tmp_path / "r.html")], ["capacity", "recommend"]):
        done = runner.invoke(app, [*command, *extra, "--demo"])
        assert done.exit_code == EXIT_USAGE
        assert said in done.output
