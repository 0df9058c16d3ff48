"""Download buttons whose file is what the page shows at the click.

A button's file is made when it is clicked (Streamlit's deferred ``data``), on a thread beside
the page's script. While a rerun is under way, the button the run before drew stays on the
page, clickable, until the rerun draws it again: its file would be made from the inputs the
page no longer shows (a range changed a second before, the previous range's report saved).
So each button's file waits for the run that drew it to end, and is refused once a newer run
has begun, whatever the page; a page draws its buttons before its slow work, so the button
under a person's pointer a moment after a change is already the new run's.

app.py marks each run's start (``new_run``) and end (``run_ended``); the pages draw every
download they declare in the page table through ``button``."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, cast

import streamlit as st

from analytics.pages import Download

RUNS = "download_runs"  # the session's runs, in its session state
# How long a click waits for the run that drew its button to end: under the browser's own
# three minutes for a file, so a run that never ends is refused in words, not in silence.
RUN_WAIT_S = 170.0

Data = bytes | str


class StaleDownload(RuntimeError):
    """The page has changed since its button was drawn: the file would not be what it shows."""


@dataclass
class Runs:
    """The session's runs of the script as its downloads read them: the one begun last and
    the last one that ended, with the condition a waiting click is woken by."""

    begun: int = 0
    ended: int = 0
    finished: bool = False  # the run that ended last drew its whole page (no stop, no error)
    changed: threading.Condition = field(default_factory=threading.Condition)

    def begin(self) -> None:
        with self.changed:
            self.begun += 1
            self.changed.notify_all()

    def end(self, finished: bool) -> None:
        with self.changed:
            self.ended, self.finished = self.begun, finished
            self.changed.notify_all()

    def served(self, drawn: int, make: Callable[[], Data]) -> Data:
        """The file of a button drawn by run ``drawn``, made once that run has ended, from
        what it drew; refused if another run has begun since, as the page has changed."""
        with self.changed:
            self.changed.wait_for(lambda: self.begun != drawn or self.ended == drawn, RUN_WAIT_S)
            if self.begun != drawn:
                raise StaleDownload("the page changed after this button was drawn")
            if self.ended != drawn:
                raise StaleDownload("the page took too long to draw")
            if not self.finished:
                raise StaleDownload("the page stopped before it was drawn whole")
        return make()


def runs() -> Runs:
    """This session's runs, kept across its reruns."""
    return cast(Runs, st.session_state.setdefault(RUNS, Runs()))


def new_run() -> None:
    """A run of the script begins: every button drawn before can no longer serve."""
    runs().begin()


def run_ended(finished: bool) -> None:
    """The run has ended: its buttons' files can be made if it ``finished`` its page."""
    runs().end(finished)


def button(
    download: Download,
    data: Callable[[], Data],
    *,
    file_name: str,
    mime: str | None = None,
    kind: Literal["primary", "secondary"] = "secondary",
    icon: str = ":material/download:",
    disabled: bool = False,
    help: str | None = None,
    **label_parts: str,
) -> None:
    """The page table's ``download``, its file made by ``data`` when clicked, from the inputs
    of the run that drew it, and only while that run is the page's latest."""
    session_runs = runs()
    drawn = session_runs.begun
    st.download_button(
        download.text(**label_parts),
        data=lambda: session_runs.served(drawn, data),
        file_name=file_name,
        mime=mime,
        icon=icon,
        type=kind,
        disabled=disabled,
        help=help,
        on_click="ignore",  # the click makes the file; the page has nothing to redraw
        key=download.key,
    )
