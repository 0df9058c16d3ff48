"""The Chargeback page: per team and month, a Total row equal to the organization's cost, and
how to enable money views when no pricing file is found."""

from __future__ import annotations

import datetime as dt

import pandas as pd
from builders import key_day_rows, price_from, pricing
from headless import open_page

from analytics.cost.chargeback import chargeback, chargeback_rows
from analytics.cost.prices import parse_pricing
from analytics.cost.teams import parse_teams

PRICES = (
    "unit_prices = { text_translation_characters = 20.00, document_translation_characters = 25, "
    "text_improvement_characters = 20, speech_to_text_minutes = 0.024 }"
)


def test_chargeback_rows_in_currency_with_the_organizations_total():
    # The hand-made organization of the export tests: 47.49 + 17.57 = 65.06 EUR.
    text = "text_translation_characters"
    frame = key_day_rows(
        [
            (dt.date(2025, 1, 30), "aaaa****0001", "web-shop", {text: 1_000_000}),
            (dt.date(2025, 1, 30), "bbbb****0002", "other", {text: 300_000}),
            (dt.date(2025, 1, 31), "bbbb****0002", "other", {text: 300_000}),
            (dt.date(2025, 2, 1), "aaaa****0001", "web-shop", {text: 500_000}),
        ]
    )
    prices = parse_pricing(
        pricing(
            price_from(
                "2025-01-01",
                "monthly_fee = 250.00",
                "included_per_month = { text_translation_characters = 1_000_000 }",
                prices=PRICES,
            )
        )
    )
    teams = parse_teams('[[team]]\nname = "Web"\nlabel_patterns = ["web-*"]\n')
    bill = chargeback(frame, prices, teams, dt.date(2025, 1, 30), dt.date(2025, 2, 1))
    rows = chargeback_rows(bill)
    assert rows[["month", "team", "amount"]].values.tolist() == [
        ["2025-01", "Web", 29.27],  # 19.19 + 10.08
        ["2025-01", "Unassigned", 17.57],  # 11.52 + 6.05
        ["2025-02", "Web", 18.22],  # 9.29 + 8.93
        ["2025-02", "Unassigned", 0.0],
        ["", "Total", 65.06],
    ]
    assert rows.iloc[-1]["text_translation_characters"] == 2_100_000


def test_the_page_prices_the_demo_with_the_examples(demo_env, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    at = open_page("chargeback", period="Last 30 days")
    assert not at.exception and not at.error
    table: pd.DataFrame = at.dataframe[0].value
    teams = table[table["team"] != "Total"]
    assert round(teams["amount"].sum(), 2) == round(table.iloc[-1]["amount"], 2) > 0
    assert "Unassigned" in set(teams["team"])
