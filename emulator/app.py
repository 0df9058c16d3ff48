"""The emulator's HTTP interface: one FastAPI app per organization, assembled from the routers
of `emulator.routers` (one per area of the service)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from fastapi import FastAPI

from emulator import orgfile, synthetic
from emulator.config import EmulatorConfig
from emulator.errors import TraceIdMiddleware, install_error_handlers
from emulator.faults import FaultMiddleware
from emulator.org import Organization
from emulator.routers import analytics, documents, keys, languages, plan, text
from emulator.served import Emulator

API_VERSION = "3.12.0"
ROUTERS = (
    analytics.router,
    keys.router,
    plan.router,
    text.router,
    documents.router,
    languages.router,
)


def organization(config: EmulatorConfig) -> tuple[Organization, str]:
    """The organization and a fingerprint telling whether a database file already holds it."""
    if config.org_file is not None:
        path = Path(config.org_file)
        org = orgfile.load(path)
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        return org, f"file:{digest}"
    today = config.current_day()
    org = synthetic.generate(
        config.seed, config.keys, config.days, today, config.anomalies, config.tags, config.seasons
    )
    # A clean organization keeps the name it had before anomalies were injected, and one with
    # its dozen tags the name it had before the number of tags could be chosen.
    kind = "synthetic+anomalies" if config.anomalies else "synthetic"
    tags = "" if config.tags is None else f":tags={config.tags}"
    seasons = ":seasons" if config.seasons else ""
    return org, f"{kind}:{config.seed}:{config.keys}:{config.days}:{today}{tags}{seasons}"


def create_app(config: EmulatorConfig | None = None) -> FastAPI:
    """The ASGI app; usable in-process (httpx.ASGITransport) from any thread or event loop."""
    config = config or EmulatorConfig()
    emulator = Emulator(config, *organization(config))
    app = FastAPI(
        title="Language Service (local emulator)",
        version=API_VERSION,
        description=(
            "Spec-faithful emulator of the Language Service API; see docs/emulator.md. "
            "Every operation takes its parameters from the query string or from the body."
        ),
        redoc_url=None,
    )
    app.state.emulator = emulator
    install_error_handlers(app)
    app.add_middleware(FaultMiddleware, faults=emulator.faults)
    app.add_middleware(TraceIdMiddleware)

    @app.get("/healthz", tags=["emulator"], summary="Readiness probe (no authentication)")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    for router in ROUTERS:
        app.include_router(router)
    return app
