"""The capacity review: budgets, forecasts, their backtest and the period comparison, and with
prices the spend and its forecast, computed once for a range and shown as they are by the
Capacity page and the meeting report."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

import pandas as pd

from analytics.capacity.budgets import (
    COST,
    BudgetSettings,
    Prices,
    contract_year,
    cost_path,
)
from analytics.capacity.comparison import Comparison, compare, comparison_start, growth_drivers
from analytics.capacity.decision import (
    DEFAULT_RISK,
    DEFAULT_TERM,
    Decision,
    Option,
    TodaysPlan,
    decide,
)
from analytics.capacity.forecasting import (
    Outlook,
    WhatIf,
    accuracy_text,
    key_forecasts,
    organization_outlook,
    projection_path,
    required_start,
)
from analytics.usage import (
    METRIC_LABELS,
    MINUTES,
    PERIOD_KINDS,
    PERIOD_TITLES,
    TOTAL_CHARACTERS,
    FetchedRange,
    PeriodKind,
    UsageReader,
    YearStart,
    period_bounds,
    within,
)

# Month and contract year frame the meeting; the forecast table holds the quarter too.
CHARTED_PERIODS: tuple[PeriodKind, ...] = ("month", "year")
CHARTED_METRICS = (TOTAL_CHARACTERS, MINUTES)


@dataclass(frozen=True)
class Limit:
    """A budget line on a forecast chart."""

    name: str
    limit: float
    warning_at: float

    @property
    def warning(self) -> float:
        """The level the budget warns at, drawn below the limit."""
        return self.limit * self.warning_at


@dataclass(frozen=True)
class ForecastPath:
    """Cumulative usage of one metric (or cost) over one period with its forecast (see
    ``forecasting.projection_path`` for the columns) and the org-wide budgets on it."""

    metric: str  # a metric, or COST
    kind: PeriodKind
    title: str
    path: pd.DataFrame
    limits: tuple[Limit, ...]
    label: str  # what the values count: the metric's label, or "Cost (EUR)"
    currency: str | None = None  # of a cost path's amounts


@dataclass(frozen=True)
class CapacityReview:
    """Everything a capacity meeting looks at for ``start``–``end``, as of ``today``.

    Forecasts and budgets read closed days before ``today``; days before ``covered_from`` are
    unknown (not zero) to the comparison and the forecasts.
    """

    today: date
    covered_from: date
    year_start: YearStart
    comparison: Comparison
    key_forecasts: pd.DataFrame  # total characters this month, per key, largest first
    outlooks: dict[str, Outlook]  # each charted metric's: its forecast's accuracy and models
    paths: tuple[ForecastPath, ...]
    mismatches: tuple[str, ...]
    # With prices (None without): their currency; the organization's cost per period kind so
    # far and projected (``COST_FORECAST_COLUMNS``, currency units); the spend per team of the
    # range (``Prices.spend``, minor units; None where the usage is not known) and of the
    # previous range (None unless both ranges have a price on every day: a change compares
    # like with like); and what to say of the days without a price among those the spend and
    # the cost forecasts cover (None: all have one), whose cost is left out of them.
    currency: str | None = None
    cost_forecasts: pd.DataFrame | None = None
    spend: pd.DataFrame | None = None
    previous_spend: pd.DataFrame | None = None
    unpriced: str | None = None
    # Some teams' review (None: the organization's): what it says once in place of the cost
    # forecasts, which are the organization's; its spend is its teams' rows, ``Total`` theirs.
    withheld: str | None = None

    @property
    def start(self) -> date:
        """The reviewed period is the comparison's current one."""
        return self.comparison.start

    @property
    def end(self) -> date:
        return self.comparison.end

    def drivers(self, n: int) -> pd.DataFrame:
        return growth_drivers(self.comparison, n)

    @property
    def paths_by_label(self) -> dict[str, tuple[ForecastPath, ...]]:
        """The forecast paths by what they measure, in order (characters, minutes, cost): the
        page shows one measure's periods at a time, each chart costing the browser a draw."""
        grouped: dict[str, list[ForecastPath]] = {}
        for path in self.paths:
            grouped.setdefault(path.label, []).append(path)
        return {label: tuple(paths) for label, paths in grouped.items()}

    def forecast_note(self, metric: str) -> str:
        """How the forecasts of ``metric`` (or cost) are made and how well they did, as the
        decision states it: the one accuracy figure, the model serving each period and how
        often the intervals held (``forecasting.accuracy_text``), of that metric's own
        forecast as of today, so each measure's tab states its own; cost, priced from each
        service's forecast, has no figure of its own."""
        how = (
            "Each projection is the one forecast: the candidate the backtest chose for the "
            "horizon, with the 80 % interval its past errors give."
        )
        found = self.outlooks.get(metric)
        if found is None:
            return how
        return f"{how} {METRIC_LABELS[metric]}: {accuracy_text(found, self.year_start)}"


