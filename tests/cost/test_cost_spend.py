"""Spend: key-day and tag-day frames priced into line items, against hand-computed amounts.

Unit prices (builders.UNIT_PRICES), in EUR: text translation 20 and document translation 25
per million characters, text improvement 10 per million, speech-to-text 0.03 per minute.
"""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal
from fractions import Fraction

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.builders import UNIT_PRICES, key_day_rows, price_from, pricing

from analytics.cost.prices import parse_pricing
from analytics.cost.spend import price_usage

JAN = (date(2025, 1, 1), date(2025, 1, 31))
KEY_A, KEY_B, KEY_C = "aaaa****0001", "bbbb****0002", "cccc****0003"
TEXT, DOCS, IMPROVE, MINUTES = (
    "text_translation_characters",
    "document_translation_characters",
    "text_improvement_characters",
    "speech_to_text_minutes",
)


def prices(*lines: str, day: str = "2025-01-01", currency: str = "EUR", **kw):
    return parse_pricing(pricing(price_from(day, *lines, **kw), currency=currency))


def amounts(spend, by: str = "api_key") -> dict[tuple[str, str], int]:
    """(group, metric) → amount in minor units over the whole range."""
    summed = spend.items.groupby([by, "metric"], observed=True)["amount_minor"].sum()
    return {(str(g), str(m)): int(v) for (g, m), v in summed.items() if v}


def test_one_key_one_month_each_line_rounded_half_up():
    frame = key_day_rows(
        [
            (
                date(2025, 1, 7),
                KEY_A,
                "Website",
                {TEXT: 1_234_567, DOCS: 100_000, IMPROVE: 12_500, MINUTES: 12.5},
            )
        ]
    )
    spend = price_usage(frame, prices(), *JAN)
    assert amounts(spend) == {
        (KEY_A, TEXT): 2469,  # 1.234567 M × 20 = 24.69134
        (KEY_A, DOCS): 250,  # 0.1 M × 25 = 2.50
        (KEY_A, IMPROVE): 13,  # 0.0125 M × 10 = 0.125: half up (banker's rounding gives 0.12)
        (KEY_A, MINUTES): 38,  # 12.5 min × 0.03 = 0.375
    }
    assert spend.total == Decimal("27.70")
    assert spend.currency == "EUR"
    item = spend.items.set_index("metric").loc[MINUTES]
    assert (item["usage"], item["list_amount_minor"]) == (12.5, 38)
    assert spend.fees["amount_minor"].tolist() == [0]


def test_minutes_are_exact_decimals_not_binary_floats():
    # 1.005 minutes at 1 EUR: exactly 1.005 EUR, half up 1.01 (as a float, 1.00499999…).
    # 0.1 + 0.2 minutes at 10 EUR: 3.00 (as floats, 0.30000000000000004 minutes).
    frame = key_day_rows(
        [
            (date(2025, 1, 1), KEY_A, "A", {MINUTES: 1.005}),
            (date(2025, 1, 1), KEY_B, "B", {MINUTES: 0.1}),
            (date(2025, 1, 2), KEY_B, "B", {MINUTES: 0.2}),
        ]
    )
    per_minute = "unit_prices = {{ {} = 0, {} = 0, {} = 0, {} = {} }}"
    one_euro = prices(prices=per_minute.format(TEXT, DOCS, IMPROVE, MINUTES, 1))
    assert price_usage(frame[frame["api_key"] == KEY_A], one_euro, *JAN).total == Decimal("1.01")
    ten_euros = prices(prices=per_minute.format(TEXT, DOCS, IMPROVE, MINUTES, 10))
    assert price_usage(frame[frame["api_key"] == KEY_B], ten_euros, *JAN).total == Decimal("3.00")


