"""The Trends page laid out: the chart's choices (metric, granularity, top N, a 7-day mean,
cumulative, the keys or teams), the chart of the top keys over time with Other, and the
breakdown of the period clicked or picked. Every widget of the page is here; what it shows is
read through the dashboard's cached reads."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date

import pandas as pd
import streamlit as st

from analytics.cost import COST_LABELS
from analytics.dashboard import charts, data, page, session
from analytics.dashboard.column_config import in_percent, key_table_columns, key_table_order
from analytics.dashboard.session import ChosenRange
from analytics.dashboard.settings_in_force import settings_name
from analytics.dashboard.source import Source
from analytics.dashboard.view import View
from analytics.figures import usage as figures
from analytics.usage import METRIC_LABELS, METRICS, Granularity, Metric, calendar, tables


@dataclass(frozen=True)
class Shown:
    """What the chart shows: its metric, its granularity, how many keys before Other, the
    keys (or teams) chosen (all when none), and whether as a 7-day mean or cumulative."""

    metric: Metric
    granularity: Granularity
    top: int
    rolling: bool
    running: bool
    keys: tuple[str, ...] = ()


def trends_page(source: Source) -> None:
    """The page, for the visitor's `source`."""
    chosen_range = session.chosen_range()
    view = page.view_select(
        page.header("Trends", chosen_range), source, chosen_range, grouping=True
    )
    noun = "team" if view.by_team else "key"
    table = page.key_table_or_stop(
        source, chosen_range, "No usage in this range. Pick a longer range in the sidebar.", view
    )
    choices = chart_choices(chosen_range, view)
    shown = replace(choices, keys=keys_chosen(source, chosen_range, table, noun))
    wide = data.table(
        source,
        chosen_range,
        tables.top_n_over_time,
        shown.metric,
        shown.top,
        chosen_range.start,
        chosen_range.end,
        shown.granularity,
        keys=shown.keys,
        view=view,
    )
    if not wide.to_numpy().any():
        what = (COST_LABELS if view.cost else METRIC_LABELS)[shown.metric].lower()
        st.info(f"No {what} for these {noun}s in this range.")
        st.stop()
    trend_chart(source, wide, shown, view, noun)
    period_breakdown(source, chosen_range, wide, shown, view)


def chart_choices(chosen_range: ChosenRange, view: View) -> Shown:
    """The row of the chart's choices, each kept in the address; a 7-day mean only of days."""
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
    return Shown(metric, granularity, top, rolling_on and granularity == "day", running)


def keys_chosen(
    source: Source, chosen_range: ChosenRange, table: pd.DataFrame, noun: str
) -> tuple[str, ...]:
    """The keys (or teams) the chart and the breakdown are of: all when none is chosen."""
    chosen_keys = st.multiselect(
        f"{noun.capitalize()}s (all when empty)",
        key=f"{noun}s",
        placeholder=f"All {noun}s",
        **page.key_choices(table, source, chosen_range, f"{noun}s"),
    )
    return tuple(chosen_keys)


def select_from_chart() -> None:
    """A clicked bar chooses the period shown below."""
    points = st.session_state["trend_chart"].selection.points
    if points:
        st.session_state["day"] = str(points[0]["x"])[:10]


def trend_chart(source: Source, wide: pd.DataFrame, shown: Shown, view: View, noun: str) -> None:
    """The top keys over time, as bars (lines when a mean or cumulative), a click on a bar
    choosing the period broken down below."""
    drawn = page.in_currency(wide, view)
    if shown.rolling:
        drawn = tables.rolling_mean(drawn)
    if shown.running:
        drawn = tables.cumulative(drawn)
    kind = "line" if shown.rolling or shown.running else "bar"
    st.plotly_chart(
        charts.figure(
            figures.keys_over_time,
            drawn,
            shown.metric,
            shown.granularity,
            kind,
            view.currency or None,
        ),
        key="trend_chart",
        on_select=select_from_chart,
        selection_mode="points",
    )
    st.caption(
        f"One bar per {shown.granularity} (UTC; weeks start on Monday, the last one may be "
        f"partial). Click a bar, or pick a period below, to see each {noun}'s "
        f"{'cost' if view.cost else 'usage'} in it."
        + (
            f" Cost at the prices in force ({settings_name('pricing', source)}), without the "
            "base fee."
            if view.cost
            else ""
        )
    )


def period_breakdown(
    source: Source, chosen_range: ChosenRange, wide: pd.DataFrame, shown: Shown, view: View
) -> None:
    """Each key's (or team's) usage or cost in the period picked, the last one at first."""
    options = [d.date().isoformat() for d in wide.index]
    chosen = st.selectbox(
        "Period",
        options,
        index=len(options) - 1,
        format_func=lambda d: calendar.bucket_label(date.fromisoformat(d), shown.granularity),
        key="day",
        bind="query-params",
    )
    breakdown = data.table(
        source,
        chosen_range,
        tables.bucket_breakdown,
        date.fromisoformat(chosen),
        shown.granularity,
        shown.metric,
        keys=shown.keys,
        view=view,
    )
    if breakdown.empty:
        day = calendar.bucket_label(date.fromisoformat(chosen), shown.granularity)
        st.info(f"No usage on {day}.")
    else:
        st.dataframe(
            in_percent(page.shown_table(breakdown, view)),
            hide_index=True,
            column_order=key_table_order(view.by_team),
            column_config=key_table_columns(view.currency, view.by_team),
        )
