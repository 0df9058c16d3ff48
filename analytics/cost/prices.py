"""Prices from ``pricing.toml``: the currency and the effective-dated price periods.

A **price** period runs from its ``from`` day until the day before the next period's ``from``
(the last one runs on); each day is priced with the period in force that day, so a price change
in the middle of a range prices the days on either side differently. Days before the first
``from`` have no price: a range is priced on its days that have one, and the rest are
``Unpriced``, named wherever money is shown (every page, the report, an export's warning)
rather than refused, so any range can be looked at in money.

A period holds a unit price for each priced metric (per million characters; per minute of
speech-to-text and of speech-to-speech), an optional fixed ``monthly_fee`` and an optional
volume ``included_per_month`` per metric that is not charged. ``pricing.example.toml``
documents every field and names what the usage data cannot express (and so is not modelled).

An optional **catalogue** (``[[option]]`` entries) lists what the organization could buy next:
plans and commitments, each with a base fee a month, an included volume of characters and
speech-to-text minutes (per month or per commitment term), prices beyond it, a commitment term
and a discount. It prices no usage: capacity's recommendation (``analytics.capacity.decision``)
weighs its options against the forecast, as alternatives to today's plan (the plan the service
reports, priced at the ``[[price]]`` period in force).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Final, Literal

import msgspec
import numpy as np
import numpy.typing as npt
import pandas as pd

from analytics.cost.currencies import MINOR_UNITS
from analytics.storage import parse_toml, read_text
from analytics.usage import MINUTE_METRICS, ONE_DAY, SERVICE_CHARACTERS, Metric, is_minutes

# Total characters is the sum of the three services, so it is never priced itself. Both kinds
# of speech minutes are priced per minute, each at its own price.
PRICED_METRICS: Final[tuple[Metric, ...]] = (*SERVICE_CHARACTERS, *MINUTE_METRICS)
# Usage is counted in whole units, characters and micro-minutes; every price is per
# 1,000,000 units: per million characters, and per minute.
UNITS_PER_PRICE: Final = 1_000_000
MINUTE_DECIMALS: Final = 6


class PricingSettingsError(ValueError):
    """The pricing settings cannot be read or break a rule; the message names the document (a
    file's path, or the state store's copy), the entry and the field."""


@dataclass(frozen=True)
class Unpriced:
    """The days of a range with no price in force: those before the first period, so always
    the range's first days, one run of them."""

    first: date
    last: date

    def __str__(self) -> str:
        """``2023-11-25..2024-12-31`` (one day: ``2023-11-25``)."""
        return f"{self.first}" if self.first == self.last else f"{self.first}..{self.last}"

    @property
    def note(self) -> str:
        """What every page, report and warning says of them."""
        return f"no price in force on {self}"

    def holds(self, days: pd.Series) -> npt.NDArray[np.bool_]:
        """Which of ``days`` (datetimes or dates) are unpriced."""
        stamps = pd.to_datetime(days)
        return (
            (stamps >= pd.Timestamp(self.first)) & (stamps <= pd.Timestamp(self.last))
        ).to_numpy()


def _check_amount(field: str, value: Decimal) -> None:
    if not value.is_finite() or value < 0:
        raise ValueError(f"{field} must be a finite amount ≥ 0, not {value}")


