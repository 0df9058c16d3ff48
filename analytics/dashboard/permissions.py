"""Whether this session may change keys or the settings, and as whom: the session's rights
(``scoping``) against the right asked for and, for a key administrator of some teams, the key's
team. The same rule travels with the changes (``Permission.rule``), which ask it again below
the page."""

from __future__ import annotations

import streamlit as st

from analytics.access.acting import session_rule
from analytics.cost.teams import NO_TEAMS, Teams
from analytics.dashboard import scoping
from analytics.dashboard.access import KEYS, Permission, Right, change_refusal
from analytics.dashboard.keys_and_limits import all_entries, teams_in_force
from analytics.dashboard.source import Source, secrets
from analytics.keys.audit import recorded_masks
from analytics.service.models import DeveloperKey


def signed_in_email() -> str | None:
    """The signed-in person's e-mail address (the identity token's), or None."""
    if "auth" not in secrets() or not st.user.get("is_logged_in"):
        return None
    email = st.user.get("email")
    return email if isinstance(email, str) and email else None


def actor_name(src: Source) -> str:
    """Who a change made from this session is recorded as: the signed-in person, else the
    demo's anonymous visitor or the dashboard without sign-in."""
    email = signed_in_email()
    if email is not None:
        return email
    return "demo dashboard" if src.demo else "dashboard without sign-in"


def permission(src: Source, right: Right = KEYS, key: DeveloperKey | None = None) -> Permission:
    """Whether this session may change keys (or, with `access.SETTINGS`, the settings): any
    key, or with ``key`` that one. A key administrator of a team may change its keys only:
    a key of another team, creating a key and the guardrails (the organization's) are
    refused, with the team's name. Signed in, the person's roles decide, in the demo too."""
    without_sign_in = (
        src.connection.allow_key_changes if right == KEYS else src.connection.allow_settings_changes
    )
    held = scoping.session_rights()
    reach = held.change_keys if right == KEYS else held.change_settings
    signed = "auth" in secrets()
    refused = change_refusal(right, src.demo, signed, signed_in_email(), reach, without_sign_in)

    def placed() -> tuple[Teams, dict[str, str]]:
        return teams_in_force(src) or NO_TEAMS, recorded_masks(all_entries(src))

    rule = session_rule(refused, signed, reach, placed)
    return Permission(actor_name(src), rule(key) if right == KEYS else refused, rule)
