"""The Language Service as the rest of the library sees it: one client for every operation
(`client`, sync and async), how patiently it waits (`Policy`), how it is
reached (`service_connection`) and one error class per failure a caller reacts to (`errors`). The
answers' shapes are in `models`; how a request travels is `transport`, and the sync bridge
`sync`."""

from analytics.service.client import (
    DEFAULT_POLICY,
    KEEP,
    AsyncServiceClient,
    Keep,
    KeyChange,
    Limit,
    Policy,
    ServiceClient,
)
from analytics.service.errors import (
    AuthorizationError,
    BadRequestError,
    ConnectionFailedError,
    InvalidResponseError,
    NotFoundError,
    QuotaExceededError,
    RateLimitError,
    ServerError,
    ServiceError,
)
from analytics.service.service_connection import ServiceConnection

__all__ = [
    "DEFAULT_POLICY",
    "KEEP",
    "AsyncServiceClient",
    "AuthorizationError",
    "BadRequestError",
    "ConnectionFailedError",
    "InvalidResponseError",
    "Keep",
    "KeyChange",
    "Limit",
    "NotFoundError",
    "Policy",
    "QuotaExceededError",
    "RateLimitError",
    "ServerError",
    "ServiceClient",
    "ServiceConnection",
    "ServiceError",
]
