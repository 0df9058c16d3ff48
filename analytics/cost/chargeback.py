"""Chargeback: what each team owes per month, adding up to the organization's cost exactly.

One row per month with priced days and team (every team of the file, then ``Unassigned`` for
the keys no team claims, rows of zeros included; ``Spend.unpriced`` names the days without a
price, whose usage is left out): the usage of each metric, its cost, the team's share of the
base fee, and their sum. The rules that make the teams' amounts add up to the organization's:

* usage: the organization's lines (``analytics.cost.spend``) are apportioned between the
  teams pro rata to usage, by largest remainder; so the included volume is shared pro rata
  to usage too;
* base fee: each month's fee is apportioned between the teams pro rata to their usage at list
  prices (before the included volume, so a team whose usage it covers still takes its share
  of the fixed fee), by largest remainder; the fee of a month without usage is Unassigned.

A team's amounts come from the organization's lines directly, not from its keys' rounded
items, so each is within a minor unit of its exact share per line.

Where the base fee goes below a team (``base_fee_shares``): each team's share of a month is
shared between the rows of a finer spend that are its own (its keys' months, or its or its
keys' days), pro rata to their usage at list prices, by largest remainder, a key's month
before its days; so an export by key or by day adds up to each team's Chargeback, and to the
organization's, to the cent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Final

import numpy as np
import pandas as pd

from analytics.cost.money import Ints, apportion, as_decimal, as_decimals
from analytics.cost.prices import PRICED_METRICS, Pricing
from analytics.cost.spend import Spend, price_usage
from analytics.cost.teams import NO_TEAMS, UNASSIGNED, Teams, assign_keys
from analytics.usage import METRICS, MINUTE_METRICS, ONE_DAY, SERVICE_CHARACTERS, TOTAL_CHARACTERS

AMOUNT_COLUMNS: Final = ["usage_amount_minor", "base_fee_minor", "amount_minor"]
CHARGEBACK_COLUMNS: Final = ["month", "team", *METRICS, *AMOUNT_COLUMNS]
TOTAL_COLUMNS: Final = ["month", *METRICS, *AMOUNT_COLUMNS]
# Spend per team over a range: each priced metric's cost, the base fee share, their sum.
SPEND_COLUMNS: Final = ["team", *PRICED_METRICS, "base_fee_minor", "amount_minor"]
TOTAL = "Total"
# A finer spend's rows with their base fee share: ``usage_date`` after ``month`` per day.
FEE_SHARE_COLUMNS: Final = ["month", "group", "team", "base_fee_minor"]


@dataclass(frozen=True)
class Chargeback:
    """Per month: ``table`` has a row per team (``CHARGEBACK_COLUMNS``), ``total`` the
    organization's row (``TOTAL_COLUMNS``, from its lines and fees) that the teams add up to.
    Amounts are integers in the currency's minor unit; ``spend`` has the items per team,
    month and metric."""

    currency: str
    table: pd.DataFrame
    total: pd.DataFrame
    spend: Spend

    @property
    def total_minor(self) -> int:
        return int(self.total["amount_minor"].sum())

    @property
    def total_amount(self) -> Decimal:
        return as_decimal(self.total_minor, self.currency)


def _with_total_characters(usage: pd.DataFrame) -> pd.DataFrame:
    """Every metric as a column, in ``METRICS``' order: characters int64, total characters the
    services' sum, minutes as summed (a metric without usage, int64 zeros). Built column by
    column from the arrays: a frame's reindex, row sum and cast cost more than the rest of a
    small organization's chargeback."""
    zeros = np.zeros(len(usage), dtype=np.int64)
    columns = {m: usage[m].to_numpy(np.int64) if m in usage else zeros for m in SERVICE_CHARACTERS}
    columns[TOTAL_CHARACTERS] = sum(columns.values(), zeros)
    columns |= {m: usage[m].to_numpy() if m in usage else zeros for m in MINUTE_METRICS}
    return pd.DataFrame({m: columns[m] for m in METRICS}, index=usage.index)


