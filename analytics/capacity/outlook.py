"""The forecasts a capacity decision reads: for each metric, the candidate its backtest chose,
its forecast to the end of the month, quarter, contract year and over the next 12 months with
80 % and 95 % intervals, and the next term's usage as equally likely scenarios.

A period's total is what was used of it before today plus the chosen candidate's forecast of
its remaining days (with the what-ifs). Its interval is the used part plus the forecast of the
remaining days times the backtest's ratios actual ÷ forecast of the horizon nearest in length
(a month for up to 31 remaining days, a quarter up to 92, else 12 months;
``accuracy.Backtest.interval_ratios``); a planned workload is added to every bound alike.

The next term's **scenarios** are the chosen candidate's monthly totals of the term times the
percentiles 1 … 99 of those ratios (at the term's nearest horizon), one scenario per
percentile: a scenario is "the term comes in 12 % above the forecast". Characters and minutes
take the same percentile in a scenario, so both run high together, the cautious reading.
Without enough errors to measure (a short history) there is one scenario, the forecast.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Final

import numpy as np
import pandas as pd

from analytics.capacity.accuracy import (
    LEVELS,
    RECENT,
    Backtest,
    backtest,
    coverage,
    months_later,
    ratio_quantiles,
    wape,
)
from analytics.capacity.candidates import PREDICTORS, RUN_RATE, Floats, History, predict
from analytics.capacity.forecast import daily_series
from analytics.capacity.recommend import Scenarios
from analytics.capacity.whatif import WhatIf
from analytics.usage.calendar import ONE_DAY, PERIOD_TITLES, YearStart, period_bounds, shift_years
from analytics.usage.metrics import MINUTES, TOTAL_CHARACTERS

DECISION_METRICS: Final = (TOTAL_CHARACTERS, MINUTES)
NEXT_12_MONTHS: Final = "next 12 months"
PERIODS: Final = ("month", "quarter", "year", NEXT_12_MONTHS)
PERIOD_NAMES: Final = {**PERIOD_TITLES, NEXT_12_MONTHS: "Next 12 months"}
MAX_TERM_MONTHS: Final = 36
SCENARIO_SHARES: Final = np.arange(1, 100) / 100


def horizon_for(days: int) -> str:
    """The backtest's horizon nearest in length to ``days`` days ahead."""
    return "month" if days <= 31 else "quarter" if days <= 92 else "12 months"


@dataclass(frozen=True)
class Outlook:
    """One metric's series, its backtest and the chosen candidate's forecast from ``as_of``
    (``path``: each day from ``as_of``, ``MAX_TERM_MONTHS`` months and more ahead)."""

    metric: str
    history: History
    backtest: Backtest
    chosen: str
    as_of: date
    path: Floats

    def ratios(self, days: int) -> list[float]:
        return self.backtest.interval_ratios(self.chosen, horizon_for(days))

    @property
    def recent(self) -> pd.DataFrame:
        """The chosen candidate's month-ahead rows of the last ``RECENT`` origins: the
        accuracy a forecast states ("month-ahead error over the last 12 months")."""
        return self.backtest.of(self.chosen, "month").tail(RECENT)

    def period(
        self, kind: str, what_if: WhatIf, year_start: YearStart | None = None
    ) -> dict[str, object]:
        """One period's row (``forecast_rows``' columns)."""
        if kind == NEXT_12_MONTHS:
            start, end = self.as_of, shift_years(self.as_of, 1) - ONE_DAY
        else:
            start, end = period_bounds(kind, self.as_of, year_start)  # type: ignore[arg-type]
        first = max(start, self.history.first)
        used = float(self.history.values[self.history.index(first) :].sum())
        remaining = (end - self.as_of).days + 1
        base = self.path[:remaining] * (1 + what_if.growth)
        added = float(what_if.added(self.metric, self.as_of, remaining).sum())
        ahead = float(base.sum())
        row: dict[str, object] = {
            "metric": self.metric,
            "period": kind,
            "start": start,
            "end": end,
            "used": used,
            "projected": used + ahead + added,
        }
        ratios = self.ratios(remaining)
        for level, shares in LEVELS.items():
            low, high = ratio_quantiles(ratios, shares) if ratios else (np.nan, np.nan)
            row[f"low_{level}"] = used + ahead * low + added
            row[f"high_{level}"] = used + ahead * high + added
        recent = self.recent
        row |= {
            "model": self.chosen,
            "month_wape": wape(recent),
            "coverage_80": coverage(recent, "80"),
            "coverage_95": coverage(recent, "95"),
        }
        return row


