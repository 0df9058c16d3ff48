"""The guardrails' plan: each enforced budget shared out as the keys' own limits, pure and
deterministic, explained per key.

For one enforced budget and one measure (characters, or speech-to-text milliseconds), in the
service's units, over the current usage period:

* **allowance** — the budget's limit less what its keys used in the earlier usage periods of
  its period (a contract year's; none for ``period = "usage"``), at least 0;
* **fixed** — what keys no limit of the plan caps used this usage period (deactivated keys,
  usage of keys the list does not name): spent, and so left out;
* **hidden** — what the organization used today that analytics does not show yet: the
  service's near-real-time count (``/v2/usage``) less the closed days. It only ever tightens;
* **counted** — each member key's use on the closed days of this usage period;
* **room** = allowance − fixed − hidden − Σ counted. Each key given a share keeps a whole
  **reserve** beyond its limit; when the room cannot hold a reserve and as much again for
  every key, only the keys it can hold them for share it (the largest forecasts first, ties by
  key id; one key when it holds a reserve and a unit more), the others stopped at their count:
  what is held back never outgrows what is shared. The rest, the **pool**, is shared out
  among the sharing keys: first the **floor** to each (less when the pool cannot hold it),
  then the remainder by each key's forecast (its share of the organization's) for the rest of
  the usage period (largest remainders, ties by key id), in whole units. A key's limit is its
  counted use plus its share;
* today's use counts twice so far: in the room (hidden) and against each key's own limit. A
  key's use today is at most its highest limit today (remembered by the runs), crossed by one
  request, less its count; so the keys can pass their shares and reserves by at most E =
  min(hidden, Σ max(0, that − share − reserve) + what keys outside the plan can have used
  today). hidden − E is shared out again the same way (**in limits**); shares that only grow
  never raise E, so any spread of today's use keeps the invariant. With a key no run
  remembers today, or use the list cannot bound, E is all of hidden;
* with no room left, the limits share what the allowance leaves of the fixed and hidden use
  by counted use, at or below each key's count: every key is stopped;
* on the **last day of a usage period inside the budget's period** (a contract year that goes
  on), the limits must also hold after the turn, when the service restarts every count while
  the limits stand: a key may use up to its limit (or its count, when above) before the turn
  and its limit again after it, so Σ (max(limit, counted) + limit) ≤ allowance − fixed −
  hidden. Half of what is left beyond the counts is shared out (each limit = counted + share);
  when the counts already take more than half, the limits share the room by counted use, at
  or below each count (the keys stop until the turn, then have their limits). The first run of
  the new period recomputes every limit.

So Σ limits ≤ allowance − fixed − (hidden − in limits) − sharing keys × reserve ≤
allowance (the invariant), and a key's use can pass its limit only by the request that
crosses it, which only a key below its limit, one with a share, can send: requests no larger
than the reserve never carry the budget past its allowance, however today's use was spread.

A key in several enforced budgets gets the smallest limit; a hand-set limit smaller than that is
kept. The hand-set limit is the one a key had before any guardrail, or one set elsewhere since
the last run (drift: reported, and never overwritten upward). A key no enforced budget covers
any more gets its hand-set limit back.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

import pandas as pd

from analytics.capacity import BillingPeriod, Budget, BudgetSettings, matching_keys
from analytics.cost import Pricing
from analytics.guardrails.budget_sharing import BudgetShare, most_today, share_room
from analytics.guardrails.memory import Memory
from analytics.guardrails.plan_inputs import KeyUse, Situation
from analytics.guardrails.rules import (
    MEASURE_METRICS,
    MEASURE_NAMES,
    MEASURES,
    METRIC_MEASURES,
    CostPrices,
    Measure,
    cost_allowances,
    limit_of,
    limit_text,
    refusal,
    span_of,
    units,
    with_limit,
)
from analytics.keys import key_name
from analytics.service import DeveloperKey, UsageLimits
from analytics.usage import ONE_DAY, within


@dataclass(frozen=True)
class KeyPlan:
    """One key's limits: now, hand-set, planned, which budget sets each, and why."""

    use: KeyUse
    hand: UsageLimits
    new: UsageLimits
    setters: Mapping[Measure, str]  # the budget whose share sets the measure ("": hand-set)
    notes: tuple[str, ...] = ()
    forget: bool = False  # no enforced budget covers it: given back, no longer remembered
    applied_by: str = ""  # the budget whose guardrail set the limits in force ("": its own)

    @property
    def key(self) -> DeveloperKey:
        return self.use.key

    @property
    def name(self) -> str:
        """The key as people read it in every table and line (``keys.join.key_name``)."""
        return key_name(self.key.label, self.key.key_id)

    @property
    def current(self) -> UsageLimits:
        return self.key.usage_limits

    @property
    def changes(self) -> bool:
        return self.new != self.current

    @property
    def lower_step(self) -> UsageLimits:
        """The limits sent first: each measure at the lower of now and planned."""
        limits = self.current
        for m in MEASURES:
            now, planned = limit_of(self.current, m), limit_of(self.new, m)
            if planned is not None and (now is None or planned < now):
                limits = with_limit(limits, m, planned)
        return limits

    def stopped(self, limits: UsageLimits) -> tuple[Measure, ...]:
        """The measures whose limit in ``limits`` (in force now, or planned) its closed days'
        use has reached: with those limits the service refuses it."""
        return tuple(
            m
            for m in MEASURES
            if (limit := limit_of(limits, m)) is not None and self.use.counted[m] >= limit
        )

    @property
    def at_limit(self) -> bool:
        """Whether its closed days' use has reached a planned limit: once the plan is
        applied, the service refuses it."""
        return bool(self.stopped(self.new))

    @property
    def by(self) -> str:
        """The budget the change is made for, as the audit log names the actor."""
        return next((s for s in self.setters.values() if s), "")

    @property
    def change_text(self) -> str:
        """ "characters 10,000 → 40,000; speech-to-text minutes no limit → 5.00 min"."""
        shifts = [
            f"{MEASURE_NAMES[m]} {limit_text(m, limit_of(self.current, m))} → "
            f"{limit_text(m, limit_of(self.new, m))}"
            for m in MEASURES
            if limit_of(self.current, m) != limit_of(self.new, m)
        ]
        return "; ".join(shifts) or "no change"


