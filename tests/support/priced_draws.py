"""A priced organization drawn at random for the money tests: a few keys' usage over a hundred
days from 1 December 2024, a range of it, and prices that change on a drawn day (the monthly fee
doubled, an included volume of text characters from then on), so every property over exports,
Chargeback and FOCUS reads the same drawn worlds."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

import pandas as pd
from hypothesis import strategies as st

from analytics.cost.prices import Pricing, parse_pricing
from support.builders import DOCS, MINUTES, TEXT, key_day_rows, price_from, pricing

ORIGIN = date(2024, 12, 1)
# (key, label, day from ORIGIN, characters, hundredths of a minute): one row per key and day.
usage_rows = st.lists(
    st.tuples(
        st.integers(0, 4),
        st.sampled_from(["web-shop", "web-blog", "ios", "batch", "nightly"]),
        st.integers(0, 100),
        st.integers(0, 2_000_000),
        st.integers(0, 100_000),
    ),
    max_size=12,
    unique_by=lambda r: (r[0], r[2]),
)
first_days = st.integers(0, 100)  # the range's first day from ORIGIN
lengths = st.integers(0, 100)  # and its length in days
change_days = st.integers(1, 100)  # the day the prices change
fees = st.decimals(0, 1000, places=2)
included = st.integers(0, 3_000_000)


def masked_key(key: int) -> str:
    return f"k{key:03d}****z{key:03d}"


@dataclass(frozen=True)
class Drawn:
    """The range, its key-day frame, the prices, and each key's one label."""

    start: date
    end: date
    frame: pd.DataFrame
    prices: Pricing
    label_of: dict[int, str]


def drawn(rows: list, first: int, days: int, change: int, fee: object, volume: int) -> Drawn:
    """The world the drawn values describe (each key keeps its first label, as the contract
    gives a key one label)."""
    start, end = ORIGIN + timedelta(days=first), ORIGIN + timedelta(days=first + days)
    label_of = {key: label for key, label, *_ in rows}
    frame = key_day_rows(
        (
            ORIGIN + timedelta(days=day),
            masked_key(key),
            label_of[key],
            {TEXT: chars, DOCS: chars // 3, MINUTES: hundredths / 100},
        )
        for key, _, day, chars, hundredths in rows
        if first <= day <= first + days
    )
    prices = parse_pricing(
        pricing(
            price_from("2024-11-01", f"monthly_fee = {fee}"),
            price_from(
                str(ORIGIN + timedelta(days=change)),
                f"monthly_fee = {fee * 2}",  # type: ignore[operator]
                f"included_per_month = {{ {TEXT} = {volume} }}",
            ),
        )
    )
    return Drawn(start, end, frame, prices, label_of)
