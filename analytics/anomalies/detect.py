"""Anomalies in each key's daily usage, and in the organization's, against its own habit:
each day against its baseline (`baseline`, `usual`), four kinds found on one grid.

* **spike** — usage above the day's spike bound (`usual`). Consecutive spike days are one
  anomaly, told at its peak; severity by the peak's ratio to its usual day (RATIO_SEVERITY).
* **drop** — usage at (near) zero (at most NEAR_ZERO of the median of the same weekdays of
  the eight weeks before, `baseline.medians`) on consecutive days that were hard to miss by
  chance: the product over the days of each weekday's share of unused
  days in the baseline weeks (smoothed, ``(unused + ½) / (known + 1)``, so a weekday used in
  all eight weeks still counts 1/18) is at most DROP_CHANCE. A key used on each of the past
  eight Mondays, Tuesdays and Wednesdays drops when it goes unused on all three (at least
  three days, then); a key used on half its days does not drop in a fortnight.
* **new** — a key first used in the checked range after at least DORMANT_DAYS days the data
  covers without it, whose biggest day in its first week (NEW_KEY.days) is material: at
  least NEW_KEY.share of the organization's usual day (its mean day over the eight weeks
  before) and MIN_EXCESS.
* **dormant** — a key used again after DORMANT_DAYS or more days without any usage.

Drops, new keys and dormant keys are ranked by their share of the organization's usual day
(SHARE_SEVERITY). Under a team's scope the frame holds the team's keys, whose sum stands in
for the organization's everywhere ("the organization's" above): a team's new key is weighed
against the team's usual day, and said so (`model.Whole`). A key's spikes (or drops) of
several metrics starting on the same day are one anomaly, on the metric furthest from usual
(for drops, the first metric).

The constants were chosen on the emulator's synthetic organizations, whose keys vary by about
35 % from day to day and are used on 40-85 % of working days (bench/anomalies.py measures the
benchmark's): a spike of three times the usual day stands just above the bound of such a key,
so what decides whether it is found is how precisely the usual day and the spread are known
(`usual`).

Only the anomalies found become Python objects (`model`), which also tells them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Final

import numpy as np
import pandas as pd

from analytics.anomalies import model
from analytics.anomalies.baseline import (
    LOOKBACK_DAYS,
    MIN_ACTIVE,
    MIN_EXCESS,
    Grid,
    key_grid,
    medians,
    over_weeks,
    reaching,
)
from analytics.anomalies.model import WHOLE_ORGANIZATION, Anomaly, Severity, Whole
from analytics.anomalies.usual import WEEKDAY_RATIO, spike_bounds
from analytics.usage import METRICS, is_minutes

# The engine's interface: `find_anomalies`, what it finds, the days it reads before a checked
# range, and the rule a new key must pass.
__all__ = ["LOOKBACK_DAYS", "NEW_KEY", "Anomaly", "find_anomalies"]

NEAR_ZERO: Final = 0.05
DROP_CHANCE: Final = 2e-4
DORMANT_DAYS: Final = 30
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
# Grid rows taken at a time by the passes over every day (32 rows of some 2,000 days are half
# a megabyte an array).
ROW_BLOCK: Final = 32


# --- cells and runs --------------------------------------------------------------------------


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
    key_day: pd.DataFrame,
    covered_from: date,
    start: date,
    end: date,
    whole: Whole = WHOLE_ORGANIZATION,
) -> list[Anomaly]:
    """Anomalies of the checked days ``start``–``end`` in a key-day frame that covers
    ``covered_from``–``end`` (LOOKBACK_DAYS before ``start`` give full baselines), most severe
    first, then newest first; the frame's keys add up to ``whole`` (the organization, or a
    team's scope), whose usual day their shares are of."""
    if end < start or start < covered_from:
        raise ValueError(f"the checked days {start}–{end} must lie within {covered_from}–{end}")
    grid = key_grid(key_day, covered_from, end, whole)
    if not len(grid.row_key):
        return []
    checked = (start - covered_from).days
    judged = _Judged.of(grid)
    return model.ordered(
        [
            *_spikes(grid, judged, checked),
            *_drops(grid, judged, checked),
            *_new_keys(grid, checked),
            *_dormant_keys(grid, checked),
        ]
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
    used days it has, their median and, where the day could be above it, the usual day and
    the spike bound (NaN elsewhere)."""

    rows: np.ndarray
    days: np.ndarray
    observed: np.ndarray
    count: np.ndarray
    median: np.ndarray
    usual: np.ndarray
    bound: np.ndarray

    @classmethod
    def of(cls, grid: Grid) -> _Judged:
        """The used cells counting cannot settle (`_unsettled`), in row-major order, with
        their baselines' medians. A spike is at least WEEKDAY_RATIO times that median, so
        only the few days above it can be spikes: only theirs have their usual day and bound
        worked out (`spike_bounds`)."""
        rows, days = _cells(_unsettled(grid))
        observed = grid.values[rows, days]
        count, median = medians(grid, rows, days)
        above = np.nonzero((count >= MIN_ACTIVE) & (observed > WEEKDAY_RATIO * median))[0]
        usual, bound = np.full(len(rows), np.nan), np.full(len(rows), np.nan)
        usual[above], bound[above] = spike_bounds(
            grid, rows[above], days[above], median[above], observed[above]
        )
        return cls(rows, days, observed, count, median, usual, bound)

    @property
    def spikes(self) -> np.ndarray:
        spike: np.ndarray = (self.count >= MIN_ACTIVE) & (self.observed > self.bound)
        return spike

    @property
    def near_zero(self) -> np.ndarray:
        low: np.ndarray = (self.count >= MIN_ACTIVE) & (self.observed <= NEAR_ZERO * self.median)
        return low


def _unsettled(grid: Grid) -> np.ndarray:
    """Which used cells counting cannot settle: a day is no spike when enough of its weekdays
    reach its usage divided by WEEKDAY_RATIO (so does their median, and a spike is at least
    WEEKDAY_RATIO times it), and not near zero when none reaches its usage divided by
    NEAR_ZERO. Taken ROW_BLOCK rows at a time, whose arrays stay in the processor's cache
    through the dozen passes over them (the whole grid's do not, and take twice as long)."""
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
    unsettled |= reaching(padded, values / WEEKDAY_RATIO) < need
    unsettled |= over_weeks(padded, np.fmax) >= values / NEAR_ZERO
    cells: np.ndarray = (values > 0) & unsettled
    return cells


def _spikes(grid: Grid, judged: _Judged, checked: int) -> list[Anomaly]:
    spike = judged.spikes
    rows, days = judged.rows[spike], judged.days[spike]
    observed, usual, bound = judged.observed[spike], judged.usual[spike], judged.bound[spike]
    run, firsts, lasts = _runs(rows, days)
    ratio = observed / usual
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
            usual[peaks].tolist(),
            bound[peaks].tolist(),
            strict=True,
        )
    ]