def test_speech_to_speech_minutes_have_their_own_price_and_included_volume():
    # 30 min at 0.05 with 10 included: 20 × 0.05 = 1.00; speech-to-text 30 min at 0.03 = 0.90.
    # Left out of a price list, speech-to-speech costs 0.
    spoken = "speech_to_speech_minutes"
    frame = key_day_rows([(date(2025, 1, 3), KEY_A, "A", {MINUTES: 30.0, spoken: 30.0})])
    listed = UNIT_PRICES.replace(" }", f", {spoken} = 0.05 }}")
    included = "included_per_month = { speech_to_speech_minutes = 10 }"
    spend = price_usage(frame, prices(included, prices=listed), *JAN)
    assert amounts(spend) == {(KEY_A, MINUTES): 90, (KEY_A, spoken): 100}
    line = spend.organization.set_index("metric").loc[spoken]
    assert (line["usage"], line["included"], line["unit_price"]) == (30.0, 10.0, Decimal("0.05"))
    unlisted = price_usage(frame, prices(), *JAN)
    assert amounts(unlisted) == {(KEY_A, MINUTES): 90}
    assert unlisted.items.set_index("metric").loc[spoken, "usage"] == 30.0


def test_a_price_change_mid_range_prices_each_day_with_its_price():
    cheap, dear = price_from("2025-01-01"), price_from("2025-01-16")
    dear = dear.replace("text_translation_characters = 20", "text_translation_characters = 40")
    two_prices = parse_pricing(pricing(cheap, dear))
    frame = key_day_rows(
        [
            (date(2025, 1, 10), KEY_A, "A", {TEXT: 1_000_000}),  # at 20
            (date(2025, 1, 15), KEY_A, "A", {TEXT: 500_000}),  # at 20, the last day
            (date(2025, 1, 16), KEY_A, "A", {TEXT: 250_000}),  # at 40, the first day
            (date(2025, 2, 3), KEY_A, "A", {TEXT: 500_000}),  # at 40
        ]
    )
    spend = price_usage(frame, two_prices, date(2025, 1, 1), date(2025, 2, 28))
    items = spend.items.set_index("month")["amount_minor"]
    assert items.tolist() == [4000, 2000]  # 30.00 + 10.00; 20.00
    organization = spend.organization[spend.organization["metric"] == TEXT]
    assert organization["unit_price"].tolist() == [Decimal(20), Decimal(40), Decimal(40)]
    assert organization["usage"].tolist() == [1_500_000, 250_000, 500_000]
    assert organization["amount_minor"].tolist() == [3000, 1000, 2000]
    assert spend.total == Decimal("60.00")


def test_included_volume_is_the_organizations_and_shared_pro_rata():
    included = "included_per_month = { text_translation_characters = 1_000_000 }"
    frame = key_day_rows(
        [
            (date(2025, 1, 3), KEY_A, "A", {TEXT: 1_500_000}),
            (date(2025, 1, 9), KEY_B, "B", {TEXT: 500_000}),
        ]
    )
    spend = price_usage(frame, prices(included), *JAN)
    # 2,000,000 used, 1,000,000 charged: 20.00, shared 3 : 1.
    assert amounts(spend) == {(KEY_A, TEXT): 1500, (KEY_B, TEXT): 500}
    assert spend.items["list_amount_minor"].tolist() == [3000, 1000]
    text = spend.organization.set_index("metric").loc[TEXT]
    assert (text["usage"], text["included"], text["amount_minor"]) == (2_000_000, 1_000_000, 2000)


def test_usage_within_the_included_volume_costs_nothing():
    included = "included_per_month = { speech_to_text_minutes = 60 }"
    frame = key_day_rows([(date(2025, 1, 3), KEY_A, "A", {MINUTES: 59.5})])
    spend = price_usage(frame, prices(included), *JAN)
    assert spend.total == Decimal("0.00")
    assert spend.items["list_amount_minor"].tolist() == [179]  # 59.5 × 0.03 = 1.785


