"""The pages' figures, built once per table they draw.

Building a plotly figure validates every property it is given: at a thousand keys, the Tags
page's two charts took about 65 ms of each rerun's 120 ms of script, on every widget change
and page visit, though a figure depends only on the table it draws (itself cached by
`data`) and a few choices. `figure` keys each figure by its function, the table's contents,
names and shape, and the other arguments, and hands every rerun and session the same figure:
Streamlit copies a figure to send it (`Figure.to_dict`) and changes nothing in it, and no page
changes a figure after building it.

The tables are what a chart draws (one row per bucket of a range, a few thousand at most), so
hashing their contents costs a fraction of a millisecond. A figure may also draw a frozen
record holding a table and its choices (Capacity's `ForecastPath`): Streamlit hashes a
dataclass by its fields, the table's contents among them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from analytics.dashboard.data import USAGE_TTL


@st.cache_resource(ttl=USAGE_TTL, max_entries=256, show_spinner=False)
def _figure(
    name: str,
    drawn: Any,
    names: tuple[Hashable, ...],
    args: tuple[Any, ...],
    _build: Callable[..., go.Figure],
) -> go.Figure:
    return _build(drawn, *args)


def figure(build: Callable[..., go.Figure], drawn: Any, *args: Any) -> go.Figure:
    """`build(drawn, *args)`, built once for an equal table (or record) and equal arguments."""
    return _figure(f"{build.__module__}.{build.__qualname__}", drawn, _names(drawn), args, build)


def _names(drawn: Any) -> tuple[Hashable, ...]:
    """What the contents' hash leaves out and a figure may show: the index's names, and the
    columns' names of a frame or the name of a series, of every table a record holds."""
    if isinstance(drawn, pd.Series):
        return (*drawn.index.names, drawn.name)
    if isinstance(drawn, pd.DataFrame):
        return (*drawn.index.names, *drawn.columns.names)
    if dataclasses.is_dataclass(drawn):
        return tuple(n for f in dataclasses.fields(drawn) for n in _names(getattr(drawn, f.name)))
    return ()
