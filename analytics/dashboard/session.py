"""Per-session state of the dashboard: the range chosen in the sidebar, the Usage / Cost
choice, the page asked for before signing in, and the choices kept in the address."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

import streamlit as st

from analytics.access import WHOLE_ORGANIZATION as WHOLE
from analytics.access import Scope
from analytics.dashboard.access import FORGET_ASKED, REMEMBER_ASKED, RETURN_COOKIE, asked_page

CHOSEN_RANGE = "chosen_range"
ASKED_SEEN = "asked_page_seen"
ASKED_FORGET = "asked_page_forget"
SHOWN = "shown"  # the session's Usage / Cost choice: "usage" or "cost"
SHOWN_PARAM = "show"  # and its query parameter, "Cost" when in money


@dataclass(frozen=True)
class ChosenRange:
    """The range every page shows, inclusive UTC days, and the preset that produced it."""

    start: date
    end: date
    preset: str

    @property
    def days(self) -> int:
        return (self.end - self.start).days + 1


def choose_range(chosen: ChosenRange) -> None:
    st.session_state[CHOSEN_RANGE] = chosen


def chosen_range() -> ChosenRange:
    """The range chosen in the sidebar on this run."""
    chosen: ChosenRange = st.session_state[CHOSEN_RANGE]
    return chosen


def keep_shown() -> None:
    """Called by app.py on every run: the Usage / Cost choice is the session's, not a page's.
    A session's first run takes it from the URL (a shared link opens in money), and every run
    puts it back into the URL, so it survives moving between pages, those without the switch
    too, and a copied link of any page carries it."""
    if SHOWN not in st.session_state:
        given = st.query_params.get(SHOWN_PARAM, "")
        st.session_state[SHOWN] = "cost" if given.lower() == "cost" else "usage"
    if st.session_state[SHOWN] == "cost":
        st.query_params[SHOWN_PARAM] = "Cost"
    else:
        st.query_params.pop(SHOWN_PARAM, None)


def shown() -> str:
    """The session's Usage / Cost choice (``keep_shown``)."""
    choice: str = st.session_state.get(SHOWN, "usage")
    return choice


def show(choice: str) -> None:
    """Make ``choice`` the session's, and its URL's at once."""
    st.session_state[SHOWN] = choice
    keep_shown()


def remember_asked_page() -> None:
    """On the sign-in page: keep the address asked for, to return to after the sign-in."""
    st.html(REMEMBER_ASKED, unsafe_allow_javascript=True)


def return_to_asked_page(pages: Sequence[st.Page]) -> None:
    """The session's first signed-in run goes to the page (and query) asked for before the
    sign-in, which Streamlit's callback does not keep; the next run forgets the address, so a
    reload stays where it is."""
    if st.session_state.get(ASKED_SEEN):
        if st.session_state.pop(ASKED_FORGET, False):
            st.html(FORGET_ASKED, unsafe_allow_javascript=True)
        return
    st.session_state[ASKED_SEEN] = True
    cookie = st.context.cookies.get(RETURN_COOKIE)
    if not isinstance(cookie, str):  # none kept (or a session without a browser)
        return
    st.session_state[ASKED_FORGET] = True
    asked = asked_page(cookie, [page.url_path for page in pages])
    if asked is None:
        st.rerun()  # to forget it
    url_path, query = asked
    st.switch_page(next(p for p in pages if p.url_path == url_path), query_params=query)


def refuse_unseen(param: str, outside: Callable[[str], bool], scope: Scope) -> None:
    """Say, in one line, that the address's ``param`` names something outside a team's scope
    (another team's key or tag, typed or linked): the page then shows its own first choice
    and nothing of the one asked for, not even its label."""
    if scope.whole:
        return
    for asked in st.query_params.get_all(param):
        if asked and outside(asked):
            st.error(str(scope.refusal(f"{param} {asked!r}")), icon=":material/block:")


def choice_in_address(
    param: str,
    ids: Sequence[str],
    named: Callable[[str], str | None],
    outside: Callable[[str], bool] = lambda _: False,
    scope: Scope = WHOLE,
) -> str:
    """The id a choice box keyed `param` shows, set before the box is drawn: the address's
    `param` (an id, or whatever `named` turns into one: a link may name the choice as people
    read it), else the session's choice, else the first id. It goes back to the address as the
    id, which no rename changes, so a reload or a shared link shows the same choice (a box
    bound to the address by its displayed text would lose it when the text changes)."""
    asked = st.query_params.get(param)
    current = st.session_state.get(param)
    found = (asked if asked in ids else named(asked)) if asked else None
    refuse_unseen(param, outside, scope)
    shown: str = next(c for c in (found, current, ids[0]) if isinstance(c, str) and c in ids)
    st.session_state[param] = shown
    st.query_params[param] = shown
    return shown


def choice_to_address(param: str) -> None:
    """A choice box's on_change: the choice goes to the address before the page runs again."""
    st.query_params[param] = st.session_state[param]
