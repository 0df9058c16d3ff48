"""Tables shaped from key-day frames built here: KPIs, series over time, top-N + Other, per-key
tables (no service, no Streamlit)."""

from datetime import date, timedelta

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.builders import METRICS, make_key_day, usage_frame

from analytics.usage import tables
from analytics.usage.tables import OTHER

MINUTES = "speech_to_text_minutes"


def test_kpis_change_against_previous_period():
    current = {m: 150.0 for m in METRICS}
    previous = {m: 100.0 for m in METRICS} | {MINUTES: 0.0}
    tiles = {t.metric: t for t in tables.kpis(current, previous)}
    assert list(tiles) == METRICS
    assert tiles["total_characters"].change == pytest.approx(0.5)
    assert tiles["total_characters"].change_text == "+50.0\u202f%"
    assert tiles["total_characters"].value_text == "150"
    assert tiles[MINUTES].value_text == "150.00"
    assert tiles[MINUTES].change is None  # zero before: no meaningful percentage
    assert tiles[MINUTES].change_text == "N/A"
    assert all(t.change is None for t in tables.kpis(current, None))
    nothing_before = tables.kpis(current, dict.fromkeys(METRICS, 0.0))
    assert all(t.previous == 0 and t.change_text == "N/A" for t in nothing_before)


def test_usage_over_time_resamples_without_losing_usage():
    kd = make_key_day(4, 100, start=date(2026, 1, 1))
    end = date(2026, 1, 1) + timedelta(days=99)
    for granularity in ("day", "week", "month"):
        series = tables.usage_over_time(kd, date(2026, 1, 1), end, granularity)
        assert series["total_characters"].sum() == kd["total_characters"].sum()
    weekly = tables.usage_over_time(kd, date(2026, 1, 1), end, "week")
    assert all(d.weekday() == 0 for d in weekly.index)  # weeks start on Monday
    monthly = tables.usage_over_time(kd, date(2026, 1, 1), end, "month")
    assert list(monthly.index.month) == [1, 2, 3, 4]


def test_usage_over_time_fills_days_without_usage():
    kd = make_key_day(2, 3, start=date(2026, 3, 10))
    series = tables.usage_over_time(kd, date(2026, 3, 1), date(2026, 3, 31), "day")
    assert len(series) == 31
    assert series.loc["2026-03-01", "total_characters"] == 0


def test_usage_over_time_sums_each_bucket():
    kd = usage_frame({"aaaa****0001": [10.0] * 14, "bbbb****0002": [1.0] * 14})  # 1–14 Jan 2025
    weekly = tables.usage_over_time(kd, date(2025, 1, 1), date(2025, 1, 14), "week")
    # 1 January 2025 is a Wednesday: its week began on Monday 30 December 2024.
    assert [f"{d:%Y-%m-%d}" for d in weekly.index] == ["2024-12-30", "2025-01-06", "2025-01-13"]
    assert weekly["total_characters"].tolist() == [5 * 11, 7 * 11, 2 * 11]


def test_top_n_plus_other_sums_to_total():
    kd = make_key_day(12, 30)
    wide = tables.top_n_over_time(
        kd, "total_characters", 5, date(2026, 1, 1), date(2026, 1, 30), "day"
    )
    assert list(wide.columns)[-1] == OTHER
    assert len(wide.columns) == 6
    assert wide.to_numpy().sum() == kd["total_characters"].sum()
    biggest = kd.groupby("api_key", observed=True)["total_characters"].sum().idxmax()
    assert wide.columns[0].endswith(f"({biggest})")


def test_top_n_without_other_when_all_keys_fit():
    kd = make_key_day(3, 5)
    wide = tables.top_n_over_time(kd, MINUTES, 10, date(2026, 1, 1), date(2026, 1, 5), "day")
    assert OTHER not in wide.columns
    totals = tables.top_n_totals(kd, "total_characters", 2)
    assert totals.sum() == kd["total_characters"].sum()
    assert list(totals.index)[-1] == OTHER


def test_top_n_names_keys_by_label_and_masked_id():
    kd = usage_frame(
        {"aaaa****0001": [5.0] * 3, "bbbb****0002": [9.0] * 3, "cccc****0003": [1.0] * 3},
        labels={"aaaa****0001": "Shop", "bbbb****0002": "Shop", "cccc****0003": ""},
    )
    totals = tables.top_n_totals(kd, "total_characters", 2)
    assert totals.to_dict() == {"Shop (bbbb****0002)": 27, "Shop (aaaa****0001)": 15, OTHER: 3}
    assert tables.top_keys(kd, "total_characters", 5) == [
        "bbbb****0002",
        "aaaa****0001",
        "cccc****0003",
    ]
    assert tables.key_names(kd)["cccc****0003"] == "cccc****0003"  # no label: the id alone
    assert tables.key_names(kd, labels_only=True)["aaaa****0001"] == "Shop"


