"""Dashboard data shaping on key-day frames built here (no service, no Streamlit)."""

from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics import views
from analytics.views import METRICS, MINUTES, OTHER, Access, access_decision


def make_key_day(keys: int, days: int, start: date = date(2026, 1, 1), seed: int = 1):
    """A frame in the documented key-day shape with random, reproducible usage."""
    rng = np.random.default_rng(seed)
    dates = pd.date_range(start, periods=days, freq="D")
    api_keys = [f"k{i:03d}****z{i:03d}" for i in range(keys)]
    frame = pd.DataFrame(
        {
            "usage_date": np.repeat(dates, keys),
            "api_key": np.tile(api_keys, days),
            "api_key_label": np.tile([f"Team {i}" for i in range(keys)], days),
        }
    )
    n = len(frame)
    scale = np.tile(np.linspace(1, 50, keys), days)
    frame["text_translation_characters"] = (rng.integers(0, 1000, n) * scale).astype("int64")
    frame["document_translation_characters"] = (rng.integers(0, 500, n) * scale).astype("int64")
    frame["text_improvement_characters"] = rng.integers(0, 200, n).astype("int64")
    frame["total_characters"] = frame[list(views.SERVICE_CHARACTERS)].sum(axis=1)
    frame["speech_to_text_minutes"] = rng.integers(0, 1000, n) / 100
    frame["api_key"] = frame["api_key"].astype("category")
    frame["api_key_label"] = frame["api_key_label"].astype("category")
    return frame[["usage_date", "api_key", "api_key_label", *METRICS]]


def test_format_value_people_readable():
    assert views.format_value(1234567, "total_characters") == "1,234,567"
    assert views.format_value(1234.5, MINUTES) == "1,234.50"
    assert views.format_value(None, MINUTES) == "N/A"


def test_kpis_change_against_previous_period():
    current = {m: 150.0 for m in METRICS}
    previous = {m: 100.0 for m in METRICS} | {MINUTES: 0.0}
    tiles = {t.metric: t for t in views.kpis(current, previous)}
    assert tiles["total_characters"].change == pytest.approx(0.5)
    assert tiles["total_characters"].change_text == "+50.0%"
    assert tiles[MINUTES].change is None  # zero before: no meaningful percentage
    assert tiles[MINUTES].change_text == "N/A"
    assert all(t.change is None for t in views.kpis(current, None))
    nothing_before = views.kpis(current, dict.fromkeys(METRICS, 0.0))
    assert all(t.previous is None and t.change_text == "N/A" for t in nothing_before)


def test_metric_totals_match_frame_sums():
    kd = make_key_day(5, 10)
    totals = views.metric_totals(kd)
    assert totals["total_characters"] == kd["total_characters"].sum()
    assert totals[MINUTES] == pytest.approx(kd[MINUTES].sum())
    assert views.metric_totals(kd.iloc[0:0]) == {m: 0.0 for m in METRICS}


@pytest.mark.parametrize(
    ("days", "expected"), [(1, "day"), (120, "day"), (121, "week"), (730, "week"), (731, "month")]
)
def test_auto_granularity(days, expected):
    start = date(2025, 1, 1)
    assert views.auto_granularity(start, start + timedelta(days=days - 1)) == expected


def test_usage_over_time_resamples_without_losing_usage():
    kd = make_key_day(4, 100, start=date(2026, 1, 1))
    end = date(2026, 1, 1) + timedelta(days=99)
    for granularity in ("day", "week", "month"):
        series = views.usage_over_time(kd, date(2026, 1, 1), end, granularity)
        assert series["total_characters"].sum() == kd["total_characters"].sum()
    weekly = views.usage_over_time(kd, date(2026, 1, 1), end, "week")
    assert all(d.weekday() == 0 for d in weekly.index)  # weeks start on Monday
    monthly = views.usage_over_time(kd, date(2026, 1, 1), end, "month")
    assert list(monthly.index.month) == [1, 2, 3, 4]


def test_usage_over_time_fills_days_without_usage():
    kd = make_key_day(2, 3, start=date(2026, 3, 10))
    series = views.usage_over_time(kd, date(2026, 3, 1), date(2026, 3, 31), "day")
    assert len(series) == 31
    assert series.loc["2026-03-01", "total_characters"] == 0


def test_top_n_plus_other_sums_to_total():
    kd = make_key_day(12, 30)
    wide = views.top_n_over_time(
        kd, "total_characters", 5, date(2026, 1, 1), date(2026, 1, 30), "day"
    )
    assert list(wide.columns)[-1] == OTHER
    assert len(wide.columns) == 6
    assert wide.to_numpy().sum() == kd["total_characters"].sum()
    biggest = kd.groupby("api_key", observed=True)["total_characters"].sum().idxmax()
    assert wide.columns[0].endswith(f"({biggest})")


def test_top_n_without_other_when_all_keys_fit():
    kd = make_key_day(3, 5)
    wide = views.top_n_over_time(kd, MINUTES, 10, date(2026, 1, 1), date(2026, 1, 5), "day")
    assert OTHER not in wide.columns
    totals = views.top_n_totals(kd, "total_characters", 2)
    assert totals.sum() == kd["total_characters"].sum()
    assert list(totals.index)[-1] == OTHER


