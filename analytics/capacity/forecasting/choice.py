"""Which candidate serves a horizon, given how each erred at it on the origins known
(``backtesting.Backtest.chosen_for`` reads the rows; this module holds the rules).

* **The origins compared**: the last ``CHOICE_ORIGINS`` origins scored at the horizon, among
  the candidates that scored each of them (the yearly model needs two years before an origin);
  the run rate while fewer than ``MIN_SCORED`` were scored. Seasonal naive, which needs a year,
  is compared as soon as it has scored the last ``MIN_SCORED``: the choice then reads the
  origins it scored, among the candidates that scored each of them, so a series two or three
  years old is compared with last year's days over its 12 months rather than left without
  them until every origin of the window has a year behind it (``compared``).
* **The yardstick's margin**: the candidate with the lowest WAPE over those origins serves,
  but seasonal naive keeps serving unless that WAPE is under ``NAIVE_MARGINS`` of its own: a
  tenth lower for the month, more for the longer horizons, whose few errors overlap and say
  less (on real calm series, choosing on a dozen origins served a model no better than last
  year's same days and often worse) (``best``).
* **Beaten at the shorter horizons too**: a candidate serves a quarter or 12 months only if it
  also beat seasonal naive by the margin at each shorter horizon it was compared at (``best``'s
  ``shorter``). A longer horizon's errors are fewer and overlap (each 12-month total shares
  eleven months with the next), while the month's say the same thing more often: a model
  whose lead shows at the quarter alone read a trend that held over a few totals. On US
  births the yearly model's trend, learnt while births fell, beat last year's days over the
  quarters it was compared on, not over the months, and once the decline stopped its quarters
  were 1.12 times as far off as last year's days' (WAPE, 24 quarters). The yardstick there
  is last year's plain days, not the better of them and the grown ones: held to that, births'
  12 months were served by last year's days throughout (1.43 times seasonal naive's WAPE to
  1.00), but the generated organizations' quarters went from 0.36 to 0.59 of seasonal naive's
  WAPE and Bitcoin's growth years' 12 months from 0.54 to 0.74 (`python -m bench --only
  forecast_quality_real forecast_quality forecast_quality_hard`, 2026-12-08).
* **Last year's days out of line**: a candidate that reads last year's days (seasonal naive,
  plain or grown) does not serve where it forecasts under a third of the run rate's total
  (``out_of_line``): last year's days held a stop, or the weeks before a launch, and its
  record, made in other weeks, cannot vouch for them; the best of the others serves.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import numpy as np
import numpy.typing as npt

from analytics.capacity.forecasting.candidates import (
    CANDIDATES,
    GROWN_NAIVE,
    RUN_RATE,
    SEASONAL_NAIVE,
    SPIKE_FACTOR,
)

Origins = npt.NDArray[np.int64]  # origins as proleptic ordinals, oldest first

CHOICE_ORIGINS: Final = 24  # the window the choice reads: every origin backtested
MIN_SCORED: Final = 6
NAIVE_MARGINS: Final[dict[str, float]] = {"month": 0.9, "quarter": 0.8, "12 months": 0.7}
LAST_YEARS: Final = (SEASONAL_NAIVE, GROWN_NAIVE)  # the candidates that read last year's days


def compared(window: Origins, scored: Mapping[str, Origins]) -> tuple[Origins, list[str]]:
    """The origins of ``window`` the choice compares on and the candidates compared, given the
    origins each candidate scored (``scored``): see the module."""
    runs = {candidate: _trailing_run(window, origins) for candidate, origins in scored.items()}
    naive = runs.get(SEASONAL_NAIVE, 0)
    span = naive if naive >= MIN_SCORED else len(window)
    return window[len(window) - span :], [c for c, run in runs.items() if run >= span]


def _trailing_run(window: Origins, scored: Origins) -> int:
    """How many of the ``window``'s origins, counted back from its newest, are all among
    ``scored``."""
    missing = np.flatnonzero(~np.isin(window, scored))
    return len(window) - 1 - int(missing[-1]) if missing.size else len(window)


def best(
    scores: Mapping[str, float],
    horizon: str,
    shorter: Mapping[str, Mapping[str, float]] | None = None,
) -> str:
    """The candidate of the lowest WAPE (``scores``), seasonal naive unless beaten by its
    margin at ``horizon`` and at each of the ``shorter`` horizons (their scores, by horizon)
    where both were compared; the run rate when none scored."""
    if not scores:
        return RUN_RATE
    lowest = min(scores, key=lambda c: (scores[c], CANDIDATES.index(c)))
    if SEASONAL_NAIVE not in scores:
        return lowest
    every = {horizon: scores, **(shorter or {})}
    beaten = all(
        at[lowest] <= NAIVE_MARGINS[h] * at[SEASONAL_NAIVE]
        for h, at in every.items()
        if lowest in at and SEASONAL_NAIVE in at
    )
    return lowest if beaten else SEASONAL_NAIVE


def out_of_line(candidate: str, totals: Mapping[str, float]) -> bool:
    """Whether ``candidate`` reads last year's days (``LAST_YEARS``) and forecasts less than
    a ``SPIKE_FACTOR``-th of the run rate's total over the same days (``totals``: each
    candidate's total from the origin): last year's days held a stop, or the weeks before a
    launch (a year after Madrid's bicycles stopped, a 36th of the month that came)."""
    total, run_rate = totals.get(candidate), totals.get(RUN_RATE)
    if candidate not in LAST_YEARS or total is None or run_rate is None:
        return False
    return total * SPIKE_FACTOR < run_rate
