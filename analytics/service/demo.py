"""Demo mode: the emulator runs inside this process and the client reaches it without a port."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, cast

import httpx
from pydantic import SecretStr

from analytics.service.client import DEFAULT_POLICY, Policy, ServiceClient
from analytics.service.settings import Settings

if TYPE_CHECKING:
    from fastapi import FastAPI

DEMO_BASE_URL = "http://demo.emulator"


@lru_cache(maxsize=4)
def demo_app(seed: int, keys: int, days: int, tags: int | None = None) -> FastAPI:
    """One emulator app per organization shape: building the ledger is the slow part.

    The one place the analytics package reaches into the emulator, imported lazily so that a
    real organization never loads it.
    """
    from emulator import EmulatorConfig, create_app

    config = EmulatorConfig(seed=seed, keys=keys, days=days, tags=tags)
    return cast("FastAPI", create_app(config))


def demo_client(settings: Settings, policy: Policy = DEFAULT_POLICY) -> ServiceClient:
    """A client of the synthetic organization described by the settings' demo_* values."""
    app = demo_app(settings.demo_seed, settings.demo_keys, settings.demo_days, settings.demo_tags)
    return ServiceClient(
        DEMO_BASE_URL,
        SecretStr(app.state.emulator.admin_key),
        auth_scheme=settings.auth_scheme,
        transport=httpx.ASGITransport(app=app),
        policy=policy,
    )
