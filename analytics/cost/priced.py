"""Usage in money for the pages and for capacity: the key-day frame priced, and the prices in
force as capacity asks for them.

``price_key_day`` prices a key-day frame (or the team frame of ``teams.team_day``) per day with
``spend.price_usage`` and lays the day items out in the frame's own shape: one row per key and
day with usage, each metric's column holding that usage's cost in minor units (int64), and
``total_characters`` the row's whole usage cost, minutes included (money adds up where usage
does not). Every per-key table and chart of ``analytics.usage.tables`` (totals, top-N + Other,
the key table with its shares and trends, one bucket's breakdown) so shows money as it is.

The rows add up to the organization's lines exactly. A key's (or team's) amount over a range
is the sum of its day items, which add up to its per-month items exactly (``spend``), so it is
the amount an export or the Chargeback page shows. The pages show the base fee under no key
and no day (``spend.base_fees``); Chargeback and the exports share it
(``chargeback.base_fee_shares``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Final

import numpy as np
import pandas as pd

from analytics.cost.chargeback import team_spend
from analytics.cost.money import amount_text
from analytics.cost.prices import PRICED_METRICS, PricePeriod, Pricing
from analytics.cost.spend import daily_cost, price_usage
from analytics.cost.teams import Teams
from analytics.usage import (
    DATE_DTYPE,
    KEY_DAY_COLUMNS,
    METRICS,
    SERVICE_LABELS,
    TOTAL_CHARACTERS,
    format_change,
    labels,
    relative_change,
)

# The money figures' names (docs/glossary.md), the same on every page, report and file:
# usage cost is what the usage cost at the prices in force; the base fee is the plan's
# monthly fee (a team's part of it: its base fee share); total cost is their sum.
USAGE_COST: Final = "Usage cost"
BASE_FEE: Final = "Base fee"
BASE_FEE_SHARE: Final = "Base fee share"
TOTAL_COST: Final = "Total cost"
# How a priced frame's columns are named on pages and charts: its total_characters column is
# the usage cost (a priced frame holds no base fee).
COST_LABELS: Final[dict[str, str]] = {
    TOTAL_CHARACTERS: USAGE_COST,
    **{metric: f"{label} cost" for metric, label in SERVICE_LABELS.items()},
}


def price_key_day(key_day: pd.DataFrame, pricing: Pricing, start: date, end: date) -> pd.DataFrame:
    """The frame of ``start``–``end`` (inclusive) priced per day, in the frame's shape (minor
    units, see the module)."""
    spend = price_usage(key_day, pricing, start, end, per="day")
    items = spend.items
    keys = items["api_key"].cat.categories
    day = (items["usage_date"].to_numpy("datetime64[D]") - np.datetime64(start, "D")).astype(
        np.int64
    )
    # Items come sorted by day, then key: numbering the pairs in order keeps the frame's order.
    row, pairs = pd.factorize(day * len(keys) + items["api_key"].cat.codes.to_numpy(np.int64))
    pair = np.asarray(pairs, dtype=np.int64)
    column = pd.Index(METRICS).get_indexer(pd.Index(items["metric"].astype(str)))
    amounts = np.zeros((len(pair), len(METRICS)), dtype=np.int64)
    amounts[row, column] = items["amount_minor"].to_numpy(np.int64)
    amounts[:, METRICS.index(TOTAL_CHARACTERS)] = amounts.sum(axis=1)
    named = labels(key_day)
    label_codes, label_names = pd.factorize(
        np.array([named.get(str(key), "") for key in keys], dtype=object), sort=True
    )
    key_codes = pair % len(keys)
    columns: dict[str, object] = {
        "usage_date": (np.datetime64(start, "D") + pair // len(keys)).astype(DATE_DTYPE),
        "api_key": pd.Categorical.from_codes(key_codes, categories=keys),
        "api_key_label": pd.Categorical.from_codes(
            label_codes[key_codes], categories=pd.Index(label_names)
        ),
        **{metric: amounts[:, i] for i, metric in enumerate(METRICS)},
    }
    return pd.DataFrame(columns, columns=KEY_DAY_COLUMNS)


@dataclass(frozen=True)
class CostTile:
    """One figure of what a range cost, with its change against the previous range; a cost of
    0 next to usage says why instead (``Pricing.free_because``), since −100 % would read as
    usage gone."""

    metric: str  # total_characters: the whole cost, base fee included
    minor: int
    previous: int | None  # None: the previous range has no price or no cost
    currency: str
    free: str | None = None  # why the cost is 0 although there was usage

    @property
    def label(self) -> str:
        return TOTAL_COST if self.metric == TOTAL_CHARACTERS else COST_LABELS[self.metric]

    @property
    def text(self) -> str:
        return amount_text(self.minor, self.currency)

    @property
    def previous_text(self) -> str:
        return "N/A" if self.previous is None else amount_text(self.previous, self.currency)

    @property
    def change(self) -> float | None:
        return None if self.free else relative_change(self.minor, self.previous)

    @property
    def change_text(self) -> str:
        return self.free or format_change(self.change)


@dataclass(frozen=True)
class RangeCost:
    """What a range cost someone, in minor units: each priced metric's usage cost and
    ``total_characters`` all of it (``usage``), and the base fee (``fee``), or a team's share
    of it (``shared``: pro rata to its usage at list prices, so none without usage)."""

    usage: dict[str, int]
    fee: int
    shared: bool = False

    @property
    def total(self) -> int:
        return self.usage[TOTAL_CHARACTERS] + self.fee

    @property
    def comparable(self) -> bool:
        """Whether a range is something to compare with: it cost something for its usage.
        The organization's base fee alone is charged without any usage (before its first day
        too), so would make any range look like growth; a team's share follows its usage."""
        return any(self.usage.values()) or (self.shared and self.fee > 0)


