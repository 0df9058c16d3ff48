"""The Export page's FOCUS 1.2 file: ``export --focus``'s rows for the session's scope, from the
organization's usage of the range (read once through the shared cache), written once per range
and money documents."""

from __future__ import annotations

from datetime import date

import streamlit as st

from analytics.dashboard.data import USAGE_TTL, Cached
from analytics.dashboard.session import ChosenRange
from analytics.dashboard.source import Source
from analytics.dashboard.view import View
from analytics.exports import Format, billing_account, export_bytes, focus_file_table, focus_table
from analytics.settings import Texts


@st.cache_data(ttl=USAGE_TTL, max_entries=4, show_spinner="Writing the FOCUS file…")
def _focus_file(
    fingerprint: str,
    start: date,
    end: date,
    settings: Texts,
    fmt: Format,
    _source: Source,
    _money: View,
) -> bytes:
    assert _money.pricing is not None
    organization = Cached(_source, whole=True).usage(start, end).frame
    table = focus_table(
        organization,
        _money.pricing,
        _money.teams,
        start,
        end,
        billing_account(_source.connection, _source.demo),
        _source.visible.scope.teams,
    )
    return export_bytes(focus_file_table(table, fmt == "csv"), fmt)


def focus_file(src: Source, chosen: ChosenRange, money: View, fmt: Format) -> bytes:
    """The range's FOCUS 1.2 file as ``export --focus`` writes it: the organization's, or the
    scope's teams' rows and shares, priced from the organization's usage."""
    return _focus_file(src.fingerprint, chosen.start, chosen.end, money.key, fmt, src, money)
