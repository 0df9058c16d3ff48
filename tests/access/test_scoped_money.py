"""A scope's money is the organization's Chargeback rows of its teams and nothing else.

Random organizations (keys with random usage over days of one month), random teams settings
(each team claiming a random subset of the keys by label), random prices (a base fee and an
included volume) and random scopes. The oracles are the test's own: the organization's cost
computed by hand from the rows drawn (each metric's month above the included volume at its
unit price, rounded half up once, plus the month's fee), and each team's keys as drawn."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from support.builders import key_day_rows, price_from, pricing

from analytics.access import WHOLE_ORGANIZATION, Scope, ScopedMoney, Visible
from analytics.cost.chargeback import TOTAL, chargeback, team_spend
from analytics.cost.prices import parse_pricing
from analytics.cost.teams import UNASSIGNED, parse_teams

MONTH = (date(2025, 3, 1), date(2025, 3, 31))  # the range: one whole month
KEYS = [f"k{i:03d}****{i:04d}" for i in range(6)]
TEAM_NAMES = ["Web shop", "Apps", "Data"]
TEXT, MINUTES = "text_translation_characters", "speech_to_text_minutes"
# Per million characters and per minute: 20.00 EUR text, 0.03 EUR a speech-to-text minute.
PRICE = {TEXT: Decimal(20) / 1_000_000, MINUTES: Decimal("0.03")}


@st.composite
def organizations(draw: st.DrawFn) -> dict:
    """Usage rows, the team of each key (None: no team), the fee and the included volume."""
    rows = draw(
        st.lists(
            st.tuples(
                st.integers(0, 30),  # the day of March
                st.integers(0, len(KEYS) - 1),
                st.integers(0, 3_000_000),  # text characters
                st.integers(0, 4_000).map(lambda quarter: quarter / 4),  # minutes
            ),
            min_size=1,
            max_size=25,
            unique_by=lambda row: (row[0], row[1]),
        )
    )
    teams = draw(st.integers(1, len(TEAM_NAMES)))
    return {
        "rows": rows,
        "team_of": draw(
            st.lists(st.sampled_from([None, *TEAM_NAMES[:teams]]), min_size=6, max_size=6)
        ),
        "teams": TEAM_NAMES[:teams],
        "fee": draw(st.sampled_from(["0", "250.00", "99.99", "1234.57"])),
        "included_text": draw(st.integers(0, 20_000_000)),
        "included_minutes": draw(st.integers(0, 3_000)),
        "scope": draw(st.sets(st.sampled_from(TEAM_NAMES[:teams]), min_size=1)),
    }


def _setting(drawn: dict) -> tuple[pd.DataFrame, str, str]:
    """The frame, pricing file and teams file of a drawn organization."""
    frame = key_day_rows(
        (MONTH[0] + timedelta(days=day), KEYS[key], f"label-{key}", {TEXT: text, MINUTES: minutes})
        for day, key, text, minutes in drawn["rows"]
    )
    prices = pricing(
        price_from(
            "2025-01-01",
            f"monthly_fee = {drawn['fee']}",
            f"included_per_month = {{ {TEXT} = {drawn['included_text']}, "
            f"{MINUTES} = {drawn['included_minutes']} }}",
            prices="unit_prices = { text_translation_characters = 20, "
            "document_translation_characters = 25, text_improvement_characters = 10, "
            "speech_to_text_minutes = 0.03 }",
        )
    )
    teams = ""
    for name in drawn["teams"]:
        labels = [f"label-{k}" for k, team in enumerate(drawn["team_of"]) if team == name]
        teams += f'[[team]]\nname = "{name}"\nlabels = {labels}\ntags = ["tag-of-{name}"]\n'
    return frame, prices, teams.replace("'", '"')


def _organization_cost(drawn: dict) -> int:
    """The month's cost in cents, by hand: each metric's usage above its included volume at
    its price, rounded half up once, and the fee."""
    text = sum(row[2] for row in drawn["rows"])
    minutes = sum(Decimal(str(row[3])) for row in drawn["rows"])
    lines = [
        max(text - drawn["included_text"], 0) * PRICE[TEXT],
        max(minutes - drawn["included_minutes"], 0) * PRICE[MINUTES],
        Decimal(drawn["fee"]),
    ]
    return sum(int((line * 100).quantize(Decimal(1), ROUND_HALF_UP)) for line in lines)


def _team_keys(drawn: dict, team: str) -> set[str]:
    return {KEYS[k] for k, named in enumerate(drawn["team_of"]) if (named or UNASSIGNED) == team}


@settings(max_examples=40)
@given(organizations())
def test_a_scopes_money_is_its_teams_rows_of_the_organizations_chargeback(drawn):
    frame, prices_text, teams_text = _setting(drawn)
    prices, teams = parse_pricing(prices_text), parse_teams(teams_text)
    scope = Scope(frozenset(drawn["scope"]))
    money = ScopedMoney(Visible(scope, teams), prices)
    whole = ScopedMoney(Visible(WHOLE_ORGANIZATION, teams), prices, teams)
    organization = chargeback(frame, prices, teams, *MONTH)

    # The teams' rows add up to the organization's cost, to the cent, as computed by hand.
    assert int(organization.table["amount_minor"].sum()) == _organization_cost(drawn)
    assert whole.range_cost(frame, *MONTH).total == _organization_cost(drawn)

    # The scope's Chargeback is the organization's rows of its teams, and nothing else.
    scoped = money.chargeback(frame, *MONTH)
    expected = organization.table[organization.table["team"].isin(drawn["scope"])]
    assert scoped.table.astype({"team": str}).to_dict("records") == expected.astype(
        {"team": str}
    ).reset_index(drop=True).to_dict("records")
    assert scoped.total_minor == int(expected["amount_minor"].sum())

    # Its spend: the organization's spend rows of its teams, then their sum as its Total.
    spend = money.spend(frame, *MONTH).set_index("team")
    everyone = team_spend(frame, prices, teams, *MONTH).set_index("team")
    assert list(spend.index) == [*(t for t in drawn["teams"] if t in drawn["scope"]), TOTAL]
    shown = everyone.loc[list(spend.index[:-1])]
    assert spend.iloc[:-1].equals(shown)
    assert spend.loc[TOTAL].to_dict() == shown.sum().to_dict()

    # What the range cost the scope: its rows' usage cost and base fee share, never the
    # organization's fee nor another team's usage.
    cost = money.range_cost(frame, *MONTH)
    assert cost.total == int(expected["amount_minor"].sum())
    assert cost.fee == int(expected["base_fee_minor"].sum())
    assert cost.shared
    keys = set().union(*(_team_keys(drawn, team) for team in drawn["scope"]))
    if not frame["api_key"].astype(str).isin(keys).any():
        assert cost.total == 0  # a scope without usage pays nothing, whatever the fee