def test_parts_add_up_by_largest_remainder():
    # 5,000 characters at 20 per million: 0.10 EUR, quotas 3.332, 3.334 and 3.334 cents.
    frame = key_day_rows(
        [
            (date(2025, 1, 1), KEY_A, "A", {TEXT: 1666}),
            (date(2025, 1, 1), KEY_B, "B", {TEXT: 1667}),
            (date(2025, 1, 1), KEY_C, "C", {TEXT: 1667}),
        ]
    )
    spend = price_usage(frame, prices(), *JAN)
    assert spend.items["amount_minor"].tolist() == [3, 4, 3]  # the tie goes to the earlier key
    assert spend.total == Decimal("0.10")


def test_a_partial_month_carries_its_days_share_of_included_volume_and_fee():
    included = "included_per_month = { text_translation_characters = 3_100_000 }"
    frame = key_day_rows([(date(2025, 1, 4), KEY_A, "A", {TEXT: 1_500_000})])
    spend = price_usage(
        frame, prices("monthly_fee = 310", included), date(2025, 1, 1), date(2025, 1, 10)
    )
    # Ten of 31 days carry 1,000,000 included characters and 100.00 of the fee; 500,000 of
    # the 1,500,000 characters (one third of 30.00) are charged.
    assert spend.organization["included"].tolist()[0] == 1_000_000
    assert amounts(spend) == {(KEY_A, TEXT): 1000}
    assert spend.fees["amount_minor"].tolist() == [10000]
    assert spend.total == Decimal("110.00")


def test_the_base_fee_follows_the_periods_in_force():
    first = price_from("2025-01-01", "monthly_fee = 310")
    second = price_from("2025-01-16", "monthly_fee = 620")
    spend = price_usage(
        key_day_rows([]), parse_pricing(pricing(first, second)), date(2025, 1, 1), date(2025, 3, 31)
    )
    # January: 15/31 of 310 + 16/31 of 620 = 150 + 320; February and March: 620 each.
    assert spend.fees["amount_minor"].tolist() == [47000, 62000, 62000]
    assert spend.fees["month"].tolist() == [
        pd.Timestamp(2025, 1, 1),
        pd.Timestamp(2025, 2, 1),
        pd.Timestamp(2025, 3, 1),
    ]
    assert spend.total == Decimal("1710.00")
    assert spend.items.empty


def test_a_currency_without_decimals():
    yen = f"unit_prices = {{ {TEXT} = 3000, {DOCS} = 0, {IMPROVE} = 0, {MINUTES} = 4 }}"
    frame = key_day_rows([(date(2025, 1, 2), KEY_A, "A", {TEXT: 1_500, MINUTES: 0.375})])
    spend = price_usage(frame, prices(currency="JPY", prices=yen), *JAN)
    # 1,500 characters: 4.5 yen → 5; 0.375 minutes × 4 = 1.5 yen → 2.
    assert amounts(spend) == {(KEY_A, TEXT): 5, (KEY_A, MINUTES): 2}
    assert spend.total == Decimal("7")
    assert str(spend.total) == "7"


def test_a_currency_with_three_decimals():
    dinar = f"unit_prices = {{ {TEXT} = 6.125, {DOCS} = 0, {IMPROVE} = 0, {MINUTES} = 0 }}"
    frame = key_day_rows([(date(2025, 1, 2), KEY_A, "A", {TEXT: 4_000})])
    # 4,000 characters at 6.125 per million: 0.0245 KWD, half up to 0.025.
    assert str(price_usage(frame, prices(currency="KWD", prices=dinar), *JAN).total) == "0.025"


