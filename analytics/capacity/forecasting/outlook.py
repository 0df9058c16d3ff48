"""The one forecast: for each series, the candidate its backtest chose for each horizon, and
from it every projection the product makes — the month, quarter, contract year and next 12
months with 80 % and 95 % intervals, the budgets', the plan's and the spend's projections to
their periods' ends, the day a limit is reached, and the keys' shares the guardrails plan with.

A period is served by the horizon nearest its remaining days (a month for up to 31 days, a
quarter up to 92, else 12 months): that horizon's chosen candidate forecasts the remaining
days, and the backtest's ratios actual ÷ forecast of every candidate at that horizon
(``backtesting.Backtest.interval_ratios``) give its range. The period's total is what was used
of it before today plus the remaining days' forecast; its intervals are the used part plus the
forecast times the ratios' 10th and 90th (2.5th and 97.5th) percentiles, widened to hold the
projection (``backtesting.interval_shares``). Day by
day (``projections.projection_path``) the same model and ratios scale the cumulative forecast, so a
period's path ends on its row's figures. The what-ifs scale the forecast (growth) or add to
every bound alike (a planned workload).

**Which history.** A forecast as of a day reads the series' closed days from
``run_rate_model.forecast_start`` (five years back) or its first day covered, whichever is later,
leaving out the days before its first use (an organization or a key that had not started is
not a level of zero): every surface that reads from ``forecast_start`` forecasts from the same
days, and so states the same figures. The outlook of a series is computed once per process and
history (``outlook`` is cached on the days' values).
Day by day, and for a part of the organization, see ``projections``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from functools import cached_property, lru_cache
from typing import Final

import numpy as np
import pandas as pd

from analytics.capacity.forecasting.accuracy import Accuracy, accuracy
from analytics.capacity.forecasting.backtesting import (
    HORIZONS,
    LEVELS,
    SERVED,
    Backtest,
    backtest,
    interval_shares,
    months_later,
)
from analytics.capacity.forecasting.candidates import (
    CANDIDATES,
    PREDICTORS,
    RUN_RATE,
    Floats,
    History,
    predict_all,
)
from analytics.capacity.forecasting.choice import out_of_line
from analytics.capacity.forecasting.run_rate_model import daily_series, forecast_start
from analytics.capacity.forecasting.whatif import WhatIf
from analytics.usage import (
    MINUTES,
    ONE_DAY,
    PERIOD_TITLES,
    TOTAL_CHARACTERS,
    YearStart,
    period_bounds,
    shift_years,
)

DECISION_METRICS: Final = (TOTAL_CHARACTERS, MINUTES)
NEXT_12_MONTHS: Final = "next 12 months"
PERIODS: Final = ("month", "quarter", "year", NEXT_12_MONTHS)
PERIOD_NAMES: Final = {**PERIOD_TITLES, NEXT_12_MONTHS: "Next 12 months"}
MAX_TERM_MONTHS: Final = 36
# A period's point (the model's own forecast), then each level's two bounds: none measured.
NO_INTERVAL: Final = (1.0, *[np.nan] * (2 * len(LEVELS)))


def horizon_for(days: int) -> str:
    """The backtest's horizon nearest in length to ``days`` days ahead."""
    return "month" if days <= 31 else "quarter" if days <= 92 else "12 months"


def period_text(kind: str, end: date) -> str:
    """A forecast period as every surface names it: "Quarter to 2026-12-31"."""
    return f"{PERIOD_NAMES[kind]} to {end:%Y-%m-%d}"


def serving_text(rows: pd.DataFrame) -> str:
    """Which model serves which period of one metric's ``forecast_rows``, each period named
    as its row is ("ETS weekly serves the month to 2026-11-30, combination the quarter to
    2026-12-31 …"): the model of a calendar period is its row's, the one serving the horizon
    nearest its remaining days, so the sentence and the table never name two."""
    by_model: dict[str, list[str]] = {}
    for kind, end, model in zip(rows["period"], rows["end"], rows["model"], strict=True):
        named = period_text(kind, end)
        by_model.setdefault(str(model), []).append(f"the {named[:1].lower()}{named[1:]}")
    if len(by_model) == 1:
        return f"{next(iter(by_model))} serves every period"
    parts = [
        f"{model}{' serves' if i == 0 else ''} {_listed(periods)}"
        for i, (model, periods) in enumerate(by_model.items())
    ]
    return ", ".join(parts)


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


