"""Chargeback: per team and month, usage and cost that add up to the organization's to the cent.

Unit prices (builders.UNIT_PRICES), in EUR: text translation 20 and document translation 25
per million characters, text improvement 10 per million, speech-to-text 0.03 per minute.
"""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.builders import DOCS, MINUTES, TEAMS, TEXT, key_day_rows, price_from, pricing

from analytics.cost.chargeback import CHARGEBACK_COLUMNS, chargeback
from analytics.cost.prices import parse_pricing
from analytics.cost.teams import UNASSIGNED, TeamSettingsError, parse_teams

PRICES = parse_pricing(
    pricing(
        price_from(
            "2025-01-01",
            "monthly_fee = 100",
            "included_per_month = { text_translation_characters = 1_000_000 }",
        )
    )
)
JAN, FEB = pd.Timestamp(2025, 1, 1), pd.Timestamp(2025, 2, 1)


@pytest.fixture(scope="module")
def january():
    return key_day_rows(
        [
            (date(2025, 1, 3), "aaaa****0001", "web-shop", {TEXT: 1_500_000, MINUTES: 10}),
            (date(2025, 1, 4), "bbbb****0002", "ios", {TEXT: 500_000}),
            (date(2025, 1, 5), "cccc****0003", "batch", {DOCS: 200_000}),
        ]
    )


def row(result, month, team) -> dict:
    table = result.table
    [found] = table[(table["month"] == month) & (table["team"] == team)].to_dict("records")
    return found


def test_teams_usage_cost_and_base_fee(january):
    result = chargeback(january, PRICES, TEAMS, date(2025, 1, 1), date(2025, 2, 28))
    assert list(result.table.columns) == CHARGEBACK_COLUMNS
    assert result.table["team"].tolist() == ["Web", "Apps", UNASSIGNED] * 2
    # January: 2,000,000 text characters, 1,000,000 included: 20.00 shared 3 : 1.
    # Web also 10 minutes (0.30); the unassigned batch key 200,000 document characters (5.00).
    # The 100.00 fee, pro rata to usage at list prices 30.30 : 10.00 : 5.00, is 66.887…,
    # 22.075… and 11.037…: floors 66.88, 22.07, 11.03 and the two missing cents to the
    # largest remainders (Unassigned .753, Web .741).
    web, apps, unassigned = (row(result, JAN, team) for team in ("Web", "Apps", UNASSIGNED))
    assert (web[TEXT], web[MINUTES], web["total_characters"]) == (1_500_000, 10.0, 1_500_000)
    assert (web["usage_amount_minor"], web["base_fee_minor"], web["amount_minor"]) == (
        1530,
        6689,
        8219,
    )
    assert (apps["usage_amount_minor"], apps["base_fee_minor"], apps["amount_minor"]) == (
        500,
        2207,
        2707,
    )
    assert (unassigned[DOCS], unassigned["usage_amount_minor"], unassigned["base_fee_minor"]) == (
        200_000,
        500,
        1104,
    )
    # February has no usage: its fee is Unassigned.
    assert row(result, FEB, UNASSIGNED)["base_fee_minor"] == 10000
    assert row(result, FEB, "Web")["amount_minor"] == 0
    assert result.total["amount_minor"].tolist() == [12530, 10000]
    assert result.total["total_characters"].tolist() == [2_200_000, 0]
    assert result.total_amount == Decimal("225.30")


def test_teams_add_up_to_the_organization_to_the_cent(january):
    result = chargeback(january, PRICES, TEAMS, date(2025, 1, 1), date(2025, 2, 28))
    by_month = result.table.groupby("month")[
        ["usage_amount_minor", "base_fee_minor", "amount_minor", TEXT, DOCS, MINUTES]
    ].sum()
    pd.testing.assert_frame_equal(
        by_month.reset_index(), result.total[by_month.reset_index().columns], check_dtype=False
    )
    assert result.total_minor == result.spend.total_minor


def test_a_team_whose_usage_is_included_still_shares_the_fee():
    frame = key_day_rows(
        [
            (date(2025, 1, 3), "aaaa****0001", "web-shop", {TEXT: 300_000}),
            (date(2025, 1, 3), "bbbb****0002", "ios", {TEXT: 100_000}),
        ]
    )
    result = chargeback(frame, PRICES, TEAMS, date(2025, 1, 1), date(2025, 1, 31))
    # 400,000 characters, all included; the 100.00 fee goes 3 : 1.
    assert result.table["usage_amount_minor"].tolist() == [0, 0, 0]
    assert result.table["base_fee_minor"].tolist() == [7500, 2500, 0]


def test_a_key_two_teams_claim_stops_the_chargeback(january):
    overlapping = parse_teams(
        '[[team]]\nname = "Web"\nlabel_patterns = ["web-*"]\n'
        '[[team]]\nname = "Shop"\nkeys = ["aaaa****0001"]\n'
    )
    with pytest.raises(
        TeamSettingsError, match=r"key aaaa\*\*\*\*0001 \(label 'web-shop'\) matches"
    ):
        chargeback(january, PRICES, overlapping, date(2025, 1, 1), date(2025, 1, 31))


labels = st.sampled_from(["web-shop", "web-blog", "ios", "batch", "nightly"])
usage = st.lists(
    st.tuples(
        st.integers(0, 4),  # key
        labels,
        st.integers(0, 58),  # day of January and February
        st.integers(0, 2_000_000),  # characters
        st.integers(0, 100_000),  # hundredths of a minute
    ),
    max_size=10,
    unique_by=lambda r: (r[0], r[2]),
)


@settings(max_examples=40)
@given(usage, st.decimals(0, 1000, places=2), st.integers(0, 3_000_000))
def test_teams_always_add_up_to_the_organization(rows, fee, included):
    label_of = {key: label for key, label, *_ in rows}  # one label per key, as in the contract
    frame = key_day_rows(
        (
            date(2025, 1, 1) + timedelta(days=day),
            f"k{key:03d}****z{key:03d}",
            label_of[key],
            {TEXT: chars, DOCS: chars // 3, MINUTES: hundredths / 100},
        )
        for key, _, day, chars, hundredths in rows
    )
    prices = parse_pricing(
        pricing(
            price_from(
                "2025-01-01",
                f"monthly_fee = {fee}",
                f"included_per_month = {{ {TEXT} = {included} }}",
            )
        )
    )
    result = chargeback(frame, prices, TEAMS, date(2025, 1, 1), date(2025, 2, 28))
    sums = result.table.groupby("month")[["usage_amount_minor", "base_fee_minor"]].sum()
    assert sums["usage_amount_minor"].tolist() == result.total["usage_amount_minor"].tolist()
    assert sums["base_fee_minor"].tolist() == [int(fee * 100)] * 2
    assert result.total_minor == int(result.table["amount_minor"].sum())
    assert result.total_minor == result.spend.total_minor
    assert (result.table["amount_minor"] >= 0).all()
