"""The organization's lines: what a range of usage costs before it is shared out.

The range is cut where a month starts or a price period does (`Cells`); each cut has one line
per metric at the unit price in force (`Lines`), as an invoice would list them (a month with a
price change has two per metric).

* The **included volume** of a month is the organization's: of the month's usage of a metric,
  the part above it is charged, ``max(0, usage − included) / usage`` of each line's value at
  list price. Every key, day and price of the month so gets the same free share (pro rata to
  usage).
* A line is rounded once, half up, to the currency's minor unit; `spend` shares it out.
* A month only partly inside the range gets the part of its included volume and of its
  ``monthly_fee`` that its covered days carry (each day carries 1/days-in-month); a whole
  month gets exactly the month's. The base fee is its own line per month (`fee_frame`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from fractions import Fraction
from typing import Final

import numpy as np
import numpy.typing as npt
import pandas as pd

from analytics.cost.money import Ints, round_half_up, scaled_half_up
from analytics.cost.prices import PRICED_METRICS, UNITS_PER_PRICE, Pricing
from analytics.usage import DATE_DTYPE, ONE_DAY, Metric, is_minutes, period_bounds

ORGANIZATION_COLUMNS: Final = [
    "month", "metric", "unit_price", "usage", "included", "list_amount_minor", "amount_minor",
]  # fmt: skip
FEE_COLUMNS: Final = ["month", "amount_minor"]


@dataclass(frozen=True)
class Cells:
    """The range cut at month starts and price changes: one month and one price in each."""

    start: date
    days: list[int]
    month: Ints  # index into months
    period: list[int]  # index into Pricing.periods
    months: list[date]
    month_days: list[int]  # days of each calendar month (all of them, not only the range's)


def cells_of(pricing: Pricing, start: date, end: date) -> Cells:
    """Cut the priced range ``start``–``end`` (every day has a price) where a month starts or a
    price period does; none when it is empty (``end`` before ``start``)."""
    if end < start:
        return Cells(start, [], np.zeros(0, dtype=np.int64), [], [], [])
    months, month_days = [], []
    month_start = start.replace(day=1)
    while month_start <= end:
        month_end = period_bounds("month", month_start)[1]
        months.append(month_start)
        month_days.append(month_end.day)
        month_start = month_end + ONE_DAY
    changes = {period.start for period in pricing.periods if start < period.start <= end}
    cuts = sorted({start, *months[1:], *changes})
    lasts = [*(cut - ONE_DAY for cut in cuts[1:]), end]
    return Cells(
        start=start,
        days=[(last - cut).days + 1 for cut, last in zip(cuts, lasts, strict=True)],
        month=np.array([months.index(cut.replace(day=1)) for cut in cuts], dtype=np.int64),
        period=[pricing.period_index(cut) for cut in cuts],
        months=months,
        month_days=month_days,
    )


def _price_scale(pricing: Pricing) -> int:
    """How many decimals past the minor unit the prices have: each price times
    10**(minor unit + scale) is an integer."""
    decimals = [
        -int(period.unit_prices.of(metric).as_tuple().exponent)
        for period in pricing.periods
        for metric in PRICED_METRICS
    ]
    return max(0, max(decimals) - pricing.minor_unit)


@dataclass(frozen=True)
class Lines:
    """The organization's lines, one per cell and metric (index ``cell * metrics + metric``)."""

    units: Ints
    price: Ints  # in 1/denominator minor units per unit
    denominator: int
    charged_share: list[Fraction]
    charged: list[int]  # minor units, rounded once

    @classmethod
    def of(
        cls,
        line: Ints,
        units_used: Ints,
        pricing: Pricing,
        cells: Cells,
        metrics: list[Metric],
        at_list_prices: bool,
    ) -> Lines:
        """The lines of usage rows: each row's `line` and its usage in whole units."""
        scale = _price_scale(pricing)
        denominator = UNITS_PER_PRICE * 10**scale
        price = np.array(
            [
                int(pricing.periods[p].unit_prices.of(metric).scaleb(pricing.minor_unit + scale))
                for p in cells.period
                for metric in metrics
            ],
            dtype=np.int64,
        )
        units = np.zeros(len(price), dtype=np.int64)
        np.add.at(units, line, units_used)
        # The included volume is the month's: every line of a month is charged the same share.
        month_units = np.zeros((len(cells.months), len(metrics)), dtype=np.int64)
        np.add.at(month_units, cells.month, units.reshape(len(cells.days), len(metrics)))
        included = _included(pricing, cells, metrics, at_list_prices)
        month_share = [
            [
                _charged_share(int(month_units[month, j]), included[month][j])
                for j in range(len(metrics))
            ]
            for month in range(len(cells.months))
        ]
        charged_share = [
            month_share[month][j] for month in cells.month for j in range(len(metrics))
        ]
        charged = [
            round_half_up(Fraction(int(u) * int(p), denominator) * share)
            for u, p, share in zip(units, price, charged_share, strict=True)
        ]
        return cls(units, price, denominator, charged_share, charged)

    def frame(self, pricing: Pricing, cells: Cells, metrics: list[Metric]) -> pd.DataFrame:
        """The lines as rows, as an invoice would list them; ``included`` is the usage the
        included volume covered."""
        months = np.array(cells.months, dtype="datetime64[D]").astype(DATE_DTYPE)
        metric = np.tile(np.arange(len(metrics)), len(cells.days))
        period = np.repeat(cells.period, len(metrics))
        usage = in_metric_units(self.units, metric, metrics)
        return pd.DataFrame(
            {
                "month": np.repeat(months[cells.month], len(metrics)),
                "metric": pd.Categorical.from_codes(metric, categories=pd.Index(metrics)),
                "unit_price": [
                    pricing.periods[p].unit_prices.of(metrics[m])
                    for p, m in zip(period, metric, strict=True)
                ],
                "usage": usage,
                "included": usage * np.array([float(1 - f) for f in self.charged_share]),
                "list_amount_minor": scaled_half_up(self.units, self.price, self.denominator),
                "amount_minor": np.array(self.charged, dtype=np.int64),
            },
            columns=ORGANIZATION_COLUMNS,
        )


