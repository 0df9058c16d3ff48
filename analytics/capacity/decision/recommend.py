"""Which plan or commitment to buy for the next term, priced across the forecast's range.

**Scenarios.** The next term's usage is not one number: ``Scenarios`` holds equally likely
monthly paths of characters and speech-to-text minutes (``usage_scenarios.term_scenarios`` makes 99
of them from the forecast and its backtested errors; a test may write two by hand).

**An option's cost in a scenario.** The term is cut into the option's commitment terms (an
option whose term does not divide the decision's term is left out, and said so). Each
commitment term costs its base fees (per month, for every month of it), plus the usage above
the included volume (per month or per commitment term, as the option says) at its prices beyond;
the discount is taken off that whole amount. Amounts are estimates in the currency's units,
shown rounded: they compare options; the bill is priced exactly by the money layer.

**Today's plan** (``TodaysPlan``) is the plan the service reports (``GET /v2/usage``), with
its limits a billing period, the Plan card's figures, priced at the ``[[price]]`` period in
force on the term's first day: its monthly fee, and the usage beyond that period's included
volume at its unit prices (characters at the services' prices weighted by the organization's
mix of them). Its volume is its limits: usage beyond a limit is refused by the service, so
its chance of overage is the chance of reaching a limit. It is weighed first, beside the
catalogue's options, which are alternatives to it and never stand in for it.

**Per option**: the expected cost (the mean over the scenarios), the chance of overage (the
share of scenarios in which usage runs over the option's volume somewhere in the term: a
catalogue option's included volume, today's plan's limits; a metric the option includes
nothing of is priced from the first unit and never "over", one without a limit never
reaches it), and the expected unused volume (characters and minutes left below it).

**The recommendation** is the option of lowest expected cost among those whose chance of
overage is at most the risk setting (10 % by default); when none is, the option with the
lowest chance of overage, said so. The **curve** is every option's expected cost against its
characters a month, with the recommendation and today's plan marked.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal
from typing import Final, Protocol

import numpy as np
import numpy.typing as npt
import pandas as pd

from analytics.capacity.budgets import PlanLimits
from analytics.capacity.forecasting import Floats

DEFAULT_RISK: Final = 0.10
PER_MILLION: Final = 1_000_000


class Option(Protocol):
    """What capacity asks of a catalogue option (``analytics.cost.prices.CatalogueOption``)."""

    @property
    def name(self) -> str: ...
    @property
    def term_months(self) -> int: ...
    @property
    def base_fee(self) -> Decimal: ...  # per month
    @property
    def included_per(self) -> str: ...  # "month" or "term"
    @property
    def included_characters(self) -> int: ...
    @property
    def included_minutes(self) -> Decimal: ...
    @property
    def price_per_million_characters(self) -> Decimal: ...
    @property
    def price_per_minute(self) -> Decimal: ...
    @property
    def discount(self) -> Decimal: ...  # a fraction of the whole amount


TODAYS_PLAN: Final = "Today's plan"


@dataclass(frozen=True)
class PlanTerms:
    """What the prices in force charge for today's plan a month (``buying.plan_terms``): the
    base fee, the volume included, and the price of each unit beyond it; which price period
    these come from (its first day and name), for the sentence that names the plan."""

    base_fee: Decimal
    included_characters: int
    included_minutes: Decimal
    price_per_million_characters: Decimal
    price_per_minute: Decimal
    prices_from: date
    prices_name: str = ""


@dataclass(frozen=True)
class TodaysPlan:
    """Today's plan as the recommendation weighs it (see the module): the service's limits a
    billing period, priced by ``terms``; it fulfils ``Option``, a monthly plan."""

    limits: PlanLimits
    terms: PlanTerms
    currency: str
    name: str = TODAYS_PLAN
    term_months: int = 1
    included_per: str = "month"
    discount: Decimal = Decimal(0)

    @property
    def base_fee(self) -> Decimal:
        return self.terms.base_fee

    @property
    def included_characters(self) -> int:
        return self.terms.included_characters

    @property
    def included_minutes(self) -> Decimal:
        return self.terms.included_minutes

    @property
    def price_per_million_characters(self) -> Decimal:
        return self.terms.price_per_million_characters

    @property
    def price_per_minute(self) -> Decimal:
        return self.terms.price_per_minute

    @property
    def volume(self) -> tuple[float, float]:
        """Its characters and speech-to-text minutes a month: the limits, none ``inf``."""
        characters, minutes = self.limits.characters, self.limits.speech_to_text_minutes
        return (
            math.inf if characters is None else float(characters),
            math.inf if minutes is None else float(minutes),
        )

    @property
    def text(self) -> str:
        """The plan and its limits as the Plan card shows them (``PlanLimits.text``)."""
        return f"{self.name}, as the service reports it: {self.limits.text} a billing period"


@dataclass(frozen=True)
class Scenarios:
    """Equally likely usage paths of the term: ``characters`` and ``minutes`` are arrays of
    scenarios × months, the months starting on ``months``' days."""

    months: tuple[date, ...]
    characters: Floats
    minutes: Floats


@dataclass(frozen=True)
class Costed:
    """One option across the scenarios."""

    name: str
    term_months: int
    committed_characters: float  # its volume a month: included, or today's plan's limit (NaN: none)
    committed_minutes: float  # likewise, speech-to-text minutes
    expected_cost: float
    overage_chance: float
    unused_characters: float  # expected, over the term (NaN: no limit to leave unused)
    unused_minutes: float
    current: bool  # today's plan


