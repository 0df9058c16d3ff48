"""The Capacity page in the headless dashboard: forecasts, budgets, comparison, report download."""

from __future__ import annotations

import json
import shutil
import tomllib
from datetime import timedelta

import pytest
from support.builders import ledger_totals
from support.headless import DEMO_DAYS, ROOT, TODAY, open_page
from support.shown import change_as_written

from analytics.storage import bundle
from analytics.usage.calendar import previous_range

DAY = timedelta(days=1)


@pytest.fixture
def example_budgets(monkeypatch, tmp_path):
    """The dashboard reads budgets.toml from its working folder."""
    shutil.copy(ROOT / "budgets.example.toml", tmp_path / "budgets.toml")
    monkeypatch.chdir(tmp_path)


def test_capacity_page_without_budgets(demo_env, demo_ledger, monkeypatch, tmp_path):
    monkeypatch.setattr(bundle, "bundle_folder", lambda: tmp_path)  # no example files either
    at = open_page("capacity", period="Last 30 days")
    assert not at.exception
    assert not at.error
    assert at.title[0].value == "Capacity"
    headers = [h.value for h in at.subheader]
    assert headers == [
        "Keys against their own limits",
        "Forecasts",
        "Decision",
        "Comparison",
    ]
    # One measure's forecasts at a time: characters, month and contract year, first; then the
    # decision's record of past forecasts, of its first metric (no prices here: no cost curve).
    assert chart_titles(at) == [
        "Total characters — month to date",
        "Total characters — contract year to date",
        *PAST_FORECASTS,
    ]
    [services] = [df.value for df in at.dataframe if "Total characters" in df.value.index]
    start, end = TODAY - timedelta(days=30), TODAY - timedelta(days=1)
    totals = ledger_totals(demo_ledger.ledger(start, end))
    assert services.loc["Total characters", "current"] == totals["total_characters"]
    assert services.loc["Speech-to-text minutes", "current"] == pytest.approx(
        totals["speech_to_text_minutes"], abs=0.01
    )
    before = ledger_totals(demo_ledger.ledger(*previous_range(start, end)))
    change = change_as_written(totals["total_characters"], before["total_characters"])
    assert services.loc["Total characters", "change %"] == change
    # The demo has no usage a year ago: nothing to compare against reads N/A, as in the report.
    assert set(services["yoy %"]) == {"N/A"}


# The decision's first tab, open by default.
PAST_FORECASTS = ["Total characters — month-ahead forecasts against actuals"]


def chart_titles(at) -> list[str]:
    return [
        json.loads(chart.proto.spec)["layout"]["title"]["text"] for chart in at.get("plotly_chart")
    ]


def test_a_link_opens_the_forecasts_of_its_measure(demo_env):
    # The demo's example prices add cost; the tab named in the address is the one drawn.
    at = open_page("capacity", period="Last 30 days", forecast="Cost (EUR)")
    assert not at.exception
    assert [t.label for t in at.tabs] == [
        *("Total characters", "Speech-to-text minutes", "Cost (EUR)", "Per key this month"),
        *("Total characters", "Speech-to-text minutes"),  # the decision's metrics
        *("Period comparison", "Growth drivers"),
    ]
    assert chart_titles(at) == [
        "Cost (EUR) — month to date",
        "Cost (EUR) — contract year to date",
        *PAST_FORECASTS,
        "Expected cost of the next 12 months against committed volume",
    ]


def tables_with(at, *columns: str) -> list:
    """The page's tables holding every one of `columns`."""
    return [df.value for df in at.dataframe if set(columns) <= set(df.value.columns)]


@pytest.mark.parametrize(
    ("tab", "columns"),
    [
        (("forecast", "Per key this month"), ("api_key", "projected", "low", "high")),
        (("compare", "Growth drivers"), ("api_key", "previous", "change %")),
    ],
)
def test_a_tab_in_the_address_draws_its_table_and_only_then(demo_env, demo_ledger, tab, columns):
    at = open_page("capacity", period="Last 30 days", **dict([tab]))
    assert not at.exception and not at.error
    [table] = tables_with(at, *columns)
    used = {row.api_key for row in demo_ledger.ledger(TODAY - DEMO_DAYS * timedelta(1), TODAY)}
    assert len(table) > 0 and set(table["api_key"]) <= used
    assert tables_with(open_page("capacity", period="Last 30 days"), *columns) == []


def test_capacity_page_with_budgets(demo_env, demo_ledger, example_budgets):
    at = open_page("capacity", period="Last 30 days")
    assert not at.exception
    assert not at.error
    assert at.subheader[0].value == "Budget status"
    status = at.dataframe[0].value
    assert len(status) == 9
    spend = status.set_index("budget").loc["Spend, monthly"]  # at the example's prices (demo)
    assert spend["unit"] == "EUR" and spend["note"] == "" and spend["projected"] > 0
    assert set(status["status"]) <= {"ok", "warning", "exceeded", "unknown key"}
    # The monthly budget counts this month's closed days (none on the 1st).
    monthly = status.set_index("budget").loc["All characters, monthly"]
    this_month = demo_ledger.ledger(TODAY.replace(day=1), TODAY - timedelta(days=1))
    assert monthly["used"] == ledger_totals(this_month)["total_characters"]
    # The plan budget, last in the file, is measured on the plan's characters.
    plan = demo_ledger.plan
    start, _ = plan.period(TODAY)
    period = ledger_totals(demo_ledger.ledger(start, TODAY))
    row = status.iloc[-1]
    assert (row["budget"], row["limit"]) == ("Plan characters", plan.character_limit)
    assert row["used"] == period["total_characters"]
    assert (
        row["period"] == f"{start:%Y-%m-%d} – {plan.period(TODAY)[1] - timedelta(days=1):%Y-%m-%d}"
    )
    assert len(at.get("progress")) == 3  # the Plan panel above


def test_demo_mode_reads_the_example_budgets(demo_env):
    """Without a budgets.toml (or an upload) the demo uses budgets.example.toml, as it uses
    the example prices and teams, so Capacity shows budget status from the start."""
    at = open_page("capacity", period="Last 30 days")
    assert not at.exception and not at.error
    assert at.subheader[0].value == "Budget status"
    example = tomllib.loads((ROOT / "budgets.example.toml").read_text())
    shown = at.dataframe[0].value["budget"].tolist()
    assert len(shown) == len(example["budget"])
    assert {b["name"] for b in example["budget"] if "name" in b} <= set(shown)
