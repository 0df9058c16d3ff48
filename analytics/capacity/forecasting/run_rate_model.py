"""The run rate, the explainable baseline of the forecasts, and the days a forecast reads.

The run rate is deliberately simple so that it can be explained in a capacity meeting:

* **Level** — the mean daily usage over the last 28 observed days (four whole weeks, so every
  weekday counts equally).
* **Weekday rhythm** — for each weekday, its mean over the last 84 days (twelve weeks) divided by
  the mean of all days in that window; the factors average 1, so they shift usage between
  weekdays without changing the weekly total. The expected usage of a future day is
  ``level × factor[weekday]``.

Only closed days before ``as_of`` are used. It is one of the candidates the backtest chooses
among (``candidates``), named beside the forecast it serves (``outlook``), never a second
answer: every projection reads the one forecast (``outlook``, ``projections``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

import numpy as np
import pandas as pd

from analytics.usage import PERIOD_KINDS, YearStart, all_history_range, period_bounds

LEVEL_DAYS = 28
RHYTHM_DAYS = 84

ORGANIZATION = "Organization"


def forecast_start(as_of: date) -> date:
    """The first day a forecast as of ``as_of`` reads: the five years before it, as far back as
    the organization's whole history reaches (``calendar.all_history_range``). Every surface
    that projects reads from here, so each forecasts from the same days."""
    return all_history_range(as_of, None)[0]


def required_start(as_of: date, year_start: YearStart | None = None) -> date:
    """Earliest day projections at ``as_of`` read: the first period start or the forecast's
    history (``forecast_start``)."""
    firsts = [period_bounds(kind, as_of, year_start)[0] for kind in PERIOD_KINDS]
    return min(*firsts, forecast_start(as_of))


def daily_series(
    key_day: pd.DataFrame, metric: str, api_keys: Iterable[str] | None = None
) -> pd.Series:
    """One metric summed per day (over all keys, or over ``api_keys``), indexed by day."""
    frame = key_day if api_keys is None else key_day[key_day["api_key"].isin(list(api_keys))]
    return frame.groupby("usage_date", observed=True)[metric].sum().astype(float)


def _days(series: pd.Series, first: date, last: date) -> np.ndarray:
    """Values for every day in ``[first, last]``; days without rows count as zero usage."""
    if last < first:
        return np.zeros(0)
    index = pd.date_range(pd.Timestamp(first), pd.Timestamp(last), freq="D")
    return series.reindex(index, fill_value=0.0).to_numpy(dtype=float)


@dataclass(frozen=True)
class RunRate:
    """What the model learned from history before ``as_of``."""

    as_of: date
    level: float  # mean daily usage over the level window
    weekday_factors: tuple[float, ...]  # Monday … Sunday, averaging 1
    history_days: int  # closed days available in the level window

    def expected(self, day: date) -> float:
        return self.level * self.weekday_factors[day.weekday()]


def run_rate(series: pd.Series, as_of: date, covered_from: date) -> RunRate:
    """Learn level, weekday rhythm and weekly spread from closed days in ``[covered_from, as_of)``.

    ``covered_from`` is the first day the data covers: missing days after it are zero usage,
    days before it are unknown and are left out rather than counted as zero.
    """
    first = max(covered_from, as_of - timedelta(days=RHYTHM_DAYS))
    return run_rate_of(_days(series, first, as_of - timedelta(days=1)), first, as_of)


def run_rate_of(values: np.ndarray, first: date, as_of: date) -> RunRate:
    """``run_rate`` of a series given as the usage of each day from ``first``, the first day
    covered (``values[i]`` is the day ``first + i``; days from ``as_of`` on are not read): the
    backtest's candidates read their history this way, without a pandas lookup per origin."""
    end = max(0, (as_of - first).days)
    level_values = values[max(0, end - LEVEL_DAYS) : end]
    level = float(level_values.mean()) if level_values.size else 0.0

    start = max(0, end - RHYTHM_DAYS)
    rhythm_values = values[start:end]
    factors = np.ones(7)
    if rhythm_values.size >= 7 and rhythm_values.mean() > 0:
        weekdays = (np.arange(rhythm_values.size) + (first + timedelta(days=start)).weekday()) % 7
        per_weekday = np.array([rhythm_values[weekdays == w].mean() for w in range(7)])
        factors = per_weekday / per_weekday.mean()
    return RunRate(
        as_of=as_of,
        level=level,
        weekday_factors=tuple(float(f) for f in factors),
        history_days=int(level_values.size),
    )
