"""The forecasts a capacity decision reads: for each metric, the candidate its backtest chose
for each horizon, its forecast to the end of the month, quarter, contract year and over the
next 12 months with 80 % and 95 % intervals, and the next term's usage as equally likely
scenarios.

A period is served by the horizon nearest its remaining days (a month for up to 31 days, a
quarter up to 92, else 12 months): that horizon's chosen candidate forecasts the remaining
days, and the backtest's ratios actual ÷ forecast of that candidate at that horizon
(``accuracy.Backtest.interval_ratios``) give its range. The period's total is what was used of
it before today plus the remaining days' forecast times the median ratio (the centre of its
own range, so the projection always lies inside its 80 % interval); its intervals are the used
part plus the forecast times the ratios' 10th and 90th (2.5th and 97.5th) percentiles. The
what-ifs scale the forecast (growth) or add to every bound alike (a planned workload).

The next term's **scenarios** are the term's horizon's candidate's monthly totals times the
percentiles 1 … 99 of its ratios, one scenario per percentile: a scenario is "the term comes
in 12 % above the forecast", and the middle one is the projection. Characters and minutes
take the same percentile in a scenario, so both run high together, the cautious reading.
Without enough errors to measure (a short history) there is one scenario, the forecast.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from functools import cached_property
from typing import Final

import numpy as np
import pandas as pd

from analytics.capacity.accuracy import (
    CENTRE,
    LEVELS,
    SERVED,
    Accuracy,
    Backtest,
    accuracy,
    backtest,
    months_later,
    ratio_quantiles,
)
from analytics.capacity.candidates import (
    CANDIDATES,
    PREDICTORS,
    RUN_RATE,
    Floats,
    History,
    predict_all,
)
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
# The shares a period's row reads of its ratios: the centre, then each level's two bounds.
ROW_SHARES: Final = (CENTRE, *(share for pair in LEVELS.values() for share in pair))


def horizon_for(days: int) -> str:
    """The backtest's horizon nearest in length to ``days`` days ahead."""
    return "month" if days <= 31 else "quarter" if days <= 92 else "12 months"


def serving_text(models: dict[str, str]) -> str:
    """Which model serves which horizon, as the page and the report say it: "ETS weekly
    serves the month, combination the quarter and the 12 months"."""
    by_model: dict[str, list[str]] = {}
    for horizon, model in models.items():
        by_model.setdefault(model, []).append(f"the {horizon}")
    if len(by_model) == 1:
        return f"{next(iter(by_model))} serves every horizon"
    parts = [
        f"{model}{' serves' if i == 0 else ''} {_listed(horizons)}"
        for i, (model, horizons) in enumerate(by_model.items())
    ]
    return ", ".join(parts)


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


@dataclass(frozen=True)
class Outlook:
    """One metric's series, its backtest, the candidate serving each horizon (``models``) and
    each serving candidate's daily forecast from ``as_of`` (``paths``: each day from
    ``as_of``, ``MAX_TERM_MONTHS`` months and more ahead)."""

    metric: str
    history: History
    backtest: Backtest
    as_of: date
    models: dict[str, str]
    paths: dict[str, Floats]

    @property
    def chosen(self) -> str:
        """The model serving the month ahead (the one the month-ahead record draws)."""
        return self.models["month"]

    def model_for(self, days: int) -> str:
        """The model serving a forecast of ``days`` days ahead."""
        return self.models[horizon_for(days)]

    def ratios(self, days: int) -> list[float]:
        """The ratios actual ÷ forecast of the model serving ``days`` days ahead."""
        return self.backtest.interval_ratios(self.model_for(days), horizon_for(days))

    @property
    def recent(self) -> pd.DataFrame:
        """The served forecast's month-ahead rows of the last ``RECENT`` origins: the window
        of the accuracy figure, each month's point and interval as known on its first day."""
        return self.backtest.recent("month")

    @cached_property
    def accuracy(self) -> Accuracy:
        """The forecast's one accuracy figure (``accuracy.accuracy``)."""
        return accuracy(self.backtest)

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
        model = self.model_for(remaining)
        base = self.paths[model][:remaining] * (1 + what_if.growth)
        added = float(what_if.added(self.metric, self.as_of, remaining).sum())
        ahead = float(base.sum())
        ratios = self.ratios(remaining)
        shares = ratio_quantiles(ratios, ROW_SHARES) if ratios else [1.0] + [np.nan] * 4
        row: dict[str, object] = {
            "metric": self.metric,
            "period": kind,
            "start": start,
            "end": end,
            "used": used,
            "projected": used + ahead * shares[0] + added,
        }
        for i, level in enumerate(LEVELS):
            row[f"low_{level}"] = used + ahead * shares[1 + 2 * i] + added
            row[f"high_{level}"] = used + ahead * shares[2 + 2 * i] + added
        held = self.accuracy.coverage[horizon_for(remaining)]
        row |= {
            "model": model,
            "month_wape": self.accuracy.wape,
            "coverage_80": held[0],
            "coverage_95": held[1],
        }
        return row