def review_range(start: date, end: date, today: date, year_start: YearStart) -> tuple[date, date]:
    """The days a review of ``start``–``end`` reads: comparisons, and forecasts with their
    backtest (the same days whatever the range)."""
    closed = today - timedelta(days=1)
    return min(comparison_start(start, end), required_start(today, year_start)), max(end, closed)


def _limits(budgets: BudgetSettings, metric: str, kind: PeriodKind) -> tuple[Limit, ...]:
    """The organization-wide budgets of one metric and period."""
    return tuple(
        Limit(b.title, b.fixed_limit, budgets.threshold(b))
        for b in budgets.budgets
        if b.key is None and b.team is None and b.metric == metric and b.period == kind
    )


def _paths(
    key_day: pd.DataFrame,
    today: date,
    covered_from: date,
    year_start: YearStart,
    budgets: BudgetSettings | None,
) -> tuple[ForecastPath, ...]:
    paths = []
    for metric in CHARTED_METRICS:
        for kind in (k for k in PERIOD_KINDS if k in CHARTED_PERIODS):
            span = period_bounds(kind, today, year_start)
            limits = () if budgets is None else _limits(budgets, metric, kind)
            label = METRIC_LABELS[metric]
            title = f"{label} — {PERIOD_TITLES[kind].lower()} to date"
            path = projection_path(key_day, metric, span, today, covered_from)
            paths.append(ForecastPath(metric, kind, title, path, limits, label))
    return tuple(paths)


COST_FORECAST_COLUMNS = ["period", "start", "end", "actual", "projected"]


def _cost_paths(
    key_day: pd.DataFrame,
    today: date,
    covered_from: date,
    year_start: YearStart,
    budgets: BudgetSettings | None,
    prices: Prices,
) -> tuple[ForecastPath, ...]:
    """The organization's cost (base fee included) of each period holding today: used so far
    and as forecast to the period's end (its days without a price cost nothing)."""
    paths = []
    label = f"Cost ({prices.currency})"
    for kind in PERIOD_KINDS:
        first, last = period_bounds(kind, today, year_start)
        path = cost_path(key_day, (), (first, last, today, covered_from), prices)
        limits = () if budgets is None else _limits(budgets, COST, kind)
        title = f"{label} — {PERIOD_TITLES[kind].lower()} to date"
        paths.append(ForecastPath(COST, kind, title, path, limits, label, prices.currency))
    return tuple(paths)


def _cost_forecasts(paths: tuple[ForecastPath, ...]) -> pd.DataFrame:
    """Per period: its days, the cost so far (closed days) and projected to its end."""
    rows = []
    for p in paths:
        closed = p.path["actual"].dropna()
        rows.append(
            {
                "period": p.kind,
                "start": p.path["day"].iloc[0].date(),
                "end": p.path["day"].iloc[-1].date(),
                "actual": float(closed.iloc[-1]) if len(closed) else 0.0,
                "projected": float(p.path["expected"].iloc[-1]),
            }
        )
    return pd.DataFrame(rows, columns=COST_FORECAST_COLUMNS)


def _spend(
    key_day: pd.DataFrame, span: tuple[date, date], covered_from: date, prices: Prices
) -> pd.DataFrame | None:
    """The spend per team of a range the frame covers (of its days with a price), else None."""
    first, last = span
    if first < covered_from:
        return None
    return prices.spend(within(key_day, first, last), first, last)


def _previous_spend(
    key_day: pd.DataFrame, comparison: Comparison, covered_from: date, prices: Prices
) -> pd.DataFrame | None:
    """The previous range's spend, when it and the range have a price on every day."""
    if prices.unpriced(comparison.previous[0], comparison.end):
        return None
    return _spend(key_day, comparison.previous, covered_from, prices)


