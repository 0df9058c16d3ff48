"""The run rate, the explainable baseline, on frames with a known rhythm; and the days a
forecast reads."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from support.builders import FIRST, pattern, usage_frame

from analytics.capacity.forecasting.run_rate_model import (
    daily_series,
    forecast_start,
    required_start,
    run_rate,
)
from analytics.usage.calendar import YearStart

WORKWEEK = pattern(400, FIRST, lambda d, _: 10.0 if d.weekday() >= 5 else 100.0)


def test_every_projection_reads_five_years_before_today():
    """The forecast's history reaches five years back from yesterday, further than any
    period holding today, whatever the contract year."""
    assert forecast_start(date(2025, 3, 20)) == date(2020, 3, 20)
    assert forecast_start(date(2028, 3, 1)) == date(2023, 3, 1)  # after a 29 February
    for year_start in (YearStart(3, 15), YearStart(1, 1), YearStart(4, 1)):
        assert required_start(date(2025, 3, 20), year_start) == date(2020, 3, 20)


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


def test_missing_days_are_zero_but_days_before_coverage_are_unknown():
    values = [0.0] * 14 + [70.0] * 14  # two quiet weeks, then 70 a day; no rows when quiet
    kd = usage_frame({"aaaa****0001": values})
    series = daily_series(kd, "total_characters")
    as_of = FIRST + timedelta(days=28)
    assert run_rate(series, as_of, FIRST).level == pytest.approx(35)
    second_half = FIRST + timedelta(days=14)
    assert run_rate(series, as_of, second_half).level == pytest.approx(70)
    assert run_rate(series, as_of, second_half).history_days == 14
