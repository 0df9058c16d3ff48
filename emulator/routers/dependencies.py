"""What every operation starts with: the served organization and the calling key."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request, Security
from fastapi.security import APIKeyHeader

from emulator.developer_keys import check_characters
from emulator.errors import ServiceError
from emulator.served import Emulator
from emulator.store import StoredKey

AUTH_HEADER = APIKeyHeader(
    name="Authorization",
    auto_error=False,
    description="`Service-Auth-Key <API_KEY>`",
)


async def served(request: Request) -> Emulator:
    """The organization of the app the request reached (one app serves one organization);
    async, like every dependency here, so that it costs no trip through the thread pool."""
    emulator: Emulator = request.app.state.emulator
    return emulator


Served = Annotated[Emulator, Depends(served)]


async def caller(emulator: Served, authorization: str | None = Security(AUTH_HEADER)) -> StoredKey:
    """Every operation's dependency: the spec answers 403 before looking at anything else.

    Async like the operations, so the key look-up runs on the event loop rather than costing
    each request a trip through the thread pool."""
    return emulator.authenticate(authorization)


Caller = Annotated[StoredKey, Depends(caller)]


def require_admin(key: StoredKey, refusal: str) -> StoredKey:
    """The administrator API's rule, for each of its areas: a key that is not an admin key is
    refused with 403 before any parameter is read, told by `refusal` what it was refused."""
    if not key.admin:
        raise ServiceError(403, f"Forbidden: {refusal}", "admin_required")
    return key


async def analytics_admin(key: Caller) -> StoredKey:
    """The usage analytics operations' caller: an admin key."""
    return require_admin(key, "usage analytics need an administrator key.")


async def keys_admin(key: Caller) -> StoredKey:
    """The developer-key operations' caller: an admin key."""
    return require_admin(key, "managing developer keys needs an administrator key.")


AnalyticsAdmin = Annotated[StoredKey, Depends(analytics_admin)]
KeysAdmin = Annotated[StoredKey, Depends(keys_admin)]


async def metered(emulator: Served, key: Caller) -> StoredKey:
    """Every operation that books characters: 456 once the calling key's characters this
    usage period reach its limit, before anything is read or booked."""
    text, document, improvement, *_ = emulator.key_use(key)
    check_characters(key, text + document + improvement)
    return key


Metered = Annotated[StoredKey, Depends(metered)]
