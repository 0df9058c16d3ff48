"""Named date ranges resolved against today (UTC); data runs through yesterday.

Every preset ends yesterday, the last complete day. A "to date" preset covers its calendar
period up to yesterday, so on the first day of a month, quarter or year (no complete day yet)
it covers the whole previous month, quarter or year instead of an empty range.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta

ONE_DAY = timedelta(days=1)


def shift_years(day: date, years: int) -> date:
    """The same calendar day `years` later (negative: earlier); 29 February becomes the 28th."""
    try:
        return day.replace(year=day.year + years)
    except ValueError:
        return day.replace(year=day.year + years, day=28)


def _month_start(day: date) -> date:
    return day.replace(day=1)


def _quarter_start(day: date) -> date:
    return day.replace(month=(day.month - 1) // 3 * 3 + 1, day=1)


def _last_days(count: int) -> Callable[[date], tuple[date, date]]:
    def resolve(today: date) -> tuple[date, date]:
        yesterday = today - ONE_DAY
        return yesterday - timedelta(days=count - 1), yesterday

    return resolve


def _to_date(period_start: Callable[[date], date]) -> Callable[[date], tuple[date, date]]:
    def resolve(today: date) -> tuple[date, date]:
        yesterday = today - ONE_DAY
        return period_start(yesterday), yesterday

    return resolve


def _last_month(today: date) -> tuple[date, date]:
    last = _month_start(today) - ONE_DAY
    return _month_start(last), last


def _last_12_months(today: date) -> tuple[date, date]:
    return shift_years(today, -1), today - ONE_DAY


PRESETS: dict[str, Callable[[date], tuple[date, date]]] = {
    "last-7-days": _last_days(7),
    "last-30-days": _last_days(30),
    "last-90-days": _last_days(90),
    "month-to-date": _to_date(_month_start),
    "last-month": _last_month,
    "quarter-to-date": _to_date(_quarter_start),
    "year-to-date": _to_date(lambda day: day.replace(month=1, day=1)),
    "last-12-months": _last_12_months,
}


def resolve(name: str, today: date) -> tuple[date, date]:
    """Inclusive (start, end) of the preset `name` as seen on `today`."""
    try:
        preset = PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown period {name!r}; choose one of {', '.join(PRESETS)}") from None
    return preset(today)


def previous_period(start: date, end: date) -> tuple[date, date]:
    """The range of equal length that ends the day before `start`."""
    length = end - start + ONE_DAY
    return start - length, start - ONE_DAY


def same_period_last_year(start: date, end: date) -> tuple[date, date]:
    """The same calendar days one year earlier (29 February maps to the 28th)."""
    return shift_years(start, -1), shift_years(end, -1)
