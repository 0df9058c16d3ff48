"""The emulator under generated hostile requests: never a 5xx, oversized bodies refused.

Schemathesis derives requests from the emulator's own OpenAPI description, valid ones and
deliberately invalid ones (wrong types, missing parameters, bodies that break the schema), with
and without a key. Every answer must be a documented status below 500 with a JSON message.
"""

from __future__ import annotations

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from support.servers import auth, small_config

from emulator import create_app
from emulator.bodies import MAX_BODY_BYTES
from emulator.documents import MAX_DOCUMENT_BYTES

APP = create_app(small_config())
ADMIN = auth(APP.state.emulator.admin_key)
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)
schema.config.generation.update(modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE])


@schema.parametrize()
@settings(max_examples=150, suppress_health_check=list(HealthCheck))
def test_no_generated_request_gets_a_server_error(case):
    for headers in (ADMIN, {"Authorization": "Service-Auth-Key not-a-key"}):
        response = case.call(headers=headers)
        case.validate_response(response, checks=(not_a_server_error,))
        assert response.headers["x-trace-id"]
        if response.status_code >= 400:
            assert response.json()["message"]


@pytest.fixture
async def client():
    transport = httpx.ASGITransport(app=APP)
    async with httpx.AsyncClient(
        transport=transport, base_url="http://emulator", headers=ADMIN
    ) as c:
        yield c


def too_large(response: httpx.Response, code: str = "payload_too_large") -> None:
    assert response.status_code == 413
    assert response.json()["code"] == code
    assert "limit" in response.json()["message"]


@pytest.mark.parametrize("path", ["/v3/detect/language", "/v2/translate"])
async def test_oversized_json_and_form_bodies_are_refused(client, path):
    text = "a" * (MAX_BODY_BYTES + 1)
    too_large(await client.post(path, json={"text": [text], "target_lang": "de"}))
    too_large(await client.post(path, data={"text": text, "target_lang": "de"}))


async def test_an_oversized_body_without_a_declared_length_is_refused(client):
    async def chunks():
        for _ in range(MAX_BODY_BYTES // 65536 + 2):
            yield b"x" * 65536

    headers = {"Content-Type": "application/json"}
    too_large(await client.post("/v3/detect/language", content=chunks(), headers=headers))


async def test_a_body_just_under_the_limit_is_read(client):
    text = "Guten Morgen. " * ((MAX_BODY_BYTES - 100) // 14)
    response = await client.post("/v3/detect/language", json={"text": [text]})
    assert response.status_code == 200
    assert response.json()["results"][0]["detected_language"] == "de"


async def test_an_oversized_document_is_refused(client):
    files = {"file": ("big.txt", b"x" * (MAX_DOCUMENT_BYTES + 1))}
    response = await client.post("/v2/document", data={"target_lang": "de"}, files=files)
    too_large(response, "document_too_large")


async def test_an_oversized_document_streamed_without_a_length_is_refused(client):
    boundary = "fuzz-boundary"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="target_lang"\r\n\r\nde\r\n'
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\n'
        "Content-Type: text/plain\r\n\r\n"
    ).encode()

    async def chunks():
        yield head
        for _ in range(MAX_DOCUMENT_BYTES // 65536 + 2):
            yield b"x" * 65536
        yield f"\r\n--{boundary}--\r\n".encode()

    headers = {"Content-Type": f"multipart/form-data; boundary={boundary}"}
    response = await client.post("/v2/document", content=chunks(), headers=headers)
    too_large(response, "document_too_large")