FORECAST_COLUMNS: Final = [
    "metric", "period", "start", "end", "used", "projected", "low_80", "high_80", "low_95",
    "high_95", "model", "month_wape", "coverage_80", "coverage_95",
]  # fmt: skip


def outlook(
    series: pd.Series,
    metric: str,
    covered_from: date,
    as_of: date,
    candidates: Sequence[str] = CANDIDATES,
) -> Outlook:
    """Backtest the daily ``series`` (closed days ``covered_from`` up to ``as_of``) and forecast
    from ``as_of`` with the candidate chosen for each horizon among ``candidates`` (the run
    rate as long as under four weeks are known, too few for any other)."""
    history = History.of(series, covered_from, as_of - ONE_DAY)
    tested = backtest(history, candidates=candidates)
    days = (months_later(as_of.replace(day=1), MAX_TERM_MONTHS + 1) - as_of).days
    origin = len(history.values)
    models = dict(tested.models)
    paths = predict_all(history, origin, days, tuple(dict.fromkeys(models.values())))
    for horizon, model in models.items():
        if model not in paths:
            models[horizon] = RUN_RATE
            if RUN_RATE not in paths:
                run_rate = PREDICTORS[RUN_RATE](history, origin, days)
                assert run_rate is not None  # the run rate forecasts from any history
                paths[RUN_RATE] = run_rate
    return Outlook(metric, history, tested, as_of, models, paths)


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
    path = found.paths[found.model_for((end - first).days)]
    daily = path[offset : (end - found.as_of).days] * (1 + what_if.growth)
    starts = [(m - found.as_of).days - offset for m in months]
    base = np.add.reduceat(daily, starts) if len(daily) else np.zeros(len(months))
    added = np.add.reduceat(what_if.added(found.metric, first, len(daily)), starts)
    ratios = found.ratios((end - first).days)
    scale = ratio_quantiles(ratios, SCENARIO_SHARES) if ratios else np.ones(1)
    scenarios: Floats = scale[:, None] * base[None, :] + added[None, :]
    return scenarios


def backtest_table(found: dict[str, Outlook]) -> pd.DataFrame:
    """Every metric's backtest scores (``accuracy.Backtest.table``: each candidate's, then the
    served forecast's, named ``SERVED``), with ``metric`` first and ``chosen`` marking the
    candidate serving each metric's horizon."""
    parts = []
    for metric, found_one in found.items():
        table = found_one.backtest.table()
        table.insert(0, "metric", metric)
        serving = [found_one.models[h] for h in table["horizon"]]
        chosen = [c == s and c != SERVED for c, s in zip(table["candidate"], serving, strict=True)]
        parts.append(table.assign(chosen=chosen))
    return pd.concat(parts, ignore_index=True)


def accuracy_text(found: Outlook) -> str:
    """What a forecast states beside it, in one sentence, wherever it is shown: the one
    accuracy figure with its window (``accuracy.Accuracy``), which model serves which
    horizon, and how often the intervals held."""
    figure = found.accuracy
    return f"{figure.text}; {serving_text(found.models)}; {figure.coverage_text}."
