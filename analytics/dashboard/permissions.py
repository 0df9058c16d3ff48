"""Whether this session may change keys or the settings: the session's rights (``scoping``)
against the right asked for and, for a key administrator of some teams, the key's team."""

from __future__ import annotations

import streamlit as st

from analytics.access import WHOLE_ORGANIZATION, Reach, Visible
from analytics.cost.teams import NO_TEAMS
from analytics.dashboard import scoping
from analytics.dashboard.access import KEYS, Permission, Right, change_refusal
from analytics.dashboard.keys_and_limits import all_entries, teams_in_force
from analytics.dashboard.source import Source, secrets
from analytics.keys.audit import recorded_masks
from analytics.keys.join import masked
from analytics.service.models import DeveloperKey


def permission(src: Source, right: Right = KEYS, key: DeveloperKey | None = None) -> Permission:
    """Whether this session may change keys (or, with `access.SETTINGS`, the settings): any
    key, or with ``key`` that one. A key administrator of a team may change its keys only:
    a key of another team, creating a key and the guardrails (the organization's) are
    refused, with the team's name."""
    given = secrets()
    signed_in = "auth" in given and bool(st.user.get("is_logged_in"))
    email = st.user.get("email") if signed_in else None
    without_sign_in = (
        src.settings.allow_key_changes if right == KEYS else src.settings.allow_settings_changes
    )
    held = scoping.session_rights()
    reach = held.change_keys if right == KEYS else held.change_settings
    refusal = change_refusal(
        right,
        src.demo,
        "auth" in given,
        email if isinstance(email, str) else None,
        reach,
        without_sign_in,
    )
    if refusal is None and signed_in and not src.demo and not reach.whole:
        refusal = _team_refusal(src, reach, key)
    if src.demo:
        who = "demo dashboard"
    elif isinstance(email, str) and email:
        who = email
    else:
        who = "dashboard without sign-in"
    return Permission(who, refusal)


def _team_refusal(src: Source, reach: Reach, key: DeveloperKey | None) -> str | None:
    """Why a key administrator of some teams may not change ``key`` (any key: None)."""
    teams = ", ".join(sorted(reach.teams))
    if key is None:
        return (
            f"You may change the keys of {teams} only: creating a key and the guardrails are "
            "the organization's."
        )
    mask = recorded_masks(all_entries(src)).get(key.key_id) or masked(key.key_id)
    team = Visible(WHOLE_ORGANIZATION, teams_in_force(src) or NO_TEAMS).team_of_key(mask, key.label)
    if reach.covers(team):
        return None
    return f"You may change the keys of {teams} only: this key is not one of them."
