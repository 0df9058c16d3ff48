"""Keys: one row per key with every metric, the top keys, and one key's usage by service."""

import streamlit as st

from analytics import charts, state, views

source = state.source()
period = state.period()
granularity = views.auto_granularity(period.start, period.end)

st.title("Keys")
st.caption(f"{views.range_text(period.start, period.end)} (UTC)")

with state.service_errors(source):
    table = state.view(source, period, views.key_table, period.start, period.end)

if table.empty:
    st.info("No key has usage in this range. Pick a longer range in the sidebar.")
    st.stop()

query = st.text_input(
    "Search keys",
    key="q",
    bind="query-params",
    placeholder="Label or masked key",
    icon=":material/search:",
)
shown = views.search_keys(table, query)
st.dataframe(
    shown,
    hide_index=True,
    column_order=views.TABLE_ORDER,
    height=min(38 + 35 * len(shown), 420),
    column_config=state.key_table_columns(),
)
st.caption(f"{len(shown):,} of {len(table):,} keys. Click a column header to sort.")

left, right = st.columns([1, 1], gap="large")
with left:
    st.subheader("Top keys")
    metric_col, top_col = st.columns([2, 1])
    metric = metric_col.selectbox(
        "Metric",
        views.METRICS,
        format_func=views.METRIC_LABELS.__getitem__,
        key="metric",
        bind="query-params",
    )
    top = top_col.number_input("Top N", 1, 50, 10, key="top", bind="query-params")
    totals = state.view(source, period, views.top_n_totals, metric, int(top))
    if totals.empty:
        st.info(f"No key used {views.METRIC_LABELS[metric].lower()} in this range.")
    else:
        st.plotly_chart(charts.top_keys_bar(totals, metric), key="top_keys")

with right:
    st.subheader("One key by service")
    names = views.key_names(table)
    chosen = st.selectbox(
        "Key",
        list(names),
        format_func=names.__getitem__,
        key="key",
        bind="query-params",
    )
    daily = state.view(
        source,
        period,
        views.usage_over_time,
        period.start,
        period.end,
        granularity,
        keys=(chosen,),
    )
    if not daily.to_numpy().any():
        st.info("This key has no usage in this range.")
    else:
        st.plotly_chart(charts.key_usage_by_service(daily, granularity), key="key_usage")
