"""The forecasting candidates a series' backtest chooses between, each a daily forecast made
from what was known before an origin day.

* ``run rate`` — the explainable baseline, ``run_rate_model.run_rate`` as the Capacity page has
  always shown it: the last four weeks' mean day, shaped by the weekday rhythm; no growth.
* ``seasonal naive`` — each day is the same weekday 52 weeks earlier (the same time of year),
  once a year of history is known before the origin. It is the yardstick: a model worth its
  keep beats it. Before a year it does not forecast: repeating last week instead, it was
  another model, whose record the choice credited to last year's days (a year into Capital
  Bikeshare's growth, its quarters then ran a third under what came).
* ``seasonal naive, grown`` — the seasonal naive times the change of the last ``GROWTH_DAYS``
  days over the same days a year earlier: the time of year and its holidays as they fell,
  at this year's level. Once a year and 13 weeks are known.
* ``ETS weekly`` — statsmodels' Holt-Winters exponential smoothing (additive damped trend,
  additive weekly season) fitted to the last 16 weeks of the outlier-damped daily series: its
  level adapts to a step change within days, its damped trend carries growth.
* ``ETS yearly`` — the same family fitted to the outlier-damped series' monthly totals with a
  12-month season, once 24 whole months are known: the time of year, and the trend over years.
* ``ETS auto`` — statsmodels' exponential smoothing on the outlier-damped series' weekly totals
  (the last ``AUTO_WEEKS`` weeks, at least ``AUTO_MIN_WEEKS``), its form chosen by the small
  sample information criterion (AICc) among a level alone and a level with a damped trend, as
  automatic ETS does; each week's total is shared out over its days by the weekday rhythm of
  the last 12 weeks. Weekly totals carry no weekday season, so the few forms fit quickly,
  and a week of holidays or a crash moves the level by its own weight only.

The trends fitted on weeks (``ETS weekly``, ``ETS auto``) are held to a damping of at most
``MAX_DAMPING`` a step, the bound automatic ETS sets (R's ``forecast::ets``; statsmodels allows
0.995): a trend fitted on a few volatile weeks, such as a recovery after a crash, then adds at
most ``MAX_DAMPING / (1 - MAX_DAMPING)`` = 49 steps of its slope however far ahead, so over a
quarter or a year the forecast levels off rather than carrying the recovery on. The yearly
model's trend, fitted on years of monthly totals, is the growth over years, and keeps
statsmodels' bound.
* ``combination`` — each day the median of the candidates above but the grown seasonal naive
  (those that could forecast from the origin): a combination of forecasts is hard to beat,
  and the median follows no single candidate far astray (a trend carried past a recovery, a
  year-old level after a key stopped).

The **outlier-damped** series caps each day at ``SPIKE_FACTOR`` times the larger of the median
and the mean of the 28 days before it, so a one-off spike inside the last weeks is not
projected over the next month, while a step change lifts that bound within days and is
followed. It lifts each day, the same way, to the smaller of the two over ``SPIKE_FACTOR``, so
a week of holidays is not read as a new level or a falling trend (on the benchmark's
organization, forecast on 1 January, the automatic model's damped trend had carried the
year's-turn dip down to nothing for the year). A longer dip pulls the floor down as its days
fill the window, as a crash or a stop must, and is followed once they are half of it, within
about two weeks: there the models that know the time of year (``ETS yearly``, ``seasonal
naive``) are the ones that hold. The baselines read the series as it is: they are the
yardstick.

Every candidate forecasts days from the origin on, never below zero; ``None`` when the history
before the origin is too short for it.
"""

from __future__ import annotations

import calendar
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import cached_property
from typing import Final

import numpy as np
import numpy.typing as npt
import pandas as pd

from analytics.capacity.forecasting.run_rate_model import RunRate, run_rate_of

Floats = npt.NDArray[np.float64]

RUN_RATE: Final = "run rate"
SEASONAL_NAIVE: Final = "seasonal naive"
GROWN_NAIVE: Final = "seasonal naive, grown"
ETS_WEEKLY: Final = "ETS weekly"
ETS_YEARLY: Final = "ETS yearly"
ETS_AUTO: Final = "ETS auto"
COMBINATION: Final = "combination"
MEMBERS: Final = (RUN_RATE, SEASONAL_NAIVE, ETS_WEEKLY, ETS_YEARLY, ETS_AUTO)  # combined
CANDIDATES: Final = (*MEMBERS, GROWN_NAIVE, COMBINATION)