class UnitPrices(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What each priced metric costs: per million characters, per minute of speech.

    The three character services and speech-to-text are required: a service that is not sold
    to the organization costs 0. Speech-to-speech may be left out (0), so that price lists
    written before it was priced keep their meaning.
    """

    text_translation_characters: Decimal
    document_translation_characters: Decimal
    text_improvement_characters: Decimal
    speech_to_text_minutes: Decimal
    speech_to_speech_minutes: Decimal = Decimal(0)

    def __post_init__(self) -> None:
        for metric in PRICED_METRICS:
            _check_amount(metric, self.of(metric))

    def of(self, metric: str) -> Decimal:
        price: Decimal = getattr(self, metric)
        return price


class IncludedPerMonth(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Usage per calendar month that is not charged (whole characters; minutes to 6 decimals)."""

    text_translation_characters: int = 0
    document_translation_characters: int = 0
    text_improvement_characters: int = 0
    speech_to_text_minutes: Decimal = Decimal(0)
    speech_to_speech_minutes: Decimal = Decimal(0)

    def __post_init__(self) -> None:
        for metric in SERVICE_CHARACTERS:
            if getattr(self, metric) < 0:
                raise ValueError(f"{metric} must be ≥ 0, not {getattr(self, metric)}")
        for metric in MINUTE_METRICS:
            minutes: Decimal = getattr(self, metric)
            _check_amount(metric, minutes)
            if minutes != minutes.quantize(Decimal(1).scaleb(-MINUTE_DECIMALS)):
                raise ValueError(
                    f"{metric} has at most {MINUTE_DECIMALS} decimals, not {minutes:f}"
                )

    def units(self, metric: str) -> int:
        """The included volume in counted units: characters, or micro-minutes."""
        if is_minutes(metric):
            minutes: Decimal = getattr(self, metric)
            return int(minutes.scaleb(MINUTE_DECIMALS))
        volume: int = getattr(self, metric)
        return volume


class PricePeriod(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """One ``[[price]]`` entry: the prices in force from ``from`` until the next entry's."""

    start: date = msgspec.field(name="from")
    unit_prices: UnitPrices
    monthly_fee: Decimal = Decimal(0)
    included_per_month: IncludedPerMonth = msgspec.field(default_factory=IncludedPerMonth)
    name: str = ""

    def __post_init__(self) -> None:
        _check_amount("monthly_fee", self.monthly_fee)


class CatalogueOption(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """One ``[[option]]`` entry: a plan or commitment the organization could buy (it fulfils
    ``analytics.capacity.decision.Option``)."""

    name: str
    price_per_million_characters: Decimal
    price_per_minute: Decimal = Decimal(0)
    base_fee: Decimal = Decimal(0)  # a month
    included_per: Literal["month", "term"] = "month"
    included_characters: int = 0
    included_minutes: Decimal = Decimal(0)
    term_months: int = 1
    discount: Decimal = Decimal(0)  # a fraction of the whole amount, 0.1 for 10 %
    # Read so that files written when the catalogue marked today's plan still load; it marks
    # nothing now: today's plan is the plan the service reports, priced at the [[price]] in
    # force (analytics.capacity.decision.TodaysPlan), and every option is an alternative to it.
    current: bool = False

    def __post_init__(self) -> None:
        problem = self._problem()
        if problem is not None:
            field, message = problem
            raise ValueError(f"{self.name!r} ({field}): {message}")

    def _problem(self) -> tuple[str, str] | None:
        """The first field that breaks a rule, and why; None when every field is right."""
        if not self.name.strip():
            return "name", "give the option a name"
        amounts = ("price_per_million_characters", "price_per_minute", "base_fee")
        for field in (*amounts, "included_minutes"):
            value: Decimal = getattr(self, field)
            if not value.is_finite() or value < 0:
                return field, f"must be a finite amount ≥ 0, not {value}"
        if self.included_characters < 0:
            return "included_characters", f"must be ≥ 0, not {self.included_characters}"
        if self.term_months < 1:
            return "term_months", f"must be 1 or more months, not {self.term_months}"
        if not (self.discount.is_finite() and 0 <= self.discount < 1):
            return (
                "discount",
                f"must be a fraction from 0 up to 1 (0.1 for 10 %), not {self.discount}",
            )
        return None


class PricingSettings(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """The whole pricing document (``pricing.toml``, a file or the state store's copy): the
    currency, the ``[[price]]`` periods and the ``[[option]]`` catalogue."""

    currency: str
    periods: tuple[PricePeriod, ...] = msgspec.field(default=(), name="price")
    catalogue: tuple[CatalogueOption, ...] = msgspec.field(default=(), name="option")

    def __post_init__(self) -> None:
        if self.currency not in MINOR_UNITS:
            hint = (
                f"write it in capitals, {self.currency.upper()!r}"
                if self.currency.upper() in MINOR_UNITS
                else "use an ISO 4217 code such as EUR, USD, GBP or JPY"
            )
            raise ValueError(f"currency: unknown currency {self.currency!r}; {hint}")
        if not self.periods:
            raise ValueError("no [[price]] entries: a pricing file must define at least one")
        first_entry: dict[date, int] = {}
        for index, period in enumerate(self.periods):
            if period.start in first_entry:
                raise ValueError(
                    f"[[price]] #{first_entry[period.start] + 1} and #{index + 1} (from) both "
                    f"start on {period.start}: price periods must not overlap (each runs "
                    "until the next one's from)"
                )
            first_entry[period.start] = index
        names = [option.name for option in self.catalogue]
        for index, name in enumerate(names):
            if name in names[:index]:
                raise ValueError(f"[[option]] #{index + 1} (name): {name!r} is listed twice")


@dataclass(frozen=True)
class Pricing:
    """A parsed pricing file: its currency and its periods in date order."""

    currency: str
    periods: tuple[PricePeriod, ...]
    source: str
    catalogue: tuple[CatalogueOption, ...] = ()

    @property
    def minor_unit(self) -> int:
        """Decimals of the currency: what every amount is rounded to."""
        return MINOR_UNITS[self.currency]

    @property
    def first_day(self) -> date:
        """The first day with a price."""
        return self.periods[0].start

    def unpriced(self, start: date, end: date) -> Unpriced | None:
        """The days of ``start``–``end`` that have no price, None when every day has one."""
        if start >= self.first_day:
            return None
        return Unpriced(start, min(end, self.first_day - ONE_DAY))

    def priced_from(self, start: date) -> date:
        """The first day on or after ``start`` that has a price."""
        return max(start, self.first_day)

    def free_because(self, metrics: Iterable[str], start: date, end: date) -> str:
        """Why usage of ``metrics`` over ``start``–``end`` shows a cost of 0, for the page that
        shows it next to that usage (a zero read alone looks like missing data): no price on
        any day, a price of 0 on every day, the organization's included volume, or else an
        amount below the currency's smallest unit."""
        unpriced = self.unpriced(start, end)
        if unpriced is not None and unpriced.last >= end:
            return unpriced.note
        first = self.period_index(self.priced_from(start))
        periods = self.periods[first : self.period_index(end) + 1]
        metrics = tuple(metrics)
        if all(p.unit_prices.of(m) == 0 for p in periods for m in metrics):
            return f"priced at 0 in {self.source}"
        if any(p.included_per_month.units(m) > 0 for p in periods for m in metrics):
            return "within the organization's included volume"
        return f"less than {Decimal(1).scaleb(-self.minor_unit)} {self.currency}"

    def period_index(self, day: date) -> int:
        """Which period (index into ``periods``) is in force on ``day``, a day with a price."""
        return max(i for i, period in enumerate(self.periods) if period.start <= day)


def unpriced_text(note: str, what: str) -> str:
    """The sentence a page or report shows for days without a price (``Unpriced.note``):
    ``what`` (plural) covers the priced days only."""
    return f"{note[:1].upper()}{note[1:]}: {what} cover the priced days only."


def _explain(field: str, message: str) -> str:
    """Name a metric that is not one as such (msgspec sees an unknown field)."""
    if field in ("unit_prices", "included_per_month") and "unknown field" in message:
        name = message.split("`")[1]
        return f"unknown metric {name!r}; expected {', '.join(PRICED_METRICS)}" + (
            " (total characters is their sum: price the services)"
            if name == "total_characters"
            else ""
        )
    return message


def parse_pricing(text: str, source: str = "pricing.toml") -> Pricing:
    """Parse TOML text; every problem becomes a ``PricingSettingsError`` naming ``source``."""
    parsed = parse_toml(text, source, PricingSettings, PricingSettingsError, _explain)
    periods = tuple(sorted(parsed.periods, key=lambda period: period.start))
    return Pricing(parsed.currency, periods, source, parsed.catalogue)


def load_pricing(path: Path | str) -> Pricing:
    """Read and parse a pricing file."""
    return parse_pricing(read_text(path, PricingSettingsError), str(path))
