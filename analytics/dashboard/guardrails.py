"""The Guardrails section of Keys & limits: each enforced budget of the budgets file in force,
its status beside the plan's own limit, how it is shared out this usage period, each key's
limit and headroom, the keys blocked now and those the plan would block, the changes pending
and the last run; and the two actions, **Apply now** and **Restore**, each sent only from its
confirmation and made through ``guardrails.apply.run`` exactly as ``guardrails apply`` and
``guardrails restore`` make them: one run at a time under the guardrail state's lock, every
change audited with the actor ``guardrail: <budget>``, the run recorded with who made it.

The plan is cached a minute, as the key list it reads (its cache key holds the listed keys'
state, the audit log's masks, the settings' texts and the remembered state, so a change made
anywhere plans afresh); a run plans again from the service's key list of that moment, as the
command line does, so it never sends limits computed from a list a minute old.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Literal

import msgspec
import streamlit as st

from analytics.capacity import BudgetSettingsError, Evaluation, budget_status
from analytics.cost import PricesInForce, PricingSettingsError, TeamSettingsError, frame_key_teams
from analytics.dashboard import data, key_list
from analytics.dashboard.access import Permission
from analytics.dashboard.source import Source, whole_of
from analytics.guardrails import KeyPlan, LastRun, Memory, Plan, apply, plan_now, seen_plan
from analytics.guardrails import memory as guardrail_state
from analytics.keys import KeyReader, NotAllowed
from analytics.service import DeveloperKey, PlanUsage, ServiceError
from analytics.settings import Part, SettingsInForce, Texts
from analytics.usage import Records, counted, records_of

Action = Literal["apply", "restore"]
# The documents the guardrails read, whose texts are their cache key: neither the plan nor the
# budgets' status names a document.
GUARDED: tuple[Part, ...] = ("budgets", "teams", "pricing")


def problem(settings: SettingsInForce) -> str | None:
    """What stops reading the budgets, teams and prices the guardrails read (said on the
    page), each document's error in its own words; None: they read."""
    try:
        _ = (settings.budgets, settings.given_teams, settings.pricing)  # each read and checked
    except (
        BudgetSettingsError,
        TeamSettingsError,
        PricingSettingsError,
        UnicodeDecodeError,
    ) as exc:
        return str(exc)
    return None


def records(src: Source) -> Records | None:
    """The records of the source's account; None without a state store."""
    return records_of(src.connection, src.demo)


def remembered(src: Source) -> dict[str, Memory]:
    """The keys' remembered limits, read on every run (a run elsewhere changes them)."""
    kept = records(src)
    return {} if kept is None else guardrail_state.read(kept).keys


def last_run(src: Source) -> LastRun | None:
    kept = records(src)
    return None if kept is None else apply.last_run(kept)


@st.cache_data(ttl=key_list.KEYS_TTL, show_spinner="Planning the guardrails…")
def _plan(
    fingerprint: str,
    today: date,
    listed: bytes,
    recorded: tuple[tuple[str, str], ...],
    texts: Texts,
    memory: bytes,
    leave_out: tuple[str, ...],
    _reader: KeyReader,
    _settings: SettingsInForce,
) -> Plan:
    assert _settings.budgets is not None
    return plan_now(
        _reader,
        _settings.budgets,
        (_settings.given_teams, _settings.pricing),
        today,
        msgspec.json.decode(memory, type=dict[str, Memory]),
        leave_out,
    )


def plan(
    src: Source,
    settings: SettingsInForce,
    today: date,
    leave_out: frozenset[str] = frozenset(),
) -> Plan:
    """The guardrails' plan as of ``today`` (``leave_out``: the budgets a restore ends), from
    the cached key list and usage; ``reading.NoUsagePeriod`` on a free plan. Planned over the
    organization, as ``guardrails apply`` plans, and shown as the session's scope sees it
    (``guardrails.seen``)."""
    whole = whole_of(src)
    reader = key_list.key_reader(whole)
    planned = _plan(
        whole.fingerprint,
        today,
        msgspec.json.encode(reader.developer_keys()),
        tuple(sorted(reader.recorded_masks().items())),
        settings.texts(*GUARDED),
        msgspec.json.encode(remembered(src)),
        tuple(sorted(leave_out)),
        reader,
        settings,
    )
    budgets = settings.budgets
    assert budgets is not None  # a plan is made of a budgets file
    return seen_plan(planned, src.visible, budgets)


