"""Language detection and text translation, including usage booked by translation."""

from __future__ import annotations

import datetime as dt

import httpx
import pytest
from support.answers import assert_refused
from support.servers import FIXED_TODAY, SPEC_DETECTION_CODES, auth

DETECT = "/v3/detect/language"
TRANSLATE = "/v2/translate"
# Short texts and their languages: a few words, where letter trigrams alone mislead.
SHORT_TEXTS = {
    "Hello world": "en",
    "Hallo Welt": "de",
    "Bonjour le monde": "fr",
    "Hola mundo": "es",
    "Ciao mondo": "it",
    "Bom dia": "pt",
    "Hallo wereld": "nl",
    "Dzień dobry": "pl",
    "Привет мир": "ru",
    "Добрий ранок": "uk",
    "Здравей свят": "bg",
    "Tack så mycket": "sv",
    "Teşekkür ederim": "tr",
    "Terima kasih": "id",
}


async def detect(client, texts):
    response = await client.post(DETECT, json={"text": texts})
    assert response.status_code == 200, response.text
    return response.json()["results"]


async def test_english_sentence_is_success_en(emulator_client):
    results = await detect(emulator_client, ["The weather is lovely today and we are going out."])
    assert results == [{"detection_status": "success", "detected_language": "en"}]


async def test_short_texts_are_detected_in_their_language(emulator_client):
    results = await detect(emulator_client, list(SHORT_TEXTS))
    assert results == [
        {"detection_status": "success", "detected_language": code} for code in SHORT_TEXTS.values()
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Gallia est omnis divisa in partes tres, quarum unam incolunt Belgae.",
        "मेरा नाम राम है और मैं भारत में रहता हूँ।",
        "Kiswahili ni lugha ya Kibantu inayozungumzwa katika Afrika Mashariki.",
    ],
)
async def test_clear_unsupported_language(emulator_client, text):
    assert await detect(emulator_client, [text]) == [{"detection_status": "unsupported_language"}]


@pytest.mark.parametrize("text", ["12345", "", "  ", "!?,.;", "3.14 + 2 = 5.14"])
async def test_no_language_in_digits_and_punctuation(emulator_client, text):
    assert await detect(emulator_client, [text]) == [{"detection_status": "no_language_detected"}]


@pytest.mark.parametrize("text", ["a", "ok", "xq"])
async def test_very_short_text_is_not_a_success(emulator_client, text):
    [result] = await detect(emulator_client, [text])
    assert result["detection_status"] in {"insufficient_confidence", "no_language_detected"}
    assert "detected_language" not in result


async def test_results_follow_input_order_and_codes_are_supported(emulator_client):
    texts = [
        "Dies ist ein ganz normaler deutscher Satz über das Wetter.",
        "12345",
        "Ceci est une phrase française tout à fait ordinaire.",
        "これは日本語の文章です。",
    ]
    results = await detect(emulator_client, texts)
    assert [r.get("detected_language") for r in results] == ["de", None, "fr", "ja"]
    assert all(
        r["detected_language"] in SPEC_DETECTION_CODES for r in results if "detected_language" in r
    )


async def test_form_encoding_with_repeated_text(emulator_client):
    response = await emulator_client.post(
        DETECT,
        data={"text": ["Good morning to all of you, friends.", "999"]},
    )
    assert response.status_code == 200
    statuses = [r["detection_status"] for r in response.json()["results"]]
    assert statuses == ["success", "no_language_detected"]


async def test_detect_415_names_both_types(emulator_client):
    response = await emulator_client.post(
        DETECT, content=b"text=hello", headers={"Content-Type": "text/plain"}
    )
    assert response.status_code == 415
    message = response.json()["message"]
    assert "application/json" in message
    assert "application/x-www-form-urlencoded" in message
    assert "Content-Type" in message


@pytest.mark.parametrize(
    "body",
    [{}, {"text": []}, {"texts": ["hello"]}],
)
async def test_detect_missing_text(emulator_client, body):
    response = await emulator_client.post(DETECT, json=body)
    assert response.status_code == 400
    assert "text is missing" in response.json()["message"]


@pytest.mark.parametrize(
    "body", [{"text": "just a string"}, {"text": [1, 2]}, {"text": [None]}, ["text"]]
)
async def test_detect_text_must_be_list_of_strings(emulator_client, body):
    response = await emulator_client.post(DETECT, json=body)
    assert response.status_code == 400
    assert response.json()["message"]


async def test_detect_at_most_50_texts(emulator_client):
    assert (await emulator_client.post(DETECT, json={"text": ["hello"] * 50})).status_code == 200
    response = await emulator_client.post(DETECT, json={"text": ["hello"] * 51})
    assert response.status_code == 400
    assert "50" in response.json()["message"]


