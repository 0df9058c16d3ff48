"""The FOCUS 1.2 export: the FinOps Foundation's own validator finds no failed mandatory rule in
the demo's file nor in a generated organization's; BilledCost adds up to Chargeback's total of
each month and to the export's total cost to the cent; the base fee is a Purchase row of its
month; a team's file holds its own keys' rows and its share of the fee."""

from __future__ import annotations

import json
import os
import re
import subprocess
from datetime import date
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from support.builders import (
    TEAMS,
    demo_usage,
    make_key_day,
)
from support.priced_draws import (
    change_days,
    drawn,
    fees,
    first_days,
    included,
    lengths,
    usage_rows,
)
from support.servers import ROOT

from analytics.cost.chargeback import chargeback
from analytics.cost.prices import load_pricing
from analytics.cost.teams import load_teams
from analytics.exports.focus import BillingAccount, focus_file_table, focus_table
from analytics.exports.formats import write_export
from analytics.exports.shaping import Costing, shape_export
from analytics.usage.frames import within

VALIDATOR = ROOT / ".venv-focus" / "bin" / "focus-validator"
# The criteria of what this provider supports, so the validator checks the columns they bring.
SUPPORTED = (
    "USAGE_MEASUREMENT_SUPPORTED,SUB_ACCOUNT_SUPPORTED,TAGGING_SUPPORTED,ACCOUNT_NAMING_SUPPORTED,"
    "BILLING_BASED_ON_PROVISIONED_RESOURCES_SUPPORTED,RESOURCE_TYPE_ASSIGNMENT_SUPPORTED"
)
ACCOUNT = BillingAccount("org-test", "Test organization")
START, END = date(2025, 12, 17), date(2026, 2, 9)  # a month's end and a price change


def cents(values: pd.Series) -> int:
    return sum(int(Decimal(str(value)) * 100) for value in values)


