"""The calendar of usage, in UTC days; one word per idea:

* a **range** is the inclusive span of days a page, export or report covers;
* a **preset** names a range relative to today (``last-30-days``);
* a **bucket** is one point of a chart: a day, a week (from Monday) or a month;
* a **period** is a calendar month, calendar quarter or contract year (budgets, forecasts).

Data runs through yesterday: every preset ends yesterday, the last complete day. A "to date"
preset covers its calendar period up to yesterday, so on the first day of a month, quarter or
year (no complete day yet) it covers the whole previous month, quarter or year instead of an
empty range.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Final, Literal

import pandas as pd

ONE_DAY: Final = timedelta(days=1)
ALL_HISTORY_YEARS: Final = 5
# Buckets are chosen so a chart never carries more than a few hundred points per series.
DAILY_UP_TO_DAYS: Final = 120
WEEKLY_UP_TO_DAYS: Final = 730
DAILY_LIMIT_DAYS: Final = 366

Granularity = Literal["day", "week", "month"]
Preset = Literal[
    "last-7-days",
    "last-30-days",
    "last-90-days",
    "month-to-date",
    "last-month",
    "quarter-to-date",
    "year-to-date",
    "last-12-months",
    "all-history",
]
PeriodKind = Literal["month", "quarter", "year"]
PERIOD_KINDS: Final[tuple[PeriodKind, ...]] = ("month", "quarter", "year")
PERIOD_TITLES: Final[dict[str, str]] = {
    "month": "Month",
    "quarter": "Quarter",
    "year": "Contract year",
}


# Pins the clock (an ISO instant, e.g. 2028-02-29T23:59:59.5Z): every "now" and "today" of
# the dashboard and the commands (and of the emulator) is then that instant, in every process
# that inherits it. For reports as of a past moment, and for running the tests at any moment.
CLOCK_VARIABLE: Final = "USAGE_DASHBOARD_CLOCK"


def utc_now() -> datetime:
    """The one clock every "today" is read from: the real one, unless CLOCK_VARIABLE pins it."""
    pinned = os.environ.get(CLOCK_VARIABLE)
    if not pinned:
        return datetime.now(UTC)
    try:
        instant = datetime.fromisoformat(pinned)
    except ValueError:
        raise ValueError(f"{CLOCK_VARIABLE} must be an ISO instant, not {pinned!r}") from None
    return instant.astimezone(UTC) if instant.tzinfo else instant.replace(tzinfo=UTC)


def utc_today() -> date:
    """Today in UTC; the service's days are UTC days."""
    return utc_now().date()


def data_through(today: date) -> date:
    """The last complete UTC day: the service reports whole days, today is still open."""
    return today - ONE_DAY


def shift_years(day: date, years: int) -> date:
    """The same calendar day `years` later (negative: earlier); 29 February becomes the 28th."""
    try:
        return day.replace(year=day.year + years)
    except ValueError:
        return day.replace(year=day.year + years, day=28)


def range_text(start: date, end: date) -> str:
    """An inclusive range of UTC days as every page, file and report writes it."""
    return f"{start:%Y-%m-%d} – {end:%Y-%m-%d}"


# --- presets -----------------------------------------------------------------------------------


def _month_start(day: date) -> date:
    return day.replace(day=1)