@dataclass(frozen=True)
class Plan:
    """The budgets shared out, each key's limits, the budgets refused for enforcement, and the
    plan's own limits (service units; None: none), which the budgets are named beside.
    ``whole``: seen by the whole organization; a team's scope (``seen.seen_plan``) is shown
    neither the plan's limits nor the organization's use, which a budget's use now holds."""

    today: date
    period: BillingPeriod
    shares: tuple[BudgetShare, ...]
    keys: tuple[KeyPlan, ...]
    refusals: tuple[str, ...] = field(default=())
    plan_limits: Mapping[Measure, int | None] = field(
        default_factory=lambda: dict.fromkeys(MEASURES)
    )
    whole: bool = True

    @property
    def changes(self) -> tuple[KeyPlan, ...]:
        return tuple(k for k in self.keys if k.changes)


def _scope_usage(budget: Budget, situation: Situation) -> pd.DataFrame:
    """The closed days' usage of the budget's keys, deactivated and unlisted ones included."""
    usage = situation.usage
    if budget.team is not None:
        masks = [k for k, team in situation.frame_teams.items() if team == budget.team]
        return usage[usage["api_key"].isin(masks)]
    if budget.key is not None:
        return usage[usage["api_key"].isin(matching_keys(usage, budget.key))]
    return usage


def _covered(budget: Budget, situation: Situation) -> list[KeyUse]:
    """The listed keys the budget covers, deactivated ones included."""

    def covered(use: KeyUse) -> bool:
        if budget.team is not None:
            return use.team == budget.team
        return budget.key is None or budget.key in use.names

    return [use for use in situation.keys if covered(use)]


