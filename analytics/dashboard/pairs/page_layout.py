"""The Language pairs page laid out, one function a section: the metric and the language that
narrows every view, the top pairs, the source × target heat map, the pairs over time, and one
pair's features or keys. The range's pair tables are read through `data`, cached per source,
range and language; the language lists through `language_cache`."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analytics import languages
from analytics.dashboard import charts, data, language_cache, page, session
from analytics.dashboard.column_config import in_percent, language_columns, pair_table_columns
from analytics.dashboard.messages import service_errors
from analytics.dashboard.session import ChosenRange
from analytics.dashboard.source import Source
from analytics.figures import usage as figures
from analytics.usage import METRIC_LABELS, METRICS, Metric, format_value, tables

RESOURCE = "translate_text"


def pairs_page(source: Source) -> None:
    """The whole page over `source`: it stops after the controls when no pair has any of the
    metric in the range."""
    chosen = session.chosen_range()
    page.header("Language pairs", chosen)
    metric, given, language = metric_and_language(source)
    of_language = f" of {given.strip()}'s pairs" if language else ""
    with service_errors(source):
        table = data.pairs_table(source, chosen, language, tables.pair_table, metric)
    if table.empty or not table[metric].any():
        st.info(
            f"No {METRIC_LABELS[metric].lower()} on any language pair{of_language} in this range."
        )
        st.stop()
    top_pairs(table, metric, of_language)
    st.subheader("Source × target")
    with service_errors(source):
        matrix = data.pairs_table(source, chosen, language, tables.pair_matrix, metric)
    st.plotly_chart(charts.figure(figures.pair_heatmap, matrix, metric), key="pairs_heatmap")
    pairs_over_time(source, chosen, language, metric, of_language)
    one_pair(source, chosen, language, table)


def metric_and_language(source: Source) -> tuple[Metric, str, str]:
    """The metric and the language typed, with the code it names ("" for every pair, and a
    warning when it names none)."""
    row = st.container(horizontal=True, vertical_alignment="bottom")
    with row:
        metric = page.metric_select(row, METRICS, width=260)
        # A language chosen elsewhere (the Languages page links here with it) narrows the pairs.
        given = st.text_input(
            "Language",
            key="language",
            bind="query-params",
            width=220,
            placeholder="Code or name: DE, German",
            help="Narrows every view below to the pairs this language is the source or target "
            "of (en takes en-GB and en-US too).",
        )
    with service_errors(source):
        code = languages.language_code(given, language_cache.language_lists(source))
    if code is None:
        st.warning(
            f"No language is called {given.strip()!r}: type a code (DE) or an English name "
            "(German). Showing every pair.",
            icon=":material/warning:",
        )
    return metric, given, code or ""


def top_pairs(table: pd.DataFrame, metric: Metric, of_language: str) -> None:
    """The pairs, biggest first, with their share of the organization's usage."""
    st.subheader("Top pairs")
    st.dataframe(
        in_percent(table),
        hide_index=True,
        column_order=tables.PAIR_TABLE_ORDER,
        height=min(38 + 35 * len(table), 420),
        column_config=pair_table_columns(f"Share of {METRIC_LABELS[metric].lower()}"),
    )
    st.caption(
        f"Share of the organization's {METRIC_LABELS[metric].lower()}{of_language}: every unit "
        "of usage belongs to one pair. Same-language pairs (en → en) are text improvement and "
        "speech-to-text; - → - is usage whose languages the service did not record."
    )


def pairs_over_time(
    source: Source, chosen: ChosenRange, language: str, metric: Metric, of_language: str
) -> None:
    """The granularity and top-N controls and the chart of the top pairs and Other over time."""
    st.subheader("Pairs over time")
    controls = st.container(horizontal=True, vertical_alignment="bottom")
    with controls:
        granularity = page.granularity_select(controls, chosen)
        top = page.top_n_input(controls, width=110)
    with service_errors(source):
        wide = data.pairs_table(
            source,
            chosen,
            language,
            tables.top_n_over_time,
            metric,
            top,
            chosen.start,
            chosen.end,
            granularity,
            "pair",
        )
    st.plotly_chart(
        charts.figure(figures.keys_over_time, wide, metric, granularity), key="pairs_chart"
    )
    st.caption(
        f"{METRIC_LABELS[metric]} per {granularity} (UTC): the top {top} pairs and Other for the "
        f"rest; each bar is the organization's usage{of_language}."
    )


def one_pair(source: Source, chosen: ChosenRange, language: str, table: pd.DataFrame) -> None:
    """One pair of the table, chosen: its keys, or the text translation features the language
    lists give it."""
    st.subheader("One pair")
    row = st.container(horizontal=True, vertical_alignment="bottom")
    with row:
        pair = st.selectbox("Pair", table["pair"].tolist(), key="pair", bind="query-params")
        shown = page.segments(
            row,
            "Show",
            {"features": "Features", "keys": "Keys"},
            "features",
            "pair_view",
            tip="A pair's keys come from usage per pair and key: several times the rows to load.",
        )
    chosen_row = table[table["pair"] == pair].iloc[0]
    pair_source, pair_target = (
        str(chosen_row["source_language"]),
        str(chosen_row["target_language"]),
    )
    if shown == "keys":
        with service_errors(source):
            keys = data.pairs_table(
                source, chosen, language, tables.pair_keys, pair_source, pair_target
            )
        st.dataframe(
            in_percent(keys),
            hide_index=True,
            column_order=("key", "share", *METRICS),
            column_config=pair_table_columns("Share of the pair's characters"),
        )
        st.caption(
            f"{pair}: {format_value(keys['total_characters'].sum(), 'total_characters')} "
            f"characters from {len(keys):,} keys; unattributed is usage the service ties to no key."
        )
    else:
        pair_features(source, pair, pair_source, pair_target)


def pair_features(source: Source, pair: str, pair_source: str, pair_target: str) -> None:
    """The text translation features of a pair, or why it has none: it is no translation pair
    of the text translation list."""
    with service_errors(source):
        entries = language_cache.language_lists(source)[RESOURCE]
        resources = language_cache.language_resources(source)
    codes = {entry.lang for entry in entries}
    if pair_source == pair_target or not {pair_source, pair_target} <= codes:
        st.info(f"{pair} is not a translation pair of the text translation list.")
    else:
        usable = languages.pair_features(resources, entries, RESOURCE, pair_source, pair_target)
        st.dataframe(usable, hide_index=True, column_config=language_columns(usable))
        st.caption(
            f"Text translation features for {pair}: "
            f"{int(usable['available'].sum())} of {len(usable)} available."
        )
