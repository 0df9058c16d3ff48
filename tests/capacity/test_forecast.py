"""Run-rate forecasts on frames with a known rhythm, and the backtest."""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest
from support.builders import FIRST, METRICS, pattern, usage_frame

from analytics.capacity.forecast import (
    backtest,
    daily_series,
    forecast,
    forecast_table,
    key_forecasts,
    projection_path,
    required_start,
    run_rate,
)
from analytics.usage.calendar import YearStart

WORKWEEK = pattern(400, FIRST, lambda d, _: 10.0 if d.weekday() >= 5 else 100.0)


def test_required_start_covers_every_period_and_the_rhythm_window():
    # The contract year starts on 15 March, so on 20 March the quarter reaches back furthest.
    assert required_start(date(2025, 3, 20), YearStart(3, 15)) == date(2024, 12, 26)
    assert required_start(date(2025, 3, 20), YearStart(1, 1)) == date(2024, 12, 26)
    assert required_start(date(2025, 11, 20), YearStart(1, 1)) == date(2025, 1, 1)


def test_flat_usage_projects_exactly_with_no_band():
    kd = usage_frame({"aaaa****0001": [250.0] * 120})
    series = daily_series(kd, "total_characters")
    as_of = date(2025, 4, 11)  # 10 closed days in April
    result = forecast(series, "total_characters", "month", as_of, FIRST)
    assert result.actual == 2500
    assert result.projected == pytest.approx(250 * 30)
    assert result.low == pytest.approx(result.projected)
    assert result.high == pytest.approx(result.projected)
    assert result.daily_rate == pytest.approx(250)


def test_weekday_rhythm_is_learned_and_applied_to_each_future_day():
    kd = usage_frame({"aaaa****0001": WORKWEEK})
    series = daily_series(kd, "total_characters")
    as_of = date(2025, 6, 2)  # a Monday
    rate = run_rate(series, as_of, FIRST)
    mean = (5 * 100 + 2 * 10) / 7
    assert rate.level == pytest.approx(mean)
    assert [rate.expected(as_of + timedelta(days=i)) for i in range(7)] == pytest.approx(
        [100, 100, 100, 100, 100, 10, 10]
    )
    assert rate.weekly_spread == pytest.approx(0)
    path = projection_path(series, date(2025, 6, 1), date(2025, 6, 30), rate, FIRST)
    assert path["actual"].notna().sum() == 1  # only 1 June (a Sunday) is closed
    expected_june = sum(10.0 if date(2025, 6, d).weekday() >= 5 else 100.0 for d in range(1, 31))
    assert path["expected"].iloc[-1] == pytest.approx(expected_june)


def test_growth_lags_behind_and_the_band_widens_with_the_horizon():
    rng = np.random.default_rng(7)
    growing = pattern(500, FIRST, lambda _, i: 1000 + 4 * i + rng.normal(0, 150))
    kd = usage_frame({"aaaa****0001": [max(0.0, round(v)) for v in growing]})
    series = daily_series(kd, "total_characters")
    as_of = date(2026, 1, 1)
    month = forecast(series, "total_characters", "month", as_of, FIRST)
    year = forecast(series, "total_characters", "year", as_of, FIRST)
    assert month.low < month.projected < month.high
    assert (year.high - year.low) > 8 * (month.high - month.low)
    # Level is the last 28 days' mean: it trails the day-by-day growth it does not model.
    recent = series[pd.Timestamp(as_of - timedelta(days=28)) : pd.Timestamp(as_of)].iloc[:-1]
    assert len(recent) == 28
    assert month.daily_rate == pytest.approx(recent.mean())
    actual_january = sum(growing[365:396])
    assert month.projected < actual_january