def _spike(
    grid: Grid,
    row: int,
    days: tuple[int, int, int],
    observed: float,
    usual: float,
    bound: float,
) -> Anomaly:
    """A run of spike days from its first to its last day, told at its `peak` day."""
    first, last, day = (grid.day(d) for d in days)
    severity = _severity(observed / usual, RATIO_SEVERITY)
    return model.spike(grid.who(row), (first, last, day), observed, usual, bound, severity)


def _drops(grid: Grid, judged_cells: _Judged, checked: int) -> list[Anomaly]:
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
    _, median = medians(grid, rows, days)
    share_used = grid.active[rows, days] / np.maximum(grid.known(rows, days), 1)
    usual = np.add.reduceat(np.nan_to_num(median) * share_used, starts)
    observed = np.add.reduceat(values[rows, days], starts)
    return [
        _drop(grid, int(row), int(first), int(last), float(seen), float(expected))
        for row, first, last, seen, expected in zip(
            run_rows, firsts, lasts, observed, usual, strict=True
        )
    ]


def _drop(grid: Grid, row: int, first: int, last: int, observed: float, usual: float) -> Anomaly:
    who = grid.who(row)
    organization = float(np.nansum(grid.usual[METRICS.index(who.metric), first : last + 1]))
    severity = _share_severity(usual, organization)
    return model.drop(
        who, grid.day(first), grid.day(last), observed, usual, NEAR_ZERO * usual, severity
    )


def _new_keys(grid: Grid, checked: int) -> list[Anomaly]:
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
    grid: Grid, key: int, days: tuple[int, int], m: int, peak: float, material: float
) -> Anomaly:
    """A new key from its first day to the day of its first week's peak (``observed``)."""
    first, peak_day = days
    who = grid.key_series(key, m)
    usual = float(grid.usual[m, first])
    severity = _share_severity(peak, usual)
    return model.new_key(
        who, grid.day(first), grid.day(peak_day), float(peak), usual, float(material), severity
    )


def _dormant_keys(grid: Grid, checked: int) -> list[Anomaly]:
    keys, days = _cells(grid.used)
    silent = np.diff(days, prepend=0) - 1
    woken = (np.diff(keys, prepend=-1) == 0) & (silent >= DORMANT_DAYS) & (days >= checked)
    return [
        _dormant(grid, int(key), int(day), int(gap))
        for key, day, gap in zip(keys[woken], days[woken], silent[woken], strict=True)
    ]


def _dormant(grid: Grid, key: int, day: int, silent: int) -> Anomaly:
    """A key used again after `silent` days, told by its first metric used that day."""
    day_values = np.nan_to_num(grid.series[:, key, day])
    m = int((day_values > 0).argmax())
    who, observed = grid.key_series(key, m), float(day_values[m])
    severity = _share_severity(observed, float(grid.usual[m, day]))
    return model.dormant(who, grid.day(day), silent, observed, severity)


def _share_severity(amount: float, organization: float) -> Severity:
    """How much of the organization's usual usage an amount is."""
    share = amount / organization if organization > 0 else 1.0
    return _severity(share, SHARE_SEVERITY)


def _severity(value: float, floors: Mapping[Severity, float]) -> Severity:
    """The first severity whose floor `value` reaches; low below them all."""
    return next((severity for severity, floor in floors.items() if value >= floor), "low")
