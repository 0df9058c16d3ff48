"""The Anomalies page laid out: the counts of the range's anomalies, the table of those listed
(new, or all), and the one chosen, kept in the address by its id: its chart, its sentence and
the buttons that mark it. The anomalies and their marks are `anomaly_review`'s."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import streamlit as st

from analytics.anomalies import (
    ORGANIZATION,
    TABLE_COLUMNS,
    Anomaly,
    Mark,
    anomaly_counts,
    anomaly_name,
    anomaly_table,
    method_caption,
    shown_anomalies,
    status,
)
from analytics.dashboard import anomaly_review, charts, page, session
from analytics.dashboard.anomaly_review import given_marks, mark, marks_of, undo, undoable
from analytics.dashboard.column_config import anomaly_columns
from analytics.dashboard.messages import service_errors
from analytics.dashboard.session import ChosenRange
from analytics.dashboard.source import Source
from analytics.figures import anomaly_figure
from analytics.pages import page_at
from analytics.usage import METRIC_LABELS, count_text

LISTED = {"new": "New", "all": "All"}
# (label, the mark it gives: None clears it, help, icon); a button is off in the status it gives
BUTTONS = (
    (
        "Mark expected",
        "expected",
        "Planned activity: no longer reported as new.",
        "event_available",
    ),
    ("Mark acknowledged", "acknowledged", "Seen and being handled: no longer new.", "done"),
    ("Clear the mark", None, None, "undo"),
)


def anomalies_page(source: Source) -> None:
    """The page, for the visitor's `source`."""
    chosen = session.chosen_range()
    page.header("Anomalies", chosen)
    st.caption(method_caption())
    with service_errors(source):
        found = anomaly_review.found(source, chosen)
        anomaly_review.refuse_outside(source, chosen, "anomaly")
    marks = given_marks(source)
    table = anomaly_table(found, marks)
    counts = anomaly_counts(table)
    for column, (label, count) in zip(st.columns(len(counts)), counts.items(), strict=True):
        column.metric(label, count_text(count), border=True)
    shown = listed_anomalies(table)
    if shown.empty:
        st.info(
            "No anomalies in this range." if table.empty else "No new anomalies in this range.",
            icon=":material/check_circle:",
        )
        st.stop()
    st.dataframe(
        shown,
        hide_index=True,
        column_order=TABLE_COLUMNS[:-1],
        height=min(38 + 35 * len(shown), 420),
        column_config=anomaly_columns(),
    )
    st.caption(f"{len(shown):,} of {len(table):,} anomalies, most severe first, then the newest.")
    st.subheader("One anomaly")
    anomaly = chosen_anomaly(found, shown)
    anomaly_chart(source, chosen, anomaly)
    mark_buttons(source, anomaly, marks)


def listed_anomalies(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of `table` the Show choice lists, with the one an address names."""
    # Its own parameter, `listed`: `show` is the session's Usage / Cost choice, which every
    # page's address carries.
    listed = page.segments(st.container(), "Show", LISTED, "new", "listed")
    looked_at = st.session_state.get("anomaly", st.query_params.get("anomaly"))
    return shown_anomalies(table, listed, looked_at)


def chosen_anomaly(found: list[Anomaly], shown: pd.DataFrame) -> Anomaly:
    """The anomaly chosen in the box of those `shown`, kept in the address by its id."""
    by_id = {a.id: a for a in found}
    names = {anomaly_id: anomaly_name(by_id[anomaly_id]) for anomaly_id in shown["id"]}
    # An alert's link names its anomaly by id; an older link by its name as the box shows it.
    by_name = {name: anomaly_id for anomaly_id, name in names.items()}
    session.choice_in_address("anomaly", list(names), by_name.get)
    chosen_id = st.selectbox(
        "Anomaly",
        list(names),
        format_func=names.__getitem__,
        key="anomaly",
        on_change=session.choice_to_address,
        args=("anomaly",),
    )
    return by_id[chosen_id]


def anomaly_chart(source: Source, chosen: ChosenRange, anomaly: Anomaly) -> None:
    """The anomaly's days with its marks, its sentence, and a link to its key's limits."""
    with service_errors(source):
        days = anomaly_review.days_of(source, chosen, anomaly)
    title = f"{anomaly.label or anomaly.api_key} · {METRIC_LABELS[anomaly.metric]}"
    st.plotly_chart(charts.figure(anomaly_figure, days, anomaly.metric, title), key="anomaly_chart")
    st.markdown(anomaly.sentence)
    if anomaly.api_key != ORGANIZATION:
        st.page_link(
            page_at("limits").file,
            label="Set a limit on this key or deactivate it",
            icon=":material/vpn_key:",
            query_params={"key": anomaly.api_key},
        )


def mark_buttons(source: Source, anomaly: Anomaly, marks: Mapping[str, Mark]) -> None:
    """The buttons that mark the anomaly, Undo, and its status."""
    now = status(anomaly.id, marks)
    writable = marks_of(source) is not None
    with st.container(horizontal=True, vertical_alignment="center"):
        for label, given, tip, icon in BUTTONS:
            st.button(
                label,
                on_click=mark,
                args=(source, anomaly.id, given),
                disabled=not writable or now == (given or "new"),
                help=tip,
                icon=f":material/{icon}:",
                key=f"mark_{given or 'clear'}",
            )
        if undoable(anomaly.id):
            st.button(
                "Undo", on_click=undo, args=(source,), icon=":material/undo:", key="mark_undo"
            )
    st.caption(
        f"Status: **{now}** · from the command line: `mark-anomaly '{anomaly.id}' acknowledged`"
        + ("" if writable else " · set SERVICE_HISTORY_PATH to keep marks")
    )
