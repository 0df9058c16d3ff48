"""Operation parameters from wherever the official client libraries put them.

Every operation reads its parameters through `read_params`: the query string and, when a body
is sent, the body (a JSON object, form-urlencoded fields, or multipart parts for uploads).
The official Python client sends `type=target` for the v2 language list as a form body on a
GET, JSON for text translation and multipart for documents, so no place may be ignored.
Array parameters collect every value in order (query first); any other parameter takes the
last value given, so a body value wins over the same name in the query string.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

import orjson
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request

from emulator.errors import ServiceError, bad_request

MAX_TEXTS = 50
# Bodies of the other operations; 50 texts of ordinary length fit many times over.
MAX_BODY_BYTES = 1024 * 1024
# The published request size limit of a text translation.
MAX_TRANSLATE_BYTES = 128 * 1024
JSON = "application/json"
FORM = "application/x-www-form-urlencoded"
MULTIPART = "multipart/form-data"
BOOLEANS = {"true": True, "1": True, "false": False, "0": False}


@dataclass(frozen=True)
class BodyRule:
    """The body media types one operation takes, and how large its request may be.

    The size counts the query string and the body, declared or streamed, so a client cannot
    pass the limit by moving parameters from one to the other.
    """

    media_types: tuple[str, ...] = (JSON, FORM)
    max_bytes: int = MAX_BODY_BYTES
    too_large: str = (
        f"Request body too large: the limit is {MAX_BODY_BYTES} bytes for JSON and form bodies."
    )
    too_large_code: str = "payload_too_large"


TEXT_BODIES = BodyRule()
TRANSLATE_BODIES = BodyRule(
    max_bytes=MAX_TRANSLATE_BYTES,
    too_large=(
        f"Request too large: the limit is 128 KiB ({MAX_TRANSLATE_BYTES} bytes) "
        "for a text translation request."
    ),
)


@dataclass(frozen=True)
class Upload:
    """A file part of a multipart body, read whole (the body limit bounds its size)."""

    filename: str | None
    content: bytes


@dataclass(frozen=True)
class Params:
    """An operation's parameters: query and form values as strings, file parts as Uploads,
    and the JSON object body with its own types (`true`, arrays)."""

    fields: list[tuple[str, str | Upload]]
    body: dict[str, Any]

    def _strings(self, name: str) -> list[str]:
        values = []
        for key, value in self.fields:
            if key == name:
                if isinstance(value, Upload):
                    raise bad_request(
                        f"Bad request. Parameter {name} must be a text field, not a file."
                    )
                values.append(value)
        return values

    def _last(self, name: str) -> Any:
        """The JSON body's value when it has one, else the last query or form value."""
        value = self.body.get(name)
        if value is None:
            given = self._strings(name)
            value = given[-1] if given else None
        return value

    def text(self, name: str) -> str | None:
        """A single string parameter; empty counts as absent."""
        value = self._last(name)
        if value is not None and not isinstance(value, str):
            raise bad_request(f"Bad request. Parameter {name} must be a string.")
        return value or None

    def integer(self, name: str) -> str | None:
        """An integer parameter as text, for the operation's own check: a JSON integer or
        text as given; empty counts as absent."""
        value = self._last(name)
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        if value is not None and not isinstance(value, str):
            raise bad_request(f"Bad request. Parameter {name} must be an integer.")
        return value or None

    def texts(self, name: str) -> list[str]:
        """An array parameter: repeated query or form fields, then a JSON array of strings."""
        values = self._strings(name)
        array = self.body.get(name)
        if array is not None:
            if not isinstance(array, list) or not all(isinstance(item, str) for item in array):
                raise bad_request(f"Bad request. Parameter {name} must be an array of strings.")
            values += array
        return values

    def flag(self, name: str) -> bool:
        """A boolean parameter: JSON true/false, or true/false/1/0 as text; absent is false."""
        value = self._last(name)
        if isinstance(value, bool):
            return value
        if value is None or value == "":
            return False
        if not isinstance(value, str) or value.lower() not in BOOLEANS:
            raise bad_request(f"Bad request. Parameter {name} must be true, false, 1 or 0.")
        return BOOLEANS[value.lower()]

    def file(self, name: str) -> Upload:
        """Exactly one file part."""
        parts = [value for key, value in self.fields if key == name]
        if not parts:
            raise bad_request(f"Bad request. Parameter {name} is missing.")
        if len(parts) > 1 or not isinstance(parts[0], Upload):
            raise bad_request(f"Bad request. Parameter {name} must be exactly one file upload.")
        return parts[0]


async def read_params(request: Request, rule: BodyRule = TEXT_BODIES) -> Params:
    """The query string plus the body, if any; 415 for a body of a type the rule does not take."""
    query = list(request.query_params.multi_items())
    raw = await _bounded_body(request, rule)
    if not raw:
        return Params(query, {})
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type not in rule.media_types:
        raise ServiceError(
            415,
            f"Unsupported media type: the body must be {' or '.join(rule.media_types)}. "
            "Please set the Content-Type header accordingly.",
            "unsupported_media_type",
        )
    if media_type == JSON:
        return Params(query, _json_object(raw))
    if media_type == FORM:
        form = parse_qsl(raw.decode("utf-8", errors="replace"), keep_blank_values=True)
        return Params([*query, *form], {})
    return Params([*query, *await _multipart(request, raw)], {})


def _json_object(raw: bytes) -> dict[str, Any]:
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise bad_request("Bad request. The body is not valid JSON.") from None
    if not isinstance(body, dict):
        raise bad_request("Bad request. The JSON body must be an object.")
    return body


async def _multipart(request: Request, raw: bytes) -> list[tuple[str, str | Upload]]:
    """Parts in order, files read into memory (the body is already bounded and in memory)."""

    async def stream() -> AsyncIterator[bytes]:
        yield raw

    try:
        form = await MultiPartParser(request.headers, stream()).parse()
    except MultiPartException as exc:
        raise bad_request(f"Bad request. Malformed multipart body: {exc.message}") from None
    try:
        return [
            (name, Upload(value.filename, await value.read()))
            if isinstance(value, UploadFile)
            else (name, value)
            for name, value in form.multi_items()
        ]
    finally:
        await form.close()


async def _bounded_body(request: Request, rule: BodyRule) -> bytes:
    """The body, refused with 413 as soon as the request is known to pass the rule's limit."""
    too_large = ServiceError(413, rule.too_large, rule.too_large_code)
    size = len(request.scope.get("query_string", b""))
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and size + int(declared) > rule.max_bytes:
        raise too_large
    chunks = []
    async for chunk in request.stream():
        size += len(chunk)
        if size > rule.max_bytes:
            raise too_large
        chunks.append(chunk)
    return b"".join(chunks)


def texts_of(params: Params) -> list[str]:
    """The `text` parameter: 1 to 50 strings."""
    texts = params.texts("text")
    if not texts:
        raise bad_request("Bad request. Parameter text is missing.", "text_missing")
    if len(texts) > MAX_TEXTS:
        raise bad_request(f"Bad request. Parameter text holds more than {MAX_TEXTS} texts.")
    return texts


def required(params: Params, name: str) -> str:
    """A single string parameter that must be given."""
    value = params.text(name)
    if value is None:
        raise bad_request(f"Bad request. Parameter {name} is missing.")
    return value
