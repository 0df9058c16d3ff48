"""Demo mode: the emulator runs inside this process and the client reaches it without a port."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import httpx
from pydantic import SecretStr

from analytics.client import ServiceClient
from analytics.settings import Settings

DEMO_BASE_URL = "http://demo.emulator"


@lru_cache(maxsize=4)
def demo_app(seed: int, keys: int, days: int) -> Any:
    """One emulator app per organization shape: building the ledger is the slow part."""
    from emulator import EmulatorConfig, create_app

    return create_app(EmulatorConfig(seed=seed, keys=keys, days=days))


def demo_client(settings: Settings, **options: Any) -> ServiceClient:
    """A client of the synthetic organization described by the settings' demo_* values."""
    app = demo_app(settings.demo_seed, settings.demo_keys, settings.demo_days)
    return ServiceClient(
        DEMO_BASE_URL,
        SecretStr(app.state.emulator.admin_key),
        auth_scheme=settings.auth_scheme,
        transport=httpx.ASGITransport(app=app),
        **options,
    )
