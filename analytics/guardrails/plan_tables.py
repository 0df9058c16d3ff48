"""The plan as tables and as a record: what ``guardrails plan`` prints and a page shows, per
enforced budget and per key, counts in the budget's own units (characters, minutes); what
each column means (``COLUMN_HELP``, the one explanation both front ends give); the keys a
limit stops, now or once the plan is applied; the changes in the order a person confirms
them; and each budget beside the plan's own limit.

Two moments are kept apart everywhere: the limits **in force now** (what the service enforces
this minute) and the **planned** ones (what ``guardrails apply``, or Apply now, would send). A
key "is blocked" only by the first; the second is what it "would be" after the apply.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

import pandas as pd

from analytics.cost import UNASSIGNED
from analytics.guardrails.budget_sharing import BudgetShare
from analytics.guardrails.limit_plan import KeyPlan, Plan
from analytics.guardrails.rules import (
    MEASURE_NAMES,
    MEASURES,
    UNITS_PER,
    Measure,
    limit_of,
    limit_text,
)
from analytics.keys import shown_limits
from analytics.usage import counted

Moment = Literal["now", "planned"]  # the limits in force now, or the plan's

SHARE_COLUMNS: Final = [
    "budget", "measure", "allowance", "used before", "used now", "left", "in limits", "reserve",
    "keys",
]  # fmt: skip
# A key is named as people read it (``KeyPlan.name``: its label and masked key id) in every
# table; the key id itself only in the plan's record (``plan_record``), which programs read.
KEY_COLUMNS: Final = [
    "key", "characters counted", "character limit", "planned character limit",
    "minutes counted", "minute limit", "planned minute limit", "set by", "blocked as planned",
    "why",
]  # fmt: skip
BLOCKED_COLUMNS: Final = ["key", "team", "measure", "used", "limit", "set by"]
CHANGE_COLUMNS: Final = ["key", "team", "set by", "change", "note"]
# The columns that hold a limit, or the room a limit leaves: empty where there is no limit,
# which every table writes as "no limit" (``keys.limits.shown_limits``), never a blank.
LIMIT_COLUMNS: Final = (
    "character limit", "planned character limit", "character headroom", "minute limit",
    "planned minute limit", "minute headroom", "limit",
)  # fmt: skip
HAND_SET: Final = "hand-set"
# What each column of the guardrails' tables says, shown where the column is (the page's
# column help, docs/guardrails.md).
COLUMN_HELP: Final[dict[str, str]] = {
    "budget": "The enforced budget, as the budgets file names it.",
    "measure": "What the limits count: characters (text, documents and improvement together) "
    "or speech-to-text minutes; a cost budget is held in both.",
    "allowance": "What the budget allows this usage period: its limit, less what its keys used "
    "in the earlier usage periods of its period (a contract year's; none over the usage period).",
    "used before": "What the budget's keys used in the earlier usage periods of the budget's "
    "period (a contract year); 0 for a budget over the usage period.",
    "used now": "Used this usage period: the keys' closed days, keys no planned limit caps "
    "(deactivated ones), and today's use the service counts but analytics shows tomorrow.",
    "left": "The allowance less what is used now: the room the planned limits share out.",
    "in limits": "Of today's use not yet in analytics, what the keys' own limits already bound: "
    "shared out again instead of being held back twice.",
    "reserve": "Held back below each sharing key's limit: a request no larger than this never "
    "carries the budget past its allowance.",
    "keys": "The active keys the budget covers.",
    "key": "The key: its label and masked key id.",
    "team": "The team of teams.toml that claims the key: who owns it.",
    "characters counted": "The key's characters on the closed days of this usage period.",
    "character limit": "The key's character limit in force now.",
    "planned character limit": "The character limit the plan gives it: what Apply now "
    "(guardrails apply) sends.",
    "character headroom": "What the planned character limit leaves it this usage period.",
    "minutes counted": "The key's speech-to-text minutes on the closed days of this usage period.",
    "minute limit": "The key's speech-to-text minute limit in force now.",
    "planned minute limit": "The minute limit the plan gives it: what Apply now "
    "(guardrails apply) sends.",
    "minute headroom": "What the planned minute limit leaves it this usage period.",
    "set by": "The enforced budget whose share sets the limit (a key in several gets the "
    "smallest); hand-set: the key's own limit, smaller, is kept.",
    "blocked as planned": "yes: its use has reached its planned limit, so once the plan is "
    "applied the service refuses it.",
    "why": "How each planned limit is worked out: counted use + share, drift, hand-set limits.",
    "used": "The key's use on the closed days of this usage period.",
    "limit": "The limit that stops it (for the keys blocked now, the one in force; for those "
    "that would be, the planned one).",
    "change": "Each limit, in force now → planned.",
    "note": "A change to look at before confirming: a limit of 0, or one at or below what the "
    "key used so far, refuses the key once sent.",
}


def amount(measure: Measure, value: int | None) -> float | None:
    """Service units as the budget counts them: characters, or minutes."""
    return None if value is None else value / UNITS_PER[measure]


def shown(table: pd.DataFrame) -> pd.DataFrame:
    """A table as people read it: its limit columns as each limit is written everywhere, the
    count it allows or "no limit" (a blank would read as unknown, a zero as nothing allowed)."""
    return shown_limits(table, [c for c in LIMIT_COLUMNS if c in table.columns])


# The share table's columns that hold the organization's use (today's use not yet in
# analytics is counted for the whole organization): left out of a team's scope.
ORGANIZATION_USE: Final = ["used now", "left", "in limits"]


def share_table(plan: Plan) -> pd.DataFrame:
    """One row per enforced budget and measure: the usage period's allowance, what its keys
    used in earlier usage periods of the budget's period and in this one (closed days, keys no
    limit caps, today's not yet in analytics), what is left, what of today's use the keys' own
    limits already bound (shared out again), the reserve per key; for a team's scope without
    the columns holding the organization's use (``ORGANIZATION_USE``)."""
    table = pd.DataFrame(
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
    return table if plan.whole else table.drop(columns=ORGANIZATION_USE)


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
                k.name,
                *_limits(k, "characters"),
                *_limits(k, "speech"),
                k.by or "hand-set",
                "yes" if k.at_limit else "no",
                "; ".join(k.notes),
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
        "keys": [
            {"key_id": k.key.key_id, "label": k.key.label, **row}
            for k, row in zip(
                plan.keys, key_table(plan).drop(columns="key").to_dict("records"), strict=True
            )
        ],
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
    """A key a limit stops: its counted use has reached ``limit``, its limit of ``measure`` in
    force now or planned; ``by`` the budget that sets that limit ("": the key's own)."""

    key: KeyPlan
    measure: Measure
    limit: int
    by: str


def _setter(k: KeyPlan, m: Measure, moment: Moment) -> str:
    """Who set the key's limit of ``m``: the budget, or "" (its own)."""
    if moment == "planned":
        return k.setters.get(m, "")
    own = limit_of(k.current, m) == limit_of(k.hand, m)
    return "" if own else k.applied_by


def blocked(plan: Plan, moment: Moment = "planned") -> list[Blocked]:
    """The keys stopped by their limits in force ``now``, or by the ``planned`` ones once
    applied, per measure, in the plan's key order."""
    found = []
    for k in plan.keys:
        limits = k.current if moment == "now" else k.new
        for m in k.stopped(limits):
            limit = limit_of(limits, m)
            assert limit is not None
            found.append(Blocked(k, m, limit, _setter(k, m, moment)))
    return found


def blocked_table(plan: Plan, moment: Moment) -> pd.DataFrame:
    """The keys a limit stops (``blocked``): which key and team, which measure, used, the
    limit and who set it."""
    return pd.DataFrame(
        [
            [
                b.key.name,
                b.key.use.team,
                MEASURE_NAMES[b.measure],
                amount(b.measure, b.key.use.counted[b.measure]),
                amount(b.measure, b.limit),
                b.by or HAND_SET,
            ]
            for b in blocked(plan, moment)
        ],
        columns=BLOCKED_COLUMNS,
    )


def headroom_table(plan: Plan) -> pd.DataFrame:
    """``key_table`` with each key's headroom under its planned limits: what it may still use
    this usage period (NaN: no limit)."""
    table = key_table(plan)
    for used, planned_limit, headroom in (
        ("characters counted", "planned character limit", "character headroom"),
        ("minutes counted", "planned minute limit", "minute headroom"),
    ):
        after = list(table.columns).index(planned_limit) + 1
        table.insert(after, headroom, table[planned_limit] - table[used])
    return table


# --- the changes, as a person confirms them --------------------------------------------------


def _cut(k: KeyPlan, m: Measure) -> tuple[int, float]:
    """How much the change takes off the key's limit of ``m``, comparable within a measure:
    a limit where there was none is the largest cut (the smaller the new limit, the larger),
    then a smaller limit by what it takes off; a raise is negative, to no limit the least."""
    now, new = limit_of(k.current, m), limit_of(k.new, m)
    if now is None:
        return (1, -new) if new is not None else (0, 0)
    if new is None:
        return (-1, 0)
    return (0, now - new)


def largest_cuts_first(keys: Sequence[KeyPlan]) -> list[KeyPlan]:
    """The changes in the order to read them before sending: the largest reductions first,
    characters compared before minutes (each measure in its own units), ties by label."""

    def order(k: KeyPlan) -> tuple[list[tuple[int, float]], str]:
        return [(-rank, -size) for rank, size in (_cut(k, m) for m in MEASURES)], k.key.label

    return sorted(keys, key=order)


def warning_of(k: KeyPlan) -> str:
    """What the change would do that a person must see before sending it: a limit of 0 (every
    request refused), or one at or below the key's use so far (refused at once); "" else."""
    said = []
    for m in MEASURES:
        new = limit_of(k.new, m)
        if new is None or new == limit_of(k.current, m):
            continue
        if new == 0:
            said.append(f"{MEASURE_NAMES[m]} limit 0: every request refused")
        elif k.use.counted[m] >= new:
            said.append(
                f"{MEASURE_NAMES[m]} limit {limit_text(m, new)}, at or below its use so far "
                f"({limit_text(m, k.use.counted[m])}): refused at once"
            )
    return "; ".join(said)


def warnings(keys: Sequence[KeyPlan]) -> list[str]:
    """Each change ``warning_of`` names, as one line naming the key and its team (its owner,
    where teams.toml claims it), in the order of ``largest_cuts_first``."""

    def owner(k: KeyPlan) -> str:
        return "" if k.use.team in (None, UNASSIGNED) else f" (team {k.use.team})"

    return [
        f"{k.name}{owner(k)}: {said}" for k in largest_cuts_first(keys) if (said := warning_of(k))
    ]


def changes_table(keys: Sequence[KeyPlan]) -> pd.DataFrame:
    """Limit changes as a person confirms them (``largest_cuts_first``): each key, its team,
    the budget it is changed for, before → after, and what to look at."""
    return pd.DataFrame(
        [
            [k.name, k.use.team, k.by or HAND_SET, k.change_text, warning_of(k)]
            for k in largest_cuts_first(keys)
        ],
        columns=CHANGE_COLUMNS,
    )


# --- the budgets beside the plan's own limits --------------------------------------------------


def beside_plan(plan: Plan) -> list[str]:
    """Each enforced budget's allowance this usage period named beside the plan's own limit of
    the measure, with why the two differ: the guardrails share out the budget, while the
    service caps the whole organization at the plan's limit by itself. None for a team's
    scope: the plan's limits are the organization's figures."""
    lines: list[str] = []
    for s in plan.shares if plan.whole else ():
        m = s.measure
        allowed = f"{s.title}: {limit_text(m, s.allowance)} this usage period"
        plan_limit = plan.plan_limits.get(m)
        if plan_limit is None:
            lines.append(
                f"{allowed}; the plan has no {MEASURE_NAMES[m]} limit: the budget is the only "
                "cap, and the guardrails share it out as the keys' limits."
            )
        elif s.allowance <= plan_limit:
            lines.append(
                f"{allowed}, the plan's limit {limit_text(m, plan_limit)}: the budget is the "
                "tighter of the two and is what the guardrails share out as the keys' limits; "
                "the plan's limit is the service's own cap on the whole organization."
            )
        else:
            lines.append(
                f"{allowed}, the plan's limit {limit_text(m, plan_limit)}: the plan's limit is "
                "the tighter, and the service stops the whole organization there whatever the "
                "keys' limits allow; the guardrails share out the budget."
            )
    return lines


def exhausted(plan: Plan) -> list[BudgetShare]:
    """The enforced budgets (per measure) with nothing left this usage period: every key of
    theirs is stopped at its use."""
    return [s for s in plan.shares if s.left <= 0]


RESERVE_SETTINGS: Final[dict[Measure, str]] = {
    "characters": "reserve_characters",
    "speech": "reserve_minutes",
}


def stopping(plan: Plan) -> list[str]:
    """One line per enforced budget whose room this usage period cannot hold one key's reserve
    above its use: every key of it will be stopped, whatever else the keys' limits say. A
    budget set smaller than its keys' reserves looks like limits of 0 with no reason; this
    names the reason and the setting to change."""
    lines = []
    for s in plan.shares:
        if not s.limits or s.left > s.reserve:
            continue
        m = s.measure
        left = (
            f"{limit_text(m, max(0, s.left))} left this usage period"
            if plan.whole  # what is left holds the organization's use of today
            else "room left this usage period"
        )
        keys = len(s.limits)
        every = "its one key" if keys == 1 else f"every one of its {counted(keys, 'key')}"
        lines.append(
            f"{s.title}: {every} will be stopped: the {left} is not more than one key's reserve "
            f"of {limit_text(m, s.reserve)}. Raise the budget's limit, or lower [guardrails] "
            f"{RESERVE_SETTINGS[m]} in the budgets."
            if s.left > 0
            else f"{s.title}: {every} will be stopped: nothing is left this usage period. Raise "
            f"the budget's limit to let {'it' if keys == 1 else 'them'} on."
        )
    return lines
