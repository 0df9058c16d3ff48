"""Who may see the dashboard when sign-in is configured: a pure decision, tested on its own."""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum


class Access(Enum):
    OPEN = "open"  # no sign-in configured
    SIGN_IN = "sign_in"  # configured, not logged in
    DENIED = "denied"  # logged in, e-mail not on the allow-list
    ALLOWED = "allowed"


def access_decision(
    auth_configured: bool, is_logged_in: bool, email: str | None, allow_list: Iterable[str]
) -> Access:
    """Fails closed: an empty allow-list admits nobody, and e-mails compare case-insensitively."""
    if not auth_configured:
        return Access.OPEN
    if not is_logged_in:
        return Access.SIGN_IN
    allowed = {entry.strip().lower() for entry in allow_list if entry.strip()}
    if email and email.strip().lower() in allowed:
        return Access.ALLOWED
    return Access.DENIED