def cost_tiles(
    current: RangeCost,
    previous: RangeCost | None,
    currency: str,
    why_free: Callable[[str], str | None] = lambda metric: None,
) -> list[CostTile]:
    """One tile per metric, as the usage tiles: ``total_characters`` is the whole cost (every
    service and the base fee, or a team's share of it), each service its usage cost.
    ``previous`` is the previous range's, None when it cannot be priced; one that is not
    ``comparable`` counts as none, as a range without usage does for usage. ``why_free`` says
    why a metric's cost is 0 (None: it had no usage, and 0 needs no reason)."""
    before = None
    if previous is not None and previous.comparable:
        before = {**previous.usage, TOTAL_CHARACTERS: previous.total}
    now = {**current.usage, TOTAL_CHARACTERS: current.total}
    return [
        CostTile(
            metric,
            now[metric],
            None if before is None else before[metric],
            currency,
            why_free(metric) if now[metric] == 0 else None,
        )
        for metric in METRICS
    ]


def why_free(
    pricing: Pricing, usage: Mapping[str, float], start: date, end: date
) -> Callable[[str], str | None]:
    """``cost_tiles``' reasons for a cost of 0 over ``start``–``end``: none for a metric
    without ``usage``; for the total, the reason that holds for every priced service."""

    def reason(metric: str) -> str | None:
        if not usage.get(metric):
            return None
        metrics = PRICED_METRICS if metric == TOTAL_CHARACTERS else (metric,)
        return pricing.free_because(metrics, start, end)

    return reason


@dataclass(frozen=True)
class PricesInForce:
    """The prices (and teams) in force, as capacity's budgets, forecasts, plan and review take
    them: ``analytics.capacity.budgets.Prices``, which capacity declares without importing this
    layer."""

    pricing: Pricing
    teams: Teams | None = None

    @property
    def currency(self) -> str:
        return self.pricing.currency

    def unpriced(self, start: date, end: date) -> str | None:
        days = self.pricing.unpriced(start, end)
        return None if days is None else days.note

    def daily_cost(
        self, frame: pd.DataFrame, start: date, end: date, keys: tuple[str, ...] = ()
    ) -> pd.Series:
        return daily_cost(frame, self.pricing, start, end, keys)

    def spend(self, key_day: pd.DataFrame, start: date, end: date) -> pd.DataFrame:
        return team_spend(key_day, self.pricing, self.teams, start, end)

    def price_list(self, day: date) -> PricePeriod | None:
        if day < self.pricing.first_day:
            return None
        return self.pricing.periods[self.pricing.period_index(day)]
