"""The service client against the emulator (in-process) and tiny misbehaving servers."""

from __future__ import annotations

import datetime as dt
from concurrent.futures import ThreadPoolExecutor
from email.utils import format_datetime

import httpx
import pytest
import stamina
from pydantic import SecretStr
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from support.builders import BASE, asgi_client, async_asgi_client
from support.servers import FIXED_TODAY

from analytics.service import AsyncServiceClient, Policy, ServiceClient
from analytics.service.errors import (
    AuthorizationError,
    BadRequestError,
    ConnectionFailedError,
    InvalidResponseError,
    RateLimitError,
    ServerError,
)
from analytics.service.models import LanguageResource, ResourceFeature
from analytics.service.service_connection import ServiceConnection
from analytics.service.transport import retry_after_seconds

SECRET = "sk-RECOGNIZABLE-0123456789-secret"

pytestmark = pytest.mark.usefixtures("instant_retries")


class Failing(httpx.AsyncBaseTransport):
    """Raises the given transport error on every request."""

    def __init__(self, error: type[httpx.TransportError]) -> None:
        self.error = error
        self.calls = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        raise self.error("simulated", request=request)


def app_of(handler, path: str = "/v2/admin/analytics", methods=("GET",)) -> Starlette:
    return Starlette(routes=[Route(path, handler, methods=list(methods))])


def faulty_client(emulator_app, attempts: int, **rates: float):
    """A client of `emulator_app` that tries each request at most `attempts` times, the
    emulator failing at the given rates (`fault_503_rate`, `fault_429_rate`): retries can
    then be counted on the transport."""
    for name, rate in rates.items():
        setattr(emulator_app.state.emulator.faults, name, rate)
    return async_asgi_client(emulator_app, policy=Policy(max_attempts=attempts))


@pytest.fixture
def admin(emulator_app) -> str:
    return emulator_app.state.emulator.admin_key


async def test_sends_scheme_key_user_agent_and_json(admin, emulator_app):
    client, transport = async_asgi_client(emulator_app)
    async with client:
        await client.translate(["Hello there"], "DE")
    sent = transport.requests[0]
    assert sent.headers["Authorization"] == f"Service-Auth-Key {admin}"
    assert sent.headers["User-Agent"].startswith("usage-dashboard/0.1.0 python-httpx/")
    assert sent.headers["Content-Type"] == "application/json"
    assert admin not in str(sent.url)


async def test_custom_auth_scheme_is_sent():
    seen: list[str] = []

    async def handler(request: Request) -> Response:
        seen.append(request.headers["authorization"])
        return JSONResponse([])

    client, _ = async_asgi_client(
        app_of(handler, "/v2/languages"), "k1", auth_scheme="Other-Scheme"
    )
    async with client:
        assert await client.languages_v2("target") == []
    assert seen == ["Other-Scheme k1"]


async def test_usage_report_groupings_agree_with_the_ledger(admin, emulator_app):
    emu = emulator_app.state.emulator
    start, end = dt.date(2025, 4, 1), dt.date(2025, 5, 1)
    ledger = emu.ledger(start, end - dt.timedelta(days=1))
    client, _ = async_asgi_client(emulator_app)
    async with client:
        total = await client.usage_report(start, end)
        by_key = await client.usage_report(start, end, "key")
        by_day = await client.usage_report(start, end, "key_and_day")
    text = sum(r.text_translation_characters for r in ledger)
    assert total.total_usage.text_translation_characters == text
    assert total.key_usages is None and total.key_and_day_usages is None
    assert sum(k.usage.text_translation_characters for k in by_key.key_usages) == text
    assert len(by_day.key_and_day_usages) == len(ledger)
    assert {k.api_key for k in by_key.key_usages} == {r.api_key for r in ledger}


async def test_detect_batches_of_fifty_keep_input_order(admin, emulator_app):
    samples = [
        "The weather is lovely today and we are going for a long walk in the park.",
        "Das Wetter ist heute herrlich und wir gehen im Park lange spazieren.",
        "Il fait très beau aujourd'hui et nous allons faire une longue promenade.",
        "Hoy hace un tiempo estupendo y vamos a dar un largo paseo por el parque.",
        "x",
    ]
    texts = [samples[i % len(samples)] for i in range(123)]
    client, transport = async_asgi_client(emulator_app)
    async with client:
        one_by_one = {text: (await client.detect(text))[0] for text in samples}
        transport.requests.clear()
        results = await client.detect(texts)
    assert [r.detected_language for r in results] == [
        one_by_one[t].detected_language for t in texts
    ]
    assert [one_by_one[s].detected_language for s in samples[:4]] == ["en", "de", "fr", "es"]
    assert one_by_one["x"].detection_status != "success"
    assert one_by_one["x"].detected_language is None
    batches = [len(httpx_json(r)["text"]) for r in transport.paths("/v3/detect/language")]
    assert sorted(batches) == [23, 50, 50]


