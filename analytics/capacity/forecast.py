"""Run-rate forecasts of usage to the end of the month, quarter and contract year.

The model is deliberately simple so that it can be explained in a capacity meeting:

* **Level** — the mean daily usage over the last 28 observed days (four whole weeks, so every
  weekday counts equally).
* **Weekday rhythm** — for each weekday, its mean over the last 84 days (twelve weeks) divided by
  the mean of all days in that window; the factors average 1, so they shift usage between
  weekdays without changing the weekly total. The expected usage of a future day is
  ``level × factor[weekday]``.
* **Uncertainty band** — the standard deviation of the last twelve 7-day totals (blocks ending
  the day before the forecast) is taken as the plausible error of one week's usage. A run-rate
  error tends to persist rather than cancel out, so the band grows linearly with the horizon:
  ``± spread × remaining_days / 7``, and its low side never drops below what is already used.
  With fewer than two whole weeks of history the spread is unknown and the band is set to
  ± one mean week per week ahead.

Only closed days before ``as_of`` are used; usage on and after ``as_of`` is forecast.
Growth is not extrapolated: the backtest (``backtest``) measures what that costs.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

import numpy as np
import pandas as pd

from analytics.usage.calendar import PERIOD_KINDS, PeriodKind, YearStart, period_bounds
from analytics.usage.frames import labels
from analytics.usage.metrics import METRICS

LEVEL_DAYS = 28
RHYTHM_DAYS = 84
SPREAD_WEEKS = 12

ORGANIZATION = "Organization"


def required_start(as_of: date, year_start: YearStart | None = None) -> date:
    """Earliest day forecasts at ``as_of`` read: the first period start or the rhythm window."""
    firsts = [period_bounds(kind, as_of, year_start)[0] for kind in PERIOD_KINDS]
    return min(*firsts, as_of - timedelta(days=RHYTHM_DAYS))


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
    weekly_spread: float  # standard deviation of 7-day totals
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

    whole_weeks = min(SPREAD_WEEKS, rhythm_values.size // 7)
    if whole_weeks >= 2:
        recent = rhythm_values[rhythm_values.size - 7 * whole_weeks :]
        spread = float(recent.reshape(whole_weeks, 7).sum(axis=1).std(ddof=1))
    else:
        spread = 7 * level
    return RunRate(
        as_of=as_of,
        level=level,
        weekday_factors=tuple(float(f) for f in factors),
        weekly_spread=spread,
        history_days=int(level_values.size),
    )


def projection_path(
    series: pd.Series, start: date, end: date, rate: RunRate, covered_from: date
) -> pd.DataFrame:
    """Cumulative usage over ``[start, end]``: actual before ``rate.as_of``, then expected.

    Columns: ``day`` (datetime64), ``actual`` (cumulative, NaN from ``as_of`` on), ``expected``,
    ``low``, ``high`` (cumulative; equal to ``actual`` on closed days).
    """
    as_of = rate.as_of
    days = pd.date_range(pd.Timestamp(start), pd.Timestamp(end), freq="D")
    closed_until = min(end, as_of - timedelta(days=1))
    observed = _days(series, max(start, covered_from), closed_until)
    n_closed = max(0, (closed_until - start).days + 1)
    daily = np.zeros(len(days))
    daily[n_closed - observed.size : n_closed] = observed
    future = [d.date() >= as_of for d in days]
    daily[future] = [rate.expected(d.date()) for d in days[future]]
    expected = daily.cumsum()
    used = expected[n_closed - 1] if n_closed else 0.0
    ahead = np.maximum(0, np.arange(1, len(days) + 1) - n_closed)
    half_width = rate.weekly_spread * ahead / 7
    actual = np.where(ahead == 0, expected, np.nan)
    return pd.DataFrame(
        {
            "day": days,
            "actual": actual,
            "expected": expected,
            "low": np.maximum(expected - half_width, used),
            "high": expected + half_width,
        }
    )


@dataclass(frozen=True)
class Forecast:
    """One metric's forecast for one period."""

    metric: str
    period: PeriodKind
    start: date
    end: date
    as_of: date
    actual: float  # used on closed days of the period before ``as_of``
    projected: float
    low: float
    high: float
    daily_rate: float


def forecast(
    series: pd.Series,
    metric: str,
    kind: PeriodKind,
    as_of: date,
    covered_from: date,
    year_start: YearStart | None = None,
) -> Forecast:
    """Forecast the period of ``kind`` holding ``as_of`` to its last day."""
    start, end = period_bounds(kind, as_of, year_start)
    rate = run_rate(series, as_of, covered_from)
    path = projection_path(series, start, end, rate, covered_from)
    closed = path["actual"].dropna()
    last = path.iloc[-1]
    return Forecast(
        metric=metric,
        period=kind,
        start=start,
        end=end,
        as_of=as_of,
        actual=float(closed.iloc[-1]) if len(closed) else 0.0,
        projected=float(last["expected"]),
        low=float(last["low"]),
        high=float(last["high"]),
        daily_rate=rate.level,
    )


