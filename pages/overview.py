"""Overview: totals of the range with their change, and the service mix over time."""

import streamlit as st

from analytics import charts, periods, state, views

source = state.source()
period = state.period()
days = (period.end - period.start).days + 1
prev_start, prev_end = periods.previous_period(period.start, period.end)
previous = state.Period(prev_start, prev_end, "previous")
granularity = views.auto_granularity(period.start, period.end)

st.title("Overview")
st.caption(
    f"{views.range_text(period.start, period.end)} (UTC), compared with the previous "
    f"{days:,} days ({views.range_text(prev_start, prev_end)}). "
    f"Data through {views.data_through(state.today()):%Y-%m-%d} (UTC)."
)

with state.service_errors(source):
    current_totals = state.view(source, period, views.metric_totals)
    previous_totals = state.view(source, previous, views.metric_totals)
    over_time = state.view(
        source, period, views.usage_over_time, period.start, period.end, granularity
    )
    mismatches = state.usage(source, period.start, period.end).mismatches

if mismatches:
    st.warning("Totals did not reconcile for: " + "; ".join(mismatches), icon=":material/warning:")

tiles = views.kpis(current_totals, previous_totals)
for column, kpi in zip(st.columns(len(tiles)), tiles, strict=True):
    column.metric(
        views.SERVICE_LABELS.get(kpi.metric, kpi.label),
        kpi.value_text,
        delta=kpi.change_text,
        delta_color="normal" if kpi.change is not None else "off",
        delta_arrow="auto" if kpi.change is not None else "off",
        help=f"{kpi.label}; previous period: {views.format_value(kpi.previous, kpi.metric)}",
        border=True,
        chart_data=over_time[kpi.metric].round(2).tolist(),
        chart_type="area",
    )

if not any(current_totals.values()):
    st.info("No usage in this range. Pick a longer range in the sidebar.", icon=":material/info:")
    st.stop()

left, right = st.columns([3, 2], gap="large")
with left:
    st.subheader("Characters by service")
    st.plotly_chart(charts.service_mix(over_time, granularity), key="service_mix")
with right:
    st.subheader("Speech minutes")
    st.plotly_chart(charts.minutes_over_time(over_time, granularity), key="minutes")
st.caption(
    f"One point per {granularity} (UTC); weeks start on Monday, and the last period may be partial."
)
