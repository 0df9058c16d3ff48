"""Projections of the organization, or of a part of it, day by day over a period: the one
forecast (``outlook``) behind the budgets, the plan's limits, the spend, the guardrails and
the Capacity page's and the report's forecast tables.

A part of the organization (its keys, a team's keys, one service's characters) is not forecast
on its own: it takes its share of the organization's forecast of the whole (of the metric, or
of total characters for a service's characters), the share of it that it used over the last
four weeks (``run_rate_model.LEVEL_DAYS``). The parts add up to the organization's forecast,
and a key with a few weeks of history, too short to backtest, is projected by the model the
organization's backtest chose.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from functools import cached_property

import numpy as np
import pandas as pd

from analytics.capacity.forecasting.candidates import Floats, History
from analytics.capacity.forecasting.outlook import NO_INTERVAL, Outlook, outlook
from analytics.capacity.forecasting.run_rate_model import LEVEL_DAYS, ORGANIZATION, daily_series
from analytics.usage import (
    METRICS,
    PERIOD_KINDS,
    SERVICE_CHARACTERS,
    TOTAL_CHARACTERS,
    PeriodKind,
    YearStart,
    labels,
    period_bounds,
)


class KeyDays:
    """A key-day frame as the projections read it, each reading made once: the organization's
    daily series of a metric, a key's rows, the last ``LEVEL_DAYS`` days' rows. A table of a
    thousand keys' projections reads the frame once (each key's projection masked the whole
    frame and summed the organization's days again: the Capacity page's first run at 1,000
    keys × 5 years took 60–63 s, 16–20 s reading it once). The frame is read, never changed.
    ``per_key``: split the frame by key once, for a reading that projects every key (a table);
    a reading for one projection masks its keys, as a split of 1,000 keys costs some 30 masks."""

    def __init__(self, key_day: pd.DataFrame, per_key: bool = False) -> None:
        self.frame = key_day
        self.per_key = per_key
        self._wholes: dict[str, pd.Series] = {}
        self._recent: dict[date, pd.DataFrame] = {}

    def series(self, metric: str, api_keys: Sequence[str] | None = None) -> pd.Series:
        """``daily_series`` of the organization (cached per metric), or of ``api_keys``: read
        ``per_key``, a single key's rows are its group of the frame, the same rows in the same
        order as a mask of the frame gives, so the same sums."""
        if api_keys is None:
            if metric not in self._wholes:
                self._wholes[metric] = daily_series(self.frame, metric)
            return self._wholes[metric]
        if self.per_key and len(api_keys) == 1:
            return daily_series(self._by_key.get(api_keys[0], self.frame.iloc[:0]), metric)
        return daily_series(self.frame, metric, api_keys)

    @cached_property
    def _by_key(self) -> dict[str, pd.DataFrame]:
        groups = self.frame.groupby("api_key", sort=False, observed=True)
        return {str(key): rows for key, rows in groups}

    def recent(self, as_of: date) -> pd.DataFrame:
        """The rows of the last ``LEVEL_DAYS`` days before ``as_of``."""
        if as_of not in self._recent:
            days = self.frame["usage_date"]
            since = pd.Timestamp(as_of) - pd.Timedelta(days=LEVEL_DAYS)
            self._recent[as_of] = self.frame.loc[days.between(since, pd.Timestamp(as_of), "left")]
        return self._recent[as_of]

    def outlook(self, metric: str, covered_from: date, as_of: date) -> Outlook:
        """The organization's outlook of ``metric``: the one forecast its parts share."""
        return outlook(self.series(metric), metric, covered_from, as_of)


def organization_outlook(
    key_day: pd.DataFrame, metric: str, covered_from: date, as_of: date
) -> Outlook:
    """The organization's outlook of ``metric``: the one forecast its parts share."""
    return KeyDays(key_day).outlook(metric, covered_from, as_of)


def whole_of(metric: str) -> str:
    """The series whose forecast ``metric`` takes its share of: total characters for a
    service's characters, else the metric itself."""
    return TOTAL_CHARACTERS if metric in SERVICE_CHARACTERS else metric


def recent_share(
    key_day: pd.DataFrame | KeyDays,
    metric: str,
    api_keys: Sequence[str] | None,
    as_of: date,
) -> float:
    """The share of the organization's whole (``whole_of``) that ``metric`` of the masked
    ``api_keys`` (of every key: None) was over the last ``LEVEL_DAYS`` closed days before
    ``as_of``: 1 for the whole itself, 0 when the organization used none."""
    whole = whole_of(metric)
    if api_keys is None and whole == metric:
        return 1.0
    recent = _read(key_day).recent(as_of)
    total = float(recent[whole].sum())
    if total <= 0:
        return 0.0
    part = recent if api_keys is None else recent.loc[recent["api_key"].isin(list(api_keys))]
    return float(part[metric].sum()) / total


def _read(key_day: pd.DataFrame | KeyDays) -> KeyDays:
    return key_day if isinstance(key_day, KeyDays) else KeyDays(key_day)


