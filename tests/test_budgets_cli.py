"""`check-budgets` for cron: the status table and exit codes 0 / 10 / 11 on the demo org."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from analytics.cli import app
from analytics.usage.calendar import utc_today

ROOT = Path(__file__).resolve().parent.parent
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


@pytest.fixture(autouse=True)
def unconfigured(monkeypatch):
    for name in ("SERVICE_AUTH_KEY", "SERVICE_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def check(path: Path, *extra: str):
    return runner.invoke(app, ["check-budgets", "--budgets", str(path), *extra])


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
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
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