FORECAST_COLUMNS: Final = [
    "metric", "period", "start", "end", "used", "projected", "low_80", "high_80", "low_95",
    "high_95", "model", "month_wape", "coverage_80", "coverage_95",
]  # fmt: skip


def outlook(series: pd.Series, metric: str, covered_from: date, as_of: date) -> Outlook:
    """Backtest the daily ``series`` (closed days ``covered_from`` up to ``as_of``) and forecast
    from ``as_of`` with the candidate chosen (the run rate as long as under four weeks are
    known, too few for any other)."""
    history = History.of(series, covered_from, as_of - ONE_DAY)
    tested = backtest(history)
    chosen = tested.chosen
    days = (months_later(as_of.replace(day=1), MAX_TERM_MONTHS + 1) - as_of).days
    origin = len(history.values)
    path = predict(chosen, history, origin, days)
    if path is None:
        chosen, path = RUN_RATE, PREDICTORS[RUN_RATE](history, origin, days)
    assert path is not None  # the run rate forecasts from any history
    return Outlook(metric, history, tested, chosen, as_of, path)


def outlooks(key_day: pd.DataFrame, covered_from: date, as_of: date) -> dict[str, Outlook]:
    """The organization's outlook of each decision metric (characters, speech minutes)."""
    return {
        metric: outlook(daily_series(key_day, metric), metric, covered_from, as_of)
        for metric in DECISION_METRICS
    }


def forecast_rows(
    found: dict[str, Outlook], what_if: WhatIf, year_start: YearStart | None = None
) -> pd.DataFrame:
    """Every metric's forecast of each period (``PERIODS``), with intervals and accuracy."""
    rows = [o.period(kind, what_if, year_start) for o in found.values() for kind in PERIODS]
    return pd.DataFrame(rows, columns=FORECAST_COLUMNS)


def term_start(as_of: date) -> date:
    """The next term starts on the first day of the next month."""
    return months_later(as_of.replace(day=1), 1)


def term_scenarios(found: dict[str, Outlook], term: int, what_if: WhatIf) -> Scenarios:
    """The next ``term`` months' usage as scenarios (see the module)."""
    if not 1 <= term <= MAX_TERM_MONTHS:
        raise ValueError(f"the term is 1 to {MAX_TERM_MONTHS} months, not {term}")
    characters, minutes = found[TOTAL_CHARACTERS], found[MINUTES]
    first = term_start(characters.as_of)
    months = tuple(months_later(first, m) for m in range(term))
    paths = [_scenarios(o, first, months, what_if) for o in (characters, minutes)]
    count = max(p.shape[0] for p in paths)  # a metric without measured errors: one path
    paths = [np.broadcast_to(p, (count, term)) for p in paths]
    return Scenarios(months, paths[0], paths[1])


def _scenarios(found: Outlook, first: date, months: tuple[date, ...], what_if: WhatIf) -> Floats:
    """Scenarios × months of one metric."""
    offset = (first - found.as_of).days
    end = months_later(months[-1], 1)
    daily = found.path[offset : (end - found.as_of).days] * (1 + what_if.growth)
    starts = [(m - found.as_of).days - offset for m in months]
    base = np.add.reduceat(daily, starts) if len(daily) else np.zeros(len(months))
    added = np.add.reduceat(what_if.added(found.metric, first, len(daily)), starts)
    ratios = found.ratios((end - first).days)
    scale = ratio_quantiles(ratios, SCENARIO_SHARES) if ratios else np.ones(1)
    scenarios: Floats = scale[:, None] * base[None, :] + added[None, :]
    return scenarios


def backtest_table(found: dict[str, Outlook]) -> pd.DataFrame:
    """Every metric's backtest scores (``accuracy.Backtest.table``), with ``metric`` first and
    ``chosen`` marking the candidate each metric's forecast uses."""
    parts = []
    for metric, found_one in found.items():
        table = found_one.backtest.table()
        table.insert(0, "metric", metric)
        parts.append(table.assign(chosen=table["candidate"] == found_one.chosen))
    return pd.concat(parts, ignore_index=True)
