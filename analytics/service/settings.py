"""Connection and demo settings: `SERVICE_*` environment variables or explicit values."""

from pathlib import Path

import platformdirs
from pydantic import Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict


def default_history_path() -> Path:
    """The per-user cache folder: history is a cache that can always be rebuilt from the service."""
    return Path(platformdirs.user_cache_dir("usage-dashboard")) / "history"


class Settings(BaseSettings):
    """Everything needed to reach the service or to run the embedded demo organization.

    Values passed to the constructor win over the environment, so the dashboard can build one
    from Streamlit secrets with plain keyword arguments.
    """

    model_config = SettingsConfigDict(env_prefix="SERVICE_", extra="ignore")

    auth_key: SecretStr | None = None
    base_url: str | None = None
    auth_scheme: str = "Service-Auth-Key"
    # None turns the history store off.
    history_path: Path | None = Field(default_factory=default_history_path)
    demo_keys: int = Field(default=25, ge=1)
    demo_days: int = Field(default=1095, ge=1)
    demo_seed: int = 42

    @property
    def is_configured(self) -> bool:
        """True when a real service can be reached (both the key and the base address are set)."""
        return bool(self.auth_key and self.auth_key.get_secret_value() and self.base_url)


def setting_problems(exc: ValidationError) -> str:
    """One line naming each bad `SERVICE_*` variable: pydantic's own text spans several lines
    and quotes the input, which a cron mail or a page banner does not need."""
    return "; ".join(
        f"SERVICE_{'_'.join(map(str, e['loc'])).upper()}: {e['msg']}" for e in exc.errors()
    )