def httpx_json(request: httpx.Request) -> dict:
    import json

    return json.loads(request.content)


async def test_detect_of_nothing_sends_nothing(admin, emulator_app):
    client, transport = async_asgi_client(emulator_app)
    async with client:
        assert await client.detect([]) == []
    assert transport.requests == []


async def test_translate_books_usage(admin, emulator_app):
    emu = emulator_app.state.emulator
    before = sum(r.text_translation_characters for r in emu.ledger(FIXED_TODAY, FIXED_TODAY))
    client, _ = async_asgi_client(emulator_app)
    async with client:
        result = await client.translate(["Good morning", "Thank you"], "de", source_lang="en")
    assert len(result) == 2
    assert all(t.detected_source_language.lower() == "en" for t in result)
    after = sum(r.text_translation_characters for r in emu.ledger(FIXED_TODAY, FIXED_TODAY))
    assert after - before == len("Good morning") + len("Thank you")


async def test_upload_document_is_multipart(admin, emulator_app):
    client, transport = async_asgi_client(emulator_app)
    async with client:
        handle = await client.upload_document(
            b"Hello world.\n", "note.txt", "DE", formality="prefer_more", enable_watermark=False
        )
    assert handle.document_id and handle.document_key
    assert handle.document_key not in repr(handle)
    sent = transport.requests[0]
    assert sent.headers["Content-Type"].startswith("multipart/form-data")
    assert b'name="formality"' in sent.content and b"prefer_more" in sent.content
    assert b'filename="note.txt"' in sent.content


async def test_upload_document_sends_each_option_as_the_spec_names_it(emulator_app):
    product, legal = "3f1b6c2e-6b1a-4c55-9a0e-1d2f3a4b5c6d", "8a7d4e21-2c3b-4f6a-8e9d-0b1c2d3e4f50"
    memory = "0d9e8f7a-6b5c-4d3e-8f21-123456789abc"
    client, transport = async_asgi_client(emulator_app)
    async with client:
        handle = await client.upload_document(
            b"Guten Tag.\n",
            "gruss.txt",
            "EN-GB",
            source_lang="DE",
            glossary_ids=[product, legal],
            translation_memory_id=memory,
            translation_memory_threshold=80,
        )
    assert handle.document_id
    parts = transport.requests[0].content
    assert parts.count(b'name="glossary_ids"') == 2  # repeated parts, not one joined value
    assert product.encode() in parts and legal.encode() in parts
    assert b'name="translation_memory_threshold"\r\n\r\n80\r\n' in parts
    assert b'name="source_lang"\r\n\r\nDE\r\n' in parts
    assert b'name="formality"' not in parts  # options left out are not sent at all


async def test_language_lists_v3_and_v2(admin, emulator_app):
    client, _ = async_asgi_client(emulator_app)
    async with client:
        targets = await client.languages("translate_text", usable_as_target=True)
        everything = await client.languages("translate_document")
        v2 = await client.languages_v2("target")
    assert targets and all(entry.usable_as_target for entry in targets)
    assert any("formality" in entry.features for entry in everything)
    # A regional variant is a target only, while the base code is both (the unspecified
    # variant stays a usable target): each entry's flags are decoded as sent.
    by_code = {entry.lang: entry for entry in everything}
    assert (by_code["en"].usable_as_source, by_code["en"].usable_as_target) == (True, True)
    assert (by_code["en-US"].usable_as_source, by_code["en-US"].usable_as_target) == (False, True)
    assert v2 and all(lang.language == lang.language.upper() for lang in v2)


