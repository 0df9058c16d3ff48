"""Language pairs' tables: the pairs of a language, the per-pair table, sources against
targets, and one pair's keys."""

from __future__ import annotations

import pandas as pd

from analytics.usage.frames import PAIR_COLUMNS, UNATTRIBUTED_KEY, pair_frame
from analytics.usage.metrics import METRICS, TOTAL_CHARACTERS
from analytics.usage.tables.names import UNATTRIBUTED, key_display, with_pair

# Per-pair tables: the pair, its share of the organization's usage, its languages, counts.
PAIR_TABLE_ORDER = ("pair", "share", *PAIR_COLUMNS, *METRICS)


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
    table = with_pair(pair_frame(pair_day))
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