def test_daily_items_add_up_to_the_month():
    frame = key_day_rows(
        [
            (date(2025, 1, 1), KEY_A, "A", {TEXT: 100_001}),
            (date(2025, 1, 2), KEY_A, "A", {TEXT: 33_333}),
            (date(2025, 1, 2), KEY_B, "B", {TEXT: 66_667}),
            (date(2025, 2, 1), KEY_B, "B", {TEXT: 1_000_000}),
        ]
    )
    included = "included_per_month = { text_translation_characters = 100_000 }"
    daily = price_usage(frame, prices(included), date(2025, 1, 1), date(2025, 2, 28), per="day")
    monthly = price_usage(frame, prices(included), date(2025, 1, 1), date(2025, 2, 28))
    # January: 200,001 used, 100,001 charged: 2.00002 → 2.00; February: 900,000 → 18.00.
    assert daily.items.groupby("month")["amount_minor"].sum().tolist() == [200, 1800]
    assert list(daily.items["usage_date"].dt.day) == [1, 2, 2, 1]
    assert daily.items["amount_minor"].tolist() == [100, 33, 67, 1800]
    assert monthly.items["amount_minor"].tolist() == [133, 67, 1800]
    assert daily.total == monthly.total == Decimal("20.00")


def test_a_keys_days_share_its_part_of_the_line():
    # One cent for five characters: A's three days of one character and B's day of two.
    cent = prices(
        prices=f"unit_prices = {{ {TEXT} = 2000, {DOCS} = 0, {IMPROVE} = 0, {MINUTES} = 0 }}"
    )
    frame = key_day_rows(
        [(date(2025, 1, d), KEY_A, "A", {TEXT: 1}) for d in (1, 2, 3)]
        + [(date(2025, 1, 4), KEY_B, "B", {TEXT: 2})]
    )
    daily = price_usage(frame, cent, *JAN, per="day")
    # A has 3/5 of the line, so the cent: on its first day, not on B's (2/5 > each 1/5 day).
    assert daily.items["amount_minor"].tolist() == [1, 0, 0, 0]
    assert amounts(price_usage(frame, cent, *JAN)) == {(KEY_A, TEXT): 1}


def test_sums_stay_exact_past_the_floats_integers():
    # 2**53 + 1 characters at a cent each: a float64 sum would lose the last character.
    cent_each = prices(
        prices=f"unit_prices = {{ {TEXT} = 10000, {DOCS} = 0, {IMPROVE} = 0, {MINUTES} = 0 }}"
    )
    frame = key_day_rows(
        [
            (date(2025, 1, 1), KEY_A, "A", {TEXT: 2**53}),
            (date(2025, 1, 2), KEY_A, "A", {TEXT: 1}),
        ]
    )
    spend = price_usage(frame, cent_each, *JAN)
    assert spend.items["amount_minor"].tolist() == [2**53 + 1]


def test_a_tag_frame_is_priced_at_list_prices():
    tags = pd.DataFrame(
        {
            "usage_date": pd.to_datetime(["2025-01-03", "2025-01-03", "2025-01-04"]),
            "custom_tag": ["checkout", "search", "checkout"],
            "total_characters": [750_000, 100_000, 1],
            TEXT: [500_000, 100_000, 0],
            IMPROVE: [250_000, 0, 1],
        }
    )
    generous = prices(
        "monthly_fee = 100",
        "included_per_month = { text_translation_characters = 10_000_000 }",
    )
    spend = price_usage(tags, generous, *JAN, by="custom_tag", at_list_prices=True)
    assert amounts(spend, "custom_tag") == {
        ("checkout", TEXT): 1000,
        ("checkout", IMPROVE): 250,  # 250,001 × 10 per million = 2.50001
        ("search", TEXT): 200,
    }
    assert list(spend.organization["metric"].cat.categories) == [TEXT, IMPROVE]
    assert spend.fees.empty
    assert spend.total == Decimal("14.50")


def test_many_groups_over_many_days():
    # 40 tags × 1,826 days: more group-days than rows, so only the occurring ones are counted.
    tags = pd.DataFrame(
        {
            "usage_date": [pd.Timestamp(2025, 1, 1) + pd.Timedelta(days=45 * i) for i in range(40)],
            "custom_tag": [f"tag-{i:02d}" for i in range(40)],
            TEXT: [1_000] * 40,
        }
    )
    spend = price_usage(
        tags, prices(), date(2025, 1, 1), date(2029, 12, 31), by="custom_tag", per="day"
    )
    assert spend.items["amount_minor"].tolist() == [2] * 40  # 1,000 × 20 per million
    assert spend.items["usage_date"].tolist() == tags["usage_date"].tolist()
    assert spend.items["custom_tag"].tolist() == tags["custom_tag"].tolist()


