"""Prices: parsing pricing files with clear errors, the periods in force, and exact rounding."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from support.builders import UNIT_PRICES, assert_unreadable_files_refused, price_from, pricing

from analytics.cost.currencies import MINOR_UNITS
from analytics.cost.money import apportion, as_decimal, round_half_up
from analytics.cost.prices import (
    PricingSettingsError,
    load_pricing,
    parse_pricing,
)

ROOT = Path(__file__).resolve().parents[2]
INCLUDED = "included_per_month = {{ {} }}"


def test_example_file_parses():
    parsed = load_pricing(ROOT / "pricing.example.toml")
    assert parsed.currency == "EUR"
    assert parsed.minor_unit == 2
    # From 2020 on, before the demo's three years of history, so the demo is priced throughout.
    assert [p.start for p in parsed.periods] == [
        date(2020, 1, 1),
        date(2025, 1, 1),
        date(2026, 1, 1),
    ]
    earliest, first, second = parsed.periods
    assert earliest.monthly_fee == Decimal("200.00")
    assert earliest.unit_prices.of("text_translation_characters") == Decimal("25.00")
    assert earliest.included_per_month.units("text_translation_characters") == 500_000
    assert first.monthly_fee == Decimal("250.00")
    assert first.unit_prices.of("speech_to_text_minutes") == Decimal("0.024")
    assert first.included_per_month.units("text_translation_characters") == 1_000_000
    assert first.included_per_month.units("document_translation_characters") == 0
    assert first.included_per_month.units("speech_to_text_minutes") == 60_000_000
    assert second.unit_prices.of("document_translation_characters") == Decimal("22.50")
    # Speech-to-speech is priced from 2026 on; the 2025 list leaves it out, so it costs 0.
    assert first.unit_prices.of("speech_to_speech_minutes") == 0
    assert second.unit_prices.of("speech_to_speech_minutes") == Decimal("0.06")


def test_numbers_are_read_as_decimals_not_floats():
    text = pricing(
        price_from(
            "2025-01-01",
            "monthly_fee = 0.1",
            prices=UNIT_PRICES.replace("= 0.03", "= 0.30000000000000004"),
        )
    )
    [period] = parse_pricing(text).periods
    assert period.monthly_fee == Decimal("0.1")
    assert period.unit_prices.of("speech_to_text_minutes") == Decimal("0.30000000000000004")


def test_periods_are_in_force_from_their_day_until_the_next_one():
    parsed = parse_pricing(pricing(price_from("2025-07-16"), price_from("2025-01-01")))
    assert [p.start for p in parsed.periods] == [date(2025, 1, 1), date(2025, 7, 16)]
    assert parsed.period_index(date(2025, 1, 1)) == 0
    assert parsed.period_index(date(2025, 7, 15)) == 0
    assert parsed.period_index(date(2025, 7, 16)) == 1
    assert parsed.period_index(date(2031, 1, 1)) == 1
    assert parsed.first_day == date(2025, 1, 1)


def test_the_days_before_the_first_period_are_named_as_unpriced():
    parsed = parse_pricing(pricing(price_from("2025-01-01")), "prices/pricing.toml")
    assert parsed.unpriced(date(2025, 1, 1), date(2025, 3, 31)) is None
    days = parsed.unpriced(date(2023, 11, 25), date(2025, 3, 31))
    assert days is not None and (days.first, days.last) == (date(2023, 11, 25), date(2024, 12, 31))
    assert days.note == "no price in force on 2023-11-25..2024-12-31"
    one = parsed.unpriced(date(2024, 12, 31), date(2025, 1, 9))
    assert one is not None and one.note == "no price in force on 2024-12-31"
    before = parsed.unpriced(date(2024, 3, 1), date(2024, 3, 31))  # the whole range
    assert before is not None and str(before) == "2024-03-01..2024-03-31"
    assert parsed.priced_from(date(2024, 3, 1)) == date(2025, 1, 1)
    assert parsed.priced_from(date(2025, 3, 1)) == date(2025, 3, 1)


def test_a_cost_of_zero_next_to_usage_says_why():
    text_only = ("text_translation_characters",)
    free_text = UNIT_PRICES.replace(
        "text_translation_characters = 20", "text_translation_characters = 0"
    )
    parsed = parse_pricing(
        pricing(
            price_from("2025-01-01"),
            price_from("2025-03-01", INCLUDED.format("text_translation_characters = 1_000")),
            price_from("2025-05-01", prices=free_text),
        ),
        "prices/pricing.toml",
    )
    assert parsed.free_because(text_only, date(2024, 1, 1), date(2024, 12, 31)) == (
        "no price in force on 2024-01-01..2024-12-31"
    )
    assert parsed.free_because(text_only, date(2025, 1, 1), date(2025, 1, 31)) == (
        "less than 0.01 EUR"
    )
    assert parsed.free_because(text_only, date(2025, 3, 1), date(2025, 3, 31)) == (
        "within the organization's included volume"
    )
    assert parsed.free_because(text_only, date(2025, 5, 1), date(2025, 5, 31)) == (
        "priced at 0 in prices/pricing.toml"
    )
    # Over the periods together: not every day is at 0, some have an included volume.
    assert parsed.free_because(text_only, date(2025, 2, 1), date(2025, 6, 30)) == (
        "within the organization's included volume"
    )
    yen = parse_pricing(pricing(price_from("2025-01-01"), currency="JPY"))
    assert yen.free_because(text_only, date(2025, 1, 1), date(2025, 1, 2)) == "less than 1 JPY"


def _replace(prices: str, metric: str, value: str) -> str:
    start = prices.index(metric)
    end = prices.index(",", start) if "," in prices[start:] else prices.index(" }", start)
    return prices[:start] + f"{metric} = {value}" + prices[end:]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('currency = "EUR"\n[[price]\nfrom = 1', "pricing.toml: not valid TOML: "),
        (
            pricing(price_from("2025-01-01"), currency="EUX"),
            "pricing.toml: currency: unknown currency 'EUX'; use an ISO 4217 code such as "
            "EUR, USD, GBP or JPY",
        ),
        (
            pricing(price_from("2025-01-01"), currency="eur"),
            "currency: unknown currency 'eur'; write it in capitals, 'EUR'",
        ),
        ('currency = "EUR"\n', "pricing.toml: no [[price]] entries"),
        (
            pricing(price_from("2025-01-01"), price_from("2025-03-01"), price_from("2025-01-01")),
            "pricing.toml: [[price]] #1 and #3 (from) both start on 2025-01-01: price periods "
            "must not overlap",
        ),
        (
            pricing(price_from("2025-02-30")),
            "pricing.toml: [[price]] #1 (from): Invalid RFC3339 encoded date",
        ),
        (
            pricing(price_from("2025-01-01").replace('"2025-01-01"', "2025-01-01T00:00:00")),
            "[[price]] #1 (from): Expected `date`, got `datetime`",
        ),
        (
            pricing(price_from("2025-01-01"), price_from("2025-02-01", "fee = 3")),
            "pricing.toml: [[price]] #2: Object contains unknown field `fee`",
        ),
        (
            pricing(price_from("2025-01-01"), currency='EUR"\nvat = "0.2'),
            "pricing.toml: Object contains unknown field `vat`",
        ),
        (pricing('from = "2025-01-01"'), "[[price]] #1: Object missing required field "),
        (
            pricing(
                price_from("2025-01-01", prices=UNIT_PRICES.replace("text_translation", "text"))
            ),
            "[[price]] #1 (unit_prices): unknown metric 'text_characters'; expected "
            "text_translation_characters, document_translation_characters, "
            "text_improvement_characters, speech_to_text_minutes, speech_to_speech_minutes",
        ),
        (
            pricing(price_from("2025-01-01", INCLUDED.format("total_characters = 5"))),
            "[[price]] #1 (included_per_month): unknown metric 'total_characters'; expected "
            "text_translation_characters, document_translation_characters, "
            "text_improvement_characters, speech_to_text_minutes, speech_to_speech_minutes "
            "(total characters is their sum: price the services)",
        ),
        (
            pricing(price_from("2025-01-01", prices=UNIT_PRICES.replace(", speech", " } #"))),
            "[[price]] #1 (unit_prices): Object missing required field `speech_to_text_minutes`",
        ),
        (
            pricing(
                price_from(
                    "2025-01-01", prices=_replace(UNIT_PRICES, "text_improvement_characters", "-1")
                )
            ),
            "[[price]] #1 (unit_prices): text_improvement_characters must be a finite amount "
            "≥ 0, not -1",
        ),
        (
            pricing(
                price_from(
                    "2025-01-01", prices=_replace(UNIT_PRICES, "speech_to_text_minutes", "nan")
                )
            ),
            "speech_to_text_minutes must be a finite amount ≥ 0, not NaN",
        ),
        (
            pricing(
                price_from(
                    "2025-01-01",
                    prices=_replace(UNIT_PRICES, "text_translation_characters", '"twenty"'),
                )
            ),
            "[[price]] #1 (unit_prices.text_translation_characters): Invalid decimal string",
        ),
        (
            pricing(price_from("2025-01-01", "monthly_fee = -250")),
            "[[price]] #1: monthly_fee must be a finite amount ≥ 0, not -250",
        ),
        (
            pricing(price_from("2025-01-01", INCLUDED.format("text_translation_characters = -1"))),
            "[[price]] #1 (included_per_month): text_translation_characters must be ≥ 0, not -1",
        ),
        (
            pricing(price_from("2025-01-01", INCLUDED.format("text_translation_characters = 1.5"))),
            "[[price]] #1 (included_per_month.text_translation_characters): Expected `int`, "
            "got `decimal`",
        ),
        (
            pricing(
                price_from("2025-01-01", INCLUDED.format("speech_to_text_minutes = 0.0000001"))
            ),
            "[[price]] #1 (included_per_month): speech_to_text_minutes has at most 6 decimals, "
            "not 0.0000001",
        ),
        (
            pricing(
                price_from("2025-01-01", INCLUDED.format("speech_to_speech_minutes = 0.0000001"))
            ),
            "[[price]] #1 (included_per_month): speech_to_speech_minutes has at most 6 "
            "decimals, not 0.0000001",
        ),
    ],
)
def test_bad_files_give_one_clear_error(text, message):
    with pytest.raises(PricingSettingsError) as raised:
        parse_pricing(text)
    assert message in str(raised.value)
    assert str(raised.value).startswith("pricing.toml: ")


def test_missing_and_unreadable_files(tmp_path):
    assert_unreadable_files_refused(load_pricing, PricingSettingsError, tmp_path)


# --- rounding and sharing out ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "rounded"),
    [
        (Fraction(12_5, 10), 13),  # 12.5: half up, where banker's rounding gives 12
        (Fraction(11_5, 10), 12),  # 11.5 (banker's: 12 too)
        (Fraction(12_4999, 10_000), 12),
        (Fraction(12_5001, 10_000), 13),
        (Fraction(1, 2), 1),
        (Fraction(0), 0),
        (Fraction(-5, 2), -3),  # away from zero
        (Fraction(10**30 + 1, 2), 10**30 // 2 + 1),
    ],
)
def test_round_half_up(value, rounded):
    assert round_half_up(value) == rounded


def test_minor_units_of_some_currencies():
    assert {c: MINOR_UNITS[c] for c in ("EUR", "USD", "JPY", "KRW", "KWD", "TND", "CHF")} == {
        "EUR": 2,
        "USD": 2,
        "JPY": 0,
        "KRW": 0,
        "KWD": 3,
        "TND": 3,
        "CHF": 2,
    }
    assert as_decimal(1234, "EUR") == Decimal("12.34")
    assert str(as_decimal(1234, "EUR")) == "12.34"
    assert str(as_decimal(1234, "JPY")) == "1234"
    assert str(as_decimal(1234, "KWD")) == "1.234"
    assert str(as_decimal(5, "EUR")) == "0.05"


def test_apportion_by_largest_remainder():
    wholes = [10, 0, 7]
    # whole 0: weights 1666, 1667, 1667 → quotas 3.332, 3.334, 3.334: the first tie wins.
    # whole 2: weights 1, 2, 4 → quotas 1, 2, 4 exactly.
    shares_of = np.array([0, 0, 0, 2, 2, 1, 2])
    weights = np.array([1666, 1667, 1667, 1, 2, 5, 4])
    assert apportion(wholes, shares_of, weights).tolist() == [3, 4, 3, 1, 2, 0, 4]


def test_apportion_beyond_int64():
    # 10**15 + 1 shared 1 : 3 needs products past 2**63; the odd unit goes to the larger part.
    parts = apportion([10**15 + 1], np.array([0, 0]), np.array([10**12, 3 * 10**12]))
    assert parts.tolist() == [250_000_000_000_000, 750_000_000_000_001]


def test_apportion_refuses_an_amount_without_weight():
    with pytest.raises(ValueError, match="all weigh 0"):
        apportion([5], np.array([0, 0]), np.array([0, 0]))
