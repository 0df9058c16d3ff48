"""The backtest: how wrong each candidate has been on this series' own past, and which one to
trust.

**Rolling origin.** From the first day of each of the last ``ORIGINS`` months (as far as the
history reaches: a candidate needs four weeks before an origin), every candidate forecasts
from the days before that origin only; each origin is fitted once and its one forecast gives
every horizon: the month, the quarter (three months) and the 12 months from the origin. A
horizon is scored once it has ended inside the history.

**Scores.** WAPE, the weighted absolute percentage error: the sum of the absolute errors of a
horizon's totals over the sum of their actuals (months of little usage weigh little). The
candidate chosen for a series is the one with the lowest month-ahead WAPE over the last 12
origins, among the candidates that scored each of them (the yearly model needs two years
before an origin); the run rate while fewer than ``MIN_SCORED`` months were scored.

**Intervals** come from the backtest's errors, not from a model's assumptions: the ratios
actual ÷ forecast of a candidate's past totals at the same horizon (``ratio_quantiles``).
The interval of a forecast is the forecast times their 10th and 90th percentiles (80 %) and
2.5th and 97.5th (95 %), taken at rank p·(n+1) of the n ratios, the rank at which an
interval from n past errors covers a new one with probability p when errors repeat. A ratio
is never negative, so an interval never goes below zero. An interval in the backtest uses
only the errors of horizons that had ended before its origin (what was known then), at least
``MIN_ERRORS`` of them; with fewer, the month-ahead ratios stand in for a longer horizon
(an error in the level persists over it); with fewer still, the origin has no interval and
does not count in the coverage, the share of scored totals inside their interval. Ranks
beyond the ratios known are clamped to the extreme ones: the 95 % interval needs 39 errors to
be read unclamped, so with fewer it covers less than 95 %, which its measured coverage says.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cached_property
from typing import Final

import numpy as np
import numpy.typing as npt
import pandas as pd

from analytics.capacity.candidates import CANDIDATES, RUN_RATE, Floats, History, predict

ORIGINS: Final = 24
HORIZONS: Final[dict[str, int]] = {"month": 1, "quarter": 3, "12 months": 12}  # months ahead
MIN_SCORED: Final = 6
RECENT: Final = 12  # the month-ahead error a forecast states: over the last 12 months
MIN_ERRORS: Final = 9  # the fewest whose 10th and 90th percentiles need no clamping
LEVELS: Final[dict[str, tuple[float, float]]] = {"80": (0.10, 0.90), "95": (0.025, 0.975)}


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


@dataclass(frozen=True)
class Backtest:
    """Every candidate's backtested forecasts of one series, and the scores drawn from them.

    ``rows``: one per candidate, horizon and origin scored: ``candidate``, ``horizon``,
    ``origin``, ``end`` (the horizon's last day), ``forecast``, ``actual``, and the interval
    known at the origin (``low_80``, ``high_80``, ``low_95``, ``high_95``; NaN when too few
    errors were known then).
    """

    rows: pd.DataFrame

    def of(self, candidate: str, horizon: str) -> pd.DataFrame:
        rows = self.rows
        return rows[(rows["candidate"] == candidate) & (rows["horizon"] == horizon)]

    @cached_property
    def _columns(self) -> tuple[npt.NDArray[np.object_], ...]:
        """The rows' candidate, horizon and end, and their ratio actual ÷ forecast (NaN where
        nothing was forecast): the intervals of every row read them."""
        rows = self.rows
        forecast = rows["forecast"].to_numpy(dtype=float)
        ratio = rows["actual"].to_numpy(dtype=float) / np.where(forecast > 0, forecast, np.nan)
        return (
            rows["candidate"].to_numpy(dtype=object),
            rows["horizon"].to_numpy(dtype=object),
            rows["end"].to_numpy(dtype=object),
            ratio.astype(object),
        )

    def ratios(self, candidate: str, horizon: str, before: date | None = None) -> list[float]:
        """The candidate's ratios actual ÷ forecast at ``horizon`` (of horizons ended before
        ``before``, when given); of totals forecast above zero."""
        candidates, horizons, ends, ratios = self._columns
        chosen = (candidates == candidate) & (horizons == horizon)
        if before is not None:
            chosen &= ends < before
        return [float(r) for r in ratios[chosen] if not math.isnan(r)]

    def interval_ratios(
        self, candidate: str, horizon: str, before: date | None = None
    ) -> list[float]:
        """The ratios an interval at ``horizon`` uses: its own, else the month-ahead ones,
        else none (see the module)."""
        own = self.ratios(candidate, horizon, before)
        if len(own) >= MIN_ERRORS:
            return own
        month = self.ratios(candidate, "month", before)
        return month if len(month) >= MIN_ERRORS else []

    def table(self) -> pd.DataFrame:
        """Per candidate and horizon: ``scored`` (totals), ``wape`` and the ``coverage_80`` and
        ``coverage_95`` of the totals that had an interval (NaN when none had)."""
        out = []
        for (candidate, horizon), rows in self.rows.groupby(["candidate", "horizon"], sort=False):
            out.append(
                {
                    "candidate": candidate,
                    "horizon": horizon,
                    "scored": len(rows),
                    "wape": wape(rows),
                    **{f"coverage_{level}": coverage(rows, level) for level in LEVELS},
                }
            )
        columns = ["candidate", "horizon", "scored", "wape", "coverage_80", "coverage_95"]
        return pd.DataFrame(out, columns=columns)

    @property
    def chosen(self) -> str:
        """The candidate with the best month-ahead WAPE over the last ``RECENT`` origins,
        among those that scored each of them; the run rate when fewer than ``MIN_SCORED``
        origins were scored."""
        month = self.rows[self.rows["horizon"] == "month"]
        scored = sorted(set(month["origin"]))
        if len(scored) < MIN_SCORED:
            return RUN_RATE
        recent = month[month["origin"].isin(scored[-RECENT:])]
        counts = recent.groupby("candidate", sort=False)["origin"].nunique()
        eligible = [c for c in CANDIDATES if counts.get(c, 0) == min(RECENT, len(scored))]
        scores = {c: wape(recent[recent["candidate"] == c]) for c in eligible}
        return min(eligible, key=lambda c: (scores[c], CANDIDATES.index(c)))


def wape(rows: pd.DataFrame) -> float:
    """Σ|actual − forecast| ÷ Σ actual (NaN without usage)."""
    actual = float(rows["actual"].sum())
    error = float((rows["actual"] - rows["forecast"]).abs().sum())
    return error / actual if actual > 0 else float("nan")


def coverage(rows: pd.DataFrame, level: str) -> float:
    """The share of the rows with an interval whose actual lies inside it."""
    low, high = rows[f"low_{level}"], rows[f"high_{level}"]
    known = low.notna()
    if not known.any():
        return float("nan")
    inside = rows.loc[known, "actual"].between(low[known], high[known])
    return float(inside.mean())


def backtest(
    history: History, count: int = ORIGINS, candidates: Sequence[str] = CANDIDATES
) -> Backtest:
    """The ``candidates`` from each origin (``origins``), each horizon scored once it has
    ended."""
    rows = []
    for origin in origins(history, count):
        start = history.index(origin)
        ends = {h: history.index(months_later(origin, m)) for h, m in HORIZONS.items()}
        scored = {h: end for h, end in ends.items() if end <= len(history.values)}
        if not scored:
            continue
        for candidate in candidates:
            daily = predict(candidate, history, start, max(scored.values()) - start)
            if daily is None:
                continue
            for horizon, end in scored.items():
                rows.append(
                    {
                        "candidate": candidate,
                        "horizon": horizon,
                        "origin": origin,
                        "end": history.day(end - 1),
                        "forecast": float(daily[: end - start].sum()),
                        "actual": float(history.values[start:end].sum()),
                    }
                )
    columns = ["candidate", "horizon", "origin", "end", "forecast", "actual"]
    frame = pd.DataFrame(rows, columns=columns)
    return Backtest(_with_intervals(frame))


def _with_intervals(frame: pd.DataFrame) -> pd.DataFrame:
    """Each row's intervals from the errors known at its origin."""
    partial = Backtest(frame)
    bounds: dict[str, list[float]] = {
        f"{side}_{level}": [] for level in LEVELS for side in ("low", "high")
    }
    columns = (frame["candidate"], frame["horizon"], frame["origin"], frame["forecast"])
    for candidate, horizon, origin, forecast in zip(*columns, strict=True):
        ratios = partial.interval_ratios(candidate, horizon, origin)
        for level, shares in LEVELS.items():
            low, high = ratio_quantiles(ratios, shares) * forecast if ratios else (np.nan, np.nan)
            bounds[f"low_{level}"].append(float(low))
            bounds[f"high_{level}"].append(float(high))
    return frame.assign(**bounds)
