"""Request bodies of the text operations: JSON or form-urlencoded, read into one shape."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

import orjson
from starlette.requests import Request

from emulator.errors import ServiceError, bad_request

MAX_TEXTS = 50
# JSON and form bodies of the text operations; 50 texts of ordinary length fit many times over.
MAX_BODY_BYTES = 1024 * 1024
FORM_TYPES = "application/json or application/x-www-form-urlencoded"


async def read_fields(request: Request) -> dict[str, Any]:
    """JSON object as is; form fields with `text` as a list (repeated) and others single."""
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    raw = await _bounded_body(request)
    if media_type == "application/json":
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError:
            raise bad_request("Bad request. The body is not valid JSON.") from None
        if not isinstance(body, dict):
            raise bad_request("Bad request. The JSON body must be an object.")
        return body
    if media_type == "application/x-www-form-urlencoded":
        form = parse_qs(raw.decode("utf-8", errors="replace"), keep_blank_values=True)
        return {name: values if name == "text" else values[-1] for name, values in form.items()}
    raise ServiceError(
        415,
        f"Unsupported media type: the body must be {FORM_TYPES}. "
        "Please set the Content-Type header accordingly.",
        "unsupported_media_type",
    )


async def _bounded_body(request: Request) -> bytes:
    """The body, refused with 413 as soon as it is known to pass the limit (declared or sent)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise _too_large()
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise _too_large()
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large() -> ServiceError:
    return ServiceError(
        413,
        f"Request body too large: the limit is {MAX_BODY_BYTES} bytes for JSON and form bodies.",
        "payload_too_large",
    )


def texts_of(fields: dict[str, Any]) -> list[str]:
    """The `text` parameter: 1 to 50 strings."""
    texts = fields.get("text")
    if texts is None or texts == []:
        raise bad_request("Bad request. Parameter text is missing.", "text_missing")
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise bad_request("Bad request. Parameter text must be an array of strings.")
    if len(texts) > MAX_TEXTS:
        raise bad_request(f"Bad request. Parameter text holds more than {MAX_TEXTS} texts.")
    return texts


def optional_string(fields: dict[str, Any], name: str) -> str | None:
    value = fields.get(name)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise bad_request(f"Bad request. Parameter {name} must be a string.")
    return value
