"""Overview: totals of the range with their change, its new anomalies, the plan's billing
period, and the service mix over time."""

from pathlib import Path

import streamlit as st

from analytics.anomalies.tables import new_anomalies
from analytics.dashboard import data, session
from analytics.dashboard.anomalies import given_marks
from analytics.dashboard.messages import service_errors
from analytics.dashboard.plan import plan_panel
from analytics.dashboard.source import source as data_source
from analytics.figures import usage as figures
from analytics.usage import calendar, tables
from analytics.usage.frames import totals
from analytics.usage.metrics import SERVICE_LABELS, format_value

source = data_source()
chosen = session.chosen_range()
previous = session.ChosenRange(*calendar.previous_range(chosen.start, chosen.end), "previous")
granularity = calendar.auto_granularity(chosen.start, chosen.end)

st.title("Overview")
st.caption(
    f"{calendar.range_text(chosen.start, chosen.end)} (UTC), compared with the previous "
    f"{chosen.days:,} days ({calendar.range_text(previous.start, previous.end)}). "
    f"Data through {calendar.data_through(calendar.utc_today()):%Y-%m-%d} (UTC)."
)

with service_errors(source):
    current_totals = data.table(source, chosen, totals)
    previous_totals = data.table(source, previous, totals)
    over_time = data.table(
        source, chosen, tables.usage_over_time, chosen.start, chosen.end, granularity
    )
    mismatches = data.usage(source, chosen.start, chosen.end).mismatches

if mismatches:
    st.warning("Totals did not reconcile for: " + "; ".join(mismatches), icon=":material/warning:")

tiles = tables.kpis(current_totals, previous_totals)
# Two rows of three: six figures side by side would not fit a laptop screen.
columns = [*st.columns(3), *st.columns(3)]
for column, kpi in zip(columns, tiles, strict=True):
    column.metric(
        SERVICE_LABELS.get(kpi.metric, kpi.label),
        kpi.value_text,
        delta=kpi.change_text,
        delta_color="normal" if kpi.change is not None else "off",
        delta_arrow="auto" if kpi.change is not None else "off",
        help=f"{kpi.label}; previous period: {format_value(kpi.previous, kpi.metric)}",
        border=True,
        chart_data=over_time[kpi.metric].round(2).tolist(),
        chart_type="area",
    )

with service_errors(source):
    found = data.anomalies(source, chosen)
fresh = len(new_anomalies(found, given_marks(source)))
st.page_link(
    Path(__file__).with_name("anomalies.py"),
    label=f"{fresh:,} new {'anomaly' if fresh == 1 else 'anomalies'} in this range "
    f"({len(found):,} in all): spikes, drops, new and dormant keys",
    icon=":material/troubleshoot:",
)

plan_panel(source, calendar.utc_today())

if not any(current_totals.values()):
    st.info("No usage in this range. Pick a longer range in the sidebar.", icon=":material/info:")
    st.stop()

left, right = st.columns([3, 2], gap="large")
with left:
    st.subheader("Characters by service")
    st.plotly_chart(figures.service_mix(over_time, granularity), key="service_mix")
with right:
    st.subheader("Speech minutes")
    st.plotly_chart(figures.minutes_over_time(over_time, granularity), key="minutes")
st.caption(
    f"One point per {granularity} (UTC); weeks start on Monday, and the last period may be partial."
)
