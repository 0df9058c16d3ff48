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

import os
from dataclasses import dataclass
from typing import Final

import streamlit as st

from analytics.dashboard import data, guardrails, key_list, settings_in_force
from analytics.dashboard.access import Permission
from analytics.dashboard.source import Source
from analytics.guardrails import NoUsagePeriod
from analytics.settings import (
    NONE_YET,
    Organization,
    Part,
    Place,
    SavedMeanwhile,
    SettingsInForce,
    SettingsProblem,
    Version,
    check,
    differences,
    organization,
    plan_effect,
    route_effects,
    route_warning,
    save,
    team_effects,
    total_cost,
    used_range,
)
from analytics.usage import Records, calendar

PENDING: Final = "settings_pending"  # part → the edit previewed, awaiting Save
SAVED: Final = "settings_saved"  # part → what the last save said
CONFLICT: Final = "settings_conflict"  # part → the save refused as someone saved meanwhile
REPREVIEW: Final = "settings_repreview"  # the part whose edit was re-based, to preview anew
PREVIEWED: Final = "settings_previewed"  # part → the (text, base) whose preview is complete


def text_key(part: Part) -> str:
    """The text area's key: its text is the session's edit of ``part``."""
    return f"settings_text_{part}"


def draft_key(part: Part) -> str:
    """The session's own copy of the edit of ``part``: kept while the page is not drawn,
    when Streamlit forgets the text area's value."""
    return f"settings_draft_{part}"


def keep_draft(part: Part) -> None:
    """The text area changed: keep its text as the session's edit."""
    st.session_state[draft_key(part)] = st.session_state[text_key(part)]


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
    return settings_in_force.settings_place(src)


def version_text(held: Version) -> str:
    """ "version 3, saved by ana@example.org at 2026-03-01 12:00 UTC"."""
    return f"version {held.number}, saved by {held.origin} at {held.saved_at:%Y-%m-%d %H:%M} UTC"


def start_edit(part: Part, latest: Version | None) -> None:
    """Before the text area is drawn: an edit not begun yet starts from the latest version;
    one whose text Streamlit let go (a widget's value is forgotten once a run does not draw
    it, as on a visit to another page) is given back from the session's own copy."""
    if text_key(part) in st.session_state:
        return
    if draft_key(part) in st.session_state and base_key(part) in st.session_state:
        st.session_state[text_key(part)] = st.session_state[draft_key(part)]
        return
    st.session_state[base_key(part)] = latest.number if latest else NONE_YET
    st.session_state[text_key(part)] = latest.text if latest else ""


def unsaved(part: Part, latest: Version | None) -> bool:
    """Whether the session holds an edit of ``part`` that differs from the version in force."""
    text = st.session_state.get(text_key(part))
    return text is not None and text != (latest.text if latest else "")


def drop_pending(part: Part) -> None:
    st.session_state.setdefault(PENDING, {}).pop(part, None)


def forget_edit(part: Part) -> None:
    """The edit is done (saved) or dropped: the next run starts from the latest version."""
    for key in (base_key(part), text_key(part), draft_key(part)):
        st.session_state.pop(key, None)
    st.session_state.setdefault(CONFLICT, {}).pop(part, None)
    drop_pending(part)


def names(src: Source, part: Part) -> Organization:
    """What a document may name: the organization's keys and tags, and the teams in force
    (for the teams document its own teams are what budgets name, so its names do not matter)."""
    first, last = used_range(calendar.utc_today())
    teams = settings_in_force.page_settings(src).document("teams")
    return organization(
        key_list.key_list(src),
        data.usage(src, first, last).frame,
        data.tags(src, first, last).frame,
        None if teams is None else teams.text,
    )


def problem(src: Source, part: Part, text: str, before: str | None) -> str | None:
    """The rule ``text`` breaks, in its file's words, or a name it gives that the organization
    does not have (``before``, the version edited, may keep its own), or None: the check
    `settings import` and every command reading the file apply."""
    try:
        check(part, text, None, names(src, part), before)
    except SettingsProblem as exc:
        return str(exc)
    return None