def test_key_table_shares_and_sparklines():
    kd = make_key_day(6, 400)
    table = tables.key_table(kd, date(2026, 1, 1), date(2026, 1, 1) + timedelta(days=399))
    assert len(table) == 6
    assert table["share"].sum() == pytest.approx(1.0)
    assert table["total_characters"].is_monotonic_decreasing
    assert all(len(points) <= tables.SPARKLINE_POINTS for points in table["trend"])
    row = table.set_index("api_key").loc["k002****z002"]
    own = kd[kd["api_key"] == "k002****z002"]
    assert row["total_characters"] == own["total_characters"].sum()
    assert sum(row["trend"]) == own["total_characters"].sum()
    assert row["api_key_label"] == "Team 2"


def test_key_table_of_a_hand_made_frame():
    kd = usage_frame({"aaaa****0001": [30.0] * 10, "bbbb****0002": [10.0] * 10})
    table = tables.key_table(kd, date(2025, 1, 1), date(2025, 1, 10))
    assert list(table.columns) == ["api_key", "api_key_label", *METRICS, "share", "trend"]
    assert table["api_key"].tolist() == ["aaaa****0001", "bbbb****0002"]
    assert table["share"].tolist() == [0.75, 0.25]
    assert table["trend"].iloc[1] == [10] * 10  # ten days: one point per day


def test_key_table_empty_frame():
    table = tables.key_table(make_key_day(2, 2).iloc[0:0], date(2026, 1, 1), date(2026, 1, 2))
    assert table.empty
    assert "share" in table.columns


def test_search_keys_by_label_or_id_plain_text():
    table = tables.key_table(make_key_day(12, 3), date(2026, 1, 1), date(2026, 1, 3))
    assert set(tables.search_keys(table, "team 1")["api_key_label"]) == {
        "Team 1",
        "Team 10",
        "Team 11",
    }
    assert len(tables.search_keys(table, "Z005")) == 1
    assert tables.search_keys(table, ".*").empty  # not a regular expression
    assert len(tables.search_keys(table, "  ")) == 12


def test_bucket_breakdown_covers_the_chosen_week():
    kd = make_key_day(4, 28, start=date(2026, 2, 2))  # 2026-02-02 is a Monday
    week = tables.bucket_breakdown(kd, date(2026, 2, 9), "week", "total_characters")
    in_week = kd[(kd["usage_date"] >= "2026-02-09") & (kd["usage_date"] <= "2026-02-15")]
    assert week["total_characters"].sum() == in_week["total_characters"].sum()
    assert week["total_characters"].is_monotonic_decreasing
    day = tables.bucket_breakdown(kd, date(2026, 2, 3), "day", MINUTES)
    assert day[MINUTES].sum() == pytest.approx(kd[kd["usage_date"] == "2026-02-03"][MINUTES].sum())


def test_bucket_breakdown_leaves_out_keys_without_usage_in_the_bucket():
    # B only uses the service from 15 January on: it has nothing in the first week.
    kd = usage_frame(
        {"aaaa****0001": [3.0] * 31, "bbbb****0002": [0.0] * 14 + [50.0] * 17},
        labels={"aaaa****0001": "A", "bbbb****0002": "B"},
    )
    first_week = tables.bucket_breakdown(kd, date(2024, 12, 30), "week", "total_characters")
    assert first_week["api_key_label"].tolist() == ["A"]
    assert first_week["total_characters"].tolist() == [15]  # 1–5 January
    january = tables.bucket_breakdown(kd, date(2025, 1, 1), "month", "total_characters")
    assert january[["api_key_label", "total_characters"]].to_numpy().tolist() == [
        ["B", 850],
        ["A", 93],
    ]


def test_rolling_mean_and_cumulative():
    wide = pd.DataFrame({"a": [7.0, 0, 0, 0, 0, 0, 0, 14]})
    assert tables.rolling_mean(wide)["a"].iloc[0] == 7
    assert tables.rolling_mean(wide)["a"].iloc[-1] == 2
    assert tables.cumulative(wide)["a"].iloc[-1] == 21


def test_restrict_keys():
    kd = make_key_day(5, 2)
    assert len(tables.restrict_keys(kd, ["k001****z001"])) == 2
    assert len(tables.restrict_keys(kd, [])) == len(kd)


@pytest.mark.parametrize(
    ("days", "expected"), [(1, "day"), (60, "day"), (61, "week"), (420, "week"), (421, "month")]
)
def test_sparkline_granularity_keeps_about_sixty_points(days, expected):
    start = date(2025, 1, 1)
    assert tables.sparkline_granularity(start, start + timedelta(days=days - 1)) == expected


@settings(max_examples=40)
@given(
    keys=st.integers(1, 15),
    days=st.integers(1, 60),
    n=st.integers(1, 20),
    granularity=st.sampled_from(["day", "week", "month"]),
    seed=st.integers(0, 1000),
)
def test_top_n_plus_other_always_adds_up(keys, days, n, granularity, seed):
    kd = make_key_day(keys, days, seed=seed)
    end = date(2026, 1, 1) + timedelta(days=days - 1)
    wide = tables.top_n_over_time(kd, "total_characters", n, date(2026, 1, 1), end, granularity)
    assert wide.to_numpy().sum() == kd["total_characters"].sum()
    assert len(wide.columns) <= n + 1
    active = (kd.groupby("api_key", observed=True)["total_characters"].sum() > 0).sum()
    assert (OTHER in wide.columns) == (active > n)
