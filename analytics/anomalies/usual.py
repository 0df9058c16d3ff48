"""A spike's baseline: each day's usual day and the series' spread, the spike bound they give
(`spike_bounds`), and one series with them for a chart (`baseline`). Only days before the
judged one are read.

Usage varies by a factor from day to day, so levels and spreads are read on the logarithm.
What decides whether a spike of three times the usual day stands out (a key that varies by a
third from day to day has its bound near three times) is how precisely the usual day and the
spread are known: both are read from as many days as can be trusted to share them.

**The weekdays' profile**, read over the half year before the day (SPREAD_WEEKS): each
weekday's median against its kind's centre (the median of the medians of the working days, or
of Saturday and Sunday). A weekday whose median stands further from the centre than chance
allows (WEEKDAY_SE standard errors, each √(π / 2n) of the weekday's own spread, read from its
quartiles, for a median of n used days, IQR_DAYS at least) has its own level: a key that runs
its big job every Monday. Every other weekday is its kind's.

**The usual day** is the level of the used days of its kind (working days, or weekend days) of
the eight weeks before it (BASELINE_WEEKS), each taken over its weekday's profile: their
geometric mean once the highest and lowest tenth (TRIM, at least one of each) are left out, so
a spike or an idle day among them does not move it; times the day's own weekday's profile.
Some thirty days give it, where the used same weekdays of eight weeks are a handful.

**The spread** is how much the series' days vary around their weekday's level over the half
year: the mean of the lowest nine tenths (SPREAD_KEPT) of the absolute deviations of their
logarithms, scaled to a standard deviation. A key's spread changes slowly, half a year of days
reads it nearly twice as precisely as eight weeks do, and a spread read too narrow by chance is
a false alarm.

The **spike bound** is ``usual × exp(SPIKE_K × spread × unsure)``, ``unsure`` widening it for
the usual day's own error (√(1 + TRIMMED_VARIANCE / n) for a level of n days, and π / 2m more
for a weekday's own median of m days); and at least SPIKE_RATIO times the usual day,
WEEKDAY_RATIO times the median of the same weekdays of the eight weeks (`medians`), and
MIN_EXCESS above the usual day (1,000 characters; a minute of speech, about as much), so steady
and tiny keys do not fire on noise.

The method was chosen by backtest on the emulator's organizations (bench/anomalies.py): the
weekday median of eight weeks (the detector before, whose bound was never under three times a
noisy median, and missed three in ten spikes of three to four times), the kind's median, the
spread over 8, 16 or 26 weeks and from day-to-day differences, with and without a weekday
profile, on organizations of other seeds than the benchmark's and on keys with a weekly job.
SPIKE_K is the lowest that kept under half a false alarm per key and year on each of those
other seeds (7, 11 and 23). statsmodels' STL on each day's past alone would be one robust fit
per judged day, some 30 ms each over a million key-days.

The days are read from the grid (`analytics.anomalies.baseline`), each day's half year one
sorted row.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from statistics import NormalDist
from typing import Final

import numpy as np
import pandas as pd
from numpy.lib.stride_tricks import sliding_window_view

from analytics.anomalies.baseline import (
    BASELINE_WEEKS,
    LOOKBACK_DAYS,
    MIN_ACTIVE,
    MIN_EXCESS,
    SPREAD_WEEKS,
    Grid,
    key_grid,
    medians,
    middle,
)
from analytics.anomalies.model import ORGANIZATION
from analytics.usage import METRICS, TOTAL_CHARACTERS, is_minutes

TRIM: Final = 0.1
WEEKDAY_SE: Final = 4.0
IQR_DAYS: Final = 6  # the fewest used days a weekday's own level is read from
SPIKE_K: Final = 3.1
SPIKE_RATIO: Final = 2.5  # times the usual day
WEEKDAY_RATIO: Final = 2.2  # times the median of the same weekdays (`medians`)
SPREAD_KEPT: Final = 0.9
# The mean of the lowest SPREAD_KEPT of the absolute deviations of normal values, in standard
# deviations: 2 (φ(0) − φ(q)) / SPREAD_KEPT, where q leaves SPREAD_KEPT of |Z| below it.
KEPT_MEAN: Final = (
    2
    * (NormalDist().pdf(0) - NormalDist().pdf(NormalDist().inv_cdf((1 + SPREAD_KEPT) / 2)))
    / SPREAD_KEPT
)
# The variance of a mean of normal values once the lowest and highest TRIM are left out, over
# that of one value, times their number: [1 − 2 TRIM − 2qφ(q) + 2 TRIM q²] / (1 − 2 TRIM)².
_Q = NormalDist().inv_cdf(1 - TRIM)
TRIMMED_VARIANCE: Final = (1 - 2 * TRIM - 2 * _Q * NormalDist().pdf(_Q) + 2 * TRIM * _Q**2) / (
    1 - 2 * TRIM
) ** 2


# --- the usual day and the spread --------------------------------------------------------------


def _trimmed_mean(ordered: np.ndarray, count: np.ndarray) -> np.ndarray:
    """The mean of the first `count` values of each sorted row once the lowest and highest
    TRIM of them (at least one of each, where three or more) are left out; NaN for none."""
    trim = np.minimum(np.ceil(TRIM * count), (count - 1) // 2).astype(np.int64)
    at = np.arange(ordered.shape[1])
    kept = (at >= trim[:, None]) & (at < (count - trim)[:, None])
    total = np.where(kept, ordered, 0).sum(axis=1, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean: np.ndarray = np.where(count > 0, total / np.maximum(count - 2 * trim, 1), np.nan)
    return mean


def _kept_spread(deviations: np.ndarray, count: np.ndarray) -> np.ndarray:
    """The spread of each row's `count` absolute deviations (the others NaN): the mean of the
    lowest SPREAD_KEPT of them, scaled to a standard deviation (÷ KEPT_MEAN). Leaving the
    highest tenth out keeps past spikes from widening it; on a hundred days it has about a
    quarter less error than the median absolute deviation, and a spread read too narrow by
    chance is a false alarm. (statsmodels' robust scales take one window an array; here every
    cell has a window of its own, with its own number of used days.)"""
    ordered = np.sort(deviations, axis=1)
    kept = np.maximum(np.floor(SPREAD_KEPT * count), 1).astype(np.int64)
    lowest = np.arange(ordered.shape[1]) < kept[:, None]
    total = np.where(lowest, ordered, 0).sum(axis=1, dtype=np.float64)
    spread: np.ndarray = np.where(count > 0, total / (kept * KEPT_MEAN), np.nan)
    return spread


def _quartiles_apart(ordered: np.ndarray, count: np.ndarray) -> np.ndarray:
    """The distance between the quartiles of the first `count` values of each sorted row, as
    a standard deviation (÷ 1.349); NaN under IQR_DAYS values."""
    at = np.arange(len(ordered)) * ordered.shape[1]
    low = ordered.ravel()[at + np.maximum(count - 1, 0) // 4]
    high = ordered.ravel()[at + np.maximum(3 * (count - 1), 0) // 4]
    apart: np.ndarray = np.where(count >= IQR_DAYS, (high - low) / 1.349, np.nan)
    return apart


@dataclass(frozen=True)
class Usual:
    """Each judged cell's usual day (``usual``), the spread of its series (``spread``; NaN
    where it was not needed), how many days of its kind its level was read from (``count``)
    and, where its weekday has a level of its own, how many of those weekdays (``own``; 0
    elsewhere): see the module's description."""

    usual: np.ndarray
    spread: np.ndarray
    count: np.ndarray
    own: np.ndarray

    @property
    def unsure(self) -> np.ndarray:
        """How much wider than the spread a day's departure from its usual day is, for the
        usual day's own error: √(1 + TRIMMED_VARIANCE / n (the level of n days) + π / 2m (the
        weekday's median of m days, where it has its own level))."""
        with np.errstate(divide="ignore"):
            weekday = np.where(self.own > 0, np.pi / (2 * self.own), 0)
        unsure: np.ndarray = np.sqrt(1 + TRIMMED_VARIANCE / np.maximum(self.count, 1) + weekday)
        return unsure