async def test_detect_malformed_json(emulator_client):
    response = await emulator_client.post(
        DETECT, content=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 400


async def test_detect_403_for_keys_outside_beta(emulator_app, emulator_client):
    outsider = next(k for k in emulator_app.state.emulator.keys if not k.detect_beta)
    response = await emulator_client.post(
        DETECT, json={"text": ["hello there"]}, headers=auth(outsider.key)
    )
    assert_refused(response, 403, "feature_not_enabled", "Forbidden")


async def test_detect_allowed_for_enrolled_non_admin(emulator_app, emulator_client):
    member = next(k for k in emulator_app.state.emulator.keys if k.detect_beta and not k.admin)
    response = await emulator_client.post(
        DETECT, json={"text": ["hello there my friend"]}, headers=auth(member.key)
    )
    assert response.status_code == 200


# --- translation -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "target", ["DE", "de", "EN-US", "en-us", "pt-BR", "zh-hant", "ES-419", "EN", "pt", "ZH"]
)
async def test_translate_accepts_codes_case_insensitively(emulator_client, target):
    response = await emulator_client.post(
        TRANSLATE, json={"text": ["Bonjour à tous, comment allez-vous ?"], "target_lang": target}
    )
    assert response.status_code == 200, response.text
    [translation] = response.json()["translations"]
    assert translation["detected_source_language"] == "FR"
    assert translation["text"] == f"[{target.upper()}] Bonjour à tous, comment allez-vous ?"


async def test_translate_detects_each_text_and_honours_source_lang(emulator_client):
    texts = ["Das ist ein schöner Tag heute.", "This is a lovely day today."]
    detected = await emulator_client.post(TRANSLATE, json={"text": texts, "target_lang": "fr"})
    assert [t["detected_source_language"] for t in detected.json()["translations"]] == ["DE", "EN"]
    given = await emulator_client.post(
        TRANSLATE, json={"text": texts, "target_lang": "fr", "source_lang": "nl"}
    )
    assert [t["detected_source_language"] for t in given.json()["translations"]] == ["NL", "NL"]


async def test_translation_detects_the_source_of_short_texts(emulator_client):
    response = await emulator_client.post(
        TRANSLATE, json={"text": list(SHORT_TEXTS), "target_lang": "ja"}
    )
    assert response.status_code == 200, response.text
    detected = [t["detected_source_language"] for t in response.json()["translations"]]
    assert detected == [code.upper() for code in SHORT_TEXTS.values()]


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"target_lang": "DE"}, "text is missing"),
        ({"text": ["hi"]}, "target_lang is missing"),
        ({"text": ["hi"], "target_lang": "XX"}, "target_lang"),
        ({"text": ["hi"], "target_lang": "EN-AU"}, "target_lang"),
        ({"text": ["hi"], "target_lang": "DE", "source_lang": "ES-419"}, "source_lang"),
        ({"text": ["hi"], "target_lang": "DE", "source_lang": "EN-US"}, "source_lang"),
        ({"text": ["hi"], "target_lang": 5}, "target_lang"),
        ({"text": "hi", "target_lang": "DE"}, "array of strings"),
    ],
)
async def test_translate_rejects_bad_requests(emulator_client, body, fragment):
    response = await emulator_client.post(TRANSLATE, json=body)
    assert response.status_code == 400
    assert fragment in response.json()["message"]


async def test_translate_without_a_detectable_source_reports_en(emulator_client):
    response = await emulator_client.post(TRANSLATE, json={"text": ["12345"], "target_lang": "de"})
    assert response.json() == {
        "translations": [{"detected_source_language": "EN", "text": "[DE] 12345"}]
    }


async def test_translate_415(emulator_client):
    response = await emulator_client.post(
        TRANSLATE, content=b"<x/>", headers={"Content-Type": "application/xml"}
    )
    assert response.status_code == 415
    assert response.json()["code"] == "unsupported_media_type"


async def test_translation_usage_shows_up_in_analytics(emulator_app, emulator_client):
    member = next(k for k in emulator_app.state.emulator.keys if not k.admin)
    day = FIXED_TODAY.isoformat()
    window = {"start_date": day, "end_date": f"{day}T23:59:59", "group_by": "key_and_day"}
    before = (await emulator_client.get("/v2/admin/analytics", params=window)).json()
    assert before["usage_report"]["total_usage"]["text_translation_characters"] == 0
    texts = ["Grüße aus München", "ñandú 🦤"]
    response = await emulator_client.post(
        TRANSLATE, json={"text": texts, "target_lang": "en-gb"}, headers=auth(member.key)
    )
    assert response.status_code == 200
    after = (await emulator_client.get("/v2/admin/analytics", params=window)).json()
    rows = after["usage_report"]["key_and_day_usages"]
    assert len(rows) == 1
    assert rows[0]["api_key"] == member.masked
    assert rows[0]["api_key_label"] == member.label
    assert rows[0]["usage_date"] == f"{day}T00:00:00Z"
    assert rows[0]["usage"]["text_translation_characters"] == len(texts[0]) + len(texts[1])


