"""Small tables shaped from the key-day, tag-day and pair-day frames: KPIs, series over time,
top-N + Other, per-key, per-tag and per-pair tables. Pages, the report and exports show them as
they are; all of it is tested without Streamlit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Literal

import numpy as np
import pandas as pd
import pyarrow as pa

from analytics.usage.calendar import Granularity, bucket_bounds, bucket_start, buckets
from analytics.usage.frames import (
    PAIR_COLUMNS,
    UNATTRIBUTED_KEY,
    key_frame,
    labels,
    pair_frame,
    tag_frame,
    within,
)
from analytics.usage.metrics import (
    METRIC_LABELS,
    METRICS,
    TAG_METRICS,
    TEXT_CHARACTERS,
    TOTAL_CHARACTERS,
    TagMetric,
    format_change,
    format_value,
)

OTHER = "Other"
# A tag's characters are text characters (text translation + text improvement): only text is
# tagged, so in tag tables and charts the total is named so, never "Total characters".
TEXT_CHARACTERS_LABEL = "Text characters"
TAG_LABELS: Mapping[str, str] = {**METRIC_LABELS, TOTAL_CHARACTERS: TEXT_CHARACTERS_LABEL}
# The organization's text characters that carry no custom tag.
UNTAGGED = "Untagged"
# Per-key tables: who, how big a share, the trend, then every metric.
TABLE_ORDER = ("api_key", "api_key_label", "share", "trend", *METRICS)
# Per-tag tables: the tag, its share of the organization's text characters, the trend, counts.
TAG_TABLE_ORDER = ("custom_tag", "share", "trend", *TAG_METRICS)
SPARKLINE_POINTS = 60
# Tags with a sparkline in the per-tag table, the biggest: 10,000 tags' sparklines would be 5 MB
# for the browser, most of them a single blip (a document tagged on a day or two).
SPARKLINE_TAGS = 1_000
# The tags a page offers to drill into at most: the biggest of those its search shows.
TAG_CHOICES = 100
# Per-pair tables: the pair, its share of the organization's usage, its languages, counts.
PAIR_TABLE_ORDER = ("pair", "share", *PAIR_COLUMNS, *METRICS)
# How pages name usage the service attributes to no key (key `-`).
UNATTRIBUTED = "unattributed"


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


def relative_change(value: float, before: float | None) -> float | None:
    """The change from ``before`` to ``value`` as a fraction; None when there is nothing to
    compare against (no value before, or zero)."""
    return None if not before else (value - before) / before


def kpis(current: Mapping[str, float], previous: Mapping[str, float] | None) -> list[Kpi]:
    """One tile per metric with its change against the previous range of equal length.

    The change is N/A when there is no previous range or the metric was zero then: a
    percentage of nothing tells an admin nothing. A previous range without usage shows its
    zeros, as the capacity comparison and the report do (unknown is N/A, zero is 0).
    """
    tiles = []
    for metric in METRICS:
        before = None if previous is None else previous.get(metric)
        change = relative_change(current[metric], before)
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
    return _leaders(key_day, "api_key", metric, n)


def _leaders(frame: pd.DataFrame, column: str, metric: str, n: int) -> list[str]:
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
        frame = _with_pair(frame)
        leaders = _leaders(frame, "pair", metric, n)
        names = {pair: pair for pair in leaders}
    else:
        leaders = top_keys(frame, metric, n)
        names = key_names(frame)
    column = "pair" if by == "pair" else "api_key"
    wide = _top_n_wide(frame, column, metric, leaders, start, end, granularity)
    wide.columns = pd.Index([*(names[k] for k in leaders), OTHER][: wide.shape[1]], name=by)
    return wide


def _top_n_wide(
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
    table["trend"] = pd.arrays.ArrowExtensionArray(
        _trends(key_day, "api_key", table["api_key"], start, end)
    )
    return table[columns]


def _trends(
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


def search_keys(table: pd.DataFrame, text: str) -> pd.DataFrame:
    """Rows whose label or masked id contains `text` (case-insensitive, plain text)."""
    return _search(table, text, ("api_key_label", "api_key"))


def search_tags(table: pd.DataFrame, text: str) -> pd.DataFrame:
    """Rows whose custom tag contains `text` (case-insensitive, plain text)."""
    return _search(table, text, ("custom_tag",))


def _search(table: pd.DataFrame, text: str, columns: Sequence[str]) -> pd.DataFrame:
    needle = text.strip().lower()
    if not needle:
        return table
    haystack = pd.Series("", index=table.index)
    for column in columns:
        haystack = haystack + " " + table[column].astype(str).str.lower()
    return table[haystack.str.contains(needle, regex=False)]


def bucket_breakdown(
    key_day: pd.DataFrame, first_day: date, granularity: Granularity, metric: str
) -> pd.DataFrame:
    """Per-key usage within one bucket, largest `metric` first; keys without usage left out."""
    first, last = bucket_bounds(first_day, granularity)
    table = key_table(within(key_day, first, last), first, last).drop(columns=["trend"])
    table = table[table[list(METRICS)].sum(axis=1) > 0]
    return table.sort_values([metric, "api_key"], ascending=[False, True]).reset_index(drop=True)


# --- custom tags -------------------------------------------------------------------------------


def tag_display(tag: str) -> str:
    """How a tag is named on pages: as it is, unless it reads like the chart's own Other or
    Untagged series."""
    return f"{tag} (tag)" if tag in (OTHER, UNTAGGED) else tag


def text_over_time(
    key_day: pd.DataFrame, metric: TagMetric, start: date, end: date, granularity: Granularity
) -> pd.Series:
    """The organization's characters that tags of `metric` are part of, per bucket: text
    translation, text improvement, or both for total characters (documents are never
    tagged)."""
    parts = TEXT_CHARACTERS if metric == TOTAL_CHARACTERS else (metric,)
    return usage_over_time(key_day, start, end, granularity, parts).sum(axis=1)


def tags_over_time(
    tag_day: pd.DataFrame,
    key_day: pd.DataFrame,
    metric: TagMetric,
    n: int,
    start: date,
    end: date,
    granularity: Granularity,
) -> pd.DataFrame:
    """Wide table: one column per top-N tag, `Other` (the remaining tags, when any have
    usage) and `Untagged`, one row per bucket; each row sums to the organization's text
    characters of `metric` in that bucket. `Untagged` is always there, even when zero.
    """
    leaders = _leaders(tag_day, "custom_tag", metric, n)
    wide = _top_n_wide(tag_day, "custom_tag", metric, leaders, start, end, granularity)
    names = [*map(tag_display, leaders), OTHER][: wide.shape[1]]
    wide.columns = pd.Index(names, name="tag")
    untagged = text_over_time(key_day, metric, start, end, granularity) - wide.sum(axis=1)
    return wide.assign(**{UNTAGGED: untagged.to_numpy(dtype="int64")})


@dataclass(frozen=True)
class TagSummary:
    """The organization's text characters of a range, and how many of them carry a tag."""

    text_characters: int
    tagged: int

    @property
    def untagged(self) -> int:
        return self.text_characters - self.tagged

    @property
    def tagged_share(self) -> float | None:
        """None when the range has no text characters: a share of nothing says nothing."""
        return self.tagged / self.text_characters if self.text_characters else None


