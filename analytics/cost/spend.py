"""Spend: usage priced into line items, exactly and in one pass over the frame.

The **organization's lines** come first (`lines`): one per month, metric and unit price, the
included volume taken off and the base fee a line of its own. Then each line is shared out
between the groups (keys, teams, tags) as **line items** per month (or day, ``per="day"``) and
metric.

* Usage is counted in whole units: characters, and speech minutes as micro-minutes
  (each row's float rounded to 6 decimals, the precision the service reports; the same as
  ``Decimal(str(minutes))`` for every such value), so all sums are exact integers.
* Each day is priced with the price period in force that day (``Pricing``). Days before the
  first period are not priced: their usage is left out and ``Spend.unpriced`` names them, so
  every consumer prices what it can and says what it could not.
* A line is rounded once, half up, to the currency's minor unit (`lines`). The groups' items are
  apportioned from it by largest remainder, pro rata to their usage, so they add up to it
  exactly; an item can differ from its exact share by less than one minor unit (a group's
  month that spans a price change sums its shares of both lines). With ``per="day"`` each
  group's part of a line is then shared between its days the same way, so a group's day
  items add up to its month item: a key's or team's cost is one number, by day or by month.
* A month only partly inside the range carries its days' share of the included volume and of
  the base fee (``Spend.fees``), as `lines` says.

Frames that hold only part of the organization's usage (tag-day frames: untagged usage is not
in them) are priced ``at_list_prices``: no included volume (it is the whole organization's)
and no base fee.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Literal

import numpy as np
import pandas as pd

from analytics.cost.lines import Cells, Lines, cells_of, fee_frame, in_metric_units
from analytics.cost.money import Ints, apportion, as_decimal, scaled_half_up
from analytics.cost.prices import PRICED_METRICS, UNITS_PER_PRICE, Pricing, Unpriced
from analytics.usage import DATE_DTYPE, Metric, is_minutes, range_text

Per = Literal["month", "day"]


@dataclass(frozen=True)
class Spend:
    """The priced usage of a range; amounts are integers in the currency's minor unit.

    ``items``: the line items, one row per month (and ``usage_date`` with ``per="day"``),
    group and metric with usage: ``usage`` (characters or minutes), ``list_amount_minor`` (at
    list prices, before the included volume) and ``amount_minor`` (charged).
    ``organization``: the organization's lines, one per month, metric and ``unit_price`` in
    force, with the usage the ``included`` volume covered. ``fees``: the base fee per month
    (none ``at_list_prices``). All three cover the priced days only: ``unpriced`` names the
    range's days without a price (None: every day has one); a month without priced days has
    no lines and no fee.
    """

    currency: str
    start: date
    end: date
    by: str
    items: pd.DataFrame
    organization: pd.DataFrame
    fees: pd.DataFrame
    unpriced: Unpriced | None = None

    @property
    def priced(self) -> bool:
        """Whether any day of the range has a price."""
        return self.unpriced is None or self.unpriced.last < self.end

    @property
    def total_minor(self) -> int:
        """Usage and base fees of the whole range."""
        return int(self.organization["amount_minor"].sum()) + int(self.fees["amount_minor"].sum())

    @property
    def total(self) -> Decimal:
        return as_decimal(self.total_minor, self.currency)


def _group_codes(groups: pd.Series) -> tuple[Ints, pd.Index]:
    """Integer codes of the groups and the names they point to (a categorical's order kept)."""
    if isinstance(groups.dtype, pd.CategoricalDtype):
        codes = groups.cat.codes.to_numpy().astype(np.int64)
        names = groups.cat.categories
    else:
        factorized, names = pd.factorize(groups, sort=True)
        codes = factorized.astype(np.int64)
    if len(codes) and codes.min() < 0:
        raise ValueError(f"rows without a {groups.name}: every row must belong to a group")
    return codes, pd.Index(names)


def _units(values: pd.Series, metric: str) -> Ints:
    """Usage in whole units: characters as they are, minutes as micro-minutes."""
    if is_minutes(metric):
        minutes = values.to_numpy(np.float64)
        if not np.isfinite(minutes).all():
            raise ValueError(f"{metric} has values that are not numbers")
        units: Ints = np.rint(minutes * UNITS_PER_PRICE).astype(np.int64)
    else:
        units = values.to_numpy(np.int64)
    if len(units) and units.min() < 0:
        raise ValueError(f"{metric} has negative usage")
    return units


@dataclass(frozen=True)
class _Rows:
    """Usage in long form: one row per group, cell (or day) and metric with usage."""

    metric: Ints  # index into the priced metrics
    group: Ints
    slot: Ints  # the cell, or the day from the range's start
    cell: Ints
    units: Ints


def _sums(bin_of_row: Ints, bins: int, values: Ints) -> Ints:
    """Per-bin sums of values ≥ 0, exact: a float64 ``bincount`` is exact while every partial
    sum is an integer below 2**53, which ``max × rows`` bounds; int64 ``add.at`` beyond."""
    if int(values.max(initial=0)) * len(values) < 2**53:
        sums: Ints = np.bincount(bin_of_row, weights=values, minlength=bins).astype(np.int64)
        return sums
    sums = np.zeros(bins, dtype=np.int64)
    np.add.at(sums, bin_of_row, values)
    return sums


def _rows(
    frame: pd.DataFrame,
    metrics: list[Metric],
    codes: Ints,
    groups: int,
    cells: Cells,
    per: Per,
) -> _Rows:
    """The frame summed once per group and cell (or day), in whole units."""
    dates = frame["usage_date"].to_numpy("datetime64[D]")
    days = (dates - np.datetime64(cells.start, "D")).astype(np.int64)
    day_cell = np.repeat(np.arange(len(cells.days)), cells.days)
    if per == "day":
        slots, slot_cell, slot = len(day_cell), day_cell, days
    else:
        slots, slot_cell, slot = len(cells.days), np.arange(len(cells.days)), day_cell[days]
    key = codes * slots + slot
    if groups * slots > max(4 * len(key), 2**16):  # sparse: number the keys that occur
        bin_of_row, occurring = pd.factorize(key)
        key_of_bin = np.asarray(occurring, dtype=np.int64)
    else:
        bin_of_row, key_of_bin = key, np.arange(groups * slots)
    summed = np.column_stack(
        [_sums(bin_of_row, len(key_of_bin), _units(frame[m], m)) for m in metrics]
    )
    used = summed > 0  # bin × metric
    row, metric = np.nonzero(used)
    return _Rows(
        metric=metric.astype(np.int64),
        group=key_of_bin[row] // slots,
        slot=key_of_bin[row] % slots,
        cell=slot_cell[key_of_bin[row] % slots],
        units=summed[used],
    )


def _checked(
    frame: pd.DataFrame, start: date, end: date, by: str | pd.Series
) -> tuple[list[Metric], pd.Series]:
    """The priced metrics the frame has and its rows' groups, once the range, the groups and
    the rows' days are known to fit: a bad input is refused before anything is priced."""
    if end < start:
        raise ValueError(f"the range ends before it starts: {range_text(start, end)}")
    metrics = [metric for metric in PRICED_METRICS if metric in frame.columns]
    if not metrics:
        raise ValueError(f"the frame has none of the priced metrics {', '.join(PRICED_METRICS)}")
    groups = frame[by] if isinstance(by, str) else by
    if groups.name is None:
        raise ValueError("name the series of groups: it becomes the items' column")
    if len(groups) != len(frame):
        raise ValueError(f"{len(groups)} groups for {len(frame)} rows")
    days = frame["usage_date"]
    if len(days) and (days.min() < pd.Timestamp(start) or days.max() > pd.Timestamp(end)):
        raise ValueError(f"the frame has usage outside the range {range_text(start, end)}")
    return metrics, groups


@dataclass(frozen=True)
class _Items:
    """The line items as arrays, one entry an item, before they become the items' frame."""

    group: Ints
    metric: Ints  # index into the priced metrics
    out: Ints  # the month, or (``per="day"``) the day from the range's start
    month: Ints
    units: Ints
    list_amount: Ints
    amount: Ints

    def by_month(self) -> _Items:
        """One item per group, month and metric: a month that spans a price change has an
        item per price until here, and the month's item is their sum."""
        merged = (
            pd.DataFrame({"units": self.units, "list": self.list_amount, "amount": self.amount})
            .groupby([self.group, self.month, self.metric])
            .sum()
        )
        group, month, metric = (merged.index.get_level_values(i).to_numpy() for i in range(3))
        return _Items(
            group=group,
            metric=metric,
            out=month,
            month=month,
            units=merged["units"].to_numpy(),
            list_amount=merged["list"].to_numpy(),
            amount=merged["amount"].to_numpy(),
        )

    def frame(
        self, cells: Cells, per: Per, groups: tuple[str, pd.Index], metrics: list[Metric]
    ) -> pd.DataFrame:
        """The items' frame (`Spend.items`), in the order of their month (or day), group and
        metric; ``groups``: the column's name and the names the group codes point to."""
        name, names = groups
        months = np.array(cells.months, dtype="datetime64[D]").astype(DATE_DTYPE)
        order = np.lexsort((self.metric, self.group, self.out))
        items: dict[str, object] = {"month": months[self.month[order]]}
        if per == "day":
            day = np.datetime64(cells.start, "D") + self.out[order]
            items["usage_date"] = day.astype(DATE_DTYPE)
        items[name] = pd.Categorical.from_codes(self.group[order], categories=names)
        items |= {
            "metric": pd.Categorical.from_codes(self.metric[order], categories=pd.Index(metrics)),
            "usage": in_metric_units(self.units[order], self.metric[order], metrics),
            "list_amount_minor": self.list_amount[order],
            "amount_minor": self.amount[order],
        }
        return pd.DataFrame(items)


def price_usage(
    frame: pd.DataFrame,
    pricing: Pricing,
    start: date,
    end: date,
    by: str | pd.Series = "api_key",
    *,
    per: Per = "month",
    at_list_prices: bool = False,
) -> Spend:
    """Price the usage of ``start``–``end`` (inclusive) per group, month and metric.

    ``by`` is a column of ``frame`` or a series aligned with its rows (a team per row);
    every priced metric the frame has a column of is priced (a tag-day frame has two). Rows
    must lie in the range; those of days without a price are left out (``Spend.unpriced``).
    """
    metrics, groups = _checked(frame, start, end, by)
    name = str(groups.name)
    unpriced = pricing.unpriced(start, end)
    if unpriced is not None:
        priced = (frame["usage_date"] > pd.Timestamp(unpriced.last)).to_numpy()
        frame, groups = frame.loc[priced], groups.loc[priced]
    cells = cells_of(pricing, pricing.priced_from(start), end)
    codes, names = _group_codes(groups)
    rows = _rows(frame, metrics, codes, len(names), cells, per)
    line = rows.cell * len(metrics) + rows.metric
    lines = Lines.of(line, rows.units, pricing, cells, metrics, at_list_prices)

    price = lines.price[line]
    # Per month a row is already one group's part of one line: shared out once.
    if per == "day":
        amount = _shared(lines.charged, line, rows.group, rows.units)
    else:
        amount = apportion(lines.charged, line, rows.units)
    list_amount = scaled_half_up(rows.units, price, lines.denominator)
    month = cells.month[rows.cell]
    out = rows.slot if per == "day" else month
    items = _Items(rows.group, rows.metric, out, month, rows.units, list_amount, amount)
    if per == "month" and len(cells.days) > len(cells.months):  # months with a price change
        items = items.by_month()
    fees = fee_frame(pricing, cells)
    return Spend(
        currency=pricing.currency,
        start=start,
        end=end,
        by=name,
        items=items.frame(cells, per, (name, names), metrics),
        organization=lines.frame(pricing, cells, metrics),
        fees=fees.iloc[:0] if at_list_prices else fees,
        unpriced=unpriced,
    )


def _shared(charged: list[int], line: Ints, group: Ints, units: Ints) -> Ints:
    """Each line shared out between its groups pro rata to usage, then each group's part
    between the group's rows (its days, with ``per="day"``): a group's day items so add up
    to its month item exactly, and a key's or team's amount over a range is the same on
    every page, export and report, whether priced per day or per month."""
    part, group_line = pd.factorize(group * len(charged) + line)
    codes = np.asarray(part, dtype=np.int64)
    of_line = np.asarray(group_line, dtype=np.int64) % len(charged)
    parts = apportion(charged, of_line, _sums(codes, len(group_line), units))
    return apportion(parts.tolist(), codes, units)


def base_fees(pricing: Pricing, start: date, end: date) -> pd.DataFrame:
    """The base fee of each month of ``start``–``end`` with priced days (``Spend.fees``),
    without pricing any usage."""
    return fee_frame(pricing, cells_of(pricing, pricing.priced_from(start), end))


def daily_cost(
    frame: pd.DataFrame, pricing: Pricing, start: date, end: date, keys: tuple[str, ...] = ()
) -> pd.Series:
    """The cost per day of ``start``–``end`` in currency units (float, for budgets and charts):
    of the masked ``keys``' items, or of the organization with each month's base fee spread
    evenly over the range's priced days of that month when no keys are given. A day without a
    price costs 0 here: ``Pricing.unpriced`` names such days for the caller to say so."""
    spend = price_usage(frame, pricing, start, end, per="day")
    items = spend.items
    if keys:
        items = items[items["api_key"].isin(list(keys))]
    days = pd.date_range(pd.Timestamp(start), pd.Timestamp(end), freq="D")
    minor = items.groupby("usage_date")["amount_minor"].sum().reindex(days, fill_value=0)
    per_day = minor.to_numpy(np.float64)
    if not keys:
        priced = days >= pd.Timestamp(pricing.priced_from(start))
        month = days.to_period("M")
        fee = spend.fees.set_index(pd.DatetimeIndex(spend.fees["month"]).to_period("M"))
        priced_days = pd.Series(month[priced]).value_counts()
        share = fee["amount_minor"].reindex(month, fill_value=0).to_numpy(
            np.float64
        ) / priced_days.reindex(month, fill_value=1).to_numpy(np.float64)
        per_day = per_day + np.where(priced, share, 0.0)
    return pd.Series(per_day / 10**pricing.minor_unit, index=days, name="cost")