def _kind_centres(of_day: np.ndarray, weekend: np.ndarray) -> np.ndarray:
    """Each cell's centre of each column's kind (working days, or the weekend, as `weekend`
    marks the columns): the median of the kind's weekdays' medians `of_day`, so that a weekday
    is measured against the days it is usually like, and one odd weekday does not move it."""
    centre = np.empty_like(of_day)
    for kind in (False, True):
        columns = np.nonzero(weekend == kind)[0]
        of_kind_days = np.sort(of_day[:, columns], axis=1)
        seen = np.count_nonzero(~np.isnan(of_kind_days), axis=1)
        centre[:, columns] = middle(of_kind_days, seen)[:, None]
    return centre


# A half year of days before a cell, as SPREAD_WEEKS weeks × 7 in the order of the days: its
# first column holds the cell's own weekday, its last BASELINE_WEEKS rows the recent weeks.
OWN_WEEKDAY: Final = 0


def usual_days(
    grid: Grid,
    rows: np.ndarray,
    days: np.ndarray,
    median: np.ndarray,
    observed: np.ndarray | None = None,
) -> Usual:
    """The usual day and spread of each cell (see the module's description), its logarithms
    read against the cell's baseline `median` (`medians`), so that a steady series' usual day
    is its value exactly. Given the cells' `observed` usage, the spread is read only where it
    is above SPIKE_RATIO times the usual day (elsewhere no spread makes a spike): sorting half
    a year of days is the costly part. Taken one weekday of cells at a time, whose half years'
    columns are the same weekdays."""
    usual, spread = np.full(len(rows), np.nan), np.full(len(rows), np.nan)
    count, own_days = np.zeros(len(rows), np.int64), np.zeros(len(rows), np.int64)
    weekday = grid.weekday(days)
    # A padded row's LOOKBACK_DAYS from column `day` on are the half year before `day`.
    half_years = sliding_window_view(grid.logs, LOOKBACK_DAYS, axis=1)
    used_days = sliding_window_view(grid.used_days, LOOKBACK_DAYS, axis=1)
    for judged in range(7):
        cells = np.nonzero(weekday == judged)[0]
        if not len(cells):
            continue
        shape = (len(cells), SPREAD_WEEKS, 7)
        logs = half_years[rows[cells], days[cells]].reshape(shape)
        logs -= np.log(median[cells].astype(np.float32))[:, None, None]
        used = used_days[rows[cells], days[cells]].reshape(shape)
        on_day = np.zeros((len(cells), 7), np.int64)
        for week in range(SPREAD_WEEKS):
            on_day += used[:, week]
        by_day = np.sort(logs.transpose(0, 2, 1), axis=2).reshape(len(cells) * 7, SPREAD_WEEKS)
        of_day = middle(by_day, on_day.ravel()).reshape(len(cells), 7)
        weekend = (judged + np.arange(7)) % 7 >= 5  # each column's kind
        centre = _kind_centres(of_day, weekend)
        # A weekday's own level, where its median stands further from its kind's centre than
        # its error allows: √(π / 2n) of its own spread (read from its quartiles) for a median
        # of n days.
        own_spread = _quartiles_apart(by_day, on_day.ravel()).reshape(len(cells), 7)
        with np.errstate(invalid="ignore", divide="ignore"):
            apart = np.abs(of_day - centre)
            own = apart > WEEKDAY_SE * own_spread * np.sqrt(np.pi / (2 * on_day))
        profile = np.where(own, of_day - centre, 0).astype(np.float32)
        adjusted = logs - profile[:, None, :]
        of_kind = weekend == (judged >= 5)
        recent = adjusted[:, -BASELINE_WEEKS:, of_kind].reshape(len(cells), -1)
        count[cells] = used[:, -BASELINE_WEEKS:, of_kind].reshape(len(cells), -1).sum(axis=1)
        level = _trimmed_mean(np.sort(recent, axis=1), count[cells])
        usual[cells] = median[cells] * np.exp(level + profile[:, OWN_WEEKDAY])
        own_days[cells] = np.where(own[:, OWN_WEEKDAY], on_day[:, OWN_WEEKDAY], 0)
        needed = np.arange(len(cells))
        if observed is not None:
            needed = np.nonzero(observed[cells] > SPIKE_RATIO * usual[cells])[0]
        deviations = np.abs(adjusted[needed] - centre[needed, None, :])
        spread[cells[needed]] = _kept_spread(
            deviations.reshape(len(needed), LOOKBACK_DAYS), on_day[needed].sum(axis=1)
        )
    return Usual(usual, spread, count, own_days)


