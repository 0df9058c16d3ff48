"""Intervals from the backtest's errors: their coverage at each horizon on series of a known
distribution, the rank rule they are read at, never below zero, and every point forecast
inside its own 80 % interval."""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.capacity.forecasting.accuracy import accuracy
from analytics.capacity.forecasting.backtesting import (
    HORIZONS,
    MIN_ERRORS,
    backtest,
    interval_shares,
    ratio_quantiles,
)
from analytics.capacity.forecasting.candidates import RUN_RATE, SEASONAL_NAIVE, History
from analytics.capacity.forecasting.outlook import PERIODS, outlook
from analytics.capacity.forecasting.whatif import WhatIf, Workload
from analytics.usage.metrics import TOTAL_CHARACTERS

FIRST = date(2021, 1, 1)
CHEAP = (RUN_RATE, SEASONAL_NAIVE)


def test_quantiles_are_read_at_rank_p_times_n_plus_one():
    ratios = [float(r) for r in range(1, 20)]  # 19 ratios: rank p·20
    assert ratio_quantiles(ratios, [0.1, 0.9]).tolist() == [2.0, 18.0]
    assert ratio_quantiles(ratios, [0.025, 0.975]).tolist() == [1.0, 19.0]  # clamped
    assert ratio_quantiles(ratios, [0.125]).tolist() == [2.5]
    assert ratio_quantiles(ratios, [0.5]).tolist() == [10.0]  # the point's: the median


@given(st.lists(st.floats(0.05, 20.0), min_size=MIN_ERRORS, max_size=40))
@settings(max_examples=60, deadline=None)
def test_an_error_read_both_ways_makes_the_same_interval_as_its_inverse(ratios):
    """Past totals 30 % under their forecasts give the interval that totals 30 % over would:
    an error's size is read, not its direction; and a forecast's interval holds it."""
    shares = interval_shares(ratios)
    assert shares == pytest.approx(interval_shares([1 / r for r in ratios]))
    assert shares[0] == 1.0
    assert (shares[1::2] <= 1.0).all() and (shares[2::2] >= 1.0).all()


def test_a_stop_is_read_once_and_never_makes_a_bound_below_zero():
    """A total of zero (nothing used) has no inverse: it counts once, at the low end."""
    shares = interval_shares([0.0] * 5 + [1.0] * 15)
    low_80, high_80 = shares[1], shares[2]
    assert low_80 == 0.0 and high_80 == 1.0


def test_80_percent_intervals_cover_75_to_85_percent_at_every_horizon_of_simulated_series():
    """Daily usage drawn independently from one gamma distribution over five years, forecast by
    the run rate: totals forecast with errors of one distribution at each horizon, each from
    four weeks of its own, so 80 % of them belong inside. Counted: the served forecast's totals
    whose interval read at least nine errors of its own horizon (every month start of the five
    years is an origin). (A forecast read from a year of days, the seasonal naive's, makes
    12-month errors that overlap from one origin to the next: its intervals hold fewer; the
    backtest measures how many.)"""
    rng = np.random.default_rng(1)
    known: dict[str, list[pd.DataFrame]] = {horizon: [] for horizon in HORIZONS}
    while sum(len(rows) for rows in known["12 months"]) < 600:
        values = rng.gamma(4.0, 250.0, size=1826)
        found = backtest(History(FIRST, values), 57, (RUN_RATE,))
        served = found.served
        own = [
            len(found.ratios(c, h, o)) >= MIN_ERRORS
            for c, h, o in zip(
                served["candidate"], served["horizon"], served["origin"], strict=True
            )
        ]
        for horizon in HORIZONS:
            known[horizon].append(served[np.array(own) & (served["horizon"] == horizon)])
    for horizon, parts in known.items():
        rows = pd.concat(parts)
        inside = rows["actual"].between(rows["low_80"], rows["high_80"])
        assert len(rows) >= 600, horizon
        assert 0.75 <= inside.mean() <= 0.85, (horizon, inside.mean())
        # The 95 % interval reads the extreme ratios of the few known: it covers less than
        # 95 %, but more than the 80 % one.
        assert rows["actual"].between(rows["low_95"], rows["high_95"]).mean() > inside.mean()


