"""Marks on anomalies in the dashboard: read on every run, given with a button (the same file
as `python -m analytics mark-anomaly`)."""

from __future__ import annotations

import streamlit as st

from analytics.anomalies.marks import Mark, Marks, MarksFileError
from analytics.dashboard.source import Source


def marks_of(src: Source) -> Marks | None:
    """The source's marks file; None without a history folder (nothing can be marked)."""
    return Marks.for_settings(src.settings, src.demo)


def given_marks(src: Source) -> dict[str, Mark]:
    """The marks given so far; a file that cannot be read is a warning, and nothing marked."""
    marks = marks_of(src)
    if marks is None:
        return {}
    try:
        return marks.read()
    except MarksFileError as exc:
        st.warning(f"Marks cannot be shown: {exc}", icon=":material/warning:")
        return {}


# The session's last mark, as (anomaly id, the mark it replaced): what "Undo" gives back.
UNDO = "anomaly_undo"


def mark(src: Source, anomaly_id: str, given: Mark | None) -> None:
    """A button's action: mark the anomaly (None: make it new again), remembering the mark
    it had so the session can undo it."""
    marks = marks_of(src)
    if marks is not None:
        st.session_state[UNDO] = (anomaly_id, marks.read().get(anomaly_id))
        marks.set(anomaly_id, given)


def undoable(anomaly_id: str) -> bool:
    """True when the session's last mark was given to this anomaly."""
    last = st.session_state.get(UNDO)
    return last is not None and last[0] == anomaly_id


def undo(src: Source) -> None:
    """The undo button's action: give the last marked anomaly back the mark it had."""
    anomaly_id, previous = st.session_state.pop(UNDO)
    marks = marks_of(src)
    if marks is not None:
        marks.set(anomaly_id, previous)