def warning(part: Part, text: str) -> str | None:
    """What this host cannot send to among the alert routes of ``text``: said before Save."""
    return route_warning(part, text, os.environ)


def conflict_of(part: Part) -> SavedMeanwhile | None:
    found: SavedMeanwhile | None = st.session_state.get(CONFLICT, {}).get(part)
    return found


def take_theirs(part: Part, theirs: Version) -> None:
    """Re-base the session's edit on ``theirs``, the latest version, the typed text kept: it
    is previewed again, wholly against that version."""
    st.session_state[base_key(part)] = theirs.number
    st.session_state.setdefault(CONFLICT, {}).pop(part, None)
    st.session_state[REPREVIEW] = part
    drop_pending(part)


def repreview(part: Part) -> bool:
    """Whether this run previews the edit of ``part`` again, as a take of theirs asked."""
    if st.session_state.get(REPREVIEW) != part:
        return False
    del st.session_state[REPREVIEW]
    return True


def previewed(pending: Pending) -> None:
    """The preview of ``pending`` and its effect are shown whole: Save may write it."""
    st.session_state.setdefault(PREVIEWED, {})[pending.part] = (pending.text, pending.base)


def savable(pending: Pending) -> bool:
    """Whether Save may write ``pending``: its preview complete, for the text shown now."""
    done = st.session_state.get(PREVIEWED, {}).get(pending.part)
    shown = st.session_state.get(text_key(pending.part), pending.text)
    return done == (pending.text, pending.base) and (
        pending.restoring is not None or shown == pending.text
    )


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


def effect(src: Source, pending: Pending, before: str | None) -> list[str]:
    """What the edit would do against ``before``, the version it was made from, in lines: the
    chargeback of last month per team (teams), the organization's cost of last month
    (prices), the guardrails plan (budgets), where alerts go (alert routes)."""
    if pending.part == "alerts":
        return route_effects(before, pending.text)
    start, end = calendar.resolve("last-month", calendar.utc_today())
    settings = settings_in_force.view_settings(src)
    then_settings = settings.with_text(pending.part, before)
    after = settings.with_text(pending.part, pending.text)
    if pending.part == "budgets":
        return _plan_effect(src, then_settings, after)
    if pending.part == "pricing" and then_settings.document("pricing") is None:
        return []  # no prices before: no cost to compare
    key_day = data.usage(src, start, end).frame
    month = f"last month ({start:%Y-%m})"
    before_teams = then_settings.given_teams
    if pending.part == "teams":
        pricing = then_settings.pricing
        effects = team_effects(key_day, pricing, before_teams, after.teams, start, end)
        return [f"{e.text} ({month})" for e in effects] or [
            f"no team's keys or chargeback of {month} change"
        ]
    assert then_settings.pricing is not None and after.pricing is not None
    now = total_cost(key_day, then_settings.pricing, before_teams, start, end)
    after_pricing = after.pricing
    then = total_cost(key_day, after_pricing, before_teams, start, end)
    return [f"the organization's cost of {month}: {now:,} → {then:,} {after_pricing.currency}"]


def _plan_effect(src: Source, before: SettingsInForce, after: SettingsInForce) -> list[str]:
    today = calendar.utc_today()
    try:
        planned_after = guardrails.plan(src, after, today)
        planned_before = (
            planned_after
            if before.document("budgets") is None
            else guardrails.plan(src, before, today)
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
    try:
        saved = save(records, pending.part, pending.text, pending.base, author, calendar.utc_now())
    except SavedMeanwhile as exc:
        st.session_state.setdefault(CONFLICT, {})[pending.part] = exc
        raise
    forget_edit(pending.part)
    settings_in_force.new_run()
    st.session_state.setdefault(SAVED, {})[pending.part] = (
        f"Saved: {version_text(saved)}. Every page and command reads it from now on."
    )
    return saved