def _blocks(values: Floats, term: int) -> Floats:
    """Scenarios × months summed per commitment term: scenarios × terms."""
    scenarios, months = values.shape
    summed: Floats = values.reshape(scenarios, months // term, term).sum(axis=2)
    return summed


def _beyond(values: Floats, included: float, per_month: bool, term: int) -> tuple[Floats, Floats]:
    """The usage above and the volume left below ``included``, per scenario over the term."""
    periods = values if per_month else _blocks(values, term)
    over: Floats = np.maximum(periods - included, 0).sum(axis=1)
    unused: Floats = np.maximum(included - periods, 0).sum(axis=1)
    return over, unused


def _reaches(values: Floats, limit: float) -> npt.NDArray[np.bool_]:
    """Per scenario, whether a month's usage reaches ``limit`` (at or over it, or any use of a
    zero limit: ``budgets.billing.reaches``), after which the service refuses more."""
    at_limit = (values >= limit) if limit > 0 else (values > limit)
    reached: npt.NDArray[np.bool_] = np.asarray(at_limit.any(axis=1), dtype=bool)
    return reached


def cost_option(option: Option, scenarios: Scenarios) -> Costed:
    """The option across the scenarios (see the module); the term divides the months."""
    months = len(scenarios.months)
    term = option.term_months
    per_month = option.included_per == "month"
    characters, minutes = float(option.included_characters), float(option.included_minutes)
    over_c, unused_c = _beyond(scenarios.characters, characters, per_month, term)
    over_m, unused_m = _beyond(scenarios.minutes, minutes, per_month, term)
    amount = (
        float(option.base_fee) * months
        + over_c / PER_MILLION * float(option.price_per_million_characters)
        + over_m * float(option.price_per_minute)
    ) * (1 - float(option.discount))
    over = ((over_c > 0) & (characters > 0)) | ((over_m > 0) & (minutes > 0))
    monthly = 1 if per_month else term
    return Costed(
        name=option.name,
        term_months=term,
        committed_characters=characters / monthly,
        committed_minutes=minutes / monthly,
        expected_cost=float(amount.mean()),
        overage_chance=float(over.mean()),
        unused_characters=float(unused_c.mean()),
        unused_minutes=float(unused_m.mean()),
        current=False,
    )


def cost_plan(plan: TodaysPlan, scenarios: Scenarios) -> Costed:
    """Today's plan across the scenarios: costed at its terms as any monthly option is, its
    overage and unused volume measured against its limits (see the module)."""
    priced = cost_option(plan, scenarios)
    characters, minutes = plan.volume
    reached = _reaches(scenarios.characters, characters) | _reaches(scenarios.minutes, minutes)

    def unused(values: Floats, limit: float) -> float:
        return math.nan if math.isinf(limit) else float(_beyond(values, limit, True, 1)[1].mean())

    return replace(
        priced,
        committed_characters=math.nan if math.isinf(characters) else characters,
        committed_minutes=math.nan if math.isinf(minutes) else minutes,
        overage_chance=float(reached.mean()),
        unused_characters=unused(scenarios.characters, characters),
        unused_minutes=unused(scenarios.minutes, minutes),
        current=True,
    )


@dataclass(frozen=True)
class Recommendation:
    """Every option that fits the term, costed; the one recommended; the options left out."""

    options: tuple[Costed, ...]
    chosen: Costed | None
    within_risk: bool
    risk: float
    left_out: tuple[str, ...]

    @property
    def current(self) -> Costed | None:
        """Today's plan among the options (None when it was not weighed: the service's plan
        could not be read, or no price is in force)."""
        return next((c for c in self.options if c.current), None)

    def curve(self) -> pd.DataFrame:
        """Expected cost against committed characters a month, one row per option, in
        committed order: ``option``, ``committed_characters``, ``committed_minutes``,
        ``expected_cost``, ``overage_chance``, ``recommended``, ``current``."""
        rows = [
            {
                "option": c.name,
                "committed_characters": c.committed_characters,
                "committed_minutes": c.committed_minutes,
                "expected_cost": c.expected_cost,
                "overage_chance": c.overage_chance,
                "recommended": self.chosen is not None and c.name == self.chosen.name,
                "current": c.current,
            }
            for c in self.options
        ]
        table = pd.DataFrame(rows, columns=CURVE_COLUMNS)
        return table.sort_values(
            ["committed_characters", "committed_minutes", "expected_cost"],
            ignore_index=True,
            na_position="last",  # today's plan without a limit
        )


CURVE_COLUMNS: Final = [
    "option", "committed_characters", "committed_minutes", "expected_cost", "overage_chance",
    "recommended", "current",
]  # fmt: skip


def recommend(
    options: Sequence[Option],
    scenarios: Scenarios,
    risk: float = DEFAULT_RISK,
    plan: TodaysPlan | None = None,
    left_out: Sequence[str] = (),
) -> Recommendation:
    """Cost today's ``plan`` (when given) and every option whose term divides the scenarios'
    months, and choose (see the module); ties go to the option listed first, today's plan
    before the catalogue. ``left_out`` names what was not weighed before it was asked (today's
    plan, when it could not be priced)."""
    months = len(scenarios.months)
    fitting = [o for o in options if months % o.term_months == 0]
    not_fitting = tuple(
        f"{o.name}: its {o.term_months}-month term does not fit a {months}-month term"
        for o in options
        if months % o.term_months
    )
    costed = (
        *(() if plan is None else (cost_plan(plan, scenarios),)),
        *(cost_option(option, scenarios) for option in fitting),
    )
    admissible = [c for c in costed if c.overage_chance <= risk]
    if admissible:
        chosen: Costed | None = min(admissible, key=lambda c: c.expected_cost)
    elif costed:
        chosen = min(costed, key=lambda c: (c.overage_chance, c.expected_cost))
    else:
        chosen = None
    return Recommendation(costed, chosen, bool(admissible), risk, (*left_out, *not_fitting))
