"""Who may see and change what: roles and their rights (``roles``), and the scope a session
sees, applied where usage and keys are read (``scope``), and where money is read
(``scoped_money``: a team's money is its rows of the organization's Chargeback)."""

from analytics.access.acting import session_rule
from analytics.access.roles import (
    WHOLE,
    AccessSettingsError,
    Grant,
    Reach,
    Rights,
    Role,
    RoleSettings,
    parse_grant,
    rights,
    role_settings,
)
from analytics.access.scope import EVERYTHING, WHOLE_ORGANIZATION, OutOfScope, Read, Scope, Visible
from analytics.access.scoped_money import ScopedMoney, scoped_review
from analytics.access.tokens import ApiToken, TokenNotFound, Tokens

__all__ = [
    "EVERYTHING",
    "WHOLE",
    "WHOLE_ORGANIZATION",
    "AccessSettingsError",
    "ApiToken",
    "Grant",
    "OutOfScope",
    "Reach",
    "Read",
    "Rights",
    "Role",
    "RoleSettings",
    "Scope",
    "ScopedMoney",
    "TokenNotFound",
    "Tokens",
    "Visible",
    "parse_grant",
    "rights",
    "role_settings",
    "scoped_review",
    "session_rule",
]
