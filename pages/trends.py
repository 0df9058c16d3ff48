"""Trends: one metric per key over time, top-N + Other, and the per-key breakdown of a period."""

from datetime import date

import streamlit as st

from analytics import charts, state, views

source = state.source()
period = state.period()

st.title("Trends")
st.caption(f"{views.range_text(period.start, period.end)} (UTC)")

with state.service_errors(source):
    table = state.view(source, period, views.key_table, period.start, period.end)

if table.empty:
    st.info("No usage in this range. Pick a longer range in the sidebar.")
    st.stop()

allowed = views.allowed_granularities(period.start, period.end)
auto = views.auto_granularity(period.start, period.end)
names = views.key_names(table)
with st.container(horizontal=True, vertical_alignment="bottom"):
    metric = st.selectbox(
        "Metric",
        views.METRICS,
        format_func=views.METRIC_LABELS.__getitem__,
        key="metric",
        bind="query-params",
        width=260,
    )
    chosen_granularity = st.segmented_control(
        "Granularity",
        allowed,
        default=auto,
        format_func=str.capitalize,
        required=True,
        key="granularity",
        bind="query-params",
    )
    granularity = chosen_granularity or auto
    top = st.number_input("Top N", 1, 50, 10, key="top", bind="query-params", width=110)
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
    "Keys (all when empty)",
    list(names),
    format_func=names.__getitem__,
    key="keys",
    bind="query-params",
    placeholder="All keys",
)
keys = tuple(chosen_keys)
wide = state.view(
    source,
    period,
    views.top_n_over_time,
    metric,
    int(top),
    period.start,
    period.end,
    granularity,
    keys=keys,
)
if not wide.to_numpy().any():
    st.info(f"No {views.METRIC_LABELS[metric].lower()} for these keys in this range.")
    st.stop()

shown = wide
if rolling:
    shown = views.rolling_mean(shown)
if running:
    shown = views.cumulative(shown)

options = [d.date().isoformat() for d in wide.index]


def select_from_chart() -> None:
    """A clicked bar chooses the period shown below."""
    points = st.session_state["trend_chart"].selection.points
    if points:
        st.session_state["day"] = str(points[0]["x"])[:10]


kind = "line" if rolling or running else "bar"
st.plotly_chart(
    charts.keys_over_time(shown, metric, granularity, kind),
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
    format_func=lambda d: views.period_label(date.fromisoformat(d), granularity),
    key="day",
    bind="query-params",
)
breakdown = state.view(
    source,
    period,
    views.period_breakdown,
    date.fromisoformat(chosen),
    granularity,
    metric,
    keys=keys,
)
if breakdown.empty:
    st.info(f"No usage on {views.period_label(date.fromisoformat(chosen), granularity)}.")
else:
    st.dataframe(
        breakdown,
        hide_index=True,
        column_order=views.TABLE_ORDER,
        column_config=state.key_table_columns(),
    )