def tag_summary(tag_day: pd.DataFrame, key_day: pd.DataFrame) -> TagSummary:
    text = int(key_day[list(TEXT_CHARACTERS)].to_numpy().sum())
    return TagSummary(text, int(tag_day[TOTAL_CHARACTERS].sum()))


def tag_table(tag_day: pd.DataFrame, key_day: pd.DataFrame, start: date, end: date) -> pd.DataFrame:
    """One row per tag over the range, biggest total first (ties by tag): its characters, its
    share of the organization's text characters and, for the SPARKLINE_TAGS biggest, a
    sparkline of its total characters (None for the rest)."""
    columns = ["custom_tag", *TAG_METRICS, "share", "trend"]
    if tag_day.empty:
        return pd.DataFrame(columns=columns)
    table = tag_frame(tag_day)
    text = tag_summary(tag_day, key_day).text_characters
    table["share"] = table[TOTAL_CHARACTERS] / text if text else 0.0
    drawn = table["custom_tag"].iloc[:SPARKLINE_TAGS]
    lines = _trends(tag_day[tag_day["custom_tag"].isin(drawn)], "custom_tag", drawn, start, end)
    undrawn = pa.nulls(len(table) - len(drawn), lines.type)
    table["trend"] = pd.arrays.ArrowExtensionArray(pa.concat_arrays([lines, undrawn]))
    return table[columns]


@dataclass(frozen=True)
class TagChoices:
    """The tags a page offers to drill into, out of `matching` tags its search shows."""

    tags: list[str]
    matching: int

    @property
    def narrowed(self) -> bool:
        """Whether some of the matching tags are left out (the search would reach them)."""
        return self.matching > TAG_CHOICES


