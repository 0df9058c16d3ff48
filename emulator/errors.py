"""JSON error bodies (`message`, `code`) and the per-response trace id.

Every failure the emulator reports, including routing and method errors and the form
parser's, leaves as a JSON ErrorResponse with a 4xx status; nothing malformed reaches a 500.
Parameters are read by hand (`bodies.read_params`), so FastAPI validates none.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping

import orjson
from fastapi import FastAPI, Request
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

TRACE_HEADER = "X-Trace-ID"
STATUS_CODES = {
    400: "bad_request",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    415: "unsupported_media_type",
    429: "too_many_requests",
    456: "quota_exceeded",
    500: "internal_error",
    503: "service_unavailable",
}

# The methods a 405 answer may list in its Allow header, in the order it lists them.
METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")


class ServiceError(Exception):
    """An answer the service gives on purpose: status, message and machine-readable code."""

    def __init__(
        self,
        status: int,
        message: str,
        code: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code or STATUS_CODES.get(status, "error")
        self.headers = dict(headers or {})


def bad_request(message: str, code: str = "bad_request") -> ServiceError:
    return ServiceError(400, message, code)


def json_response(
    body: object, status: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    """orjson-encoded response; large analytics bodies depend on its speed."""
    return Response(orjson.dumps(body), status, headers, media_type="application/json")


def error_response(error: ServiceError) -> Response:
    return json_response(
        {"message": error.message, "code": error.code}, error.status, error.headers
    )


def install_error_handlers(app: FastAPI) -> None:
    """Route every failure path to the JSON ErrorResponse shape."""

    async def on_service_error(_: Request, exc: Exception) -> Response:
        assert isinstance(exc, ServiceError)
        return error_response(exc)

    async def on_http(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        messages = {404: "Not found: no such resource.", 405: "Method not allowed."}
        message = messages.get(exc.status_code, str(exc.detail))
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            headers["Allow"] = ", ".join(_allowed_methods(request))
        return error_response(ServiceError(exc.status_code, message, headers=headers))

    async def on_crash(_: Request, __: Exception) -> Response:
        error = ServiceError(500, "Internal server error", headers={TRACE_HEADER: new_trace_id()})
        return error_response(error)

    app.add_exception_handler(ServiceError, on_service_error)
    app.add_exception_handler(HTTPException, on_http)
    app.add_exception_handler(Exception, on_crash)


def _allowed_methods(request: Request) -> list[str]:
    """The methods some route answers on the requested path, asked of the routes themselves
    (`matches`), since included routers keep their routes to themselves."""
    routes = request.app.router.routes
    return [
        method
        for method in METHODS
        if any(
            route.matches({**request.scope, "method": method})[0] == Match.FULL for route in routes
        )
    ]


def new_trace_id() -> str:
    return uuid.uuid4().hex


class TraceIdMiddleware:
    """Stamps a fresh X-Trace-ID on every HTTP response, errors and 404s included."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        trace = new_trace_id().encode()

        async def stamped(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k != b"x-trace-id"]
                message["headers"] = [*headers, (b"x-trace-id", trace)]
            await send(message)

        await self.app(scope, receive, stamped)