def test_groups_from_a_series_aligned_with_the_rows():
    frame = key_day_rows(
        [
            (date(2025, 1, 1), KEY_A, "A", {TEXT: 1_000_000}),
            (date(2025, 1, 1), KEY_B, "B", {TEXT: 1_000_000}),
            (date(2025, 1, 1), KEY_C, "C", {TEXT: 500_000}),
        ]
    )
    teams = pd.Series(["Web", "Web", "Apps"], name="team", index=frame.index)
    spend = price_usage(frame, prices(), *JAN, by=teams)
    assert amounts(spend, "team") == {("Apps", TEXT): 1000, ("Web", TEXT): 4000}


@pytest.mark.parametrize(
    ("start", "end", "error", "message"),
    [
        (date(2025, 1, 6), JAN[1], ValueError, "usage outside the range 2025-01-06 – 2025-01-31"),
        (JAN[1], JAN[0], ValueError, "the range ends before it starts"),
    ],
)
def test_ranges_that_cannot_be_priced(start, end, error, message):
    frame = key_day_rows([(date(2025, 1, 5), KEY_A, "A", {TEXT: 1})])
    with pytest.raises(error, match=message):
        price_usage(frame, prices(), start, end)


def test_days_before_the_first_price_are_left_out_and_named():
    # The first price runs from 2025-01-01; December 2024 has none. January's fee of 31.00 EUR
    # is whole (every day of it is priced); December has no line and no fee.
    frame = key_day_rows(
        [
            (date(2024, 12, 30), KEY_A, "A", {TEXT: 1_000_000}),
            (date(2025, 1, 2), KEY_A, "A", {TEXT: 500_000}),
            (date(2025, 1, 3), KEY_B, "B", {DOCS: 200_000}),
        ]
    )
    spend = price_usage(frame, prices("monthly_fee = 31"), date(2024, 12, 15), JAN[1], per="day")
    assert spend.unpriced is not None and str(spend.unpriced) == "2024-12-15..2024-12-31"
    assert spend.priced
    assert amounts(spend) == {(KEY_A, TEXT): 1000, (KEY_B, DOCS): 500}  # 0.5 M × 20, 0.2 M × 25
    assert spend.items["usage_date"].dt.strftime("%Y-%m-%d").tolist() == [
        "2025-01-02",
        "2025-01-03",
    ]
    assert spend.fees["amount_minor"].tolist() == [3100]
    assert spend.total == Decimal("46.00")
    # A range with no priced day: nothing priced, every day named.
    december = price_usage(frame.iloc[:1], prices(), date(2024, 12, 1), date(2024, 12, 31))
    assert not december.priced
    assert str(december.unpriced) == "2024-12-01..2024-12-31"
    assert december.items.empty and december.organization.empty and december.fees.empty
    assert december.total == 0


def test_frames_that_cannot_be_priced():
    frame = key_day_rows([(date(2025, 1, 5), KEY_A, "A", {TEXT: 1, MINUTES: 0.5})])
    with pytest.raises(ValueError, match="rows without a team"):
        price_usage(frame, prices(), *JAN, by=pd.Series([None], name="team", dtype=object))
    with pytest.raises(ValueError, match="name the series of groups"):
        price_usage(frame, prices(), *JAN, by=pd.Series(["Web"]))
    with pytest.raises(ValueError, match="speech_to_text_minutes has negative usage"):
        price_usage(frame.assign(speech_to_text_minutes=-0.5), prices(), *JAN)
    with pytest.raises(ValueError, match="none of the priced metrics"):
        price_usage(frame[["usage_date", "api_key"]], prices(), *JAN)


# --- the parts add up to the whole, whatever the usage and prices ------------------------------

