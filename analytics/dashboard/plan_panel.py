"""The plan snapshot, kept five minutes, and the Plan panel of the Overview and Capacity pages
that shows it: the billing period's usage against the plan's limits, when each limit is
reached as forecast, and with prices what the period costs so far and projected."""

from __future__ import annotations

from datetime import date

import streamlit as st

from analytics.access import Scope
from analytics.capacity import Allowance, PlanSnapshot, current_plan
from analytics.cost import MINOR_UNITS, PricesInForce, PricingSettingsError, amount_text
from analytics.dashboard import data
from analytics.dashboard.messages import show_error
from analytics.dashboard.settings_in_force import settings_name, view_settings
from analytics.dashboard.source import Source
from analytics.dashboard.view import USAGE_BY_KEY, View
from analytics.service import ServiceError
from analytics.settings import Texts

NOTE = (
    "Used as the service counts it, today so far included, and minutes as it bills them: the "
    "period's total rounded up to a whole minute, so a little more than the exact minutes the "
    "tiles add up. The day a limit is reached is projected by the forecast of the closed days. "
    "Refreshed every five minutes."
)


@st.cache_data(ttl=data.PLAN_TTL, max_entries=4, show_spinner="Loading the plan…")
def _snapshot(
    fingerprint: str, today: date, settings: Texts, _money: View, _source: Source
) -> PlanSnapshot:
    prices = None if _money.pricing is None else PricesInForce(_money.pricing)
    return current_plan(data.Cached(_source), today, prices)


def current_snapshot(src: Source, today: date, money: View = USAGE_BY_KEY) -> PlanSnapshot:
    """The billing period's usage against the plan's limits as of `today`, and with
    ``money``'s prices its spend; kept five minutes, as the plan it reads, and never stored."""
    return _snapshot(src.fingerprint, today, money.key, money, src)


def plan_withheld(scope: Scope) -> str:
    """The one line a team's scope is told where the plan's figures, the organization's, would
    be (the Plan panel, the guardrails' budgets beside the plan and the organization's use)."""
    return scope.withheld("The plan's figures")


def allowance_bar(allowance: Allowance, of: str = "") -> None:
    """One limit's use as a filling bar (a line without a limit) and the day it is reached;
    `of` says whose use it is ("this usage period")."""
    line = f"**{allowance.label}**{f' {of}' if of else ''} — {allowance.usage_text}"
    if allowance.progress is None:
        st.markdown(line)
    else:
        st.progress(allowance.progress, text=line)
    st.caption(allowance.reach_sentence)


def plan_panel(src: Source, today: date) -> PlanSnapshot | None:
    """Lay out the panel and return its snapshot, with the period's spend when the pricing file
    in force can price it; a service failure is a message inside the panel (None), and the
    rest of the page goes on. The plan is the organization's: a team's scope is told so, and
    shown none of it."""
    if not src.visible.scope.whole:
        st.caption(plan_withheld(src.visible.scope))
        return None
    with st.container(border=True, key="plan_panel"):
        try:
            try:
                settings = view_settings(src)
                priced = View(settings, cost=settings.document("pricing") is not None)
                snapshot = current_snapshot(src, today, priced)
            except PricingSettingsError:  # a page that uses prices names the problem
                snapshot = current_snapshot(src, today)
        except ServiceError as exc:
            st.markdown("**Plan**")
            show_error(exc, src)
            return None
        st.markdown(f"**Plan** · billing period {snapshot.period_text}")
        for column, allowance in zip(
            st.columns(len(snapshot.allowances)), snapshot.allowances, strict=True
        ):
            with column:
                allowance_bar(allowance)
        if (spend := snapshot.spend) is not None:
            projected = round(spend.projected * 10 ** MINOR_UNITS[spend.currency])
            st.markdown(
                f"**Spend** — {amount_text(spend.used_minor, spend.currency)} so far, "
                f"{amount_text(projected, spend.currency)} projected for the billing period"
            )
            st.caption(
                f"At the prices in force ({settings_name('pricing', src)}), base fee included: the "
                "closed days so far, and the forecast of each service priced to the period's "
                "last day."
            )
        st.caption(NOTE)
    return snapshot
