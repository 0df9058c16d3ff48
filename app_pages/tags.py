"""Tags: characters per custom tag over time, top-N + Other + Untagged, the tag table (in Cost,
with each tag's cost and team), and one tag's days."""

import streamlit as st

from analytics.cost import PricingSettingsError, TeamSettingsError
from analytics.dashboard import (
    USAGE_BY_KEY,
    charts,
    data,
    in_percent,
    page,
    service_errors,
    session,
    settings_name,
    tag_table_columns,
    visitor,
)
from analytics.figures import usage as figures
from analytics.usage import TAG_METRICS, count_text, format_value, share_text, tables

source = visitor.current().source
chosen = session.chosen_range()

view = page.view_select(page.header("Tags", chosen), source, chosen)

with service_errors(source):
    summary = data.tags_table(source, chosen, tables.tag_summary)
    table = data.tags_table(source, chosen, tables.tag_table, chosen.start, chosen.end)

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
if not summary.text_characters and table.empty:
    st.info("No text characters in this range. Pick a longer range in the sidebar.")
    st.stop()

row = st.container(horizontal=True, vertical_alignment="bottom")
with row:
    metric = page.metric_select(row, TAG_METRICS, width=260, names=tables.TAG_LABELS)
    granularity = page.granularity_select(row, chosen)
    top = page.top_n_input(row, width=110)

with service_errors(source):
    wide = data.tags_table(
        source, chosen, tables.tags_over_time, metric, top, chosen.start, chosen.end, granularity
    )
st.plotly_chart(charts.figure(figures.tags_over_time, wide, metric, granularity), key="tags_chart")
st.caption(
    f"{tables.TAG_LABELS[metric]} per {granularity} (UTC; weeks start on Monday, the last one may "
    f"be partial): the top {top} tags, Other for the remaining tags and Untagged for the "
    "organization's characters without a tag; each bar is all of them."
)

st.subheader("Tag table")
if table.empty:
    st.info("No characters carried a custom tag in this range.")
    st.stop()
# In Cost, each tag's cost at list prices and its team (teams.toml): the session's switch.
money = page.money_settings(source) if view.cost else USAGE_BY_KEY
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

st.subheader("One tag by day")
# The search narrows the choices: the biggest matches, and the tag a link names.
session.refuse_unseen("tag", lambda asked: not source.visible.tags([asked]), source.visible.scope)
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
    f"{tag}: {format_value(days['total_characters'].sum(), 'total_characters')} text characters on "
    f"{len(days):,} days; the share is of that day's text characters."
)
