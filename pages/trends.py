"""Trends: one metric per key over time, top-N + Other, and the per-key breakdown of a period."""

from datetime import date

import streamlit as st

from analytics.dashboard import data, page, session
from analytics.dashboard.columns import key_table_columns
from analytics.dashboard.source import source as data_source
from analytics.figures import usage as figures
from analytics.usage import calendar, tables
from analytics.usage.metrics import METRIC_LABELS, METRICS

source = data_source()
chosen_range = session.chosen_range()

page.header("Trends", chosen_range)
table = page.key_table_or_stop(
    source, chosen_range, "No usage in this range. Pick a longer range in the sidebar."
)

row = st.container(horizontal=True, vertical_alignment="bottom")
with row:
    metric = page.metric_select(row, METRICS, width=260)
    granularity = page.granularity_select(row, chosen_range)
    top = page.top_n_input(row, width=110)
    rolling_on = st.toggle(
        "7-day mean",
        key="rolling",
        bind="query-params",
        disabled=granularity != "day",
        help="Trailing mean of daily points (day granularity only).",
    )
    running = st.toggle("Cumulative", key="cumulative", bind="query-params")
rolling = rolling_on and granularity == "day"
chosen_keys = st.multiselect(
    "Keys (all when empty)", key="keys", placeholder="All keys", **page.key_choices(table)
)
keys = tuple(chosen_keys)
wide = data.table(
    source,
    chosen_range,
    tables.top_n_over_time,
    metric,
    top,
    chosen_range.start,
    chosen_range.end,
    granularity,
    keys=keys,
)
if not wide.to_numpy().any():
    st.info(f"No {METRIC_LABELS[metric].lower()} for these keys in this range.")
    st.stop()

shown = wide
if rolling:
    shown = tables.rolling_mean(shown)
if running:
    shown = tables.cumulative(shown)

options = [d.date().isoformat() for d in wide.index]


def select_from_chart() -> None:
    """A clicked bar chooses the period shown below."""
    points = st.session_state["trend_chart"].selection.points
    if points:
        st.session_state["day"] = str(points[0]["x"])[:10]


kind = "line" if rolling or running else "bar"
st.plotly_chart(
    figures.keys_over_time(shown, metric, granularity, kind),
    key="trend_chart",
    on_select=select_from_chart,
    selection_mode="points",
)
st.caption(
    f"One bar per {granularity} (UTC; weeks start on Monday, the last one may be partial). "
    "Click a bar, or pick a period below, to see each key's usage in it."
)

chosen = st.selectbox(
    "Period",
    options,
    index=len(options) - 1,
    format_func=lambda d: calendar.bucket_label(date.fromisoformat(d), granularity),
    key="day",
    bind="query-params",
)
breakdown = data.table(
    source,
    chosen_range,
    tables.bucket_breakdown,
    date.fromisoformat(chosen),
    granularity,
    metric,
    keys=keys,
)
if breakdown.empty:
    st.info(f"No usage on {calendar.bucket_label(date.fromisoformat(chosen), granularity)}.")
else:
    st.dataframe(
        breakdown,
        hide_index=True,
        column_order=tables.TABLE_ORDER,
        column_config=key_table_columns(),
    )
