"""How tables show their columns: people's numbers, shares as bars, masked keys pinned."""

from __future__ import annotations

from typing import Any

import streamlit as st

from analytics.usage.metrics import MINUTES, SERVICE_CHARACTERS, SERVICE_LABELS, TOTAL_CHARACTERS


def number(label: str) -> Any:
    return st.column_config.NumberColumn(label, format="localized")


def percent(label: str) -> Any:
    return st.column_config.NumberColumn(label, format="%+.1f%%")


def key_table_columns() -> dict[str, Any]:
    """Per-key tables (Keys, Trends)."""
    number_column = st.column_config.NumberColumn
    labels = {TOTAL_CHARACTERS: "Total characters"} | {
        metric: SERVICE_LABELS[metric] for metric in SERVICE_CHARACTERS
    }
    characters = {metric: number_column(label, format="%,d") for metric, label in labels.items()}
    return {
        "api_key": st.column_config.TextColumn("Key", pinned=True),
        "api_key_label": st.column_config.TextColumn("Label", pinned=True),
        "share": st.column_config.ProgressColumn(
            "Share", format="percent", min_value=0.0, max_value=1.0
        ),
        "trend": st.column_config.LineChartColumn("Characters over time", y_min=0),
        **characters,
        MINUTES: number_column("Speech minutes", format="%,.2f"),
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
