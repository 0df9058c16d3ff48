"""The key list as every page reads it: the organization's developer keys (kept a minute,
dropped after every change), those the session's scope sees, each key's row and its limits'
status, the audit log and its masks, the teams in force that name each key's owner, and this
session as the key changes see it. The Keys & limits page changes keys
(``keys_and_limits.key_changes``); the Capacity, Keys and Settings pages, the guardrails and the
visitor read the list from here."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import streamlit as st

from analytics.capacity import Evaluation
from analytics.cost import Teams, TeamSettingsError
from analytics.dashboard import data
from analytics.dashboard.access import Permission
from analytics.dashboard.messages import show_store_error
from analytics.dashboard.settings_in_force import page_settings
from analytics.dashboard.source import Source
from analytics.keys import AuditEntry, AuditLog, KeyRow, changes, listed, recorded_masks
from analytics.service import AuthorizationError, DeveloperKey
from analytics.storage import StoreError

KEYS_TTL = "1m"


@st.cache_data(ttl=KEYS_TTL, show_spinner="Loading the key list…")
def _key_list(origin: str, _source: Source) -> list[DeveloperKey]:
    return data.client(_source).developer_keys()


def organization_keys(src: Source) -> list[DeveloperKey]:
    """Every developer key of the organization, whatever the session's scope: what a change
    checks against (a label unique in the organization, the active keys' number), never
    shown."""
    return _key_list(src.origin, src)


def teams_in_force(src: Source) -> Teams | None:
    """The teams settings in force, for each key's owner and purpose; None when there are
    none or they cannot be read (the Chargeback page names the problem)."""
    try:
        return page_settings(src).given_teams
    except TeamSettingsError:
        return None


def key_list(src: Source) -> list[DeveloperKey]:
    """Every developer key the session's scope sees, active and deactivated (matched to its
    team by its recorded or key id's mask and its label, ``Visible.developer_keys``)."""
    if src.visible.scope.whole:
        return organization_keys(src)
    return _scoped_keys(src.fingerprint, _recorded(src), src)


@st.cache_data(ttl=KEYS_TTL, show_spinner=False)
def _scoped_keys(fingerprint: str, recorded: Recorded, _source: Source) -> list[DeveloperKey]:
    """A scope's listed keys, joined once per key list, scope and audit log's masks: every
    page of a team's lead counts them, and joining the list again cost each run more than the
    organization viewer's whole rerun."""
    return _source.visible.developer_keys(organization_keys(_source), {}, dict(recorded))


def audit_log(src: Source) -> AuditLog | None:
    return AuditLog.for_connection(src.connection, src.demo)


def all_entries(src: Source) -> list[AuditEntry]:
    """The audit log, read on every run (another session may have changed a key); a store
    that cannot be read is a warning, and no entries."""
    log = audit_log(src)
    if log is None:
        return []
    try:
        return log.read()
    except StoreError as exc:
        show_store_error(exc)
        return []


Recorded = tuple[tuple[str, str], ...]


def _recorded(src: Source) -> Recorded:
    """The audit log's masks as a cache key: a change here records one, and the rows follow."""
    return tuple(sorted(recorded_masks(all_entries(src)).items()))


@dataclass(frozen=True)
class _Keys(data.Cached):
    """The dashboard's reader of the key questions (``analytics.keys.listed``): the cached
    key list, and the audit log's masks this run read (part of the cache key)."""

    recorded: Recorded

    def developer_keys(self) -> list[DeveloperKey]:
        return key_list(self.source)

    def recorded_masks(self) -> dict[str, str]:
        return dict(self.recorded)


@st.cache_data(ttl=KEYS_TTL, show_spinner="Joining keys to their usage…")
def _rows(fingerprint: str, today: date, recorded: Recorded, _source: Source) -> list[KeyRow]:
    return listed.key_view(_Keys(_source, recorded), today)


def key_view(src: Source, today: date) -> list[KeyRow]:
    """Every key's row as of `today`: the list, the billing period, and usage from the oldest
    key's creation (cached as any range's usage)."""
    return _rows(src.fingerprint, today, _recorded(src), src)


@st.cache_data(ttl=KEYS_TTL, show_spinner=False)
def _limit_status(
    fingerprint: str, today: date, warning_at: float, recorded: Recorded, _source: Source
) -> list[Evaluation]:
    return listed.limit_status(_Keys(_source, recorded), today, warning_at).evaluations


def limit_status(src: Source, today: date, warning_at: float) -> list[Evaluation] | None:
    """Every active key's own limits as budgets (as `check-budgets` evaluates them); None when
    the key may not list keys."""
    try:
        return _limit_status(src.fingerprint, today, warning_at, _recorded(src), src)
    except AuthorizationError:
        return None


def key_reader(src: Source) -> listed.KeyReader:
    """This run's reader of the key questions: the cached key list, the audit log's masks."""
    return _Keys(src, _recorded(src))


def actor(src: Source, allowed: Permission) -> changes.Actor:
    """This session as the key changes see it: its client, its name, its audit log and the
    rule of which keys it may change."""
    return changes.Actor(data.client(src), allowed.who, audit_log(src), allowed.rule)


def dropped() -> None:
    """Drop the key list and what is read from it: a change was made, here or by the
    guardrails."""
    for cached in (_key_list, _scoped_keys, _rows, _limit_status):
        cached.clear()
