"""`check-budgets` for cron: the status table and exit codes 0 / 10 / 11 on the demo org."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from support.builders import PLAN_ADMIN, PLAN_TODAY, plan_org, serve_to_cli
from support.headless import DEMO
from support.servers import file_app
from typer.testing import CliRunner

from analytics.cli import app
from analytics.usage.calendar import utc_today

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


def year_started_ten_days_ago() -> str:
    """A contract year start with closed days behind it whatever day the suite runs."""
    start = utc_today() - timedelta(days=10)
    if (start.month, start.day) == (2, 29):
        start -= timedelta(days=1)
    return f'contract_year_start = "{start:%m-%d}"\n'


def budget_file(tmp_path: Path, *entries: str, head: str = "") -> Path:
    path = tmp_path / "budgets.toml"
    path.write_text(head + "".join(f"[[budget]]\n{e}\n\n" for e in entries), encoding="utf-8")
    return path


YEAR_CHARACTERS = 'metric = "total_characters"\nperiod = "year"\nlimit = {limit}'


def check(path: Path, *extra: str):
    """The file's budgets alone: the demo's keys' own limits are `keys`' tests' to check."""
    return runner.invoke(app, ["check-budgets", "--budgets", str(path), "--no-key-limits", *extra])


def test_all_within_budget_exits_0(tmp_path):
    path = budget_file(
        tmp_path, YEAR_CHARACTERS.format(limit="1e15"), head=year_started_ten_days_ago()
    )
    result = check(path, "--demo")
    assert result.exit_code == 0, result.output
    assert "ok" in result.output and "warning" not in result.output


def test_warning_threshold_exits_10(tmp_path):
    # Ten days of demo usage are far beyond a millionth of the limit, far below the limit.
    entry = YEAR_CHARACTERS.format(limit="1e12") + "\nwarning_at = 0.000001"
    result = check(budget_file(tmp_path, entry, head=year_started_ten_days_ago()), "--demo")
    assert result.exit_code == 10, result.output
    assert "warning" in result.output


def test_unknown_key_exits_10(tmp_path):
    entry = 'key = "No such key"\n' + YEAR_CHARACTERS.format(limit="1e15")
    result = check(budget_file(tmp_path, entry, head=year_started_ten_days_ago()), "--demo")
    assert result.exit_code == 10, result.output
    assert "unknown key" in result.output


def test_exceeded_exits_11_and_wins_over_warnings(tmp_path):
    path = budget_file(
        tmp_path,
        YEAR_CHARACTERS.format(limit=1),
        'key = "No such key"\n' + YEAR_CHARACTERS.format(limit=5),
        head=year_started_ten_days_ago(),
    )
    result = check(path, "--demo")
    assert result.exit_code == 11, result.output
    assert "exceeded" in result.output and "unknown key" in result.output


def test_bad_file_and_missing_configuration_exit_2(tmp_path):
    bad = budget_file(tmp_path, 'metric = "characters"\nperiod = "month"\nlimit = 5')
    result = check(bad, "--demo")
    assert result.exit_code == 2
    assert "unknown metric 'characters'" in result.output
    good = budget_file(tmp_path, YEAR_CHARACTERS.format(limit=5))
    result = check(good)
    assert result.exit_code == 2
    assert "pass --demo for demo data" in result.output


