"""How pages, charts and exports name what a table lists, and find rows by name: a key, a
custom tag, a language pair, and the rows that are none of them (Other, Untagged,
unattributed)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from analytics.usage.frames import PAIR_COLUMNS, labels

# Every item outside a top N, together.
OTHER = "Other"
# The organization's text characters that carry no custom tag.
UNTAGGED = "Untagged"
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


def tag_display(tag: str) -> str:
    """How a tag is named on pages: as it is, unless it reads like the chart's own Other or
    Untagged series."""
    return f"{tag} (tag)" if tag in (OTHER, UNTAGGED) else tag


def pair_display(source: str, target: str) -> str:
    """How a pair is named on pages and in legends."""
    return f"{source} → {target}"


def with_pair(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with a `pair` column naming each row's pair (once per distinct pair)."""
    names = frame[PAIR_COLUMNS].astype(str).drop_duplicates()
    names["pair"] = [pair_display(s, t) for s, t in names.itertuples(index=False)]
    return frame.merge(names, on=PAIR_COLUMNS, how="left") if len(frame) else frame.assign(pair="")


def search_keys(table: pd.DataFrame, text: str) -> pd.DataFrame:
    """Rows whose label or masked id contains `text` (case-insensitive, plain text)."""
    return search(table, text, ("api_key_label", "api_key"))


def search_tags(table: pd.DataFrame, text: str) -> pd.DataFrame:
    """Rows whose custom tag contains `text` (case-insensitive, plain text)."""
    return search(table, text, ("custom_tag",))


def search(table: pd.DataFrame, text: str, columns: Sequence[str]) -> pd.DataFrame:
    needle = text.strip().lower()
    if not needle:
        return table
    haystack = pd.Series("", index=table.index)
    for column in columns:
        haystack = haystack + " " + table[column].astype(str).str.lower()
    return table[haystack.str.contains(needle, regex=False)]
