"""The Capacity page's Decision section in the headless dashboard: the forecasts' stated
accuracy against the backtest worked out from the ledger, and the what-ifs kept in the address
(they change the recommendation, survive a rerun and open from a link)."""

from __future__ import annotations

import tomllib
from collections import defaultdict
from datetime import date, timedelta

import pandas as pd
import pytest
from support.builders import ledger_totals
from support.headless import DEMO_DAYS, ROOT, TODAY, open_clean_page

from analytics.capacity.forecast import run_rate
from analytics.storage import bundle
from analytics.usage.metrics import share_text

DAY = timedelta(days=1)
WORKLOAD = "50000000 characters a month"


def daily_characters(demo_ledger, first: date, last: date) -> dict[date, int]:
    """The organization's total characters of each day, summed from the ledger."""
    days: dict[date, int] = defaultdict(int)
    for row in demo_ledger.ledger(first, last):
        days[row.usage_date] += int(ledger_totals([row])["total_characters"])
    return days


def test_the_stated_error_is_the_backtests_worked_out_from_the_ledger(demo_env, demo_ledger):
    at = open_clean_page("capacity", period="Last 30 days")
    first, last = TODAY - DEMO_DAYS * DAY, TODAY - DAY  # the demo's whole history
    days = daily_characters(demo_ledger, first, last)
    series = pd_series(days, first, last)
    # A month is scored from its first day when four weeks are known before it and it has
    # ended; with fewer than six such months the run rate is the model used.
    starts = [
        date(y, m, 1)
        for y in (TODAY.year - 1, TODAY.year)
        for m in range(1, 13)
        if first + 28 * DAY <= date(y, m, 1) and next_month(date(y, m, 1)) <= TODAY
    ]
    assert 1 <= len(starts) < 6
    errors, actuals = 0.0, 0.0
    for start in starts:
        month = [start + n * DAY for n in range((next_month(start) - start).days)]
        rate = run_rate(series, start, first)
        actual = sum(days[d] for d in month)
        errors += abs(actual - sum(rate.expected(d) for d in month))
        actuals += actual
    said = f"Month-ahead error over the last {len(starts)} months: {share_text(errors / actuals)}"
    # The decision's first tab, open by default: total characters.
    [characters] = [c.value for c in at.caption if c.value.startswith("Month-ahead")]
    assert characters.startswith(f"{said} (run rate);"), characters


def pd_series(days: dict[date, int], first: date, last: date) -> pd.Series:
    index = pd.date_range(first, last, freq="D")
    return pd.Series([float(days.get(d.date(), 0)) for d in index], index=index)


def next_month(day: date) -> date:
    return date(day.year + day.month // 12, day.month % 12 + 1, 1)


def options_table(at) -> pd.DataFrame:
    """The recommendation's table of every option, by name."""
    [options] = [df.value for df in at.dataframe if "option" in df.value.columns]
    return options.set_index("option")


def recommended(at) -> str:
    [said] = [s.value for s in at.success]
    return said.split("**")[1]


def test_what_ifs_in_the_address_change_the_recommendation_and_survive_a_rerun(demo_env):
    plain = open_clean_page("capacity", period="Last 30 days")
    assert recommended(plain) == "Example: pay as you go"

    at = open_clean_page("capacity", period="Last 30 days", add=WORKLOAD, risk="100")
    options = options_table(at)
    # At any risk the cheapest expected option is chosen; the workload adds its volume at the
    # pay-as-you-go price to that option's every month.
    assert recommended(at) == options["expected_cost"].idxmin() != "Example: pay as you go"
    before = options_table(plain)["expected_cost"]
    catalogue = tomllib.loads((ROOT / "pricing.example.toml").read_text())["option"]
    [payg] = [o for o in catalogue if o["name"] == "Example: pay as you go"]
    added = 12 * 50 * payg["price_per_million_characters"]
    assert options.loc[payg["name"], "expected_cost"] - before[payg["name"]] == pytest.approx(
        added, abs=0.01
    )

    shown = recommended(at)
    at.run()
    assert not at.exception and not at.error
    assert recommended(at) == shown
    assert at.text_area(key="add").value == WORKLOAD
    assert at.slider(key="risk").value == 100


def test_a_link_with_what_ifs_opens_them(demo_env):
    lines = f"speech pilot 500 minutes a month\n{TODAY:%Y}-12:{WORKLOAD}"
    at = open_clean_page(
        "capacity", period="Last 30 days", growth="10", add=lines, risk="50", term="6"
    )
    assert at.number_input(key="growth").value == 10
    assert at.text_area(key="add").value == lines
    assert at.slider(key="risk").value == 50
    assert at.selectbox(key="term").value == 6
    assert (
        f"What-ifs: growth +10%; speech pilot 500 minutes a month; {TODAY:%Y}-12: "
        "50,000,000 characters a month." in [c.value for c in at.caption]
    )
    assert "for the 6 months from" in at.success[0].value
    assert "within a 50.0 % chance of overage" in at.success[0].value


def test_a_workload_that_cannot_be_read_is_named_and_left_out(demo_env):
    at = open_clean_page("capacity", period="Last 30 days")
    at.text_area(key="add").set_value("a lot of characters").run()
    assert not at.exception
    [error] = [e.value for e in at.error]
    assert error.startswith("Left out: a planned workload reads like")
    assert "What-ifs: none." in [c.value for c in at.caption]


def test_without_a_catalogue_one_caption_says_how_to_add_one(demo_env, monkeypatch, tmp_path):
    monkeypatch.setattr(bundle, "bundle_folder", lambda: tmp_path)  # no example pricing file
    at = open_clean_page("capacity", period="Last 30 days")
    assert not at.success
    [said] = [c.value for c in at.caption if c.value.startswith("No options to weigh")]
    assert "`[[option]]` entries" in said and "docs/capacity.md" in said
    assert len([c for c in at.caption if c.value.startswith("Month-ahead error")]) == 1
