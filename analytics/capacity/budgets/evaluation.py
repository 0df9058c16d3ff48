"""Budgets measured against usage: what is used, the projection, the day the limit is reached and
a status, per budget of ``budgets.toml`` (``definitions``).

Evaluating a budget gives what is used, the projection to the period's end (the one forecast,
``forecasting.projection_path``: a key's or a team's budget takes its keys' share of the
organization's), the day the projection crosses the limit and a status:

* ``exceeded`` — the limit is used up (used ≥ limit; with a zero limit, any use);
* ``warning`` — used or projected usage reaches the warning threshold (default 80 %);
* ``unknown key`` — the named key (or team) has no usage in the data: a typo or a retired key;
* ``ok`` — otherwise, and always for a plan budget of a plan without a character limit.

Evaluation is pure: usage budgets read a key-day frame (``evaluate``), plan budgets a plan
snapshot (``evaluate_plan``) that the caller fetched. A usage-period budget needs the billing
period the caller read from the service; a team budget the team of each key (the teams file
lives in the money layer, which capacity does not import): without them it is not evaluated
(status ok, with a note saying why).

This package does not price: the caller passes the ``Prices`` in
force (``costs``). Used is the cost of the period's closed days; the
projection (``costs.cost_path``) prices, at the prices in force each day, the closed days'
usage followed by the forecast of every metric's usage for the remaining days (of the
budget's keys and of the rest of the organization, which shares the included volume); it has
no band. Without prices a cost budget is not evaluated (status ok, with a note); days
without a price cost nothing, and the note names them.

"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Literal

import pandas as pd

from analytics.capacity.budgets.billing import PlanSnapshot, reaches
from analytics.capacity.budgets.costs import Prices, cost_path
from analytics.capacity.budgets.definitions import Budget, BudgetSettings
from analytics.capacity.forecasting import projection_path
from analytics.usage import YearStart, is_minutes, period_bounds, range_text

Status = Literal["ok", "warning", "exceeded", "unknown key"]
STATUS_ORDER: tuple[Status, ...] = ("ok", "unknown key", "warning", "exceeded")
EVALUATION_COLUMNS = [
    "budget", "scope", "metric", "period", "unit", "limit", "used", "used %",
    "projected", "projected %", "overrun", "reached", "status", "note",
]  # fmt: skip


@dataclass(frozen=True)
class Evaluation:
    """A budget measured against usage on closed days before ``as_of``, or (a plan budget)
    against the plan's counts of the billing period."""

    budget: Budget
    threshold: float
    limit: float | None  # None: the plan has no character limit
    start: date | None  # None: the service reports no billing period (free plan)
    end: date | None
    used: float
    projected: float
    low: float
    high: float
    overrun: date | None  # first day the (actual, then expected) cumulative usage reaches the limit
    status: Status
    keys: tuple[str, ...]  # masked keys the budget matched
    note: str = ""

    @property
    def used_share(self) -> float:
        return _share(self.used, self.limit)

    @property
    def projected_share(self) -> float:
        return _share(self.projected, self.limit)

    @property
    def period_text(self) -> str:
        if self.start is None or self.end is None:
            return "billing period (not reported)"
        return range_text(self.start, self.end)

    @property
    def reach_text(self) -> str:
        """The day the limit is reached, so far or as forecast, or that it is not
        reached within the period; "-" for a budget without a limit or not evaluated."""
        if self.limit is None or self.status == "unknown key" or math.isnan(self.projected):
            return "-"
        if self.overrun is None:
            return "not within the period"
        when = "reached" if reaches(self.used, self.limit) else "projected"
        return f"{self.overrun:%Y-%m-%d} ({when})"

    def unit(self, currency: str = "") -> str:
        """What limit, used and projected count: characters, minutes, or the currency."""
        if self.budget.is_cost:
            return currency
        return "minutes" if is_minutes(self.budget.metric) else "characters"


def _share(value: float, limit: float | None) -> float:
    if limit is None:
        return math.nan
    if limit > 0:
        return value / limit
    return math.inf if value > 0 else 0.0