def forecast_table(
    key_day: pd.DataFrame,
    as_of: date,
    covered_from: date,
    *,
    year_start: YearStart | None = None,
    metrics: Iterable[str] = METRICS,
    by_key: bool = False,
) -> pd.DataFrame:
    """Forecasts for the organization (and each key when ``by_key``), every metric and period.

    Columns: ``api_key``, ``api_key_label`` (``Organization`` for the org row), ``metric``,
    ``period``, ``start``, ``end``, ``actual``, ``projected``, ``low``, ``high``, ``daily_rate``.
    """
    scopes: list[tuple[str, str, pd.DataFrame]] = [(ORGANIZATION, ORGANIZATION, key_day)]
    if by_key:
        names = labels(key_day)
        for api_key, part in key_day.groupby("api_key", observed=True):
            scopes.append((str(api_key), names[str(api_key)], part))
    rows = []
    for api_key, label, part in scopes:
        for metric in metrics:
            series = daily_series(part, metric)
            for kind in PERIOD_KINDS:
                result = forecast(series, metric, kind, as_of, covered_from, year_start)
                rows.append({"api_key": api_key, "api_key_label": label, **vars(result)})
    return pd.DataFrame(rows)


def key_forecasts(
    key_day: pd.DataFrame,
    as_of: date,
    covered_from: date,
    *,
    year_start: YearStart | None = None,
    metric: str = "total_characters",
    kind: PeriodKind = "month",
) -> pd.DataFrame:
    """One metric's forecast for one period per key, largest projection first."""
    table = forecast_table(
        key_day, as_of, covered_from, year_start=year_start, metrics=[metric], by_key=True
    )
    table = table[(table["period"] == kind) & (table["api_key"] != ORGANIZATION)]
    return table.sort_values(["projected", "api_key"], ascending=[False, True], ignore_index=True)


@dataclass(frozen=True)
class Backtest:
    """Month-start forecasts compared with the months' actual totals."""

    metric: str
    months: pd.DataFrame  # month, forecast, low, high, actual, error (absolute, fraction of actual)

    @property
    def mape(self) -> float:
        """Mean absolute percentage error, as a fraction (0.08 = 8 %)."""
        return float(self.months["error"].mean())

    @property
    def coverage(self) -> float:
        """Share of months whose actual total fell inside the band."""
        inside = self.months["actual"].between(self.months["low"], self.months["high"])
        return float(inside.mean())


BACKTEST_MONTHS = 12


def _backtest_months(last: date, months: int) -> list[date]:
    """The first days of the ``months`` whole months up to ``last``, newest first."""
    month_start = period_bounds("month", last)[0]
    if period_bounds("month", last)[1] != last:
        month_start = period_bounds("month", month_start - timedelta(days=1))[0]
    starts = []
    for _ in range(months):
        starts.append(month_start)
        month_start = period_bounds("month", month_start - timedelta(days=1))[0]
    return starts


def backtest_start(last: date, months: int = BACKTEST_MONTHS) -> date:
    """The earliest day the backtest of the ``months`` whole months up to ``last`` reads: the
    rhythm window before its oldest month. Reading from this day whatever range is shown
    makes the forecasts' stated accuracy one figure, not one per range."""
    return _backtest_months(last, months)[-1] - timedelta(days=RHYTHM_DAYS)


def backtest(
    key_day: pd.DataFrame,
    metric: str = "total_characters",
    months: int = BACKTEST_MONTHS,
    *,
    covered_from: date | None = None,
    covered_to: date | None = None,
) -> Backtest:
    """Forecast each of the last ``months`` whole months from its first day, from earlier data.

    Months whose actual total is zero are left out (a percentage error is undefined there).
    ``covered_from`` / ``covered_to`` default to the frame's first and last day.
    """
    series = daily_series(key_day, metric)
    first = covered_from or series.index.min().date()
    last = covered_to or series.index.max().date()
    rows = []
    for month_start in _backtest_months(last, months):
        if month_start - timedelta(days=LEVEL_DAYS) < first:
            break
        result = forecast(series, metric, "month", month_start, first)
        actual = float(_days(series, result.start, result.end).sum())
        if actual > 0:
            rows.append(
                {
                    "month": month_start,
                    "forecast": result.projected,
                    "low": result.low,
                    "high": result.high,
                    "actual": actual,
                    "error": abs(result.projected - actual) / actual,
                }
            )
    columns = ["month", "forecast", "low", "high", "actual", "error"]
    months_frame = pd.DataFrame(rows, columns=columns).iloc[::-1].reset_index(drop=True)
    return Backtest(metric=metric, months=months_frame)
