"""Which budgets the keys' own limits can hold exactly, and the units they are held in.

A developer key's limits cap its use over one usage period (the organization's billing period)
in two counts: its characters across text, document and improvement together, and its
speech-to-text milliseconds; the service refuses the key once its count has reached the limit
and restarts the count at each usage period. So a budget is enforced only when these counts
express it exactly (``refusal``, one line per budget that is not, never enforced
approximately):

* the metric is ``total_characters`` or ``speech_to_text_minutes``, or ``cost`` converted to
  both at the prices in force (``cost_allowances``); a single service's characters, the plan
  and a base fee are not what any key limit counts;
* the period is made of whole usage periods: the usage period itself (``period = "usage"``) or
  a contract year that starts on a billing day. A calendar month, quarter or year that cuts a
  usage period would share one key count between two budget periods;
* the scope names keys the plan can find: the organization, a team of the teams file, a key.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_FLOOR, Decimal
from typing import Final, Literal

import msgspec

from analytics.capacity import (
    COST,
    USAGE_PERIOD,
    BillingPeriod,
    Budget,
    BudgetSettings,
    budget_period,
)
from analytics.cost import PricePeriod, Pricing
from analytics.keys import NO_LIMIT
from analytics.service import UsageLimits
from analytics.usage import MINUTES, SERVICE_CHARACTERS, TOTAL_CHARACTERS, YearStart

Measure = Literal["characters", "speech"]
MEASURES: Final[tuple[Measure, ...]] = ("characters", "speech")
# The key-day column each measure counts, and the service's units per unit of that column.
MEASURE_METRICS: Final[dict[Measure, str]] = {"characters": TOTAL_CHARACTERS, "speech": MINUTES}
UNITS_PER: Final[dict[Measure, int]] = {"characters": 1, "speech": 60_000}
MEASURE_NAMES: Final[dict[Measure, str]] = {
    "characters": "characters",
    "speech": "speech-to-text minutes",
}
METRIC_MEASURES: Final[dict[str, Measure]] = {v: k for k, v in MEASURE_METRICS.items()}
MILLION: Final = Decimal(1_000_000)


def units(measure: Measure, amount: float, *, up: bool = False) -> int:
    """An amount of the measure's metric (characters, minutes) in the service's units
    (characters, milliseconds): rounded down for what is allowed, up for what was used."""
    value = amount * UNITS_PER[measure]
    return math.ceil(value - 1e-6) if up else math.floor(value + 1e-6)


def limit_of(limits: UsageLimits, measure: Measure) -> int | None:
    """A key's limit of one measure, in the service's units (None: no limit)."""
    return limits.characters if measure == "characters" else limits.speech_to_text_milliseconds


def with_limit(limits: UsageLimits, measure: Measure, value: int | None) -> UsageLimits:
    field = "characters" if measure == "characters" else "speech_to_text_milliseconds"
    return msgspec.structs.replace(limits, **{field: value})


def limit_text(measure: Measure, value: int | None) -> str:
    """A limit as the plan shows it: the count it allows, in characters or minutes, or "no
    limit" as every table writes it (``keys.preview.NO_LIMIT``)."""
    if value is None:
        return NO_LIMIT
    if measure == "characters":
        return f"{value:,}"
    return f"{value / UNITS_PER['speech']:,.2f} min"


def periods_in_force(pricing: Pricing, first: date, last: date) -> Sequence[PricePeriod]:
    """The price periods in force on some day of ``first``–``last`` (days with a price)."""
    start = pricing.period_index(pricing.priced_from(first))
    return pricing.periods[start : pricing.period_index(last) + 1]


def _period_refusal(budget: Budget, period: BillingPeriod, years: YearStart) -> str | None:
    if budget.period == USAGE_PERIOD:
        return None
    billing_day = period.start.day
    instead = (
        f'use period = "usage" or a contract year starting on a billing day (day {billing_day})'
    )
    if budget.period != "year":
        return (
            f"a calendar {budget.period} cuts the usage periods (which start on day "
            f"{billing_day}) and cannot be held across the cut: {instead}"
        )
    first, last = budget_period(budget, period.start, years, None) or (period.start, period.end)
    whole = first <= period.start and period.end <= last and years.day == billing_day
    if whole:
        return None
    return (
        f"the contract year starts on {years} (contract_year_start), not on a billing day: "
        f'it cuts the usage periods; set contract_year_start = "{years.month:02d}-'
        f'{billing_day:02d}" or use period = "usage"'
    )


def _cost_refusal(
    budget: Budget, pricing: Pricing | None, span: tuple[date, date], period: BillingPeriod
) -> str | None:
    if pricing is None:
        return "a cost budget needs the pricing file, to turn money into characters and minutes"
    first, last = period.start, span[1]
    if pricing.unpriced(first, last):
        return f"days of its period have no price in {pricing.source}"
    periods = periods_in_force(pricing, first, last)
    if budget.key is None and budget.team is None and any(p.monthly_fee for p in periods):
        return (
            "the organization's cost includes the base fee, which no key limit caps: "
            "budget total_characters and speech_to_text_minutes, or a team's or a key's cost"
        )
    if any(p.unit_prices.speech_to_speech_minutes for p in periods):
        return "speech-to-speech minutes cost money and no key limit caps them"
    return None


