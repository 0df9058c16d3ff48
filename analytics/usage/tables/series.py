"""Series over time: metric sums per bucket, the top N (keys, pairs or tags) + Other per
bucket, and each item's sparkline."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date
from typing import Literal

import numpy as np
import pandas as pd
import pyarrow as pa

from analytics.usage.calendar import Granularity, bucket_start, buckets
from analytics.usage.metrics import METRICS, TOTAL_CHARACTERS
from analytics.usage.tables.names import OTHER, key_names, with_pair

SPARKLINE_POINTS = 60


def usage_over_time(
    key_day: pd.DataFrame,
    start: date,
    end: date,
    granularity: Granularity,
    metrics: Iterable[str] = METRICS,
) -> pd.DataFrame:
    """Metric sums per bucket over the whole range; buckets without usage are zero, not gaps."""
    metrics = list(metrics)
    starts = bucket_start(key_day["usage_date"], granularity).to_numpy()
    summed = key_day[metrics].groupby(starts).sum()
    return summed.reindex(buckets(start, end, granularity), fill_value=0)


def top_keys(key_day: pd.DataFrame, metric: str, n: int) -> list[str]:
    """The masked ids of the `n` keys with the most usage of `metric` (ties by id)."""
    return top_items(key_day, "api_key", metric, n)


def top_items(frame: pd.DataFrame, column: str, metric: str, n: int) -> list[str]:
    """The `n` texts of `column` with the most `metric`, none without any (ties by text)."""
    sums = frame.groupby(column, observed=True)[metric].sum()
    sums = sums[sums > 0].sort_index()
    return [str(item) for item in sums.sort_values(ascending=False, kind="stable").index[:n]]


def top_n_over_time(
    frame: pd.DataFrame,
    metric: str,
    n: int,
    start: date,
    end: date,
    granularity: Granularity,
    by: Literal["key", "pair"] = "key",
) -> pd.DataFrame:
    """Wide table: one column per top-N key (display name) or language pair (of a pair-day
    frame) plus `Other`, one row per bucket.

    `Other` holds every remaining item, so each row sums to the organization's total; it is
    omitted when no item falls outside the top N.
    """
    if by == "pair":
        frame = with_pair(frame)
        leaders = top_items(frame, "pair", metric, n)
        names = {pair: pair for pair in leaders}
    else:
        leaders = top_keys(frame, metric, n)
        names = key_names(frame)
    column = "pair" if by == "pair" else "api_key"
    wide = top_n_wide(frame, column, metric, leaders, start, end, granularity)
    wide.columns = pd.Index([*(names[k] for k in leaders), OTHER][: wide.shape[1]], name=by)
    return wide


def top_n_wide(
    frame: pd.DataFrame,
    column: str,
    metric: str,
    leaders: Sequence[str],
    start: date,
    end: date,
    granularity: Granularity,
) -> pd.DataFrame:
    """`metric` per bucket of each leader (in order), then of all the rest together as a last
    column, left out when the rest has none; every bucket of the range is a row.

    Rows are summed per item and bucket first (small), then folded by position, so an item
    named like the rest's column is never mixed into it.
    """
    starts = bucket_start(frame["usage_date"], granularity).to_numpy()
    per_item = frame.groupby([starts, frame[column]], observed=True)[metric].sum()
    slots = pd.Index(list(leaders)).get_indexer(per_item.index.get_level_values(1).astype(str))
    slots[slots < 0] = len(leaders)
    wide = per_item.groupby([per_item.index.get_level_values(0), slots]).sum().unstack(fill_value=0)
    wide = wide.reindex(columns=range(len(leaders) + 1), fill_value=0)
    if not wide.iloc[:, -1].any():
        wide = wide.iloc[:, :-1]
    return wide.reindex(buckets(start, end, granularity), fill_value=0)


def top_n_totals(key_day: pd.DataFrame, metric: str, n: int) -> pd.Series:
    """Range totals of the top-N keys and `Other`, largest first (`Other` last)."""
    leaders = top_keys(key_day, metric, n)
    names = key_names(key_day)
    sums = key_day.groupby("api_key", observed=True)[metric].sum()
    sums.index = sums.index.astype(str)
    totals = pd.Series({names[k]: sums[k] for k in leaders}, dtype="float64")
    rest = sums.drop(leaders).sum()
    if rest:
        totals[OTHER] = rest
    totals.name = metric
    return totals


def rolling_mean(wide: pd.DataFrame, days: int = 7) -> pd.DataFrame:
    """Trailing mean over `days` rows (shorter at the start of the range)."""
    return wide.rolling(days, min_periods=1).mean()


def cumulative(wide: pd.DataFrame) -> pd.DataFrame:
    return wide.cumsum()


def trends(
    frame: pd.DataFrame, column: str, items: pd.Series, start: date, end: date
) -> pa.ListArray:
    """Total characters of each of `items` (texts of `column`) per sparkline bucket, one list
    per item.

    The lists are one Arrow list array over a single buffer, not Python lists: a table of
    thousands of tags then reaches the browser (and the cache) without a Python object per
    point.
    """
    granularity = sparkline_granularity(start, end)
    starts = bucket_start(frame["usage_date"], granularity).to_numpy()
    sums = frame.groupby([frame[column], starts], observed=True)[TOTAL_CHARACTERS].sum()
    spark = sums.unstack(fill_value=0)
    spark.index = spark.index.astype(str)
    spark = spark.reindex(index=items, columns=buckets(start, end, granularity))
    points = spark.fillna(0).to_numpy(dtype="int64")
    offsets = np.arange(0, points.size + 1, points.shape[1], dtype="int32")
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(points.ravel()))


def sparkline_granularity(start: date, end: date) -> Granularity:
    days = (end - start).days + 1
    if days <= SPARKLINE_POINTS:
        return "day"
    return "week" if days <= SPARKLINE_POINTS * 7 else "month"
