"""Money in capacity: what budgets, forecasts, the plan and the review ask of the prices in
force, and the projected cost of a period.

Capacity stands apart from the money layer (``analytics.cost``) and never imports it: callers
pass something with the ``Prices`` interface (``analytics.cost.priced.PricesInForce``), so
cost budgets, cost forecasts and the plan's spend are priced exactly as the pages and exports
price usage.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Protocol

import numpy as np
import pandas as pd

from analytics.capacity.forecasting import expected_days
from analytics.usage import CHARACTER_METRICS, METRICS

COST = "cost"  # the metric of a cost budget or forecast, in the pricing currency
# Masked keys of the forecast rows a projected cost prices.
PROJECTED_KEY, PROJECTED_REST = "proj****keys", "proj****rest"


class UnitPriceList(Protocol):
    """A price period's unit prices (``analytics.cost.prices.UnitPrices``)."""

    def of(self, metric: str) -> Decimal:
        """Per million characters of a character service, per minute of a speech service."""
        ...


class IncludedVolume(Protocol):
    """A price period's volume included each month (``analytics.cost.prices.IncludedPerMonth``)."""

    def units(self, metric: str) -> int:
        """The included volume of a priced metric in counted units: characters, or
        micro-minutes."""
        ...


class PriceList(Protocol):
    """One price period as the capacity decision prices today's plan with it
    (``analytics.cost.prices.PricePeriod``)."""

    @property
    def start(self) -> date: ...
    @property
    def name(self) -> str: ...
    @property
    def monthly_fee(self) -> Decimal: ...
    @property
    def unit_prices(self) -> UnitPriceList: ...
    @property
    def included_per_month(self) -> IncludedVolume: ...


class Prices(Protocol):
    """The prices in force (and the teams that share the spend)."""

    @property
    def currency(self) -> str:
        """ISO 4217 code of every amount."""

    def unpriced(self, start: date, end: date) -> str | None:
        """What to say of the days of ``start``–``end`` without a price ("no price in force on
        …"), None when every day has one. Such days cost 0 in ``daily_cost`` and are left out of
        ``spend``: whoever shows their money says so."""

    def daily_cost(
        self, frame: pd.DataFrame, start: date, end: date, keys: tuple[str, ...] = ()
    ) -> pd.Series:
        """The cost per day (currency units, for projections and charts) over ``start``–``end``
        of a key-day frame of that range: of the given masked keys, or of the organization,
        base fee included, when none are given; 0 on days without a price."""

    def spend(self, key_day: pd.DataFrame, start: date, end: date) -> pd.DataFrame:
        """The range's spend per team in minor units, exactly (``cost.chargeback.team_spend``):
        each priced metric's cost, the base fee and their sum, a row per team, then ``Total``;
        of the days with a price."""

    def price_list(self, day: date) -> PriceList | None:
        """The price period in force on ``day``; None when the day has no price."""


def cost_path(
    key_day: pd.DataFrame,
    keys: tuple[str, ...],
    window: tuple[date, date, date, date],
    prices: Prices,
) -> pd.DataFrame:
    """Cumulative cost over the period ``window = (start, end, as_of, covered_from)``
    (``forecasting.projection_path``'s columns, no band): the closed days' usage before ``as_of``,
    then each metric's forecast (``forecasting.expected_days``: the keys' share of the
    organization's, and the rest's), priced together; of the masked ``keys``, or of the
    organization, base fee included, when none are given."""
    start, end, as_of, covered_from = window
    days = pd.date_range(pd.Timestamp(start), pd.Timestamp(end), freq="D")
    in_period = key_day["usage_date"].between(pd.Timestamp(start), pd.Timestamp(as_of), "left")
    future = [d.date() for d in days if d.date() >= as_of]
    mine = key_day["api_key"].isin(list(keys)) if keys else key_day["api_key"].notna()
    rest = tuple(str(k) for k in key_day.loc[~mine, "api_key"].unique())
    parts = [key_day.loc[in_period].astype({"api_key": str, "api_key_label": str})]
    for name, rows in ((PROJECTED_KEY, mine), (PROJECTED_REST, ~mine)):
        if future and rows.any():
            projected = {"usage_date": pd.DatetimeIndex(future), "api_key": name}
            share = (keys or None) if name == PROJECTED_KEY else rest
            for metric in METRICS:
                expected = expected_days(key_day, metric, (as_of, end, covered_from), share)
                projected[metric] = expected[len(expected) - len(future) :]
            parts.append(pd.DataFrame(projected).assign(api_key_label=name))
    frame = pd.concat(parts, ignore_index=True)[list(key_day.columns)]
    for metric in CHARACTER_METRICS:  # forecasts in whole characters
        frame[metric] = np.rint(frame[metric].astype(float)).astype("int64")
    cost = prices.daily_cost(frame, start, end, (*keys, PROJECTED_KEY) if keys else ())
    expected = cost.reindex(days, fill_value=0.0).to_numpy(dtype=float).cumsum()
    closed = np.array([d.date() < as_of for d in days])
    actual = np.where(closed, expected, np.nan)
    return pd.DataFrame(
        {"day": days, "actual": actual, "expected": expected, "low": expected, "high": expected}
    )
