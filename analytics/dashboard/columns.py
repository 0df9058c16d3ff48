"""How tables show their columns: people's numbers, shares as bars, masked keys pinned."""

from __future__ import annotations

from typing import Any

import streamlit as st

from analytics.usage.metrics import MINUTES, SERVICE_CHARACTERS, SERVICE_LABELS, TOTAL_CHARACTERS


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
        MINUTES: st.column_config.NumberColumn("Speech minutes", format="%,.2f"),
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


def budget_columns() -> dict[str, Any]:
    return {
        "limit": number("Limit"),
        "used": number("Used"),
        "projected": number("Projected"),
        "used %": st.column_config.ProgressColumn("Used %", format="%.1f%%", max_value=100),
        "projected %": st.column_config.NumberColumn("Projected %", format="%.1f%%"),
        "overrun": st.column_config.DateColumn("Projected overrun"),
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