async def test_beta_languages_and_features_only_when_asked_for(emulator_app):
    client, transport = async_asgi_client(emulator_app)
    async with client:
        stable = await client.languages("translate_text")
        everything = await client.languages("translate_text", include_beta=True)
    assert [r.url.params.get_list("include") for r in transport.requests] == [[], ["beta"]]
    assert {e.lang for e in everything} - {e.lang for e in stable} == {"ca", "hr", "ms"}
    by_code = {entry.lang: entry for entry in everything}
    assert [by_code[code].status for code in ("de", "ca", "ms")] == [
        "stable",
        "beta",
        "early_access",
    ]
    # Style rules are a beta feature: German carries the key only when beta is asked for.
    assert sorted(next(e for e in stable if e.lang == "de").features) == [
        "auto_detection",
        "formality",
        "glossary",
        "tag_handling",
        "translation_memory",
    ]
    assert by_code["de"].features["style_rules"] == {"status": "beta"}


async def test_language_resources_name_the_sides_each_feature_needs(emulator_app):
    client, _ = async_asgi_client(emulator_app)
    async with client:
        resources = await client.language_resources()
    source, target, both = (True, False), (False, True), (True, True)
    assert resources == [
        LanguageResource(
            "translate_text",
            [
                ResourceFeature("auto_detection", *source),
                ResourceFeature("formality", *target),
                ResourceFeature("glossary", *both),
                ResourceFeature("style_rules", *target),
                ResourceFeature("tag_handling", *both),
                ResourceFeature("translation_memory", *both),
            ],
        ),
        LanguageResource(
            "translate_document",
            [
                ResourceFeature("auto_detection", *source),
                ResourceFeature("formality", *target),
                ResourceFeature("glossary", *both),
                ResourceFeature("translation_memory", *both),
            ],
        ),
        LanguageResource("glossary", []),
        LanguageResource(
            "voice",
            [
                ResourceFeature("glossary", *both),
                ResourceFeature("spoken_terms", *source),
                ResourceFeature("transcription", *source),
                ResourceFeature("translated_speech", *target),
            ],
        ),
        LanguageResource(
            "write",
            [ResourceFeature("tone", *target), ResourceFeature("writing_style", *target)],
        ),
        LanguageResource("style_rules", []),
        LanguageResource("translation_memory", []),
    ]


async def test_the_lists_of_style_rule_lists_and_translation_memories(emulator_app):
    """The two resources of the published interface's later revision decode like the others:
    a style rule list's languages are targets only, a memory's base languages both."""
    client, transport = async_asgi_client(emulator_app)
    async with client:
        style = await client.languages("style_rules")
        memory = await client.languages("translation_memory", usable_as_source=True)
    assert [r.url.params["resource"] for r in transport.requests] == [
        "style_rules",
        "translation_memory",
    ]
    assert [e.lang for e in style] == ["de", "en", "es", "fr", "it", "ja", "ko", "zh"]
    assert all(e.usable_as_target and not e.usable_as_source for e in style)
    assert [e.lang for e in memory] == [e.lang for e in style]
    assert all(e.usable_as_target and e.status == "stable" for e in memory)


def test_resource_flags_default_to_false_and_unknown_fields_are_ignored():
    async def handler(request: Request) -> Response:
        feature = {"name": "glossary", "needs_target_support": True, "pricing": "extra"}
        return JSONResponse(
            [{"name": "translate_text", "features": [{"name": "magic"}, feature], "new": 1}]
        )

    client, _ = asgi_client(app_of(handler, "/v3/languages/resources"), SECRET)
    with client:  # the sync face
        (resource,) = client.language_resources()
    assert resource == LanguageResource(
        "translate_text", [ResourceFeature("magic"), ResourceFeature("glossary", False, True)]
    )


async def test_unknown_fields_and_feature_keys_are_tolerated():
    async def handler(request: Request) -> Response:
        return JSONResponse(
            {
                "languages": [
                    {
                        "lang": "xx-Qaaa",
                        "name": "Invented",
                        "status": "preview",
                        "features": {"teleportation": {}},
                        "usable_as_source": True,
                        "brand_new_field": [1, 2],
                    }
                ]
            }
        )

    client, _ = async_asgi_client(app_of(handler, "/v3/languages"), SECRET)
    async with client:
        (entry,) = await client.languages("write")
    assert (entry.lang, entry.features, entry.usable_as_target) == (
        "xx-Qaaa",
        {"teleportation": {}},
        False,
    )


async def test_wrong_key_is_refused_with_a_readable_error(emulator_app):
    client, _ = async_asgi_client(emulator_app, SECRET)
    async with client:
        with pytest.raises(AuthorizationError) as caught:
            await client.usage_report(dt.date(2025, 1, 1), dt.date(2025, 2, 1))
    error = caught.value
    assert error.status == 403 and error.trace_id
    assert str(error).startswith("403 Forbidden: ")
    assert f"(trace id {error.trace_id})" in str(error)
    for text in (str(error), repr(error), repr(client), str(error.args)):
        assert SECRET not in text


