"""The rows of an export, from the key-day, tag-day or pair-day frame: one grouping, one table.

With a pricing file, every usage grouping can carry its cost (``Costing``), in three columns
named as the glossary names the figures: ``usage_cost_<currency>``, the row's share of the
organization's usage lines; ``base_fee_share_<currency>`` (``base_fee_<currency>`` in the one
row of range totals, the whole fee), its share of the plan's base fee as Chargeback shares it
(``cost.chargeback.base_fee_shares``: each team's share of a month, then within the team pro
rata to usage at list prices, a key's month before its days; every key is Unassigned without
a teams file); and ``total_cost_<currency>``, their sum. So a file by key, team or day adds up
to Chargeback's teams and to the organization's cost to the cent. The fee of a month without
usage, which no key or day of usage can carry, is a row of its own without usage: Unassigned's,
on the month's first priced day, under the key ``-`` in the groupings by key. Amounts are
exact decimals from the money layer's minor units.

An export of some teams (``Share``: what a team's lead sees) holds their rows only: the rows
of their keys (the frame given is theirs already, ``access.Visible.report``'s), their row(s)
in a grouping by team, their totals as the one row of the range. Its money is their share of
the organization's, priced from the organization's frame exactly as above, so each of their
rows carries the same amounts as in the organization's file, and a team's total is its row of
Chargeback: its usage cost, and ``base_fee_share_<currency>``, its share of the base fee, also
in the one row of range totals (the whole fee, like every other team's money, never appears).

Days without a price are not priced (``Spend.unpriced``): a row of such a day has empty cost
cells, a row over the range has the cost of its priced days (empty when no day has a price),
and ``unpriced_warning`` says which days, so the file is still written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

import numpy as np
import numpy.typing as npt
import pandas as pd

from analytics.cost import (
    BASE_FEE,
    BASE_FEE_SHARE,
    NO_TEAMS,
    TOTAL_COST,
    USAGE_COST,
    Chargeback,
    Pricing,
    Spend,
    Teams,
    as_decimals,
    assign_keys,
    base_fee_shares,
    chargeback,
    key_teams,
    price_usage,
    tag_teams,
    team_day,
)
from analytics.exports.vocabulary import (
    GROUPINGS,
    SOURCES,
    CostNotOffered,
    ExportSource,
    FileNeeded,
    Grouping,
    PairGrouping,
    TagGrouping,
    UsageGrouping,
    offered,
)
from analytics.usage import (
    METRICS,
    UNATTRIBUTED_KEY,
    key_frame,
    labels,
    pair_frame,
    tag_frame,
    totals,
)


@dataclass(frozen=True)
class Costing:
    """What an export needs to be priced and grouped by team (either may be absent)."""

    pricing: Pricing | None = None
    teams: Teams | None = None


@dataclass(frozen=True)
class Share:
    """An export of some teams' rows: the teams, and the organization's key-day frame of the
    range, which their money is shared from."""

    teams: frozenset[str]
    organization: pd.DataFrame = field(compare=False)


def check_choices(source: ExportSource, grouping: str, with_cost: bool, costing: Costing) -> None:
    """The one check of an export's choices: a grouping of the source, the teams file a
    grouping by team needs, the pricing file cost needs, and a source that carries cost
    (``ExportProblem``, naming the choice at fault)."""
    if GROUPINGS[offered(source, grouping)].needs_teams and costing.teams is None:
        raise FileNeeded(grouping)
    if with_cost and costing.pricing is None:
        raise FileNeeded()
    if with_cost and not SOURCES[source].priced:
        raise CostNotOffered(source)


def shape_export(
    key_day: pd.DataFrame,
    start: date,
    end: date,
    group_by: UsageGrouping,
    costing: Costing = Costing(),
    with_cost: bool = False,
    share: Share | None = None,
) -> pd.DataFrame:
    """Key-day rows, per-key totals, per-team totals (every team, then Unassigned), team-day
    rows, or one row of range totals for `start`–`end`; with `with_cost`, their cost. With a
    ``share``, ``key_day`` holds the share's keys and the rows are the share's (see the
    module).

    Days are calendar dates (written YYYY-MM-DD), usage columns exactly the frames' columns.
    """
    check_choices("usage", group_by, with_cost, costing)
    if group_by == "key_and_day":
        # A new frame over the same columns: copy-on-write keeps the caller's frame as it is
        # when `_dated` replaces a column, without copying 674,000 rows first.
        table = key_day.copy(deep=False)
    elif group_by == "key":
        table = key_frame(key_day)
    elif group_by == "none":
        table = pd.DataFrame([{"start_date": start, "end_date": end, **totals(key_day)}])
    elif group_by == "team_and_day":  # the days each team used, as key_and_day
        assert costing.teams is not None
        by_team = team_day(key_day, costing.teams).drop(columns="api_key_label")
        table = by_team.rename(columns={"api_key": "team"})
    else:  # every team, used or not
        assert costing.teams is not None
        team = assign_keys(costing.teams, key_day)
        table = key_day[list(METRICS)].groupby(team, observed=False).sum().reset_index()
        if share is not None:
            table = table[table["team"].isin(list(share.teams))].reset_index(drop=True)
    if with_cost:
        table = _with_cost(table, key_day, start, end, group_by, costing, share)
    if share is not None:
        table = _named_as_held(table)
    return _dated(table) if "usage_date" in table.columns else table


def _named_as_held(table: pd.DataFrame) -> pd.DataFrame:
    """Each category column's categories kept to the values it holds: a Parquet file stores
    a column's categories, and a share's file names nothing outside it."""
    for column in table.columns:
        if isinstance(table[column].dtype, pd.CategoricalDtype):
            table[column] = table[column].cat.remove_unused_categories()
    return table


def _dated(table: pd.DataFrame) -> pd.DataFrame:
    """``usage_date`` as calendar dates: one date object per distinct day, then a take."""
    codes, days = pd.factorize(table["usage_date"])
    table["usage_date"] = pd.DatetimeIndex(days).date[codes]
    return table


def cost_column(figure: str, currency: str) -> str:
    """A cost column's name: the glossary's name of the figure it holds and the currency
    (``Base fee share`` in EUR: ``base_fee_share_eur``)."""
    return f"{figure.lower().replace(' ', '_')}_{currency.lower()}"


def _with_cost(
    table: pd.DataFrame,
    key_day: pd.DataFrame,
    start: date,
    end: date,
    group_by: UsageGrouping,
    costing: Costing,
    share: Share | None,
) -> pd.DataFrame:
    pricing = costing.pricing
    assert pricing is not None
    teams = costing.teams or NO_TEAMS
    if share is not None:  # the share's rows, priced as the organization's
        key_day = share.organization
    if group_by == "none" and share is None:
        spend = price_usage(key_day, pricing, start, end)
        usage = int(spend.organization["amount_minor"].sum())
        fee = int(spend.fees["amount_minor"].sum())
        empty = _unpriced_rows(table, spend, False)
        return _money(table, [usage], [fee], BASE_FEE, spend.currency, empty)
    bill = chargeback(key_day, pricing, teams, start, end)
    if group_by in ("team", "none"):
        per_team = bill.table.groupby("team", observed=False)
        sums = per_team[["usage_amount_minor", "base_fee_minor"]].sum()
        if group_by == "none":  # a share's totals: the sum of its teams' rows
            assert share is not None
            sums = sums.loc[sorted(share.teams)].sum().to_frame().T
        else:
            sums = sums.reindex(table["team"])
        return _money(
            table,
            sums["usage_amount_minor"].tolist(),
            sums["base_fee_minor"].tolist(),
            BASE_FEE_SHARE,
            bill.currency,
            _unpriced_rows(table, bill.spend, False),
        )
    per_day = GROUPINGS[group_by].per_day
    by: str | pd.Series = "api_key"
    team_of = {team: team for team in teams.names}
    if group_by == "team_and_day":
        by = assign_keys(teams, key_day)
    else:
        team_of = key_teams(teams, labels(key_day))
    spend = price_usage(key_day, pricing, start, end, by, per="day" if per_day else "month")
    shown = None if share is None else share.teams
    return _with_fee_share(table, spend, bill, team_of, per_day, shown)


def _with_fee_share(
    table: pd.DataFrame,
    spend: Spend,
    bill: Chargeback,
    team_of: dict[str, str],
    per_day: bool,
    shown: frozenset[str] | None,
) -> pd.DataFrame:
    """The cost columns of the groupings by key or by day: each row's line items and its base
    fee share; the fee no row of usage carries gets a row of its own (see the module), in a
    share's file only if it is one of the ``shown`` teams'."""
    by = spend.by
    fees = base_fee_shares(bill, spend, team_of)
    by_key = by == "api_key"
    no_group = fees["group"].isna()
    fees.loc[no_group, "group"] = UNATTRIBUTED_KEY if by_key else fees.loc[no_group, "team"]
    fees = fees.rename(columns={"team": "owner", "group": by})
    keys = ["usage_date", by] if per_day else [by]
    extra = fees[no_group].drop_duplicates(keys)
    if shown is not None:
        extra = extra[extra["owner"].isin(list(shown))]
    if len(extra):
        added = extra[keys].assign(api_key_label=extra["owner"]) if by_key else extra[keys]
        zeros = {m: pd.Series(0, index=added.index, dtype=table[m].dtype) for m in METRICS}
        table = pd.concat([table, added.assign(**zeros)[table.columns]], ignore_index=True)
        if per_day:
            table = table.sort_values("usage_date", kind="stable", ignore_index=True)
    usage = _by_row(table, spend.items, keys, "amount_minor")
    fee = _by_row(table, fees, keys, "base_fee_minor")
    empty = _unpriced_rows(table, spend, per_day)
    return _money(table, usage, fee, BASE_FEE_SHARE, spend.currency, empty)


def _usage_cost(table: pd.DataFrame, spend: Spend, per_day: bool) -> pd.DataFrame:
    """``usage_cost_<currency>`` alone (the tag groupings, at list prices)."""
    keys = ["usage_date", spend.by] if per_day else [spend.by]
    minor = _by_row(table, spend.items, keys, "amount_minor")
    empty = _unpriced_rows(table, spend, per_day)
    table[cost_column(USAGE_COST, spend.currency)] = _amounts(minor, spend.currency, empty)
    return table


def _by_row(table: pd.DataFrame, amounts: pd.DataFrame, keys: list[str], column: str) -> list[int]:
    """``column`` of ``amounts`` summed for each row of ``table``, found by ``keys``: the
    group (last, compared as text) and, per day, ``usage_date`` first."""
    group = keys[-1]
    rows = [table[k] if k == "usage_date" else table[k].astype(str) for k in keys]
    index = pd.MultiIndex.from_arrays(rows) if len(keys) > 1 else pd.Index(rows[0])
    sums = amounts.astype({group: str}).groupby(keys)[column].sum()
    minor: list[int] = sums.reindex(index, fill_value=0).astype("int64").tolist()
    return minor


def _unpriced_rows(table: pd.DataFrame, spend: Spend, per_day: bool) -> npt.NDArray[np.bool_]:
    """The rows whose cost cells stay empty: every row when no day of the range has a price,
    else, ``per_day``, the rows of the days without one."""
    if not spend.priced:
        return np.ones(len(table), dtype=bool)
    if per_day and spend.unpriced is not None:
        return spend.unpriced.holds(table["usage_date"])
    return np.zeros(len(table), dtype=bool)


def _amounts(
    minor: Sequence[int], currency: str, empty: npt.NDArray[np.bool_]
) -> npt.NDArray[np.object_]:
    """Exact amounts, and empty cells (None) where ``empty``: not priced is not free."""
    amounts = as_decimals(minor, currency)
    amounts[empty] = None
    return amounts


def _money(
    table: pd.DataFrame,
    usage: Sequence[int],
    fee: Sequence[int],
    fee_figure: str,
    currency: str,
    empty: npt.NDArray[np.bool_],
) -> pd.DataFrame:
    """The three cost columns of the usage groupings: usage cost, the base fee (``fee_figure``:
    the whole fee, or a row's share of it) and the total cost."""
    table[cost_column(USAGE_COST, currency)] = _amounts(usage, currency, empty)
    table[cost_column(fee_figure, currency)] = _amounts(fee, currency, empty)
    total = [u + f for u, f in zip(usage, fee, strict=True)]
    table[cost_column(TOTAL_COST, currency)] = _amounts(total, currency, empty)
    return table


def unpriced_warning(pricing: Pricing, start: date, end: date, grouping: Grouping) -> str | None:
    """What an export with cost says of the days of ``start``–``end`` without a price (None:
    every day has one): which they are, and what that left of the cost cells."""
    unpriced = pricing.unpriced(start, end)
    if unpriced is None:
        return None
    if GROUPINGS[grouping].per_day or unpriced.last == end:
        return f"{unpriced.note}; their cost cells are empty"
    return f"{unpriced.note}; the cost cells cover the priced days only"


def shape_tag_export(
    tag_day: pd.DataFrame,
    start: date,
    end: date,
    group_by: TagGrouping,
    costing: Costing | None = None,
) -> pd.DataFrame:
    """Tag-day rows or per-tag totals (biggest first) of `start`–`end`, columns exactly the
    frames' columns; priced when given a `costing`: each row's ``usage_cost_<currency>`` at
    list prices (tags are a part of the text characters: the included volume and the base fee
    are the organization's) and, with teams, each tag's ``team`` after the tag."""
    check_choices("tags", group_by, costing is not None, costing or Costing())
    per_day = GROUPINGS[group_by].per_day
    table = tag_day.copy() if per_day else tag_frame(tag_day)
    if costing is not None:
        assert costing.pricing is not None
        spend = price_usage(
            tag_day,
            costing.pricing,
            start,
            end,
            "custom_tag",
            per="day" if per_day else "month",
            at_list_prices=True,
        )
        table = _usage_cost(table, spend, per_day)
        if costing.teams is not None:
            names = table["custom_tag"].astype(str)
            teams = tag_teams(costing.teams, names.unique())
            table.insert(list(table.columns).index("custom_tag") + 1, "team", names.map(teams))
    return _dated(table) if per_day else table


def shape_pair_export(pairs: pd.DataFrame, group_by: PairGrouping) -> pd.DataFrame:
    """Per-pair totals (biggest first), per pair and day, per pair and key, or the
    pair-key-day rows themselves, from the pair-day frame, or the pair-key-day frame for the
    groupings that read the pair-key-day report; unattributed usage keeps its key `-` (label
    `unknown`) in every grouping with keys."""
    check_choices("language-pairs", group_by, False, Costing())
    grouping = GROUPINGS[group_by]
    table = pair_frame(pairs, by_key=grouping.report == "pair_keys", by_day=grouping.per_day)
    return _dated(table.copy()) if grouping.per_day else table
