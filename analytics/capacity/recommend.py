"""Which plan or commitment to buy for the next term, priced across the forecast's range.

**Scenarios.** The next term's usage is not one number: ``Scenarios`` holds equally likely
monthly paths of characters and speech-to-text minutes (``outlook.term_scenarios`` makes 99
of them from the forecast and its backtested errors; a test may write two by hand).

**An option's cost in a scenario.** The term is cut into the option's commitment terms (an
option whose term does not divide the decision's term is left out, and said so). Each
commitment term costs its base fees (per month, for every month of it), plus the usage above
the included volume (per month or per commitment term, as the option says) at its prices beyond;
the discount is taken off that whole amount. Amounts are estimates in the currency's units,
shown rounded: they compare options; the bill is priced exactly by the money layer.

**Per option**: the expected cost (the mean over the scenarios), the chance of overage (the
share of scenarios in which usage runs over an included volume somewhere in the term; a metric
the option includes nothing of is priced from the first unit and never "over"), and the
expected unused commitment (included volume left unused, characters and minutes).

**The recommendation** is the option of lowest expected cost among those whose chance of
overage is at most the risk setting (10 % by default); when none is, the option with the
lowest chance of overage, said so. The **curve** is every option's expected cost against its
committed characters a month, with the recommendation and today's plan marked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Final, Protocol

import numpy as np
import pandas as pd

from analytics.capacity.candidates import Floats

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
    @property
    def current(self) -> bool: ...  # today's plan


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
    committed_characters: float  # included characters a month
    committed_minutes: float  # included minutes a month
    expected_cost: float
    overage_chance: float
    unused_characters: float  # expected, over the term
    unused_minutes: float
    current: bool


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
        current=option.current,
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
        """Today's plan among the options (None when the catalogue does not name it)."""
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
            ["committed_characters", "committed_minutes", "expected_cost"], ignore_index=True
        )


CURVE_COLUMNS: Final = [
    "option", "committed_characters", "committed_minutes", "expected_cost", "overage_chance",
    "recommended", "current",
]  # fmt: skip


def recommend(
    options: Sequence[Option], scenarios: Scenarios, risk: float = DEFAULT_RISK
) -> Recommendation:
    """Cost every option whose term divides the scenarios' months, and choose (see the
    module); ties go to the option listed first."""
    months = len(scenarios.months)
    fitting = [o for o in options if months % o.term_months == 0]
    left_out = tuple(
        f"{o.name}: its {o.term_months}-month term does not fit a {months}-month term"
        for o in options
        if months % o.term_months
    )
    costed = tuple(cost_option(option, scenarios) for option in fitting)
    admissible = [c for c in costed if c.overage_chance <= risk]
    if admissible:
        chosen: Costed | None = min(admissible, key=lambda c: c.expected_cost)
    elif costed:
        chosen = min(costed, key=lambda c: (c.overage_chance, c.expected_cost))
    else:
        chosen = None
    return Recommendation(costed, chosen, bool(admissible), risk, left_out)
