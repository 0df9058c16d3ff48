"""The Settings page's workings: who may change the settings, each document's versions, an
edit checked by the one check every surface applies (`settings.parts.check`), its preview
(every field before → after, and its effect: `settings.effects`, from the data the other
pages show), and the save against the version the edit was read from.

An edit is kept in the session as `Pending` between its preview and its save: Save writes
the text that was previewed, never what the text area holds since, and only against the
version it was read from, so of two people who saved from one version the second is told
(`versions.SavedMeanwhile`, with both versions) and nothing is overwritten.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final

import streamlit as st

from analytics.cost.prices import parse_pricing
from analytics.cost.teams import parse_teams
from analytics.dashboard import data, guardrails, money_files, permissions
from analytics.dashboard.access import SETTINGS, Permission
from analytics.dashboard.source import Source
from analytics.guardrails.inputs_from_reader import NoUsagePeriod
from analytics.settings.effects import plan_effect, team_effects, total_cost
from analytics.settings.field_changes import differences
from analytics.settings.in_force import Place
from analytics.settings.parts import Part, SettingsProblem, check
from analytics.settings.versions import NONE_YET, Version, save
from analytics.usage import calendar
from analytics.usage.records import Records

PENDING: Final = "settings_pending"  # part → the edit previewed, awaiting Save
SAVED: Final = "settings_saved"  # part → what the last save said


def text_key(part: Part) -> str:
    """The text area's key: its text is the session's edit of ``part``."""
    return f"settings_text_{part}"


def base_key(part: Part) -> str:
    """The version the session's edit of ``part`` was read from."""
    return f"settings_base_{part}"


@dataclass(frozen=True)
class Pending:
    """An edit previewed: its text, the version it was made from, and how the save is
    recorded (a restore names the version it gives back)."""

    part: Part
    text: str
    base: int
    restoring: int | None = None


def place(src: Source) -> Place:
    return money_files.settings_place(src)


def permission(src: Source) -> Permission:
    """Whether this session may change the settings: SETTINGS_ADMIN_EMAILS, or without
    sign-in SERVICE_ALLOW_SETTINGS_CHANGES; anyone in the demo."""
    return permissions.permission(src, SETTINGS)


def version_text(held: Version) -> str:
    """ "version 3, saved by ana@example.org at 2026-03-01 12:00 UTC"."""
    return f"version {held.number}, saved by {held.origin} at {held.saved_at:%Y-%m-%d %H:%M} UTC"


def start_edit(part: Part, latest: Version | None) -> None:
    """Before the text area is drawn: an edit not begun yet starts from the latest version,
    and so does one whose text Streamlit let go: a widget's value is forgotten once a run
    does not draw it, so a visit to another page empties the text area, while the version it
    was read from, not a widget's, would be kept."""
    if text_key(part) not in st.session_state:
        st.session_state[base_key(part)] = latest.number if latest else NONE_YET
        st.session_state[text_key(part)] = latest.text if latest else ""


def drop_pending(part: Part) -> None:
    st.session_state.setdefault(PENDING, {}).pop(part, None)


def forget_edit(part: Part) -> None:
    """The edit is done (saved) or dropped: the next run starts from the latest version."""
    for key in (base_key(part), text_key(part)):
        st.session_state.pop(key, None)
    drop_pending(part)


def problem(part: Part, text: str) -> str | None:
    """The rule ``text`` breaks, in its file's words, or None: the check `settings import`
    and every command reading the file apply."""
    try:
        check(part, text)
    except SettingsProblem as exc:
        return str(exc)
    return None


def preview(pending: Pending) -> None:
    """Keep ``pending`` as the edit of its part that Save writes."""
    st.session_state.setdefault(PENDING, {})[pending.part] = pending


def restore(old: Version, latest: Version) -> None:
    """Preview giving back ``old``: saved, it is a new version after ``latest``."""
    preview(Pending(old.part, old.text, latest.number, restoring=old.number))


def pending_of(part: Part) -> Pending | None:
    found: Pending | None = st.session_state.get(PENDING, {}).get(part)
    return found


def field_changes(before: str | None, pending: Pending) -> list[str]:
    """Each field the edit changes, before → after."""
    return differences(before, pending.text)


def effect(src: Source, pending: Pending) -> list[str]:
    """What the edit would do, in lines: the chargeback of last month per team (teams), the
    organization's cost of last month (prices), the guardrails plan (budgets)."""
    start, end = calendar.resolve("last-month", calendar.utc_today())
    files = guardrails.files_in_force(src)
    if pending.part == "budgets":
        return _plan_effect(src, replace(files, budgets=pending.text))
    if pending.part not in ("teams", "pricing"):
        return []
    pricing_text = pending.text if pending.part == "pricing" else files.pricing
    if pricing_text is None and pending.part == "pricing":
        return []
    key_day = data.usage(src, start, end).frame
    month = f"last month ({start:%Y-%m})"
    before_teams = None if files.teams is None else parse_teams(files.teams)
    if pending.part == "teams":
        pricing = None if files.pricing is None else parse_pricing(files.pricing)
        effects = team_effects(
            key_day, pricing, before_teams, parse_teams(pending.text), start, end
        )
        return [f"{e.text} ({month})" for e in effects] or [
            f"no team's keys or chargeback of {month} change"
        ]
    assert pricing_text is not None and files.pricing is not None
    before = total_cost(key_day, parse_pricing(files.pricing), before_teams, start, end)
    after_pricing = parse_pricing(pricing_text)
    after = total_cost(key_day, after_pricing, before_teams, start, end)
    return [f"the organization's cost of {month}: {before:,} → {after:,} {after_pricing.currency}"]


def _plan_effect(src: Source, after: guardrails.Files) -> list[str]:
    today = calendar.utc_today()
    before = guardrails.files_in_force(src)
    try:
        planned_after = guardrails.plan(src, after, today)
        planned_before = (
            planned_after if before.budgets is None else guardrails.plan(src, before, today)
        )
    except NoUsagePeriod as exc:
        return [f"no budget can be enforced: {exc}"]
    return plan_effect(planned_before, planned_after)


def save_pending(records: Records, pending: Pending, allowed: Permission) -> Version:
    """Save the previewed edit against its version as ``allowed.who``; `SavedMeanwhile` when
    someone saved since, and `PermissionError` when the session may not change the settings
    (whatever button was pressed): nothing is written. The edit is then done, and the
    settings read again."""
    if allowed.refusal is not None:
        raise PermissionError(allowed.refusal)
    who = allowed.who
    author = who if pending.restoring is None else f"{who}, restoring version {pending.restoring}"
    saved = save(records, pending.part, pending.text, pending.base, author, calendar.utc_now())
    forget_edit(pending.part)
    money_files.new_run()
    st.session_state.setdefault(SAVED, {})[pending.part] = (
        f"Saved: {version_text(saved)}. Every page and command reads it from now on."
    )
    return saved
