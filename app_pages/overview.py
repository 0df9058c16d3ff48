"""Overview: totals of the range with their change (usage, or its cost), its new anomalies,
the plan's billing period, and the service mix over time."""

import streamlit as st

from analytics.anomalies import new_anomalies
from analytics.cost import (
    BASE_FEE,
    BASE_FEE_SHARE,
    TOTAL_COST,
    USAGE_COST,
    amount_text,
    cost_tiles,
    why_free,
)
from analytics.dashboard import (
    anomaly_review,
    charts,
    data,
    given_marks,
    page,
    plan_panel,
    service_errors,
    session,
    settings_name,
    visitor,
)
from analytics.figures import usage as figures
from analytics.pages import page_at
from analytics.usage import TOTAL_CHARACTERS, calendar, format_value, tables, totals

source = visitor.current().source
chosen = session.chosen_range()
previous = session.ChosenRange(*calendar.previous_range(chosen.start, chosen.end), "previous")
granularity = calendar.auto_granularity(chosen.start, chosen.end)

title = page.title_row("Overview")
st.caption(
    f"{calendar.range_text(chosen.start, chosen.end)} (UTC), compared with the previous "
    f"period {calendar.range_text(previous.start, previous.end)}. "
    f"Data through {calendar.data_through(calendar.utc_today()):%Y-%m-%d} (UTC)."
)
view = page.view_select(title, source, chosen)

with service_errors(source):
    current_totals = data.table(source, chosen, totals)
    previous_totals = data.table(source, previous, totals)
    over_time = data.table(
        source, chosen, tables.usage_over_time, chosen.start, chosen.end, granularity, view=view
    )
    mismatches = data.usage(source, chosen.start, chosen.end).mismatches

if mismatches:
    st.warning("Totals did not reconcile for: " + "; ".join(mismatches), icon=":material/warning:")

# (metric, label, value, change or None, change text, help) per tile, in usage or in money.
if view.cost and view.pricing is not None:
    with service_errors(source):
        # The scope's money: the organization's, or a team's rows of Chargeback.
        spent = data.range_cost(source, chosen, view)
        # A change compares like with like: none when either range has days without a price.
        before = None
        if data.wholly_priced(view.pricing, chosen, previous):
            before = data.range_cost(source, previous, view)
    tiles = [
        (
            t.metric,
            t.label,
            t.text,
            t.change,
            t.change_text,
            f"{t.label}; previous period: {t.previous_text}",
        )
        for t in cost_tiles(
            spent,
            before,
            view.currency,
            why_free(view.pricing, current_totals, chosen.start, chosen.end),
        )
    ]
else:
    tiles = [
        (
            kpi.metric,
            kpi.label,  # the metric's name with its unit: the tiles' figures are bare
            kpi.value_text,
            kpi.change,
            kpi.change_text,
            f"{kpi.label}; previous period: {format_value(kpi.previous, kpi.metric)}",
        )
        for kpi in tables.kpis(current_totals, previous_totals)
    ]
sparklines = page.in_currency(over_time, view)
# Two rows of three: six figures side by side would not fit a laptop screen.
columns = [*st.columns(3), *st.columns(3)]
for column, (metric, label, value, change, change_text, help_text) in zip(
    columns, tiles, strict=True
):
    column.metric(
        label,
        value,
        delta=change_text,
        # A cost that falls is good news: green, as a rise of usage is.
        delta_color="off" if change is None else "inverse" if view.cost else "normal",
        delta_arrow="auto" if change is not None else "off",
        help=help_text,
        border=True,
        chart_data=sparklines[metric].round(2).tolist(),
        chart_type="area",
    )
if view.cost and view.pricing is not None:
    fee_name = BASE_FEE_SHARE if spent.shared else BASE_FEE
    st.caption(
        f"{TOTAL_COST} {amount_text(spent.total, view.currency)} = "
        f"{USAGE_COST.lower()} {amount_text(spent.usage[TOTAL_CHARACTERS], view.currency)} + "
        f"{fee_name.lower()} {amount_text(spent.fee, view.currency)}, at the prices in force "
        f"({settings_name('pricing', source)}). "
        "Compared with the previous period at its prices (N/A when it has none)."
    )

with service_errors(source):
    found = anomaly_review.found(source, chosen)
fresh = len(new_anomalies(found, given_marks(source)))
st.page_link(
    page_at("anomalies").file,
    label=f"{fresh:,} new {'anomaly' if fresh == 1 else 'anomalies'} in this range "
    f"({len(found):,} in all): spikes, drops, new and dormant keys",
    icon=":material/troubleshoot:",
)

plan_panel(source, calendar.utc_today())

if not any(current_totals.values()):
    st.info("No usage in this range. Pick a longer range in the sidebar.", icon=":material/info:")
    st.stop()

if view.cost:
    st.subheader("Cost by service")
    st.plotly_chart(
        charts.figure(figures.cost_by_service, sparklines, granularity, view.currency),
        key="cost_mix",
    )
else:
    left, right = st.columns([3, 2], gap="large")
    with left:
        st.subheader("Characters by service")
        st.plotly_chart(
            charts.figure(figures.service_mix, over_time, granularity), key="service_mix"
        )
    with right:
        st.subheader("Speech minutes")
        st.plotly_chart(
            charts.figure(figures.minutes_over_time, over_time, granularity), key="minutes"
        )
st.caption(
    f"One point per {granularity} (UTC); weeks start on Monday, and the last period may be partial."
)
