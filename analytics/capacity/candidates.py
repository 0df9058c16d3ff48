"""The forecasting candidates a series' backtest chooses between, each a daily forecast made
from what was known before an origin day.

* ``run rate`` — the explainable baseline, ``forecast.run_rate`` as the Capacity page has
  always shown it: the last four weeks' mean day, shaped by the weekday rhythm; no growth.
* ``seasonal naive`` — each day is the same weekday 52 weeks earlier (the same time of year)
  when a year of history is known before the origin, else the same weekday of the last week.
  It is the yardstick: a model worth its keep beats it.
* ``ETS weekly`` — statsmodels' Holt-Winters exponential smoothing (additive damped trend,
  additive weekly season) fitted to the last 16 weeks of the spike-damped daily series: its
  level adapts to a step change within days, its damped trend carries growth.
* ``ETS yearly`` — the same family fitted to the spike-damped series' monthly totals with a
  12-month season, once 24 whole months are known: the time of year, and the trend over years.

The **spike-damped** series caps each day at ``SPIKE_FACTOR`` times the larger of the median
and the mean of the 28 days before it, so a one-off spike inside the last weeks is not
projected over the next month, while a step change lifts that bound within days and is
followed. The baselines read the series as it is: they are the yardstick.

Every candidate forecasts days from the origin on, never below zero; ``None`` when the history
before the origin is too short for it.
"""

from __future__ import annotations

import calendar
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import cached_property
from typing import Final

import numpy as np
import numpy.typing as npt
import pandas as pd

from analytics.capacity.forecast import run_rate

Floats = npt.NDArray[np.float64]

RUN_RATE: Final = "run rate"
SEASONAL_NAIVE: Final = "seasonal naive"
ETS_WEEKLY: Final = "ETS weekly"
ETS_YEARLY: Final = "ETS yearly"
CANDIDATES: Final = (RUN_RATE, SEASONAL_NAIVE, ETS_WEEKLY, ETS_YEARLY)

SPIKE_FACTOR: Final = 3.0
SPIKE_WINDOW: Final = 28
WEEK: Final = 7
YEAR_WEEKS_DAYS: Final = 364  # 52 weeks: the same weekday a year earlier
MIN_DAYS: Final = 28  # four weeks before an origin: the least any candidate reads
FIT_DAYS: Final = 112  # the weekly model's window: 16 weeks
YEARLY_MONTHS: Final = 24  # two whole years before the yearly season is fitted


@dataclass(frozen=True)
class History:
    """One series' closed days from ``first`` on (days without usage are 0), and what every
    candidate derives from it once, so a backtest over many origins computes it once."""

    first: date
    values: Floats = field(repr=False)

    @classmethod
    def of(cls, series: pd.Series, first: date, last: date) -> History:
        """The days ``first``–``last`` of a daily series (``forecast.daily_series``)."""
        days = pd.date_range(pd.Timestamp(first), pd.Timestamp(last), freq="D")
        values = series.reindex(days, fill_value=0.0).to_numpy(dtype=float)
        return cls(first, values)

    @property
    def last(self) -> date:
        return self.day(len(self.values) - 1)

    def day(self, index: int) -> date:
        return self.first + timedelta(days=index)

    def index(self, day: date) -> int:
        return (day - self.first).days

    @cached_property
    def series(self) -> pd.Series:
        """The values indexed by day, as ``forecast.run_rate`` reads them."""
        days = pd.date_range(pd.Timestamp(self.first), periods=len(self.values), freq="D")
        return pd.Series(self.values, index=days)

    @cached_property
    def damped(self) -> Floats:
        """The spike-damped series (see the module). Each day's cap reads only the days
        before it, so the series computed once serves every origin."""
        before = pd.Series(self.values).shift(1).rolling(SPIKE_WINDOW, min_periods=WEEK)
        cap = SPIKE_FACTOR * np.maximum(before.median().to_numpy(), before.mean().to_numpy())
        return np.where(np.isnan(cap), self.values, np.minimum(self.values, cap))

    @cached_property
    def months(self) -> tuple[tuple[date, ...], Floats]:
        """The first day of each whole month the history covers, and the damped series'
        total of each."""
        starts = pd.date_range(pd.Timestamp(self.first), pd.Timestamp(self.last), freq="MS")
        firsts = tuple(d.date() for d in starts)
        if not firsts:
            return (), np.zeros(0)
        offsets = [self.index(d) for d in firsts]
        totals = np.add.reduceat(self.damped, offsets)
        return firsts, totals


