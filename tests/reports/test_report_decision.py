"""The meeting report's Decision section through `report`: the what-ifs given as to `capacity
recommend`, read by the same parsing, give the same recommendation and figures."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from support.headless import TODAY
from support.orgfiles import contract_year_end
from typer.testing import CliRunner

from analytics.cli import app
from analytics.exit_codes import USAGE
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
    # Both read the contract year of the budgets file in force: the demo's example.
    answer = runner.invoke(app, ["capacity", "recommend", *WHAT_IFS, "--format", "json", "--demo"])
    assert answer.exit_code == 0, answer.output
    expected = json.loads(answer.stdout)
    page = html.unescape(written.read_text(encoding="utf-8"))
    decision = page[page.index("<h2>Decision</h2>") :]
    assert (
        "What-ifs: growth +10.0\u202f%; speech pilot 500 minutes a month · risk setting "
        "100.0\u202f% · term 12 months" in decision
    )
    chosen = next(o for o in expected["options"] if o["name"] == expected["recommended"])
    said = re.search(r"Recommended for the 12 months from (\S+): (.+?) \(", decision)
    assert said.groups() == (expected["term_start"], expected["recommended"])
    assert f"expected cost {chosen['expected_cost']:,.2f} EUR" in decision
    # Every option's row, and the forecasts each with its model, as `recommend` priced them.
    for option in expected["options"]:
        assert f"<td>{option['expected_cost']:,.2f} EUR</td>" in decision
    # The recommendation without the what-ifs, beside.
    plain = expected["without_what_ifs"]
    assert f"Without the what-ifs ({expected['what_ifs']}) the recommendation is " in decision
    assert plain["recommended"] in decision.split("Without the what-ifs")[1]
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
        assert done.exit_code == USAGE.code
        assert said in done.output


def decision_of_report(tmp_path: Path, *args: str) -> tuple[str, str]:
    """The report's Decision section (unescaped) and the command's stderr."""
    written = tmp_path / "report.html"
    done = runner.invoke(
        app, ["report", "--period", "last-30-days", "-o", str(written), *args, "--demo"]
    )
    assert done.exit_code == 0, done.output
    page = html.unescape(written.read_text(encoding="utf-8"))
    return page[page.index("<h2>Decision</h2>") :], done.stderr


def test_the_report_names_the_contract_year_and_todays_plan_as_the_service_does(
    demo_env, demo_ledger, tmp_path
):
    decision, _ = decision_of_report(tmp_path)
    end = contract_year_end(TODAY)
    assert decision.count(f">Contract year to {end}</td>") == 2  # characters and minutes
    plan = demo_ledger.plan
    assert (
        "Today's plan, as the service reports it: "
        f"{plan.effective_character_limit:,} characters, {plan.speech_to_text_minutes_limit:,} "
        f"speech-to-text minutes and {plan.speech_to_speech_minutes_limit:,} speech-to-speech "
        "minutes a billing period" in decision
    )
    rows = re.findall(r"<tr><td class=\"text\">Today's plan</td>(.*?)</tr>", decision)
    [cells] = [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in rows]
    assert cells[1:3] == [
        f"{plan.effective_character_limit:,}",
        f"{plan.speech_to_text_minutes_limit:,.2f}",
    ]


def test_the_reports_decision_writes_whole_characters_and_minutes_to_the_hundredth(
    demo_env, tmp_path
):
    decision, _ = decision_of_report(tmp_path, "--growth", "7%")
    tables = re.findall(r"<table>(.*?)</table>", decision)
    forecasts = next(t for t in tables if "<th>Projected</th>" in t)
    for row in re.findall(r"<tr>(.*?)</tr>", forecasts)[1:]:
        metric, _, *figures = re.findall(r"<td[^>]*>(.*?)</td>", row)[:7]
        numbers = re.findall(r"\d[\d,]*(?:\.\d+)?", " ".join(figures))
        places = {len(n.partition(".")[2]) for n in numbers}
        assert places == ({0} if metric == "Total characters" else {2}), (metric, figures)
    options = next(t for t in tables if "<th>Characters a month</th>" in t)
    heads = re.findall(r"<th[^>]*>(.*?)</th>", options)
    assert heads[2:8] == ["Characters a month", "Speech-to-text minutes a month",
                          "Expected cost (EUR)", "Chance of overage", "Unused characters",
                          "Unused speech-to-text minutes"]  # fmt: skip
    for row in re.findall(r"<tr>(.*?)</tr>", options)[1:]:
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
        assert re.fullmatch(r"[\d,]+|no limit", cells[2]) and re.fullmatch(
            r"[\d,]+|no limit", cells[6]
        ), cells
        assert re.fullmatch(r"[\d,]+\.\d\d|no limit", cells[3]), cells
        assert re.fullmatch(r"[\d,]+\.\d\d EUR", cells[4]), cells


@pytest.mark.parametrize(
    ("what_ifs", "warned"),
    [
        (
            ["--growth", "-99%"],
            "growth -99.0\u202f% is outside the plausible range (-90.0\u202f% to +1,000.0\u202f%)",
        ),
        (["--growth", "-90%"], None),
    ],
)
def test_an_implausible_what_if_is_a_warning_in_the_report(what_ifs, warned, demo_env, tmp_path):
    decision, stderr = decision_of_report(tmp_path, *what_ifs)
    shown = re.findall(r'<p class="warning">Warning: (.*?)</p>', decision)
    if warned is None:
        assert shown == [] and "warning:" not in stderr
    else:
        assert len(shown) == 1 and shown[0].startswith(warned)
        assert f"warning: {warned}" in stderr
    # The projection without the what-ifs, beside the one with them.
    assert "<th>Without what-ifs</th>" in decision
