"""Money as a scope sees it: the one reader every money surface reads through (the Chargeback
page, Overview in cost, the Capacity page and the meeting report of both front ends).

A team's money is its rows of the organization's Chargeback (``analytics.cost.chargeback``):
its usage cost and its share of the base fee, computed over the organization's usage and then
narrowed to the scope's teams (``Visible.team_rows``). Its keys are never priced alone: the
included volume and the base fee are the organization's, and a team priced alone would take
the whole fee and the whole included volume. A team scope's total is the sum of its rows; the
organization's total (its lines and fees) is the whole organization's alone.

What only the organization has is refused to a team's scope: the cost forecasts price every
key's forecast together with the base fee (``ScopedPrices.daily_cost``), and the surfaces say
so once, in ``Scope.withheld``'s words (``COST_FORECASTS``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date
from typing import Final

import pandas as pd

from analytics.access.scope import Visible
from analytics.capacity import BudgetSettings, CapacityReview, PriceList, contract_year, review_of
from analytics.cost import (
    NO_TEAMS,
    PRICED_METRICS,
    TOTAL,
    TOTAL_COLUMNS,
    Chargeback,
    PricesInForce,
    Pricing,
    RangeCost,
    Teams,
    chargeback,
    team_spend,
)
from analytics.usage import TOTAL_CHARACTERS, FetchedRange, UsageReader

COST_FORECASTS: Final = "The cost forecasts"


@dataclass(frozen=True)
class ScopedMoney:
    """The money ``visible``'s scope sees at ``pricing``: each answer is given the
    organization's key-day frame of its range (never the scope's), priced over it, then
    narrowed. ``teams`` are the organization's cost centres (an upload's, on the Chargeback
    page); a team scope's are always those its scope is drawn by (``visible.teams``)."""

    visible: Visible
    pricing: Pricing
    teams: Teams = NO_TEAMS

    @property
    def whole(self) -> bool:
        return self.visible.scope.whole

    @property
    def cost_centres(self) -> Teams:
        return self.teams if self.whole else self.visible.teams

    def chargeback(self, organization: pd.DataFrame, start: date, end: date) -> Chargeback:
        """The chargeback of ``start``–``end``: the organization's, or the scope's teams' rows
        of it with their own total per month (the sum of their rows) in place of the
        organization's."""
        bill = chargeback(organization, self.pricing, self.cost_centres, start, end)
        if self.whole:
            return bill
        table = self.visible.team_rows(bill.table)
        summed = table.drop(columns="team").groupby("month", sort=True).sum()
        total = summed.reindex(pd.DatetimeIndex(bill.total["month"]), fill_value=0)
        total = total.rename_axis("month").reset_index()[TOTAL_COLUMNS]
        return replace(bill, table=table, total=total)

    def spend(self, organization: pd.DataFrame, start: date, end: date) -> pd.DataFrame:
        """The range's spend per team (``chargeback.team_spend``'s rows, minor units) the
        scope sees, then its ``Total`` row: the organization's, or the sum of the scope's
        teams' rows."""
        table = team_spend(organization, self.pricing, self.cost_centres, start, end)
        if self.whole:
            return table
        rows = self.visible.team_rows(table[table["team"] != TOTAL])
        total = rows.drop(columns="team").sum().to_frame().T.astype("int64")
        total.insert(0, "team", TOTAL)
        return pd.concat([rows, total], ignore_index=True)

    def range_cost(self, organization: pd.DataFrame, start: date, end: date) -> RangeCost:
        """What the range cost the scope (``RangeCost``): its spend's ``Total`` row."""
        spend = self.spend(organization, start, end)
        [total] = spend.loc[spend["team"] == TOTAL].to_dict("records")
        usage: dict[str, int] = {metric: int(total[metric]) for metric in PRICED_METRICS}
        usage[TOTAL_CHARACTERS] = sum(usage.values())
        return RangeCost(usage, int(total["base_fee_minor"]), shared=not self.whole)


@dataclass(frozen=True)
class ScopedPrices:
    """A team scope's prices as the capacity review asks for them (capacity's ``Prices``): the
    spend of a range is the scope's rows of the organization's (``ScopedMoney.spend``), priced
    over the organization's usage of the range, which ``organization`` reads (the scope's
    frame the review gives holds too little to price); the cost per day, which only the
    organization's cost forecasts read, is refused."""

    prices: PricesInForce
    money: ScopedMoney
    organization: UsageReader = field(compare=False)

    @property
    def currency(self) -> str:
        return self.prices.currency

    def unpriced(self, start: date, end: date) -> str | None:
        return self.prices.unpriced(start, end)

    def daily_cost(
        self, frame: pd.DataFrame, start: date, end: date, keys: tuple[str, ...] = ()
    ) -> pd.Series:
        raise self.money.visible.scope.refusal("the organization's cost per day")

    def spend(self, key_day: pd.DataFrame, start: date, end: date) -> pd.DataFrame:
        return self.money.spend(self.organization.usage(start, end).frame, start, end)

    def price_list(self, day: date) -> PriceList | None:
        return self.prices.price_list(day)


def scoped_review(
    visible: Visible,
    readers: tuple[UsageReader, UsageReader],
    budgets: BudgetSettings | None,
    days: tuple[date, date, date],
    prices: PricesInForce | None,
) -> tuple[CapacityReview, FetchedRange]:
    """The capacity review of ``days`` (start, end, today) as the scope sees it, and the usage
    it read, for the Capacity page and the meeting report of both front ends: ``readers``
    read the scope's usage and the organization's. The contract year is the ``budgets``
    document's, though none of its budgets be a team's; a team's review shows its budgets, its
    spend as its rows of Chargeback, and no cost forecast (``review.withheld`` says so)."""
    start, end, today = days
    shown, organization = readers
    year = contract_year(budgets)
    if visible.scope.whole:
        return review_of(shown, budgets, today, start, end, prices, year)
    own = visible.budgets(budgets) if budgets is not None else None
    if prices is None:
        return review_of(shown, own, today, start, end, None, year)
    scoped = ScopedPrices(prices, ScopedMoney(visible, prices.pricing), organization)
    withheld = visible.scope.withheld(COST_FORECASTS)
    return review_of(shown, own, today, start, end, scoped, year, withheld=withheld)
