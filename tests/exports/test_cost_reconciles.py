"""An export with cost adds up to the Chargeback of the same range to the cent, over ranges
that cut months and price changes: by team and day, each team's usage cost and base fee share
of each month; by key and day, each team's base fee share; by key and day or by key, the
organization's total cost."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pandas as pd
from hypothesis import given, settings
from support.builders import (
    TEAMS,
    demo_usage,
)
from support.priced_draws import (
    change_days,
    drawn,
    fees,
    first_days,
    included,
    lengths,
    masked_key,
    usage_rows,
)
from support.servers import ROOT

from analytics.cost.chargeback import chargeback
from analytics.cost.prices import Pricing, load_pricing
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


@settings(max_examples=40, deadline=None)
@given(usage_rows, first_days, lengths, change_days, fees, included)
def test_exports_always_reconcile_with_the_chargeback(rows, first, days, change, fee, volume):
    world = drawn(rows, first, days, change, fee, volume)
    team_of_key = {
        masked_key(key): TEAM_OF_LABEL.get(label, "Unassigned")
        for key, label in world.label_of.items()
    }
    assert_reconciles(world.frame, world.prices, TEAMS, world.start, world.end, team_of_key)
