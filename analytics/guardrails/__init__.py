"""Guardrails: budgets marked ``enforce = true`` held by the keys' own limits, which the service
enforces on its live counters. ``rules`` says which budgets can be held, ``limit_plan`` shares
each out as limits (pure; one budget's measure in ``budget_sharing``, over the ``plan_inputs``
it reads), ``inputs_from_reader`` reads what the plan needs, ``apply`` sends the changes and
gives the limits back (``memory`` remembers what they were), ``plan_tables`` shows the plan,
as ``seen`` narrows it to a session's scope."""

from analytics.guardrails.inputs_from_reader import NoUsagePeriod, plan_now
from analytics.guardrails.limit_plan import KeyPlan, Plan, make_plan
from analytics.guardrails.memory import LastRun, Memory
from analytics.guardrails.plan_tables import (
    COLUMN_HELP,
    LIMIT_COLUMNS,
    Moment,
    beside_plan,
    blocked,
    blocked_table,
    changes_table,
    exhausted,
    headroom_table,
    key_table,
    largest_cuts_first,
    plan_record,
    share_table,
    shown,
    stopping,
    warnings,
)
from analytics.guardrails.rules import MEASURE_NAMES, limit_of, limit_text, never_enforceable
from analytics.guardrails.seen import seen_plan

__all__ = [
    "COLUMN_HELP",
    "LIMIT_COLUMNS",
    "MEASURE_NAMES",
    "KeyPlan",
    "LastRun",
    "Memory",
    "Moment",
    "NoUsagePeriod",
    "Plan",
    "beside_plan",
    "blocked",
    "blocked_table",
    "changes_table",
    "exhausted",
    "headroom_table",
    "key_table",
    "largest_cuts_first",
    "limit_of",
    "limit_text",
    "make_plan",
    "never_enforceable",
    "plan_now",
    "plan_record",
    "seen_plan",
    "share_table",
    "shown",
    "stopping",
    "warnings",
]