def expected_days(
    key_day: pd.DataFrame | KeyDays,
    metric: str,
    window: tuple[date, date, date],
    api_keys: Sequence[str] | None = None,
) -> Floats:
    """The expected daily usage of the organization (or its ``api_keys``' share) over each
    day of ``window = (as_of, last, covered_from)`` from ``as_of`` to ``last``, as the period
    ending ``last`` is projected."""
    as_of, last, covered_from = window
    days = (last - as_of).days + 1
    if days <= 0:
        return np.zeros(0)
    frame = _read(key_day)
    found = frame.outlook(whole_of(metric), covered_from, as_of)
    share = recent_share(frame, metric, api_keys, as_of)
    daily: Floats = np.diff(found.cumulative(days)[0], prepend=0.0) * share
    return daily


def projection_path(
    key_day: pd.DataFrame | KeyDays,
    metric: str,
    span: tuple[date, date],
    as_of: date,
    covered_from: date,
    api_keys: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Cumulative usage of the organization (or of its ``api_keys``) over ``span``: the closed
    days before ``as_of``, then the forecast (see the module), with its 80 % interval.

    Columns: ``day`` (datetime64), ``actual`` (cumulative, NaN from ``as_of`` on),
    ``expected``, ``low``, ``high`` (cumulative; equal to ``actual`` on closed days, and to
    ``expected`` without measured errors).
    """
    start, end = span
    days = pd.date_range(pd.Timestamp(start), pd.Timestamp(end), freq="D")
    closed = int(np.searchsorted(days.to_numpy(), np.datetime64(as_of)))
    frame = _read(key_day)
    series = frame.series(metric, api_keys)
    actual = series.reindex(days[:closed], fill_value=0.0).to_numpy(dtype=float).cumsum()
    used = float(actual[-1]) if closed else 0.0
    bounds = np.full((len(NO_INTERVAL), len(days)), used)
    bounds[:, :closed] = actual
    if closed < len(days):
        offset = (days[closed].date() - as_of).days  # a period that starts after ``as_of``
        found = frame.outlook(whole_of(metric), covered_from, as_of)
        count = offset + len(days) - closed
        if api_keys is None and whole_of(metric) == metric:
            ahead = found.cumulative(count)
        else:
            part = _over(series, found.history)
            share = recent_share(frame, metric, api_keys, as_of)
            ahead = found.part_cumulative(count, part, share)
        ahead = ahead - (ahead[:, offset - 1 : offset] if offset else 0.0)
        ahead = ahead[:, offset:]
        ahead = np.where(np.isnan(ahead), ahead[0], ahead)
        bounds[:, closed:] += ahead
    return pd.DataFrame(
        {
            "day": days,
            "actual": np.where(np.arange(len(days)) < closed, bounds[0], np.nan),
            "expected": bounds[0],
            "low": bounds[1],
            "high": bounds[2],
        }
    )


def _over(series: pd.Series, history: History) -> Floats:
    """A daily series' values over the days of ``history`` (0 on days it did not use)."""
    days = pd.date_range(pd.Timestamp(history.first), pd.Timestamp(history.last), freq="D")
    values: Floats = series.reindex(days, fill_value=0.0).to_numpy(dtype=float)
    return values


FORECAST_TABLE_COLUMNS = [
    "api_key", "api_key_label", "metric", "period", "start", "end", "actual", "projected",
    "low", "high",
]  # fmt: skip


def forecast_table(
    key_day: pd.DataFrame,
    as_of: date,
    covered_from: date,
    *,
    year_start: YearStart | None = None,
    metrics: Sequence[str] = METRICS,
    by_key: bool = False,
) -> pd.DataFrame:
    """Each metric's projection to the end of each period holding ``as_of``, with its 80 %
    interval, of the organization (and each key when ``by_key``): ``FORECAST_TABLE_COLUMNS``,
    ``api_key`` and ``api_key_label`` reading ``Organization`` for the organization's rows."""
    scopes: list[tuple[str, str, tuple[str, ...] | None]] = [(ORGANIZATION, ORGANIZATION, None)]
    if by_key:
        scopes += [(key, label, (key,)) for key, label in labels(key_day).items()]
    rows = []
    frame = KeyDays(key_day, per_key=by_key)
    for api_key, label, keys in scopes:
        for metric in metrics:
            for kind in PERIOD_KINDS:
                start, end = period_bounds(kind, as_of, year_start)
                path = projection_path(frame, metric, (start, end), as_of, covered_from, keys)
                closed = path["actual"].dropna()
                last = path.iloc[-1]
                rows.append(
                    {
                        "api_key": api_key,
                        "api_key_label": label,
                        "metric": metric,
                        "period": kind,
                        "start": start,
                        "end": end,
                        "actual": float(closed.iloc[-1]) if len(closed) else 0.0,
                        "projected": float(last["expected"]),
                        "low": float(last["low"]),
                        "high": float(last["high"]),
                    }
                )
    return pd.DataFrame(rows, columns=FORECAST_TABLE_COLUMNS)


def key_forecasts(
    key_day: pd.DataFrame,
    as_of: date,
    covered_from: date,
    *,
    year_start: YearStart | None = None,
    metric: str = TOTAL_CHARACTERS,
    kind: PeriodKind = "month",
) -> pd.DataFrame:
    """One metric's projection for one period per key, largest first."""
    table = forecast_table(
        key_day, as_of, covered_from, year_start=year_start, metrics=[metric], by_key=True
    )
    table = table[(table["period"] == kind) & (table["api_key"] != ORGANIZATION)]
    return table.sort_values(["projected", "api_key"], ascending=[False, True], ignore_index=True)
