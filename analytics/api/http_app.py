"""The API's application: the routers under ``/api/v1`` behind the token check (every route
depends on ``caller.caller``), the OpenAPI document at ``/api/v1/openapi.json``, each refusal
of the readers as its status, and one log line per call.

`serve-api` starts it through uvicorn by name (``from_environment``), with its settings in
``USAGE_API_*`` variables, so the command line starts it without importing it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from fastapi import Depends, FastAPI, Request, Response
from fastapi.responses import JSONResponse

from analytics.access import OutOfScope
from analytics.api import check_routes, key_routes, usage_routes
from analytics.api.caller import RateLimit, caller
from analytics.cli import UsageProblem
from analytics.exports import ExportProblem
from analytics.service import AuthorizationError, ServiceError
from analytics.storage import StoreError

PREFIX = "/api/v1"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ApiSettings:
    """How the API runs: the demo organization or the configured service; each token's rate
    (calls a second) and burst."""

    demo: bool = False
    rate: float = 5.0
    burst: int = 20

    @classmethod
    def from_environment(cls) -> ApiSettings:
        """``USAGE_API_DEMO`` (1: the demo), ``USAGE_API_RATE``, ``USAGE_API_BURST``."""
        given = os.environ
        return cls(
            demo=given.get("USAGE_API_DEMO") == "1",
            rate=float(given.get("USAGE_API_RATE", cls.rate)),
            burst=int(given.get("USAGE_API_BURST", cls.burst)),
        )


# Each reader's refusal, by the status it is answered with.
STATUSES: dict[type[Exception], int] = {
    UsageProblem: 400,
    ExportProblem: 400,
    OutOfScope: 403,
    AuthorizationError: 502,
    ServiceError: 502,
    StoreError: 503,
}


def create_app(settings: ApiSettings) -> FastAPI:
    """The API over ``settings``."""
    app = FastAPI(
        title="Usage dashboard API",
        version="1",
        description="Read-only usage, FOCUS rows, keys, anomalies and budgets, in the scope "
        "of the bearer token's team or organization.",
        openapi_url=f"{PREFIX}/openapi.json",
        docs_url=f"{PREFIX}/docs",
        redoc_url=None,
    )
    app.state.demo = settings.demo
    app.state.rate_limit = RateLimit(settings.rate, settings.burst)
    for router in (usage_routes.router, key_routes.router, check_routes.router):
        app.include_router(router, prefix=PREFIX, dependencies=[Depends(caller)])
    for kind, status in STATUSES.items():
        app.add_exception_handler(kind, _refusal(status))
    app.middleware("http")(_logged)
    return app


def from_environment() -> FastAPI:
    """The app `serve-api` starts (uvicorn's factory), its call log on stderr (the journal)."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    return create_app(ApiSettings.from_environment())


def _refusal(status: int) -> Callable[[Request, Exception], Response]:
    def answer(_request: Request, exc: Exception) -> Response:
        return JSONResponse({"detail": str(exc)}, status_code=status)

    return answer


async def _logged(
    request: Request, call_next: Callable[[Request], Awaitable[Response]]
) -> Response:
    """One line per call: method, path, status and the token's id and name (never the token,
    nor the query, which names no secret but may be long)."""
    response = await call_next(request)
    token = getattr(request.state, "token", "no token")
    log.info("%s %s %s token %s", request.method, request.url.path, response.status_code, token)
    return response