def chargeback(
    key_day: pd.DataFrame, pricing: Pricing, teams: Teams, start: date, end: date
) -> Chargeback:
    """The chargeback of ``start``–``end`` (inclusive) for a key-day frame of that range."""
    spend = price_usage(key_day, pricing, start, end, by=assign_keys(teams, key_day))
    months = pd.DatetimeIndex(spend.fees["month"])
    usage, (listed, charged) = _team_months(spend.items, months, teams.names)

    # The base fee, pro rata to the usage at list prices; a month without usage: Unassigned.
    teams_count = len(teams.names)
    weight = listed.reshape(-1, teams_count).copy()
    weight[weight.sum(axis=1) == 0, teams.names.index(UNASSIGNED)] = 1
    month_of_row = np.repeat(np.arange(len(months)), len(teams.names))
    fee = apportion(spend.fees["amount_minor"].tolist(), month_of_row, weight.ravel())

    table = usage.reset_index()
    table["usage_amount_minor"] = charged
    table["base_fee_minor"] = fee
    table["amount_minor"] = table["usage_amount_minor"] + fee
    table["team"] = pd.Categorical(table["team"], categories=list(teams.names))

    organization = spend.organization.astype({"metric": str})
    lines = organization.groupby(["month", "metric"])[["usage", "amount_minor"]].sum()
    total = _with_total_characters(
        lines["usage"].unstack("metric", fill_value=0).reindex(months, fill_value=0)
    )
    total["usage_amount_minor"] = (
        lines["amount_minor"].groupby(level="month").sum().reindex(months, fill_value=0)
    )
    total["base_fee_minor"] = spend.fees["amount_minor"].to_numpy()
    total["amount_minor"] = total["usage_amount_minor"] + total["base_fee_minor"]
    total = total.rename_axis("month").reset_index()
    return Chargeback(
        currency=pricing.currency,
        table=table[CHARGEBACK_COLUMNS],
        total=total[TOTAL_COLUMNS],
        spend=spend,
    )


def _team_months(
    items: pd.DataFrame, months: pd.DatetimeIndex, names: tuple[str, ...]
) -> tuple[pd.DataFrame, tuple[Ints, Ints]]:
    """Each month and team's usage (a row per month and team, in that order; a column per
    metric with items, in their names' order, and total characters) and its amounts at list
    prices and charged, from items priced per team and month. Such items are one per month,
    team and metric, so each cell's sum is its one item as it is, added up with numpy: a group-by
    per call was most of the time of pricing a small organization, which the money tests do
    thousands of times."""
    grid = pd.MultiIndex.from_product([months, names], names=["month", "team"])
    team = items["team"].cat
    of_team = pd.Index(names).get_indexer(team.categories)[team.codes.to_numpy()]
    cell = months.get_indexer(pd.DatetimeIndex(items["month"])) * len(names) + of_team
    metric = items["metric"].cat
    codes = metric.codes.to_numpy()
    used = sorted(str(name) for name in metric.categories[np.unique(codes)])
    of_metric = pd.Index(used).get_indexer(metric.categories)[codes]
    values = np.zeros((len(grid), len(used)), dtype=np.float64)
    np.add.at(values, (cell, of_metric), items["usage"].to_numpy(np.float64))
    usage = pd.DataFrame(values, index=grid, columns=pd.Index(used, name="metric"))
    amounts = [np.zeros(len(grid), dtype=np.int64) for _ in range(2)]
    for summed, column in zip(amounts, ("list_amount_minor", "amount_minor"), strict=True):
        np.add.at(summed, cell, items[column].to_numpy(np.int64))
    return _with_total_characters(usage), (amounts[0], amounts[1])


def chargeback_rows(bill: Chargeback) -> pd.DataFrame:
    """The Chargeback page's table: a row per month and team (``month`` as YYYY-MM), amounts
    in currency units as exact decimals, then a ``Total`` row from the organization's lines,
    which the teams' rows add up to."""
    table = bill.table.copy()
    table["month"] = pd.DatetimeIndex(table["month"]).strftime("%Y-%m")
    table["team"] = table["team"].astype(str)
    total = bill.total.drop(columns="month").sum().to_frame().T
    total.insert(0, "team", "Total")
    total.insert(0, "month", "")
    rows = pd.concat([table, total[table.columns]], ignore_index=True)
    for column in AMOUNT_COLUMNS:
        minor = rows.pop(column).to_numpy(np.int64)
        rows[column.removesuffix("_minor")] = as_decimals(minor, bill.currency)
    return rows


