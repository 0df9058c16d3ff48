"""The calendar of usage in UTC days: presets, ranges, chart buckets and capacity periods, leap
years included."""

from __future__ import annotations

import datetime as dt

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from analytics.usage.calendar import (
    PRESETS,
    YearStart,
    all_history_range,
    allowed_granularities,
    auto_granularity,
    bucket_bounds,
    bucket_label,
    bucket_start,
    buckets,
    data_through,
    period_bounds,
    previous_range,
    range_last_year,
    range_text,
    resolve,
)

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


@pytest.mark.parametrize(
    ("start", "end", "expected"),
    [
        # a calendar month: the calendar month before, whatever either's length
        (D(2026, 10, 1), D(2026, 10, 31), (D(2026, 9, 1), D(2026, 9, 30))),
        (D(2026, 3, 1), D(2026, 3, 31), (D(2026, 2, 1), D(2026, 2, 28))),
        (D(2024, 3, 1), D(2024, 3, 31), (D(2024, 2, 1), D(2024, 2, 29))),
        (D(2025, 2, 1), D(2025, 2, 28), (D(2025, 1, 1), D(2025, 1, 31))),
        (D(2026, 1, 1), D(2026, 1, 31), (D(2025, 12, 1), D(2025, 12, 31))),
        # a calendar quarter, a calendar year, a contract year (from 1 April), two months
        (D(2026, 10, 1), D(2026, 12, 31), (D(2026, 7, 1), D(2026, 9, 30))),
        (D(2025, 1, 1), D(2025, 3, 31), (D(2024, 10, 1), D(2024, 12, 31))),
        (D(2025, 1, 1), D(2025, 12, 31), (D(2024, 1, 1), D(2024, 12, 31))),
        (D(2025, 4, 1), D(2026, 3, 31), (D(2024, 4, 1), D(2025, 3, 31))),
        (D(2026, 9, 1), D(2026, 10, 31), (D(2026, 7, 1), D(2026, 8, 31))),
        # rolling ranges: the same number of days
        (D(2026, 10, 2), D(2026, 10, 31), (D(2026, 9, 2), D(2026, 10, 1))),
        (D(2026, 10, 1), D(2026, 10, 30), (D(2026, 9, 1), D(2026, 9, 30))),
        (D(2026, 10, 1), D(2026, 10, 15), (D(2026, 9, 16), D(2026, 9, 30))),
        (D(2024, 2, 1), D(2024, 2, 28), (D(2024, 1, 4), D(2024, 1, 31))),
        (D(2025, 1, 1), D(2025, 1, 1), (D(2024, 12, 31), D(2024, 12, 31))),
        (D(2025, 5, 2), D(2025, 5, 31), (D(2025, 4, 2), D(2025, 5, 1))),
    ],
)
def test_the_previous_range_of_each_kind(start, end, expected):
    assert previous_range(start, end) == expected


@given(st.dates(min_value=D(1901, 1, 1), max_value=D(2099, 1, 1)), st.integers(1, 36))
def test_the_previous_range_of_whole_months_is_as_many_whole_months_just_before(day, months):
    one_day = dt.timedelta(days=1)
    first, end = period_bounds("month", day)
    for _ in range(months - 1):  # the range: `months` calendar months from `day`'s
        end = period_bounds("month", end + one_day)[1]
    before = first
    for _ in range(months):  # the oracle: as many calendar months, walked back one by one
        before = period_bounds("month", before - one_day)[0]
    assert previous_range(first, end) == (before, first - one_day)
    if months == 1:  # a calendar month's is a whole calendar month ending the day before it
        assert previous_range(first, end) == period_bounds("month", first - one_day)


@given(
    st.dates(min_value=D(1901, 1, 1), max_value=D(2099, 1, 1)).filter(lambda day: day.day != 1),
    st.integers(1, 800),
)
def test_the_previous_range_of_a_rolling_range_has_as_many_days_just_before(start, days):
    end = start + dt.timedelta(days=days - 1)
    first, last = previous_range(start, end)
    assert last == start - dt.timedelta(days=1) and (last - first).days + 1 == days


def test_range_last_year_is_leap_safe():
    assert range_last_year(D(2024, 2, 29), D(2024, 2, 29)) == (D(2023, 2, 28), D(2023, 2, 28))
    assert range_last_year(D(2025, 2, 1), D(2025, 2, 28)) == (D(2024, 2, 1), D(2024, 2, 28))
    assert range_last_year(D(2024, 1, 1), D(2024, 12, 31)) == (D(2023, 1, 1), D(2023, 12, 31))