SPIKE_FACTOR: Final = 3.0
SPIKE_WINDOW: Final = 28
WEEK: Final = 7
YEAR_WEEKS_DAYS: Final = 364  # 52 weeks: the same weekday a year earlier
MIN_DAYS: Final = 28  # four weeks before an origin: the least any candidate reads
FIT_DAYS: Final = 112  # the weekly model's window: 16 weeks
MAX_DAMPING: Final = 0.98  # a damped trend's largest damping a step: 49 steps of its slope
YEARLY_MONTHS: Final = 24  # two whole years before the yearly season is fitted
TOLERANCES: Final = {"ftol": 1e-6, "xtol": 1e-6, "gtol": 1e-6}  # scipy's least_squares
AUTO_WEEKS: Final = 52  # the automatic model's window of weekly totals
AUTO_MIN_WEEKS: Final = 10  # the fewest statsmodels initializes a trend from
GROWTH_DAYS: Final = 91  # the grown seasonal naive's window: 13 weeks against a year before


@dataclass(frozen=True)
class History:
    """One series' closed days from ``first`` on (days without usage are 0), and what every
    candidate derives from it once, so a backtest over many origins computes it once."""

    first: date
    values: Floats = field(repr=False)
    _rates: dict[int, RunRate] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of(cls, series: pd.Series, first: date, last: date) -> History:
        """The days ``first``–``last`` of a daily series (``run_rate_model.daily_series``)."""
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

    def rate(self, origin: int) -> RunRate:
        """The run rate (``run_rate_model.run_rate``) at the day ``origin``, learnt once: the run
        rate and the automatic model's weekday shares both read it."""
        if origin not in self._rates:
            self._rates[origin] = run_rate_of(self.values, self.first, self.day(origin))
        return self._rates[origin]

    @cached_property
    def damped(self) -> Floats:
        """The outlier-damped series (see the module). Each day's bounds read only the days
        before it, so the series computed once serves every origin."""
        before = pd.Series(self.values).shift(1).rolling(SPIKE_WINDOW, min_periods=WEEK)
        median, mean = before.median().to_numpy(), before.mean().to_numpy()
        cap = SPIKE_FACTOR * np.maximum(median, mean)
        floor = np.minimum(median, mean) / SPIKE_FACTOR
        return np.where(np.isnan(cap), self.values, np.clip(self.values, floor, cap))

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


def _weekday_shares(history: History, origin: int, days: int) -> Floats:
    """The run rate's weekday factors (``run_rate_model.run_rate``) of the ``days`` from the origin,
    each divided by 7: the share of a week's total each day takes."""
    rate = history.rate(origin)
    weekdays = (history.day(origin).weekday() + np.arange(days)) % 7
    shares: Floats = np.asarray(rate.weekday_factors)[weekdays] / WEEK
    return shares


def _run_rate(history: History, origin: int, days: int) -> Floats | None:
    as_of = history.day(origin)
    rate = history.rate(origin)
    # `RunRate.expected` of each day, all days at once: the level times its weekday's factor.
    weekdays = (as_of.weekday() + np.arange(days)) % 7
    expected: Floats = rate.level * np.asarray(rate.weekday_factors)[weekdays]
    return expected