def _members(budget: Budget, situation: Situation) -> list[KeyUse]:
    """The active listed keys the budget covers."""
    return [use for use in _covered(budget, situation) if use.active]


def _used(frame: pd.DataFrame, measure: Measure, first: date, last: date) -> int:
    """A frame's use of the measure over ``first``–``last``, in service units (rounded up)."""
    if last < first:
        return 0
    return units(
        measure, float(within(frame, first, last)[MEASURE_METRICS[measure]].sum()), up=True
    )


def _other_use_today(
    budget: Budget, situation: Situation, tops: Mapping[str, UsageLimits], measure: Measure,
    reserve: int,
) -> int | None:  # fmt: skip
    """The most the budget's keys outside the plan can have used today: a key deactivated
    today up to its highest limit today, one deactivated before nothing; None when nothing
    bounds it (a key deactivated today without a known limit, or usage of a key the list does
    not name in what was read)."""
    listed = {use.api_key for use in situation.keys}
    scope = _scope_usage(budget, situation)
    unnamed = scope[~scope["api_key"].isin(listed)]
    if float(unnamed[MEASURE_METRICS[measure]].sum()) > 0:
        return None
    most = 0
    for use in _covered(budget, situation):
        if use.active:
            continue
        gone = use.key.deactivated_time
        if gone is not None and gone.date() < situation.today:
            continue
        if (used := most_today(use, tops, measure, reserve)) is None:
            return None
        most += used
    return most


def _budget_shares(
    budget: Budget,
    budgets: BudgetSettings,
    situation: Situation,
    pricing: Pricing | None,
    limits_seen: tuple[Mapping[str, UsageLimits], Mapping[str, UsageLimits]],
) -> list[BudgetShare]:
    """The enforceable ``budget`` shared out, one share per measure it limits."""
    period = situation.period
    first, last = span_of(budget, budgets, period)
    turning = situation.today == period.end < last
    before = period.start - ONE_DAY
    yesterday = situation.today - ONE_DAY
    scope = _scope_usage(budget, situation)
    members = _members(budget, situation)
    prior = {m: _used(scope, m, first, before) for m in MEASURES}
    hidden = {
        m: max(0, situation.live[m] - _used(situation.usage, m, period.start, yesterday))
        for m in MEASURES
    }
    guard = budgets.guardrails
    settings: dict[Measure, tuple[int, int]] = {
        "characters": (guard.reserve_characters, guard.floor_characters),
        "speech": (units("speech", guard.reserve_minutes), units("speech", guard.floor_minutes)),
    }
    allowances: dict[Measure, int | None]
    if budget.is_cost:
        assert pricing is not None
        prices = CostPrices.of(pricing, period.start, last)
        money = Decimal(str(budget.fixed_limit)) - prices.cost(prior)
        weights = {
            m: float(prices.price(m)) * sum(use.counted[m] + use.forecast[m] for use in members)
            for m in MEASURES
        }
        allowances = cost_allowances(money, prices, weights)
    else:
        measure = METRIC_MEASURES[budget.metric]
        allowances = {m: None for m in MEASURES}
        allowances[measure] = max(0, units(measure, budget.fixed_limit) - prior[measure])
    return [
        share_room(
            budget,
            m,
            allowance,
            prior[m] if not budget.is_cost else 0,
            members,
            _used(scope, m, period.start, yesterday),
            hidden[m],
            settings[m],
            limits_seen,
            turning,
            _other_use_today(budget, situation, limits_seen[1], m, settings[m][0]),
        )
        for m, allowance in allowances.items()
        if allowance is not None
    ]


