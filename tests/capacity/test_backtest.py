"""The rolling-origin backtest on hand-made series whose errors are worked out by hand: a flat
series, a linear trend, a weekly rhythm, a step change, a spike, and a series too short for a
yearly season."""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest

from analytics.capacity.accuracy import Backtest, backtest, origins, wape
from analytics.capacity.candidates import (
    ETS_WEEKLY,
    ETS_YEARLY,
    RUN_RATE,
    SEASONAL_NAIVE,
    History,
)

FIRST = date(2024, 1, 1)  # a Monday
CHEAP = (RUN_RATE, SEASONAL_NAIVE)


def history(values: np.ndarray | list[float]) -> History:
    return History(FIRST, np.asarray(values, dtype=float))


def days_between(start: date, end: date) -> int:
    return (end - start).days


def month_after(day: date) -> date:
    return date(day.year + day.month // 12, day.month % 12 + 1, 1)


def test_origins_are_the_last_24_whole_months_and_horizons_are_scored_once_ended():
    flat = history([100.0] * 800)  # through 2026-03-09
    found = origins(flat)
    assert len(found) == 24
    assert found[0] == date(2024, 3, 1) and found[-1] == date(2026, 2, 1)
    rows = backtest(flat, candidates=CHEAP).rows
    scored = rows[rows["candidate"] == RUN_RATE].groupby("horizon")["origin"].agg(["count", "max"])
    # The quarter from 2025-12-01 ended on 2026-02-28; from 2026-01-01 it had not.
    assert scored.loc["month", "count"] == 24
    assert scored.loc["quarter", "max"] == date(2025, 12, 1)
    assert scored.loc["12 months", "max"] == date(2025, 3, 1)
    assert scored.loc["12 months", "count"] == 13


def test_a_flat_series_is_forecast_exactly_and_every_interval_holds_it():
    found = backtest(history([100.0] * 800), candidates=(*CHEAP, ETS_WEEKLY))
    table = found.table()
    assert table["wape"].tolist() == [0.0] * len(table)
    with_intervals = table.dropna(subset=["coverage_80"])
    assert len(with_intervals) == len(table)
    assert (with_intervals[["coverage_80", "coverage_95"]] == 1.0).all().all()
    month = found.of(RUN_RATE, "month")
    assert (
        month["actual"]
        == 100.0 * np.array([days_between(o, month_after(o)) for o in month["origin"]])
    ).all()


def test_seasonal_naive_on_a_linear_trend_misses_by_the_slope_times_its_lag():
    slope = 10.0
    values = 1000.0 + slope * np.arange(800)
    month = backtest(history(values), candidates=(SEASONAL_NAIVE,)).of(SEASONAL_NAIVE, "month")
    for row in month.itertuples():
        start = days_between(FIRST, row.origin)
        days = days_between(row.origin, month_after(row.origin))
        # With a year behind it, each day is read 52 weeks back: 364 days of growth short.
        # Before, each day is read from the last week: j days ahead lag 7·(j // 7 + 1) days.
        lags = [364] * days if start >= 364 else [7 * (j // 7 + 1) for j in range(days)]
        assert row.actual - row.forecast == pytest.approx(slope * sum(lags))
        actual = sum(1000.0 + slope * (start + j) for j in range(days))
        assert row.actual == pytest.approx(actual)
    expected_wape = (month["actual"] - month["forecast"]).sum() / month["actual"].sum()
    assert wape(month) == pytest.approx(expected_wape)


def test_a_weekly_rhythm_is_forecast_exactly_by_both_baselines():
    rhythm = [10.0 if (FIRST + timedelta(days=d)).weekday() >= 5 else 100.0 for d in range(500)]
    table = backtest(history(rhythm), candidates=CHEAP).table()
    assert table["wape"].tolist() == pytest.approx([0.0] * len(table), abs=1e-12)


def test_after_a_step_change_the_run_rate_lags_and_the_weekly_model_adapts_within_days():
    origin = date(2024, 8, 1)
    step = days_between(FIRST, origin) - 14  # two whole weeks before the origin
    values = np.where(np.arange(260) < step, 100.0, 400.0)
    found = backtest(history(values), candidates=(RUN_RATE, ETS_WEEKLY))
    run_rate = found.of(RUN_RATE, "month").set_index("origin").loc[origin]
    weekly = found.of(ETS_WEEKLY, "month").set_index("origin").loc[origin]
    # The run rate's level is the mean of 14 days at 100 and 14 at 400: 250 a day, for 31 days;
    # every weekday saw the step equally often, so the rhythm stays flat.
    assert run_rate["forecast"] == pytest.approx(31 * 250)
    assert run_rate["actual"] == 31 * 400
    assert abs(weekly["forecast"] - weekly["actual"]) < 0.05 * weekly["actual"]


def test_a_one_off_spike_is_not_projected_over_the_next_month():
    origin = date(2024, 8, 1)
    values = np.full(260, 100.0)
    values[days_between(FIRST, origin) - 10] = 10_000.0
    found = backtest(history(values), candidates=(RUN_RATE, ETS_WEEKLY))
    run_rate = found.of(RUN_RATE, "month").set_index("origin").loc[origin]
    weekly = found.of(ETS_WEEKLY, "month").set_index("origin").loc[origin]
    # The run rate's level spreads the spike's 9,900 extra over its 28 days, and its rhythm
    # makes the spike's weekday (a Monday, four of them in August 2024) weigh 925/100 as much
    # as the others: (11 Mondays at 100 and the spike) / 12 against 100 on every other day.
    level = 100 + 9_900 / 28
    mean_weekday = (6 * 100 + 925) / 7
    month_factors = (27 * 100 + 4 * 925) / mean_weekday
    assert run_rate["forecast"] == pytest.approx(level * month_factors)
    assert run_rate["forecast"] > 4 * run_rate["actual"]
    assert weekly["forecast"] == pytest.approx(31 * 100, rel=0.02)


def test_a_series_too_short_for_a_yearly_season_has_no_yearly_model():
    short = backtest(history([100.0 + d % 30 for d in range(400)]))
    assert ETS_YEARLY not in set(short.rows["candidate"])
    assert set(short.rows["candidate"]) == {RUN_RATE, SEASONAL_NAIVE, ETS_WEEKLY}
    # With 26 whole months known, the yearly model runs from the origins with 24 behind them.
    longer = backtest(history([100.0 + d % 30 for d in range(800)]))
    yearly = longer.of(ETS_YEARLY, "month")
    assert yearly["origin"].min() == date(2026, 1, 1)


def rows(scores: dict[str, list[float]], actual: float = 100.0) -> pd.DataFrame:
    """Month-ahead rows: each candidate's forecast per origin (NaN: not scored there)."""
    starts = [date(2024, m, 1) for m in range(1, 13)] + [date(2025, m, 1) for m in range(1, 13)]
    found = []
    for candidate, forecasts in scores.items():
        for origin, forecast in zip(starts[-len(forecasts) :], forecasts, strict=True):
            if not np.isnan(forecast):
                found.append(
                    {"candidate": candidate, "horizon": "month", "origin": origin,
                     "end": origin, "forecast": forecast, "actual": actual}
                )  # fmt: skip
    return pd.DataFrame(found)


def test_the_chosen_candidate_has_the_best_month_ahead_error_over_the_last_12_origins():
    chosen = Backtest(
        rows(
            {
                RUN_RATE: [100.0] * 12 + [90.0] * 12,  # exact long ago, 10 % off lately
                SEASONAL_NAIVE: [50.0] * 12 + [95.0] * 12,  # 5 % off lately
                ETS_WEEKLY: [80.0] * 24,
            }
        )
    ).chosen
    assert chosen == SEASONAL_NAIVE


def test_a_candidate_missing_a_recent_origin_is_not_chosen_and_short_backtests_keep_the_run_rate():
    gap = [100.0] * 11 + [np.nan]  # exact, but not scored at the latest origin
    found = Backtest(rows({RUN_RATE: [90.0] * 12, ETS_YEARLY: gap}))
    assert found.chosen == RUN_RATE
    few = Backtest(rows({RUN_RATE: [50.0] * 5, ETS_WEEKLY: [100.0] * 5}))
    assert few.chosen == RUN_RATE