def test_exit_code_from_a_real_process(tmp_path):
    path = budget_file(tmp_path, YEAR_CHARACTERS.format(limit=1), head=year_started_ten_days_ago())
    # The small demo organization: the exit code is what is checked, and the default one's
    # keys' forecasts cost the process seconds.
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), **DEMO}
    done = subprocess.run(
        [sys.executable, "-m", "analytics", "check-budgets", "--budgets", str(path), "--demo"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 11, done.stderr
    assert "exceeded" in done.stdout
    assert done.stderr == ""


# -- plan budgets: the plan's character limit over its billing period ---------------------------


PERIOD = "2025-03-13 – 2025-04-12"  # the billing period of billing_day 13 on PLAN_TODAY


@pytest.mark.parametrize(
    ("plan", "code", "line"),
    [
        # 750 used of 2,000; 3,100 projected by the period's end (155 %), reached on 1 April.
        (
            "character_limit = 2000",
            10,
            f"Plan {PERIOD} 750 2,000 characters 37.5 % 3,100 155.0 % 2025-04-01 (projected) "
            "warning",
        ),
        # Used up already: 750 of 700, and the closed days reached 700 on the 19th.
        (
            "character_limit = 700",
            11,
            f"Plan {PERIOD} 750 700 characters 107.1 % 3,100 442.9 % 2025-03-19 (reached) exceeded",
        ),
        # A low share, projected: still within the warning threshold.
        (
            "character_limit = 10000",
            0,
            f"Plan {PERIOD} 750 10,000 characters 7.5 % 3,100 31.0 % not within the period ok",
        ),
    ],
)
def test_a_plan_budget_warns_and_exceeds_on_the_plans_limit(
    monkeypatch, tmp_path, plan, code, line
):
    org = plan_org(f"billing_day = 13\n{plan}")
    serve_to_cli(
        monkeypatch, file_app(tmp_path, org, today=PLAN_TODAY), PLAN_ADMIN, PLAN_TODAY, tmp_path
    )
    result = check(budget_file(tmp_path, 'name = "Plan"\nmetric = "plan"'))
    assert result.exit_code == code, result.output
    assert result.stdout.splitlines()[1].split() == line.split()


def test_a_plan_without_a_character_limit_is_ok_with_a_note(monkeypatch, tmp_path):
    app = file_app(tmp_path, plan_org("billing_day = 13"), today=PLAN_TODAY)
    serve_to_cli(monkeypatch, app, PLAN_ADMIN, PLAN_TODAY, tmp_path)
    path = budget_file(
        tmp_path,
        'metric = "plan"',
        'metric = "total_characters"\nperiod = "month"\nlimit = 1e9',
    )
    result = check(path)
    assert result.exit_code == 0, result.output
    header, plan, month = result.stdout.splitlines()
    assert header.split() == [
        "budget", "period", "used", "limit", "unit", "used", "%", "projected", "projected", "%",
        "limit", "reached", "status", "note",
    ]  # fmt: skip
    assert " ".join(plan.split()) == (
        f"Organization · plan characters · billing period {PERIOD} 750 - characters N/A 3,100 "
        "N/A - ok the plan has no character limit"
    )
    assert month.split()[-1] == "ok"


COST_MONTH = 'metric = "cost"\nperiod = "month"\nlimit = {limit}'


def test_cost_budgets_use_the_pricing_file_and_the_same_exit_codes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no pricing.toml here: the demo prices with the example
    path = budget_file(tmp_path, COST_MONTH.format(limit="1e12"))
    within = check(path, "--demo")
    assert within.exit_code == 0, within.output
    assert "Organization · Cost · month" in within.output and "not evaluated" not in within.output
    # Ten closed days carry a third of the example's 300.00 monthly fee: beyond 1.00.
    year = 'metric = "cost"\nperiod = "year"\nlimit = 1'
    exceeded = check(budget_file(tmp_path, year, head=year_started_ten_days_ago()), "--demo")
    assert exceeded.exit_code == 11, exceeded.output
    assert "exceeded" in exceeded.output


def test_cost_budgets_without_a_pricing_file_exit_2(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SERVICE_AUTH_KEY", "k")
    monkeypatch.setenv("SERVICE_BASE_URL", "http://127.0.0.1:9")
    result = check(budget_file(tmp_path, COST_MONTH.format(limit=5)))
    assert result.exit_code == 2
    assert "cost budgets need a pricing file: give --pricing FILE" in result.output
