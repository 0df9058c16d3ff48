"""Anomalies in each key's daily usage, and in the organization's, against its own habit.

Every day is compared with the **same weekday** of the eight weeks before it (BASELINE_WEEKS),
for each key and metric and for the organization as a whole: a quiet Sunday is compared with
Sundays, and a key only with itself. Where fewer than MIN_ACTIVE of those eight weekdays saw
usage (keys used on some days only), the days of the same kind (working days, or Saturdays and
Sundays) of the same eight weeks stand in for them.

* **spike** — usage above ``median + SPIKE_K × spread`` of the used days of the baseline. The
  spread is the median absolute deviation scaled to a standard deviation (× 1.4826), at least
  MIN_SPREAD of the median, and grows by √(1 + π / 2n) when the median rests on n days, so a
  baseline of few days asks for more; the bound is at least MIN_EXCESS above the median (1,000
  characters; a minute of speech, about as much), so tiny keys do not fire on noise. On eight
  steady weekdays the bound is about three times the median. Medians and deviations are not
  moved by the outliers they are to find. Consecutive spike days are one anomaly, told at its
  peak; severity by the peak's ratio to the median (RATIO_SEVERITY).
* **drop** — usage at (near) zero (at most NEAR_ZERO of the median) on consecutive days that
  were hard to miss by chance: the product over the days of each weekday's share of unused
  days in the baseline weeks (smoothed, ``(unused + ½) / (known + 1)``, so a weekday used in
  all eight weeks still counts 1/18) is at most DROP_CHANCE. A key used on each of the past
  eight Mondays, Tuesdays and Wednesdays drops when it goes unused on all three (at least
  three days, then); a key used on half its days does not drop in a fortnight.
* **new** — a key first used in the checked range after at least DORMANT_DAYS days the data
  covers without it, whose biggest day in its first week (NEW_KEY.days) is material: at
  least NEW_KEY.share of the organization's usual day (its mean day over the eight weeks
  before) and MIN_EXCESS.
* **dormant** — a key used again after DORMANT_DAYS or more days without any usage.

The organization's series of a metric is judged like a key's once at least ORG_MIN_KEYS keys
use the metric: made up of fewer keys it only repeats theirs, noisily (a quiet weekend turns
on whether its one big user happens to work).

Drops, new keys and dormant keys are ranked by their share of the organization's usual day
(SHARE_SEVERITY). A service metric equal to a key's total characters on every day (a
key that uses one service) is judged once, as total characters; a key's spikes (or drops) of
several metrics starting on the same day are one anomaly, on the metric furthest from usual
(for drops, the first metric).

The constants were chosen on the emulator's synthetic organizations, whose keys vary by about
35 % from day to day and are used on 40-85 % of working days: spikes of three to twelve times a
key's usual level are found more than nine times in ten, with well under one false alarm per
key and year (bench/scenarios.py measures both). A lower bound finds more three-fold spikes
but fires on ordinary busy days; a spread floor well above the keys' own spread with SPIKE_K 3
rather than 4 leaves the bound less at the mercy of the deviation of a handful of days.

Everything is computed on a (key, metric) × days grid with numpy, each day's baseline one
sorted row; only the anomalies found become Python objects.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cached_property
from typing import Final, Literal

import numpy as np
import pandas as pd
from numpy.lib.stride_tricks import sliding_window_view

from analytics.usage.frames import labels, within
from analytics.usage.metrics import (
    METRIC_LABELS,
    METRICS,
    SERVICE_CHARACTERS,
    TOTAL_CHARACTERS,
    Metric,
    format_value,
    is_minutes,
    share_text,
)

BASELINE_WEEKS: Final = 8  # a power of two (see _over_weeks)
# The days before a checked range that its baselines read.
LOOKBACK_DAYS: Final = 7 * BASELINE_WEEKS
MIN_ACTIVE: Final = 3
SPIKE_K: Final = 3.0
MAD_TO_SD: Final = 1.4826
MIN_SPREAD: Final = 0.6
MIN_EXCESS: Final[dict[bool, float]] = {False: 1_000.0, True: 1.0}  # characters, minutes
NEAR_ZERO: Final = 0.05
DROP_CHANCE: Final = 2e-4
DORMANT_DAYS: Final = 30
ORG_MIN_KEYS: Final = 20

# The organization's own series, under a key no masked key can be.
ORGANIZATION: Final = "organization"
ORGANIZATION_LABEL: Final = "Organization"

Kind = Literal["spike", "drop", "new", "dormant"]
KINDS: Final[tuple[Kind, ...]] = ("spike", "drop", "new", "dormant")
KIND_TITLES: Final[dict[str, str]] = {
    "spike": "Spike",
    "drop": "Drop",
    "new": "New key",
    "dormant": "Dormant key used",
}
Severity = Literal["high", "medium", "low"]
SEVERITIES: Final[tuple[Severity, ...]] = ("high", "medium", "low")
# The least a spike's peak-to-median ratio, and a drop's or key's share of the organization's
# usual day, must reach for each severity, most severe first; below them an anomaly is low.
RATIO_SEVERITY: Final[dict[Severity, float]] = {"high": 10.0, "medium": 5.0}
SHARE_SEVERITY: Final[dict[Severity, float]] = {"high": 0.1, "medium": 0.01}


@dataclass(frozen=True)
class NewKeyRule:
    """A new key is material when its biggest day among its first `days` reaches `share` of
    the organization's usual day (and MIN_EXCESS)."""

    days: int
    share: float