def spike_bounds(
    grid: Grid,
    rows: np.ndarray,
    days: np.ndarray,
    median: np.ndarray,
    observed: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The usual day of each cell and its spike bound, for cells whose baseline `median`
    (`medians`) rests on MIN_ACTIVE used days or more: see the module's description. Given the
    cells' `observed` usage, the bound is NaN where the day is not SPIKE_RATIO times its usual
    day (it cannot be a spike; see `usual_days`)."""
    found = usual_days(grid, rows, days, median, observed)
    usual, spread = found.usual, found.spread
    minutes = np.array([is_minutes(m) for m in METRICS])[grid.row_metric[rows]]
    excess = np.where(minutes, MIN_EXCESS[True], MIN_EXCESS[False])
    bound: np.ndarray = np.maximum.reduce(
        [
            usual * np.exp(SPIKE_K * np.fmax(spread, 0) * found.unsure),
            usual + excess,
            SPIKE_RATIO * usual,
            WEEKDAY_RATIO * median,
        ]
    )
    bound[np.isnan(spread)] = np.nan
    return usual, bound


# --- one series with its baseline, for a chart -------------------------------------------------


def baseline(
    key_day: pd.DataFrame, covered_from: date, end: date, api_key: str, metric: str
) -> pd.DataFrame:
    """One key's (or the organization's) daily `metric` over ``covered_from``–``end`` with
    what each day was judged against: columns ``usage_date``, ``observed``, ``expected`` (the
    usual day) and ``bound`` (the spike bound); NaN where a day had too few used days before it
    to be judged."""
    frame = key_day if api_key == ORGANIZATION else key_day[key_day["api_key"] == api_key]
    grid = key_grid(frame, covered_from, end)
    key = -1 if api_key == ORGANIZATION else grid.keys.index(api_key)
    rows = np.nonzero(grid.row_key == key)[0]
    # A service a key uses alone is judged as its total characters.
    judged_as = [METRICS.index(metric), METRICS.index(TOTAL_CHARACTERS)]
    row = next((r for m in judged_as for r in rows if grid.row_metric[r] == m), None)
    if row is None:
        raise ValueError(f"{api_key} has no {metric} in {covered_from}–{end}")
    every_day = np.arange(grid.values.shape[1])
    count, median = medians(grid, np.full(len(every_day), row), every_day)
    days = every_day[count >= MIN_ACTIVE]
    usual, bound = np.full(len(every_day), np.nan), np.full(len(every_day), np.nan)
    usual[days], bound[days] = spike_bounds(grid, np.full(len(days), row), days, median[days])
    return pd.DataFrame(
        {
            "usage_date": pd.date_range(covered_from, end, freq="D").astype("datetime64[us]"),
            "observed": np.nan_to_num(grid.values[row]),
            "expected": usual,
            "bound": bound,
        }
    )
