"""Anomalies: days that broke a key's (or the organization's) weekday habit in the range,
spikes, drops, new keys and dormant keys used again, with a chart of one and its marks."""

import streamlit as st

from analytics.anomalies import (
    ORGANIZATION,
    TABLE_COLUMNS,
    anomaly_counts,
    anomaly_name,
    anomaly_table,
    method_caption,
    shown_anomalies,
    status,
)
from analytics.dashboard import (
    anomaly_columns,
    anomaly_review,
    charts,
    given_marks,
    mark,
    marks_of,
    page,
    service_errors,
    session,
    undo,
    undoable,
    visitor,
)
from analytics.figures import anomaly_figure
from analytics.pages import page_at
from analytics.usage import METRIC_LABELS, count_text

LISTED = {"new": "New", "all": "All"}

source = visitor.current().source
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

# Its own parameter, `listed`: `show` is the session's Usage / Cost choice, which every page's
# address carries.
listed = page.segments(st.container(), "Show", LISTED, "new", "listed")
looked_at = st.session_state.get("anomaly", st.query_params.get("anomaly"))
shown = shown_anomalies(table, listed, looked_at)
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
anomaly = by_id[chosen_id]
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

now = status(anomaly.id, marks)
writable = marks_of(source) is not None
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
        st.button("Undo", on_click=undo, args=(source,), icon=":material/undo:", key="mark_undo")
st.caption(
    f"Status: **{now}** · from the command line: `mark-anomaly '{anomaly.id}' acknowledged`"
    + ("" if writable else " · set SERVICE_HISTORY_PATH to keep marks")
)
