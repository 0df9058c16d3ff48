"""Fault injection: added latency, 429 rate limiting and 503 unavailability on demand."""

from __future__ import annotations

import asyncio
import random
import threading
from dataclasses import dataclass, field

from starlette.types import ASGIApp, Receive, Scope, Send

from emulator.errors import ServiceError, error_response

EXEMPT_PATHS = ("/healthz", "/openapi.json", "/docs")


@dataclass
class Faults:
    """Live fault settings; tests change the attributes while the server runs."""

    latency_ms: int = 0
    fault_429_rate: float = 0.0
    fault_503_rate: float = 0.0
    retry_after_s: int = 1
    seed: int = 0
    _rng: random.Random = field(init=False, repr=False)
    _lock: threading.Lock = field(init=False, repr=False, default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def draw(self) -> ServiceError | None:
        """The injected failure for one request, if any (seeded, so runs repeat)."""
        with self._lock:
            roll = self._rng.random()
        if roll < self.fault_429_rate:
            return ServiceError(
                429,
                "Too many requests: rate limit exceeded, retry after the given delay.",
                "rate_limited",
                {"Retry-After": str(self.retry_after_s)},
            )
        if roll < self.fault_429_rate + self.fault_503_rate:
            return ServiceError(
                503, "Service temporarily unavailable, please retry.", "service_unavailable"
            )
        return None


class FaultMiddleware:
    """Applies `Faults` to every service operation; the readiness probe and docs stay clean."""

    def __init__(self, app: ASGIApp, faults: Faults) -> None:
        self.app = app
        self.faults = faults

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in EXEMPT_PATHS:
            await self.app(scope, receive, send)
            return
        if self.faults.latency_ms > 0:
            await asyncio.sleep(self.faults.latency_ms / 1000)
        failure = self.faults.draw()
        if failure is None:
            await self.app(scope, receive, send)
        else:
            await error_response(failure)(scope, receive, send)
