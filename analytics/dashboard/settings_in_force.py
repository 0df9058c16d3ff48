"""The settings the dashboard uses, one object per run (`page_settings`: the
`settings.in_force.SettingsInForce` every command reads too: the state store, or with
``SETTINGS_SOURCE=files`` the files beside the dashboard, in the demo the examples), each
document parsed once; an upload wins for its part (`with_upload`). The texts of the
documents a money view reads are its cache key (`SettingsInForce.texts`). And the note every
money view shows when some of its days have no price.

The settings are read once per run of the script (`new_run`, at the top of app.py, forgets
the last run's): a page names a file in several captions and reads its values again for the
view, and each read of the store would be two queries. A save anywhere is seen on the next
run. A state store that fails while the settings are read is the store's warning, once a
run, and the page goes on with the files found as before (beside the dashboard, in the demo
the examples) rather than stopping.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import Final

import streamlit as st

from analytics.cost import Pricing, unpriced_text
from analytics.dashboard.messages import show_store_error
from analytics.dashboard.source import Source
from analytics.dashboard.uploads import UploadedFile
from analytics.settings import Document, Naming, Part, Place, SettingsInForce, document
from analytics.storage import StoreError
from analytics.usage import records_of

READ: Final = "settings_read"  # this run's settings, by source and part
FALLBACK: Final = (
    "The settings are read from the files found beside the dashboard (in the demo, the "
    "examples) until it answers."
)


def new_run() -> None:
    """Forget the settings the last run read: this run reads them again."""
    st.session_state[READ] = {}


def settings_place(src: Source) -> Place:
    """Where the dashboard's settings are: the source set, the account's records, the folder
    the dashboard runs in."""
    return Place(
        src.connection.settings_source, records_of(src.connection, src.demo), Path.cwd(), src.demo
    )


def _read(name: Part, src: Source) -> Document | None:
    """``name`` in force; the files found when the store fails (said once a run)."""
    try:
        return document(name, settings_place(src))
    except StoreError as exc:
        read: dict[object, Document | None] = st.session_state.setdefault(READ, {})
        if "failed" not in read:
            read["failed"] = None
            show_store_error(exc, FALLBACK)
        place = Place("files", None, Path.cwd(), src.demo)
        return document(name, place)


def page_settings(src: Source) -> SettingsInForce:
    """The settings in force for this run: the organization's, whatever the scope of ``src``
    (a team's scope is resolved over them); each document read and parsed once per run, named
    as a page names it."""
    read: dict[object, object] = st.session_state.setdefault(READ, {})
    key = (src.origin, src.connection.settings_source)
    found = read.get(key)
    if not isinstance(found, SettingsInForce):
        found = read[key] = SettingsInForce(lambda part: _read(part, src), naming="name")
    return found


# How the money views and the guardrails name a document in their messages: the prices and the
# teams by their part's file (``pricing.toml``), whatever holds them, the budgets and alert
# routes as a page names them.
VIEW_NAMING: Final[Mapping[Part, Naming]] = {
    "pricing": "part",
    "teams": "part",
    "budgets": "name",
    "alerts": "name",
}


def view_settings(src: Source) -> SettingsInForce:
    """This run's settings (`page_settings`) as the money views and the guardrails name them
    in their messages (`VIEW_NAMING`)."""
    read: dict[object, object] = st.session_state.setdefault(READ, {})
    key = (src.origin, src.connection.settings_source, "part")
    found = read.get(key)
    if not isinstance(found, SettingsInForce):
        found = read[key] = page_settings(src).named(VIEW_NAMING)
    return found


def with_upload(
    settings: SettingsInForce, name: Part, uploaded: UploadedFile | None, src: Source
) -> SettingsInForce:
    """``settings`` with a file chosen on the page winning for ``name`` (None: as they are)."""
    if uploaded is None:
        return settings
    if name == "teams" and not src.visible.scope.whole:
        # A team's scope is drawn by the teams in force: a file of one's own could name a
        # team after one's own and claim every key.
        st.warning(
            "A teams file of your own is not read: your scope's teams are those in force.",
            icon=":material/group:",
        )
        return settings
    text = uploaded.getvalue().decode("utf-8", errors="replace")
    return settings.with_text(name, text, str(uploaded.name))


def settings_name(name: Part, src: Source, uploaded: UploadedFile | None = None) -> str:
    """How a page names the ``name`` settings it reads: the file chosen on the page, else the
    store's version, or the file beside the dashboard (in the demo the shipped example,
    ``pricing.example.toml``), so a caption never points at a file that is not there.
    ``name``.toml when there is none: where to put one."""
    return str(uploaded.name) if uploaded is not None else page_settings(src).name(name)


# What a page says when a money view is asked for without its file.
NEEDS_PRICING = (
    "Money views need prices: put a pricing.toml (and a teams.toml for the teams) beside "
    "the dashboard. See pricing.example.toml."
)
NEEDS_TEAMS = (
    "Grouping by team needs teams: put a teams.toml beside the dashboard. See teams.example.toml."
)


def say_unpriced(pricing: Pricing, start: date, end: date, what: str = "costs and totals") -> None:
    """Name the days of ``start``–``end`` that ``pricing`` has no price for, if any: the page
    still shows the money of the others, rather than an error or usage instead."""
    unpriced = pricing.unpriced(start, end)
    if unpriced is not None:
        st.info(unpriced_text(unpriced.note, what), icon=":material/money_off:")
