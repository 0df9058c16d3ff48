"""Named periods, previous periods and the same period last year, leap years included."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from analytics.periods import PRESETS, previous_period, resolve, same_period_last_year

D = dt.date


@pytest.mark.parametrize(
    ("name", "today", "expected"),
    [
        ("last-7-days", D(2024, 3, 1), (D(2024, 2, 23), D(2024, 2, 29))),
        ("last-30-days", D(2025, 6, 1), (D(2025, 5, 2), D(2025, 5, 31))),
        ("last-90-days", D(2025, 1, 1), (D(2024, 10, 3), D(2024, 12, 31))),
        ("month-to-date", D(2025, 6, 17), (D(2025, 6, 1), D(2025, 6, 16))),
        ("month-to-date", D(2024, 3, 1), (D(2024, 2, 1), D(2024, 2, 29))),  # the 1st
        ("last-month", D(2024, 3, 1), (D(2024, 2, 1), D(2024, 2, 29))),
        ("last-month", D(2025, 1, 15), (D(2024, 12, 1), D(2024, 12, 31))),
        ("quarter-to-date", D(2025, 5, 20), (D(2025, 4, 1), D(2025, 5, 19))),
        ("quarter-to-date", D(2025, 4, 1), (D(2025, 1, 1), D(2025, 3, 31))),
        ("year-to-date", D(2025, 1, 1), (D(2024, 1, 1), D(2024, 12, 31))),
        ("year-to-date", D(2025, 3, 2), (D(2025, 1, 1), D(2025, 3, 1))),
        ("last-12-months", D(2025, 3, 1), (D(2024, 3, 1), D(2025, 2, 28))),
    ],
)
def test_presets(name, today, expected):
    assert resolve(name, today) == expected


def test_presets_are_ordered_and_unknown_names_are_refused():
    assert list(PRESETS)[:3] == ["last-7-days", "last-30-days", "last-90-days"]
    with pytest.raises(ValueError, match="last-7-days"):
        resolve("fortnight", D(2025, 1, 1))


@given(today=st.dates(min_value=D(2000, 1, 2), max_value=D(2100, 1, 1)))
def test_every_preset_ends_yesterday_at_the_latest(today):
    for name in PRESETS:
        start, end = resolve(name, today)
        assert start <= end < today
        assert end == today - dt.timedelta(days=1) or name == "last-month"


def test_previous_period_has_equal_length_and_ends_the_day_before():
    assert previous_period(D(2024, 3, 1), D(2024, 3, 31)) == (D(2024, 1, 30), D(2024, 2, 29))
    assert previous_period(D(2025, 1, 1), D(2025, 1, 1)) == (D(2024, 12, 31), D(2024, 12, 31))


def test_same_period_last_year_is_leap_safe():
    assert same_period_last_year(D(2024, 2, 29), D(2024, 2, 29)) == (D(2023, 2, 28), D(2023, 2, 28))
    assert same_period_last_year(D(2025, 2, 1), D(2025, 2, 28)) == (D(2024, 2, 1), D(2024, 2, 28))
    assert same_period_last_year(D(2024, 1, 1), D(2024, 12, 31)) == (D(2023, 1, 1), D(2023, 12, 31))
