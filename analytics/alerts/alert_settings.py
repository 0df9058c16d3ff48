"""``alerts.toml``: where alerts go. Credentials and webhook addresses never live in the file.

The file names the environment variables that hold them (a webhook address carries its
channel's secret token), and the values are read once, when the file is loaded, into
``SecretStr`` so no ``repr`` or error text shows them. Problems are one ``AlertSettingsError``
naming the file, the entry and the field, never a value read from the environment.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

import msgspec
from pydantic import SecretStr

from analytics.storage import parse_toml, read_text

Security = Literal["starttls", "ssl", "none"]
WebhookKind = Literal["slack", "teams", "json"]
DEFAULT_PORTS: dict[str, int] = {"starttls": 587, "ssl": 465, "none": 25}
EMAIL = "email"  # the e-mail destination's name in messages and the delivery state
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class AlertSettingsError(ValueError):
    """The alert settings cannot be read, break a rule, or name an unset variable."""


def _check_variable(field: str, name: str) -> None:
    # Never echo the value: someone may have pasted the secret itself here.
    if not _VARIABLE.fullmatch(name):
        raise ValueError(
            f"{field} must name an environment variable (letters, digits and _), not hold a "
            "value: the secret stays in the environment, out of the file"
        )


def _check_web_address(field: str, value: str) -> None:
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"{field} must be an http:// or https:// address")


class EmailEntry(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """The ``[email]`` table: an SMTP server and who gets the messages."""

    host: str
    security: Security
    sender: str = msgspec.field(name="from")
    to: tuple[str, ...]
    port: int | msgspec.UnsetType = msgspec.UNSET
    username_env: str = "ANALYTICS_SMTP_USERNAME"
    password_env: str = "ANALYTICS_SMTP_PASSWORD"  # noqa: S105 (a variable name)

    def __post_init__(self) -> None:
        if not self.host.strip():
            raise ValueError("host must name the SMTP server")
        if self.port is not msgspec.UNSET and not 0 < self.port < 65536:
            raise ValueError(f"port must be in 1..65535, not {self.port}")
        if not self.to:
            raise ValueError("to must list at least one address")
        for field, addresses in (("from", (self.sender,)), ("to", self.to)):
            for address in addresses:
                if "@" not in address:
                    raise ValueError(
                        f"{field} must be an e-mail address such as ops@example.org, "
                        f"not {address!r}"
                    )
        _check_variable("username_env", self.username_env)
        _check_variable("password_env", self.password_env)


class WebhookEntry(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """One ``[[webhook]]``: a chat channel (Slack, Teams) or any receiver of JSON."""

    kind: WebhookKind
    url_env: str
    name: str = ""

    def __post_init__(self) -> None:
        _check_variable("url_env", self.url_env)

    @property
    def title(self) -> str:
        return self.name or self.url_env


def _check_days(field: str, days: int | None, least: int) -> None:
    if days is not None and days < least:
        raise ValueError(f"{field} must be {least} or more whole days, not {days}")


def _explain(field: str, what: str) -> str:
    """A day count given as a fraction or a text, in the file's words."""
    if field.startswith("rotations.") and what.startswith("Expected `int"):
        return "must be a whole number of days"
    return what