def in_metric_units(units: Ints, metric: Ints, metrics: list[Metric]) -> npt.NDArray[np.float64]:
    """Counted units back in each metric's own unit (minutes for speech)."""
    minutes = np.array([is_minutes(m) for m in metrics], dtype=bool)[metric]
    return np.where(minutes, units / UNITS_PER_PRICE, units.astype(np.float64))


def _charged_share(usage: int, included: Fraction) -> Fraction:
    """The part of a month's usage above its included volume (all of it when none is)."""
    return max(usage - included, Fraction(0)) / usage if usage else Fraction(1)


def _included(
    pricing: Pricing, cells: Cells, metrics: list[Metric], at_list_prices: bool
) -> list[list[Fraction]]:
    """The included volume (whole units) that the range's days of each month carry, per
    month and metric; none at list prices."""
    carried = [[Fraction(0)] * len(metrics) for _ in cells.months]
    if at_list_prices:
        return carried
    for p, days, m in zip(cells.period, cells.days, cells.month, strict=True):
        allowance = pricing.periods[p].included_per_month
        for j, metric in enumerate(metrics):
            carried[m][j] += Fraction(allowance.units(metric) * days, cells.month_days[m])
    return carried


def fee_frame(pricing: Pricing, cells: Cells) -> pd.DataFrame:
    """The base fee per month in minor units (``FEE_COLUMNS``): each day carries
    1/days-in-month of its fee."""
    fee = [Fraction(0)] * len(cells.months)
    for p, days, m in zip(cells.period, cells.days, cells.month, strict=True):
        monthly = Fraction(pricing.periods[p].monthly_fee.scaleb(pricing.minor_unit))
        fee[m] += monthly * days / cells.month_days[m]
    months = np.array(cells.months, dtype="datetime64[D]").astype(DATE_DTYPE)
    amounts = [round_half_up(amount) for amount in fee]
    return pd.DataFrame({"month": months, "amount_minor": amounts}, columns=FEE_COLUMNS)