def _metric_refusal(budget: Budget) -> str | None:
    """Why no key limit counts what ``budget`` caps, whatever the service reports."""
    if budget.is_plan:
        return "the plan's own limit is the service's; a plan budget warns, it is not shared out"
    if budget.metric in (*SERVICE_CHARACTERS, "speech_to_speech_minutes"):
        return (
            "key limits count text, document and improvement characters together and no "
            "speech-to-speech: budget total_characters (or cost) instead"
        )
    return None


def never_enforceable(budget: Budget) -> str | None:
    """Why the keys' limits can never hold ``budget``, whatever the service reports (its
    metric, or a calendar month or quarter, which always cuts the usage periods), in the words
    of ``refusal``; None when they may. A budget marked ``enforce = true`` that this refuses is
    refused where it is set, and stops a command that reads it, rather than being "not
    enforced" quietly at every run."""
    reason = _metric_refusal(budget)
    if reason is None and budget.period in ("month", "quarter"):
        reason = (
            f"a calendar {budget.period} cuts the usage periods and cannot be held across the "
            'cut: use period = "usage" or a contract year starting on a billing day'
        )
    return reason


def refusal(
    budget: Budget,
    budgets: BudgetSettings,
    period: BillingPeriod | None,
    team_names: Collection[str] | None,
    key_names: Collection[str],
    pricing: Pricing | None,
) -> str | None:
    """Why ``budget`` cannot be enforced, as one line naming it; None when it can.

    ``period`` is the usage period the service reports, ``team_names`` the teams of the teams
    file (None: no file), ``key_names`` the labels and masked keys of the active listed keys."""
    reason: str | None
    if (metric := _metric_refusal(budget)) is not None:
        reason = metric
    elif period is None:
        reason = "the service reports no usage period (a free plan): key limits cannot hold it"
    elif budget.team is not None and (team_names is None or budget.team not in team_names):
        reason = (
            "no teams file" if team_names is None else f"the teams file has no team {budget.team!r}"
        )
    elif budget.key is not None and budget.key not in key_names:
        reason = f"no active listed key has the label or masked key {budget.key!r}"
    else:
        reason = _period_refusal(budget, period, budgets.year_start)
        if reason is None and budget.metric == COST:
            span = budget_period(
                budget, period.start, budgets.year_start, (period.start, period.end)
            )
            assert span is not None
            reason = _cost_refusal(budget, pricing, span, period)
    return None if reason is None else f"{budget.title}: not enforced: {reason}"


@dataclass(frozen=True)
class CostPrices:
    """The dearest price in force of each measure over the rest of a cost budget's period, per
    service unit (a character, a millisecond): pricing every unit at it, the cost of what the
    limits allow can never pass the budget."""

    characters: Decimal
    speech: Decimal

    @classmethod
    def of(cls, pricing: Pricing, first: date, last: date) -> CostPrices:
        periods = periods_in_force(pricing, first, last)
        characters = max(p.unit_prices.of(m) for p in periods for m in SERVICE_CHARACTERS)
        minute = max(p.unit_prices.speech_to_text_minutes for p in periods)
        return cls(characters / MILLION, minute / UNITS_PER["speech"])

    def price(self, measure: Measure) -> Decimal:
        return self.characters if measure == "characters" else self.speech

    def cost(self, used: dict[Measure, int]) -> Decimal:
        return sum((self.price(m) * used[m] for m in MEASURES), Decimal(0))


def cost_allowances(
    money: Decimal, prices: CostPrices, weights: dict[Measure, float]
) -> dict[Measure, int | None]:
    """A cost budget's money left as an allowance of each measure: shared between characters
    and speech by ``weights`` (each measure's expected cost), each part divided by the
    measure's price and rounded down, so that the cost of both together is at most ``money``.
    A measure that costs nothing is not limited (None)."""
    priced = [m for m in MEASURES if prices.price(m) > 0]
    total = sum(weights[m] for m in priced)
    result: dict[Measure, int | None] = {m: None for m in MEASURES}
    left = max(money, Decimal(0))
    for index, measure in enumerate(priced):
        last = index == len(priced) - 1
        share = (
            Decimal(weights[measure]) / Decimal(total) if total > 0 else Decimal(1) / len(priced)
        )
        part = left if last else max(money, Decimal(0)) * share
        count = int((part / prices.price(measure)).to_integral_value(rounding=ROUND_FLOOR))
        result[measure] = count
        left -= count * prices.price(measure)
    return result


def span_of(budget: Budget, budgets: BudgetSettings, period: BillingPeriod) -> tuple[date, date]:
    """The days of an enforceable budget's period holding the usage period."""
    span = budget_period(budget, period.start, budgets.year_start, (period.start, period.end))
    assert span is not None
    return span
