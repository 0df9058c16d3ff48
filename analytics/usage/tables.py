"""Small tables shaped from the key-day frame: KPIs, series over time, top-N + Other, per-key
tables. Pages, the report and exports show them as they are; all of it is tested without
Streamlit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date

import pandas as pd

from analytics.usage.calendar import Granularity, bucket_bounds, bucket_start, buckets
from analytics.usage.frames import key_frame, labels, within
from analytics.usage.metrics import (
    METRIC_LABELS,
    METRICS,
    TOTAL_CHARACTERS,
    format_change,
    format_value,
)

OTHER = "Other"
# Per-key tables: who, how big a share, the trend, then every metric.
TABLE_ORDER = ("api_key", "api_key_label", "share", "trend", *METRICS)
SPARKLINE_POINTS = 60


def key_display(api_key: str, label: str) -> str:
    """How a key is named on pages: its label, with the masked id to tell equal labels apart."""
    return f"{label} ({api_key})" if label else api_key


def key_names(key_day: pd.DataFrame, labels_only: bool = False) -> dict[str, str]:
    """Masked id -> display name (or bare label), in the frame's order (a key-day frame or a
    one-row-per-key table)."""
    named = labels(key_day)
    if labels_only:
        return named
    return {key: key_display(key, label) for key, label in named.items()}


# --- KPIs --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Kpi:
    metric: str
    label: str
    value: float
    previous: float | None
    change: float | None  # relative change; None when the previous period has no usage

    @property
    def value_text(self) -> str:
        return format_value(self.value, self.metric)

    @property
    def change_text(self) -> str:
        return format_change(self.change) or "N/A"


def kpis(current: Mapping[str, float], previous: Mapping[str, float] | None) -> list[Kpi]:
    """One tile per metric with its change against the previous range of equal length.

    The change is N/A when the previous range is empty or the metric was zero then: a
    percentage of nothing tells an admin nothing. A previous range without any usage (none,
    or all zeros) counts as no previous range at all.
    """
    if previous is not None and not any(previous.values()):
        previous = None
    tiles = []
    for metric in METRICS:
        before = None if previous is None else previous.get(metric)
        change = None if not before else (current[metric] - before) / before
        tiles.append(Kpi(metric, METRIC_LABELS[metric], current[metric], before, change))
    return tiles


# --- series over time --------------------------------------------------------------------------


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
    sums = key_day.groupby("api_key", observed=True)[metric].sum()
    sums = sums[sums > 0].sort_index()
    return list(sums.sort_values(ascending=False, kind="stable").index[:n])


def top_n_over_time(
    key_day: pd.DataFrame,
    metric: str,
    n: int,
    start: date,
    end: date,
    granularity: Granularity,
) -> pd.DataFrame:
    """Wide table: one column per top-N key (display name) plus `Other`, one row per bucket.

    `Other` holds every remaining key, so each row sums to the organization's total; it is
    omitted when no key falls outside the top N.
    """
    leaders = top_keys(key_day, metric, n)
    names = key_names(key_day)
    starts = bucket_start(key_day["usage_date"], granularity).to_numpy()
    # Sum per key and bucket first (small), then fold the tail into Other.
    per_key = key_day.groupby([starts, key_day["api_key"]], observed=True)[metric].sum()
    keys = per_key.index.get_level_values(1).astype(str)
    bucket = keys.where(keys.isin(leaders), OTHER)
    wide = per_key.groupby([per_key.index.get_level_values(0), bucket]).sum().unstack(fill_value=0)
    wide = wide.rename(columns=names)
    columns = [names[k] for k in leaders]
    if OTHER in wide.columns and (wide[OTHER] != 0).any():
        columns.append(OTHER)
    wide = wide.reindex(columns=columns, fill_value=0)
    wide = wide.reindex(buckets(start, end, granularity), fill_value=0)
    wide.columns.name = "key"
    return wide


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


def restrict_keys(key_day: pd.DataFrame, api_keys: Iterable[str]) -> pd.DataFrame:
    """Only the chosen keys' rows; all rows when none are chosen."""
    chosen = list(api_keys)
    if not chosen:
        return key_day
    return key_day[key_day["api_key"].isin(chosen)]


def rolling_mean(wide: pd.DataFrame, days: int = 7) -> pd.DataFrame:
    """Trailing mean over `days` rows (shorter at the start of the range)."""
    return wide.rolling(days, min_periods=1).mean()


def cumulative(wide: pd.DataFrame) -> pd.DataFrame:
    return wide.cumsum()


# --- per-key tables ----------------------------------------------------------------------------


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
    granularity = sparkline_granularity(start, end)
    starts = bucket_start(key_day["usage_date"], granularity).to_numpy()
    sums = key_day.groupby([key_day["api_key"], starts], observed=True)[TOTAL_CHARACTERS].sum()
    spark = sums.unstack(fill_value=0)
    spark.index = spark.index.astype(str)
    spark = spark.reindex(index=table["api_key"], columns=buckets(start, end, granularity))
    table["trend"] = spark.fillna(0).astype("int64").to_numpy().tolist()
    return table[columns]


def sparkline_granularity(start: date, end: date) -> Granularity:
    days = (end - start).days + 1
    if days <= SPARKLINE_POINTS:
        return "day"
    return "week" if days <= SPARKLINE_POINTS * 7 else "month"


def search_keys(table: pd.DataFrame, text: str) -> pd.DataFrame:
    """Rows whose label or masked id contains `text` (case-insensitive, plain text)."""
    needle = text.strip().lower()
    if not needle:
        return table
    haystack = table["api_key_label"].astype(str).str.lower() + " " + table["api_key"].str.lower()
    return table[haystack.str.contains(needle, regex=False)]


def bucket_breakdown(
    key_day: pd.DataFrame, first_day: date, granularity: Granularity, metric: str
) -> pd.DataFrame:
    """Per-key usage within one bucket, largest `metric` first; keys without usage left out."""
    first, last = bucket_bounds(first_day, granularity)
    table = key_table(within(key_day, first, last), first, last).drop(columns=["trend"])
    table = table[table[list(METRICS)].sum(axis=1) > 0]
    return table.sort_values([metric, "api_key"], ascending=[False, True]).reset_index(drop=True)
