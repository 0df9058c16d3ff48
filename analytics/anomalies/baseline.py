"""The days each day is judged from, on one grid: a key's (or the organization's) usage of a
metric day by day (`Grid`), and each day's **median** of the same weekday of the eight weeks
before it (BASELINE_WEEKS), or where fewer than MIN_ACTIVE of those eight weekdays saw usage
(keys used on some days only), of the days of the same kind (working days, or Saturdays and
Sundays) of those weeks (`medians`). Drops are judged against that median, and counting the
weekdays that reach a day's usage (`reaching`) settles most days as no spike at once; a spike's
usual day and bound read the half year before (`usual`). Only days before the judged one are
read: the grid carries LOOKBACK_DAYS before its first day.

The organization's series of a metric is judged like a key's once at least ORG_MIN_KEYS keys
use the metric: made up of fewer keys it only repeats theirs, noisily (a quiet weekend turns
on whether its one big user happens to work). A service metric equal to a key's total
characters on every day (a key that uses one service) is judged once, as total characters.

Everything is computed on a (key, metric) × days grid with numpy, each day's baseline one
sorted row.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from functools import cached_property
from typing import Final

import numpy as np
import pandas as pd
from numpy.lib.stride_tricks import sliding_window_view

from analytics.anomalies.model import (
    ORGANIZATION,
    ORGANIZATION_LABEL,
    WHOLE_ORGANIZATION,
    KeySeries,
    Whole,
)
from analytics.usage import METRICS, SERVICE_CHARACTERS, TOTAL_CHARACTERS, labels, within

BASELINE_WEEKS: Final = 8  # a power of two (see over_weeks)
BASELINE_DAYS: Final = 7 * BASELINE_WEEKS
SPREAD_WEEKS: Final = 26
# The days before a checked range that its baselines read: the half year a spike's usual day
# and spread read (`usual`).
LOOKBACK_DAYS: Final = 7 * SPREAD_WEEKS
MIN_ACTIVE: Final = 3
MIN_EXCESS: Final[dict[bool, float]] = {False: 1_000.0, True: 1.0}  # characters, minutes
ORG_MIN_KEYS: Final = 20

WEEKLY_LAGS: Final = 7 * np.arange(1, BASELINE_WEEKS + 1)
# Days of each kind (False: working days, True: weekend days) in a week.
KIND_DAYS: Final[dict[bool, int]] = {False: 5, True: 2}


# --- the grid --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Grid:
    """Daily values from ``first`` on: ``series`` per metric for each key and, last, the
    organization (their sum), and the judged rows (key or organization, metric) in ``padded``,
    LOOKBACK_DAYS of NaN ahead of the first day.

    A judged row is NaN before its key's first day (``row_first``): the key did not exist,
    which is not the same as unused. ``row_key`` is an index into ``keys``, or -1 for the
    organization (the last of ``series``). ``active`` counts, for each judged cell, the
    BASELINE_WEEKS same weekdays before it that saw usage.
    """

    first: date
    keys: list[str]
    labels: list[str]
    series: np.ndarray  # metrics × (keys + organization) × days
    padded: np.ndarray
    row_key: np.ndarray
    row_metric: np.ndarray
    row_first: np.ndarray
    active: np.ndarray  # rows × days
    used: np.ndarray  # keys × days: any usage
    usual: np.ndarray  # metrics × days: the whole's mean day over the days before
    whole: Whole = WHOLE_ORGANIZATION  # what the keys add up to: the organization, or a team's

    @property
    def values(self) -> np.ndarray:
        return self.padded[:, LOOKBACK_DAYS:]

    def day(self, index: int) -> date:
        return self.first + timedelta(days=int(index))

    def weekday(self, days: np.ndarray) -> np.ndarray:
        return (self.first.weekday() + days) % 7

    @cached_property
    def kinds(self) -> dict[bool, tuple[np.ndarray, np.ndarray]]:
        """For working days (False) and weekend days (True): which padded columns are of that
        kind, and the padded rows' days of that kind alone."""
        weekend = self.weekday(np.arange(self.padded.shape[1]) - LOOKBACK_DAYS) >= 5
        return {
            kind: (columns, np.compress(columns, self.padded, axis=1))
            for kind, columns in ((False, ~weekend), (True, weekend))
        }

    @cached_property
    def logs(self) -> np.ndarray:
        """The logarithms of the padded rows' used days, NaN elsewhere, in single precision:
        ample for levels and spreads, and numpy's logarithm and sort run several times faster
        on it than on doubles. Taken once for the grid, as the half years read overlap."""
        values = self.padded.astype(np.float32)
        with np.errstate(invalid="ignore", divide="ignore"):
            # Unused days 0 / 0 = NaN: much faster than a masked assignment.
            np.divide(values, self.used_days, out=values)
            logs: np.ndarray = np.log(values, out=values)
        return logs

    @cached_property
    def used_days(self) -> np.ndarray:
        """Whether each padded cell saw usage, as 0 or 1."""
        used: np.ndarray = (self.padded > 0).view(np.int8)
        return used

    def known(self, rows: np.ndarray, days: np.ndarray) -> np.ndarray:
        """How many of the BASELINE_WEEKS same weekdays before each cell its row has values
        for: the weeks since the row's first day, as its values are known from there on."""
        known: np.ndarray = np.clip((days - self.row_first[rows]) // 7, 0, BASELINE_WEEKS)
        return known

    def who(self, row: int) -> KeySeries:
        """The series of a row: its masked key and label (the organization's own for its
        rows) and its metric."""
        key, m = int(self.row_key[row]), int(self.row_metric[row])
        if key < 0:
            return KeySeries(ORGANIZATION, ORGANIZATION_LABEL, METRICS[m], self.whole)
        return self.key_series(key, m)

    def key_series(self, key: int, m: int) -> KeySeries:
        """The series of the grid's ``key`` (an index into ``keys``) and metric ``m`` (into
        ``METRICS``)."""
        return KeySeries(self.keys[key], self.labels[key], METRICS[m], self.whole)


def key_grid(
    key_day: pd.DataFrame, covered_from: date, end: date, whole: Whole = WHOLE_ORGANIZATION
) -> Grid:
    """The grid of a key-day frame over ``covered_from``–``end``, its keys adding up to
    ``whole`` (the organization's series judged only when ``whole.judged``)."""
    frame = within(key_day, covered_from, end)
    n_days = (end - covered_from).days + 1
    day = frame["usage_date"].to_numpy("datetime64[D]") - np.datetime64(covered_from, "D")
    codes, keys = pd.factorize(frame["api_key"], sort=True)
    names = labels(frame)
    series = np.zeros((len(METRICS), len(keys) + 1, n_days))
    at = codes * n_days + day.astype(np.int64)
    for m, metric in enumerate(METRICS):
        series[m].ravel()[at] = frame[metric].to_numpy(np.float64)
    # The organization's days: usage is never negative, so the days before a key's first are
    # all 0 and add nothing.
    series[:, -1] = series[:, :-1].sum(axis=1)
    some = series[:, :-1] > 0
    used = np.asarray(some.any(axis=0))
    first_used = np.where(used.any(axis=1), used.argmax(axis=1), n_days)
    row_key, row_metric = _rows(series, np.asarray(some.any(axis=2)), whole.judged)
    row_first = np.append(first_used, 0)[row_key]
    padded = np.full((len(row_key), LOOKBACK_DAYS + n_days), np.nan)
    existed = np.arange(n_days) >= row_first[:, None]
    np.copyto(padded[:, LOOKBACK_DAYS:], series[row_metric, row_key], where=existed)
    return Grid(
        first=covered_from,
        keys=[str(k) for k in keys],
        labels=[names[str(k)] for k in keys],
        series=series,
        padded=padded,
        row_key=row_key,
        row_metric=row_metric,
        row_first=row_first,
        active=over_weeks((padded > 0).view(np.int8), np.add),
        used=used,
        usual=_trailing_mean(series[:, -1]),
        whole=whole,
    )


def _rows(
    series: np.ndarray, some: np.ndarray, organization: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The judged rows' keys (-1: the organization) and metrics: each key's metrics it used
    (a service equal to its total characters on every day is judged as the total), and with
    ``organization`` each metric's organization once ORG_MIN_KEYS keys use it."""
    total = series[METRICS.index(TOTAL_CHARACTERS), :-1]
    row_key: list[np.ndarray] = []
    row_metric: list[np.ndarray] = []
    for m, metric in enumerate(METRICS):
        judged = some[m]
        if metric in SERVICE_CHARACTERS:
            judged = judged & ~(series[m, :-1] == total).all(axis=1)
        keys_judged = np.nonzero(judged)[0]
        whole = np.full(int(organization and some[m].sum() >= ORG_MIN_KEYS), -1)
        row_key += [keys_judged, whole]
        row_metric.append(np.full(len(keys_judged) + len(whole), m))
    return np.concatenate(row_key).astype(np.int64), np.concatenate(row_metric)


def _trailing_mean(series: np.ndarray) -> np.ndarray:
    """Each day's mean of the BASELINE_DAYS days before it (fewer at the grid's start; NaN on
    its first day)."""
    days = series.shape[1]
    total = np.concatenate([np.zeros((len(series), 1)), series.cumsum(axis=1)], axis=1)
    index = np.arange(days)
    since = np.maximum(index - BASELINE_DAYS, 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean: np.ndarray = (total[:, index] - total[:, since]) / (index - since)
    return mean


# --- baselines -------------------------------------------------------------------------------


def reaching(padded: np.ndarray, floor: np.ndarray) -> np.ndarray:
    """For each cell of padded rows, how many of the BASELINE_WEEKS same weekdays before it
    reach its `floor` (one week back at a time, as the floor is the cell's own)."""
    count = np.zeros(floor.shape, np.int8)
    for lag in WEEKLY_LAGS:
        count += padded[:, LOOKBACK_DAYS - lag : LOOKBACK_DAYS - lag + floor.shape[1]] >= floor
    return count


def over_weeks(daily: np.ndarray, combine: np.ufunc) -> np.ndarray:
    """For each cell, `combine` (np.add, np.fmax) over the same weekday of the BASELINE_WEEKS
    weeks before it, from `daily` as wide as padded rows. Each pass joins two spans of weeks
    into one twice as long (BASELINE_WEEKS is a power of two): three passes over the rows
    rather than eight."""
    weeks = 1
    daily = daily[:, LOOKBACK_DAYS - BASELINE_DAYS :]  # the padding the eight weeks need
    while weeks < BASELINE_WEEKS:
        daily = combine(daily[:, 7 * weeks :], daily[:, : -7 * weeks])
        weeks *= 2
    # Column i now spans the days i - BASELINE_DAYS … i - 7 of the grid: the weeks before day i.
    return daily[:, :-7]


def _windows(grid: Grid, rows: np.ndarray, days: np.ndarray, lags: np.ndarray) -> np.ndarray:
    """The values `lags` days before each (row, day) cell; NaN before the grid or the key."""
    at = rows * grid.padded.shape[1] + LOOKBACK_DAYS + days
    windows: np.ndarray = np.take(grid.padded.ravel(), at[:, None] - lags)
    return windows


def _kind_days(
    grid: Grid, rows: np.ndarray, days: np.ndarray, weekend: bool, weeks: int
) -> np.ndarray:
    """The days of one kind (all working days, or all weekend days) of the `weeks` weeks before
    each cell, the cell left out: one slice of the grid's days of that kind alone, ending at
    the last of them before the cell."""
    columns, kind = grid.kinds[weekend]
    width = weeks * KIND_DAYS[weekend]
    at = LOOKBACK_DAYS + days
    last = np.cumsum(columns)[at] - 1 - columns[at]  # the cell's own column is not before it
    windows: np.ndarray = sliding_window_view(kind, width, axis=1)[rows, last - width + 1]
    return windows


def _baselines(
    grid: Grid, rows: np.ndarray, days: np.ndarray
) -> list[tuple[np.ndarray, np.ndarray]]:
    """What each cell is compared with, as groups of (cell positions, windows): the same
    weekday of the BASELINE_WEEKS weeks before, or where fewer than MIN_ACTIVE of those were
    used, the days of the same kind of those weeks."""
    sparse = grid.active[rows, days] < MIN_ACTIVE
    weekly = np.nonzero(~sparse)[0]
    groups = [(weekly, _windows(grid, rows[weekly], days[weekly], WEEKLY_LAGS))]
    weekend = grid.weekday(days) >= 5
    for kind in (False, True):
        cells = np.nonzero(sparse & (weekend == kind))[0]
        groups.append((cells, _kind_days(grid, rows[cells], days[cells], kind, BASELINE_WEEKS)))
    return groups


def middle(ordered: np.ndarray, count: np.ndarray) -> np.ndarray:
    """The median of the first `count` values of each sorted row (NaN when `count` is 0)."""
    width = ordered.shape[1]
    at = np.arange(len(ordered)) * width
    low = ordered.ravel()[at + np.maximum(count - 1, 0) // 2]
    high = ordered.ravel()[at + np.minimum(count // 2, width - 1)]
    middle: np.ndarray = np.where(count > 0, (low + high) / 2, np.nan)
    return middle


def _used_sorted(windows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The used days of each window in ascending order, unused and unknown days after them as
    NaN (in place of the window; dividing by `used` is much faster than a masked copy), and how
    many there are."""
    used = windows > 0
    with np.errstate(invalid="ignore"):
        np.divide(windows, used, out=windows)
    windows.sort(axis=1)
    return windows, used.sum(axis=1)


def medians(grid: Grid, rows: np.ndarray, days: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """How many used days each cell's baseline has, and their median."""
    count = np.zeros(len(rows), np.int64)
    median = np.full(len(rows), np.nan)
    for cells, windows in _baselines(grid, rows, days):
        ordered, count[cells] = _used_sorted(windows)
        median[cells] = middle(ordered, count[cells])
    return count, median