def tag_choices(table: pd.DataFrame, shown: pd.DataFrame, wanted: str | None) -> TagChoices:
    """The tags of a per-tag table one may drill into: the first TAG_CHOICES rows the search
    shows (all rows' when it shows none), biggest first, and `wanted` (the tag a link names)
    when it is one of the table's, so that a shared link opens on its tag. A list of 10,000
    tags is more than a browser's drop-down should hold; the search narrows it instead."""
    rows = table if shown.empty else shown
    choices = rows["custom_tag"].iloc[:TAG_CHOICES].tolist()
    if wanted and wanted not in choices and (table["custom_tag"] == wanted).any():
        choices.append(wanted)
    return TagChoices(choices, len(rows))


def tag_days(tag_day: pd.DataFrame, key_day: pd.DataFrame, tag: str) -> pd.DataFrame:
    """One tag's days with usage, in order: its characters and its share of that day's text
    characters of the organization (empty when the organization reported none that day)."""
    rows = tag_day.loc[tag_day["custom_tag"] == tag, ["usage_date", *TAG_METRICS]]
    table = rows.reset_index(drop=True)
    per_day = key_day.groupby("usage_date")[list(TEXT_CHARACTERS)].sum().sum(axis=1)
    text = per_day.reindex(table["usage_date"]).fillna(0).to_numpy(dtype="float64")
    totals = table[TOTAL_CHARACTERS].to_numpy(dtype="float64")
    table["share"] = np.divide(totals, text, out=np.full(len(table), np.nan), where=text > 0)
    return table


# --- language pairs ----------------------------------------------------------------------------


def pair_display(source: str, target: str) -> str:
    """How a pair is named on pages and in legends."""
    return f"{source} → {target}"


def _with_pair(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with a `pair` column naming each row's pair (once per distinct pair)."""
    names = frame[PAIR_COLUMNS].astype(str).drop_duplicates()
    names["pair"] = [pair_display(s, t) for s, t in names.itertuples(index=False)]
    return frame.merge(names, on=PAIR_COLUMNS, how="left") if len(frame) else frame.assign(pair="")


def pairs_of(pair_day: pd.DataFrame, language: str) -> pd.DataFrame:
    """The rows of the pairs ``language`` is the source or target of, every row when it is
    empty: one narrowing for every view of pairs (table, heat map, pairs over time, one pair's
    keys). Codes match in any case; a code without a region (``en``) takes its regional
    variants too (``en-GB``), a regional one only itself."""
    if not language:
        return pair_day
    wanted = language.casefold()
    sides = pair_day[PAIR_COLUMNS]
    codes = pd.unique(sides.to_numpy(dtype=object).ravel())
    matching = [
        code
        for code in codes
        if str(code).casefold() == wanted
        or ("-" not in wanted and str(code).split("-")[0].casefold() == wanted)
    ]
    return pair_day.loc[sides.isin(matching).any(axis=1).to_numpy()]


def pair_table(pair_day: pd.DataFrame, metric: str) -> pd.DataFrame:
    """One row per pair, biggest `metric` first, with its share of the frame's `metric` (all
    pairs together are the organization's usage, or a language's, ``pairs_of``)."""
    table = _with_pair(pair_frame(pair_day))
    table = table.sort_values(metric, ascending=False, kind="stable", ignore_index=True)
    whole = table[metric].sum()
    table["share"] = table[metric] / whole if whole else 0.0
    return table[list(PAIR_TABLE_ORDER)]


def pair_matrix(pair_day: pd.DataFrame, metric: str) -> pd.DataFrame:
    """`metric` per source (rows) and target (columns), sources and targets biggest first;
    0 where a pair has no usage."""
    sums = pair_frame(pair_day).pivot_table(
        index="source_language", columns="target_language", values=metric, aggfunc="sum"
    )
    sums = sums.fillna(0)
    rows = sums.sum(axis=1).sort_values(ascending=False, kind="stable").index
    columns = sums.sum(axis=0).sort_values(ascending=False, kind="stable").index
    return sums.loc[rows, columns]


def pair_keys(pair_key_day: pd.DataFrame, source: str, target: str) -> pd.DataFrame:
    """The keys of one pair over the range (from the pair-key-day frame), biggest first;
    usage the service attributes to no key is its own row, shown as `unattributed`, never
    merged into a key."""
    table = pair_frame(pair_key_day, by_key=True)
    table = table[(table["source_language"] == source) & (table["target_language"] == target)]
    table = table.reset_index(drop=True)
    whole = table[TOTAL_CHARACTERS].sum()
    table.insert(
        0,
        "key",
        [
            UNATTRIBUTED if key == UNATTRIBUTED_KEY else key_display(key, label)
            for key, label in zip(table["api_key"], table["api_key_label"], strict=True)
        ],
    )
    table.insert(1, "share", table[TOTAL_CHARACTERS] / whole if whole else 0.0)
    return table[["key", "share", "api_key", *METRICS]]
