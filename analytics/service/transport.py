"""How one request travels: prepared, sent over one httpx connection pool, retried with
stamina while retrying is safe, and any failure mapped to its typed error.

Every operation of the client (`client`) goes through `Transport.request`, so timeouts,
retries, the `Authorization` header and the errors are decided here once for all of them.
"""

from __future__ import annotations

import asyncio
import email.utils
import ssl
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Self, TypeVar

import httpx
import msgspec
import stamina
from pydantic import SecretStr

from analytics import __version__
from analytics.service import errors
from analytics.service.decoding import NOT_DOCUMENTED, Decoder
from analytics.service.models import ErrorBody

T = TypeVar("T")

USER_AGENT = f"usage-dashboard/{__version__} python-httpx/{httpx.__version__}"

_ERRORS_BY_STATUS: dict[int, type[errors.ServiceError]] = {
    400: errors.BadRequestError,
    401: errors.AuthorizationError,
    403: errors.AuthorizationError,
    404: errors.NotFoundError,
    456: errors.QuotaExceededError,
}
# Transport failures after which the request certainly never reached the service.
_NEVER_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
_error_decoder = msgspec.json.Decoder(ErrorBody)


def retry_after_seconds(value: str | None, now: datetime | None = None) -> float | None:
    """`Retry-After` as seconds: a number of seconds or an HTTP-date; None when absent or bad."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def error_from_response(response: httpx.Response) -> errors.ServiceError:
    """The typed error for a non-2xx response, with the service's message, code and trace id."""
    status = response.status_code
    trace_id = response.headers.get("X-Trace-ID")
    try:
        body = _error_decoder.decode(response.content)
        message, code = body.message, body.code
    except NOT_DOCUMENTED:
        message, code = None, None
    message = message or response.reason_phrase or "no message"
    if status == 429:
        wait = retry_after_seconds(response.headers.get("Retry-After"))
        return errors.RateLimitError(message, retry_after=wait, code=code, trace_id=trace_id)
    kind = (
        errors.ServerError if status >= 500 else _ERRORS_BY_STATUS.get(status, errors.ServiceError)
    )
    return kind(message, status=status, code=code, trace_id=trace_id)


def invalid_response(response: httpx.Response, problem: str) -> errors.InvalidResponseError:
    """The error for a 2xx answer that cannot be used, quoting its status and trace id."""
    request = response.request
    return errors.InvalidResponseError(
        f"{request.method} {request.url.path} answered {response.status_code}: {problem}",
        status=response.status_code,
        trace_id=response.headers.get("X-Trace-ID"),
    )


def decode(decoder: Decoder[T], response: httpx.Response) -> T:
    """Decode a 2xx body; anything but the documented shape becomes InvalidResponseError."""
    try:
        return decoder.decode(response.content)
    except NOT_DOCUMENTED as exc:
        raise invalid_response(response, f"the body is not the documented shape ({exc})") from None


@dataclass(frozen=True)
class Request:
    """What one operation sends besides its method and path."""

    params: Mapping[str, str] | None = None
    json: Mapping[str, object] | None = None
    data: Mapping[str, str | list[str]] | None = None
    files: Mapping[str, tuple[str, bytes]] | None = None


@dataclass(frozen=True)
class Policy:
    """How patiently a client waits: timeouts, retries and requests in flight (seconds)."""

    timeout: float = 30.0
    """For one request: connecting, sending, and each wait for the answer."""
    max_attempts: int = 5
    retry_timeout: float = 300.0
    """Attempts of one operation, and the time all of them may take together."""
    max_retry_wait: float = 60.0
    """The longest `Retry-After` honoured; a longer one gives up instead of waiting."""
    backoff: tuple[float, float] = (0.5, 10.0)
    """Without `Retry-After`, the first wait and the longest: waits grow exponentially between
    them, with jitter of up to the first."""
    concurrency: int = 6
    """Requests in flight: six fetch every window of a range of up to six years at once."""


DEFAULT_POLICY = Policy()


@cache
def verification() -> ssl.SSLContext:
    """The certificate check of every connection to the service, made once per process as
    httpx makes it (its CA bundle, or the environment's ``SSL_CERT_FILE``): reading the bundle
    took 20 ms of processor time, which every client made for a page's run or a command paid
    again."""
    return httpx.create_ssl_context()


class Transport:
    """One httpx connection pool to the service, the key in every request's `Authorization`
    header and nowhere else, at most `Policy.concurrency` requests in flight.

    Requests the caller marks idempotent are retried on 429, 5xx, timeouts and network errors;
    the others only when the service certainly did not process them (429 or a connection that
    was never established).
    """

    def __init__(
        self,
        base_url: str,
        auth_key: SecretStr | str,
        *,
        auth_scheme: str = "Service-Auth-Key",
        transport: httpx.AsyncBaseTransport | None = None,
        policy: Policy = DEFAULT_POLICY,
    ) -> None:
        if not isinstance(auth_key, SecretStr):
            auth_key = SecretStr(auth_key)
        self.base_url = base_url.rstrip("/")
        self._auth = f"{auth_scheme} {auth_key.get_secret_value()}"
        self.auth_key = auth_key
        self.policy = policy
        self._limit = asyncio.Semaphore(policy.concurrency)
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            transport=transport,
            verify=verification() if transport is None else True,  # a given one has its own
            timeout=policy.timeout,
            headers={"User-Agent": USER_AGENT},
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r}, auth_key={self.auth_key!r})"

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def _should_retry(self, idempotent: bool) -> Callable[[Exception], bool | float]:
        def hook(exc: Exception) -> bool | float:
            if isinstance(exc, errors.RateLimitError):
                if exc.retry_after is None:
                    return True
                return min(exc.retry_after, self.policy.max_retry_wait)
            if isinstance(exc, errors.ConnectionFailedError):
                return idempotent or not exc.request_sent
            return idempotent and isinstance(exc, errors.ServerError)

        return hook

    async def _send_once(self, method: str, path: str, request: Request) -> httpx.Response:
        try:
            async with self._limit:
                response = await self._http.request(
                    method,
                    path,
                    headers={"Authorization": self._auth},
                    params=request.params,
                    json=request.json,
                    data=request.data,
                    files=request.files,
                )
        except httpx.TransportError as exc:
            raise errors.ConnectionFailedError(
                f"{method} {path} to {self._http.base_url.host}: {type(exc).__name__} {exc}",
                request_sent=not isinstance(exc, _NEVER_SENT),
            ) from None
        if response.is_success:
            return response
        raise error_from_response(response)

    async def request(
        self, method: str, path: str, *, idempotent: bool, request: Request | None = None
    ) -> httpx.Response:
        """Send one operation with retries; raises a ServiceError subclass on failure."""
        request = request or Request()
        first_wait, longest_wait = self.policy.backoff
        async for attempt in stamina.retry_context(
            on=self._should_retry(idempotent),
            attempts=self.policy.max_attempts,
            timeout=self.policy.retry_timeout,
            wait_initial=first_wait,
            wait_max=longest_wait,
            wait_jitter=first_wait,
        ):
            with attempt:
                response = await self._send_once(method, path, request)
        return response
