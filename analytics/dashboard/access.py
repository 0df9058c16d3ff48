"""Who may see the dashboard when sign-in is configured: pure decisions, tested on their own."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from analytics.access import AccessSettingsError, Reach, Rights, role_settings
from analytics.keys import KeyRule

# Streamlit signs the identity cookie with `cookie_secret`; shorter secrets are guessable.
MIN_COOKIE_SECRET = 32
# What `st.login()` needs for its default provider, besides `cookie_secret`.
PROVIDER_SETTINGS = ("redirect_uri", "client_id", "client_secret", "server_metadata_url")
CALLBACK_PATH = "/oauth2callback"


class Access(Enum):
    OPEN = "open"  # no sign-in configured
    SIGN_IN = "sign_in"  # configured, not logged in
    DENIED = "denied"  # logged in, e-mail not on the allow-list
    ALLOWED = "allowed"


def access_decision(auth_configured: bool, is_logged_in: bool, held: Rights) -> Access:
    """Fails closed: a person signed in gets in only with a right to see something (a role
    of ``analytics.access.roles``, from the e-mail lists or the token's groups)."""
    if not auth_configured:
        return Access.OPEN
    if not is_logged_in:
        return Access.SIGN_IN
    return Access.ALLOWED if held.see else Access.DENIED


@dataclass(frozen=True)
class Right:
    """A right beside seeing the dashboard, in the words its refusals use: what it changes,
    the list of addresses that hold it, and the setting that grants it without sign-in."""

    things: str  # "keys"
    one: str  # "a key"
    admins: str  # "KEY_ADMIN_EMAILS"
    allow: str  # "SERVICE_ALLOW_KEY_CHANGES"


KEYS = Right("keys", "a key", "KEY_ADMIN_EMAILS", "SERVICE_ALLOW_KEY_CHANGES")
SETTINGS = Right(
    "the settings", "a setting", "SETTINGS_ADMIN_EMAILS", "SERVICE_ALLOW_SETTINGS_CHANGES"
)


@dataclass(frozen=True)
class Permission:
    """Whether this session may change keys (or the settings), as whom, and why not; ``rule``
    is the same answer for any key, which the key changes ask again below the page."""

    who: str
    refusal: str | None
    rule: KeyRule

    @property
    def allowed(self) -> bool:
        return self.refusal is None


def change_refusal(
    right: Right,
    demo: bool,
    auth_configured: bool,
    email: str | None,
    reach: Reach,
    allowed_without_sign_in: bool,
) -> str | None:
    """Why this session may not use ``right`` at all, or None when it may (over ``reach``:
    the whole organization, or some teams' keys, which the caller checks key by key).

    Changing keys or the settings is a separate right from seeing usage: with sign-in, only
    the roles that hold it (a key or settings administrator, from the right's e-mail list or
    the token's groups); without sign-in nobody can be told apart, so changes are off unless
    the right's setting says the deployment is trusted. The demo organization is the
    emulator's, and the anonymous visitor of a demo without sign-in may try changes on it;
    once someone signs in, their roles decide, in the demo too.
    """
    if auth_configured:
        if reach:
            return None
        return (
            f"{email or 'This account'} may look but not change {right.things}: ask an "
            f"administrator to add the address to {right.admins}."
        )
    if demo or allowed_without_sign_in:
        return None
    return (
        f"Changes of {right.things} are off: this dashboard has no sign-in, so it cannot tell "
        f"who changes {right.one}. Configure sign-in and {right.admins}, or set "
        f"{right.allow}=true for a dashboard only its administrators reach."
    )


def _problems(secrets: Mapping[str, Any]) -> list[str]:
    """What keeps a configured sign-in from being safe; empty when it is (or is not configured).

    A half-configured sign-in must close the dashboard rather than open it: a weak cookie
    secret lets anyone forge an identity, and a missing or mistyped allow-list would otherwise
    be read as "nobody" or, for a string, as a list of single characters.
    """
    if "auth" not in secrets:
        return []
    auth = secrets["auth"]
    if not isinstance(auth, Mapping):
        return ["[auth] must be a section of settings"]
    problems = []
    secret = auth.get("cookie_secret")
    if not isinstance(secret, str) or not secret:
        problems.append("[auth] has no cookie_secret")
    elif len(secret) < MIN_COOKIE_SECRET:
        problems.append(f"[auth] cookie_secret is shorter than {MIN_COOKIE_SECRET} characters")
    missing = [name for name in PROVIDER_SETTINGS if not isinstance(auth.get(name), str)]
    if missing:
        problems.append(f"[auth] lacks {', '.join(missing)}")
    elif not auth["redirect_uri"].endswith(CALLBACK_PATH):
        problems.append(f"[auth] redirect_uri must end with {CALLBACK_PATH}")
    if "ADMIN_EMAILS" not in secrets and "roles" not in secrets:
        problems.append("ADMIN_EMAILS or [roles], who is allowed in, is missing")
    try:
        role_settings(secrets)
    except AccessSettingsError as exc:
        problems.append(str(exc))
    return problems


def sign_in_error(secrets: Mapping[str, Any]) -> str | None:
    """The one message a misconfigured sign-in shows instead of the dashboard (no values)."""
    problems = _problems(secrets)
    if not problems:
        return None
    return (
        "The dashboard is closed: its sign-in settings in .streamlit/secrets.toml are unsafe ("
        + "; ".join(problems)
        + "). Fix them and restart the dashboard."
    )


# Streamlit's sign-in callback returns every sign-in to the app's root. The page that was
# asked for rides through the provider's round trip in this short-lived cookie, set by the
# sign-in page's browser and read once by the first signed-in run.
RETURN_COOKIE = "dashboard_return_to"
RETURN_SECONDS = 600
REMEMBER_ASKED = (
    "<script>document.cookie = '" + RETURN_COOKIE + "=' + encodeURIComponent("
    "window.parent.location.pathname + window.parent.location.search) + "
    "'; path=/; max-age=" + str(RETURN_SECONDS) + "; SameSite=Lax';</script>"
)
FORGET_ASKED = (
    "<script>document.cookie = '" + RETURN_COOKIE + "=; path=/; max-age=0; SameSite=Lax';</script>"
)


def asked_page(cookie: str | None, url_paths: Iterable[str]) -> tuple[str, dict[str, str]] | None:
    """The page (one of `url_paths`) and query the visitor asked for before signing in, or None.

    Only a page of the dashboard is ever a destination: the cookie comes from the browser, so
    anything else in it (another site, an unknown page, the root) is ignored. Behind a base
    URL path the address's last segment names the page.
    """
    if not cookie:
        return None
    asked = urlsplit(unquote(cookie))
    if asked.scheme or asked.netloc:
        return None
    page = asked.path.rstrip("/").rsplit("/", 1)[-1]
    if page not in set(url_paths):
        return None
    return page, dict(parse_qsl(asked.query))
