"""The Export page's FOCUS 1.2 file: ``export --focus``'s rows for the session's scope, from the
organization's usage of the range (read once through the shared cache), written once per range
and money files."""

from __future__ import annotations

from datetime import date

import streamlit as st

from analytics.cost.prices import parse_pricing
from analytics.cost.teams import parse_teams
from analytics.dashboard.data import USAGE_TTL, Cached, View
from analytics.dashboard.session import ChosenRange
from analytics.dashboard.source import Source
from analytics.exports.focus import billing_account, focus_file_table, focus_table
from analytics.exports.formats import Format, export_bytes


@st.cache_data(ttl=USAGE_TTL, max_entries=4, show_spinner="Writing the FOCUS file…")
def _focus_file(
    fingerprint: str,
    start: date,
    end: date,
    files: tuple[str, str | None],
    fmt: Format,
    _source: Source,
) -> bytes:
    pricing, teams = files
    organization = Cached(_source, whole=True).usage(start, end).frame
    table = focus_table(
        organization,
        parse_pricing(pricing),
        parse_teams(teams) if teams else None,
        start,
        end,
        billing_account(_source.connection, _source.demo),
        _source.visible.scope.teams,
    )
    return export_bytes(focus_file_table(table, fmt == "csv"), fmt)


def focus_file(src: Source, chosen: ChosenRange, money: View, fmt: Format) -> bytes:
    """The range's FOCUS 1.2 file as ``export --focus`` writes it: the organization's, or the
    scope's teams' rows and shares, priced from the organization's usage."""
    assert money.pricing is not None
    files = (money.pricing, money.teams)
    return _focus_file(src.fingerprint, chosen.start, chosen.end, files, fmt, src)
