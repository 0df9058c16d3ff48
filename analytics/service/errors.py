"""Errors raised by the service client: one class per kind of failure a caller reacts to."""

from __future__ import annotations

from contextlib import suppress
from http import HTTPStatus

# Longest service-supplied text (message, code, trace id) quoted in an error line.
QUOTED_CHARS = 300


def one_line(text: str, limit: int = QUOTED_CHARS) -> str:
    """Service-supplied text made safe for a log or terminal line: control characters
    (line breaks, escapes) become spaces, and an overlong text is cut."""
    flat = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def with_reason(reason: str, message: str) -> str:
    """`message` led by `reason` ("Forbidden: …"), unless the message already starts with that
    reason as a word, as the service's own messages often do ("Forbidden: …", "Not found: …"):
    an error line names its reason once, whatever the case or punctuation the message gives it.
    Reasons are plain ASCII, so only an ASCII start can repeat one."""
    lead = message[: len(reason)]
    after = message[len(reason) : len(reason) + 1]
    if lead.isascii() and lead.lower() == reason.lower() and not after.isalnum():
        return message
    return f"{reason}: {message}"


class ServiceError(Exception):
    """A request to the service failed; `str()` is a one-line summary safe to show or log."""

    default_title = "Service error"

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        trace_id: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.trace_id = trace_id

    def __str__(self) -> str:
        reason, status = self.default_title, ""
        # A 2xx status names no failure ("200 OK: ..."): the class title says what went wrong.
        if self.status is not None and not 200 <= self.status < 300:
            status = f"{self.status} "
            with suppress(ValueError):
                reason = HTTPStatus(self.status).phrase
        text = status + with_reason(reason, one_line(self.message))
        if self.code:
            text += f" [{one_line(self.code, 60)}]"
        if self.trace_id:
            text += f" (trace id {one_line(self.trace_id, 100)})"
        return text

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"


class BadRequestError(ServiceError):
    """400: the service rejected the parameters."""

    default_title = "Bad Request"


class AuthorizationError(ServiceError):
    """403: the key is missing, invalid or lacks access to the operation."""

    default_title = "Forbidden"


class NotFoundError(ServiceError):
    """404: the requested resource does not exist."""

    default_title = "Not Found"


class QuotaExceededError(ServiceError):
    """456: the key (or the plan) reached its character limit for the usage period."""

    default_title = "Quota exceeded"


class RateLimitError(ServiceError):
    """429: too many requests; `retry_after` is the wait the service asked for, in seconds."""

    default_title = "Too Many Requests"

    def __init__(
        self,
        message: str,
        *,
        retry_after: float | None = None,
        status: int | None = 429,
        code: str | None = None,
        trace_id: str | None = None,
    ) -> None:
        super().__init__(message, status=status, code=code, trace_id=trace_id)
        self.retry_after = retry_after


class ServerError(ServiceError):
    """5xx: the service failed while handling the request."""

    default_title = "Server Error"


class ConnectionFailedError(ServiceError):
    """The service could not be reached or did not answer in time (no HTTP status)."""

    default_title = "Connection failed"

    def __init__(self, message: str, *, request_sent: bool = True) -> None:
        super().__init__(message)
        # False only when the request certainly never reached the service (safe to resend).
        self.request_sent = request_sent


class InvalidResponseError(ServiceError):
    """The service answered, but the body is not the documented shape."""

    default_title = "Invalid response"