def _hand(use: KeyUse, memory: Memory | None) -> tuple[UsageLimits, str]:
    """A key's hand-set limits, and what drifted: limits set elsewhere since the last run
    become its hand-set ones."""
    current = use.key.usage_limits
    if memory is None or memory.own(current):
        return (current if memory is None else memory.hand), ""
    said = "; ".join(
        f"{MEASURE_NAMES[m]} {limit_text(m, limit_of(memory.applied, m))} → "
        f"{limit_text(m, limit_of(current, m))}"
        for m in MEASURES
        if limit_of(memory.applied, m) != limit_of(current, m)
    )
    return current, f"changed elsewhere since the last run ({said}): kept as its hand-set limit"


def _smaller(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)


def _key_plan(
    use: KeyUse, memory: Memory | None, shares: Sequence[BudgetShare], guarded_before: bool
) -> KeyPlan | None:
    mine = [s for s in shares if use.key.key_id in s.limits]
    if not use.active or (not mine and memory is None):
        return None
    hand, drift = _hand(use, memory)
    notes = [drift] if drift else []
    applied_by = "" if memory is None or drift else memory.by
    if not mine:
        notes.append("no enforced budget covers it: its hand-set limits are given back")
        setters = {m: "" for m in MEASURES}
        return KeyPlan(use, hand, hand, setters, tuple(notes), True, applied_by)
    if memory is None and guarded_before and use.key.usage_limits == UsageLimits():
        notes.append("a key without a limit, new since the last run: capped by this run")
    new, setters = hand, {}
    for m in MEASURES:
        setter, limit = "", limit_of(hand, m)
        for share in (s for s in mine if s.measure == m):
            planned = share.limits[use.key.key_id]
            if limit is None or planned < limit:
                setter, limit = share.budget.title, planned
            counted = use.counted[m]
            # A limit below what was counted (the budget spent) takes the share away: written
            # as a subtraction, never "+ -46,876".
            sign = "+" if planned >= counted else "−"
            notes.append(
                f"{share.title}: {limit_text(m, counted)} counted {sign} "
                f"{limit_text(m, abs(planned - counted))} share = {limit_text(m, planned)}"
            )
        if setter == "" and limit_of(hand, m) is not None and any(s.measure == m for s in mine):
            notes.append(f"{MEASURE_NAMES[m]}: its smaller hand-set limit is kept")
        new = with_limit(new, m, _smaller(limit, limit_of(hand, m)))
        setters[m] = setter
    return KeyPlan(use, hand, new, setters, tuple(notes), applied_by=applied_by)


def make_plan(
    budgets: BudgetSettings,
    situation: Situation,
    remembered: Mapping[str, Memory],
    pricing: Pricing | None = None,
    leave_out: Collection[str] = (),
) -> Plan:
    """The plan of ``budgets``' enforced budgets (but those whose title is in ``leave_out``)
    over ``situation``, the keys' ``remembered`` hand-set limits and the prices in force."""
    key_names = frozenset(n for use in situation.keys if use.active for n in use.names)
    hands = {u.key.key_id: _hand(u, remembered.get(u.key.key_id))[0] for u in situation.keys}
    # The highest limits each key had today; a key no run has guarded had any limit (none).
    tops = {
        u.key.key_id: memory.highest_on(situation.today, u.key.usage_limits)
        if (memory := remembered.get(u.key.key_id)) is not None
        else UsageLimits()
        for u in situation.keys
    }
    refusals, shares = [], []
    for budget in budgets.enforced:
        if budget.title in leave_out:
            continue
        refused = refusal(
            budget, budgets, situation.period, situation.team_names, key_names, pricing
        )
        if refused is not None:
            refusals.append(refused)
            continue
        shares += _budget_shares(budget, budgets, situation, pricing, (hands, tops))
    keys = [
        planned
        for use in sorted(situation.keys, key=lambda u: u.key.key_id)
        if (planned := _key_plan(use, remembered.get(use.key.key_id), shares, bool(remembered)))
        is not None
    ]
    return Plan(
        situation.today,
        situation.period,
        tuple(shares),
        tuple(keys),
        tuple(refusals),
        situation.plan_limits,
    )
