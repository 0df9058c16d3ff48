"""The service connection a command reads (`SERVICE_*` settings), checked, and the client of
the service or, with --demo, of the demo organization."""

from __future__ import annotations

from pydantic import ValidationError

from analytics.cli.failures import UsageProblem
from analytics.connection import service_client
from analytics.service import ServiceClient, ServiceConnection, setting_problems


def service_connection() -> ServiceConnection:
    """The `SERVICE_*` settings; a bad one is a usage problem naming the variable."""
    try:
        return ServiceConnection()
    except ValidationError as exc:
        raise UsageProblem(f"invalid setting: {setting_problems(exc)}") from None


def configured(given: ServiceConnection, demo: bool) -> None:
    """A command without --demo needs a service: it never silently falls back to demo data."""
    if not demo and not given.is_configured:
        raise UsageProblem(
            "SERVICE_AUTH_KEY and SERVICE_BASE_URL must be set (or pass --demo for demo data)"
        )


def client(given: ServiceConnection, demo: bool) -> ServiceClient:
    configured(given, demo)
    return service_client(given, demo)
