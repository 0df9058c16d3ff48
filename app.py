"""The usage dashboard: page setup, sign-in gate, shared sidebar (data source, date range), pages.

Run with `streamlit run app.py`. Without SERVICE_AUTH_KEY and SERVICE_BASE_URL it shows a
synthetic demo organization served by the emulator inside this process.
"""

from pathlib import Path

import streamlit as st

from analytics import pages
from analytics.dashboard import (
    Access,
    Source,
    access_decision,
    data,
    downloads,
    key_list,
    secrets,
    session,
    settings_in_force,
    sign_in_error,
    visitor,
)
from analytics.storage import use_system_allocator
from analytics.usage import calendar

# The icon is the dashboard's own file: an icon name would be fetched from a font CDN, and a
# dashboard behind a firewall fetches nothing from outside its own origin.
FAVICON = Path(__file__).resolve().parent / ".streamlit" / "favicon.png"
st.set_page_config(page_title="Usage dashboard", page_icon=str(FAVICON), layout="wide")
use_system_allocator()  # as every program of ours; cheap enough for every run of the script
downloads.new_run()  # from here on, a download button of an earlier run serves no file
settings_in_force.new_run()  # the settings are read afresh, once, by this run
visitor.arrive()  # who this run's visitor is, what they may see and change: once a run

PRESET_LABELS = {
    "last-7-days": "Last 7 days",
    "last-30-days": "Last 30 days",
    "last-90-days": "Last 90 days",
    "month-to-date": "Month to date",
    "last-month": "Last month",
    "quarter-to-date": "Quarter to date",
    "year-to-date": "Year to date",
    "last-12-months": "Last 12 months",
    "all-history": "All history",
    "custom": "Custom range",
}
DEFAULT_PRESET = calendar.DEFAULT_PRESET


def gate() -> Access:
    """Whether this session may see the dashboard (sign-in applies when `[auth]` is in secrets).

    Unsafe sign-in settings stop every session here, before any page or service request.
    """
    given = secrets()
    if error := sign_in_error(given):
        st.error(error, icon=":material/lock:")
        st.stop()
    return access_decision(
        "auth" in given, bool(st.user.get("is_logged_in")), visitor.current().rights
    )


def sign_in_page() -> None:
    st.title("Usage dashboard")
    if gate() is Access.SIGN_IN:
        st.write("Sign in with your organization account to see usage.")
        session.remember_asked_page()
        st.button("Sign in", on_click=st.login, type="primary", icon=":material/login:")
    else:
        st.warning(
            f"{st.user.get('email') or 'This account'} is not allowed to see this dashboard. "
            "Ask an administrator to give it a role (ADMIN_EMAILS, or [roles] for a team).",
            icon=":material/block:",
        )
        st.button("Sign out", on_click=st.logout, icon=":material/logout:")


def sidebar_range(src: Source) -> session.ChosenRange:
    """The date range control shared by every page; its choices live in the URL."""
    today = calendar.utc_today()
    through = calendar.data_through(today)
    first, _ = calendar.all_history_range(today, src.connection.demo_days if src.demo else None)
    with st.sidebar:
        preset = st.selectbox(
            "Date range (UTC)",
            list(PRESET_LABELS),
            index=list(PRESET_LABELS).index(DEFAULT_PRESET),
            format_func=PRESET_LABELS.__getitem__,
            key="period",
            bind="query-params",
        )
        if preset == "custom":
            # The default range, kept inside a demo organization shorter than it.
            default_start, default_end = calendar.resolve(DEFAULT_PRESET, today)
            default = (max(default_start, first), default_end)
            chosen = st.date_input(
                "From – to (UTC)",
                value=default,
                min_value=first,
                max_value=through,
                format="YYYY-MM-DD",
                key="range",
                bind="query-params",
            )
            start, end = (chosen[0], chosen[-1]) if chosen else default
        else:
            start, end = calendar.resolve(
                preset, today, src.connection.demo_days if src.demo else None
            )
        days = (end - start).days + 1
        st.caption(
            f"**{calendar.range_text(start, end)}** ({days:,} days)  \n"
            f"Data through {through:%Y-%m-%d} (UTC)"
        )
        st.caption(src.description)
    return session.ChosenRange(start, end, preset)


if gate() in (Access.SIGN_IN, Access.DENIED):
    # Every page's address shows the sign-in page, so a shared link meets it instead of a
    # "Page not found" notice; none of the dashboard's pages is registered.
    st.navigation(
        [st.Page(sign_in_page, title="Sign in", default=True)]
        + [
            st.Page(sign_in_page, title="Sign in", url_path=row.url_path)
            for row in pages.PAGES
            if not row.default
        ],
        position="hidden",
    ).run()
    st.stop()

# The pages of the session's scope (a team's leaves out the organization's own), every one
# listed, however many: Streamlit folds a menu of more than twelve behind a "View more"
# button, where a person (and a link's click) would not find the last ones.
PAGES = [
    st.Page(row.file, title=row.title, icon=row.icon, url_path=row.url_path, default=row.default)
    for row in pages.listed(visitor.current().rights.see.whole)
]
page = st.navigation(PAGES, expanded=True)
session.keep_shown()
if "auth" in secrets():
    session.return_to_asked_page(PAGES)
data_source = visitor.current().source
chosen = sidebar_range(data_source)
session.choose_range(chosen)
if not (scope := data_source.visible.scope).whole:
    tags = data.tags(data_source, chosen.start, chosen.end).frame["custom_tag"].unique()
    st.sidebar.info(
        scope.line(len(key_list.key_list(data_source)), len(tags)), icon=":material/group:"
    )
if data_source.demo:
    st.info(
        "Demo data — a synthetic organization (the sidebar says how it was generated). Set "
        "SERVICE_AUTH_KEY and SERVICE_BASE_URL for your own.",
        icon=":material/science:",
    )
if "auth" in secrets() and st.user.get("is_logged_in"):
    st.sidebar.button("Sign out", on_click=st.logout, icon=":material/logout:")
try:
    page.run()
except BaseException:  # stopped, failed or cut short by a rerun: its downloads serve nothing
    downloads.run_ended(finished=False)
    raise
downloads.run_ended(finished=True)
