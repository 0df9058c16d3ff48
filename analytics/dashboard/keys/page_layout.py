"""The Keys page laid out: the range's table of keys (or teams) with each key's owner and
purpose, the top keys of a metric, and one key's (or team's) usage or cost by service. Every
widget of the page is here; what it shows is read through the dashboard's cached reads."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analytics.cost import COST_LABELS, PRICED_METRICS
from analytics.dashboard import charts, data, key_list, page, session
from analytics.dashboard.session import ChosenRange
from analytics.dashboard.settings_in_force import settings_name
from analytics.dashboard.source import Source
from analytics.dashboard.view import View
from analytics.figures import usage as figures
from analytics.keys import with_owners
from analytics.usage import METRIC_LABELS, METRICS, calendar, tables


def keys_page(source: Source) -> None:
    """The page, for the visitor's `source`."""
    chosen = session.chosen_range()
    view = page.view_select(page.header("Keys", chosen), source, chosen, grouping=True)
    noun = "team" if view.by_team else "key"
    table = page.key_table_or_stop(
        source,
        chosen,
        f"No {noun} has usage in this range. Pick a longer range in the sidebar.",
        view,
    )
    if not view.by_team:  # each key's owner and purpose, as Keys & limits shows them
        table = with_owners(table, key_list.teams_in_force(source), label="api_key_label")
    page.searchable_table(table, "keys", view)
    if view.cost:
        st.caption(
            f"Usage cost per {noun} at the prices in force ({settings_name('pricing', source)}): "
            "its share of the organization's lines, the same amount exports and the Chargeback "
            "page show. The base fee is no key's: the Chargeback page shares it between teams "
            "(base fee share)."
        )
    left, right = st.columns([1, 1], gap="large")
    with left:
        top_keys(source, chosen, view, noun)
    with right:
        one_key(source, chosen, view, noun, table)


def top_keys(source: Source, chosen: ChosenRange, view: View, noun: str) -> None:
    """The top keys (or teams) of the metric chosen, as bars."""
    st.subheader(f"Top {noun}s")
    metric_col, top_col = st.columns([2, 1])
    metric = page.metric_select(metric_col, METRICS, view=view)
    top = page.top_n_input(top_col)
    top_totals = data.table(source, chosen, tables.top_n_totals, metric, top, view=view)
    if top_totals.empty:
        what = (COST_LABELS if view.cost else METRIC_LABELS)[metric].lower()
        st.info(f"No {noun} had any {what} in this range.")
        return
    st.plotly_chart(
        charts.figure(
            figures.top_keys_bar,
            page.in_currency(top_totals, view),
            metric,
            view.currency or None,
        ),
        key="top_keys",
    )


def one_key(
    source: Source, chosen: ChosenRange, view: View, noun: str, table: pd.DataFrame
) -> None:
    """One key's (or team's) usage, or cost, by service over the range; where it costs
    nothing, why."""
    st.subheader(f"One {noun} by service")
    key = st.selectbox(noun.capitalize(), key=noun, **page.key_choices(table, source, chosen, noun))
    granularity = calendar.auto_granularity(chosen.start, chosen.end)
    daily, used = (
        data.table(
            source,
            chosen,
            tables.usage_over_time,
            chosen.start,
            chosen.end,
            granularity,
            keys=(key,),
            view=shown,
        )
        for shown in (view, view.in_usage)
    )
    if not used.to_numpy().any():
        st.info(f"This {noun} has no usage in this range.")
    elif view.cost and not daily.to_numpy().any():
        assert view.pricing is not None
        reason = view.pricing.free_because(PRICED_METRICS, chosen.start, chosen.end)
        st.info(f"This {noun}'s usage in this range costs nothing: {reason}.")
    elif view.cost:
        st.plotly_chart(
            charts.figure(
                figures.cost_by_service, page.in_currency(daily, view), granularity, view.currency
            ),
            key="key_cost",
        )
    else:
        st.plotly_chart(
            charts.figure(figures.key_usage_by_service, daily, granularity), key="key_usage"
        )