def test_the_measured_coverage_is_the_served_forecasts_at_each_horizon_over_its_last_12():
    values = np.random.default_rng(2).gamma(4.0, 250.0, size=1100)
    found = backtest(History(FIRST, values), candidates=CHEAP)
    measured = accuracy(found).coverage
    assert set(measured) == set(HORIZONS)
    for horizon, (c80, c95) in measured.items():
        last = found.served[found.served["horizon"] == horizon].tail(12).dropna(subset=["low_80"])
        assert c80 == pytest.approx(last["actual"].between(last["low_80"], last["high_80"]).mean())
        assert c95 >= c80


@settings(max_examples=25)
@given(
    st.lists(st.floats(0, 1e7, allow_nan=False), min_size=7, max_size=7),
    st.lists(st.floats(0, 5, allow_nan=False), min_size=300, max_size=300),
)
def test_intervals_are_never_below_zero(week, noise):
    """Any usage (never negative): every backtested bound is at least zero."""
    values = np.tile(week, 43)[:300] * np.asarray(noise)
    rows = backtest(History(FIRST, values), candidates=CHEAP).rows
    bounds = rows[["low_80", "high_80", "low_95", "high_95"]]
    assert (bounds.fillna(0) >= 0).all().all()
    assert (rows[["raw", "forecast"]] >= 0).all().all()


@settings(max_examples=30)
@given(
    week=st.lists(st.floats(0, 1e6, allow_nan=False), min_size=7, max_size=7),
    noise=st.lists(st.floats(0, 3, allow_nan=False), min_size=20, max_size=20),
    steps=st.lists(st.floats(0, 4, allow_nan=False), min_size=1, max_size=4),
    days=st.integers(35, 500),
    growth=st.sampled_from([0.0, 0.25, -0.5]),
)
def test_every_point_forecast_lies_inside_its_own_80_percent_interval(
    week, noise, steps, days, growth
):
    """Whatever the series (a weekly rhythm, noise, level steps; a key that stops is a step to
    zero) and the what-ifs: every backtested point and every period's projection lies inside
    its own 80 % interval, when it has one (the interval and the point read the same errors)."""
    level = np.repeat(steps, -(-days // len(steps)))[:days]
    values = np.tile(week, days // 7 + 1)[:days] * np.resize(noise, days) * level
    as_of = FIRST + timedelta(days=days)
    series = pd.Series(values, index=pd.date_range(FIRST, periods=days, freq="D"))
    found = outlook(series, TOTAL_CHARACTERS, FIRST, as_of, CHEAP)
    rows = found.backtest.rows.dropna(subset=["low_80"])
    assert (rows["low_80"] <= rows["forecast"] * (1 + 1e-9)).all()
    assert (rows["forecast"] <= rows["high_80"] * (1 + 1e-9)).all()
    plan = WhatIf(growth, (Workload(TOTAL_CHARACTERS, 1000.0, None),))
    for kind in PERIODS:
        row = found.period(kind, plan)
        if not np.isnan(row["low_80"]):
            assert row["low_80"] <= row["projected"] * (1 + 1e-9) + 1e-6
            assert row["projected"] <= row["high_80"] * (1 + 1e-9) + 1e-6


def test_a_forecast_is_the_used_part_plus_the_rest_within_the_backtested_ratios():
    """The projection is the used part plus the serving model's forecast of the remaining
    days; its bounds that forecast times the 10th and 90th percentiles of the ratios, each
    read both ways (r and 1 ÷ r), widened to hold the projection."""
    values = np.random.default_rng(3).gamma(4.0, 250.0, size=500)
    series = pd.Series(values, index=pd.date_range(FIRST, periods=500, freq="D"))
    as_of = date(2022, 5, 16)  # the history's last day is 2022-05-15
    found = outlook(series, TOTAL_CHARACTERS, FIRST, as_of, CHEAP)
    row = found.period("month", WhatIf())
    used = values[-15:].sum()  # 1 … 15 May
    model = found.models["month"]
    ahead = found.paths[model][:16].sum()  # 16 … 31 May
    ratios = found.backtest.interval_ratios("month")
    both = [*ratios, *(1 / r for r in ratios if r > 0)]
    low, high = np.quantile(both, [0.1, 0.9], method="weibull")
    assert row["model"] == model
    assert row["used"] == pytest.approx(used)
    assert row["projected"] == pytest.approx(used + ahead)
    assert row["low_80"] == pytest.approx(used + ahead * min(low, 1.0))
    assert row["high_80"] == pytest.approx(used + ahead * max(high, 1.0))
    assert row["low_80"] <= row["projected"] <= row["high_80"]
    assert row["low_95"] >= used >= 0
    assert row["month_wape"] == pytest.approx(found.accuracy.wape)
