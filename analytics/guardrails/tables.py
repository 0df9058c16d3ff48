"""The plan as tables and as a record: what ``guardrails plan`` prints and a page shows, per
enforced budget and per key, counts in the budget's own units (characters, minutes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import pandas as pd

from analytics.guardrails.plan import KeyPlan, Plan
from analytics.guardrails.rules import MEASURE_NAMES, MEASURES, UNITS_PER, Measure, limit_of
from analytics.guardrails.sharing import BudgetShare

SHARE_COLUMNS: Final = [
    "budget", "measure", "allowance", "used before", "used now", "left", "in limits", "reserve",
    "keys",
]  # fmt: skip
KEY_COLUMNS: Final = [
    "label", "characters counted", "character limit", "planned character limit",
    "minutes counted", "minute limit", "planned minute limit", "set by", "at limit", "why",
    "key_id",
]  # fmt: skip


def amount(measure: Measure, value: int | None) -> float | None:
    """Service units as the budget counts them: characters, or minutes."""
    return None if value is None else value / UNITS_PER[measure]


def share_table(plan: Plan) -> pd.DataFrame:
    """One row per enforced budget and measure: the usage period's allowance, what its keys
    used in earlier usage periods of the budget's period and in this one (closed days, keys no
    limit caps, today's not yet in analytics), what is left, what of today's use the keys' own
    limits already bound (shared out again), the reserve per key."""
    return pd.DataFrame(
        [
            [
                s.budget.title,
                MEASURE_NAMES[s.measure],
                amount(s.measure, s.allowance),
                amount(s.measure, s.prior),
                amount(s.measure, s.fixed + s.hidden + s.counted),
                amount(s.measure, s.left),
                amount(s.measure, s.in_limits),
                amount(s.measure, s.reserve),
                len(s.limits),
            ]
            for s in plan.shares
        ],
        columns=SHARE_COLUMNS,
    )


def _limits(k: KeyPlan, measure: Measure) -> list[float | None]:
    return [
        amount(measure, k.use.counted[measure]),
        amount(measure, limit_of(k.current, measure)),
        amount(measure, limit_of(k.new, measure)),
    ]


def key_table(plan: Plan) -> pd.DataFrame:
    """One row per guarded key: counted use, limit now and planned, the budget setting it,
    whether its use has reached the planned limit, and why."""
    return pd.DataFrame(
        [
            [
                k.key.label,
                *_limits(k, "characters"),
                *_limits(k, "speech"),
                k.by or "hand-set",
                "yes" if k.at_limit else "no",
                "; ".join(k.notes),
                k.key.key_id,
            ]
            for k in plan.keys
        ],
        columns=KEY_COLUMNS,
    )


def plan_record(plan: Plan) -> dict[str, object]:
    """The plan as one machine-readable record (``guardrails plan --format json``)."""
    return {
        "as_of": plan.today,
        "usage_period": {"start": plan.period.start, "end": plan.period.end},
        "budgets": share_table(plan).to_dict("records"),
        "keys": key_table(plan).to_dict("records"),
        "changes": [
            {
                "key_id": k.key.key_id,
                "label": k.key.label,
                "by": k.by,
                "change": k.change_text,
                **{
                    f"{m}_limit": {
                        "now": amount(m, limit_of(k.current, m)),
                        "planned": amount(m, limit_of(k.new, m)),
                    }
                    for m in MEASURES
                },
            }
            for k in plan.changes
        ],
        "refused": list(plan.refusals),
    }


@dataclass(frozen=True)
class Blocked:
    """A key an enforced budget stops: its counted use has reached the limit the budget sets
    for ``measure`` (a smaller hand-set limit that stops it is the key's own, not this)."""

    key: KeyPlan
    measure: Measure
    budget: str  # the title of the budget that sets the limit


def blocked(plan: Plan) -> list[Blocked]:
    """The keys stopped by a guardrail, per measure, in the plan's key order."""
    return [
        Blocked(k, m, k.setters[m])
        for k in plan.keys
        for m in MEASURES
        if k.setters.get(m)
        and (limit := limit_of(k.new, m)) is not None
        and k.use.counted[m] >= limit
    ]


def exhausted(plan: Plan) -> list[BudgetShare]:
    """The enforced budgets (per measure) with nothing left this usage period: every key of
    theirs is stopped at its use."""
    return [s for s in plan.shares if s.left <= 0]
