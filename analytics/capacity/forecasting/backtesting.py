"""The backtest: how wrong each candidate has been on this series' own past, which one to
trust at each horizon, and the forecast's one accuracy figure.

**Rolling origin.** From the first day of each of the last ``ORIGINS`` months (as far as the
history reaches: a candidate needs four weeks before an origin), every candidate forecasts
from the days before that origin only; each origin is fitted once and its one forecast gives
every horizon: the month, the quarter (three months) and the 12 months from the origin. A
horizon is scored once it has ended inside the history.

**Everything as known then.** What the product would have served at an origin is worked out
from the rows whose horizon had ended before it, of the ``ORIGINS`` origins before it (the
window the product itself reads), so every figure below is out of sample:

* **Intervals** come from the errors, not from a model's assumptions: the ratios actual ÷
  forecast of the served forecast's past totals at the same horizon, whichever candidate
  served each as the product serving at the origin chose it, from that window alone
  (``Backtest.interval_ratios``). The candidate chosen is the one that erred least lately,
  which says little of how far it will err next: on real series after a change of regime
  its own 12-month errors held a 12-month interval about half the time (56 %), the served
  forecast's two times in three (68 %), each read both ways, r and 1 ÷ r, 78 %
  (`bench/real_series.py`). The interval is the forecast times their 10th and 90th
  percentiles (80 %) and 2.5th and 97.5th (95 %) (``interval_shares``), at rank p·(n+1) of
  the n ratios (the rank at which an interval from n past errors covers a new one with
  probability p when errors repeat; beyond the extreme ratios, clamped to them), widened to
  hold the forecast. A ratio is never negative, nor is an interval. It needs at least
  ``MIN_ERRORS`` errors of its own horizon; with fewer, the month-ahead ones stand in for a
  longer horizon (an error in the level persists over it); with fewer still, there is no
  interval and it does not count in the coverage.
* **The point forecast** is the candidate's own forecast (the rows' ``raw`` and
  ``forecast``): correcting it by the median of its past ratios carried an old regime's
  bias into the next, and made the served forecast worse on every real series at every
  horizon (`bench/real_series.py`).
* **The choice, per horizon** (``choice``): the candidate with the lowest WAPE at that
  horizon over the origins compared, seasonal naive, the yardstick, unless beaten by its margin.
* **The served forecast** (``Backtest.served``): at each origin and horizon, the point and
  interval of the candidate chosen then. Its month-ahead WAPE over the last ``RECENT`` months
  is the forecast's one accuracy figure (``accuracy``), and the share of its totals inside
  their 80 % and 95 % intervals, per horizon, is their measured coverage (``scores``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cached_property
from typing import Final

import numpy as np
import numpy.typing as npt
import pandas as pd

from analytics.capacity.forecasting.candidates import (
    CANDIDATES,
    RUN_RATE,
    Floats,
    History,
    predict_all,
)
from analytics.capacity.forecasting.choice import (
    CHOICE_ORIGINS,
    LAST_YEARS,
    MIN_SCORED,
    best,
    compared,
    out_of_line,
)
from analytics.capacity.forecasting.run_rate_model import LEVEL_DAYS
from analytics.capacity.forecasting.scores import coverage, wape

ORIGINS: Final = 24
HORIZONS: Final[dict[str, int]] = {"month": 1, "quarter": 3, "12 months": 12}  # months ahead
RECENT: Final = 12  # the window the accuracy figure reads: the last 12 origins
MIN_ERRORS: Final = 9  # the fewest whose 10th and 90th percentiles need no clamping
LEVELS: Final[dict[str, tuple[float, float]]] = {"80": (0.10, 0.90), "95": (0.025, 0.975)}
MIN_FORECAST: Final = 0.01  # a total forecast below this has no ratio: it is zero
SERVED: Final = "forecast"  # the served forecast's rows in ``Backtest.table``
ROW_COLUMNS: Final = ["candidate", "horizon", "origin", "end", "raw", "actual"]
INTERVAL_COLUMNS: Final = [f"{side}_{level}" for level in LEVELS for side in ("low", "high")]


def months_later(day: date, months: int) -> date:
    """The first day ``months`` after the month start ``day``."""
    index = day.month - 1 + months
    return date(day.year + index // 12, index % 12 + 1, 1)


def origins(history: History, count: int = ORIGINS) -> list[date]:
    """The month starts of the last ``count`` whole months of the history, oldest first."""
    last = history.last
    newest = months_later(last.replace(day=1), 0 if _is_month_end(last) else -1)
    found = [months_later(newest, -n) for n in range(count)]
    return sorted(day for day in found if day >= history.first)


def _is_month_end(day: date) -> bool:
    return (day + timedelta(days=1)).day == 1


def ratio_quantiles(ratios: Sequence[float], shares: Iterable[float]) -> Floats:
    """The ``shares`` (fractions) of the ratios actual ÷ forecast, at rank p·(n+1) (numpy's
    ``weibull`` method), clamped to the smallest and largest ratio."""
    found: Floats = np.quantile(np.asarray(ratios, dtype=float), list(shares), method="weibull")
    return found


def interval_shares(ratios: Sequence[float]) -> Floats:
    """The point's share of a forecast (1: the forecast itself) then each level's low and
    high share (``LEVELS``), from the ratios actual ÷ forecast, each bound widened to hold
    the point. Each ratio is read both ways, r and 1 ÷ r (a zero once): the errors are the
    served forecast's whichever model served each, over 12 months the run rate's at every
    origin (none has ``MIN_SCORED`` 12-month totals scored before it), so their size says how
    far a total strays, their direction only that other model's bias."""
    found = np.asarray(ratios, dtype=float)
    both = np.concatenate([found, 1.0 / found[found > 0]])
    bounds = ratio_quantiles(both.tolist(), [share for pair in LEVELS.values() for share in pair])
    lows, highs = np.minimum(bounds[0::2], 1.0), np.maximum(bounds[1::2], 1.0)
    shares: Floats = np.concatenate([[1.0], np.column_stack([lows, highs]).ravel()])
    return shares


