"""Who may see and change what: roles and their rights (``roles``), and the scope a session
sees, applied where usage and keys are read (``scope``)."""

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
    "Visible",
    "parse_grant",
    "rights",
    "role_settings",
]
