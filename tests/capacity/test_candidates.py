"""The robust candidates on hand-made series: a crash and a recovery, a combination that is
the median of the others, automatic exponential smoothing choosing its form, and trends that
level off over long horizons."""

from __future__ import annotations

from datetime import date

import numpy as np
import pytest

from analytics.capacity.forecasting.backtesting import backtest
from analytics.capacity.forecasting.candidates import (
    CANDIDATES,
    COMBINATION,
    ETS_AUTO,
    ETS_WEEKLY,
    MAX_DAMPING,
    MEMBERS,
    SEASONAL_NAIVE,
    History,
    predict_all,
)

FIRST = date(2023, 1, 2)  # a Monday
WEEKDAYS = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 0.3, 0.3])


def crash_and_recovery() -> History:
    """Three years of a weekday rhythm at 1,000 a weekday with 10 % noise; on 13 March 2025 it
    falls to 5 % for four weeks, then climbs back to its level over the three weeks to 1 May."""
    days = np.arange(3 * 365)
    crash = (date(2025, 3, 13) - FIRST).days
    since = days - crash
    level = np.where(since < 28, 0.05, np.minimum(1.0, 0.05 + 0.95 * (since - 28) / 21))
    share = np.where(since < 0, 1.0, level)
    noise = np.random.default_rng(7).lognormal(0.0, 0.1, days.size)
    return History(FIRST, 1000.0 * WEEKDAYS[days % 7] * share * noise)


def carried_trend(history: History, origin: int) -> float:
    """The quarter a trend carried on would forecast: the last week's total, growing each week
    by the last three weeks' mean weekly change, for 13 weeks (no model: the yardstick this
    series is hard for)."""
    weeks = history.values[origin - 28 : origin].reshape(4, 7).sum(axis=1)
    slope = (weeks[-1] - weeks[0]) / 3
    return float(sum(weeks[-1] + slope * w for w in range(1, 14)))


def test_after_a_crash_and_a_recovery_no_quarter_is_forecast_twice_what_came():
    """Where the same days a year earlier come within 50 % of the quarter that followed (the
    quarters after the crash and its recovery), no candidate, and not the forecast served,
    forecasts more than twice what came; a trend carried from the recovery would."""
    history = crash_and_recovery()
    found = backtest(history, 14)
    quarter = found.rows[found.rows["horizon"] == "quarter"]
    naive = quarter[quarter["candidate"] == SEASONAL_NAIVE].set_index("origin")
    calm = naive.index[(naive["raw"] / naive["actual"] - 1).abs() <= 0.5]
    checked = quarter[quarter["origin"].isin(calm)]
    assert {date(2025, 4, 1), date(2025, 5, 1), date(2025, 6, 1)} <= set(calm)
    assert set(checked["candidate"]) == set(CANDIDATES)
    assert (checked["raw"] <= 2 * checked["actual"]).all()
    served = found.served[found.served["horizon"] == "quarter"]
    served = served[served["origin"].isin(calm)]
    assert (served["forecast"] <= 2 * served["actual"]).all()
    # The series can fail the bound: carried from the recovery's last weeks, a trend
    # forecasts the quarter from 1 May more than twice over.
    may = date(2025, 5, 1)
    assert carried_trend(history, history.index(may)) > 2 * naive.loc[may, "actual"]


def test_the_combination_is_each_days_median_of_the_other_candidates():
    history = crash_and_recovery()
    origin = history.index(date(2025, 7, 1))
    found = predict_all(history, origin, 120)
    assert set(found) == set(CANDIDATES)
    members = np.vstack([found[c] for c in MEMBERS])
    assert found[COMBINATION] == pytest.approx(np.median(members, axis=0))
    # Four weeks in, only the candidates that can forecast from four weeks are combined: the
    # seasonal naive waits for a year of days to read.
    early = predict_all(history, 28, 30)
    assert set(early) == {"run rate", ETS_WEEKLY, COMBINATION}
    assert early[COMBINATION] == pytest.approx(
        np.median(np.vstack([early["run rate"], early[ETS_WEEKLY]]), axis=0)
    )
    assert SEASONAL_NAIVE not in predict_all(history, 363, 30)
    assert SEASONAL_NAIVE in predict_all(history, 364, 30)


