"""Who calls the API: the bearer token of the request, checked against the state store, its
scope as a ``Visible`` over the teams settings in force, and its share of the rate limit.

A request without a token, or with one the store does not know or has revoked, is refused
with 401 before anything is read; a token's calls beyond its rate are refused with 429 and the
seconds to wait. The token itself is kept nowhere: the request's state carries its id and name,
which the log names the call by.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from analytics.access import ApiToken, Scope, Tokens, Visible
from analytics.cli import Fetches, connecting, settings_in_force
from analytics.cost import NO_TEAMS
from analytics.exports import Costing
from analytics.service import ServiceConnection
from analytics.settings import SettingsInForce
from analytics.usage import records_of


@dataclass
class Bucket:
    """A token bucket: ``burst`` calls at once, refilled at ``rate`` calls a second."""

    rate: float
    burst: int
    tokens: float = 0.0
    at: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self.tokens = float(self.burst)

    def wait(self, now: float) -> float:
        """Take one call: 0 when it may go now, else the seconds until one is refilled."""
        self.tokens = min(float(self.burst), self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.rate


@dataclass
class RateLimit:
    """Each token's own bucket, in this process (one API process per deployment)."""

    rate: float
    burst: int
    buckets: dict[str, Bucket] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def check(self, token_id: str) -> None:
        """429 with Retry-After (whole seconds, at least 1) when the token is over its rate."""
        with self.lock:
            bucket = self.buckets.setdefault(token_id, Bucket(self.rate, self.burst))
            wait = bucket.wait(time.monotonic())
        if wait > 0:
            raise HTTPException(
                429,
                f"rate limit of {self.rate:g} calls a second exceeded",
                headers={"Retry-After": str(max(1, math.ceil(wait)))},
            )


@dataclass(frozen=True)
class Caller:
    """A checked token's call: what it reads and what it may see."""

    token: ApiToken
    connection: ServiceConnection
    demo: bool
    settings: SettingsInForce
    costing: Costing
    visible: Visible

    def narrowed(self, team: str | None) -> Visible:
        """The scope of a call asking for ``team`` (None: the token's whole scope): 403 for
        a team outside the token's scope, 404 for a team the settings do not have."""
        if team is None:
            return self.visible
        self.visible.scope.check_team(team)
        if team not in self.visible.teams.names:
            raise HTTPException(404, f"{team!r} is no team of the teams settings")
        return Visible(Scope(frozenset({team})), self.visible.teams)

    def fetches(self, visible: Visible) -> Fetches:
        """The command line's reader of what a question asks for, through ``visible``."""
        return Fetches(self.connection, self.demo, visible=visible)


_bearer = HTTPBearer(auto_error=False, description="An API token (`api tokens create`).")


def caller(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Caller:
    """The request's caller: 401 without a live token, 429 over its rate."""
    demo: bool = request.app.state.demo
    connection = connecting.service_connection()
    records = records_of(connection, demo)
    token = None
    if credentials is not None and records is not None:
        token = Tokens(records).bearer(credentials.credentials)
    if token is None:
        raise HTTPException(401, "a valid API token is needed", {"WWW-Authenticate": "Bearer"})
    request.state.token = f"{token.id} ({token.name})"
    request.app.state.rate_limit.check(token.id)
    settings = settings_in_force.command_settings(demo)
    costing = settings_in_force.costing(settings)
    teams = costing.teams or NO_TEAMS
    if token.team is not None and token.team not in teams.names:
        raise HTTPException(403, f"the token's team {token.team!r} is no team of the settings")
    return Caller(token, connection, demo, settings, costing, Visible(token.scope, teams))


CallerDep = Annotated[Caller, Depends(caller)]