def _window_start(before: date) -> date:
    """The oldest origin the product reads at ``before``: ``ORIGINS`` months back."""
    return months_later(before.replace(day=1), -ORIGINS)


@dataclass(frozen=True)
class _Columns:
    """The rows as arrays, for the many selections the intervals and the choices make."""

    candidate: npt.NDArray[np.object_]
    horizon: npt.NDArray[np.object_]
    origin: npt.NDArray[np.int64]  # proleptic ordinals
    end: npt.NDArray[np.int64]
    ratio: Floats  # actual ÷ raw forecast (see ``of``)
    raw: Floats
    forecast: Floats
    actual: Floats

    @classmethod
    def of(cls, rows: pd.DataFrame) -> _Columns:
        raw = rows["raw"].to_numpy(dtype=float)
        actual = rows["actual"].to_numpy(dtype=float)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            # A total forecast at zero has no ratio: no multiple of it can say how far off
            # it was, so a series only ever forecast at zero (a key not used yet) has no
            # interval. Below the least any metric counts (a hundredth of a minute) a
            # forecast is zero.
            ratio = np.where(raw >= MIN_FORECAST, actual / raw, np.nan)
        return cls(
            rows["candidate"].to_numpy(dtype=object),
            rows["horizon"].to_numpy(dtype=object),
            np.array([d.toordinal() for d in rows["origin"]], dtype=np.int64),
            np.array([d.toordinal() for d in rows["end"]], dtype=np.int64),
            ratio,
            raw,
            rows["forecast"].to_numpy(dtype=float) if "forecast" in rows else raw,
            actual,
        )

    def known(
        self, horizon: str, before: date | None, floor: date | None = None
    ) -> npt.NDArray[np.bool_]:
        """The rows of ``horizon`` known at ``before`` (ended before it, within the window),
        of origins from ``floor`` on (when given)."""
        chosen: npt.NDArray[np.bool_] = np.asarray(self.horizon == horizon, dtype=bool)
        if before is not None:
            chosen &= self.end < before.toordinal()
            chosen &= self.origin >= _window_start(before).toordinal()
        if floor is not None:
            chosen &= self.origin >= floor.toordinal()
        return chosen


