"""Custom tags' tables: tags over time beside the untagged rest, the share of text
characters that carries a tag, the per-tag table and one tag's days."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

import numpy as np
import pandas as pd
import pyarrow as pa

from analytics.usage.calendar import Granularity
from analytics.usage.frames import tag_frame
from analytics.usage.metrics import (
    METRIC_LABELS,
    TAG_METRICS,
    TEXT_CHARACTERS,
    TOTAL_CHARACTERS,
    TagMetric,
)
from analytics.usage.tables.names import OTHER, UNTAGGED, tag_display
from analytics.usage.tables.series import top_items, top_n_wide, trends, usage_over_time

# A tag's characters are text characters (text translation + text improvement): only text is
# tagged, so in tag tables and charts the total is named so, never "Total characters".
TEXT_CHARACTERS_LABEL = "Text characters"
TAG_LABELS: Mapping[str, str] = {**METRIC_LABELS, TOTAL_CHARACTERS: TEXT_CHARACTERS_LABEL}
# Per-tag tables: the tag, its share of the organization's text characters, the trend, counts.
TAG_TABLE_ORDER = ("custom_tag", "share", "trend", *TAG_METRICS)
# Tags with a sparkline in the per-tag table, the biggest: 10,000 tags' sparklines would be 5 MB
# for the browser, most of them a single blip (a document tagged on a day or two).
SPARKLINE_TAGS = 1_000
# The tags a page offers to drill into at most: the biggest of those its search shows.
TAG_CHOICES = 100


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
    leaders = top_items(tag_day, "custom_tag", metric, n)
    wide = top_n_wide(tag_day, "custom_tag", metric, leaders, start, end, granularity)
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
    lines = trends(tag_day[tag_day["custom_tag"].isin(drawn)], "custom_tag", drawn, start, end)
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