@dataclass(frozen=True)
class Outlook:
    """One metric's series, its backtest, the candidate serving each horizon (``models``) and
    the daily forecast from ``as_of`` of each serving candidate and of the run rate
    (``paths``: each day from ``as_of``, ``MAX_TERM_MONTHS`` months and more ahead)."""

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
        """The ratios actual ÷ forecast an interval ``days`` days ahead reads (every
        candidate's at its horizon, ``Backtest.interval_ratios``)."""
        return self.backtest.interval_ratios(horizon_for(days))

    @property
    def recent(self) -> pd.DataFrame:
        """The served forecast's month-ahead rows of the last ``RECENT`` origins: the window
        of the accuracy figure, each month's point and interval as known on its first day."""
        return self.backtest.recent("month")

    @cached_property
    def accuracy(self) -> Accuracy:
        """The forecast's one accuracy figure (``backtesting.accuracy``)."""
        return accuracy(self.backtest)

    def cumulative(self, days: int, serving: int | None = None) -> Floats:
        """The cumulative forecast of each of the ``days`` days from ``as_of`` by the model
        serving ``serving`` days ahead (default: ``days``), times its ratios' shares
        (``interval_shares``): one row for the point, the model's own forecast, then each
        level's low and high bound (NaN without measured errors)."""
        ahead = days if serving is None else serving
        cumulative = np.cumsum(self.paths[self.model_for(ahead)][: max(0, days)])
        ratios = self.ratios(ahead)
        shares = interval_shares(ratios) if ratios else NO_INTERVAL
        scaled: Floats = np.asarray(shares)[:, None] * cumulative[None, :]
        return scaled

    def part_cumulative(self, days: int, part: Floats, share: float) -> Floats:
        """``cumulative`` of a part of the series (``part``: its daily values over the
        history's days), projected as ``share`` of the whole: its point the share of the
        whole's, its intervals from its own errors so projected, the whole's while it has too
        few (``Backtest.part_ratios``)."""
        horizon = horizon_for(days)
        point = np.cumsum(self.paths[self.model_for(days)][: max(0, days)]) * share
        ratios = self.backtest.part_ratios(self.history, part, horizon)
        shares = interval_shares(ratios) if ratios else NO_INTERVAL
        scaled: Floats = np.asarray(shares)[:, None] * point[None, :]
        return scaled

    def used(self, start: date, end: date) -> float:
        """What was used of ``start``–``end`` on the closed days the history holds."""
        first = max(start, self.history.first)
        last = min(end, self.history.last)
        if last < first:
            return 0.0
        values = self.history.values
        return float(values[self.history.index(first) : self.history.index(last) + 1].sum())

    def period(
        self, kind: str, what_if: WhatIf, year_start: YearStart | None = None
    ) -> dict[str, object]:
        """One period's row (``forecast_rows``' columns)."""
        if kind == NEXT_12_MONTHS:
            start, end = self.as_of, shift_years(self.as_of, 1) - ONE_DAY
        else:
            start, end = period_bounds(kind, self.as_of, year_start)  # type: ignore[arg-type]
        used = self.used(start, end)
        remaining = (end - self.as_of).days + 1
        totals = self.cumulative(remaining)[:, -1] * (1 + what_if.growth)
        added = float(what_if.added(self.metric, self.as_of, remaining).sum())
        row: dict[str, object] = {
            "metric": self.metric,
            "period": kind,
            "start": start,
            "end": end,
            "used": used,
            "projected": used + totals[0] + added,
        }
        for i, level in enumerate(LEVELS):
            row[f"low_{level}"] = used + totals[1 + 2 * i] + added
            row[f"high_{level}"] = used + totals[2 + 2 * i] + added
        held = self.accuracy.coverage[horizon_for(remaining)]
        row |= {
            "model": self.model_for(remaining),
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
    """Backtest the daily ``series`` (its closed days up to ``as_of``, from ``covered_from``
    and the history's start, see the module) and forecast from ``as_of`` with the candidate
    chosen for each horizon among ``candidates`` (the run rate as long as under four weeks are
    known, too few for any other)."""
    first = max(covered_from, forecast_start(as_of))
    history = History.of(series, first, as_of - ONE_DAY)
    began = np.flatnonzero(history.values)
    if began.size and began[0] > 0:
        first = history.day(int(began[0]))
        history = History(first, history.values[began[0] :])
    return _outlook(metric, first, history.values.tobytes(), as_of, tuple(candidates))


@lru_cache(maxsize=256)
def _outlook(
    metric: str, first: date, values: bytes, as_of: date, candidates: tuple[str, ...]
) -> Outlook:
    """``outlook`` of the history ``values`` from ``first``: computed once per process for
    each history, however many surfaces ask (a backtest costs a fraction of a second)."""
    history = History(first, np.frombuffer(values, dtype=float))
    tested = backtest(history, candidates=candidates)
    models, paths = _serving(tested, history, as_of)
    return Outlook(metric, history, tested, as_of, models, paths)


def _serving(
    tested: Backtest, history: History, as_of: date
) -> tuple[dict[str, str], dict[str, Floats]]:
    """The candidate serving each horizon and the daily forecasts from ``as_of`` on: the
    backtest's choice, unless it reads last year's days out of line with the run rate's
    forecast of the horizon from today (``choice.out_of_line``), as at every origin of
    the backtest; the run rate where the one chosen cannot forecast from this history."""
    days = (months_later(as_of.replace(day=1), MAX_TERM_MONTHS + 1) - as_of).days
    origin = len(history.values)
    run_rate = PREDICTORS[RUN_RATE](history, origin, days)
    assert run_rate is not None  # the run rate forecasts from any history
    models = dict(tested.models)
    paths = predict_all(history, origin, days, tuple(dict.fromkeys(models.values())))
    paths[RUN_RATE] = run_rate
    month = as_of.replace(day=1)
    for horizon, model in models.items():
        ahead = (months_later(month, HORIZONS[horizon]) - month).days
        totals = {c: float(path[:ahead].sum()) for c, path in paths.items()}
        if out_of_line(model, totals):
            models[horizon] = tested.chosen_for(horizon, totals=totals)
    missing = tuple(set(models.values()) - set(paths))
    paths |= predict_all(history, origin, days, missing)
    return {h: m if m in paths else RUN_RATE for h, m in models.items()}, paths


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


def accuracy_text(found: Outlook, year_start: YearStart | None = None) -> str:
    """What a forecast states beside it, in one sentence, wherever it is shown: the one
    accuracy figure with its window (``backtesting.Accuracy``), which model serves which
    period (the contract year starting at ``year_start``), and how often the intervals held."""
    figure = found.accuracy
    rows = forecast_rows({found.metric: found}, WhatIf(), year_start)
    return f"{figure.text}; {serving_text(rows)}; {figure.coverage_text}."
