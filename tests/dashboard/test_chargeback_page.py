"""The Chargeback page: per team and month, a Total row equal to the organization's cost, and
how to enable money views when no pricing file is found."""

from __future__ import annotations

from decimal import Decimal

from support.builders import MONEY_END, MONEY_START, money_organization
from support.headless import open_clean_page

from analytics.cost.chargeback import chargeback, chargeback_rows
from analytics.cost.prices import parse_pricing
from analytics.cost.teams import parse_teams


def test_chargeback_rows_in_currency_with_the_organizations_total():
    # The hand-made organization of builders: 47.49 + 17.57 = 65.06 EUR.
    frame, prices, teams = money_organization()
    bill = chargeback(frame, parse_pricing(prices), parse_teams(teams), MONEY_START, MONEY_END)
    rows = chargeback_rows(bill)
    assert rows[["month", "team", "amount"]].values.tolist() == [
        ["2025-01", "Web", Decimal("29.27")],  # 19.19 + 10.08
        ["2025-01", "Unassigned", Decimal("17.57")],  # 11.52 + 6.05
        ["2025-02", "Web", Decimal("18.22")],  # 9.29 + 8.93
        ["2025-02", "Unassigned", Decimal("0.00")],
        ["", "Total", Decimal("65.06")],
    ]
    assert rows.iloc[-1]["text_translation_characters"] == 2_100_000


def test_the_page_prices_the_demo_with_the_examples(demo_env, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    at = open_clean_page("chargeback", period="Last 30 days")
    teams, total = (table.value for table in at.dataframe)  # the Total row below the teams
    assert round(teams["amount"].sum(), 2) == round(total.iloc[0]["amount"], 2) > 0
    assert "Unassigned" in set(teams["team"])
