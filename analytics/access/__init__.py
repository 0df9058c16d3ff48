"""Who may see and change what: roles and their rights (``roles``), and the scope a session
sees, applied where usage and keys are read (``scope``), and where money is read
(``scoped_money``: a team's money is its rows of the organization's Chargeback)."""

from analytics.access.roles import (
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
from analytics.access.scope import EVERYTHING, WHOLE_ORGANIZATION, OutOfScope, Scope, Visible
from analytics.access.scoped_money import ScopedMoney, scoped_review

__all__ = [
    "EVERYTHING",
    "WHOLE_ORGANIZATION",
    "AccessSettingsError",
    "Grant",
    "OutOfScope",
    "Reach",
    "Rights",
    "Role",
    "RoleSettings",
    "Scope",
    "ScopedMoney",
    "Visible",
    "parse_grant",
    "rights",
    "role_settings",
    "scoped_review",
]
