"""Trends: one metric (or its cost) per key or team over time, top-N + Other, and the
breakdown of a period."""

from datetime import date

import streamlit as st

from analytics.cost import COST_LABELS
from analytics.dashboard import (
    charts,
    data,
    in_percent,
    key_table_columns,
    key_table_order,
    page,
    session,
    settings_name,
    visitor,
)
from analytics.figures import usage as figures
from analytics.usage import METRIC_LABELS, METRICS, calendar, tables

source = visitor.current().source
chosen_range = session.chosen_range()

view = page.view_select(page.header("Trends", chosen_range), source, chosen_range, grouping=True)
noun = "team" if view.by_team else "key"
table = page.key_table_or_stop(
    source, chosen_range, "No usage in this range. Pick a longer range in the sidebar.", view
)

row = st.container(horizontal=True, vertical_alignment="bottom")
with row:
    metric = page.metric_select(row, METRICS, width=260, view=view)
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
    f"{noun.capitalize()}s (all when empty)",
    key=f"{noun}s",
    placeholder=f"All {noun}s",
    **page.key_choices(table, source, chosen_range, f"{noun}s"),
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
    view=view,
)
if not wide.to_numpy().any():
    what = (COST_LABELS if view.cost else METRIC_LABELS)[metric].lower()
    st.info(f"No {what} for these {noun}s in this range.")
    st.stop()

shown = page.in_currency(wide, view)
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
    charts.figure(figures.keys_over_time, shown, metric, granularity, kind, view.currency or None),
    key="trend_chart",
    on_select=select_from_chart,
    selection_mode="points",
)
st.caption(
    f"One bar per {granularity} (UTC; weeks start on Monday, the last one may be partial). "
    f"Click a bar, or pick a period below, to see each {noun}'s "
    f"{'cost' if view.cost else 'usage'} in it."
    + (
        f" Cost at the prices in force ({settings_name('pricing', source)}), without the base fee."
        if view.cost
        else ""
    )
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
    view=view,
)
if breakdown.empty:
    st.info(f"No usage on {calendar.bucket_label(date.fromisoformat(chosen), granularity)}.")
else:
    st.dataframe(
        in_percent(page.shown_table(breakdown, view)),
        hide_index=True,
        column_order=key_table_order(view.by_team),
        column_config=key_table_columns(view.currency, view.by_team),
    )