@dataclass(frozen=True)
class Backtest:
    """Every candidate's backtested forecasts of one series, and the scores drawn from them.

    ``rows``: one per candidate, horizon and origin scored: ``candidate``, ``horizon``,
    ``origin``, ``end`` (the horizon's last day), ``raw`` (the candidate's forecast),
    ``actual``, and from the errors known at the origin the point ``forecast`` and the
    interval (``low_80``, ``high_80``, ``low_95``, ``high_95``; NaN when too few errors were
    known then).
    """

    rows: pd.DataFrame

    def of(self, candidate: str, horizon: str) -> pd.DataFrame:
        rows = self.rows
        return rows[(rows["candidate"] == candidate) & (rows["horizon"] == horizon)]

    @cached_property
    def _columns(self) -> _Columns:
        return _Columns.of(self.rows)

    def ratios(self, candidate: str, horizon: str, before: date | None = None) -> list[float]:
        """The candidate's ratios actual ÷ forecast at ``horizon`` (known at ``before``, when
        given); of totals forecast above zero."""
        columns = self._columns
        chosen = columns.known(horizon, before) & (columns.candidate == candidate)
        return [float(r) for r in columns.ratio[chosen] if not math.isnan(r)]

    def _served_known(
        self, horizon: str, before: date | None
    ) -> tuple[_Columns, npt.NDArray[np.bool_]]:
        """The served forecast's rows as the product serving at ``before`` served them (each
        chosen from the rows of its window alone, ``_served_from``, however far back this
        backtest reaches), and which of them are of ``horizon`` and known at ``before`` (all
        when None)."""
        columns = self._served_from(None if before is None else _window_start(before))[1]
        return columns, columns.known(horizon, before)

    @cached_property
    def _served_by_floor(self) -> dict[date | None, tuple[pd.DataFrame, _Columns]]:
        return {}  # ``_served_from``'s, by floor

    def part_ratios(
        self, whole: History, part: Floats, horizon: str, before: date | None = None
    ) -> list[float]:
        """The ratios an interval of a part of the series uses at ``horizon`` (known at
        ``before``, when given): its own (``shared_ratios``) once it has ``MIN_ERRORS``, else
        the whole's (``interval_ratios``)."""
        own = self.shared_ratios(whole, part, horizon, before)
        return own if len(own) >= MIN_ERRORS else self.interval_ratios(horizon, before)

    def shared_ratios(
        self, whole: History, part: Floats, horizon: str, before: date | None = None
    ) -> list[float]:
        """The ratios actual ÷ forecast at ``horizon`` (known at ``before``, when given) of a
        part of the series (``part``: its daily values over ``whole``'s days), projected as a
        part is (``projections``): at each origin its share of the whole over the
        ``LEVEL_DAYS`` days before it, times the served forecast. A part strays from its
        share further than the whole from its forecast: the benchmark's largest keys of a
        thousand held an interval scaled from the whole's in a third of the months."""
        columns, known = self._served_known(horizon, before)
        if not known.any():
            return []
        parts = np.concatenate([[0.0], np.cumsum(part)])
        wholes = np.concatenate([[0.0], np.cumsum(whole.values)])
        first = whole.first.toordinal()
        start = columns.origin[known] - first
        stop = columns.end[known] - first + 1
        level = np.maximum(start - LEVEL_DAYS, 0)
        recent = wholes[start] - wholes[level]
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(recent > 0, (parts[start] - parts[level]) / recent, 0.0)
            forecast = share * columns.raw[known]
            ratio = (parts[stop] - parts[start]) / forecast
        return [float(r) for r in ratio[forecast >= MIN_FORECAST]]

    def interval_ratios(self, horizon: str, before: date | None = None) -> list[float]:
        """The ratios an interval at ``horizon`` uses: the served forecast's at that horizon
        (known at ``before``, when given), else its month-ahead ones, else none (see the
        module). The choice reads the candidates' own forecasts only, so the served rows
        are known before any interval is."""
        for read in (horizon, "month"):
            columns, known = self._served_known(read, before)
            found = [float(r) for r in columns.ratio[known] if not math.isnan(r)]
            if len(found) >= MIN_ERRORS:
                return found
        return []

    def chosen_for(
        self,
        horizon: str,
        before: date | None = None,
        totals: Mapping[str, float] | None = None,
        floor: date | None = None,
    ) -> str:
        """The candidate serving ``horizon``, chosen (``choice``) from the rows known at
        ``before`` (all rows when None), of origins from ``floor`` on (when given): the lowest
        WAPE over the origins compared, seasonal naive unless beaten by its margin there and
        at the shorter horizons; the run rate when fewer than ``MIN_SCORED`` were scored.
        Given the ``totals`` each candidate forecasts from the origin served, a choice reading
        last year's days out of line with them (``out_of_line``) gives way to the best of the
        others."""
        scores = self._scores(horizon, before, floor)
        if scores is None:
            return RUN_RATE
        horizons = list(HORIZONS)
        earlier = {h: self._scores(h, before, floor) for h in horizons[: horizons.index(horizon)]}
        chosen = best(scores, horizon, {h: s for h, s in earlier.items() if s is not None})
        if totals is not None and out_of_line(chosen, totals):
            # Seasonal naive is left out with them: the shorter horizons' margins are its own.
            return best({c: s for c, s in scores.items() if c not in LAST_YEARS}, horizon)
        return chosen

    def _scores(
        self, horizon: str, before: date | None, floor: date | None
    ) -> dict[str, float] | None:
        """Each candidate compared's WAPE at ``horizon`` over the origins compared
        (``compared``) among the rows known at ``before``, of origins from ``floor`` on; None
        when fewer than ``MIN_SCORED`` origins were scored."""
        if floor is not None and before is not None and floor <= _window_start(before):
            floor = None  # the window at ``before`` begins after it: the same rows either way
        key = horizon, before, floor
        if key in self._scored:
            return self._scored[key]
        columns = self._columns
        known = columns.known(horizon, before, floor)
        scored = np.unique(columns.origin[known])
        found: dict[str, float] | None = None
        if len(scored) >= MIN_SCORED:
            by_candidate = {c: columns.origin[known & (columns.candidate == c)] for c in CANDIDATES}
            origins, candidates = compared(scored[-CHOICE_ORIGINS:], by_candidate)
            common = known & np.isin(columns.origin, origins)
            found = {}
            for candidate in candidates:
                rows = common & (columns.candidate == candidate)
                actual = float(columns.actual[rows].sum())
                error = float(np.abs(columns.actual[rows] - columns.forecast[rows]).sum())
                found[candidate] = error / actual if actual > 0 else math.inf
        self._scored[key] = found
        return found

    @cached_property
    def _scored(self) -> dict[tuple[str, date | None, date | None], dict[str, float] | None]:
        return {}  # ``_scores``', by horizon, day and floor

    @cached_property
    def models(self) -> dict[str, str]:
        """The candidate serving each horizon now (from every row)."""
        return {horizon: self.chosen_for(horizon) for horizon in HORIZONS}

    @property
    def chosen(self) -> str:
        """The candidate serving the month ahead."""
        return self.models["month"]

    @property
    def served(self) -> pd.DataFrame:
        """What the product would have served at each origin and horizon: the row of the
        candidate chosen then (``chosen_for`` at the origin), the run rate's when that one did
        not forecast there. The rows' columns, ``candidate`` naming the model used."""
        return self._served_from(None)[0]

    def _served_from(self, floor: date | None) -> tuple[pd.DataFrame, _Columns]:
        """``served`` of the origins from ``floor`` on, each chosen from the rows of those
        origins alone, as a backtest starting at ``floor`` serves them: what the product
        serving at ``floor`` + ``ORIGINS`` months read. A floor at or before the first origin
        is the whole backtest; each is worked out once."""
        rows = self.rows
        if floor is not None and (rows.empty or floor <= min(rows["origin"])):
            floor = None
        if floor in self._served_by_floor:
            return self._served_by_floor[floor]
        index = {
            (c, h, o): i
            for i, (c, h, o) in enumerate(
                zip(rows["candidate"], rows["horizon"], rows["origin"], strict=True)
            )
        }
        raw = rows["raw"].to_numpy(dtype=float)
        picked = []
        for origin in sorted(o for o in set(rows["origin"]) if floor is None or o >= floor):
            for horizon in HORIZONS:
                totals = {
                    c: float(raw[index[c, horizon, origin]])
                    for c in (RUN_RATE, *LAST_YEARS)
                    if (c, horizon, origin) in index
                }
                model = self.chosen_for(horizon, origin, totals, floor)
                found = index.get((model, horizon, origin), index.get((RUN_RATE, horizon, origin)))
                if found is not None:
                    picked.append(found)
        served = rows.iloc[picked].reset_index(drop=True)
        self._served_by_floor[floor] = served, _Columns.of(served)
        return served, self._served_by_floor[floor][1]

    def recent(self, horizon: str = "month") -> pd.DataFrame:
        """The served forecast's rows of the last ``RECENT`` origins scored at ``horizon``:
        the window the accuracy figure and the measured coverage read."""
        served = self.served
        return served[served["horizon"] == horizon].tail(RECENT)

    def table(self) -> pd.DataFrame:
        """Per candidate and horizon, and for the served forecast (``SERVED``), over the last
        ``RECENT`` origins scored at that horizon (the window the choice reads): ``scored``
        (totals), ``wape`` of the points, and the ``coverage_80`` and ``coverage_95`` of the
        totals that had an interval (NaN when none had)."""
        out = []
        rows = self.rows
        for horizon in HORIZONS:
            at = rows[rows["horizon"] == horizon]
            window = sorted(set(at["origin"]))[-RECENT:]
            groups = [(c, at[(at["candidate"] == c) & at["origin"].isin(window)]) for c in
                      CANDIDATES]  # fmt: skip
            groups.append((SERVED, self.recent(horizon)))
            for candidate, part in groups:
                if part.empty:
                    continue
                out.append(
                    {
                        "candidate": candidate,
                        "horizon": horizon,
                        "scored": len(part),
                        "wape": wape(part),
                        **{f"coverage_{level}": coverage(part, level) for level in LEVELS},
                    }
                )
        columns = ["candidate", "horizon", "scored", "wape", "coverage_80", "coverage_95"]
        return pd.DataFrame(out, columns=columns)


