"""The Overview page laid out: the range against the previous one, a tile per metric with its
change (usage, or its cost), the link to the range's new anomalies, the Plan panel, and the
service mix over time. Every widget of the page is here or in the panel it places
(``plan_panel``); what it shows is read through the dashboard's cached reads."""

from __future__ import annotations

from typing import NamedTuple

import pandas as pd
import streamlit as st

from analytics.anomalies import new_anomalies
from analytics.cost import (
    BASE_FEE,
    BASE_FEE_SHARE,
    TOTAL_COST,
    USAGE_COST,
    RangeCost,
    amount_text,
    cost_tiles,
    why_free,
)
from analytics.dashboard import anomaly_review, charts, data, page, session
from analytics.dashboard.anomaly_review import given_marks
from analytics.dashboard.messages import service_errors
from analytics.dashboard.plan_panel import plan_panel
from analytics.dashboard.session import ChosenRange
from analytics.dashboard.settings_in_force import settings_name
from analytics.dashboard.source import Source
from analytics.dashboard.view import View
from analytics.figures import usage as figures
from analytics.pages import page_at
from analytics.usage import TOTAL_CHARACTERS, Granularity, calendar, format_value, tables, totals


class Tile(NamedTuple):
    """One metric's tile, in usage or in money: its figure, its change against the previous
    period (None when there is nothing to compare with) and the help that names both."""

    metric: str
    label: str
    value: str
    change: float | None
    change_text: str
    help_text: str


def overview_page(source: Source) -> None:
    """The page, for the visitor's `source`."""
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
        st.warning(
            "Totals did not reconcile for: " + "; ".join(mismatches), icon=":material/warning:"
        )
    spent: RangeCost | None = None
    if view.cost and view.pricing is not None:
        spent, tiles = money_tiles(source, chosen, previous, view, current_totals)
    else:
        tiles = usage_tiles(current_totals, previous_totals)
    sparklines = page.in_currency(over_time, view)
    metric_tiles(tiles, sparklines, view)
    if spent is not None:
        cost_caption(source, spent, view)
    anomalies_link(source, chosen)
    plan_panel(source, calendar.utc_today())
    if not any(current_totals.values()):
        st.info(
            "No usage in this range. Pick a longer range in the sidebar.", icon=":material/info:"
        )
        st.stop()
    service_mix(over_time, sparklines, granularity, view)


def money_tiles(
    source: Source,
    chosen: ChosenRange,
    previous: ChosenRange,
    view: View,
    current_totals: dict[str, int | float],
) -> tuple[RangeCost, list[Tile]]:
    """What the range cost the scope (the organization's, or a team's rows of Chargeback),
    and its tiles; a change compares like with like: none when either range has days without
    a price."""
    assert view.pricing is not None
    with service_errors(source):
        spent = data.range_cost(source, chosen, view)
        before = None
        if data.wholly_priced(view.pricing, chosen, previous):
            before = data.range_cost(source, previous, view)
    tiles = [
        Tile(
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
    return spent, tiles


def usage_tiles(
    current_totals: dict[str, int | float], previous_totals: dict[str, int | float]
) -> list[Tile]:
    """The range's usage tiles against the previous period's."""
    return [
        Tile(
            kpi.metric,
            kpi.label,  # the metric's name with its unit: the tiles' figures are bare
            kpi.value_text,
            kpi.change,
            kpi.change_text,
            f"{kpi.label}; previous period: {format_value(kpi.previous, kpi.metric)}",
        )
        for kpi in tables.kpis(current_totals, previous_totals)
    ]


def metric_tiles(tiles: list[Tile], sparklines: pd.DataFrame, view: View) -> None:
    """The tiles, each with its metric's sparkline over the range."""
    # Two rows of three: six figures side by side would not fit a laptop screen.
    columns = [*st.columns(3), *st.columns(3)]
    for column, tile in zip(columns, tiles, strict=True):
        column.metric(
            tile.label,
            tile.value,
            delta=tile.change_text,
            # A cost that falls is good news: green, as a rise of usage is.
            delta_color="off" if tile.change is None else "inverse" if view.cost else "normal",
            delta_arrow="auto" if tile.change is not None else "off",
            help=tile.help_text,
            border=True,
            chart_data=sparklines[tile.metric].round(2).tolist(),
            chart_type="area",
        )


def cost_caption(source: Source, spent: RangeCost, view: View) -> None:
    """How the total cost is made: the usage cost and the base fee (or a team's share)."""
    fee_name = BASE_FEE_SHARE if spent.shared else BASE_FEE
    st.caption(
        f"{TOTAL_COST} {amount_text(spent.total, view.currency)} = "
        f"{USAGE_COST.lower()} {amount_text(spent.usage[TOTAL_CHARACTERS], view.currency)} + "
        f"{fee_name.lower()} {amount_text(spent.fee, view.currency)}, at the prices in force "
        f"({settings_name('pricing', source)}). "
        "Compared with the previous period at its prices (N/A when it has none)."
    )


def anomalies_link(source: Source, chosen: ChosenRange) -> None:
    """The link to the Anomalies page, counting the range's anomalies not yet marked."""
    with service_errors(source):
        found = anomaly_review.found(source, chosen)
    fresh = len(new_anomalies(found, given_marks(source)))
    st.page_link(
        page_at("anomalies").file,
        label=f"{fresh:,} new {'anomaly' if fresh == 1 else 'anomalies'} in this range "
        f"({len(found):,} in all): spikes, drops, new and dormant keys",
        icon=":material/troubleshoot:",
    )


def service_mix(
    over_time: pd.DataFrame, sparklines: pd.DataFrame, granularity: Granularity, view: View
) -> None:
    """The service mix over the range: its cost, or characters and speech minutes."""
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
        f"One point per {granularity} (UTC); weeks start on Monday, and the last period may be "
        "partial."
    )