DAYS = 59  # January and February 2025
usage_rows = st.lists(
    st.tuples(
        st.sampled_from([KEY_A, KEY_B, KEY_C]),
        st.integers(0, DAYS - 1),
        st.integers(0, 3_000_000),
        st.integers(0, 100_000),  # hundredths of a minute
    ),
    max_size=12,
)
price = st.decimals(min_value=0, max_value=60, places=3)


@settings(max_examples=60)
@given(
    usage_rows,
    price,
    price,
    st.integers(0, 2_000_000),
    st.integers(1, DAYS - 1),
    st.sampled_from(["EUR", "JPY", "KWD"]),
)
def test_items_add_up_to_the_organization_and_stay_within_a_unit_of_exact(
    rows, first_price, second_price, included, change, currency
):
    """The oracle prices day by day with fractions: the same rules, none of the code."""
    start = date(2025, 1, 1)
    change_day = start + timedelta(days=change)
    unit = "unit_prices = {{ {} = {}, {} = 0, {} = 0, {} = {} }}"
    periods = [
        price_from(
            day.isoformat(),
            f"included_per_month = {{ {TEXT} = {included} }}",
            prices=unit.format(TEXT, p, DOCS, IMPROVE, MINUTES, p),
        )
        for day, p in ((start, first_price), (change_day, second_price))
    ]
    parsed = parse_pricing(pricing(*periods, currency=currency))
    frame = key_day_rows(
        (start + timedelta(days=d), key, key[:4], {TEXT: chars, MINUTES: hundredths / 100})
        for key, d, chars, hundredths in rows
    )
    spend = price_usage(frame, parsed, start, start + timedelta(days=DAYS - 1))
    daily = price_usage(frame, parsed, start, start + timedelta(days=DAYS - 1), per="day")

    minor = {"EUR": 2, "JPY": 0, "KWD": 3}[currency]
    exact: dict[tuple[int, str, str], Fraction] = {}  # (month, metric, key) → minor units
    for month in (1, 2):
        for metric, free in ((TEXT, included), (MINUTES, 0)):
            scale = 1 if metric == TEXT else 100  # hundredths of a minute
            used = sum(r[2] if metric == TEXT else r[3] for r in rows if _month(r[1]) == month)
            share = Fraction(max(used - Fraction(free * scale), 0), used) if used else 0
            value = {}
            for key, d, chars, hundredths in rows:
                if _month(d) == month:
                    p = second_price if start + timedelta(days=d) >= change_day else first_price
                    # per million characters, per minute
                    units = Fraction(chars, 10**6) if metric == TEXT else Fraction(hundredths, 100)
                    value[key] = value.get(key, 0) + units * Fraction(p) * 10**minor
            for key, v in value.items():
                exact[month, metric, key] = v * share

    items = spend.items
    for (month, metric, key), amount in exact.items():
        hit = items[
            (items["month"].dt.month == month)
            & (items["metric"] == metric)
            & (items["api_key"] == key)
        ]
        # Less than a unit per line of the month: two when the price changed within it.
        lines = 2 if change_day.month == month and change_day.day > 1 else 1
        assert abs(int(hit["amount_minor"].sum()) - amount) < lines
    by_line = spend.organization.groupby(["month", "metric"], observed=True)["amount_minor"].sum()
    by_items = items.groupby(["month", "metric"], observed=True)["amount_minor"].sum()
    assert by_items.reindex(by_line.index, fill_value=0).tolist() == by_line.tolist()
    assert spend.total_minor == int(items["amount_minor"].sum())
    # Priced by day, each key's days add up to its month: one cost per key, by day or month.
    per_month = ["month", "api_key", "metric"]
    by_day = daily.items.groupby(per_month, observed=True)["amount_minor"].sum()
    by_month = items.groupby(per_month, observed=True)["amount_minor"].sum()
    assert by_day.reindex(by_month.index, fill_value=0).tolist() == by_month.tolist()


def _month(day_offset: int) -> int:
    return 1 if day_offset < 31 else 2
