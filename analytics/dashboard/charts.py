"""The pages' figures, built once per table they draw.

Building a plotly figure validates every property it is given: at a thousand keys, the Tags
page's two charts took about 65 ms of each rerun's 120 ms of script, on every widget change
and page visit, though a figure depends only on the table it draws (itself cached by
`data`) and a few choices. `figure` keys each figure by its function, the table's contents,
names and shape, and the other arguments, and hands every rerun and session the same figure:
Streamlit copies a figure to send it (`Figure.to_dict`) and changes nothing in it, and no page
changes a figure after building it.

The tables are what a chart draws (one row per bucket of a range, a few thousand at most), so
hashing their contents costs a fraction of a millisecond.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from analytics.dashboard.data import USAGE_TTL

Table = pd.DataFrame | pd.Series


@st.cache_resource(ttl=USAGE_TTL, max_entries=256, show_spinner=False)
def _figure(
    name: str,
    table: Table,
    names: tuple[Hashable, ...],
    args: tuple[Any, ...],
    _build: Callable[..., go.Figure],
) -> go.Figure:
    return _build(table, *args)


def figure(build: Callable[..., go.Figure], table: Table, *args: Any) -> go.Figure:
    """`build(table, *args)`, built once for an equal table and equal arguments."""
    return _figure(f"{build.__module__}.{build.__qualname__}", table, _names(table), args, build)


def _names(table: Table) -> tuple[Hashable, ...]:
    """What the contents' hash leaves out and a figure may show: the index's names, and the
    columns' names of a frame or the name of a series."""
    if isinstance(table, pd.Series):
        return (*table.index.names, table.name)
    return (*table.index.names, *table.columns.names)