def _quarter_start(day: date) -> date:
    return day.replace(month=(day.month - 1) // 3 * 3 + 1, day=1)


def _last_days(count: int) -> Callable[[date], tuple[date, date]]:
    def resolve(today: date) -> tuple[date, date]:
        yesterday = data_through(today)
        return yesterday - timedelta(days=count - 1), yesterday

    return resolve


def _to_date(period_start: Callable[[date], date]) -> Callable[[date], tuple[date, date]]:
    def resolve(today: date) -> tuple[date, date]:
        yesterday = data_through(today)
        return period_start(yesterday), yesterday

    return resolve


def _last_month(today: date) -> tuple[date, date]:
    last = _month_start(today) - ONE_DAY
    return _month_start(last), last


def _last_12_months(today: date) -> tuple[date, date]:
    return shift_years(today, -1), data_through(today)


# The presets a day alone resolves (all history also needs the organization's span).
PRESETS: Final[dict[Preset, Callable[[date], tuple[date, date]]]] = {
    "last-7-days": _last_days(7),
    "last-30-days": _last_days(30),
    "last-90-days": _last_days(90),
    "month-to-date": _to_date(_month_start),
    "last-month": _last_month,
    "quarter-to-date": _to_date(_quarter_start),
    "year-to-date": _to_date(lambda day: day.replace(month=1, day=1)),
    "last-12-months": _last_12_months,
}
# The range the dashboard opens on, and so the range `check-anomalies` looks back over by
# default: the anomalies a page counts are the ones the check reports.
DEFAULT_PRESET: Final[Preset] = "last-30-days"


def resolve(name: str, today: date, demo_days: int | None = None) -> tuple[date, date]:
    """Inclusive (start, end) of the preset `name` as seen on `today`; ``all-history`` of the
    demo organization of ``demo_days``, or of a real one when None (``all_history_range``),
    the same for the dashboard and the command line."""
    if name == "all-history":
        return all_history_range(today, demo_days)
    for preset, resolver in PRESETS.items():
        if preset == name:
            return resolver(today)
    choices = ", ".join([*PRESETS, "all-history"])
    raise ValueError(f"unknown period {name!r}; choose one of {choices}")


def all_history_range(today: date, demo_days: int | None) -> tuple[date, date]:
    """The demo organization's whole span, or the last five years of a real organization."""
    end = data_through(today)
    if demo_days is not None:
        return end - timedelta(days=demo_days - 1), end
    return shift_years(end, -ALL_HISTORY_YEARS) + ONE_DAY, end


def _whole_months(start: date, end: date) -> int | None:
    """How many calendar months ``start``–``end`` covers when it covers whole ones (a month, a
    quarter, a year or any run of months from a first to a last day); None for any other
    (rolling) range."""
    if start.day != 1 or (end + ONE_DAY).day != 1:
        return None
    return (end.year - start.year) * 12 + end.month - start.month + 1


def previous_range(start: date, end: date) -> tuple[date, date]:
    """What a range is compared with, ending the day before `start`: of whole calendar months
    the same number of calendar months (October's is September, not the 31 days to 30
    September), of any other range the same number of days."""
    months = _whole_months(start, end)
    if months is None:
        return start - (end - start + ONE_DAY), start - ONE_DAY
    index = start.year * 12 + start.month - 1 - months
    return date(index // 12, index % 12 + 1, 1), start - ONE_DAY


def range_last_year(start: date, end: date) -> tuple[date, date] | None:
    """The same calendar days one year earlier (29 February maps to the 28th); None for a
    range longer than a year, whose days a year earlier would overlap it. A range is never
    compared with any of its own days (nor is it by ``previous_range``)."""
    first, last = shift_years(start, -1), shift_years(end, -1)
    return (first, last) if last < start else None


# --- buckets -----------------------------------------------------------------------------------


def auto_granularity(start: date, end: date) -> Granularity:
    """Days for short ranges, weeks up to two years, months beyond."""
    days = (end - start).days + 1
    if days <= DAILY_UP_TO_DAYS:
        return "day"
    return "week" if days <= WEEKLY_UP_TO_DAYS else "month"


def allowed_granularities(start: date, end: date) -> list[Granularity]:
    """Daily points only up to a year, so a chart never carries thousands of bars per series."""
    days = (end - start).days + 1
    return ["day", "week", "month"] if days <= DAILY_LIMIT_DAYS else ["week", "month"]


def bucket_start(dates: pd.Series | pd.DatetimeIndex, granularity: Granularity) -> pd.Series:
    """The first day of each date's bucket (weeks start on Monday)."""
    values = pd.Series(pd.DatetimeIndex(dates)).dt.normalize()
    if granularity == "week":
        return values - pd.to_timedelta(values.dt.day_of_week, unit="D")
    if granularity == "month":
        return values.dt.to_period("M").dt.start_time
    return values


def bucket_bounds(first_day: date, granularity: Granularity) -> tuple[date, date]:
    """Inclusive first and last day of the bucket that begins on `first_day`."""
    if granularity == "week":
        return first_day, first_day + timedelta(days=6)
    if granularity == "month":
        return first_day, period_bounds("month", first_day)[1]
    return first_day, first_day


def bucket_label(first_day: date, granularity: Granularity) -> str:
    if granularity == "week":
        return f"Week of {first_day:%Y-%m-%d}"
    if granularity == "month":
        return f"{first_day:%B %Y}"
    return f"{first_day:%Y-%m-%d} ({first_day:%a})"


def buckets(start: date, end: date, granularity: Granularity) -> pd.DatetimeIndex:
    """Every bucket of the range, in order: the index of a series over time."""
    days = pd.date_range(start, end, freq="D")
    return pd.DatetimeIndex(bucket_start(days, granularity).drop_duplicates(), name="period")


# --- periods -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class YearStart:
    """The month and day a contract year starts on (1 January is the calendar year)."""

    month: int = 1
    day: int = 1

    def __post_init__(self) -> None:
        try:
            date(2001, self.month, self.day)  # a common year: 29 February is refused
        except ValueError:
            raise ValueError(
                f"contract year start {self.month:02d}-{self.day:02d} is not a day that "
                "exists every year (use MM-DD, e.g. 04-01)"
            ) from None

    @classmethod
    def parse(cls, text: str) -> YearStart:
        """Read ``MM-DD``."""
        month, sep, day = text.strip().partition("-")
        if not sep or not month.isdigit() or not day.isdigit():
            raise ValueError(f"contract year start {text!r} is not in MM-DD form (e.g. 04-01)")
        return cls(int(month), int(day))

    def __str__(self) -> str:
        return f"{self.month:02d}-{self.day:02d}"


def period_bounds(
    kind: PeriodKind, day: date, year_start: YearStart | None = None
) -> tuple[date, date]:
    """First and last day of the calendar month, calendar quarter or contract year with ``day``."""
    if kind == "year":
        ys = year_start or YearStart()
        start = date(day.year, ys.month, ys.day)
        if start > day:
            start = date(day.year - 1, ys.month, ys.day)
        return start, date(start.year + 1, ys.month, ys.day) - ONE_DAY
    if kind == "month":
        start, months = _month_start(day), 1
    elif kind == "quarter":
        start, months = _quarter_start(day), 3
    else:
        raise ValueError(f"unknown period {kind!r}; expected one of {', '.join(PERIOD_KINDS)}")
    month_index = start.month - 1 + months
    following = date(start.year + month_index // 12, month_index % 12 + 1, 1)
    return start, following - ONE_DAY
