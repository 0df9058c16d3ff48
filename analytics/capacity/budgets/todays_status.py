"""What the front ends ask of capacity today: the plan's billing period against its limits, and
every budget's status (usage, cost and plan budgets, in the file's order), each read through a
``PlanReader`` so that the days each reads are chosen here once."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import date
from typing import Protocol

import pandas as pd

from analytics.capacity.budgets.billing import (
    PlanSnapshot,
    billing_period,
    plan_snapshot,
    usage_range,
)
from analytics.capacity.budgets.costs import Prices
from analytics.capacity.budgets.definitions import BudgetSettings
from analytics.capacity.budgets.evaluation import Evaluation, evaluate, evaluate_plan, in_file_order
from analytics.capacity.forecasting import required_start
from analytics.service import PlanUsage
from analytics.usage import ONE_DAY, FetchedRange, UsageReader


class PlanReader(UsageReader, Protocol):
    """Usage of any range, and the plan as the service reports it now."""

    def plan(self) -> PlanUsage:
        """The service's answer on the plan (``GET /v2/usage``)."""
        ...


def current_plan(reader: PlanReader, today: date, prices: Prices | None = None) -> PlanSnapshot:
    """The billing period's use of the plan's limits as of ``today``, projected over the days
    ``usage_range`` names; with ``prices``, the period's spend too."""
    answer = reader.plan()
    read = reader.usage(*usage_range(answer, today))
    return plan_snapshot(answer, read.frame, today, read.start, prices)


def all_evaluations(
    budgets: BudgetSettings, evaluated: Iterable[Evaluation], plan: PlanSnapshot | None
) -> list[Evaluation]:
    """Every budget of the file evaluated, in its order: the usage and cost budgets
    ``evaluated`` (``evaluation.evaluate``'s), and the plan budgets against ``plan`` (left out
    when the plan could not be read: None)."""
    if plan is None:
        return list(evaluated)
    return in_file_order(budgets, evaluated, evaluate_plan(budgets, plan))


def budget_status(
    reader: PlanReader,
    budgets: BudgetSettings,
    today: date,
    prices: Prices | None,
    key_teams: Callable[[pd.DataFrame], Mapping[str, str]] | None = None,
    *,
    plan_budgets: bool = True,
) -> tuple[list[Evaluation], FetchedRange]:
    """Every budget of the file evaluated as of ``today`` (``all_evaluations``), and the usage
    read for them: one range, from the earliest day a budget's period or the plan's projection
    reads (the plan is asked only when the file has plan or usage-period budgets, whose period
    is the plan's billing period); ``key_teams`` gives each masked key of the usage read its
    team, for team budgets. Without ``plan_budgets`` the plan budgets are left out, as when a
    front end already failed to read the plan: a failing service is not asked again for them."""
    with_plan = plan_budgets and bool(budgets.plan_budgets)
    asks_plan = with_plan or budgets.usage_period_budgets
    answer = reader.plan() if asks_plan else None
    first = required_start(today, budgets.year_start)
    period = None
    if answer is not None:
        first = min(first, usage_range(answer, today)[0])
        billing = billing_period(answer)
        period = None if billing is None else (billing.start, billing.end)
    read = reader.usage(first, today - ONE_DAY)
    teams = None if key_teams is None else key_teams(read.frame)
    evaluated = evaluate(
        budgets, read.frame, today, read.start, prices, usage_period=period, teams=teams
    )
    plan = None
    if answer is not None and with_plan:
        plan = plan_snapshot(answer, read.frame, today, read.start)
    return all_evaluations(budgets, evaluated, plan), read