def test_key_table_shares_and_sparklines():
    kd = make_key_day(6, 400)
    table = views.key_table(kd, date(2026, 1, 1), date(2026, 1, 1) + timedelta(days=399))
    assert len(table) == 6
    assert table["share"].sum() == pytest.approx(1.0)
    assert table["total_characters"].is_monotonic_decreasing
    assert all(len(points) <= views.SPARKLINE_POINTS for points in table["trend"])
    row = table.set_index("api_key").loc["k002****z002"]
    own = kd[kd["api_key"] == "k002****z002"]
    assert row["total_characters"] == own["total_characters"].sum()
    assert sum(row["trend"]) == own["total_characters"].sum()
    assert row["api_key_label"] == "Team 2"


def test_key_table_empty_frame():
    table = views.key_table(make_key_day(2, 2).iloc[0:0], date(2026, 1, 1), date(2026, 1, 2))
    assert table.empty
    assert "share" in table.columns


def test_search_keys_by_label_or_id_plain_text():
    table = views.key_table(make_key_day(12, 3), date(2026, 1, 1), date(2026, 1, 3))
    assert set(views.search_keys(table, "team 1")["api_key_label"]) == {
        "Team 1",
        "Team 10",
        "Team 11",
    }
    assert len(views.search_keys(table, "Z005")) == 1
    assert views.search_keys(table, ".*").empty  # not a regular expression
    assert len(views.search_keys(table, "  ")) == 12


def test_period_breakdown_covers_the_chosen_week():
    kd = make_key_day(4, 28, start=date(2026, 2, 2))  # 2026-02-02 is a Monday
    week = views.period_breakdown(kd, date(2026, 2, 9), "week", "total_characters")
    in_week = kd[(kd["usage_date"] >= "2026-02-09") & (kd["usage_date"] <= "2026-02-15")]
    assert week["total_characters"].sum() == in_week["total_characters"].sum()
    assert week["total_characters"].is_monotonic_decreasing
    day = views.period_breakdown(kd, date(2026, 2, 3), "day", MINUTES)
    assert day[MINUTES].sum() == pytest.approx(kd[kd["usage_date"] == "2026-02-03"][MINUTES].sum())


def test_rolling_mean_and_cumulative():
    wide = pd.DataFrame({"a": [7.0, 0, 0, 0, 0, 0, 0, 14]})
    assert views.rolling_mean(wide)["a"].iloc[0] == 7
    assert views.rolling_mean(wide)["a"].iloc[-1] == 2
    assert views.cumulative(wide)["a"].iloc[-1] == 21


def test_all_history_range():
    today = date(2026, 11, 22)
    start, end = views.all_history_range(today, 120)
    assert end == date(2026, 11, 21)
    assert (end - start).days + 1 == 120
    assert views.all_history_range(today, None) == (date(2021, 11, 22), date(2026, 11, 21))


def test_restrict_keys():
    kd = make_key_day(5, 2)
    assert len(views.restrict_keys(kd, ["k001****z001"])) == 2
    assert len(views.restrict_keys(kd, [])) == len(kd)


@pytest.mark.parametrize(
    ("configured", "logged_in", "email", "allow", "expected"),
    [
        (False, False, None, [], Access.OPEN),
        (True, False, None, ["a@x.org"], Access.SIGN_IN),
        (True, True, "A@X.org", ["a@x.org"], Access.ALLOWED),
        (True, True, "b@x.org", ["a@x.org"], Access.DENIED),
        (True, True, "a@x.org", [], Access.DENIED),
        (True, True, None, ["a@x.org"], Access.DENIED),
    ],
)
def test_access_decision(configured, logged_in, email, allow, expected):
    assert access_decision(configured, logged_in, email, allow) is expected


def test_export_file_name_and_cli_command():
    start, end = date(2026, 10, 1), date(2026, 10, 31)
    assert views.export_file_name("key", start, end, "csv") == "usage_key_2026-10-01_2026-10-31.csv"
    assert views.export_command("key_and_day", start, end, "csv", demo=False) == (
        "python -m analytics export --start 2026-10-01 --end 2026-10-31 "
        "--group-by key_and_day --output usage_key_and_day_2026-10-01_2026-10-31.csv"
    )


def test_crontab_follows_a_named_preset_and_fixes_a_custom_range():
    start, end = date(2026, 10, 1), date(2026, 10, 31)
    named = views.export_crontab("key", start, end, "csv", "last-month", demo=False)
    schedule, command = named[: len(views.CRON_SCHEDULE)], named[len(views.CRON_SCHEDULE) :]
    assert schedule == views.CRON_SCHEDULE
    assert "--period last-month" in command
    assert "--start" not in command
    assert "\\%Y" in command  # cron treats a bare % as a newline
    assert ". /etc/usage-dashboard.env" in command  # the key comes from a protected file
    custom = views.export_crontab("key", start, end, "csv", "custom", demo=True)
    assert custom.endswith(views.export_command("key", start, end, "csv", demo=True))


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
    wide = views.top_n_over_time(kd, "total_characters", n, date(2026, 1, 1), end, granularity)
    assert wide.to_numpy().sum() == kd["total_characters"].sum()
    assert len(wide.columns) <= n + 1
    active = (kd.groupby("api_key", observed=True)["total_characters"].sum() > 0).sum()
    assert (OTHER in wide.columns) == (active > n)


def test_range_text_writes_both_inclusive_days():
    assert views.range_text(date(2024, 2, 1), date(2024, 2, 29)) == "2024-02-01 – 2024-02-29"