def _run_rate(history: History, origin: int, days: int) -> Floats | None:
    as_of = history.day(origin)
    rate = run_rate(history.series, as_of, history.first)
    # `RunRate.expected` of each day, all days at once: the level times its weekday's factor.
    weekdays = (as_of.weekday() + np.arange(days)) % 7
    expected: Floats = rate.level * np.asarray(rate.weekday_factors)[weekdays]
    return expected


def _seasonal_naive(history: History, origin: int, days: int) -> Floats | None:
    ahead = np.arange(days)
    if origin >= YEAR_WEEKS_DAYS:
        lag = YEAR_WEEKS_DAYS * (ahead // YEAR_WEEKS_DAYS + 1)
    else:
        lag = WEEK * (ahead // WEEK + 1)
    same_days: Floats = history.values[origin + ahead - lag]
    return same_days


def _smoothed(values: Floats, season: int, steps: int) -> Floats:
    """``steps`` values ahead of Holt-Winters fitted to ``values`` (additive damped trend,
    additive season of ``season``), never below zero: the one model fitting, statsmodels'.
    A constant series (a key that never ran) is its constant: there is nothing to fit."""
    if np.ptp(values) == 0:
        constant: Floats = np.full(steps, values[-1])
        return constant
    # Imported here, not with the module: statsmodels (and scipy) take over a second to import,
    # which every command of the command line would otherwise pay, fitting or not.
    from statsmodels.tsa.holtwinters import ExponentialSmoothing

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence notes: the backtest judges the fit
        model = ExponentialSmoothing(
            values,
            trend="add",
            damped_trend=True,
            seasonal="add",
            seasonal_periods=season,
            initialization_method="heuristic",
        )
        # The same least-squares fit as the default minimizer's, by scipy's least_squares:
        # the same forecasts, in a sixth of the time (the backtest fits every origin).
        fitted = model.fit(use_brute=False, method="least_squares")
        ahead: Floats = np.maximum(np.asarray(fitted.forecast(steps), dtype=float), 0.0)
    return ahead


def _ets_weekly(history: History, origin: int, days: int) -> Floats | None:
    return _smoothed(history.damped[max(0, origin - FIT_DAYS) : origin], WEEK, days)


def _ets_yearly(history: History, origin: int, days: int) -> Floats | None:
    """Monthly totals ahead, each spread evenly over its days; the origin's own month, when
    the origin is inside it, contributes its remaining days' share."""
    firsts, totals = history.months
    as_of = history.day(origin)
    known = [i for i, first in enumerate(firsts) if _month_end(first) < as_of]
    if len(known) < YEARLY_MONTHS:
        return None
    last_known = firsts[known[-1]]
    end = as_of + timedelta(days=days - 1)
    steps = (end.year - last_known.year) * 12 + end.month - last_known.month
    months = _smoothed(totals[known[0] : known[-1] + 1], 12, steps)
    daily = np.empty(days)
    for d in range(days):
        day = as_of + timedelta(days=d)
        step = (day.year - last_known.year) * 12 + day.month - last_known.month
        daily[d] = months[step - 1] / _month_end(day).day
    return daily


def _month_end(day: date) -> date:
    return day.replace(day=calendar.monthrange(day.year, day.month)[1])


PREDICTORS: Final[dict[str, Callable[[History, int, int], Floats | None]]] = {
    RUN_RATE: _run_rate,
    SEASONAL_NAIVE: _seasonal_naive,
    ETS_WEEKLY: _ets_weekly,
    ETS_YEARLY: _ets_yearly,
}


def predict(candidate: str, history: History, origin: int, days: int) -> Floats | None:
    """The ``days`` daily values ``candidate`` forecasts from the day ``origin`` (an index of
    ``history``) on, from the days before it; None when fewer than ``MIN_DAYS`` are known or
    the candidate needs more."""
    if origin < MIN_DAYS:
        return None
    return PREDICTORS[candidate](history, origin, days)
