"""What every page starts with: its title over the chosen range, and the per-key table that
the Keys and Trends pages stand on."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from analytics.dashboard import data
from analytics.dashboard.columns import key_table_columns, tag_table_columns
from analytics.dashboard.messages import service_errors
from analytics.dashboard.session import ChosenRange
from analytics.dashboard.source import Source
from analytics.usage import tables
from analytics.usage.calendar import (
    Granularity,
    allowed_granularities,
    auto_granularity,
    range_text,
)
from analytics.usage.metrics import METRIC_LABELS, Metric

M = TypeVar("M", bound=Metric)


def header(title: str, chosen: ChosenRange) -> None:
    st.title(title)
    st.caption(f"{range_text(chosen.start, chosen.end)} (UTC)")


def key_table_or_stop(src: Source, chosen: ChosenRange, when_empty: str) -> pd.DataFrame:
    """The range's per-key table; a page without any key's usage says `when_empty` and stops."""
    with service_errors(src):
        table: pd.DataFrame = data.table(src, chosen, tables.key_table, chosen.start, chosen.end)
    if table.empty:
        st.info(when_empty)
        st.stop()
    return table


def metric_select(
    where: DeltaGenerator, metrics: Sequence[M], width: int | Literal["stretch"] = "stretch"
) -> M:
    """The metric a chart shows, one of `metrics`; kept in the URL as `metric`."""
    metric: M = where.selectbox(
        "Metric",
        metrics,
        format_func=METRIC_LABELS.__getitem__,
        key="metric",
        bind="query-params",
        width=width,
    )
    return metric


def top_n_input(where: DeltaGenerator, width: int | Literal["stretch"] = "stretch") -> int:
    """How many keys or tags a chart names before folding the rest into Other; kept as
    `top`."""
    return int(where.number_input("Top N", 1, 50, 10, key="top", bind="query-params", width=width))


def key_choices(table: pd.DataFrame) -> dict[str, Any]:
    """How a key widget offers keys: masked ids, shown by name, kept in the URL."""
    names = tables.key_names(table)
    return {"options": list(names), "format_func": names.__getitem__, "bind": "query-params"}


def granularity_select(where: DeltaGenerator, chosen: ChosenRange) -> Granularity:
    """Days, weeks or months for a chart over the range (daily only up to a year); kept in
    the URL as `granularity`, the range's own bucket by default."""
    auto = auto_granularity(chosen.start, chosen.end)
    picked: Granularity | None = where.segmented_control(
        "Granularity",
        allowed_granularities(chosen.start, chosen.end),
        default=auto,
        format_func=str.capitalize,
        required=True,
        key="granularity",
        bind="query-params",
    )
    return picked or auto


@dataclass(frozen=True)
class _Searchable:
    search: Callable[[pd.DataFrame, str], pd.DataFrame]
    placeholder: str
    column_order: Sequence[str]
    column_config: Callable[[], Mapping[str, Any]]


_SEARCHABLE = {
    "keys": _Searchable(
        tables.search_keys, "Label or masked key", tables.TABLE_ORDER, key_table_columns
    ),
    "tags": _Searchable(tables.search_tags, "Tag", tables.TAG_TABLE_ORDER, tag_table_columns),
}


def searchable_table(table: pd.DataFrame, noun: Literal["keys", "tags"]) -> pd.DataFrame:
    """The per-key or per-tag table under a search box kept in the URL (`?q=`), so a filtered
    view can be shared; the rows shown are returned for what the page picks from them."""
    kind = _SEARCHABLE[noun]
    query = st.text_input(
        f"Search {noun}",
        key="q",
        bind="query-params",
        placeholder=kind.placeholder,
        icon=":material/search:",
    )
    shown = kind.search(table, query)
    st.dataframe(
        shown,
        hide_index=True,
        column_order=kind.column_order,
        height=min(38 + 35 * len(shown), 420),
        column_config=kind.column_config(),
    )
    st.caption(f"{len(shown):,} of {len(table):,} {noun}. Click a column header to sort.")
    return shown
