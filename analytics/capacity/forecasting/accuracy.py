"""The forecast's one accuracy figure: the served forecast's month-ahead WAPE over its last
``RECENT`` months, and how often its intervals held at each horizon, as every surface states
them (the backtest it reads: ``backtesting``)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date

from analytics.capacity.forecasting.backtesting import HORIZONS, Backtest
from analytics.capacity.forecasting.scores import coverage, held, wape
from analytics.usage import share_text


@dataclass(frozen=True)
class Accuracy:
    """The forecast's one accuracy figure: the served forecast's month-ahead WAPE over the
    last ``RECENT`` months scored (``months``, oldest first), and the measured coverage of
    its 80 % and 95 % intervals at each horizon over the same window of that horizon."""

    wape: float  # NaN when no month was scored
    months: tuple[date, ...]  # the origins: each month forecast on its first day
    coverage: dict[str, tuple[float, float]]  # horizon → (80 %, 95 %), NaN when not measured
    held_80: dict[str, tuple[int, int]]  # horizon → (periods inside the 80 % interval, with one)

    @property
    def text(self) -> str:
        """The figure as every surface states it, with its window: "Month-ahead error (WAPE)
        over the 12 months 2025-03 to 2026-02, each forecast on its first day: 5.9 %"."""
        if not self.months:
            return "Month-ahead error: no month has been forecast and closed yet"
        span = (
            f"{self.months[0]:%Y-%m}"
            if len(self.months) == 1
            else f"{self.months[0]:%Y-%m} to {self.months[-1]:%Y-%m}"
        )
        count = "month" if len(self.months) == 1 else f"{len(self.months)} months"
        return (
            f"Month-ahead error (WAPE) over the {count} {span}, each forecast on its first "
            f"day: {share_text(self.wape)}"
        )

    @property
    def coverage_text(self) -> str:
        """How often the 80 % intervals held, per horizon measured, as counts: "0.0 % of the
        months" said nothing of whether two months or twelve were measured."""
        held = [
            f"{inside} of {known} {_plural(horizon, known)}"
            for horizon, (inside, known) in self.held_80.items()
            if known
        ]
        if not held:
            return "its intervals are not measured yet (too few past errors)"
        listed = held[0] if len(held) == 1 else f"{', '.join(held[:-1])} and {held[-1]}"
        return f"its 80 % intervals held in {listed}"


def _plural(horizon: str, count: int) -> str:
    one = {"month": "month", "quarter": "quarter"}.get(horizon, "12-month period")
    return one if count == 1 else f"{one}s"


def accuracy(tested: Backtest) -> Accuracy:
    """The one accuracy figure of a series' forecast (``Accuracy``)."""
    month = tested.recent("month")
    recent = {horizon: tested.recent(horizon) for horizon in HORIZONS}
    return Accuracy(
        wape=wape(month) if len(month) else math.nan,
        months=tuple(month["origin"]),
        coverage={h: (coverage(rows, "80"), coverage(rows, "95")) for h, rows in recent.items()},
        held_80={h: held(rows, "80") for h, rows in recent.items()},
    )
