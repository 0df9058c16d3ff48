"""The Capacity page's decision laid out: each metric's forecasts with their measured
accuracy and past forecasts against what happened, and the option recommended to buy with its
cost curve and every option. Given the decision, as the Plan panel is given its source, so the
page only places them; the decision itself is ``deciding``'s."""

from __future__ import annotations

import math
from functools import partial

import streamlit as st

from analytics.capacity import (
    Costed,
    Decision,
    Recommendation,
    accuracy_text,
    plain_verdict,
    plan_sentence,
)
from analytics.cost import MINOR_UNITS, estimate_text
from analytics.dashboard import charts
from analytics.dashboard.column_config import option_columns, outlook_columns
from analytics.figures import cost_curve_figure, past_forecasts_figure
from analytics.usage import (
    METRIC_LABELS,
    MINUTES,
    TOTAL_CHARACTERS,
    YearStart,
    format_value,
    is_minutes,
    rounded,
    share_text,
    unit_of,
)


def show_forecasts(decision: Decision, year_start: YearStart) -> None:
    """Each metric's forecasts with the what-ifs (and, with any, the projection without them
    beside), its measured accuracy beside them, and its past month-ahead forecasts against
    what happened: one metric at a time, its tab in the address, only the open tab drawn.
    Figures hold the digits they are shown with, each column naming its unit; the model
    serving each period beside it, named as the accuracy sentence names it (the contract year
    from ``year_start``)."""
    outlooks = decision.outlooks
    forecasts = decision.forecast_table  # the report's table too
    tabs = st.tabs([METRIC_LABELS[m] for m in outlooks], key="outlook", bind="query-params")
    for tab, (metric, found) in zip(tabs, outlooks.items(), strict=True):
        if not tab.open:
            continue
        rows = forecasts[forecasts["metric"] == metric].drop(columns="metric")
        with tab:
            table, chart = st.columns(2)
            table.markdown(f"**{METRIC_LABELS[metric]}**")
            table.caption(accuracy_text(found, year_start))
            table.dataframe(
                rows,
                hide_index=True,
                column_order=list(rows.columns),  # the report's columns, in its order
                column_config=outlook_columns(metric),
            )
            chart.plotly_chart(charts.figure(past_forecasts_figure, found.recent, metric))


def show_recommendation(decision: Decision, currency: str) -> None:
    """The option recommended against today's plan (the service's, as the Plan card shows
    it), the curve and every option: each tile and column names its unit."""
    found = decision.recommendation
    chosen = found.chosen
    if chosen is None:
        st.info("No option of the catalogue fits the term.", icon=":material/info:")
        return
    risk = share_text(found.risk)
    st.success(
        f"Recommended for the {decision.term} months from {decision.scenarios.months[0]}: "
        f"**{chosen.name}**"
        + (
            f", the cheapest expected within a {risk} chance of overage."
            if found.within_risk
            else f": no option stays within a {risk} chance of overage; this one is the least "
            "likely to run over."
        ),
        icon=":material/recommend:",
    )
    money = partial(estimate_text, currency=currency)
    if (without := plain_verdict(decision, money)) is not None:
        st.caption(without)
    recommended_tiles(found, chosen, currency)
    if decision.plan is not None:
        st.caption(plan_sentence(decision.plan, money))
    curve = found.curve()
    st.plotly_chart(charts.figure(cost_curve_figure, curve, currency, decision.term))
    st.dataframe(
        curve.assign(
            committed_characters=[rounded(v, TOTAL_CHARACTERS) for v in curve.committed_characters],
            committed_minutes=[rounded(v, MINUTES) for v in curve["committed_minutes"]],
            expected_cost=curve["expected_cost"].round(MINOR_UNITS[currency]),
            overage_chance=100 * curve["overage_chance"],
        ),
        hide_index=True,
        column_config=option_columns(currency),
    )
    for note in found.left_out:
        st.caption(f"Left out: {note}.")


def recommended_tiles(found: Recommendation, chosen: Costed, currency: str) -> None:
    """The chosen option's expected cost against today's plan, its chance of overage and what
    it leaves unused: the figures a buyer weighs first, each tile naming its unit."""
    today_plan = found.current
    decimals = MINOR_UNITS[currency]
    # The difference of the two costs as the table shows them, each in whole minor units.
    against = (
        None
        if today_plan is None or today_plan is chosen
        else round(chosen.expected_cost, decimals) - round(today_plan.expected_cost, decimals)
    )
    with st.container(horizontal=True):
        st.metric(
            f"Expected cost ({currency})",
            f"{chosen.expected_cost:,.{decimals}f}",
            delta=None
            if against is None
            else f"{against:+,.{decimals}f} {currency} against today's plan",
            delta_color="inverse",
        )
        st.metric("Chance of overage", share_text(chosen.overage_chance))
        for value, metric in (
            (chosen.unused_characters, TOTAL_CHARACTERS),
            (chosen.unused_minutes, MINUTES),
        ):
            unused = f"Expected unused {METRIC_LABELS[metric].lower()}"
            st.metric(
                unused if is_minutes(metric) else f"Expected unused {unit_of(metric)}",
                "no limit" if math.isnan(value) else format_value(value, metric),
            )
