"""The plan snapshot: how much of each limit of the current billing period is used, and when
the limit is reached, as the one forecast projects it (``outlook``).

The service counts usage up to now, today's open usage included (`GET /v2/usage`); the key-day
frame holds closed days only. The two are combined so that neither is lost:

* **used** is the service's count, as reported;
* the **projection** is cumulative usage from the billing period's first day to its last
  (``forecasting.projection_path``): the frame's closed days, then the forecast from today on (the
  point, the centre of its 80 % interval). From today on the path is lifted to the service's count
  where that is higher, so the end of today is the larger of the service's count and the closed
  days plus today's expected usage; each later day adds its expected usage;
* the limit is **reached** on the first day of that path at or above the limit.

With prices, the snapshot also holds the billing period's **spend**: the exact cost of its
closed days so far (usage and the base fee of those days), and the cost projected to its last
day (``costs.cost_path``: the closed days, then each service's forecast, priced). Today's open
usage is not priced: the service counts it only as a total.

A snapshot describes one moment: it is never stored as history, and the dashboard keeps it for
a few minutes only.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from typing import Final, Literal

import numpy as np
import pandas as pd

from analytics.capacity.budgets.costs import Prices, cost_path
from analytics.capacity.forecasting import forecast_start, projection_path
from analytics.service import PlanUsage
from analytics.usage import (
    MINUTES,
    ONE_DAY,
    SPEECH_TO_SPEECH,
    TOTAL_CHARACTERS,
    Metric,
    count_text,
    format_value,
    range_text,
    share_text,
    within,
)

Measure = Literal["characters", "speech_to_text_minutes", "speech_to_speech_minutes"]
Outlook = Literal[
    "no limit", "reached", "projected", "not within this billing period", "not projected"
]

MEASURE_LABELS: Final[dict[Measure, str]] = {
    "characters": "Characters",
    "speech_to_text_minutes": "Speech-to-text minutes",
    "speech_to_speech_minutes": "Speech-to-speech minutes",
}
# The key-day column each measure is projected from.
MEASURE_SERIES: Final[dict[Measure, Metric]] = {
    "characters": TOTAL_CHARACTERS,
    "speech_to_text_minutes": MINUTES,
    "speech_to_speech_minutes": SPEECH_TO_SPEECH,
}
# The character limit a paid plan without a cost-control limit reports (the published example's
# value): no limit in practice, and shown as such.
UNLIMITED_CHARACTERS: Final = 1_000_000_000_000


def reaches(used: float, limit: float) -> bool:
    """Whether `used` uses the limit up: at or over it, or any use at all of a zero limit."""
    return used > limit or (limit > 0 and used >= limit)


@dataclass(frozen=True)
class BillingPeriod:
    """The UTC days of a billing period, both inclusive."""

    start: date
    end: date

    @property
    def text(self) -> str:
        return f"{range_text(self.start, self.end)} (UTC)"


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def billing_period(answer: PlanUsage) -> BillingPeriod | None:
    """The period's days; `end_time` is its exclusive end, so a period ending at midnight ends
    the day before. None when the service reports no (or no sensible) period: a free plan."""
    if answer.start_time is None or answer.end_time is None:
        return None
    start = _utc(answer.start_time).date()
    end = (_utc(answer.end_time) - timedelta(microseconds=1)).date()
    return BillingPeriod(start, end) if start <= end else None


@dataclass(frozen=True)
class Allowance:
    """One limit of the plan (characters, or one speech service's minutes) and its use."""

    measure: Measure
    used: float  # characters are whole; a key's speech minutes need not be
    limit: float | None  # None: no limit
    projected: float | None  # expected use by the period's last day; None: not projected
    reached: date | None  # first day the use reaches the limit, so far or projected
    # `used` is the service's own counter of the billing period, which bills speech in whole
    # minutes, the period's total rounded up: a little more than the tiles' exact minutes.
    billed: bool = False

    @property
    def label(self) -> str:
        return MEASURE_LABELS[self.measure]

    @property
    def share(self) -> float | None:
        """Used as a share of the limit; None without a limit above zero."""
        return self.used / self.limit if self.limit else None

    @property
    def outlook(self) -> Outlook:
        if self.limit is None:
            return "no limit"
        if reaches(self.used, self.limit):
            return "reached"
        if self.projected is None:
            return "not projected"
        return "projected" if self.reached else "not within this billing period"

    @property
    def used_text(self) -> str:
        """The use as every tile writes its metric (minutes to the hundredth), but the
        service's billed counter in the whole minutes it holds: "1,073", never "1,073.00",
        which would claim a precision the tiles' 1,072.44 of the same days contradicts."""
        if self.billed:
            return count_text(self.used)
        return format_value(self.used, MEASURE_SERIES[self.measure])

    @property
    def limit_text(self) -> str:
        return "no limit" if self.limit is None else count_text(self.limit)

    @property
    def share_text(self) -> str:
        return "-" if self.share is None else share_text(self.share)

    @property
    def usage_text(self) -> str:
        """`1,234 of 5,000 (24.7 %)`, or `1,234 (no limit)`."""
        if self.limit is None:
            return f"{self.used_text} (no limit)"
        return f"{self.used_text} of {self.limit_text} ({self.share_text})"

    @property
    def reach_text(self) -> str:
        """When the limit is reached: a day, or why there is none."""
        outlook = self.outlook
        if outlook in ("reached", "projected") and self.reached is not None:
            return f"{self.reached:%Y-%m-%d} ({outlook})"
        return "-" if outlook == "no limit" else outlook

    @property
    def reach_sentence(self) -> str:
        """The panel's line on the limit, e.g. `Limit reached: 2025-04-01 (projected)`."""
        return "No limit" if self.outlook == "no limit" else f"Limit reached: {self.reach_text}"

    @property
    def progress(self) -> float | None:
        """The share of the limit as a bar fills it (at most full); None without a limit."""
        return None if self.share is None else min(self.share, 1.0)


@dataclass(frozen=True)
class PlanSpend:
    """What the billing period costs the organization, base fee included: its closed days so
    far (exact, minor units) and projected to its last day as forecast."""

    currency: str
    used_minor: int
    projected: float  # currency units


@dataclass(frozen=True)
class PlanSnapshot:
    """The plan's allowances as of `today`: characters first, then the speech services the
    service reports; with prices, the billing period's spend."""

    today: date
    period: BillingPeriod | None  # None: not reported (a free plan)
    allowances: tuple[Allowance, ...]
    spend: PlanSpend | None = None  # None: no prices, or a day of the period without one

    @property
    def characters(self) -> Allowance:
        return self.allowances[0]

    @property
    def limits(self) -> PlanLimits:
        """The limits the panel shows (``plan_limits`` of the same answer)."""
        shown = {a.measure: a.limit for a in self.allowances}
        return PlanLimits(
            shown.get("characters"),
            shown.get("speech_to_text_minutes"),
            shown.get("speech_to_speech_minutes"),
        )

    @property
    def period_text(self) -> str:
        if self.period is None:
            return "not reported by the service (free plan): no projection"
        return self.period.text

    def as_json(self) -> dict[str, object]:
        """A machine-readable form: ISO days, whole units, None where there is no value."""
        period = self.period
        return {
            "as_of": self.today,
            "billing_period": None
            if period is None
            else {"start": period.start, "end": period.end},
            "metrics": [
                {
                    "metric": a.measure,
                    "used": a.used,
                    "limit": a.limit,
                    "used_share": a.share,
                    "projected": None if a.projected is None else round(a.projected),
                    "limit_reached": a.reached,
                    "outlook": a.outlook,
                }
                for a in self.allowances
            ],
        }


def period_range(period: BillingPeriod | None, today: date) -> tuple[date, date]:
    """The closed days a projection over `period` reads: the period's so far and the
    forecast's history (``forecasting.forecast_start``)."""
    first = forecast_start(today)
    if period is not None:
        first = min(first, period.start)
    return first, today - ONE_DAY


def usage_range(answer: PlanUsage, today: date) -> tuple[date, date]:
    """The closed days a snapshot reads (`period_range` of the answer's billing period)."""
    return period_range(billing_period(answer), today)


def _anchored(path: pd.DataFrame, used: float, today: date) -> np.ndarray:
    """The path's expected cumulative usage, lifted from today on to at least `used`."""
    cumulative: np.ndarray = path["expected"].to_numpy(dtype=float, copy=True)
    first_open = int(np.searchsorted(path["day"].to_numpy(), np.datetime64(today)))
    anchor = min(first_open, len(cumulative) - 1)
    cumulative[anchor:] += max(0.0, used - cumulative[anchor])
    return cumulative


def allowance(
    measure: Measure,
    used: float,
    limit: float | None,
    period: BillingPeriod | None,
    key_day: pd.DataFrame,
    today: date,
    covered_from: date,
    api_keys: tuple[str, ...] | None = None,
) -> Allowance:
    """One limit over the billing period: of the organization, or (``api_keys``) of the keys
    a developer key's own limit caps."""
    metric = MEASURE_SERIES.get(measure)
    if period is None or metric is None:
        return Allowance(measure, used, limit, None, None)
    path = projection_path(
        key_day, metric, (period.start, period.end), today, covered_from, api_keys
    )
    cumulative = _anchored(path, used, today)
    reached = None
    if limit is not None:
        days = (day.date() for day in path["day"])
        reached = next(
            (d for d, v in zip(days, cumulative, strict=True) if reaches(v, limit)), None
        )
    return Allowance(measure, used, limit, float(cumulative[-1]), reached)


def _spend(
    period: BillingPeriod | None,
    key_day: pd.DataFrame,
    today: date,
    covered_from: date,
    prices: Prices | None,
) -> PlanSpend | None:
    """The billing period's spend, when every day of it has a price (a part of a period's
    spend, projected, would read as the whole)."""
    if prices is None or period is None or prices.unpriced(period.start, period.end):
        return None
    used = 0
    if today > period.start:
        closed = within(key_day, period.start, today - ONE_DAY)
        spend = prices.spend(closed, period.start, today - ONE_DAY)
        used = int(spend["amount_minor"].iloc[-1])  # the Total row
    path = cost_path(key_day, (), (period.start, period.end, today, covered_from), prices)
    return PlanSpend(prices.currency, used, float(path["expected"].iloc[-1]))


@dataclass(frozen=True)
class PlanLimits:
    """The plan's limits a billing period as the service reports them (``plan_limits``), in
    the Plan card's order; None where there is no limit (a paid plan's "no limit", or a speech
    service a free plan does not report). The Plan card and the capacity decision's today's
    plan both read them from here, so they name the same plan with the same figures."""

    characters: float | None
    speech_to_text_minutes: float | None = None
    speech_to_speech_minutes: float | None = None

    def of(self, measure: Measure) -> float | None:
        limit: float | None = getattr(self, measure)
        return limit

    @property
    def text(self) -> str:
        """``5,000,000 characters, 5,000 speech-to-text minutes and 200 speech-to-speech
        minutes``, each written as the Plan card writes its limit (``count_text``)."""
        parts = [
            f"no {MEASURE_LABELS[m].lower().removesuffix('s')} limit"
            if self.of(m) is None
            else f"{count_text(self.of(m) or 0)} {MEASURE_LABELS[m].lower()}"
            for m in MEASURE_LABELS
        ]
        return f"{', '.join(parts[:-1])} and {parts[-1]}"


def plan_limits(answer: PlanUsage) -> PlanLimits:
    """The limits of the service's answer: a character limit of ``UNLIMITED_CHARACTERS`` or
    more is none (a paid plan without a cost-control limit)."""
    characters = answer.character_limit
    if characters is not None and characters >= UNLIMITED_CHARACTERS:
        characters = None
    return PlanLimits(
        characters, answer.speech_to_text_minutes_limit, answer.speech_to_speech_minutes_limit
    )


def plan_snapshot(
    answer: PlanUsage,
    key_day: pd.DataFrame,
    today: date,
    covered_from: date,
    prices: Prices | None = None,
) -> PlanSnapshot:
    """The snapshot of the service's answer; `key_day` covers `usage_range(answer, today)` from
    `covered_from` on. With `prices`, the billing period's spend too."""
    period = billing_period(answer)
    limits = plan_limits(answer)
    a = answer
    # Characters are always reported; a speech service only on a paid plan.
    reported: list[tuple[Measure, int | None]] = [
        ("characters", a.character_count),
        ("speech_to_text_minutes", a.speech_to_text_minutes_count),
        ("speech_to_speech_minutes", a.speech_to_speech_minutes_count),
    ]
    return PlanSnapshot(
        today=today,
        period=period,
        allowances=tuple(
            replace(
                allowance(
                    measure, used or 0, limits.of(measure), period, key_day, today, covered_from
                ),
                billed=True,
            )
            for measure, used in reported
            if measure == "characters" or used is not None or limits.of(measure) is not None
        ),
        spend=_spend(period, key_day, today, covered_from, prices),
    )
