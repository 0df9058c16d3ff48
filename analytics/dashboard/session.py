"""Per-session state of the dashboard: the range chosen in the sidebar, and the one place that
contains Streamlit's older `pages/` folder convention."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import NoReturn

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

ENTRY_MARK = "entry_script_ran"
ENTRY_RETRIED = "entry_script_retried"
CHOSEN_RANGE = "chosen_range"


@dataclass(frozen=True)
class ChosenRange:
    """The range every page shows, inclusive UTC days, and the preset that produced it."""

    start: date
    end: date
    preset: str

    @property
    def days(self) -> int:
        return (self.end - self.start).days + 1


def mark_entry() -> None:
    """Called by app.py on every run before any page."""
    st.session_state[ENTRY_MARK] = True


def ensure_entry() -> None:
    """Restart a run that began on a page file instead of app.py.

    Until some run of the process has called `st.navigation`, Streamlit follows its older
    `pages/` folder convention and starts a deep link (say /trends, first after a server
    start) on the page file itself. Turning the convention off the way `st.navigation` does
    (declaring a navigation here would change the current page) makes the rerun go through
    app.py to the same page.
    """
    if ENTRY_MARK not in st.session_state:
        _rerun_through_entry()


def _rerun_through_entry() -> NoReturn:
    if st.session_state.get(ENTRY_RETRIED):
        st.error("This page is part of the dashboard: run `streamlit run app.py`.")
        st.stop()
    st.session_state[ENTRY_RETRIED] = True
    PagesManager.uses_pages_directory = False  # what any st.navigation call does
    st.rerun()


def choose_range(chosen: ChosenRange) -> None:
    st.session_state[CHOSEN_RANGE] = chosen


def chosen_range() -> ChosenRange:
    """The range chosen in the sidebar on this run."""
    chosen: ChosenRange = st.session_state[CHOSEN_RANGE]
    return chosen