def validator() -> Path:
    """The validator's program, made by `make focus-validator`; missing is a clear skip on a
    workstation and a failure in CI."""
    if not VALIDATOR.exists():
        message = (
            f"{VALIDATOR} is missing: run `make focus-validator` (it needs python3.12 on PATH)"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return VALIDATOR


def validate(path: Path) -> tuple[dict[str, int], list[str]]:
    """The validator's summary (Total, Pass, Fail, Skipped) and the ids of the failed rules.
    It exits 0 whatever failed, reads its rules locally (``--block-download``) and finds its
    currency codes relative to the folder it runs in (its package's parent)."""
    program = validator()
    packages = next((ROOT / ".venv-focus" / "lib").glob("python3*/site-packages"))
    done = subprocess.run(
        [
            str(program),
            "--data-file",
            str(path),
            "--data-format",
            path.suffix.lstrip("."),
            "--validate-version",
            "1.2",
            "--block-download",
            "--applicability-criteria",
            SUPPORTED,
        ],
        cwd=packages,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    output = done.stdout + done.stderr
    summary = re.search(r"Total: (\d+) \| Pass: (\d+) \| Fail: (\d+) \| Skipped: (\d+)", output)
    assert summary is not None, output[-3000:]
    counts = dict(
        zip(("total", "pass", "fail", "skipped"), map(int, summary.groups()), strict=True)
    )
    failed = re.findall(r"^- (\S+): violations=", output, flags=re.MULTILINE)
    assert len(failed) == counts["fail"], output[-3000:]
    return counts, failed


def mandatory(failed: list[str]) -> list[str]:
    return [rule for rule in failed if rule.endswith("-M")]


def demo_focus(tmp_path: Path, suffix: str) -> Path:
    """The demo organization's FOCUS file of a range, written by the command line."""
    out = tmp_path / f"focus{suffix}"
    done = subprocess.run(
        [
            str(ROOT / ".venv" / "bin" / "python"),
            "-m",
            "analytics",
            "export",
            "--focus",
            "--demo",
            "--start",
            str(START),
            "--end",
            str(END),
            "--output",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return out


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_the_demos_focus_file_passes_every_mandatory_rule(tmp_path, suffix):
    counts, failed = validate(demo_focus(tmp_path, suffix))
    assert counts["pass"] > 150
    assert mandatory(failed) == []


def test_a_generated_organizations_focus_file_passes_every_mandatory_rule(tmp_path):
    frame = make_key_day(keys=7, days=70, start=date(2025, 11, 20), seed=5)
    prices = load_pricing(ROOT / "pricing.example.toml")
    first, last = date(2025, 11, 20), date(2026, 1, 28)
    table = focus_table(frame, prices, TEAMS, first, last, ACCOUNT)
    path = write_export(focus_file_table(table, csv=False), tmp_path / "generated.parquet")
    counts, failed = validate(path)
    assert counts["pass"] > 150
    assert mandatory(failed) == []


def test_billed_cost_is_chargebacks_total_each_month_and_the_fee_a_purchase():
    frame = within(demo_usage().frame, START, END)
    teams = load_teams(ROOT / "teams.example.toml")
    prices = load_pricing(ROOT / "pricing.example.toml")
    table = focus_table(frame, prices, teams, START, END, ACCOUNT)
    bill = chargeback(frame, prices, teams, START, END)
    month = table["BillingPeriodStart"].dt.tz_localize(None)
    for row in bill.total.itertuples():
        of_month = table[month == pd.Timestamp(row.month)]
        assert cents(of_month["BilledCost"]) == row.amount_minor
        assert cents(of_month["EffectiveCost"]) == row.amount_minor
        purchase = of_month[of_month["ChargeCategory"] == "Purchase"]
        assert len(purchase) == 1
        assert cents(purchase["BilledCost"]) == row.base_fee_minor
        assert purchase["ChargeFrequency"].tolist() == ["Recurring"]
    # The example's fee is 250.00 a month in 2025, 300.00 from 2026: December's 15 of 31 days
    # (120.97), January whole, February's 9 of 28 days (96.43).
    fees = table[table["ChargeCategory"] == "Purchase"]
    assert [cents(fees["BilledCost"].iloc[[i]]) for i in range(3)] == [12097, 30000, 9643]
    usage = table[table["ChargeCategory"] == "Usage"]
    assert set(usage["ServiceName"]) <= {
        "Text translation", "Document translation", "Text improvement", "Speech-to-text",
        "Speech-to-speech",
    }  # fmt: skip
    assert (usage["ChargePeriodEnd"] - usage["ChargePeriodStart"] == pd.Timedelta(days=1)).all()
    assert not usage["ResourceId"].str.contains(r"^[^*]*$").any()  # masked keys only
    assert {json.loads(tags)["team"] for tags in usage["Tags"]} == set(usage["SubAccountId"])


def test_a_teams_focus_file_is_its_chargeback_rows():
    frame = within(demo_usage().frame, START, END)
    teams = load_teams(ROOT / "teams.example.toml")
    prices = load_pricing(ROOT / "pricing.example.toml")
    bill = chargeback(frame, prices, teams, START, END)
    whole = focus_table(frame, prices, teams, START, END, ACCOUNT)
    for team in ("Marketing", "Documents"):
        table = focus_table(frame, prices, teams, START, END, ACCOUNT, frozenset({team}))
        assert set(table["SubAccountId"]) == {team}
        rows = bill.table[bill.table["team"] == team]
        assert cents(table["BilledCost"]) == int(rows["amount_minor"].sum())
        purchases = table[table["ChargeCategory"] == "Purchase"]
        assert cents(purchases["BilledCost"]) == int(rows["base_fee_minor"].sum())
        # Each usage row carries the same amounts as in the organization's file.
        mine = whole[whole["SubAccountId"] == team]
        assert cents(mine[mine["ChargeCategory"] == "Usage"]["EffectiveCost"]) == cents(
            table[table["ChargeCategory"] == "Usage"]["EffectiveCost"]
        )


@settings(max_examples=40, deadline=None)
@given(usage_rows, first_days, lengths, change_days, fees, included)
def test_focus_totals_are_the_exports_total_cost(rows, first, days, change, fee, volume):
    world = drawn(rows, first, days, change, fee, volume)
    frame, prices, start, end = world.frame, world.prices, world.start, world.end
    table = focus_table(frame, prices, TEAMS, start, end, ACCOUNT)
    exported = shape_export(frame, start, end, "key_and_day", Costing(prices, TEAMS), True)
    assert cents(table["BilledCost"]) == cents(exported["total_cost_eur"])
    assert cents(table["EffectiveCost"]) == cents(exported["total_cost_eur"])
    assert (table["ListCost"].map(Decimal) >= 0).all()
    bill = chargeback(frame, prices, TEAMS, start, end)
    for team in ("Web", "Apps", "Unassigned"):
        share = focus_table(frame, prices, TEAMS, start, end, ACCOUNT, frozenset({team}))
        rows_of_team = bill.table[bill.table["team"].astype(str) == team]
        assert cents(share["BilledCost"]) == int(rows_of_team["amount_minor"].sum())