async def test_bad_request_carries_the_service_message(admin, emulator_app):
    client, _ = async_asgi_client(emulator_app)
    async with client:
        with pytest.raises(BadRequestError) as caught:
            await client.usage_report(dt.date(2023, 1, 1), dt.date(2025, 1, 1))
    assert caught.value.status == 400 and "366" in caught.value.message


async def test_503_on_get_is_retried_up_to_the_attempt_limit(admin, emulator_app):
    client, transport = faulty_client(emulator_app, 4, fault_503_rate=1.0)
    async with client:
        with pytest.raises(ServerError) as caught:
            await client.languages("translate_text")
    assert caught.value.status == 503
    assert len(transport.requests) == 4


async def test_503_recovers_when_the_service_comes_back(admin, emulator_app):
    client, transport = faulty_client(emulator_app, 50, fault_503_rate=0.5)
    async with client:
        for _ in range(5):
            assert await client.languages("glossary")
    assert len(transport.requests) > 5  # some answers were 503 and were retried


async def test_translate_is_not_replayed_after_a_503(admin, emulator_app):
    client, transport = faulty_client(emulator_app, 5, fault_503_rate=1.0)
    async with client:
        with pytest.raises(ServerError):
            await client.translate(["Hello"], "DE")
        with pytest.raises(ServerError):
            await client.upload_document(b"Hello.", "a.txt", "DE")
    assert len(transport.requests) == 2


async def test_429_is_retried_for_translate_too(admin, emulator_app):
    client, transport = faulty_client(emulator_app, 3, fault_429_rate=1.0)
    async with client:
        with pytest.raises(RateLimitError) as caught:
            await client.translate(["Hello"], "DE")
    assert len(transport.requests) == 3
    assert caught.value.retry_after == 1.0


class FlakyAnalytics:
    """Answers 429 with the given Retry-After a number of times, then an empty report."""

    def __init__(self, failures: int, retry_after: str | None) -> None:
        self.failures = failures
        self.retry_after = retry_after
        self.calls = 0

    async def handle(self, request: Request) -> Response:
        self.calls += 1
        if self.calls <= self.failures:
            headers = {"Retry-After": self.retry_after} if self.retry_after else {}
            return JSONResponse({"message": "slow down"}, status_code=429, headers=headers)
        zero = dict.fromkeys(
            [
                "total_characters",
                "text_translation_characters",
                "document_translation_characters",
                "text_improvement_characters",
                "speech_to_text_minutes",
            ],
            0,
        )
        return JSONResponse(
            {"usage_report": {"total_usage": zero, "start_date": "a", "end_date": "b"}}
        )


def record_waits():
    waits: list[float] = []

    def hook(details: stamina.instrumentation.RetryDetails) -> None:
        waits.append(details.wait_for)

    return waits, hook


@pytest.mark.parametrize(
    ("header", "cap", "expected"),
    [("7", 0.05, 0.05), ("0", 5.0, 0.0), (None, 5.0, None)],
)
async def test_retry_after_sets_the_wait_capped(header, cap, expected):
    server = FlakyAnalytics(failures=2, retry_after=header)
    waits, hook = record_waits()
    previous = stamina.instrumentation.get_on_retry_hooks()
    stamina.instrumentation.set_on_retry_hooks([hook])
    try:
        with stamina.set_testing(False):
            policy = Policy(max_retry_wait=cap, backoff=(0.001, 0.002))
            client, _ = async_asgi_client(app_of(server.handle), SECRET, policy=policy)
            async with client:
                report = await client.usage_report(dt.date(2025, 1, 1), dt.date(2025, 1, 2))
    finally:
        stamina.instrumentation.set_on_retry_hooks(previous)
    assert report.total_usage.total_characters == 0
    assert server.calls == 3
    if expected is None:  # no Retry-After: short exponential backoff with jitter
        # At most the longest wait, give or take the last bit of stamina's float arithmetic.
        assert len(waits) == 2 and all(0 < w <= 0.002 * (1 + 1e-9) for w in waits)
    else:
        assert waits == [expected, expected]


