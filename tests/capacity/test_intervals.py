"""Intervals from the backtest's errors: their coverage on series of a known distribution, the
rank rule they are read at, and never below zero."""

from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.capacity.accuracy import backtest, ratio_quantiles
from analytics.capacity.candidates import RUN_RATE, SEASONAL_NAIVE, History
from analytics.capacity.outlook import outlook
from analytics.capacity.whatif import WhatIf

FIRST = date(2021, 1, 1)


def test_quantiles_are_read_at_rank_p_times_n_plus_one():
    ratios = [float(r) for r in range(1, 20)]  # 19 ratios: rank p·20
    assert ratio_quantiles(ratios, [0.1, 0.9]).tolist() == [2.0, 18.0]
    assert ratio_quantiles(ratios, [0.025, 0.975]).tolist() == [1.0, 19.0]  # clamped
    assert ratio_quantiles(ratios, [0.125]).tolist() == [2.5]


def test_80_percent_intervals_cover_75_to_85_percent_of_1000_simulated_months():
    """Daily usage drawn independently from one gamma distribution: month totals that the run
    rate forecasts with errors of one distribution, so 80 % of them belong inside."""
    rng = np.random.default_rng(1)
    months: list[pd.DataFrame] = []
    while sum(len(m) for m in months) < 1000:
        values = rng.gamma(shape=4.0, scale=250.0, size=800)  # 26 months
        found = backtest(History(FIRST, values), candidates=(RUN_RATE,))
        months.append(found.of(RUN_RATE, "month").dropna(subset=["low_80"]))
    known = pd.concat(months)
    inside_80 = known["actual"].between(known["low_80"], known["high_80"])
    inside_95 = known["actual"].between(known["low_95"], known["high_95"])
    assert len(known) >= 1000
    assert 0.75 <= inside_80.mean() <= 0.85
    # The 95 % interval reads the extreme ratios of the few known: it covers less than 95 %.
    assert inside_95.mean() > inside_80.mean()


@settings(max_examples=25)
@given(
    st.lists(st.floats(0, 1e7, allow_nan=False), min_size=7, max_size=7),
    st.lists(st.floats(0, 5, allow_nan=False), min_size=300, max_size=300),
)
def test_intervals_are_never_below_zero(week, noise):
    """Any usage (never negative): every backtested bound is at least zero."""
    values = np.tile(week, 43)[:300] * np.asarray(noise)
    rows = backtest(History(FIRST, values), candidates=(RUN_RATE, SEASONAL_NAIVE)).rows
    bounds = rows[["low_80", "high_80", "low_95", "high_95"]]
    assert (bounds.fillna(0) >= 0).all().all()
    assert (rows["forecast"] >= 0).all()


def test_a_forecast_interval_is_the_used_part_plus_the_rest_times_the_backtested_ratios():
    values = np.random.default_rng(3).gamma(4.0, 250.0, size=500)
    series = pd.Series(values, index=pd.date_range(FIRST, periods=500, freq="D"))
    as_of = date(2022, 5, 16)  # the history's last day is 2022-05-15
    found = outlook(series, "total_characters", FIRST, as_of)
    row = found.period("month", WhatIf())
    used = values[-15:].sum()  # 1 … 15 May
    ahead = found.path[:16].sum()  # 16 … 31 May
    ratios = found.backtest.interval_ratios(found.chosen, "month")
    low, high = np.quantile(ratios, [0.1, 0.9], method="weibull")
    assert row["used"] == pytest.approx(used)
    assert row["projected"] == pytest.approx(used + ahead)
    assert row["low_80"] == pytest.approx(used + ahead * low)
    assert row["high_80"] == pytest.approx(used + ahead * high)
    assert row["low_95"] >= used >= 0
