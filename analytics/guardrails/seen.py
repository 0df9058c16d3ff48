"""The guardrails' plan as a scope sees it. The plan is the organization's: the limits
``guardrails apply`` sends are worked out over every listed key and every enforced budget, so a
team's keys are planned as they are limited, never over the team alone. It is narrowed here,
once, for every table that shows it (``plan_tables``), as a table of money is made over the
organization and then narrowed (``access.Visible.team_rows``).

A team's scope sees the enforced budgets ``access.Visible.budgets`` gives it and its own keys.
The organization's enforced budgets, the plan's limits and the organization's use are left out
(a budget's use now holds today's use of the whole organization, which analytics shows
tomorrow), and nothing names another team's key or budget: a limit set by a budget the scope
does not see says so without its name, and the "why" of such a share is not given.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from analytics.access import Visible
from analytics.capacity import BudgetSettings
from analytics.guardrails.limit_plan import KeyPlan, Plan
from analytics.keys import masked

# What "set by" says of a limit a budget outside the scope sets.
UNSEEN_BUDGET: Final = "a budget not shown"


def seen_titles(visible: Visible, budgets: BudgetSettings) -> frozenset[str]:
    """The titles of the budgets of ``budgets`` the scope sees."""
    seen = visible.budgets(budgets)
    return frozenset(() if seen is None else (budget.title for budget in seen.budgets))


def seen_plan(plan: Plan, visible: Visible, budgets: BudgetSettings) -> Plan:
    """``plan`` (the organization's, of ``budgets``) as ``visible`` shows it: for a team's
    scope its budgets' shares and refusals, its keys, each named by no budget it does not see,
    and neither the plan's limits nor the organization's use (``Plan.whole``)."""
    if visible.scope.whole:
        return plan
    titles = seen_titles(visible, budgets)
    unseen_shares = tuple(f"{s.title}: " for s in plan.shares if s.budget.title not in titles)

    def named(title: str) -> str:
        return title if not title or title in titles else UNSEEN_BUDGET

    def seen_key(k: KeyPlan) -> KeyPlan:
        return replace(
            k,
            setters={m: named(title) for m, title in k.setters.items()},
            notes=tuple(note for note in k.notes if not note.startswith(unseen_shares)),
            applied_by=named(k.applied_by),
        )

    def in_scope(k: KeyPlan) -> bool:
        mask = k.use.api_key or masked(k.key.key_id)
        return visible.sees(visible.team_of_key(mask, k.key.label))

    refused = tuple(f"{title}: not enforced:" for title in titles)
    return replace(
        plan,
        shares=tuple(s for s in plan.shares if s.budget.title in titles),
        keys=tuple(seen_key(k) for k in plan.keys if in_scope(k)),
        refusals=tuple(line for line in plan.refusals if line.startswith(refused)),
        plan_limits={},
        whole=False,
    )