def test_automatic_ets_follows_a_trend_and_stays_level_on_a_flat_series():
    """Weekly totals growing by 70 a week are carried on by the damped trend the information
    criterion picks; noise around a level is forecast at the level, not extrapolated."""
    days = np.arange(400)
    rhythm = WEEKDAYS[days % 7]
    growing = History(FIRST, (1000.0 + 10.0 * days) * rhythm)
    ahead = predict_all(growing, 399, 28, [ETS_AUTO])[ETS_AUTO]
    last_week = growing.values[392:399].sum()
    assert ahead[:7].sum() > last_week + 35  # at least half a week's growth carried on
    noise = np.random.default_rng(3).normal(0.0, 50.0, days.size)
    flat = History(FIRST, (1000.0 + noise) * rhythm)
    level = predict_all(flat, 399, 28, [ETS_AUTO])[ETS_AUTO]
    assert level[:7].sum() == pytest.approx(
        flat.values[35:399].reshape(52, 7).sum(1).mean(), rel=0.03
    )


def test_a_trend_fitted_on_weeks_adds_at_most_49_steps_of_its_slope_however_far_ahead():
    """A steady climb of 10 a day up to the origin: over the three years a term may reach,
    the weekly model's days and the automatic model's weeks level off within 49 steps of their
    slope (statsmodels' own bound, a damping of 0.995, would let them climb 199 steps)."""
    days = np.arange(400)
    climbing = History(FIRST, 1000.0 + 10.0 * days)
    found = predict_all(climbing, 400, 3 * 364, [ETS_WEEKLY, ETS_AUTO])
    steps = MAX_DAMPING / (1 - MAX_DAMPING)
    assert steps == pytest.approx(49)
    last_day, last_week = climbing.values[-1], climbing.values[-7:].sum()
    assert found[ETS_WEEKLY].max() <= last_day + 10.0 * (steps + 7)
    weeks = found[ETS_AUTO].reshape(3 * 52, 7).sum(axis=1)
    assert weeks.max() <= last_week + 490.0 * (steps + 1)  # 490 more each week
    # Still rising a year on: the damped trend carries growth, it does not drop it.
    assert found[ETS_WEEKLY][364] > last_day + 10.0 * 30


def test_a_week_of_holidays_is_not_carried_over_the_year():
    """Forty steady years (1,000 a weekday, 10 % noise), each ending in 3 to 7 days of
    holidays that kept up to 30 % of it: the models fitted on the damped series forecast the
    next 12 months at 72 % of a steady year or more in the median year (undamped, the weekly
    model read the holidays as a falling trend: 58 %)."""
    steady_year = 1000.0 * WEEKDAYS.sum() * 52
    found: dict[str, list[float]] = {ETS_WEEKLY: [], ETS_AUTO: []}
    days = np.arange(2 * 364)
    for seed in range(40):
        rng = np.random.default_rng(seed)
        holidays, kept = int(rng.integers(3, 8)), float(rng.uniform(0.0, 0.3))
        values = 1000.0 * WEEKDAYS[days % 7] * rng.lognormal(0.0, 0.1, days.size)
        values[-holidays:] *= kept
        for name, path in predict_all(History(FIRST, values), days.size, 364, found).items():
            found[name].append(path.sum() / steady_year)
    assert {name: np.median(shares) >= 0.72 for name, shares in found.items()} == {
        ETS_WEEKLY: True,
        ETS_AUTO: True,
    }


def test_a_stop_is_followed_within_weeks():
    """A key used at 1,000 a weekday stops for good 21 days before the origin: the models on
    the damped series forecast the next month below a tenth of a month at its old level."""
    days = np.arange(400)
    values = np.where(days < 379, 1000.0 * WEEKDAYS[days % 7], 0.0)
    found = predict_all(History(FIRST, values), 400, 28, [ETS_WEEKLY, ETS_AUTO])
    month = 1000.0 * WEEKDAYS.sum() * 4
    assert {name: path.sum() < month / 10 for name, path in found.items()} == dict.fromkeys(
        found, True
    )
