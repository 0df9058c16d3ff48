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


def mark(src: Source, anomaly_id: str, given: Mark | None) -> None:
    """A button's action: mark the anomaly (None: make it new again)."""
    marks = marks_of(src)
    if marks is not None:
        marks.set(anomaly_id, given)
