"""Guardrails: budgets marked ``enforce = true`` held by the keys' own limits, which the service
enforces on its live counters. `rules` says which budgets can be held, `plan` shares each out
as limits (pure; one budget's measure in `sharing`, over the `situation` it reads), `reading`
reads what the plan needs, `apply` sends the changes and gives the limits back (`state`
remembers what they were), and `tables` lays the plan out for people."""

from analytics.guardrails.plan import KeyPlan, Plan, make_plan
from analytics.guardrails.reading import NoUsagePeriod, plan_now
from analytics.guardrails.rules import never_enforceable
from analytics.guardrails.state import LastRun, Memory

__all__ = [
    "KeyPlan",
    "LastRun",
    "Memory",
    "NoUsagePeriod",
    "Plan",
    "make_plan",
    "never_enforceable",
    "plan_now",
]