def test_retry_after_accepts_seconds_and_http_dates():
    now = dt.datetime(2025, 6, 1, 12, 0, tzinfo=dt.UTC)
    later = format_datetime(now + dt.timedelta(seconds=30), usegmt=True)
    assert retry_after_seconds("12", now) == 12.0
    assert retry_after_seconds(later, now) == 30.0
    assert retry_after_seconds(format_datetime(now - dt.timedelta(hours=1), usegmt=True), now) == 0
    assert retry_after_seconds("soon", now) is None
    assert retry_after_seconds(None, now) is None


@pytest.mark.parametrize(
    ("error", "get_calls", "translate_calls"),
    [
        (httpx.ConnectError, 3, 3),  # never reached the service: safe to resend anything
        (httpx.ReadTimeout, 3, 1),  # may have been processed: only reads are resent
    ],
)
async def test_network_failures(error, get_calls, translate_calls):
    transport = Failing(error)
    policy = Policy(max_attempts=3)
    async with AsyncServiceClient(
        BASE, SecretStr(SECRET), transport=transport, policy=policy
    ) as client:
        with pytest.raises(ConnectionFailedError) as caught:
            await client.languages("voice")
        assert transport.calls == get_calls
        transport.calls = 0
        with pytest.raises(ConnectionFailedError):
            await client.translate(["Hi"], "DE")
        assert transport.calls == translate_calls
    assert caught.value.status is None
    assert SECRET not in str(caught.value)


async def test_connection_refused_on_loopback():
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = AsyncServiceClient(
        f"http://127.0.0.1:{port}", SecretStr(SECRET), policy=Policy(max_attempts=2)
    )
    async with client:
        with pytest.raises(ConnectionFailedError) as caught:
            await client.usage_report(dt.date(2025, 1, 1), dt.date(2025, 1, 2))
    assert "ConnectError" in str(caught.value) and SECRET not in str(caught.value)


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b"<html><body>Gateway login</body></html>", "text/html"),
        (b'{"usage_report": {"total_usage": {"total_characters": 1', "application/json"),
        (b'{"usage_report": {"total_usage": "lots", "start_date": "a"}}', "application/json"),
        (b"[]", "application/json"),
    ],
)
async def test_bodies_of_the_wrong_shape_are_invalid_responses(body, content_type):
    async def handler(request: Request) -> Response:
        return Response(body, media_type=content_type, headers={"X-Trace-ID": "t-42"})

    client, _ = async_asgi_client(app_of(handler), SECRET)
    async with client:
        with pytest.raises(InvalidResponseError) as caught:
            await client.usage_report(dt.date(2025, 1, 1), dt.date(2025, 1, 2))
    assert caught.value.trace_id == "t-42"
    assert "documented shape" in str(caught.value)


async def test_detect_answer_with_too_few_results_is_invalid():
    async def handler(request: Request) -> Response:
        return JSONResponse(
            {"results": [{"detection_status": "success", "detected_language": "en"}]}
        )

    client, _ = async_asgi_client(app_of(handler, "/v3/detect/language", ("POST",)), SECRET)
    async with client:
        with pytest.raises(InvalidResponseError):
            await client.detect(["one", "two"])


def test_sync_client_from_many_threads(admin, emulator_app):
    client, _ = asgi_client(emulator_app)
    with client:
        loop_thread = client._loop.thread
        start = dt.date(2025, 5, 1)

        def total(offset: int) -> int:
            day = start + dt.timedelta(days=offset % 20)
            report = client.usage_report(day, day + dt.timedelta(days=1))
            return report.total_usage.total_characters

        with ThreadPoolExecutor(max_workers=4) as pool:
            threaded = list(pool.map(total, range(40)))
        assert threaded == [total(i) for i in range(40)]  # repeated calls on this thread too
        assert SECRET not in repr(client) and admin not in repr(client)
    assert not loop_thread.is_alive()  # close() stops the client's event loop thread


def test_from_connection_needs_both_key_and_address():
    with pytest.raises(ValueError, match="SERVICE_AUTH_KEY"):
        ServiceClient.from_connection(ServiceConnection(auth_key=None, base_url=BASE))
    connection = ServiceConnection(auth_key=SECRET, base_url=BASE)
    assert connection.is_configured and SECRET not in repr(connection)
    with ServiceClient.from_connection(connection) as client:
        assert client.async_client.base_url == BASE
        assert client.async_client.policy == Policy()
    patient = Policy(max_attempts=9, timeout=2.0)
    with ServiceClient.from_connection(connection, patient) as client:
        assert client.async_client.policy is patient
