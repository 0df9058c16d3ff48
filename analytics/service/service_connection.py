"""The service connection: how the service is reached (its address, key and scheme), where the
history and the state store are, and the demo organization's size, from `SERVICE_*` environment
variables or explicit values. Not the organization's settings (`analytics.settings`)."""

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

import platformdirs
from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

# An HTTP authorization scheme is one token (RFC 9110): no spaces, no separators.
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


@dataclass(frozen=True)
class DemoFiles:
    """Where the demo organization's state lives, in the history folder: shared by the
    dashboard and every `--demo` command, made again as one (`analytics.connection`)."""

    store: Path  # the emulator's database: the organization, with every change made to it
    account: str  # the organization's name in the state store, whose records end with it
    lock: Path  # held while the store is loaded or reset, and while its audit log grows


def default_history_path() -> Path:
    """The per-user cache folder: history is a cache that can always be rebuilt from the service."""
    return Path(platformdirs.user_cache_dir("usage-dashboard")) / "history"


class ServiceConnection(BaseSettings):
    """Everything needed to reach the service or to run the embedded demo organization.

    Values passed to the constructor win over the environment, so the dashboard can build one
    from Streamlit secrets with plain keyword arguments.
    """

    model_config = SettingsConfigDict(env_prefix="SERVICE_", extra="ignore")

    auth_key: SecretStr | None = None
    base_url: str | None = None
    auth_scheme: str = "Service-Auth-Key"
    # None turns the history store off (and the embedded state store with it).
    history_path: Path | None = Field(default_factory=default_history_path)
    # The state store shared by several hosts (postgresql://user:password@host:5432/db); None:
    # the embedded one in the history folder. A secret: it may hold the password.
    state_url: SecretStr | None = None
    demo_keys: int = Field(default=25, ge=1)
    demo_days: int = Field(default=1095, ge=1)
    demo_seed: int = 42
    # None: the demo organization's dozen shared tags; a number: that many, with a long tail.
    demo_tags: int | None = Field(default=None, ge=1, le=100_000)
    # Without sign-in the dashboard cannot tell who changes a key: changes are off unless a
    # deployment only key administrators reach says so.
    allow_key_changes: bool = False
    # The same for the settings (prices, teams, budgets, alert routes) on the Settings page.
    allow_settings_changes: bool = False
    # Where the organization's settings are the truth: `store`, the state store (the files
    # then an import and export format), or `files`, the files as found (nothing writes them).
    settings_source: Literal["store", "files"] = Field(
        default="store", validation_alias=AliasChoices("SETTINGS_SOURCE", "settings_source")
    )

    @field_validator("base_url")
    @classmethod
    def _an_address(cls, value: str | None) -> str | None:
        """Checked before any request: an address without a scheme would only fail after every
        retry, as a network error."""
        if not value:
            return value
        parts = urlsplit(value)
        if parts.scheme not in ("https", "http") or not parts.hostname:
            raise ValueError(f"must start with https:// or http:// and name a host, got {value!r}")
        return value

    @field_validator("auth_scheme")
    @classmethod
    def _a_scheme(cls, value: str) -> str:
        if not _TOKEN.fullmatch(value):
            raise ValueError(f"must be one word such as DeepL-Auth-Key, got {value!r}")
        return value

    @property
    def demo_name(self) -> str:
        """The demo organization's name in caches and file names: its seed and size."""
        tags = "" if self.demo_tags is None else f"-{self.demo_tags}tags"
        return f"demo-{self.demo_seed}-{self.demo_keys}-{self.demo_days}{tags}"

    @property
    def demo_files(self) -> DemoFiles | None:
        """The demo organization's files; None without a history folder (the demo then lives
        in memory, in each process on its own)."""
        if self.history_path is None:
            return None
        store = self.history_path / f"{self.demo_name}-emulator.sqlite"
        return DemoFiles(store, self.demo_name, store.with_name(f".{store.name}.lock"))

    @property
    def is_configured(self) -> bool:
        """True when a real service can be reached (both the key and the base address are set)."""
        return bool(self.auth_key and self.auth_key.get_secret_value() and self.base_url)


def variable_name(where: str) -> str:
    """The environment variable a person sets for the setting pydantic-settings reports at
    ``where``: a field under its ``SERVICE_`` name, one with its own name (``settings_source``,
    read as ``SETTINGS_SOURCE``, reported by either) under that name, never prefixed."""
    field = ServiceConnection.model_fields.get(where)
    if field is None:  # reported by the name it was read under: an alias
        return where.upper()
    alias = field.validation_alias
    if isinstance(alias, AliasChoices):
        return str(alias.choices[0])
    return f"SERVICE_{where.upper()}"


def setting_problems(exc: ValidationError) -> str:
    """One line naming each bad variable as a person sets it: pydantic's own text spans several
    lines and quotes the input, which a cron mail or a page banner does not need."""
    return "; ".join(
        f"{variable_name('_'.join(map(str, e['loc'])))}: {e['msg'].removeprefix('Value error, ')}"
        for e in exc.errors()
    )