async def test_rejected_translation_records_nothing(emulator_app, emulator_client):
    await emulator_client.post(TRANSLATE, json={"text": ["hello"], "target_lang": "XX"})
    assert emulator_app.state.emulator.ledger(FIXED_TODAY, FIXED_TODAY) == []


def test_process_detect_and_translate_round_trip(emulator_process):
    base, headers = emulator_process.base_url, auth(emulator_process.admin_key)
    detected = httpx.post(
        f"{base}{DETECT}", json={"text": ["Where is the train station, please?"]}, headers=headers
    )
    assert detected.json() == {
        "results": [{"detection_status": "success", "detected_language": "en"}]
    }
    today = emulator_process.today  # the process books usage on this pinned day
    window = {
        "start_date": today.isoformat(),
        "end_date": (today + dt.timedelta(days=1)).isoformat(),
        "group_by": "key",
    }

    def admin_chars() -> int:
        rows = httpx.get(f"{base}/v2/admin/analytics", params=window, headers=headers).json()
        masked = emulator_process.admin_key[:4] + "****" + emulator_process.admin_key[-4:]
        return sum(
            r["usage"]["text_translation_characters"]
            for r in rows["usage_report"]["key_usages"]
            if r["api_key"] == masked
        )

    before = admin_chars()
    text = "Round trip through the real process"
    translated = httpx.post(
        f"{base}{TRANSLATE}", json={"text": [text], "target_lang": "DE"}, headers=headers
    )
    assert translated.status_code == 200
    assert admin_chars() == before + len(text)


# --- billed characters and the request size limit --------------------------------------

BILLED_TEXTS = ["Grüße aus München", "ñandú 🦤", ""]


@pytest.mark.parametrize(
    "send",
    [
        lambda c: c.post(
            TRANSLATE,
            json={"text": BILLED_TEXTS, "target_lang": "DE", "show_billed_characters": True},
        ),
        lambda c: c.post(
            TRANSLATE,
            data={"text": BILLED_TEXTS, "target_lang": "DE", "show_billed_characters": "1"},
        ),
        lambda c: c.post(
            TRANSLATE,
            data={"text": BILLED_TEXTS, "target_lang": "DE", "show_billed_characters": "TRUE"},
        ),
    ],
    ids=["json-true", "form-1", "form-TRUE"],
)
async def test_show_billed_characters_counts_code_points_per_text(emulator_client, send):
    response = await send(emulator_client)
    assert response.status_code == 200, response.text
    assert [t["billed_characters"] for t in response.json()["translations"]] == [17, 7, 0]


@pytest.mark.parametrize("value", [None, False, "0", "false"])
async def test_billed_characters_only_when_asked_for(emulator_client, value):
    body = {"text": ["Hallo"], "target_lang": "FR", "source_lang": "DE"}
    if value is not None:
        body["show_billed_characters"] = value
    response = await emulator_client.post(TRANSLATE, json=body)
    assert response.json() == {
        "translations": [{"detected_source_language": "DE", "text": "[FR] Hallo"}]
    }


@pytest.mark.parametrize("value", ["yes", 1, ["true"]])
async def test_show_billed_characters_must_be_a_boolean(emulator_client, value):
    body = {"text": ["Hallo"], "target_lang": "FR", "show_billed_characters": value}
    response = await emulator_client.post(TRANSLATE, json=body)
    assert response.status_code == 400
    assert response.json()["message"] == (
        "Bad request. Parameter show_billed_characters must be true, false, 1 or 0."
    )


def json_body_of_size(size: int) -> bytes:
    """A translation request body of exactly `size` bytes."""
    frame = b'{"target_lang":"DE","source_lang":"EN","text":[""]}'
    return frame.replace(b'[""]', b'["' + b"a" * (size - len(frame)) + b'"]')


async def test_translation_requests_up_to_128_kib_are_read(emulator_client):
    body = json_body_of_size(128 * 1024)
    response = await emulator_client.post(
        TRANSLATE, content=body, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("query", ["", "?source_lang=EN"])
async def test_translation_requests_over_128_kib_are_413(emulator_client, query):
    size = 128 * 1024 + 1 - len(query.lstrip("?"))
    response = await emulator_client.post(
        TRANSLATE + query,
        content=json_body_of_size(size),
        headers={"Content-Type": "application/json"},
    )
    message = (
        "Request too large: the limit is 128 KiB (131072 bytes) for a text translation request."
    )
    assert_refused(response, 413, "payload_too_large", message)


async def test_detection_keeps_the_one_mib_body_limit(emulator_client):
    text = "Guten Morgen. " * (200 * 1024 // 14)
    response = await emulator_client.post(DETECT, json={"text": [text]})
    assert response.status_code == 200
