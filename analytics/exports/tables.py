"""The rows of an export, from the key-day or the tag-day frame: one grouping, one table."""

from __future__ import annotations

from datetime import date
from typing import Literal

import pandas as pd

from analytics.usage.frames import key_frame, tag_frame, totals

GroupBy = Literal["key_and_day", "key", "none"]
GROUPINGS: tuple[GroupBy, ...] = ("key_and_day", "key", "none")
TagGroupBy = Literal["tag_and_day", "tag"]
TAG_GROUPINGS: tuple[TagGroupBy, ...] = ("tag_and_day", "tag")


def shape_export(key_day: pd.DataFrame, start: date, end: date, group_by: GroupBy) -> pd.DataFrame:
    """Key-day rows, per-key totals, or one row of range totals for `start`–`end`.

    Days are calendar dates (written YYYY-MM-DD), columns exactly the frames' columns.
    """
    if group_by == "key_and_day":
        return _with_calendar_days(key_day)
    if group_by == "key":
        return key_frame(key_day)
    if group_by == "none":
        return pd.DataFrame([{"start_date": start, "end_date": end, **totals(key_day)}])
    raise ValueError(f"unknown grouping {group_by!r}; choose one of {', '.join(GROUPINGS)}")


def shape_tag_export(tag_day: pd.DataFrame, group_by: TagGroupBy) -> pd.DataFrame:
    """Tag-day rows or per-tag totals (biggest first), columns exactly the frames' columns."""
    if group_by == "tag_and_day":
        return _with_calendar_days(tag_day)
    if group_by == "tag":
        return tag_frame(tag_day)
    raise ValueError(f"unknown grouping {group_by!r}; choose one of {', '.join(TAG_GROUPINGS)}")


def _with_calendar_days(day_rows: pd.DataFrame) -> pd.DataFrame:
    """A copy whose usage_date holds calendar dates (written YYYY-MM-DD): one date object per
    distinct day, then a take."""
    table = day_rows.copy()
    codes, days = pd.factorize(table["usage_date"])
    table["usage_date"] = pd.DatetimeIndex(days).date[codes]
    return table
