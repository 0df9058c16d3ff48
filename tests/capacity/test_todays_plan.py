"""Today's plan and the contract year, each read from the one place that holds it: the plan's
limits from the service's answer (the Plan card's figures), priced at the ``[[price]]`` period
in force; the contract year from the budgets file in force."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pandas as pd
import pytest

from analytics.capacity.budgets.billing import (
    UNLIMITED_CHARACTERS,
    PlanLimits,
    plan_limits,
    plan_snapshot,
)
from analytics.capacity.budgets.definitions import contract_year, parse_budgets
from analytics.capacity.decision.buying import plan_sentence, plan_terms, service_mix, todays_plan
from analytics.cost.priced import PricesInForce
from analytics.cost.prices import parse_pricing
from analytics.service.models import PlanUsage
from analytics.usage.calendar import YearStart

PRICES = """currency = "EUR"
[[price]]
from = "2025-01-01"
name = "old"
monthly_fee = 100
[price.unit_prices]
text_translation_characters = 10
document_translation_characters = 10
text_improvement_characters = 10
speech_to_text_minutes = 0.01

[[price]]
from = "2026-07-01"
name = "new contract"
monthly_fee = 300
[price.unit_prices]
text_translation_characters = 20
document_translation_characters = 30
text_improvement_characters = 10
speech_to_text_minutes = 0.024
[price.included_per_month]
text_translation_characters = 2_000_000
document_translation_characters = 500_000
speech_to_text_minutes = 120.5
"""
MIX = {
    "text_translation_characters": 0.5,
    "document_translation_characters": 0.25,
    "text_improvement_characters": 0.25,
}
ANSWER = PlanUsage(
    character_count=10,
    character_limit=5_000_000,
    speech_to_text_minutes_count=1,
    speech_to_text_minutes_limit=5_000,
    speech_to_speech_minutes_count=0,
    speech_to_speech_minutes_limit=200,
)


def test_the_price_in_force_on_the_terms_first_day_prices_todays_plan():
    prices = PricesInForce(parse_pricing(PRICES))
    plan = todays_plan(plan_limits(ANSWER), prices, date(2026, 7, 1), MIX)
    assert not isinstance(plan, str)
    terms = plan.terms
    assert (terms.prices_from, terms.prices_name) == (date(2026, 7, 1), "new contract")
    assert terms.base_fee == 300
    assert terms.included_characters == 2_500_000  # every character service's together
    assert terms.included_minutes == Decimal("120.5")
    # A million characters at the services' prices weighted by their shares: half text at 20,
    # a quarter documents at 30, a quarter improvement at 10.
    assert terms.price_per_million_characters == Decimal("20")
    assert terms.price_per_minute == Decimal("0.024")
    # The day before, the older period is in force.
    older = todays_plan(plan_limits(ANSWER), prices, date(2026, 6, 30), MIX)
    assert not isinstance(older, str) and older.terms.base_fee == 100


def test_a_plan_that_cannot_be_weighed_says_why():
    prices = PricesInForce(parse_pricing(PRICES))
    assert todays_plan(None, prices, date(2026, 7, 1), MIX) == (
        "today's plan: the service's plan could not be read"
    )
    assert todays_plan(plan_limits(ANSWER), prices, date(2024, 12, 1), MIX) == (
        "today's plan: no price in force on 2024-12-01"
    )
    assert todays_plan(plan_limits(ANSWER), None, date(2026, 7, 1), MIX) == (
        "today's plan: no price in force on 2026-07-01"
    )


def test_the_plan_is_named_with_the_plan_cards_figures():
    limits = plan_limits(ANSWER)
    assert limits == PlanLimits(5_000_000, 5_000, 200)
    assert limits.text == (
        "5,000,000 characters, 5,000 speech-to-text minutes and 200 speech-to-speech minutes"
    )
    plan = todays_plan(limits, PricesInForce(parse_pricing(PRICES)), date(2026, 7, 1), MIX)
    assert not isinstance(plan, str)
    said = plan_sentence(plan, lambda v: f"{v:,.2f} EUR")
    assert said.startswith(
        "Today's plan, as the service reports it: 5,000,000 characters, 5,000 speech-to-text "
        "minutes and 200 speech-to-speech minutes a billing period; at the prices in force "
        "from 2026-07-01 (new contract): 300.00 EUR a month with 2,500,000 characters and "
        "120.50 speech-to-text minutes included, beyond them 20.00 EUR a million characters"
    )


def test_the_plan_card_and_the_decision_read_the_same_limits():
    frame = pd.DataFrame(
        columns=[
            "usage_date", "api_key", "api_key_label", "total_characters",
            "text_translation_characters", "document_translation_characters",
            "text_improvement_characters", "speech_to_text_minutes", "speech_to_speech_minutes",
        ]
    )  # fmt: skip
    card = plan_snapshot(ANSWER, frame, date(2026, 7, 1), date(2026, 6, 1))
    assert card.limits == plan_limits(ANSWER)
    assert [a.limit_text for a in card.allowances] == ["5,000,000", "5,000", "200"]
    # A paid plan without a cost-control limit: no character limit, on the card and here.
    unlimited = PlanUsage(character_count=1, character_limit=UNLIMITED_CHARACTERS)
    assert plan_limits(unlimited) == PlanLimits(None, None, None)
    assert plan_snapshot(unlimited, frame, date(2026, 7, 1), date(2026, 6, 1)).limits == (
        PlanLimits(None, None, None)
    )
    assert PlanLimits(None, None, 200).text.startswith("no character limit, no speech-to-text")


def test_the_services_mix_is_their_share_of_the_characters():
    frame = pd.DataFrame(
        {
            "text_translation_characters": [300, 300],
            "document_translation_characters": [200, 0],
            "text_improvement_characters": [0, 200],
        }
    )
    assert service_mix(frame) == pytest.approx(
        {
            "text_translation_characters": 0.6,
            "document_translation_characters": 0.2,
            "text_improvement_characters": 0.2,
        }
    )
    assert list(service_mix(frame.iloc[:0]).values()) == pytest.approx([1 / 3] * 3)
    price = parse_pricing(PRICES).periods[1]
    weighted = plan_terms(price, service_mix(frame)).price_per_million_characters
    assert float(weighted) == pytest.approx(0.6 * 20 + 0.2 * 30 + 0.2 * 10)


def test_the_contract_year_is_the_budgets_files():
    budgets = parse_budgets(
        'contract_year_start = "04-01"\n[[budget]]\nmetric = "total_characters"\n'
        'period = "month"\nlimit = 1\n'
    )
    assert contract_year(budgets) == YearStart(4, 1)
    assert contract_year(None) == YearStart(1, 1)
