"""The capacity decision on the dashboard, at the data boundary: the backtest of every
forecast runs once per source and day, whatever the what-ifs; today's plan is priced once per
pricing file, plan limits and day; the decision is priced again only when a what-if, the
file, the plan's limits or the day changes."""

from __future__ import annotations

from datetime import date

import streamlit as st

from analytics.capacity import (
    Asked,
    Decision,
    Outlook,
    PlanLimits,
    TodaysPlan,
    decision_of,
    plan_for_term,
    read_history,
)
from analytics.cost import PricesInForce
from analytics.dashboard.data import USAGE_TTL, Cached
from analytics.dashboard.source import Source
from analytics.dashboard.view import View
from analytics.settings import Texts
from analytics.usage import YearStart


@st.cache_resource(ttl=USAGE_TTL, max_entries=4, show_spinner="Backtesting the forecasts…")
def _history(
    fingerprint: str, today: date, _source: Source
) -> tuple[dict[str, Outlook], dict[str, float]]:
    demo_days = _source.connection.demo_days if _source.demo else None
    return read_history(Cached(_source), today, demo_days)


def _outlooks(fingerprint: str, today: date, _source: Source) -> dict[str, Outlook]:
    return _history(fingerprint, today, _source)[0]


@st.cache_resource(
    ttl=USAGE_TTL,
    max_entries=4,
    show_spinner="Pricing today's plan…",
    hash_funcs={PlanLimits: repr},  # a plain value: its text names it
)
def _todays_plan(
    fingerprint: str,
    today: date,
    settings: Texts,
    limits: PlanLimits | None,
    _source: Source,
    _money: View,
) -> TodaysPlan | str:
    found, mix = _history(fingerprint, today, _source)
    assert _money.pricing is not None
    return plan_for_term(found, limits, PricesInForce(_money.pricing), mix)


@st.cache_resource(
    ttl=USAGE_TTL,
    max_entries=32,
    show_spinner="Pricing the options…",
    # The what-ifs, the contract year and today's plan are plain values: their texts name
    # them.
    hash_funcs={Asked: repr, YearStart: str, TodaysPlan: repr},
)
def _decision(
    fingerprint: str,
    today: date,
    settings: Texts,
    asked: Asked,
    year_start: YearStart,
    plan: TodaysPlan | str | None,
    _source: Source,
    _money: View,
) -> Decision:
    options = _money.pricing.catalogue if _money.pricing is not None else ()
    found = _outlooks(fingerprint, today, _source)
    return decision_of(found, options, asked, year_start, plan)


def decision(
    src: Source,
    today: date,
    money: View,
    asked: Asked,
    year_start: YearStart,
    limits: PlanLimits | None,
) -> Decision:
    """The capacity decision under ``asked`` (what-ifs, risk, term) among today's plan (the
    service's ``limits``, the Plan card's, priced at ``money``'s prices; None: not read, so
    not weighed) and the options of ``money``'s pricing file (none without one): the cached
    outlooks priced again only when a what-if, the file, the plan's limits or the day
    changes, and today's plan only when the file, its limits or the day does."""
    plan = None
    prices = View(money.settings, cost=money.cost)  # keyed by the prices alone
    if prices.pricing is not None and prices.pricing.catalogue:
        plan = _todays_plan(src.fingerprint, today, prices.key, limits, src, prices)
    return _decision(src.fingerprint, today, prices.key, asked, year_start, plan, src, prices)
