"""This run's visitor, worked out once a run: who is signed in (the identity token's e-mail),
the rights their roles give (``analytics.access``), the source every page reads through,
narrowed to their scope, and whether they may change keys or the settings, and as whom.

app.py calls `arrive` at the top of each run of the script, and the gate, the navigation, the
sidebar, every page and every change read `current`: the roles, the teams settings a scope is
resolved over and the source are read once a run, and every surface of a run sees the same.
A callback runs before the script, so it reads the visitor of the session's run before, the
same person a moment earlier.

Without sign-in the dashboard is the organization's (whoever reaches it sees everything, as
before roles; changes stay behind their own settings); with sign-in the roles of the address
and of the token's groups decide, in the demo too. A team scope is resolved over the teams
settings in force, read as every page reads them; teams settings that cannot be read leave a
team lead nothing to see rather than everything.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Final

import streamlit as st

from analytics.access import WHOLE, Rights, Scope, Visible, rights, role_settings, session_rule
from analytics.cost import NO_TEAMS, Teams, TeamSettingsError
from analytics.dashboard.access import KEYS, Permission, Right, change_refusal
from analytics.dashboard.key_list import all_entries, teams_in_force
from analytics.dashboard.settings_in_force import page_settings
from analytics.dashboard.source import Source, organization_source, secrets
from analytics.keys import recorded_masks
from analytics.service import DeveloperKey

VISITOR: Final = "visitor"  # this run's, in the session's state


@dataclass
class Visitor:
    """One run's visitor: whether sign-in is configured (``signed``), the signed-in e-mail
    (None: nobody, or a token without one) and the token's claims. What their roles give and
    the source of their scope are worked out when first asked, once: the gate refuses unsafe
    sign-in settings before any role is read, and a visitor it turns away reads no
    settings."""

    signed: bool
    email: str | None
    claims: dict[str, Any] = field(repr=False)

    @cached_property
    def rights(self) -> Rights:
        """What this visitor may see and change: everything without sign-in (as before roles,
        changes stay behind their own settings), else the union of their roles' grants."""
        if not self.signed:
            return Rights(see=WHOLE)
        return rights(role_settings(secrets()).grants(self.email, self.claims))

    @cached_property
    def source(self) -> Source:
        """The source this visitor reads: the organization's, or their team scope's."""
        return scoped(organization_source(), self.rights)

    @property
    def actor(self) -> str:
        """Who a change made by this visitor is recorded as: the signed-in person, else the
        demo's anonymous visitor or the dashboard without sign-in."""
        if self.email is not None:
            return self.email
        return "demo dashboard" if self.source.demo else "dashboard without sign-in"

    def permission(self, right: Right = KEYS, key: DeveloperKey | None = None) -> Permission:
        """Whether this visitor may change keys (or, with `access.SETTINGS`, the settings):
        any key, or with ``key`` that one. A key administrator of a team may change its keys
        only: a key of another team, creating a key and the guardrails (the organization's)
        are refused, with the team's name."""
        src = self.source
        without_sign_in = (
            src.connection.allow_key_changes
            if right == KEYS
            else src.connection.allow_settings_changes
        )
        reach = self.rights.change_keys if right == KEYS else self.rights.change_settings
        refused = change_refusal(right, src.demo, self.signed, self.email, reach, without_sign_in)

        def placed() -> tuple[Teams, dict[str, str]]:
            return teams_in_force(src) or NO_TEAMS, recorded_masks(all_entries(src))

        rule = session_rule(refused, self.signed, reach, placed)
        return Permission(self.actor, rule(key) if right == KEYS else refused, rule)


def arrive() -> Visitor:
    """This run's visitor, from the secrets and the identity token, kept for the run
    (`current`)."""
    signed = "auth" in secrets()
    logged_in = signed and bool(st.user.get("is_logged_in"))
    given_email = st.user.get("email") if logged_in else None
    email = given_email if isinstance(given_email, str) and given_email else None
    claims = {name: st.user.get(name) for name in st.user} if logged_in else {}
    found = Visitor(signed, email, claims)
    st.session_state[VISITOR] = found
    return found


def current() -> Visitor:
    """This run's visitor (`arrive`'s), worked out now if the run has none yet."""
    found = st.session_state.get(VISITOR)
    return found if isinstance(found, Visitor) else arrive()


def scoped(base: Source, held: Rights) -> Source:
    """``base`` narrowed to what ``held`` may see: itself for the whole organization, else
    the team scope resolved over the teams settings in force."""
    if not held.see or held.see.whole:
        return base
    scope = Scope.of(held.see)
    settings = page_settings(base)
    found = settings.document("teams")
    text = "" if found is None else found.text
    try:
        teams = settings.teams
    except TeamSettingsError as exc:
        st.error(f"{exc}. Your scope ({scope.name}) cannot be read until they are fixed.")
        st.stop()
    digest = hashlib.sha256(f"{sorted(scope.teams or ())}\n{text}".encode()).hexdigest()[:16]
    return replace(base, visible=Visible(scope, teams), scope_key=digest)