def _unpriced(
    prices: Prices, span: tuple[date, date], cost_paths: tuple[ForecastPath, ...]
) -> str | None:
    """The days without a price among those the review prices: the range and the periods of
    the cost forecasts (and so of the cost budgets)."""
    starts = [span[0], *(p.path["day"].iloc[0].date() for p in cost_paths)]
    ends = [span[1], *(p.path["day"].iloc[-1].date() for p in cost_paths)]
    return prices.unpriced(min(starts), max(ends))


def build_review(
    usage: FetchedRange,
    budgets: BudgetSettings | None,
    today: date,
    start: date,
    end: date,
    prices: Prices | None = None,
    year_start: YearStart | None = None,
    withheld: str | None = None,
) -> CapacityReview:
    """The review of ``start``–``end``; ``usage`` should cover ``review_range`` of it. With
    ``prices``, the spend and the cost forecasts are part of it; ``budgets`` draw their
    limits on the forecasts (their status is ``budgets.budget_status``'s, which both front
    ends read beside the review). The contract year is ``year_start``, by default
    ``budgets``' (a team's budgets may be none of the file's). ``withheld``: some teams'
    review, whose ``prices`` give their spend only (``access.scoped_money``), says this in
    place of the cost forecasts."""
    key_day, covered_from = usage.frame, usage.start
    year_start = year_start or contract_year(budgets)
    comparison = compare(key_day, start, end, covered_from=covered_from)
    paths = _paths(key_day, today, covered_from, year_start, budgets)
    cost_paths: tuple[ForecastPath, ...] = ()
    unpriced = None
    if prices is not None:
        if withheld is None:
            cost_paths = _cost_paths(key_day, today, covered_from, year_start, budgets, prices)
        unpriced = _unpriced(prices, (start, end), cost_paths)
    return CapacityReview(
        today=today,
        covered_from=covered_from,
        year_start=year_start,
        comparison=comparison,
        key_forecasts=key_forecasts(key_day, today, covered_from, year_start=year_start),
        outlooks={
            metric: organization_outlook(key_day, metric, covered_from, today)
            for metric in CHARTED_METRICS
        },
        paths=paths + tuple(p for p in cost_paths if p.kind in CHARTED_PERIODS),
        mismatches=tuple(usage.mismatches),
        currency=None if prices is None else prices.currency,
        cost_forecasts=None if prices is None else _cost_forecasts(cost_paths),
        spend=None if prices is None else _spend(key_day, (start, end), covered_from, prices),
        previous_spend=None
        if prices is None
        else _previous_spend(key_day, comparison, covered_from, prices),
        unpriced=unpriced,
        withheld=withheld,
    )


def review_of(
    reader: UsageReader,
    budgets: BudgetSettings | None,
    today: date,
    start: date,
    end: date,
    prices: Prices | None = None,
    year_start: YearStart | None = None,
    withheld: str | None = None,
) -> tuple[CapacityReview, FetchedRange]:
    """The review of ``start``–``end`` and the usage it read: ``reader`` is asked for the
    days ``review_range`` names, so the page and the report read the same days;
    ``year_start`` and ``withheld`` as ``build_review``."""
    year_start = year_start or contract_year(budgets)
    read = reader.usage(*review_range(start, end, today, year_start))
    review = build_review(read, budgets, today, start, end, prices, year_start, withheld)
    return review, read


@dataclass(frozen=True)
class Asked:
    """What a capacity decision is asked under: the what-ifs, the risk setting (the highest
    chance of overage the recommendation accepts) and the next term's months."""

    what_if: WhatIf = field(default_factory=WhatIf)
    risk: float = DEFAULT_RISK
    term: int = DEFAULT_TERM


def decision_of(
    found: dict[str, Outlook],
    options: Sequence[Option],
    asked: Asked,
    year_start: YearStart,
    plan: TodaysPlan | str | None = None,
) -> Decision:
    """The decision the Capacity page shows, the meeting report renders and `capacity
    recommend` prints, whichever makes it: the outlooks' forecasts to the contract year of the
    budgets file in force (``budgets.contract_year``) and the recommendation among today's
    ``plan`` (``decision.plan_for_term``) and ``options`` (none without a catalogue), under
    ``asked``."""
    return decide(
        found,
        options,
        term=asked.term,
        what_if=asked.what_if,
        risk=asked.risk,
        year_start=year_start,
        plan=plan,
    )