def backtest(
    history: History, count: int = ORIGINS, candidates: Sequence[str] = CANDIDATES
) -> Backtest:
    """The ``candidates`` from each origin (``origins``), each horizon scored once it has
    ended; the intervals and points from the errors known at each origin."""
    rows = []
    for origin in origins(history, count):
        start = history.index(origin)
        ends = {h: history.index(months_later(origin, m)) for h, m in HORIZONS.items()}
        scored = {h: end for h, end in ends.items() if end <= len(history.values)}
        if not scored:
            continue
        days = max(scored.values()) - start
        for candidate, daily in predict_all(history, start, days, candidates).items():
            for horizon, end in scored.items():
                rows.append(
                    {
                        "candidate": candidate,
                        "horizon": horizon,
                        "origin": origin,
                        "end": history.day(end - 1),
                        "raw": float(daily[: end - start].sum()),
                        "actual": float(history.values[start:end].sum()),
                    }
                )
    return Backtest(_with_intervals(pd.DataFrame(rows, columns=ROW_COLUMNS)))


def _with_intervals(frame: pd.DataFrame) -> pd.DataFrame:
    """Each row's point and intervals from the errors known at its origin: the same shares
    for every candidate of a horizon and origin, worked out once."""
    partial = Backtest(frame)
    none = np.array([1.0, *[math.nan] * len(INTERVAL_COLUMNS)])
    known: dict[tuple[str, date], Floats] = {}
    for horizon, origin in set(zip(frame["horizon"], frame["origin"], strict=True)):
        ratios = partial.interval_ratios(horizon, origin)
        known[horizon, origin] = interval_shares(ratios) if ratios else none
    shares = [known[key] for key in zip(frame["horizon"], frame["origin"], strict=True)]
    values = np.asarray(shares, dtype=float).reshape(len(frame), 1 + len(INTERVAL_COLUMNS))
    values = values * frame["raw"].to_numpy(dtype=float)[:, None]
    bounds = {name: values[:, 1 + i] for i, name in enumerate(INTERVAL_COLUMNS)}
    return frame.assign(forecast=values[:, 0], **bounds)
