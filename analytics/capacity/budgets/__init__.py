"""Where usage stands against its limits: the budgets of ``budgets.toml`` (``definitions``),
each measured against usage (``evaluation``), the plan's billing period against the plan's own
limits (``billing``), what capacity asks of the prices in force and a period's projected cost
(``costs``), and every budget's status today, as both front ends ask it (``todays_status``).

Projections come from ``analytics.capacity.forecasting``; the guardrails, the keys' limits,
the alerts and the front ends read budgets through this face only."""

from analytics.capacity.budgets.billing import (
    Allowance,
    BillingPeriod,
    Measure,
    PlanLimits,
    PlanSnapshot,
    allowance,
    billing_period,
    period_range,
    plan_limits,
)
from analytics.capacity.budgets.costs import COST, PriceList, Prices, cost_path
from analytics.capacity.budgets.definitions import (
    DEFAULT_WARNING,
    USAGE_PERIOD,
    Budget,
    BudgetSettings,
    BudgetSettingsError,
    contract_year,
    parse_budgets,
)
from analytics.capacity.budgets.evaluation import (
    Evaluation,
    Status,
    budget_period,
    evaluate,
    evaluation_frame,
    matching_keys,
    status_for,
    worst,
)
from analytics.capacity.budgets.todays_status import (
    PlanReader,
    budget_status,
    current_plan,
)

__all__ = [
    "COST",
    "DEFAULT_WARNING",
    "USAGE_PERIOD",
    "Allowance",
    "BillingPeriod",
    "Budget",
    "BudgetSettings",
    "BudgetSettingsError",
    "Evaluation",
    "Measure",
    "PlanLimits",
    "PlanReader",
    "PlanSnapshot",
    "PriceList",
    "Prices",
    "Status",
    "allowance",
    "billing_period",
    "budget_period",
    "budget_status",
    "contract_year",
    "cost_path",
    "current_plan",
    "evaluate",
    "evaluation_frame",
    "matching_keys",
    "parse_budgets",
    "period_range",
    "plan_limits",
    "status_for",
    "worst",
]
