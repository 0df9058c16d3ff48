"""How tables show their columns: people's numbers, shares as bars, masked keys pinned."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from analytics.languages import RESOURCE_LABELS
from analytics.usage.metrics import (
    MINUTE_METRICS,
    SERVICE_CHARACTERS,
    SERVICE_LABELS,
    TOTAL_CHARACTERS,
)


def number(label: str) -> Any:
    return st.column_config.NumberColumn(label, format="localized")


def percent(label: str) -> Any:
    return st.column_config.NumberColumn(label, format="%+.1f%%")


def _characters() -> dict[str, Any]:
    """Character counts as whole numbers, each service under its short name."""
    labels = {TOTAL_CHARACTERS: "Total characters"} | {
        metric: SERVICE_LABELS[metric] for metric in SERVICE_CHARACTERS
    }
    return {m: st.column_config.NumberColumn(label, format="%,d") for m, label in labels.items()}


def _minutes() -> dict[str, Any]:
    """Minutes with two decimals, each kind under its service's name."""
    return {
        metric: st.column_config.NumberColumn(f"{SERVICE_LABELS[metric]} minutes", format="%,.2f")
        for metric in MINUTE_METRICS
    }


def _share(label: str) -> Any:
    return st.column_config.ProgressColumn(label, format="percent", min_value=0.0, max_value=1.0)


def key_table_columns() -> dict[str, Any]:
    """Per-key tables (Keys, Trends)."""
    return {
        "api_key": st.column_config.TextColumn("Key", pinned=True),
        "api_key_label": st.column_config.TextColumn("Label", pinned=True),
        "share": _share("Share"),
        "trend": st.column_config.LineChartColumn("Characters over time", y_min=0),
        **_characters(),
        **_minutes(),
    }


def tag_table_columns() -> dict[str, Any]:
    """Per-tag tables and one tag's days (Tags): shares are of the text characters."""
    return {
        "custom_tag": st.column_config.TextColumn("Tag", pinned=True),
        "usage_date": st.column_config.DateColumn("Day (UTC)", format="YYYY-MM-DD", pinned=True),
        "share": _share("Share of text characters"),
        "trend": st.column_config.LineChartColumn("Characters over time", y_min=0),
        **_characters(),
    }


def pair_table_columns(share: str) -> dict[str, Any]:
    """Per-pair tables and one pair's keys (Language pairs); `share` names what the share is
    of."""
    return {
        "pair": st.column_config.TextColumn("Pair", pinned=True),
        "key": st.column_config.TextColumn("Key", pinned=True),
        "source_language": st.column_config.TextColumn("Source"),
        "target_language": st.column_config.TextColumn("Target"),
        "share": _share(share),
        **_characters(),
        **_minutes(),
    }


def budget_columns() -> dict[str, Any]:
    return {
        "limit": number("Limit"),
        "used": number("Used"),
        "projected": number("Projected"),
        "used %": st.column_config.ProgressColumn("Used %", format="%.1f%%", max_value=100),
        "projected %": st.column_config.NumberColumn("Projected %", format="%.1f%%"),
        "overrun": st.column_config.DateColumn("Projected overrun"),
        "note": st.column_config.TextColumn("Note"),
    }


def change_columns() -> dict[str, Any]:
    """Comparison tables: this range against the previous one and last year."""
    return {
        "current": number("This period"),
        "previous": number("Previous period"),
        "change": number("Change"),
        "change %": percent("Change %"),
        "last_year": number("Last year"),
        "yoy change": number("Change on last year"),
        "yoy %": percent("Change on last year %"),
    }


# Every column of the Languages page's tables, by name: flags are check boxes, the rest text.
LANGUAGE_FLAGS = {
    "source": "Source",
    "target": "Target",
    "available": "Available",
    "v2_supports_formality": "v2 supports_formality",
    "v3_formality_feature": "v3 formality feature",
    "casing_differs": "Casing differs",
    "formality_agrees": "Formality agrees",
}
LANGUAGE_HEADINGS = {
    "lang": "Code",
    "language": "Code",
    "name": "Language",
    "status": "Status",
    "features": "Features",
    "feature": "Feature",
    "needs": "Needed on",
    "why_not": "Why not",
    "source_lang": "Source",
    "source_name": "Source language",
    "target_lang": "Target",
    "target_name": "Target language",
    "v2_code": "v2 code",
    "v3_code": "v3 code",
    "v2_roles": "v2 role",
    "v3_roles": "v3 role",
    "text": "Text",
    "usable_as_source_in": "Usable as source in",
    **RESOURCE_LABELS,
}


def language_columns(frame: pd.DataFrame) -> dict[str, Any]:
    """The headings of a language table's columns; a column not named here (a feature of the
    feature matrix) keeps its own name."""
    checkbox = st.column_config.CheckboxColumn
    return {
        column: checkbox(LANGUAGE_FLAGS[column])
        if column in LANGUAGE_FLAGS
        else LANGUAGE_HEADINGS[column]
        for column in map(str, frame.columns)
        if column in LANGUAGE_FLAGS or column in LANGUAGE_HEADINGS
    }