def team_spend(
    key_day: pd.DataFrame, pricing: Pricing, teams: Teams | None, start: date, end: date
) -> pd.DataFrame:
    """The range's spend per team (``SPEND_COLUMNS``, minor units): what each team's usage of
    each priced metric cost (the metric's column), its share of the base fee and their sum; a
    row per team of the file, then ``Unassigned`` (alone without a teams file), then the
    organization's ``Total`` row from its lines and fees, which the teams add up to."""
    bill = chargeback(key_day, pricing, teams or NO_TEAMS, start, end)
    names = list(bill.table["team"].cat.categories)
    items = bill.spend.items.astype({"metric": str})
    costs = items.groupby(["team", "metric"], observed=False)["amount_minor"].sum()
    table = costs.unstack("metric").reindex(index=names, columns=list(PRICED_METRICS))
    table = table.fillna(0).astype("int64")
    table["base_fee_minor"] = bill.table.groupby("team", observed=False)["base_fee_minor"].sum()
    lines = bill.spend.organization.astype({"metric": str}).groupby("metric")["amount_minor"].sum()
    total = lines.reindex(list(PRICED_METRICS), fill_value=0).astype("int64").to_dict()
    total["base_fee_minor"] = int(bill.total["base_fee_minor"].sum())
    table.loc[TOTAL] = pd.Series(total)
    table["amount_minor"] = table[[*PRICED_METRICS, "base_fee_minor"]].sum(axis=1)
    return table.rename_axis("team").reset_index()[SPEND_COLUMNS]


def base_fee_shares(bill: Chargeback, spend: Spend, team_of: Mapping[str, str]) -> pd.DataFrame:
    """Each team's base fee share of each month in ``bill`` shared between the rows of
    ``spend`` (the same range priced per ``spend.by`` group, per month or per day) whose
    ``group`` ``team_of`` gives to the team: a group's month its part pro rata to its usage at
    list prices, then, per day, each day its part of the group's month the same way (evenly
    where none of the rows has a list price). One row per month (and ``usage_date``) and group
    with usage (``FEE_SHARE_COLUMNS``); a team's share that no row of its can carry (the fee of
    a month without usage, Unassigned's) is a row of its own, ``group`` None, on the month's
    first priced day. The rows add up to each team's share to the cent."""
    per_day = "usage_date" in spend.items.columns
    slots = ["month", "usage_date"] if per_day else ["month"]
    items = spend.items.astype({spend.by: str}).rename(columns={spend.by: "group"})
    rows = items.groupby([*slots, "group"])["list_amount_minor"].sum().reset_index()
    rows["team"] = rows["group"].map(team_of)
    if rows["team"].isna().any():
        raise ValueError(f"a {spend.by} without a team: team_of must name every group's team")
    shares = bill.table.astype({"team": str})
    team_months = pd.MultiIndex.from_frame(shares[["month", "team"]])
    months = rows.groupby(["month", "group", "team"])["list_amount_minor"].sum().reset_index()
    of_team = team_months.get_indexer(pd.MultiIndex.from_frame(months[["month", "team"]]))
    wholes = shares["base_fee_minor"].tolist()
    fee = apportion(wholes, of_team, _weights(of_team, months["list_amount_minor"]))
    if per_day:
        of_month = pd.MultiIndex.from_frame(months[["month", "group"]]).get_indexer(
            pd.MultiIndex.from_frame(rows[["month", "group"]])
        )
        fee = apportion(fee.tolist(), of_month, _weights(of_month, rows["list_amount_minor"]))
    columns = [*slots, *FEE_SHARE_COLUMNS[1:]]
    placed = rows.assign(base_fee_minor=fee)[columns]
    carried = np.zeros(len(shares), dtype=bool)
    carried[of_team] = True
    unplaced = shares[~carried & (shares["base_fee_minor"] != 0)].assign(group=None)
    if per_day:
        first = pd.Timestamp(
            spend.start if spend.unpriced is None else spend.unpriced.last + ONE_DAY
        )
        month = unplaced["month"]
        unplaced = unplaced.assign(usage_date=month.where(month > first, first))
    return pd.concat([placed, unplaced[columns]], ignore_index=True)


def _weights(of: Ints, weights: pd.Series) -> Ints:
    """The rows' weights for sharing each of their wholes, every row 1 where all of a whole's
    rows weigh 0 (a team's share on days whose usage at list price rounds to nothing)."""
    weight = weights.to_numpy(np.int64)
    total = np.zeros(int(of.max(initial=-1)) + 1, dtype=np.int64)
    np.add.at(total, of, weight)
    return np.where(total[of] == 0, 1, weight)
