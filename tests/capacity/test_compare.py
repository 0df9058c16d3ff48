"""Period comparison: previous period, same period last year, per service and per key."""

from __future__ import annotations

import math
from datetime import date, timedelta

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.builders import METRICS, pattern, usage_frame

from analytics.capacity.comparison import compare, comparison_start, comparison_text, growth_drivers
from analytics.usage.calendar import previous_range, range_last_year

START = date(2024, 1, 1)
STEP = date(2025, 6, 1)
DAYS = 600  # to 22 August 2025


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    """Steady A; B triples on 1 June 2025; C starts then; D stops on 1 May 2025."""
    return usage_frame(
        {
            "aaaa****0001": [100.0] * DAYS,
            "bbbb****0002": pattern(DAYS, START, lambda d, _: 150.0 if d >= STEP else 50.0),
            "cccc****0003": pattern(DAYS, START, lambda d, _: 20.0 if d >= STEP else 0.0),
            "dddd****0004": pattern(
                DAYS, START, lambda d, _: 0.0 if d >= date(2025, 5, 1) else 40.0
            ),
        },
        first=START,
        labels={"aaaa****0001": "A", "bbbb****0002": "B", "cccc****0003": "C", "dddd****0004": "D"},
        minutes={"aaaa****0001": [1.5] * DAYS},
    )


def test_ranges_and_earliest_day():
    assert comparison_start(date(2025, 6, 1), date(2025, 6, 30)) == date(2024, 6, 1)
    # A period longer than a year reaches further back through its previous period: its 18
    # calendar months reach back 18 calendar months.
    assert comparison_start(date(2024, 1, 1), date(2025, 6, 30)) == date(2022, 7, 1)
    # One day shorter, 546 days: the 546 days before.
    assert comparison_start(date(2024, 1, 2), date(2025, 6, 30)) == date(2022, 7, 5)


def test_services_against_previous_period_and_last_year(frame):
    result = compare(frame, date(2025, 6, 1), date(2025, 6, 30))
    assert result.previous == (date(2025, 5, 1), date(2025, 5, 31))  # June's previous month
    assert result.last_year == (date(2024, 6, 1), date(2024, 6, 30))
    total = result.services.loc["total_characters"]
    assert total["current"] == 30 * (100 + 150 + 20) == 8100
    assert total["previous"] == 31 * (100 + 50) == 4650
    assert total["change"] == 3450
    assert total["change %"] == pytest.approx(100 * 3450 / 4650)
    assert total["last_year"] == 30 * (100 + 50 + 40)
    assert total["yoy %"] == pytest.approx(100 * (270 - 190) / 190)
    minutes = result.services.loc["speech_to_text_minutes"]
    assert (minutes["current"], minutes["previous"]) == (45.0, 46.5)
    assert minutes["change %"] == pytest.approx(100 * -1.5 / 46.5)
    assert list(result.services.index) == METRICS
    assert math.isnan(result.services.loc["document_translation_characters", "change %"])


def test_keys_and_growth_drivers(frame):
    result = compare(frame, date(2025, 6, 1), date(2025, 6, 30))
    keys = result.keys.set_index("api_key_label")
    assert list(result.keys["api_key_label"]) == ["B", "A", "C", "D"]  # by current usage
    assert keys.loc["B", "change %"] == pytest.approx(100 * (30 * 150 - 31 * 50) / (31 * 50))
    assert math.isnan(keys.loc["C", "change %"])  # new key: no relative change
    assert keys.loc["D", "current"] == 0 and keys.loc["D", "last_year"] == 1200
    drivers = growth_drivers(result, n=3)
    # A's 30 days of June against May's 31; D was already idle
    assert list(drivers["api_key_label"]) == ["B", "C", "A"]
    assert list(drivers["change"]) == [2950.0, 600.0, -100.0]
    may = growth_drivers(compare(frame, date(2025, 5, 1), date(2025, 5, 31)))
    assert list(may["api_key_label"]) == ["D", "A", "B"]  # A and B: May's day more than April
    assert list(may["change"]) == [-1200.0, 100.0, 50.0]
    assert may["change %"].iloc[0] == pytest.approx(-100.0)


def test_periods_before_the_data_are_unknown_not_zero(frame):
    result = compare(frame, date(2024, 2, 1), date(2024, 2, 29), covered_from=START)
    assert result.services.loc["total_characters", "previous"] == 31 * 190  # January
    assert math.isnan(result.services.loc["total_characters", "last_year"])
    assert result.keys["yoy %"].isna().all()


def test_one_metric_per_key_table(frame):
    result = compare(frame, STEP, STEP + timedelta(days=6), metric="speech_to_text_minutes")
    assert list(result.keys["api_key_label"]) == ["A"]
    assert result.keys["current"].iloc[0] == pytest.approx(10.5)


@settings(max_examples=300)
@given(st.dates(min_value=date(2001, 1, 1), max_value=date(2099, 1, 1)), st.integers(1, 2_000))
def test_a_range_is_never_compared_with_its_own_days(start, days):
    end = start + timedelta(days=days - 1)
    first, last = previous_range(start, end)
    assert first <= last == start - timedelta(days=1)
    last_year = range_last_year(start, end)
    if days <= 365:  # every range of at most 365 days has its days of a year earlier
        assert last_year is not None
    if days > 366:  # no range longer than a year has
        assert last_year is None
    if last_year is not None:
        assert last_year[1] < start
        assert {last_year[0].month, last_year[1].month} == {start.month, end.month}
        assert last_year[0].year == start.year - 1 and last_year[1].year == end.year - 1


def test_a_range_longer_than_a_year_has_no_last_year_to_compare_with(frame):
    result = compare(frame, START, date(2025, 6, 30), covered_from=START - timedelta(days=900))
    assert result.last_year is None
    assert result.services["last_year"].isna().all() and result.services["yoy %"].isna().all()
    assert result.services.loc["total_characters", "current"] == 100 * 547 + sum(
        (150 if START + timedelta(days=d) >= STEP else 50)
        + (20 if START + timedelta(days=d) >= STEP else 0)
        + (0 if START + timedelta(days=d) >= date(2025, 5, 1) else 40)
        for d in range(547)
    )
    assert comparison_text(result) == (
        "previous period 2022-07-01 – 2023-12-31 · last year none (the range is longer than a year)"
    )