@st.cache_data(ttl=data.USAGE_TTL, show_spinner=False)
def _status(
    fingerprint: str,
    today: date,
    texts: Texts,
    _source: Source,
    _settings: SettingsInForce,
) -> list[Evaluation]:
    budgets = _settings.budgets
    assert budgets is not None
    enforced = msgspec.structs.replace(budgets, budgets=budgets.enforced)
    only = _source.visible.budgets(enforced)  # a team's own, over its keys
    if only is None:
        return []
    pricing, teams = _settings.pricing, _settings.given_teams
    prices = None if pricing is None else PricesInForce(pricing, teams)
    by_team = frame_key_teams(teams)
    evaluations, _ = budget_status(data.Cached(_source), only, today, prices, by_team)
    return evaluations


def status(src: Source, settings: SettingsInForce, today: date) -> list[Evaluation]:
    """The enforced budgets the session's scope sees, evaluated as ``check-budgets``
    evaluates them (a team's over its keys, as ``check-budgets --team``): used on the closed
    days, and projected by the forecast as if no limit stopped a key."""
    return _status(src.fingerprint, today, settings.texts(*GUARDED), src, settings)


def restored_keys(
    src: Source, settings: SettingsInForce, today: date, titles: frozenset[str]
) -> tuple[KeyPlan, ...]:
    """What a restore of every enforced budget changes: the keys given their own limits."""
    planned = plan(src, settings, today, titles)
    return tuple(k for k in apply.chosen_keys(planned, remembered(src), None) if k.changes)


def last_run_text(run: LastRun | None) -> str:
    """ "Last run: 2025-07-10 09:00 UTC, apply by ops@example.org: done, 3 changes sent"."""
    if run is None:
        return "No guardrails run yet: neither the timer nor anyone here has applied them."
    said = f": {run.message}" if run.message else ""
    return (
        f"Last run: {run.time:%Y-%m-%d %H:%M} UTC, {run.action} by {run.who}: {run.outcome}, "
        f"{counted(run.changes, 'change')} sent{said}."
    )


@dataclass(frozen=True)
class _Now(data.Cached):
    """A run's reader: the key list and the plan as the service has them now (a run compares
    each key's limits with the ones it sends), usage from the dashboard's caches."""

    def developer_keys(self) -> list[DeveloperKey]:
        return data.client(self.source).developer_keys()

    def plan(self) -> PlanUsage:
        return data.client(self.source).usage()

    def recorded_masks(self) -> dict[str, str]:
        return dict(key_list.key_reader(self.source).recorded_masks())


def run(
    src: Source, allowed: Permission, guarded: SettingsInForce, today: date, action: Action
) -> str | None:
    """Apply the plan, or (``restore``) give every guarded key its own limits back, through
    ``apply.run`` as the command line does: what was done, for the page to say as it drops the
    key list; None when refused or stopped (said on the page)."""
    kept = records(src)
    budgets = guarded.budgets
    if not allowed.allowed or kept is None or budgets is None:
        return None
    leave_out = frozenset(b.title for b in budgets.enforced) if action == "restore" else frozenset()

    def planned(memory: Mapping[str, Memory]) -> Plan:
        costing = (guarded.given_teams, guarded.pricing)
        return plan_now(_Now(src), budgets, costing, today, memory, leave_out)

    try:
        done = apply.run(kept, planned, key_list.actor(src, allowed), action)
    except NotAllowed as exc:
        st.error(f"{exc} Nothing was sent.", icon=":material/block:")
        return None
    except ServiceError as exc:
        st.error(
            f"The guardrails {action} stopped: {exc}. What was sent is in the audit log; the "
            "next run completes it.",
            icon=":material/block:",
        )
        return None
    verb = "Applied" if action == "apply" else "Restored"
    return f"{verb} the guardrails: {counted(done.sent, 'limit change')} sent."