class Rotations(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """The ``[rotations]`` table: how key rotations are watched and reminded of. The
    reminders go out through this file's destinations, and the quiet days are the same watch
    of the old key, so the three live together here (each with its default when absent)."""

    quiet_days: int = 3  # whole days without use before the old key may be deactivated
    remind_after_days: int = 14  # an old key still used this many days after the rotation began
    max_age_days: int | None = None  # remind of each active key older than this; None: off

    def __post_init__(self) -> None:
        _check_days("quiet_days", self.quiet_days, 0)
        _check_days("remind_after_days", self.remind_after_days, 1)
        _check_days("max_age_days", self.max_age_days, 1)


class AlertSettings(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """The whole alerts document (``alerts.toml``, a file or the state store's copy): the
    dashboard's address, the destinations and the rotations' watch."""

    base_url: str
    email: EmailEntry | None = None
    webhooks: tuple[WebhookEntry, ...] = msgspec.field(default=(), name="webhook")
    rotations: Rotations = msgspec.field(default_factory=Rotations)

    def __post_init__(self) -> None:
        _check_web_address("base_url", self.base_url)
        if self.email is None and not self.webhooks:
            raise ValueError("no destination: add an [email] table or a [[webhook]] entry")
        names = [EMAIL] if self.email else []
        for index, hook in enumerate(self.webhooks):
            if hook.title in names:
                raise ValueError(
                    f"[[webhook]] #{index + 1} (name): {hook.title!r} names another "
                    "destination already; give each a name of its own"
                )
            names.append(hook.title)


@dataclass(frozen=True)
class Email:
    """The SMTP destination with its credentials (None: the server takes mail without)."""

    host: str
    port: int
    security: Security
    sender: str
    to: tuple[str, ...]
    username: SecretStr | None
    password: SecretStr | None
    name: str = EMAIL


@dataclass(frozen=True)
class Webhook:
    """A webhook destination; ``url`` holds the channel's secret token."""

    name: str
    kind: WebhookKind
    url: SecretStr


@dataclass(frozen=True)
class AlertsConfig:
    """A loaded alerts file, secrets read from the environment."""

    source: str
    base_url: str
    email: Email | None
    webhooks: tuple[Webhook, ...]

    def link(self, path: str) -> str:
        """The absolute address of a dashboard path."""
        return self.base_url.rstrip("/") + path


def _secret(environ: Mapping[str, str], name: str) -> SecretStr | None:
    value = environ.get(name, "")
    return SecretStr(value) if value else None


def _email(entry: EmailEntry, environ: Mapping[str, str]) -> Email:
    username = _secret(environ, entry.username_env)
    password = _secret(environ, entry.password_env)
    if (username is None) != (password is None):
        given, missing = (
            (entry.username_env, entry.password_env)
            if password is None
            else (entry.password_env, entry.username_env)
        )
        field = "password_env" if password is None else "username_env"
        raise ValueError(
            f"email.{field}: {given} is set but {missing} is not; set both, or neither for a "
            "server that takes mail without signing in"
        )
    if username is not None and entry.security == "none":
        raise ValueError(
            "email.security: credentials are only sent over TLS; set security = "
            '"starttls" or "ssl", or unset the credential variables'
        )
    port = DEFAULT_PORTS[entry.security] if entry.port is msgspec.UNSET else entry.port
    return Email(entry.host, port, entry.security, entry.sender, entry.to, username, password)


def _webhook(index: int, entry: WebhookEntry, environ: Mapping[str, str]) -> Webhook:
    where = f"[[webhook]] #{index + 1} (url_env)"
    url = _secret(environ, entry.url_env)
    if url is None:
        raise ValueError(f"{where}: the environment variable {entry.url_env} is not set")
    try:
        _check_web_address(f"the environment variable {entry.url_env}", url.get_secret_value())
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    return Webhook(entry.title, entry.kind, url)


def parse_alerts(text: str, source: str, environ: Mapping[str, str]) -> AlertsConfig:
    """Parse an alerts file and read the secrets it names from ``environ``."""
    return with_secrets(parse_alert_settings(text, source), source, environ)


def with_secrets(entries: AlertSettings, source: str, environ: Mapping[str, str]) -> AlertsConfig:
    """The alert routes of a parsed alerts document, the secrets they name read from
    ``environ``: a route whose variable is unset is refused naming ``source``."""
    try:
        email = _email(entries.email, environ) if entries.email else None
        hooks = tuple(_webhook(i, hook, environ) for i, hook in enumerate(entries.webhooks))
    except ValueError as exc:
        raise AlertSettingsError(f"{source}: {exc}") from None
    return AlertsConfig(source, entries.base_url, email, hooks)


def parse_alert_settings(text: str, source: str) -> AlertSettings:
    """The alerts document's structure, every rule of the file checked; no secret is read."""
    return parse_toml(text, source, AlertSettings, AlertSettingsError, _explain)


def rotation_settings(text: str, source: str) -> Rotations:
    """The ``[rotations]`` settings of an alerts document, read without its secrets: watching
    a rotation needs no destination's credentials."""
    return parse_alert_settings(text, source).rotations


def load_alerts(path: Path | str, environ: Mapping[str, str]) -> AlertsConfig:
    """Read and parse an alerts file."""
    return parse_alerts(read_text(path, AlertSettingsError), str(path), environ)
