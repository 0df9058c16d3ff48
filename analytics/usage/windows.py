"""Any inclusive range of UTC days as contiguous windows the analytics operation accepts."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

import pandas as pd

from analytics.usage.frames import within

MAX_WINDOW_DAYS = 366
ONE_DAY = timedelta(days=1)


@dataclass(frozen=True, order=True)
class Window:
    """Inclusive first and last UTC day of one analytics request."""

    first: date
    last: date

    @property
    def days(self) -> int:
        return (self.last - self.first).days + 1

    @property
    def end_date(self) -> date:
        """The end_date parameter: the day after `last`, i.e. the exclusive end of the range."""
        return self.last + ONE_DAY

    def __str__(self) -> str:
        return f"{self.first.isoformat()}..{self.last.isoformat()}"


def split(start: date, end: date, max_days: int = MAX_WINDOW_DAYS) -> list[Window]:
    """Contiguous windows of at most `max_days` days covering start..end (both inclusive)."""
    windows = []
    first = start
    while first <= end:
        last = min(end, first + timedelta(days=max_days - 1))
        windows.append(Window(first, last))
        first = last + ONE_DAY
    return windows


def runs(days: Iterable[date]) -> list[tuple[date, date]]:
    """Maximal runs of consecutive days, as inclusive (first, last) pairs."""
    result: list[tuple[date, date]] = []
    for day in sorted(days):
        if result and day == result[-1][1] + ONE_DAY:
            result[-1] = (result[-1][0], day)
        else:
            result.append((day, day))
    return result


def clip(rows: pd.DataFrame, window: Window) -> pd.DataFrame:
    """Only the rows of the window's own days.

    A server that reads a date-only end_date as an inclusive day also returns the day after
    `last`; that day belongs to the next window (or lies outside the asked range), so dropping
    it keeps every key-day exactly once whichever convention the server follows.
    """
    return within(rows, window.first, window.last)
