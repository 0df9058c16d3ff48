"""Per-key tables: each key's usage over a range with its share and sparkline, the keys of
one bucket, the chosen keys' rows."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

import pandas as pd

from analytics.usage.calendar import Granularity, bucket_bounds
from analytics.usage.frames import key_frame, within
from analytics.usage.metrics import METRICS, TOTAL_CHARACTERS
from analytics.usage.tables.series import trends

# Per-key tables: who, how big a share, the trend, then every metric.
TABLE_ORDER = ("api_key", "api_key_label", "share", "trend", *METRICS)


def restrict_keys(key_day: pd.DataFrame, api_keys: Iterable[str]) -> pd.DataFrame:
    """Only the chosen keys' rows; all rows when none are chosen."""
    chosen = list(api_keys)
    if not chosen:
        return key_day
    return key_day[key_day["api_key"].isin(chosen)]


def key_table(key_day: pd.DataFrame, start: date, end: date) -> pd.DataFrame:
    """The key frame with each key's share of total characters and a sparkline.

    The sparkline holds total characters per bucket, resampled so it has at most about
    sixty points whatever the range.
    """
    columns = ["api_key", "api_key_label", *METRICS, "share", "trend"]
    if key_day.empty:
        return pd.DataFrame(columns=columns)
    table = key_frame(key_day)
    for column in ("api_key", "api_key_label"):
        table[column] = table[column].astype(str)
    total = table[TOTAL_CHARACTERS].sum()
    table["share"] = table[TOTAL_CHARACTERS] / total if total else 0.0
    table["trend"] = pd.arrays.ArrowExtensionArray(
        trends(key_day, "api_key", table["api_key"], start, end)
    )
    return table[columns]


def bucket_breakdown(
    key_day: pd.DataFrame, first_day: date, granularity: Granularity, metric: str
) -> pd.DataFrame:
    """Per-key usage within one bucket, largest `metric` first; keys without usage left out."""
    first, last = bucket_bounds(first_day, granularity)
    table = key_table(within(key_day, first, last), first, last).drop(columns=["trend"])
    table = table[table[list(METRICS)].sum(axis=1) > 0]
    return table.sort_values([metric, "api_key"], ascending=[False, True]).reset_index(drop=True)