NEW_KEY: Final = NewKeyRule(days=7, share=0.01)

# The least ratio of a spike bound to its median, on a weekday with all eight weeks used.
LOWEST_BOUND: Final = 1 + SPIKE_K * MIN_SPREAD * math.sqrt(1 + math.pi / (2 * BASELINE_WEEKS))
WEEKLY_LAGS: Final = 7 * np.arange(1, BASELINE_WEEKS + 1)
# Grid rows taken at a time by the passes over every day (32 rows of some 2,000 days are half
# a megabyte an array).
ROW_BLOCK: Final = 32


@dataclass(frozen=True)
class Anomaly:
    """One anomaly: what happened to which key's metric on which days, against what was usual.

    ``observed`` is the peak day of a spike, the total of a drop's days, the biggest first-week
    day of a new key (its last day) or the first day back of a dormant key; ``expected`` the
    usual day (the baseline's median; a drop: the usual total of its days; new and dormant
    keys: 0);
    ``bound`` the spike's upper bound, the level a drop stayed under, or the materiality a new
    key passed (a dormant key: 0).
    """

    kind: Kind
    api_key: str
    label: str
    metric: Metric
    first: date
    last: date
    observed: float
    expected: float
    bound: float
    severity: Severity
    sentence: str

    @property
    def id(self) -> str:
        """Stable from run to run, so a mark given to it holds while it is found."""
        return anomaly_id(self.kind, self.api_key, self.metric, self.first)


def anomaly_id(kind: str, api_key: str, metric: str, first: date) -> str:
    return f"{kind}:{api_key}:{metric}:{first:%Y-%m-%d}"


