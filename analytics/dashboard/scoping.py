"""The session's rights and the source every page reads through: the organization's, narrowed
to the session's scope (``analytics.access``) once, here, before any page reads a figure.

Without sign-in the dashboard is the organization's (whoever reaches it sees everything, as
before roles); with sign-in the roles of the address and of the token's groups decide. A team
scope is resolved over the teams settings in force, read as every page reads them; teams
settings that cannot be read leave a team lead nothing to see rather than everything.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Any

import streamlit as st

from analytics.access import Rights, Scope, Visible, rights, role_settings
from analytics.access.roles import WHOLE
from analytics.cost.teams import NO_TEAMS, TeamFileError, parse_teams
from analytics.dashboard.settings_in_force import page_document
from analytics.dashboard.source import Source, organization_source, secrets


def claims() -> dict[str, Any]:
    """The signed-in person's claims (the token's), empty when nobody is signed in."""
    return {name: st.user.get(name) for name in st.user} if st.user.get("is_logged_in") else {}


def session_rights() -> Rights:
    """What this session may see and change: everything without sign-in (as before roles,
    changes stay behind their own settings), else the union of the person's grants."""
    given = secrets()
    if "auth" not in given:
        return Rights(see=WHOLE)
    signed = claims()
    email = signed.get("email")
    held = role_settings(given).grants(email if isinstance(email, str) else None, signed)
    return rights(held)


def source() -> Source:
    """The source this session reads: the organization's, or its team scope's."""
    base = organization_source()
    held = session_rights()
    if not held.see or held.see.whole:
        return base
    scope = Scope.of(held.see)
    found = page_document("teams", base)
    text = "" if found is None else found.text
    try:
        teams = parse_teams(text, found.name) if found is not None else NO_TEAMS
    except TeamFileError as exc:
        st.error(f"{exc}. Your scope ({scope.name}) cannot be read until they are fixed.")
        st.stop()
    digest = hashlib.sha256(f"{sorted(scope.teams or ())}\n{text}".encode()).hexdigest()[:16]
    return replace(base, visible=Visible(scope, teams), scope_key=digest)
