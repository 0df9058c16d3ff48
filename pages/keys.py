"""Keys: one row per key with every metric, the top keys, and one key's usage by service."""

import streamlit as st

from analytics.dashboard import data, page, session
from analytics.dashboard.source import source as data_source
from analytics.figures import usage as figures
from analytics.usage import calendar, tables
from analytics.usage.metrics import METRIC_LABELS, METRICS

source = data_source()
chosen = session.chosen_range()
granularity = calendar.auto_granularity(chosen.start, chosen.end)

page.header("Keys", chosen)
table = page.key_table_or_stop(
    source, chosen, "No key has usage in this range. Pick a longer range in the sidebar."
)

page.searchable_table(table, "keys")

left, right = st.columns([1, 1], gap="large")
with left:
    st.subheader("Top keys")
    metric_col, top_col = st.columns([2, 1])
    metric = page.metric_select(metric_col, METRICS)
    top = page.top_n_input(top_col)
    top_totals = data.table(source, chosen, tables.top_n_totals, metric, top)
    if top_totals.empty:
        st.info(f"No key used {METRIC_LABELS[metric].lower()} in this range.")
    else:
        st.plotly_chart(figures.top_keys_bar(top_totals, metric), key="top_keys")

with right:
    st.subheader("One key by service")
    key = st.selectbox("Key", key="key", **page.key_choices(table))
    daily = data.table(
        source,
        chosen,
        tables.usage_over_time,
        chosen.start,
        chosen.end,
        granularity,
        keys=(key,),
    )
    if not daily.to_numpy().any():
        st.info("This key has no usage in this range.")
    else:
        st.plotly_chart(figures.key_usage_by_service(daily, granularity), key="key_usage")