# --- the grid --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Grid:
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
    usual: np.ndarray  # metrics × days: the organization's mean day over the days before

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

    def known(self, rows: np.ndarray, days: np.ndarray) -> np.ndarray:
        """How many of the BASELINE_WEEKS same weekdays before each cell its row has values
        for: the weeks since the row's first day, as its values are known from there on."""
        known: np.ndarray = np.clip((days - self.row_first[rows]) // 7, 0, BASELINE_WEEKS)
        return known

    def who(self, row: int) -> tuple[str, str]:
        """The masked key and label of a row (the organization's own for its rows)."""
        key = int(self.row_key[row])
        return (ORGANIZATION, ORGANIZATION_LABEL) if key < 0 else (self.keys[key], self.labels[key])


def _grid(key_day: pd.DataFrame, covered_from: date, end: date) -> _Grid:
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
    row_key, row_metric = _rows(series, np.asarray(some.any(axis=2)))
    row_first = np.append(first_used, 0)[row_key]
    padded = np.full((len(row_key), LOOKBACK_DAYS + n_days), np.nan)
    existed = np.arange(n_days) >= row_first[:, None]
    np.copyto(padded[:, LOOKBACK_DAYS:], series[row_metric, row_key], where=existed)
    return _Grid(
        first=covered_from,
        keys=[str(k) for k in keys],
        labels=[names[str(k)] for k in keys],
        series=series,
        padded=padded,
        row_key=row_key,
        row_metric=row_metric,
        row_first=row_first,
        active=_over_weeks((padded > 0).view(np.int8), np.add),
        used=used,
        usual=_trailing_mean(series[:, -1]),
    )


def _rows(series: np.ndarray, some: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The judged rows' keys (-1: the organization) and metrics: each key's metrics it used
    (a service equal to its total characters on every day is judged as the total), each
    metric's organization once ORG_MIN_KEYS keys use it."""
    total = series[METRICS.index(TOTAL_CHARACTERS), :-1]
    row_key: list[np.ndarray] = []
    row_metric: list[np.ndarray] = []
    for m, metric in enumerate(METRICS):
        judged = some[m]
        if metric in SERVICE_CHARACTERS:
            judged = judged & ~(series[m, :-1] == total).all(axis=1)
        keys_judged = np.nonzero(judged)[0]
        organization = np.full(int(some[m].sum() >= ORG_MIN_KEYS), -1)
        row_key += [keys_judged, organization]
        row_metric.append(np.full(len(keys_judged) + len(organization), m))
    return np.concatenate(row_key).astype(np.int64), np.concatenate(row_metric)


def _trailing_mean(series: np.ndarray) -> np.ndarray:
    """Each day's mean of the LOOKBACK_DAYS days before it (fewer at the grid's start; NaN on
    its first day)."""
    days = series.shape[1]
    total = np.concatenate([np.zeros((len(series), 1)), series.cumsum(axis=1)], axis=1)
    index = np.arange(days)
    since = np.maximum(index - LOOKBACK_DAYS, 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean: np.ndarray = (total[:, index] - total[:, since]) / (index - since)
    return mean


# --- baselines -------------------------------------------------------------------------------


def _reaching(padded: np.ndarray, floor: np.ndarray) -> np.ndarray:
    """For each cell of padded rows, how many of the BASELINE_WEEKS same weekdays before it
    reach its `floor` (one week back at a time, as the floor is the cell's own)."""
    count = np.zeros(floor.shape, np.int8)
    for lag in WEEKLY_LAGS:
        count += padded[:, LOOKBACK_DAYS - lag : LOOKBACK_DAYS - lag + floor.shape[1]] >= floor
    return count


def _over_weeks(daily: np.ndarray, combine: np.ufunc) -> np.ndarray:
    """For each cell, `combine` (np.add, np.fmax) over the same weekday of the BASELINE_WEEKS
    weeks before it, from `daily` as wide as padded rows. Each pass joins two spans of weeks
    into one twice as long (BASELINE_WEEKS is a power of two): three passes over the rows
    rather than eight."""
    weeks = 1
    while weeks < BASELINE_WEEKS:
        daily = combine(daily[:, 7 * weeks :], daily[:, : -7 * weeks])
        weeks *= 2
    # Column i now spans the padded days i … i + 7 × (BASELINE_WEEKS - 1), the weeks before day i.
    return daily[:, :-7]


def _windows(grid: _Grid, rows: np.ndarray, days: np.ndarray, lags: np.ndarray) -> np.ndarray:
    """The values `lags` days before each (row, day) cell; NaN before the grid or the key."""
    at = rows * grid.padded.shape[1] + LOOKBACK_DAYS + days
    windows: np.ndarray = np.take(grid.padded.ravel(), at[:, None] - lags)
    return windows


def _same_kind(grid: _Grid, rows: np.ndarray, days: np.ndarray, weekend: bool) -> np.ndarray:
    """The days of the same kind as each cell's, all working days or all weekend days, among
    the LOOKBACK_DAYS before it: the last of the grid's days of that kind before the cell, one
    slice of those days alone."""
    columns, kind = grid.kinds[weekend]
    width = int(columns[:LOOKBACK_DAYS].sum())
    at = np.cumsum(columns)[LOOKBACK_DAYS + days] - 1
    windows: np.ndarray = sliding_window_view(kind, width, axis=1)[rows, at - width]
    return windows


def _baselines(
    grid: _Grid, rows: np.ndarray, days: np.ndarray
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
        groups.append((cells, _same_kind(grid, rows[cells], days[cells], kind)))
    return groups


def _middle(ordered: np.ndarray, count: np.ndarray) -> np.ndarray:
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


def _medians(grid: _Grid, rows: np.ndarray, days: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """How many used days each cell's baseline has, and their median."""
    count = np.zeros(len(rows), np.int64)
    median = np.full(len(rows), np.nan)
    for cells, windows in _baselines(grid, rows, days):
        ordered, count[cells] = _used_sorted(windows)
        median[cells] = _middle(ordered, count[cells])
    return count, median


def _bounds(
    grid: _Grid, rows: np.ndarray, days: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """How many used days each cell's baseline has, their median and the spike bound."""
    count = np.zeros(len(rows), np.int64)
    median, spread = np.full(len(rows), np.nan), np.full(len(rows), np.nan)
    for cells, windows in _baselines(grid, rows, days):
        ordered, count[cells] = _used_sorted(windows)
        median[cells] = _middle(ordered, count[cells])
        deviation = np.abs(np.subtract(ordered, median[cells, None], out=ordered), out=ordered)
        deviation.sort(axis=1)
        spread[cells] = MAD_TO_SD * _middle(deviation, count[cells])
    return count, median, _bound(grid, rows, median, spread, count)


def _bound(
    grid: _Grid, rows: np.ndarray, median: np.ndarray, spread: np.ndarray, count: np.ndarray
) -> np.ndarray:
    """``median + SPIKE_K × spread`` for a day judged on `count` used days (the spread at
    least MIN_SPREAD of the median, grown by √(1 + π / 2n)), at least MIN_EXCESS above the
    median."""
    minutes = np.array([is_minutes(m) for m in METRICS])[grid.row_metric[rows]]
    excess = np.where(minutes, MIN_EXCESS[True], MIN_EXCESS[False])
    unsure = np.sqrt(1 + np.pi / (2 * np.maximum(count, 1)))
    bound: np.ndarray = median + np.maximum(
        SPIKE_K * np.fmax(spread, MIN_SPREAD * median) * unsure, excess
    )
    return bound


def _cells(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows and days where a 2-D `mask` holds, in row-major order: np.nonzero of the
    flattened mask is many times faster than of the mask itself."""
    flat = np.flatnonzero(mask)
    rows = flat // mask.shape[1]
    return rows, flat - rows * mask.shape[1]


def _runs(rows: np.ndarray, days: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Runs of consecutive days of a row among cells in row-major order: the run of every
    cell, and each run's first and last cell (positions among the cells)."""
    starts = np.ones(len(rows), bool)
    starts[1:] = (rows[1:] != rows[:-1]) | (days[1:] != days[:-1] + 1)
    lasts = np.roll(starts, -1)  # the last cell of the last run ends it too
    return np.cumsum(starts) - 1, np.nonzero(starts)[0], np.nonzero(lasts)[0]


# --- detection -------------------------------------------------------------------------------


def find_anomalies(
    key_day: pd.DataFrame, covered_from: date, start: date, end: date
) -> list[Anomaly]:
    """Anomalies of the checked days ``start``–``end`` in a key-day frame that covers
    ``covered_from``–``end`` (LOOKBACK_DAYS before ``start`` give full baselines), most severe
    first, then newest first."""
    if end < start or start < covered_from:
        raise ValueError(f"the checked days {start}–{end} must lie within {covered_from}–{end}")
    grid = _grid(key_day, covered_from, end)
    if not len(grid.row_key):
        return []
    checked = (start - covered_from).days
    judged = _Judged.of(grid)
    return ordered(
        [
            *_spikes(grid, judged, checked),
            *_drops(grid, judged, checked),
            *_new_keys(grid, checked),
            *_dormant_keys(grid, checked),
        ]
    )


def ordered(anomalies: Sequence[Anomaly]) -> list[Anomaly]:
    """Most severe first, then the newest, then by id: the order of every list of them."""
    return sorted(
        anomalies, key=lambda a: (SEVERITIES.index(a.severity), -a.last.toordinal(), a.id)
    )


def _fold(keys: np.ndarray, firsts: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """Which of some anomalies of one kind to tell (their positions): one per key (row_key)
    and first day, the first by `rank`, as a key's metrics often move together (total
    characters with a service, minutes with the text of a speech key). Folded before they
    become objects, as most spikes fold away."""
    order = np.lexsort((rank, firsts, keys))  # stable: of equal ranks, the first
    kept = np.ones(len(order), bool)
    kept[1:] = (np.diff(keys[order]) != 0) | (np.diff(firsts[order]) != 0)
    return order[kept]


@dataclass(frozen=True)
class _Judged:
    """The used cells that could be a spike or (near) zero, with their baseline: how many
    used days it has, their median and, where the day could be above it, the spike bound (NaN
    elsewhere)."""

    rows: np.ndarray
    days: np.ndarray
    observed: np.ndarray
    count: np.ndarray
    median: np.ndarray
    bound: np.ndarray

    @classmethod
    def of(cls, grid: _Grid) -> _Judged:
        """The used cells counting cannot settle (`_unsettled`), in row-major order, with
        their baselines' medians. The bound grows with the spread, so only the few days above
        the least bound their median allows (that of no spread) can be spikes: only theirs
        have the deviations sorted for their bound."""
        rows, days = _cells(_unsettled(grid))
        observed = grid.values[rows, days]
        count, median = _medians(grid, rows, days)
        least = _bound(grid, rows, median, np.zeros(len(rows)), count)
        above = np.nonzero((count >= MIN_ACTIVE) & (observed > least))[0]
        bound = np.full(len(rows), np.nan)
        bound[above] = _bounds(grid, rows[above], days[above])[2]
        return cls(rows, days, observed, count, median, bound)

    @property
    def spikes(self) -> np.ndarray:
        spike: np.ndarray = (self.count >= MIN_ACTIVE) & (self.observed > self.bound)
        return spike

    @property
    def near_zero(self) -> np.ndarray:
        low: np.ndarray = (self.count >= MIN_ACTIVE) & (self.observed <= NEAR_ZERO * self.median)
        return low


def _unsettled(grid: _Grid) -> np.ndarray:
    """Which used cells counting cannot settle: a day is no spike when enough of its weekdays
    reach its usage divided by LOWEST_BOUND (so does their median), and not near zero when
    none reaches its usage divided by NEAR_ZERO. Taken ROW_BLOCK rows at a time, whose arrays
    stay in the processor's cache through the dozen passes over them (the whole grid's do not,
    and take twice as long)."""
    blocks = range(0, len(grid.padded), ROW_BLOCK)
    return np.concatenate(
        [
            _unsettled_rows(grid.padded[at : at + ROW_BLOCK], grid.active[at : at + ROW_BLOCK])
            for at in blocks
        ]
    )


def _unsettled_rows(padded: np.ndarray, active: np.ndarray) -> np.ndarray:
    """`_unsettled` of some padded rows, whose used same weekdays `active` counts."""
    values = padded[:, LOOKBACK_DAYS:]
    need = active - (active - 1) // 2  # this many at least x put the median at least x
    unsettled = active < MIN_ACTIVE
    unsettled |= _reaching(padded, values / LOWEST_BOUND) < need
    unsettled |= _over_weeks(padded, np.fmax) >= values / NEAR_ZERO
    cells: np.ndarray = (values > 0) & unsettled
    return cells


def _spikes(grid: _Grid, judged: _Judged, checked: int) -> list[Anomaly]:
    spike = judged.spikes
    rows, days = judged.rows[spike], judged.days[spike]
    observed, median, bound = judged.observed[spike], judged.median[spike], judged.bound[spike]
    run, firsts, lasts = _runs(rows, days)
    ratio = observed / median
    peaks = np.nonzero(ratio == np.maximum.reduceat(ratio, firsts)[run])[0]
    peaks = peaks[np.diff(run[peaks], prepend=-1) > 0]  # the first of a run's equal peaks
    current = days[lasts] >= checked
    peaks, firsts, lasts = peaks[current], firsts[current], lasts[current]
    kept = _fold(grid.row_key[rows[peaks]], days[firsts], -ratio[peaks])
    peaks, firsts, lasts = peaks[kept], firsts[kept], lasts[kept]
    return [
        _spike(grid, row, (first, last, peak), *figures)
        for row, first, last, peak, *figures in zip(
            rows[peaks].tolist(),
            days[firsts].tolist(),
            days[lasts].tolist(),
            days[peaks].tolist(),
            observed[peaks].tolist(),
            median[peaks].tolist(),
            bound[peaks].tolist(),
            strict=True,
        )
    ]


def _spike(
    grid: _Grid,
    row: int,
    days: tuple[int, int, int],
    observed: float,
    median: float,
    bound: float,
) -> Anomaly:
    """A run of spike days from its first to its last day, told at its `peak` day."""
    api_key, label = grid.who(row)
    metric = METRICS[int(grid.row_metric[row])]
    first, last, day = (grid.day(d) for d in days)
    ratio = observed / median
    sentence = (
        f"{_subject(api_key, label)} used {format_value(observed, metric)} {units(metric)} on "
        f"{day_text(day)}, about {_times(ratio)} its usual {day:%A} (expected up to "
        f"{format_value(bound, metric)})."
    )
    if last > first:
        sentence += (
            f" Above its usual level for {(last - first).days + 1} days, "
            f"{day_text(first)} to {day_text(last)}."
        )
    severity = _severity(ratio, RATIO_SEVERITY)
    return Anomaly(
        "spike", api_key, label, metric, first, last, observed, median, bound, severity, sentence
    )


def _drops(grid: _Grid, judged_cells: _Judged, checked: int) -> list[Anomaly]:
    values = grid.values
    near_zero = values == 0
    small = judged_cells.near_zero
    near_zero[judged_cells.rows[small], judged_cells.days[small]] = True
    cell_rows, cell_days = _cells(near_zero)
    known = grid.known(cell_rows, cell_days)
    unused = known - grid.active[cell_rows, cell_days]
    evidence = np.where(known >= MIN_ACTIVE, np.log((unused + 0.5) / (known + 1)), 0.0)
    runs, firsts, lasts = _runs(cell_rows, cell_days)
    chance = np.bincount(runs, weights=evidence, minlength=len(firsts))
    drop = (chance <= math.log(DROP_CHANCE)) & (cell_days[lasts] >= checked)
    firsts, lasts = firsts[drop], lasts[drop]
    run_rows = cell_rows[firsts]
    kept = _fold(grid.row_key[run_rows], cell_days[firsts], grid.row_metric[run_rows])
    run_rows, firsts, lasts = run_rows[kept], cell_days[firsts[kept]], cell_days[lasts[kept]]
    if not len(run_rows):
        return []
    # Every day of every drop at once: what was usual then, summed per drop.
    lengths = lasts - firsts + 1
    starts = np.concatenate([[0], lengths.cumsum()[:-1]])
    rows = np.repeat(run_rows, lengths)
    days = np.repeat(firsts - starts, lengths) + np.arange(lengths.sum())
    _, median = _medians(grid, rows, days)
    share_used = grid.active[rows, days] / np.maximum(grid.known(rows, days), 1)
    usual = np.add.reduceat(np.nan_to_num(median) * share_used, starts)
    observed = np.add.reduceat(values[rows, days], starts)
    return [
        _drop(grid, int(row), int(first), int(last), float(seen), float(expected))
        for row, first, last, seen, expected in zip(
            run_rows, firsts, lasts, observed, usual, strict=True
        )
    ]


def _drop(grid: _Grid, row: int, first: int, last: int, observed: float, usual: float) -> Anomaly:
    api_key, label = grid.who(row)
    m = int(grid.row_metric[row])
    metric = METRICS[m]
    organization = float(np.nansum(grid.usual[m, first : last + 1]))
    amount = (
        f"no {units(metric)}"
        if observed == 0
        else f"only {format_value(observed, metric)} {units(metric)}"
    )
    sentence = (
        f"{_subject(api_key, label)} used {amount} from {day_text(grid.day(first))} to "
        f"{day_text(grid.day(last))} ({last - first + 1} days), where about "
        f"{format_value(usual, metric)} would be usual."
    )
    return Anomaly(
        "drop", api_key, label, metric, grid.day(first), grid.day(last), observed, usual,
        NEAR_ZERO * usual, _share_severity(usual, organization), sentence,
    )  # fmt: skip


def _new_keys(grid: _Grid, checked: int) -> list[Anomaly]:
    first_used = np.where(grid.used.any(axis=1), grid.used.argmax(axis=1), -1)
    new = np.nonzero((first_used >= checked) & (first_used >= DORMANT_DAYS))[0]
    last_day = grid.used.shape[1] - 1
    first = first_used[new]
    week = np.minimum(first[:, None] + np.arange(NEW_KEY.days), last_day)
    first_week = grid.series[:, new[:, None], week]  # metrics × new keys × days
    peak = np.nanmax(first_week, axis=2)
    # The day of each peak, so the anomaly's days end on the day its observed value is from.
    peak_day = week[np.arange(len(new)), np.nanargmax(first_week, axis=2)]  # metrics × new keys
    minutes = np.array([is_minutes(m) for m in METRICS])
    floor = np.where(minutes, MIN_EXCESS[True], MIN_EXCESS[False])[:, None]
    material = np.fmax(floor, NEW_KEY.share * grid.usual[:, first])
    passed = peak >= material
    found = []
    for i in np.nonzero(passed.any(axis=0))[0]:
        m = int(passed[:, i].argmax())
        days = (int(first[i]), int(peak_day[m, i]))
        found.append(_new_key(grid, int(new[i]), days, m, peak[m, i], material[m, i]))
    return found


def _new_key(
    grid: _Grid, key: int, days: tuple[int, int], m: int, peak: float, material: float
) -> Anomaly:
    """A new key from its first day to the day of its first week's peak (``observed``)."""
    first, peak_day = days
    api_key, label, metric = grid.keys[key], grid.labels[key], METRICS[m]
    usual = float(grid.usual[m, first])
    share = (
        f"{share_text(peak / usual)} of the organization's usual day"
        if usual > 0
        else "the organization's first such usage"
    )
    sentence = (
        f"{_subject(api_key, label)} is a new key, first used on {day_text(grid.day(first))}: "
        f"up to {format_value(peak, metric)} {units(metric)} a day in its first week, {share}."
    )
    return Anomaly(
        "new", api_key, label, metric, grid.day(first), grid.day(peak_day), float(peak), 0.0,
        float(material), _share_severity(peak, usual), sentence,
    )  # fmt: skip


def _dormant_keys(grid: _Grid, checked: int) -> list[Anomaly]:
    keys, days = _cells(grid.used)
    silent = np.diff(days, prepend=0) - 1
    woken = (np.diff(keys, prepend=-1) == 0) & (silent >= DORMANT_DAYS) & (days >= checked)
    return [
        _dormant(grid, int(key), int(day), int(gap))
        for key, day, gap in zip(keys[woken], days[woken], silent[woken], strict=True)
    ]


def _dormant(grid: _Grid, key: int, day: int, silent: int) -> Anomaly:
    """A key used again after `silent` days, told by its first metric used that day."""
    api_key, label = grid.keys[key], grid.labels[key]
    day_values = np.nan_to_num(grid.series[:, key, day])
    m = int((day_values > 0).argmax())
    metric, observed = METRICS[m], float(day_values[m])
    sentence = (
        f"{_subject(api_key, label)} was used again on {day_text(grid.day(day))} after "
        f"{silent} days without usage: {format_value(observed, metric)} {units(metric)}."
    )
    severity = _share_severity(observed, float(grid.usual[m, day]))
    return Anomaly(
        "dormant", api_key, label, metric, grid.day(day), grid.day(day), observed, 0.0, 0.0,
        severity, sentence,
    )  # fmt: skip


def _share_severity(amount: float, organization: float) -> Severity:
    """How much of the organization's usual usage an amount is."""
    share = amount / organization if organization > 0 else 1.0
    return _severity(share, SHARE_SEVERITY)


def _severity(value: float, floors: Mapping[Severity, float]) -> Severity:
    """The first severity whose floor `value` reaches; low below them all."""
    return next((severity for severity, floor in floors.items() if value >= floor), "low")


# --- one series with its baseline, for a chart -------------------------------------------------


def baseline(
    key_day: pd.DataFrame, covered_from: date, end: date, api_key: str, metric: str
) -> pd.DataFrame:
    """One key's (or the organization's) daily `metric` over ``covered_from``–``end`` with
    what each day was judged against: columns ``usage_date``, ``observed``, ``expected`` (the
    baseline's median) and ``bound`` (the spike bound); NaN where a day had too few used days
    before it to be judged."""
    frame = key_day if api_key == ORGANIZATION else key_day[key_day["api_key"] == api_key]
    grid = _grid(frame, covered_from, end)
    key = -1 if api_key == ORGANIZATION else grid.keys.index(api_key)
    rows = np.nonzero(grid.row_key == key)[0]
    # A service a key uses alone is judged as its total characters.
    judged_as = [METRICS.index(metric), METRICS.index(TOTAL_CHARACTERS)]
    row = next((r for m in judged_as for r in rows if grid.row_metric[r] == m), None)
    if row is None:
        raise ValueError(f"{api_key} has no {metric} in {covered_from}–{end}")
    days = np.arange(grid.values.shape[1])
    count, median, bound = _bounds(grid, np.full(len(days), row), days)
    judged = count >= MIN_ACTIVE
    return pd.DataFrame(
        {
            "usage_date": pd.date_range(covered_from, end, freq="D").astype("datetime64[us]"),
            "observed": np.nan_to_num(grid.values[row]),
            "expected": np.where(judged, median, np.nan),
            "bound": np.where(judged, bound, np.nan),
        }
    )


# --- words -------------------------------------------------------------------------------------


def units(metric: str) -> str:
    """A metric's unit as a sentence says it: "characters", "document translation characters",
    "speech-to-text minutes"."""
    return "characters" if metric == TOTAL_CHARACTERS else METRIC_LABELS[metric].lower()


def day_text(day: date) -> str:
    return f"{day:%a %Y-%m-%d}"


def _subject(api_key: str, label: str) -> str:
    if api_key == ORGANIZATION:
        return "The organization"
    return label or api_key


def _times(ratio: float) -> str:
    return f"{ratio:.0f}×" if ratio >= 3 else f"{ratio:.1f}×"
