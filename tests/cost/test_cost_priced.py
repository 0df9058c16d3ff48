"""Usage in money for the pages: the key-day frame priced per day and by team, and the spend
per team, against the hand-made organization's hand-computed cents (builders)."""

from __future__ import annotations

from datetime import date

import pandas as pd
import pytest
from support.builders import (
    KEY_DAY_COLUMNS,
    MONEY_END,
    MONEY_OTHER,
    MONEY_START,
    MONEY_WEB,
    key_day_rows,
    money_organization,
    price_from,
    pricing,
)

from analytics.cost.chargeback import team_spend
from analytics.cost.priced import PricesInForce, price_key_day
from analytics.cost.prices import parse_pricing
from analytics.cost.spend import base_fees
from analytics.cost.teams import parse_teams, team_day

TEXT, MINUTES, SPOKEN = (
    "text_translation_characters",
    "speech_to_text_minutes",
    "speech_to_speech_minutes",
)


@pytest.fixture
def organization():
    frame, prices, teams = money_organization()
    return frame, parse_pricing(prices), parse_teams(teams)


def test_the_priced_frame_has_the_key_day_shape_and_each_days_cents(organization):
    frame, prices, _ = organization
    table = price_key_day(frame, prices, MONEY_START, MONEY_END)
    assert list(table.columns) == KEY_DAY_COLUMNS
    assert table[["api_key", "api_key_label"]].astype(str).values.tolist() == [
        [MONEY_WEB, "web-shop"],
        [MONEY_OTHER, "=other"],
        [MONEY_OTHER, "=other"],
        [MONEY_WEB, "web-shop"],
    ]
    assert table["usage_date"].dt.date.tolist() == [
        date(2025, 1, 30),
        date(2025, 1, 30),
        date(2025, 1, 31),
        date(2025, 2, 1),
    ]
    assert table[TEXT].tolist() == [1919, 576, 576, 929]
    assert table["total_characters"].tolist() == [1919, 576, 576, 929]  # the whole usage cost
    assert table[MINUTES].sum() == table[SPOKEN].sum() == 0
    # The base fee is no row's: 250 × 2/31 and 250 × 1/28, whether or not anything was used.
    assert base_fees(prices, MONEY_START, MONEY_END)["amount_minor"].tolist() == [1613, 893]


def test_minutes_add_to_the_total_cost_but_keep_their_own_columns():
    # 1,000,000 text characters at 20.00, 12.5 speech-to-text minutes at 0.03 (0.375 → 0.38),
    # 10 speech-to-speech minutes at 0.05.
    listed = (
        "unit_prices = { text_translation_characters = 20, document_translation_characters = 25, "
        "text_improvement_characters = 10, speech_to_text_minutes = 0.03, "
        "speech_to_speech_minutes = 0.05 }"
    )
    frame = key_day_rows(
        [(date(2025, 3, 4), "aaaa****0001", "A", {TEXT: 1_000_000, MINUTES: 12.5, SPOKEN: 10})]
    )
    prices = parse_pricing(pricing(price_from("2025-01-01", prices=listed)))
    [row] = price_key_day(frame, prices, date(2025, 3, 1), date(2025, 3, 31)).to_dict("records")
    assert (row[TEXT], row[MINUTES], row[SPOKEN], row["total_characters"]) == (2000, 38, 50, 2088)
    assert row["document_translation_characters"] == 0


def test_an_empty_range_prices_to_an_empty_frame(organization):
    frame, prices, _ = organization
    priced = price_key_day(frame.iloc[:0], prices, MONEY_START, MONEY_END)
    assert priced.empty and list(priced.columns) == KEY_DAY_COLUMNS


def test_the_team_frame_sums_each_teams_keys_per_day_and_keeps_unassigned(organization):
    frame, _, teams = organization
    by_team = team_day(frame, teams)
    assert list(by_team.columns) == KEY_DAY_COLUMNS
    assert list(by_team["api_key"].cat.categories) == ["Web", "Unassigned"]
    assert by_team[["api_key", TEXT]].astype({"api_key": str}).values.tolist() == [
        ["Web", 1_000_000],
        ["Unassigned", 300_000],
        ["Unassigned", 300_000],
        ["Web", 500_000],
    ]
    assert set(by_team["api_key_label"].astype(str)) == {""}
    assert by_team["total_characters"].sum() == frame["total_characters"].sum()


def test_the_team_frame_priced_is_each_teams_share_of_the_lines(organization):
    frame, prices, teams = organization
    priced = price_key_day(team_day(frame, teams), prices, MONEY_START, MONEY_END)
    per_team = priced.groupby("api_key", observed=True)[TEXT].sum()
    assert per_team.to_dict() == {"Web": 2848, "Unassigned": 1152}  # 19.19 + 9.29; 11.52


def test_team_spend_per_metric_with_the_base_fee_and_the_total(organization):
    frame, prices, teams = organization
    table = team_spend(frame, prices, teams, MONEY_START, MONEY_END).set_index("team")
    assert table.index.tolist() == ["Web", "Unassigned", "Total"]
    assert table[TEXT].tolist() == [2848, 1152, 4000]
    assert table["base_fee_minor"].tolist() == [1901, 605, 2506]
    assert table["amount_minor"].tolist() == [4749, 1757, 6506]
    assert table[[MINUTES, SPOKEN, "document_translation_characters"]].to_numpy().sum() == 0
    alone = team_spend(frame, prices, None, MONEY_START, MONEY_END).set_index("team")
    assert alone["amount_minor"].to_dict() == {"Unassigned": 6506, "Total": 6506}


def test_prices_in_force_answer_what_capacity_asks(organization):
    frame, prices, teams = organization
    money = PricesInForce(prices, teams)
    assert money.currency == "EUR"
    assert money.unpriced(MONEY_START, MONEY_END) is None
    assert money.unpriced(date(2024, 12, 1), MONEY_END) == (
        "no price in force on 2024-12-01..2024-12-31"
    )
    spend = money.spend(frame, MONEY_START, MONEY_END)
    assert spend.set_index("team").loc["Total", "amount_minor"] == 6506
    per_day = money.daily_cost(frame, MONEY_START, MONEY_END)
    # Each day's items, and each month's fee spread over its days in the range.
    assert per_day.round(4).tolist() == pytest.approx(
        [19.19 + 5.76 + 8.065, 5.76 + 8.065, 9.29 + 8.93]
    )
    assert isinstance(per_day, pd.Series)
