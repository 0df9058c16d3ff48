"""An export with cost adds up to the Chargeback of the same range to the cent, over ranges
that cut months and price changes: by team and day, each team's usage cost and base fee share
of each month; by key and day, each team's base fee share; by key and day or by key, the
organization's total cost."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from support.builders import (
    DOCS,
    MINUTES,
    TEAMS,
    TEXT,
    demo_usage,
    key_day_rows,
    price_from,
    pricing,
)
from support.servers import ROOT

from analytics.cost.chargeback import chargeback
from analytics.cost.prices import Pricing, load_pricing, parse_pricing
from analytics.cost.teams import Teams, key_teams, load_teams
from analytics.exports.shaping import Costing, shape_export
from analytics.usage.frames import labels, within

TEAM_OF_LABEL = {"web-shop": "Web", "web-blog": "Web", "ios": "Apps"}  # the rest: Unassigned
AMOUNTS = {"usage_cost_eur": "usage_amount_minor", "base_fee_share_eur": "base_fee_minor"}


def in_cents(column: pd.Series) -> pd.Series:
    return column.map(lambda amount: int(Decimal(amount) * 100))


def nonzero(table: pd.DataFrame) -> dict[tuple, tuple[int, int]]:
    """Usage cost and base fee share (cents) per month and team, where either is not 0."""
    return {
        (pd.Timestamp(month), str(team)): (int(usage), int(fee))
        for (month, team), usage, fee in table[list(AMOUNTS.values())].itertuples()
        if usage or fee
    }


def per_team_and_month(table: pd.DataFrame, team: pd.Series) -> dict[tuple, tuple[int, int]]:
    """An export's two cost columns in cents, summed per team and month."""
    month = pd.DatetimeIndex(table["usage_date"]).to_period("M").to_timestamp()
    cents = pd.DataFrame({AMOUNTS[c]: in_cents(table[c]) for c in AMOUNTS})
    return nonzero(cents.groupby([month.rename("month"), team.astype(str).rename("team")]).sum())


def assert_reconciles(
    frame: pd.DataFrame,
    prices: Pricing,
    teams: Teams,
    start: date,
    end: date,
    team_of_key: dict[str, str],
) -> None:
    """The day exports per team and month, and the key export per team, are Chargeback's."""
    bill = chargeback(frame, prices, teams, start, end)
    expected = nonzero(bill.table.set_index(["month", "team"]))
    costing = Costing(prices, teams)

    by_team = shape_export(frame, start, end, "team_and_day", costing, with_cost=True)
    assert per_team_and_month(by_team, by_team["team"]) == expected
    by_key = shape_export(frame, start, end, "key_and_day", costing, with_cost=True)
    # A key's usage cost is its share of the organization's lines, as a team's is, so only
    # the organization's adds up; the base fee reaches a key through its team's share.
    team = by_key["api_key"].map(lambda key: team_of_key.get(key, "Unassigned"))
    fee_shares = {slot: fee for slot, (_, fee) in expected.items() if fee}
    assert {
        slot: fee for slot, (_, fee) in per_team_and_month(by_key, team).items() if fee
    } == fee_shares
    keys = shape_export(frame, start, end, "key", costing, with_cost=True)
    assert in_cents(keys["total_cost_eur"]).sum() == bill.total_minor
    assert in_cents(by_key["total_cost_eur"]).sum() == bill.total_minor


def test_the_demo_organizations_exports_reconcile_with_its_chargeback():
    # Over a month's end and the example pricing's change of contract on 1 January 2026.
    start, end = date(2025, 12, 17), date(2026, 2, 9)
    frame = within(demo_usage().frame, start, end)
    teams = load_teams(ROOT / "teams.example.toml")
    prices = load_pricing(ROOT / "pricing.example.toml")
    assert_reconciles(frame, prices, teams, start, end, key_teams(teams, labels(frame)))


usage = st.lists(
    st.tuples(
        st.integers(0, 4),  # key
        st.sampled_from(["web-shop", "web-blog", "ios", "batch", "nightly"]),
        st.integers(0, 100),  # day from 1 December 2024
        st.integers(0, 2_000_000),  # characters
        st.integers(0, 100_000),  # hundredths of a minute
    ),
    max_size=12,
    unique_by=lambda r: (r[0], r[2]),
)


@settings(max_examples=40, deadline=None)
@given(
    usage,
    st.integers(0, 100),  # the range's first day from 1 December 2024
    st.integers(0, 100),  # its length
    st.integers(1, 100),  # the price change's day
    st.decimals(0, 1000, places=2),
    st.integers(0, 3_000_000),
)
def test_exports_always_reconcile_with_the_chargeback(rows, first, days, change, fee, included):
    origin = date(2024, 12, 1)
    start, end = origin + timedelta(days=first), origin + timedelta(days=first + days)
    label_of = {key: label for key, label, *_ in rows}  # one label per key, as in the contract
    frame = key_day_rows(
        (
            origin + timedelta(days=day),
            f"k{key:03d}****z{key:03d}",
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
                str(origin + timedelta(days=change)),
                f"monthly_fee = {fee * 2}",
                f"included_per_month = {{ {TEXT} = {included} }}",
            ),
        )
    )
    team_of_key = {
        f"k{key:03d}****z{key:03d}": TEAM_OF_LABEL.get(label, "Unassigned")
        for key, label in label_of.items()
    }
    assert_reconciles(frame, prices, TEAMS, start, end, team_of_key)
