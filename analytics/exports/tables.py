"""The rows of an export, from the key-day frame: one grouping, one table."""

from __future__ import annotations

from datetime import date
from typing import Literal

import pandas as pd

from analytics.usage.frames import key_frame, totals

GroupBy = Literal["key_and_day", "key", "none"]
GROUPINGS: tuple[GroupBy, ...] = ("key_and_day", "key", "none")


def shape_export(key_day: pd.DataFrame, start: date, end: date, group_by: GroupBy) -> pd.DataFrame:
    """Key-day rows, per-key totals, or one row of range totals for `start`–`end`.

    Days are calendar dates (written YYYY-MM-DD), columns exactly the frames' columns.
    """
    if group_by == "key_and_day":
        table = key_day.copy()
        codes, days = pd.factorize(table["usage_date"])
        table["usage_date"] = pd.DatetimeIndex(days).date[
            codes
        ]  # one date object per distinct day, then a take
        return table
    if group_by == "key":
        return key_frame(key_day)
    if group_by == "none":
        return pd.DataFrame([{"start_date": start, "end_date": end, **totals(key_day)}])
    raise ValueError(f"unknown grouping {group_by!r}; choose one of {', '.join(GROUPINGS)}")
