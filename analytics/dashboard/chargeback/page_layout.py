"""The Chargeback page laid out: the prices and teams it reads (files chosen on the page for the
whole organization, those in force for a team), and the teams' rows per month over the Total
row, which a caption says how to read."""

from __future__ import annotations

import streamlit as st

from analytics.cost import TOTAL, PricingSettingsError, TeamSettingsError
from analytics.dashboard import data, session
from analytics.dashboard.column_config import CHARGEBACK_ORDER, chargeback_columns
from analytics.dashboard.settings_in_force import (
    NEEDS_PRICING,
    say_unpriced,
    settings_name,
    view_settings,
    with_upload,
)
from analytics.dashboard.source import Source
from analytics.dashboard.uploads import UploadedFile
from analytics.dashboard.view import View
from analytics.settings import SettingsInForce
from analytics.usage import range_text


def chargeback_page(source: Source) -> None:
    """The page, for the visitor's `source`."""
    chosen = session.chosen_range()
    st.title("Chargeback")
    st.caption(f"{range_text(chosen.start, chosen.end)} (UTC), per team and month")
    team_scope = not source.visible.scope.whole
    settings = settings_read(source, team_scope)
    money = View(settings, cost=True, by_team=settings.document("teams") is not None)
    if settings.document("pricing") is None:
        more = "" if team_scope else " Or choose the files above."
        st.info(f"{NEEDS_PRICING}{more}", icon=":material/payments:")
        st.stop()
    try:
        assert money.pricing is not None
        currency = money.pricing.currency
        table = data.chargeback_table(source, chosen, money)
    except (PricingSettingsError, TeamSettingsError) as exc:
        st.error(str(exc), icon=":material/error:")
        st.stop()
    say_unpriced(money.pricing, chosen.start, chosen.end, "the months and the Total row")
    # The Total row under the teams' rows, column for column, never scrolled away.
    is_total = table["team"].eq(TOTAL)
    for rows in (table[~is_total], table[is_total]):
        st.dataframe(
            rows,
            hide_index=True,
            column_order=CHARGEBACK_ORDER,
            column_config=chargeback_columns(currency),
        )
    total = (
        f"The Total row is {source.visible.scope.name}'s: the sum of its rows, each its share of "
        "the organization's usage cost and base fee."
        if team_scope
        else "The Total row below the teams is the organization's: its total cost, usage cost "
        "and base fee, which the teams add up to."
    )
    st.caption(
        "Total cost = usage cost + base fee share (the team's share of the base fee); keys no "
        f"team claims are Unassigned. {total}"
    )


def settings_read(source: Source, team_scope: bool) -> SettingsInForce:
    """The settings the page reads: the prices and teams in force, or, for the whole
    organization, files chosen on the page, which win."""
    pricing_upload: UploadedFile | None = None
    teams_upload: UploadedFile | None = None
    if team_scope:  # a team's money is its rows of the organization's, at the files in force
        st.caption(
            f"Prices: {settings_name('pricing', source)}. Teams: {settings_name('teams', source)}."
        )
    else:
        with st.expander("Prices and teams", icon=":material/payments:"):
            pricing_upload = st.file_uploader(
                "Pricing file (TOML)", type="toml", key="pricing_file"
            )
            teams_upload = st.file_uploader("Teams file (TOML)", type="toml", key="teams_file")
            st.caption(
                f"Prices: {settings_name('pricing', source, pricing_upload)}. Teams: "
                f"{settings_name('teams', source, teams_upload)}. Choose other files here, "
                "formatted as pricing.example.toml and teams.example.toml."
            )
    settings = with_upload(view_settings(source), "pricing", pricing_upload, source)
    return with_upload(settings, "teams", teams_upload, source)
