"""The capacity review: budgets, forecasts, their backtest and the period comparison, computed
once for a range and shown as they are by the Capacity page and the meeting report."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

import pandas as pd

from analytics.capacity.budgets import BudgetFile, DailyCost, Evaluation, evaluate
from analytics.capacity.compare import Comparison, compare, comparison_start, growth_drivers
from analytics.capacity.forecast import (
    Backtest,
    backtest,
    daily_series,
    forecast_table,
    key_forecasts,
    projection_path,
    required_start,
    run_rate,
)
from analytics.usage.calendar import (
    PERIOD_KINDS,
    PERIOD_TITLES,
    PeriodKind,
    YearStart,
    period_bounds,
)
from analytics.usage.metrics import METRIC_LABELS, MINUTES, TOTAL_CHARACTERS
from analytics.usage.pipeline import Usage

# Month and contract year frame the meeting; the forecast table holds the quarter too.
CHARTED_PERIODS: tuple[PeriodKind, ...] = ("month", "year")
CHARTED_METRICS = (TOTAL_CHARACTERS, MINUTES)


@dataclass(frozen=True)
class Limit:
    """A budget line on a forecast chart."""

    name: str
    limit: float
    warning_at: float


@dataclass(frozen=True)
class ForecastPath:
    """Cumulative usage of one metric over one period with its forecast (see
    ``forecast.projection_path`` for the columns) and the org-wide budgets on it."""

    metric: str
    kind: PeriodKind
    title: str
    path: pd.DataFrame
    limits: tuple[Limit, ...]


@dataclass(frozen=True)
class CapacityReview:
    """Everything a capacity meeting looks at for ``start``–``end``, as of ``today``.

    Forecasts and budgets read closed days before ``today``; days before ``covered_from`` are
    unknown (not zero) to the comparison and the forecasts.
    """

    start: date
    end: date
    today: date
    covered_from: date
    year_start: YearStart
    comparison: Comparison
    forecasts: pd.DataFrame  # the organization, every metric and period
    key_forecasts: pd.DataFrame  # total characters this month, per key, largest first
    backtest: Backtest
    paths: tuple[ForecastPath, ...]
    evaluations: tuple[Evaluation, ...] | None  # None without a budgets file
    mismatches: tuple[str, ...]

    def drivers(self, n: int) -> pd.DataFrame:
        return growth_drivers(self.comparison, n)

    @property
    def forecast_note(self) -> str:
        """How the forecasts are made and how well they did over the last twelve months."""
        months = self.backtest.months
        accuracy = (
            f" Over the last {len(months)} months, forecasts made on each month's first day "
            f"missed the month's total characters by {100 * self.backtest.mape:.1f} % on average."
            if len(months)
            else ""
        )
        return (
            "Run rate: the mean day of the last 28 days, shaped by each weekday's "
            "share of the last 12 weeks. The band is ± one standard deviation of weekly totals "
            f"per week still ahead.{accuracy}"
        )


def review_range(start: date, end: date, today: date, year_start: YearStart) -> tuple[date, date]:
    """The days a review of ``start``–``end`` reads: comparisons, forecasts and their history."""
    first = min(comparison_start(start, end), required_start(today, year_start))
    return first, max(end, today - timedelta(days=1))


def _limits(budgets: BudgetFile, metric: str, kind: PeriodKind) -> tuple[Limit, ...]:
    """The organization-wide budgets of one metric and period."""
    return tuple(
        Limit(b.title, b.fixed_limit, budgets.threshold(b))
        for b in budgets.budgets
        if b.key is None and b.metric == metric and b.kind == kind
    )


def _paths(
    key_day: pd.DataFrame,
    today: date,
    covered_from: date,
    year_start: YearStart,
    budgets: BudgetFile | None,
) -> tuple[ForecastPath, ...]:
    paths = []
    for metric in CHARTED_METRICS:
        series = daily_series(key_day, metric)
        rate = run_rate(series, today, covered_from)
        for kind in (k for k in PERIOD_KINDS if k in CHARTED_PERIODS):
            first, last = period_bounds(kind, today, year_start)
            limits = () if budgets is None else _limits(budgets, metric, kind)
            title = f"{METRIC_LABELS[metric]} — {PERIOD_TITLES[kind].lower()} to date"
            path = projection_path(series, first, last, rate, covered_from)
            paths.append(ForecastPath(metric, kind, title, path, limits))
    return tuple(paths)


def build_review(
    usage: Usage,
    budgets: BudgetFile | None,
    today: date,
    start: date,
    end: date,
    daily_cost: DailyCost | None = None,
) -> CapacityReview:
    """The review of ``start``–``end``; ``usage`` should cover ``review_range`` of it."""
    key_day, covered_from = usage.frame, usage.start
    year_start = budgets.year_start if budgets else YearStart()
    return CapacityReview(
        start=start,
        end=end,
        today=today,
        covered_from=covered_from,
        year_start=year_start,
        comparison=compare(key_day, start, end, covered_from=covered_from),
        forecasts=forecast_table(key_day, today, covered_from, year_start=year_start),
        key_forecasts=key_forecasts(key_day, today, covered_from, year_start=year_start),
        backtest=backtest(key_day, covered_from=covered_from, covered_to=today - timedelta(days=1)),
        paths=_paths(key_day, today, covered_from, year_start, budgets),
        evaluations=None
        if budgets is None
        else tuple(evaluate(budgets, key_day, today, covered_from, daily_cost)),
        mismatches=tuple(usage.mismatches),
    )
