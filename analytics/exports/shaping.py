"""The rows of an export, from the key-day, tag-day or pair-day frame: one grouping, one table.

With a pricing file, any grouping can carry its cost (``Costing``): ``usage_cost_<currency>``,
the row's share of the organization's usage lines, and for the groupings that can carry the
base fee (per team, over the range, and the one row of range totals) ``base_fee_<currency>``
and ``cost_<currency>``, their sum. The base fee is shared between teams, never between keys
or days, so the key and day groupings carry usage cost only. Amounts are exact decimals from
the money layer's minor units; each cost column adds up to the organization's.

Days without a price are not priced (``Spend.unpriced``): a row of such a day has empty cost
cells, a row over the range has the cost of its priced days (empty when no day has a price),
and ``unpriced_warning`` says which days, so the file is still written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import numpy as np
import numpy.typing as npt
import pandas as pd

from analytics.cost.chargeback import chargeback
from analytics.cost.money import as_decimals
from analytics.cost.prices import Pricing
from analytics.cost.spend import Spend, price_usage
from analytics.cost.teams import Teams, assign_keys, tag_teams, team_day
from analytics.exports.vocabulary import (
    GROUPINGS,
    SOURCES,
    CostNotOffered,
    ExportSource,
    FileNeeded,
    GroupBy,
    Grouping,
    PairGroupBy,
    TagGroupBy,
    offered,
)
from analytics.usage.frames import key_frame, pair_frame, tag_frame, totals
from analytics.usage.metrics import METRICS


@dataclass(frozen=True)
class Costing:
    """What an export needs to be priced and grouped by team (either may be absent)."""

    pricing: Pricing | None = None
    teams: Teams | None = None


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
    group_by: GroupBy,
    costing: Costing = Costing(),
    with_cost: bool = False,
) -> pd.DataFrame:
    """Key-day rows, per-key totals, per-team totals (every team, then Unassigned), team-day
    rows, or one row of range totals for `start`–`end`; with `with_cost`, their cost.

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
    if with_cost:
        table = _with_cost(table, key_day, start, end, group_by, costing)
    return _dated(table) if "usage_date" in table.columns else table


def _dated(table: pd.DataFrame) -> pd.DataFrame:
    """``usage_date`` as calendar dates: one date object per distinct day, then a take."""
    codes, days = pd.factorize(table["usage_date"])
    table["usage_date"] = pd.DatetimeIndex(days).date[codes]
    return table


def _with_cost(
    table: pd.DataFrame,
    key_day: pd.DataFrame,
    start: date,
    end: date,
    group_by: GroupBy,
    costing: Costing,
) -> pd.DataFrame:
    pricing = costing.pricing
    assert pricing is not None
    currency = pricing.currency
    if group_by == "none":
        spend = price_usage(key_day, pricing, start, end)
        usage = int(spend.organization["amount_minor"].sum())
        fee = int(spend.fees["amount_minor"].sum())
        return _money(table, [usage], [fee], currency, _unpriced_rows(table, spend, False))
    if group_by == "team":
        assert costing.teams is not None
        bill = chargeback(key_day, pricing, costing.teams, start, end)
        per_team = bill.table.groupby("team", observed=False)
        sums = per_team[["usage_amount_minor", "base_fee_minor"]].sum().reindex(table["team"])
        return _money(
            table,
            sums["usage_amount_minor"].tolist(),
            sums["base_fee_minor"].tolist(),
            currency,
            _unpriced_rows(table, bill.spend, False),
        )
    per_day = GROUPINGS[group_by].per_day
    by: str | pd.Series = "api_key"
    if group_by == "team_and_day":
        assert costing.teams is not None
        by = assign_keys(costing.teams, key_day)
    spend = price_usage(key_day, pricing, start, end, by, per="day" if per_day else "month")
    return _usage_cost(table, spend, per_day)


def _usage_cost(table: pd.DataFrame, spend: Spend, per_day: bool) -> pd.DataFrame:
    """``usage_cost_<currency>``: each row's line items, found by the spend's group (the
    table's column of that name) and, ``per_day``, its ``usage_date``."""
    keys = ["usage_date", spend.by] if per_day else [spend.by]
    amounts = spend.items.astype({spend.by: str}).groupby(keys)["amount_minor"].sum()
    rows = [table[k] if k == "usage_date" else table[k].astype(str) for k in keys]
    index = pd.MultiIndex.from_arrays(rows) if per_day else pd.Index(rows[0])
    minor = amounts.reindex(index, fill_value=0).astype("int64").tolist()
    empty = _unpriced_rows(table, spend, per_day)
    table[f"usage_cost_{spend.currency.lower()}"] = _amounts(minor, spend.currency, empty)
    return table


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
    currency: str,
    empty: npt.NDArray[np.bool_],
) -> pd.DataFrame:
    """The three cost columns of the groupings that carry the base fee."""
    suffix = currency.lower()
    table[f"usage_cost_{suffix}"] = _amounts(usage, currency, empty)
    table[f"base_fee_{suffix}"] = _amounts(fee, currency, empty)
    total = [u + f for u, f in zip(usage, fee, strict=True)]
    table[f"cost_{suffix}"] = _amounts(total, currency, empty)
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
    group_by: TagGroupBy,
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


def shape_pair_export(pairs: pd.DataFrame, group_by: PairGroupBy) -> pd.DataFrame:
    """Per-pair totals (biggest first), per pair and day, per pair and key, or the
    pair-key-day rows themselves, from the pair-day frame, or the pair-key-day frame for the
    groupings that read the pair-key-day report; unattributed usage keeps its key `-` (label
    `unknown`) in every grouping with keys."""
    check_choices("language-pairs", group_by, False, Costing())
    grouping = GROUPINGS[group_by]
    table = pair_frame(pairs, by_key=grouping.report == "pair_keys", by_day=grouping.per_day)
    return _dated(table.copy()) if grouping.per_day else table