def _seasonal_naive(history: History, origin: int, days: int) -> Floats | None:
    if origin < YEAR_WEEKS_DAYS:
        return None
    ahead = np.arange(days)
    lag = YEAR_WEEKS_DAYS * (ahead // YEAR_WEEKS_DAYS + 1)
    same_days: Floats = history.values[origin + ahead - lag]
    return same_days


def _grown_naive(history: History, origin: int, days: int) -> Floats | None:
    if origin < YEAR_WEEKS_DAYS + GROWTH_DAYS:
        return None
    year_before = origin - YEAR_WEEKS_DAYS
    before = float(history.values[year_before - GROWTH_DAYS : year_before].sum())
    if before <= 0:
        return None  # nothing used a year before: the change is unknown
    recent = float(history.values[origin - GROWTH_DAYS : origin].sum())
    same_days = _seasonal_naive(history, origin, days)
    assert same_days is not None  # a year is known
    grown: Floats = same_days * (recent / before)
    return grown


def _holt_winters(
    values: Floats, steps: int, *, season: int | None, trend: bool, capped: bool = True
) -> tuple[Floats, float]:
    """``steps`` values ahead of statsmodels' exponential smoothing fitted to ``values`` (an
    additive damped trend when ``trend``, its damping at most ``MAX_DAMPING`` when ``capped``;
    an additive season of ``season`` when given), never below zero, and the fit's AICc: the
    one model fitting, statsmodels'. A constant series (a key that never ran) is its constant:
    there is nothing to fit."""
    if np.ptp(values) == 0:
        constant: Floats = np.full(steps, values[-1])
        return constant, float("-inf")
    # Imported here, not with the module: statsmodels (and scipy) take over a second to import,
    # which every command of the command line would otherwise pay, fitting or not.
    from statsmodels.tsa.holtwinters import ExponentialSmoothing

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence notes: the backtest judges the fit
        model = ExponentialSmoothing(
            values,
            trend="add" if trend else None,
            damped_trend=trend,
            seasonal="add" if season else None,
            seasonal_periods=season,
            initialization_method="heuristic",
            bounds={"damping_trend": (0.8, MAX_DAMPING)} if trend and capped else None,
        )
        # The same least-squares fit as the default minimizer's, by scipy's least_squares:
        # the same forecasts, in a sixth of the time (the backtest fits every origin). Its
        # tolerances of 1e-6 rather than 1e-8 move no 12-month forecast of the benchmark's
        # organization by 0.2 %, and save a fifth of the fitting.
        fitted = model.fit(
            use_brute=False, method="least_squares", minimize_kwargs=dict(TOLERANCES)
        )
        ahead: Floats = np.maximum(np.asarray(fitted.forecast(steps), dtype=float), 0.0)
    return ahead, float(fitted.aicc)


def _ets_weekly(history: History, origin: int, days: int) -> Floats | None:
    window = history.damped[max(0, origin - FIT_DAYS) : origin]
    return _holt_winters(window, days, season=WEEK, trend=True)[0]


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
    known_totals = totals[known[0] : known[-1] + 1]
    months = _holt_winters(known_totals, steps, season=12, trend=True, capped=False)[0]
    daily = np.empty(days)
    for d in range(days):
        day = as_of + timedelta(days=d)
        step = (day.year - last_known.year) * 12 + day.month - last_known.month
        daily[d] = months[step - 1] / _month_end(day).day
    return daily


def _ets_auto(history: History, origin: int, days: int) -> Floats | None:
    """Weekly totals ahead from the form with the lowest AICc, shared out over their days."""
    weeks = min(AUTO_WEEKS, origin // WEEK)
    if weeks < AUTO_MIN_WEEKS:
        return None
    totals = history.damped[origin - WEEK * weeks : origin].reshape(weeks, WEEK).sum(axis=1)
    steps = -(-days // WEEK)
    fits = [_holt_winters(totals, steps, season=None, trend=trend) for trend in (False, True)]
    ahead = min(fits, key=lambda fit: fit[1])[0]
    daily: Floats = np.repeat(ahead, WEEK)[:days] * _weekday_shares(history, origin, days)
    return daily


def _month_end(day: date) -> date:
    return day.replace(day=calendar.monthrange(day.year, day.month)[1])


PREDICTORS: Final[dict[str, Callable[[History, int, int], Floats | None]]] = {
    RUN_RATE: _run_rate,
    SEASONAL_NAIVE: _seasonal_naive,
    GROWN_NAIVE: _grown_naive,
    ETS_WEEKLY: _ets_weekly,
    ETS_YEARLY: _ets_yearly,
    ETS_AUTO: _ets_auto,
}


def predict_all(
    history: History, origin: int, days: int, candidates: Iterable[str] = CANDIDATES
) -> dict[str, Floats]:
    """The ``days`` daily values each of ``candidates`` forecasts from the day ``origin`` (an
    index of ``history``) on, from the days before it; a candidate is left out when fewer
    than ``MIN_DAYS`` are known or it needs more. The combination is the median of the
    members that could forecast, computed from their forecasts: each is fitted once."""
    wanted = tuple(candidates)
    if origin < MIN_DAYS:
        return {}
    needed = dict.fromkeys((*MEMBERS, *wanted) if COMBINATION in wanted else wanted)
    found = {
        c: path
        for c in needed
        if c in PREDICTORS and (path := PREDICTORS[c](history, origin, days)) is not None
    }
    members = [found[c] for c in MEMBERS if c in found]
    if COMBINATION in wanted and members:
        found[COMBINATION] = np.median(np.vstack(members), axis=0)
    return {c: found[c] for c in wanted if c in found}


def predict(candidate: str, history: History, origin: int, days: int) -> Floats | None:
    """The ``days`` daily values ``candidate`` forecasts from the day ``origin`` (an index of
    ``history``) on, from the days before it; None when fewer than ``MIN_DAYS`` are known or
    the candidate needs more."""
    return predict_all(history, origin, days, (candidate,)).get(candidate)
