"""Exact money: amounts are integers in the currency's minor unit (cents; yen for JPY).

Every amount is computed exactly (integers and fractions, never binary floats) and rounded
once, half up, to the minor unit. Where one rounded amount is shared out (an organization's
line between keys or teams, a base fee between teams) the parts are apportioned by largest
remainder, so that they add up to the whole exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from analytics.cost.currencies import MINOR_UNITS

Ints = npt.NDArray[np.int64]
# Products of usage, prices and amounts stay int64 while a bound proves that they (doubled,
# plus a denominator) fit, and become Python integers, exact at any size, otherwise.
_PRODUCT_LIMIT = 2**61


def round_half_up(value: Fraction) -> int:
    """The nearest integer; halves away from zero (2.5 → 3, -2.5 → -3)."""
    magnitude = (2 * abs(value.numerator) + value.denominator) // (2 * value.denominator)
    return magnitude if value >= 0 else -magnitude


def as_decimal(minor: int, currency: str) -> Decimal:
    """An amount in minor units as a Decimal with the currency's decimals (1234 EUR → 12.34)."""
    return Decimal(int(minor)).scaleb(-MINOR_UNITS[currency])


def as_decimals(
    minor: Sequence[int] | npt.NDArray[np.int64], currency: str
) -> npt.NDArray[np.object_]:
    """Amounts in minor units as a column of exact Decimals (written as 12.34 in files and
    shown so on pages, never as a binary float). Each distinct amount is made once: a column
    of a million rows holds far fewer distinct amounts, and a Decimal is immutable."""
    values = np.asarray(minor)
    if values.dtype.kind not in "iu":  # Python integers beyond int64 (or no amounts)
        return np.array([as_decimal(int(amount), currency) for amount in values], dtype=object)
    distinct, where = np.unique(values, return_inverse=True)
    decimals = np.array([as_decimal(int(amount), currency) for amount in distinct], dtype=object)
    return decimals[where.reshape(-1)]


def as_decimal_array(minor: Ints, currency: str) -> pa.Array:
    """Amounts in minor units as an Arrow column of exact decimals (38 digits, the
    currency's decimals): the values of `as_decimals` without a Python object per amount, so
    a file of millions of rows is written from it as it is. Each amount is its 128-bit
    unscaled integer: the int64 and its sign as the high word (Arrow's little-endian
    two's complement)."""
    values = np.ascontiguousarray(minor, dtype=np.int64)
    words = np.empty((len(values), 2), dtype="<i8")
    words[:, 0], words[:, 1] = values, values >> 63
    kind = pa.decimal128(38, MINOR_UNITS[currency])
    return pa.Array.from_buffers(kind, len(values), [None, pa.py_buffer(words)])


def amount_text(minor: int, currency: str) -> str:
    """An amount as people read it: ``1,234.56 EUR`` (``1,235 JPY``)."""
    return f"{as_decimal(minor, currency):,} {currency}"


def estimate_text(value: float, currency: str) -> str:
    """An estimate in currency units (a forecast's or a recommendation's, a float) as
    ``amount_text`` writes an amount: rounded to the minor unit, the currency named; "N/A"
    for none. The page, the report and the command line write estimates with it alike."""
    if value != value:  # NaN
        return "N/A"
    return amount_text(round(value * 10 ** MINOR_UNITS[currency]), currency)


def _products(left: Ints, right: Ints) -> npt.NDArray[np.int64] | npt.NDArray[np.object_]:
    """``left * right`` element-wise (both ≥ 0), exact: int64 when it fits, else Python ints."""
    bound = max(int(left.max(initial=0)), 1) * max(int(right.max(initial=0)), 1)
    if bound < _PRODUCT_LIMIT:
        return left * right
    products: npt.NDArray[np.object_] = left.astype(object) * right.astype(object)
    return products


def scaled_half_up(units: Ints, prices: Ints, denominator: int) -> Ints:
    """``units * prices / denominator`` per element, rounded half up (all ≥ 0)."""
    return ((2 * _products(units, prices) + denominator) // (2 * denominator)).astype(np.int64)


def apportion(wholes: Sequence[int], shares_of: Ints, weights: Ints) -> Ints:
    """Share each whole between the rows that belong to it, pro rata to their weights.

    ``wholes[i]`` is an amount in minor units, ``shares_of[row]`` the whole a row belongs to
    and ``weights[row]`` its weight (≥ 0; a whole's weights must add up within int64). Each
    row gets the floor of its exact quota; the units still missing go one each to the rows
    with the largest remainders (ties: the earlier row). A whole whose rows all weigh 0 must
    be 0.
    """
    count = len(shares_of)
    result = np.zeros(count, dtype=np.int64)
    if not count:
        return result
    order = np.argsort(shares_of, kind="stable")
    of = shares_of[order]
    starts = np.flatnonzero(np.r_[True, of[1:] != of[:-1]])
    sizes = np.diff(np.r_[starts, count])
    weight = weights[order]
    total_weight = np.add.reduceat(weight, starts)
    whole = np.array([wholes[i] for i in of[starts]], dtype=np.int64)
    if ((total_weight == 0) & (whole != 0)).any():
        raise ValueError("a non-zero amount cannot be shared between rows that all weigh 0")
    divisor = np.repeat(np.where(total_weight == 0, 1, total_weight), sizes)
    exact = _products(np.repeat(whole, sizes), weight)
    floor = (exact // divisor).astype(np.int64)
    remainder = exact % divisor
    missing = whole - np.add.reduceat(floor, starts)
    # lexsort is stable: equal remainders keep the rows' order.
    by_remainder = np.lexsort((-remainder.astype(np.int64), of))  # below the divisor: int64
    place = np.arange(count) - np.repeat(starts, sizes)  # rank within the whole, once sorted
    bonus = np.zeros(count, dtype=np.int64)
    bonus[by_remainder] = place < np.repeat(missing, sizes)
    result[order] = floor + bonus
    return result