def matching_keys(key_day: pd.DataFrame, key: str) -> tuple[str, ...]:
    """Masked keys whose label or masked key equals ``key`` (a shared label matches them all)."""
    hit = (key_day["api_key"].astype(str) == key) | (key_day["api_key_label"].astype(str) == key)
    return tuple(sorted(key_day.loc[hit, "api_key"].astype(str).unique()))


def status_for(used: float, projected: float, limit: float, threshold: float) -> Status:
    """``exceeded`` when the limit is used up, ``warning`` when used or projected reaches it."""
    if reaches(used, limit):
        return "exceeded"
    reach = max(used, projected)
    if reach > 0 and reach >= threshold * limit:
        return "warning"
    return "ok"


def budget_period(
    budget: Budget, as_of: date, year_start: YearStart, usage_period: tuple[date, date] | None
) -> tuple[date, date] | None:
    """The days of a usage or cost budget's period holding ``as_of``: its calendar period, or
    the usage period the service reported (None when it reported none)."""
    if budget.over_usage_period:
        return usage_period
    return period_bounds(budget.kind, as_of, year_start)


def budget_keys(
    budget: Budget, key_day: pd.DataFrame, teams: Mapping[str, str] | None
) -> tuple[str, ...] | None:
    """The masked keys a key or team budget matches (a team's by ``teams``, masked key →
    team); () for the organization; None for a team budget without the keys' teams."""
    if budget.key is not None:
        return matching_keys(key_day, budget.key)
    if budget.team is not None:
        if teams is None:
            return None
        return tuple(sorted(k for k, team in teams.items() if team == budget.team))
    return ()


def _unread(
    budget: Budget,
    span: tuple[date, date] | None,
    keys: tuple[str, ...] | None,
    prices: Prices | None,
) -> str:
    """Why a budget cannot be measured: what was not read for it; "" when it can be."""
    return (
        "the usage period was not read"
        if span is None
        else "the keys' teams were not read"
        if keys is None
        else "no pricing file: cost not evaluated"
        if budget.is_cost and prices is None
        else ""
    )


def _not_measured(
    budget: Budget,
    threshold: float,
    span: tuple[date, date] | None,
    keys: tuple[str, ...] | None,
    unread: str,
) -> Evaluation:
    """A budget left unmeasured (status ok, its figures NaN), with the note saying what was
    not read for it."""
    nan = math.nan
    first, last = (None, None) if span is None else span
    return Evaluation(
        budget,
        threshold,
        budget.fixed_limit,
        first,
        last,
        nan,
        nan,
        nan,
        nan,
        None,
        "ok",
        keys or (),
        note=unread,
    )


def _measured(
    budget: Budget,
    threshold: float,
    span: tuple[date, date],
    keys: tuple[str, ...],
    key_day: pd.DataFrame,
    as_of: date,
    covered_from: date,
    prices: Prices | None,
) -> Evaluation:
    """A usage or cost budget measured over ``span`` on the path of its keys' (() for the
    organization's) use: closed days, then the forecast."""
    start, end = span
    limit = budget.fixed_limit
    if budget.is_cost:
        assert prices is not None
        path = cost_path(key_day, keys, (start, end, as_of, covered_from), prices)
        unpriced = prices.unpriced(start, end)
        note = f"{unpriced}: cost of the priced days only" if unpriced else ""
    else:
        note = ""
        path = projection_path(
            key_day, budget.metric, (start, end), as_of, covered_from, keys or None
        )
    closed = path["actual"].dropna()
    used = float(closed.iloc[-1]) if len(closed) else 0.0
    projected = float(path["expected"].iloc[-1])
    reached = path.loc[path["expected"] >= limit, "day"]
    overrun = reached.iloc[0].date() if limit > 0 and len(reached) else None
    return Evaluation(
        budget=budget,
        threshold=threshold,
        limit=limit,
        start=start,
        end=end,
        used=used,
        projected=projected,
        low=float(path["low"].iloc[-1]),
        high=float(path["high"].iloc[-1]),
        overrun=overrun,
        status=status_for(used, projected, limit, threshold),
        keys=keys,
        note=note,
    )