def test_data_runs_through_yesterday():
    assert data_through(D(2024, 3, 1)) == D(2024, 2, 29)


def test_all_history_range():
    today = D(2026, 11, 22)
    start, end = all_history_range(today, 120)
    assert end == D(2026, 11, 21)
    assert (end - start).days + 1 == 120
    assert all_history_range(today, None) == (D(2021, 11, 22), D(2026, 11, 21))


def test_range_text_writes_both_inclusive_days():
    assert range_text(D(2024, 2, 1), D(2024, 2, 29)) == "2024-02-01 – 2024-02-29"


# -- chart buckets -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("days", "expected"), [(1, "day"), (120, "day"), (121, "week"), (730, "week"), (731, "month")]
)
def test_auto_granularity(days, expected):
    start = D(2025, 1, 1)
    assert auto_granularity(start, start + dt.timedelta(days=days - 1)) == expected


def test_daily_points_only_up_to_a_year():
    assert allowed_granularities(D(2024, 1, 1), D(2024, 12, 31)) == ["day", "week", "month"]
    assert allowed_granularities(D(2024, 1, 1), D(2025, 1, 1)) == ["week", "month"]


def test_bucket_start_of_each_date():
    dates = pd.Series(pd.to_datetime(["2024-02-29", "2024-03-03", "2024-03-04"]))
    as_text = {
        granularity: [f"{d:%Y-%m-%d}" for d in bucket_start(dates, granularity)]
        for granularity in ("day", "week", "month")
    }
    assert as_text == {
        "day": ["2024-02-29", "2024-03-03", "2024-03-04"],
        "week": ["2024-02-26", "2024-02-26", "2024-03-04"],  # Monday to Sunday
        "month": ["2024-02-01", "2024-03-01", "2024-03-01"],
    }


def test_bucket_bounds_and_labels():
    assert bucket_bounds(D(2024, 2, 1), "month") == (D(2024, 2, 1), D(2024, 2, 29))
    assert bucket_bounds(D(2024, 2, 26), "week") == (D(2024, 2, 26), D(2024, 3, 3))
    assert bucket_bounds(D(2024, 2, 29), "day") == (D(2024, 2, 29), D(2024, 2, 29))
    assert bucket_label(D(2024, 2, 1), "month") == "February 2024"
    assert bucket_label(D(2024, 2, 26), "week") == "Week of 2024-02-26"
    assert bucket_label(D(2024, 2, 29), "day") == "2024-02-29 (Thu)"


def test_buckets_cover_the_range_in_order():
    weeks = buckets(D(2024, 2, 28), D(2024, 3, 12), "week")
    assert [f"{d:%Y-%m-%d}" for d in weeks] == ["2024-02-26", "2024-03-04", "2024-03-11"]
    assert len(buckets(D(2024, 1, 1), D(2024, 12, 31), "day")) == 366
    assert len(buckets(D(2023, 12, 31), D(2024, 1, 1), "month")) == 2


# -- capacity periods ----------------------------------------------------------------------------


def test_period_bounds_month_quarter_and_contract_year():
    assert period_bounds("month", D(2024, 2, 10)) == (D(2024, 2, 1), D(2024, 2, 29))
    assert period_bounds("month", D(2025, 12, 31)) == (D(2025, 12, 1), D(2025, 12, 31))
    assert period_bounds("quarter", D(2025, 5, 20)) == (D(2025, 4, 1), D(2025, 6, 30))
    assert period_bounds("quarter", D(2025, 12, 1)) == (D(2025, 10, 1), D(2025, 12, 31))
    april = YearStart(4, 1)
    assert period_bounds("year", D(2025, 3, 31), april) == (D(2024, 4, 1), D(2025, 3, 31))
    assert period_bounds("year", D(2025, 4, 1), april) == (D(2025, 4, 1), D(2026, 3, 31))
    assert period_bounds("year", D(2025, 7, 4)) == (D(2025, 1, 1), D(2025, 12, 31))
    with pytest.raises(ValueError, match="unknown period 'week'"):
        period_bounds("week", D(2025, 1, 1))  # type: ignore[arg-type]


def test_year_start_parsing_and_rejections():
    assert YearStart.parse("04-01") == YearStart(4, 1)
    assert str(YearStart(10, 15)) == "10-15"
    for text in ("02-29", "13-01", "04-31", "April", "0401", "-1-01"):
        with pytest.raises(ValueError, match="contract year start"):
            YearStart.parse(text)
