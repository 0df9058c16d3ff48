"""Parameters from wherever the official client libraries put them: the query string, a JSON
body, a form body (also on a GET, as the official Python client sends the v2 target list), or
multipart parts for uploads."""

from __future__ import annotations

import pytest
from support.answers import assert_refused

ANALYTICS = "/v2/admin/analytics"
TRANSLATE = "/v2/translate"
WINDOW = {"start_date": "2025-05-01", "end_date": "2025-05-08", "group_by": "key"}
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


async def v2_codes(response):
    assert response.status_code == 200, response.text
    return [entry["language"] for entry in response.json()]


async def test_v2_target_list_from_a_form_body_on_get(emulator_client):
    # What the official Python client sends for get_target_languages().
    targets = await v2_codes(
        await emulator_client.request("GET", "/v2/languages", content=b"type=target", headers=FORM)
    )
    assert {"EN-GB", "ES-419", "PT-BR", "ZH-HANT"} <= set(targets)
    sources = await v2_codes(await emulator_client.get("/v2/languages"))
    assert "EN-GB" not in sources
    assert targets != sources


@pytest.mark.parametrize(
    "kwargs",
    [
        {"data": {"type": "target"}},
        {"json": {"type": "target"}},
        {"params": {"type": "target"}},
        {"params": {"type": "source"}, "data": {"type": "target"}},
    ],
    ids=["form", "json", "query", "body-wins"],
)
async def test_v2_target_list_by_post_from_anywhere(emulator_client, kwargs):
    targets = await v2_codes(await emulator_client.post("/v2/languages", **kwargs))
    assert "ES-419" in targets
    assert "EN-GB" in targets


@pytest.mark.parametrize(
    "kwargs",
    [
        {"params": {"text": "Hallo Welt, wie geht es dir?", "target_lang": "FR"}},
        {"data": {"text": "Hallo Welt, wie geht es dir?", "target_lang": "FR"}},
        {"json": {"text": ["Hallo Welt, wie geht es dir?"], "target_lang": "FR"}},
        {"params": {"target_lang": "FR"}, "json": {"text": ["Hallo Welt, wie geht es dir?"]}},
        {
            "params": {"target_lang": "IT"},
            "data": {"text": "Hallo Welt, wie geht es dir?", "target_lang": "FR"},
        },
    ],
    ids=["query", "form", "json", "query-and-json", "body-wins"],
)
async def test_translate_from_anywhere(emulator_client, kwargs):
    response = await emulator_client.post(TRANSLATE, **kwargs)
    assert response.status_code == 200, response.text
    assert response.json() == {
        "translations": [
            {"detected_source_language": "DE", "text": "[FR] Hallo Welt, wie geht es dir?"}
        ]
    }


async def test_texts_from_the_query_come_before_texts_from_the_body(emulator_client):
    response = await emulator_client.post(
        TRANSLATE,
        params={"text": "first", "source_lang": "EN"},
        data={"text": ["second", "third"], "target_lang": "DE"},
    )
    assert [t["text"] for t in response.json()["translations"]] == [
        "[DE] first",
        "[DE] second",
        "[DE] third",
    ]


async def test_detection_texts_in_the_query(emulator_client):
    response = await emulator_client.post(
        "/v3/detect/language", params=[("text", "Bonjour à tous mes amis."), ("text", "42")]
    )
    assert response.status_code == 200
    assert response.json() == {
        "results": [
            {"detection_status": "success", "detected_language": "fr"},
            {"detection_status": "no_language_detected"},
        ]
    }


@pytest.mark.parametrize(
    "kwargs",
    [
        {"params": WINDOW},
        {"content": b"start_date=2025-05-01&end_date=2025-05-08&group_by=key", "headers": FORM},
        {"json": WINDOW},
        {
            "params": {"start_date": "2025-05-01"},
            "json": {"end_date": "2025-05-08", "group_by": "key"},
        },
    ],
    ids=["query", "form", "json", "split"],
)
async def test_analytics_from_anywhere(emulator_client, kwargs):
    response = await emulator_client.request("GET", ANALYTICS, **kwargs)
    assert response.status_code == 200, response.text
    report = response.json()["usage_report"]
    assert (report["start_date"], report["end_date"], report["group_by"]) == (
        "2025-05-01T00:00:00",
        "2025-05-08T00:00:00",
        "key",
    )


async def test_v3_languages_from_a_json_body(emulator_client):
    response = await emulator_client.request(
        "GET",
        "/v3/languages",
        json={"resource": "write", "usable_as_target": "true", "include": ["beta"]},
    )
    assert response.status_code == 200
    assert [e["lang"] for e in response.json()] == [
        "de",
        "en-GB",
        "en-US",
        "es",
        "fr",
        "it",
        "ja",
        "ko",
        "pt-BR",
        "pt-PT",
    ]


async def test_document_parts_and_query_parameters_combine(emulator_client):
    response = await emulator_client.post(
        "/v2/document",
        params={"target_lang": "DE", "formality": "less"},
        files={"file": ("notes.txt", b"Hello there", "text/plain")},
    )
    assert response.status_code == 200, response.text
    assert set(response.json()) == {"document_id", "document_key"}


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/v2/languages"),
        ("POST", TRANSLATE),
        ("GET", ANALYTICS + "?start_date=x"),
        ("GET", ANALYTICS + "/custom-tags?start_date=x"),
        ("GET", ANALYTICS + "/language-pairs?start_date=x"),
        ("GET", "/v2/usage"),
    ],
)
async def test_a_body_of_another_type_is_415(emulator_client, method, path):
    response = await emulator_client.request(
        method, path, content=b"type: target", headers={"Content-Type": "text/yaml"}
    )
    message = (
        "Unsupported media type: the body must be application/json or "
        "application/x-www-form-urlencoded. Please set the Content-Type header accordingly."
    )
    assert_refused(response, 415, "unsupported_media_type", message)


async def test_an_empty_body_is_no_body_whatever_its_type(emulator_client):
    response = await emulator_client.get(
        "/v2/languages", params={"type": "target"}, headers={"Content-Type": "text/yaml"}
    )
    assert "ES-419" in await v2_codes(response)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"json": {"type": 1}}, "Bad request. Parameter type must be a string."),
        ({"json": {"type": "both"}}, "Bad request. Parameter type must be 'source' or 'target'."),
        (
            {"files": {"type": ("t.txt", b"target")}},
            "Unsupported media type: the body must be application/json or "
            "application/x-www-form-urlencoded. Please set the Content-Type header accordingly.",
        ),
    ],
)
async def test_bad_parameter_values_are_named(emulator_client, kwargs, message):
    response = await emulator_client.post("/v2/languages", **kwargs)
    assert 400 <= response.status_code < 500
    assert response.json()["message"] == message


async def test_a_file_where_text_is_expected_is_400(emulator_client):
    response = await emulator_client.post(
        "/v2/document",
        data={"target_lang": "DE"},
        files={
            "file": ("notes.txt", b"Hello", "text/plain"),
            "source_lang": ("lang.txt", b"EN", "text/plain"),
        },
    )
    assert response.status_code == 400
    assert response.json()["message"] == (
        "Bad request. Parameter source_lang must be a text field, not a file."
    )