def evaluate(
    budgets: BudgetSettings,
    key_day: pd.DataFrame,
    as_of: date,
    covered_from: date,
    prices: Prices | None = None,
    *,
    usage_period: tuple[date, date] | None = None,
    teams: Mapping[str, str] | None = None,
) -> list[Evaluation]:
    """Evaluate every usage and cost budget for the period holding ``as_of`` (days before it
    are closed); plan budgets are ``evaluate_plan``'s. ``usage_period`` is the billing period
    the service reports (for usage-period budgets), ``teams`` each masked key's team (for
    team budgets).

    ``key_day`` must cover ``covered_from`` up to the day before ``as_of``; use
    ``forecasting.required_start`` for the earliest day the evaluation reads.
    """
    results = []
    for budget in budgets.budgets:
        if budget.is_plan:
            continue
        threshold = budgets.threshold(budget)
        limit = budget.fixed_limit
        span = budget_period(budget, as_of, budgets.year_start, usage_period)
        keys = budget_keys(budget, key_day, teams)
        if span is not None and keys == () and (budget.key or budget.team) is not None:
            start, end = span
            results.append(
                Evaluation(
                    budget, threshold, limit, start, end, 0, 0, 0, 0, None, "unknown key", keys
                )
            )
        elif unread := _unread(budget, span, keys, prices):
            results.append(_not_measured(budget, threshold, span, keys, unread))
        else:
            assert span is not None and keys is not None
            results.append(
                _measured(budget, threshold, span, keys, key_day, as_of, covered_from, prices)
            )
    return results


def evaluate_plan(budgets: BudgetSettings, plan: PlanSnapshot) -> list[Evaluation]:
    """Evaluate the plan budgets against the plan's characters in its billing period: used is
    the service's count, projected the snapshot's (used alone when there is no projection)."""
    characters = plan.characters
    limit = characters.limit
    used = float(characters.used)
    projected = used if characters.projected is None else characters.projected
    note = ""
    if limit is None:
        note = "the plan has no character limit"
    elif characters.projected is None:
        note = "no projection: the service reports no billing period"
    period = plan.period
    results = []
    for budget in budgets.plan_budgets:
        threshold = budgets.threshold(budget)
        results.append(
            Evaluation(
                budget=budget,
                threshold=threshold,
                limit=limit,
                start=None if period is None else period.start,
                end=None if period is None else period.end,
                used=used,
                projected=projected,
                # The plan's projection is anchored on the service's count: it has no band.
                low=projected,
                high=projected,
                overrun=characters.reached,
                status="ok" if limit is None else status_for(used, projected, limit, threshold),
                keys=(),
                note=note,
            )
        )
    return results


def in_file_order(budgets: BudgetSettings, *groups: Iterable[Evaluation]) -> list[Evaluation]:
    """Evaluations of usage and plan budgets together, in the order the file lists them."""
    evaluations = [e for group in groups for e in group]
    return sorted(evaluations, key=lambda e: budgets.budgets.index(e.budget))


def worst(evaluations: Iterable[Evaluation]) -> Status:
    """The most serious status (``ok`` for none)."""
    return max((e.status for e in evaluations), key=STATUS_ORDER.index, default="ok")


def evaluation_frame(evaluations: Sequence[Evaluation], currency: str = "") -> pd.DataFrame:
    """One display row per budget, for tables, the CLI and the report; cost budgets count in
    ``currency`` (the pricing file's)."""
    return pd.DataFrame(
        [
            {
                "budget": e.budget.title,
                "scope": e.budget.scope,
                "metric": e.budget.metric,
                "period": e.period_text,
                "unit": e.unit(currency),
                "limit": math.nan if e.limit is None else e.limit,
                "used": e.used,
                "used %": 100 * e.used_share,
                "projected": e.projected,
                "projected %": 100 * e.projected_share,
                "overrun": e.overrun,
                "reached": e.reach_text,
                "status": e.status,
                "note": e.note,
            }
            for e in evaluations
        ],
        columns=EVALUATION_COLUMNS,
    )
