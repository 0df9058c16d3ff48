"""The Tags page laid out, one function a section: the text characters and their tagged share,
the tags over time, the tag table (in Cost, priced and with each tag's team), and one tag by
day. Each section reads the range's tag tables through `data`, cached per source and range."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analytics.cost import PricingSettingsError, TeamSettingsError
from analytics.dashboard import charts, data, page, session
from analytics.dashboard.column_config import in_percent, tag_table_columns
from analytics.dashboard.messages import service_errors
from analytics.dashboard.session import ChosenRange
from analytics.dashboard.settings_in_force import settings_name
from analytics.dashboard.source import Source
from analytics.dashboard.view import USAGE_BY_KEY
from analytics.figures import usage as figures
from analytics.usage import (
    TAG_METRICS,
    Granularity,
    count_text,
    format_value,
    share_text,
    tables,
)


def tags_page(source: Source) -> None:
    """The whole page over `source`: it stops after the summary when the range has no text
    characters, and after the tag table's heading when no characters carried a tag."""
    chosen = session.chosen_range()
    view = page.view_select(page.header("Tags", chosen), source, chosen)
    with service_errors(source):
        summary = data.tags_table(source, chosen, tables.tag_summary)
        table = data.tags_table(source, chosen, tables.tag_table, chosen.start, chosen.end)
    tag_summary(summary)
    if not summary.text_characters and table.empty:
        st.info("No text characters in this range. Pick a longer range in the sidebar.")
        st.stop()
    granularity = tags_over_time(source, chosen)
    st.subheader("Tag table")
    if table.empty:
        st.info("No characters carried a custom tag in this range.")
        st.stop()
    shown = tag_table(source, chosen, table, cost=view.cost)
    one_tag(source, chosen, table, shown, granularity)


def tag_summary(summary: tables.TagSummary) -> None:
    """The text characters, tagged and untagged, and the tagged share, with what they count."""
    share = summary.tagged_share
    for column, (label, value, help_text) in zip(
        st.columns(4),
        [
            (
                tables.TEXT_CHARACTERS_LABEL,
                count_text(summary.text_characters),
                "Text translation + improvement",
            ),
            ("Tagged", count_text(summary.tagged), "Characters that carry a custom tag"),
            ("Untagged", count_text(summary.untagged), "Text characters without a custom tag"),
            ("Tagged share", share_text(share), "Of the text characters"),
        ],
        strict=True,
    ):
        column.metric(label, value, help=help_text, border=True)
    st.caption(
        "Custom tags mark text translation and text improvement requests; documents and speech "
        "are never tagged, so shares are of the organization's text characters."
    )


def tags_over_time(source: Source, chosen: ChosenRange) -> Granularity:
    """The metric, granularity and top-N controls and the chart of the top tags, Other and
    Untagged over time; the granularity chosen, which one tag's chart shares."""
    row = st.container(horizontal=True, vertical_alignment="bottom")
    with row:
        metric = page.metric_select(row, TAG_METRICS, width=260, names=tables.TAG_LABELS)
        granularity = page.granularity_select(row, chosen)
        top = page.top_n_input(row, width=110)
    with service_errors(source):
        wide = data.tags_table(
            source,
            chosen,
            tables.tags_over_time,
            metric,
            top,
            chosen.start,
            chosen.end,
            granularity,
        )
    st.plotly_chart(
        charts.figure(figures.tags_over_time, wide, metric, granularity), key="tags_chart"
    )
    st.caption(
        f"{tables.TAG_LABELS[metric]} per {granularity} (UTC; weeks start on Monday, the last one "
        f"may be partial): the top {top} tags, Other for the remaining tags and Untagged for the "
        "organization's characters without a tag; each bar is all of them."
    )
    return granularity


def tag_table(
    source: Source, chosen: ChosenRange, table: pd.DataFrame, *, cost: bool
) -> pd.DataFrame:
    """The searchable tag table, in Cost (the session's switch) with each tag's cost at list
    prices and its team (teams.toml), or in usage when the settings in force cannot price it;
    the rows the search leaves."""
    money = page.money_settings(source) if cost else USAGE_BY_KEY
    if money.cost:
        try:
            with service_errors(source):
                table = data.priced_tag_table(source, chosen, money)
        except (PricingSettingsError, TeamSettingsError) as exc:
            st.warning(f"{exc}. Costs are left out.", icon=":material/warning:")
            money = USAGE_BY_KEY
    shown = page.searchable_table(table, "tags", money)
    if money.cost:
        st.caption(
            f"Cost at the list prices in force ({settings_name('pricing', source)}): the included "
            "volume and the base fee are the organization's, never a tag's. A tag's team comes "
            f"from the teams in force ({settings_name('teams', source)})."
        )
    return shown


def one_tag(
    source: Source,
    chosen: ChosenRange,
    table: pd.DataFrame,
    shown: pd.DataFrame,
    granularity: Granularity,
) -> None:
    """One tag's days, as a chart and a table: the tag chosen among the biggest matches of the
    search, and the tag a link names; a tag out of the visitor's scope refused."""
    st.subheader("One tag by day")
    session.refuse_unseen(
        "tag", lambda asked: not source.visible.tags([asked]), source.visible.scope
    )
    choices = tables.tag_choices(table, shown, st.query_params.get("tag"))
    tag = st.selectbox("Tag", choices.tags, key="tag", bind="query-params")
    if choices.narrowed:
        st.caption(
            f"The {tables.TAG_CHOICES} biggest of {choices.matching:,} tags: search the tag table "
            "to reach the others."
        )
    days = data.tags_table(source, chosen, tables.tag_days, tag)
    left, right = st.columns([3, 2], gap="large")
    with left:
        over_time = tables.usage_over_time(days, chosen.start, chosen.end, granularity, TAG_METRICS)
        st.plotly_chart(charts.figure(figures.service_mix, over_time, granularity), key="tag_chart")
    with right:
        st.dataframe(
            in_percent(days.sort_values("usage_date", ascending=False)),
            hide_index=True,
            column_order=("usage_date", "share", *TAG_METRICS),
            height=380,
            column_config=tag_table_columns(),
        )
    st.caption(
        f"{tag}: {format_value(days['total_characters'].sum(), 'total_characters')} text "
        f"characters on {len(days):,} days; the share is of that day's text characters."
    )