def test_missing_days_are_zero_but_days_before_coverage_are_unknown():
    values = [0.0] * 14 + [70.0] * 14  # two quiet weeks, then 70 a day; no rows when quiet
    kd = usage_frame({"aaaa****0001": values})
    series = daily_series(kd, "total_characters")
    as_of = FIRST + timedelta(days=28)
    assert run_rate(series, as_of, FIRST).level == pytest.approx(35)
    second_half = FIRST + timedelta(days=14)
    assert run_rate(series, as_of, second_half).level == pytest.approx(70)
    assert run_rate(series, as_of, second_half).history_days == 14


def test_no_history_forecasts_nothing_beyond_what_is_used():
    kd = usage_frame({"aaaa****0001": [5.0]})
    series = daily_series(kd, "total_characters")
    result = forecast(series, "total_characters", "month", FIRST, FIRST)
    assert (result.actual, result.projected, result.low, result.high) == (0, 0, 0, 0)


def test_forecast_table_holds_org_and_each_key_for_every_metric_and_period():
    kd = usage_frame(
        {"aaaa****0001": [100.0] * 90, "bbbb****0002": [300.0] * 90},
        minutes={"aaaa****0001": [1.5] * 90, "bbbb****0002": [0.0] * 90},
    )
    as_of = date(2025, 3, 16)
    table = forecast_table(kd, as_of, FIRST, by_key=True)
    assert len(table) == 3 * len(METRICS) * 3
    month = table[(table["metric"] == "total_characters") & (table["period"] == "month")]
    projected = month.set_index("api_key")["projected"]
    assert projected["Organization"] == pytest.approx(400 * 31)
    assert projected["aaaa****0001"] == pytest.approx(100 * 31)
    assert projected["bbbb****0002"] == pytest.approx(300 * 31)
    minutes = table[(table["metric"] == "speech_to_text_minutes") & (table["period"] == "quarter")]
    assert minutes.set_index("api_key")["actual"]["Organization"] == pytest.approx(1.5 * 74)
    assert set(table["api_key_label"]) == {"Organization", "Label aaaa", "Label bbbb"}


def test_backtest_is_exact_for_a_steady_weekly_rhythm():
    kd = usage_frame({"aaaa****0001": WORKWEEK})
    result = backtest(kd, months=6)
    assert len(result.months) == 6
    # The frame ends on 4 February 2026: January is the last whole month.
    months = [date(2025, m, 1) for m in range(8, 13)] + [date(2026, 1, 1)]
    assert list(result.months["month"]) == months
    assert result.mape == pytest.approx(0, abs=1e-9)
    assert result.coverage == 1.0


def test_backtest_uses_only_data_before_each_month():
    # A step from 100 to 200 a day on 1 March: the March forecast cannot know it yet.
    values = pattern(120, FIRST, lambda d, _: 200.0 if d >= date(2025, 3, 1) else 100.0)
    kd = usage_frame({"aaaa****0001": values})
    result = backtest(kd, months=2, covered_to=date(2025, 4, 30))
    by_month = result.months.set_index("month")
    assert by_month.loc[date(2025, 3, 1), "forecast"] == pytest.approx(100 * 31)
    assert by_month.loc[date(2025, 3, 1), "error"] == pytest.approx(0.5)
    # April's level is all after the step; its rhythm window still straddles it, so the
    # weekday factors are slightly uneven.
    assert by_month.loc[date(2025, 4, 1), "forecast"] == pytest.approx(200 * 30, rel=0.01)
    assert result.mape == pytest.approx(0.25, abs=0.01)


def test_key_forecasts_rank_keys_by_projection():
    kd = usage_frame({"aaaa****0001": [100.0] * 90, "bbbb****0002": [300.0] * 90})
    table = key_forecasts(kd, date(2025, 3, 16), FIRST)
    assert list(table["api_key"]) == ["bbbb****0002", "aaaa****0001"]
    assert list(table["projected"]) == pytest.approx([300 * 31, 100 * 31])
    quarter = key_forecasts(kd, date(2025, 3, 16), FIRST, kind="quarter")
    assert list(quarter["actual"]) == pytest.approx([300 * 74, 100 * 74])
