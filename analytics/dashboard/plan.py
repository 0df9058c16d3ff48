"""The Plan panel of the Overview and Capacity pages: the billing period's usage against the
plan's limits, and when each limit is reached at the current run rate."""

from __future__ import annotations

from datetime import date

import streamlit as st

from analytics.capacity.plan import PlanSnapshot
from analytics.dashboard import data
from analytics.dashboard.messages import show_error
from analytics.dashboard.source import Source
from analytics.service.errors import ServiceError

NOTE = (
    "Used as the service counts it, today so far included; the day a limit is reached is "
    "projected from the run rate of the closed days. Refreshed every five minutes."
)


def plan_panel(src: Source, today: date) -> PlanSnapshot | None:
    """Lay out the panel and return its snapshot; a service failure is a message inside the
    panel (None), and the rest of the page goes on."""
    with st.container(border=True, key="plan_panel"):
        try:
            snapshot = data.plan(src, today)
        except ServiceError as exc:
            st.markdown("**Plan**")
            show_error(exc, src)
            return None
        st.markdown(f"**Plan** · billing period {snapshot.period_text}")
        for column, allowance in zip(
            st.columns(len(snapshot.allowances)), snapshot.allowances, strict=True
        ):
            with column:
                line = f"**{allowance.label}** — {allowance.usage_text}"
                if allowance.progress is None:
                    st.markdown(line)
                else:
                    st.progress(allowance.progress, text=line)
                st.caption(allowance.reach_sentence)
        st.caption(NOTE)
    return snapshot
