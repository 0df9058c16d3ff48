"""Where the dashboard's data comes from: the service connection from Streamlit secrets or the
environment, and a fingerprint that names the source in caches without revealing the key."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import streamlit as st
from pydantic import ValidationError

from analytics.access import EVERYTHING, Visible
from analytics.service import ServiceConnection, setting_problems

SETTING_NAMES = (
    "auth_key", "base_url", "auth_scheme", "history_path", "state_url", "allow_key_changes",
    "allow_settings_changes",
)  # fmt: skip
DEMO_NAMES = ("demo_keys", "demo_days", "demo_seed", "demo_tags")


@dataclass(frozen=True)
class Source:
    """The configured service, or the embedded demo organization, as one session's scope
    sees it (``visible``: the whole organization unless ``analytics.dashboard.visitor`` says
    otherwise)."""

    connection: ServiceConnection
    origin: str  # names the organization in the caches of what the service answers
    demo: bool
    visible: Visible = EVERYTHING
    scope_key: str = ""  # the scope and the teams settings it was resolved over, hashed

    @property
    def fingerprint(self) -> str:
        """Names the source and the scope in the caches of everything derived from usage: a
        team's tables are never served to another scope."""
        return self.origin if self.visible.scope.whole else f"{self.origin}|{self.scope_key}"

    @property
    def description(self) -> str:
        """The sidebar's line of where the figures come from. A team's scope is told no count
        of the organization's (its keys, its tags): its own are the scope's line."""
        if self.demo:
            s = self.connection
            if not self.visible.scope.whole:
                return f"Demo organization generated over {s.demo_days:,} days, seed {s.demo_seed}"
            tags = "" if s.demo_tags is None else f", {s.demo_tags:,} tags"
            return (
                f"Demo organization generated from {s.demo_keys} keys and {s.demo_days:,} days"
                f"{tags}, seed {s.demo_seed} (Keys & limits counts its keys)"
            )
        return f"Organization at {self.connection.base_url}"


def whole_of(src: Source) -> Source:
    """The organization's source behind a session's: what a table of the whole organization
    reads before it is narrowed to the session's scope in one place (the guardrails' plan,
    ``guardrails.seen.seen_plan``), so a team's keys are shown the limits the organization's
    plan gives them."""
    return replace(src, visible=EVERYTHING, scope_key="")


def secrets() -> Mapping[str, Any]:
    """`st.secrets` as a plain mapping; empty when there is no secrets file."""
    try:
        return st.secrets.to_dict()
    except (FileNotFoundError, st.errors.StreamlitSecretNotFoundError):
        return {}


def load_connection() -> ServiceConnection:
    """The service connection from `.streamlit/secrets.toml` (`SERVICE_*` names) where given,
    else the environment."""
    given = secrets()
    values = {
        name: given[f"SERVICE_{name.upper()}"]
        for name in (*SETTING_NAMES, *DEMO_NAMES)
        if f"SERVICE_{name.upper()}" in given
    }
    try:
        return ServiceConnection(**values)
    except ValidationError as exc:
        st.error(f"Invalid setting — {setting_problems(exc)}.", icon=":material/settings:")
        st.stop()


def organization_source() -> Source:
    """The organization's source, before any session's scope (``visitor.scoped``)."""
    connection = load_connection()
    if connection.auth_key and connection.is_configured:
        secret = (
            f"{connection.base_url}\n{connection.auth_scheme}\n"
            f"{connection.auth_key.get_secret_value()}"
        )
        return Source(connection, "org-" + hashlib.sha256(secret.encode()).hexdigest()[:16], False)
    return Source(connection, connection.demo_name, True)
