"""Anomalies in the dashboard: found once per range (cached), and their marks, read on every
run and given with a button (the same file as `python -m analytics mark-anomaly`)."""

from __future__ import annotations

from datetime import date

import pandas as pd
import streamlit as st

from analytics.anomalies import (
    ORGANIZATION,
    Anomaly,
    Mark,
    Marks,
    anomalies_in,
    anomaly_days,
    judged_days,
    named_series,
)
from analytics.dashboard.data import USAGE_TTL, Cached, unseen_keys
from analytics.dashboard.messages import show_store_error, store_errors
from analytics.dashboard.session import ChosenRange, refuse_unseen
from analytics.dashboard.source import Source
from analytics.storage import StoreError


@st.cache_data(ttl=USAGE_TTL, max_entries=12, show_spinner="Looking for anomalies…")
def _found(fingerprint: str, start: date, end: date, _source: Source) -> list[Anomaly]:
    return anomalies_in(Cached(_source), start, end, _source.visible.scope.whole_series)


def found(src: Source, chosen: ChosenRange) -> list[Anomaly]:
    """The range's anomalies, each day against the weeks before it (read with it), a team's
    keys against the team's own sum (cached per scope: the fingerprint names it)."""
    return _found(src.fingerprint, chosen.start, chosen.end, src)


def refuse_outside(src: Source, chosen: ChosenRange, param: str) -> None:
    """Say, in the one refusal line of a key outside the scope, that the address's anomaly
    (``param``: its id, or its name in words) is of a series the session's scope does not see:
    another team's key, or the organization's own series. Checked whether or not the range
    finds it, so it is never silently replaced by one of the scope's own."""
    scope = src.visible.scope
    if scope.whole:
        return
    unseen = unseen_keys(src, *judged_days(chosen.start, chosen.end))

    def outside(asked: str) -> bool:
        series = named_series(asked)
        return series == ORGANIZATION or series in unseen

    refuse_unseen(param, outside, scope)


@st.cache_data(ttl=USAGE_TTL, max_entries=32, show_spinner=False)
def _days(
    fingerprint: str, start: date, end: date, anomaly_id: str, _source: Source
) -> pd.DataFrame:
    [anomaly] = [a for a in _found(fingerprint, start, end, _source) if a.id == anomaly_id]
    return anomaly_days(Cached(_source), start, end, anomaly)


def days_of(src: Source, chosen: ChosenRange, anomaly: Anomaly) -> pd.DataFrame:
    """One anomaly of the range: its key's days around it with their usual level and bound."""
    return _days(src.fingerprint, chosen.start, chosen.end, anomaly.id, src)


def marks_of(src: Source) -> Marks | None:
    """The source's marks; None without a state store (nothing can be marked)."""
    return Marks.for_connection(src.connection, src.demo)


def given_marks(src: Source) -> dict[str, Mark]:
    """The marks given so far; a store that cannot be read is a warning, and nothing marked."""
    marks = marks_of(src)
    if marks is None:
        return {}
    try:
        return marks.read()
    except StoreError as exc:
        show_store_error(exc)
        return {}


# The session's last mark, as (anomaly id, the mark it replaced): what "Undo" gives back.
UNDO = "anomaly_undo"


def mark(src: Source, anomaly_id: str, given: Mark | None) -> None:
    """A button's action: mark the anomaly (None: make it new again), remembering the mark
    it had so the session can undo it."""
    marks = marks_of(src)
    if marks is not None:
        with store_errors():
            previous = marks.read().get(anomaly_id)
            marks.set(anomaly_id, given)
            st.session_state[UNDO] = (anomaly_id, previous)


def undoable(anomaly_id: str) -> bool:
    """True when the session's last mark was given to this anomaly."""
    last = st.session_state.get(UNDO)
    return last is not None and last[0] == anomaly_id


def undo(src: Source) -> None:
    """The undo button's action: give the last marked anomaly back the mark it had."""
    anomaly_id, previous = st.session_state[UNDO]
    marks = marks_of(src)
    if marks is not None:
        with store_errors():
            marks.set(anomaly_id, previous)
            del st.session_state[UNDO]
