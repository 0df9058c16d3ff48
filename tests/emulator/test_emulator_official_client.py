"""Contract tests: the service's official Python client library (`deepl`) against the emulator.

The emulator runs as a real process on loopback with the `DeepL-Auth-Key` scheme the library
sends, and every spec operation the library covers is driven through the library itself:
language lists, text translation with billed characters, document upload, usage and limits of
the billing period, and the 403, 413 and 429 answers. The library's operations outside the spec
end in a plain 404.
"""

from __future__ import annotations

import datetime as dt
import logging
import re

import deepl
import httpx
import pytest
from support.servers import emulator_server

from emulator import EmulatorConfig, create_app

# Every code text translation accepts, as the v2 lists show them.
SOURCES = [
    "AR", "BG", "CA", "CS", "DA", "DE", "EL", "EN", "ES", "ET", "FI", "FR", "HE", "HR", "HU",
    "ID", "IT", "JA", "KO", "LT", "LV", "MS", "NB", "NL", "PL", "PT", "RO", "RU", "SK", "SL",
    "SV", "TH", "TR", "UK", "VI", "ZH",
]  # fmt: skip
TARGETS = [
    "AR", "BG", "CA", "CS", "DA", "DE", "EL", "EN", "EN-GB", "EN-US", "ES", "ES-419", "ET",
    "FI", "FR", "HE", "HR", "HU", "ID", "IT", "JA", "KO", "LT", "LV", "MS", "NB", "NL", "PL",
    "PT", "PT-BR", "PT-PT", "RO", "RU", "SK", "SL", "SV", "TH", "TR", "UK", "VI", "ZH",
    "ZH-HANS", "ZH-HANT",
]  # fmt: skip
FORMAL = {"DE", "ES", "ES-419", "FR", "IT", "JA", "NL", "PL", "PT", "PT-BR", "PT-PT", "RU"}
PRODUCT_GLOSSARY = "3f1b6c2e-6b1a-4c55-9a0e-1d2f3a4b5c6d"  # en→de, en→fr, en→ja, de→en
LEGAL_GLOSSARY = "8a7d4e21-2c3b-4f6a-8e9d-0b1c2d3e4f50"  # de→en, fr→en


@pytest.fixture
def translator(official_client_emulator):
    client = deepl.DeepLClient(
        official_client_emulator.admin_key, server_url=official_client_emulator.base_url
    )
    yield client
    client.close()


@pytest.fixture
def quick_retries(monkeypatch):
    """Two retries with a 50 ms backoff instead of five starting at one second."""
    monkeypatch.setattr(deepl.http_client, "max_network_retries", 2)
    monkeypatch.setattr(deepl.http_client._BackoffTimer, "BACKOFF_INITIAL", 0.05)


def booked(server, metric: str = "text_translation_characters") -> int:
    """The organization's characters of `metric` on the process's pinned day (analytics)."""
    response = httpx.get(
        f"{server.base_url}/v2/admin/analytics",
        params={
            "start_date": server.today.isoformat(),
            "end_date": (server.today + dt.timedelta(days=1)).isoformat(),
        },
        headers={"Authorization": f"DeepL-Auth-Key {server.admin_key}"},
    )
    assert response.status_code == 200, response.text
    return response.json()["usage_report"]["total_usage"][metric]


def test_source_languages(translator):
    languages = translator.get_source_languages()
    assert [language.code for language in languages] == SOURCES
    assert {language.code: language.name for language in languages}["NB"] == "Norwegian Bokmål"
    assert all(language.supports_formality is None for language in languages)


def test_target_languages_with_formality_flags(translator):
    languages = translator.get_target_languages()
    assert [language.code for language in languages] == TARGETS
    assert {language.code for language in languages if language.supports_formality} == FORMAL
    names = {language.code: language.name for language in languages}
    assert names["ES-419"] == "Spanish (Latin American)"
    assert names["ZH-HANT"] == "Chinese (traditional)"


def test_translate_one_text(translator):
    result = translator.translate_text("Guten Morgen, wie geht es dir heute?", target_lang="EN-US")
    assert result.text == "[EN-US] Guten Morgen, wie geht es dir heute?"
    assert result.detected_source_lang == "DE"
    assert result.billed_characters == 36


def test_translate_several_texts_and_their_billed_characters(translator, official_client_emulator):
    before = booked(official_client_emulator)
    results = translator.translate_text(
        ["Grüße aus München", "ñandú 🦤", "Bis bald!"],
        source_lang="de",
        target_lang="es-419",
        formality="prefer_less",
    )
    assert [(r.text, r.detected_source_lang, r.billed_characters) for r in results] == [
        ("[ES-419] Grüße aus München", "DE", 17),
        ("[ES-419] ñandú 🦤", "DE", 7),
        ("[ES-419] Bis bald!", "DE", 9),
    ]
    assert booked(official_client_emulator) == before + 17 + 7 + 9


@pytest.mark.parametrize(("target", "tag"), [("ZH", "[ZH]"), ("pt-br", "[PT-BR]")])
def test_translate_into_unspecified_and_regional_variants(translator, target, tag):
    result = translator.translate_text("Good evening, everybody.", target_lang=target)
    assert result.text == f"{tag} Good evening, everybody."
    assert result.detected_source_lang == "EN"


def test_an_unknown_target_is_a_bad_request(translator):
    with pytest.raises(deepl.DeepLException, match="target_lang") as raised:
        translator.translate_text("Hello", target_lang="EN-AU")
    assert raised.value.http_status_code == 400


def test_upload_a_document_from_bytes(translator, official_client_emulator):
    before = booked(official_client_emulator, "document_translation_characters")
    handle = translator.translate_document_upload(
        "Grüße aus München.\n".encode(), filename="notes.txt", target_lang="DE", formality="less"
    )
    assert re.fullmatch(r"[0-9A-F]{32}", handle.document_id)
    assert re.fullmatch(r"[0-9A-F]{64}", handle.document_key)
    assert booked(official_client_emulator, "document_translation_characters") == before + 19


def test_upload_a_document_file_with_glossaries(translator, tmp_path):
    path = tmp_path / "contract.html"
    path.write_text("<p>Vertrag</p>")
    with path.open("rb") as document:
        handle = translator.translate_document_upload(
            document,
            source_lang="DE",
            target_lang="EN-GB",
            glossary_ids=[LEGAL_GLOSSARY, PRODUCT_GLOSSARY],
            output_format="docx",
        )
    assert len(handle.document_id) == 32


def test_an_upload_breaking_a_rule_is_a_bad_request(translator):
    with pytest.raises(deepl.DeepLException, match="Glossary") as raised:
        translator.translate_document_upload(
            b"Hello", filename="a.txt", source_lang="EN", target_lang="FR",
            glossary=LEGAL_GLOSSARY,
        )  # fmt: skip
    assert raised.value.http_status_code == 400


def test_a_bad_key_is_the_librarys_authorization_error(official_client_emulator):
    client = deepl.Translator("not-a-key", server_url=official_client_emulator.base_url)
    with pytest.raises(deepl.AuthorizationException) as raised:
        client.translate_text("Hello", target_lang="DE")
    assert raised.value.http_status_code == 403
    assert "Authorization failed: supply a valid key" in str(raised.value)


def test_the_other_scheme_is_refused(official_client_emulator):
    response = httpx.get(
        f"{official_client_emulator.base_url}/v2/languages",
        headers={"Authorization": f"Service-Auth-Key {official_client_emulator.admin_key}"},
    )
    assert response.status_code == 403


def test_a_text_request_over_128_kib_is_413(translator):
    with pytest.raises(deepl.DeepLException) as raised:
        translator.translate_text(["a" * 65536, "b" * 65536], target_lang="DE")
    assert raised.value.http_status_code == 413
    assert "the limit is 128 KiB (131072 bytes)" in str(raised.value)


def test_a_document_over_10_mib_is_413(translator):
    with pytest.raises(deepl.DeepLException) as raised:
        translator.translate_document_upload(
            b"x" * (10 * 1024 * 1024 + 1), filename="big.txt", target_lang="DE"
        )
    assert raised.value.http_status_code == 413
    assert "Document too large" in str(raised.value)


def characters(row) -> int:
    return (
        row.text_translation_characters
        + row.document_translation_characters
        + row.text_improvement_characters
    )


def test_get_usage_reads_the_plan_and_the_ledger(translator, official_client_emulator):
    server = official_client_emulator
    translator.translate_text("Guten Morgen", target_lang="EN-GB")  # booked today, counted at once
    usage = translator.get_usage()
    # The process's organization built again in-process: the same seed, keys, days and day.
    twin = create_app(EmulatorConfig(keys=3, days=30, today=server.today)).state.emulator
    try:
        start, _ = twin.plan.period(server.today)
        history = sum(characters(row) for row in twin.ledger(start, server.today))
        limit = twin.plan.effective_character_limit
    finally:
        twin.store.close()
    assert history > 0 or start == server.today  # only a period's first day has no history
    assert usage.character.count == history + booked(server, "total_characters")
    assert usage.character.limit == limit
    assert usage.character.valid
    assert not usage.character.limit_reached
    assert not usage.document.valid  # the emulator sends no document counts
    assert not usage.team_document.valid
    assert not usage.any_limit_reached
    assert (
        str(usage) == f"Usage this billing period:\nCharacters: {usage.character.count} of {limit}"
    )


FREE_KEY = "free-plan-key-0001-aaaa:adm"
FREE_ORG = f"""
[plan]
pro = false
billing_day = 5
character_limit = 1000

[[keys]]
key = "{FREE_KEY}"
admin = true

[[usage]]
key = "{FREE_KEY}"
date = "2025-03-04"
text_translation_characters = 5000

[[usage]]
key = "{FREE_KEY}"
date = "2025-03-05"
text_translation_characters = 900
document_translation_characters = 60
text_improvement_characters = 30
"""


def test_get_usage_on_a_free_plan_reaches_its_limit(tmp_path):
    path = tmp_path / "org.toml"
    path.write_text(FREE_ORG)
    options = ("--auth-scheme", "DeepL-Auth-Key", "--org", str(path))
    with emulator_server(*options, today=dt.date(2025, 3, 20)) as server:
        client = deepl.Translator(FREE_KEY, server_url=server.base_url)
        before = client.get_usage()  # the period began on March 5: the 4th is outside it
        client.translate_text("Hallo Welt", source_lang="DE", target_lang="EN-GB")
        after = client.get_usage()
        client.close()
    assert (before.character.count, before.character.limit) == (990, 1000)
    assert not before.any_limit_reached
    assert (after.character.count, after.character.limit) == (1000, 1000)
    assert after.character.limit_reached
    assert after.any_limit_reached
    assert str(after) == "Usage this billing period:\nCharacters: 1000 of 1000"


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.list_glossaries(),
        lambda c: c.list_multilingual_glossaries(),
        lambda c: c.get_glossary_languages(),
        lambda c: c.rephrase_text("Hello", target_lang="EN-GB"),
        lambda c: c.translate_document_get_status(deepl.DocumentHandle("0" * 32, "0" * 64)),
        lambda c: c.get_all_style_rules(),
        lambda c: c.list_translation_memories(),
    ],
    ids=[
        "glossaries",
        "multilingual-glossaries",
        "glossary-pairs",
        "rephrase",
        "document-status",
        "style-rules",
        "translation-memories",
    ],
)
def test_operations_outside_the_spec_are_plainly_not_found(translator, call):
    with pytest.raises(deepl.DeepLException, match="Not found") as raised:
        call(translator)
    assert raised.value.http_status_code == 404


def test_429_is_retried_by_the_library_then_raised(quick_retries, caplog):
    options = ("--auth-scheme", "DeepL-Auth-Key", "--keys", "3", "--days", "30")
    with emulator_server(*options, "--fault-429", "1", "--retry-after", "3") as server:
        raw = httpx.get(
            f"{server.base_url}/v2/languages",
            headers={"Authorization": f"DeepL-Auth-Key {server.admin_key}"},
        )
        client = deepl.Translator(server.admin_key, server_url=server.base_url)
        with (
            caplog.at_level(logging.INFO, logger="deepl"),
            pytest.raises(deepl.TooManyRequestsException) as raised,
        ):
            client.translate_text("Hello", target_lang="DE")
        client.close()
    assert raw.status_code == 429
    assert raw.headers["Retry-After"] == "3"
    assert raised.value.http_status_code == 429
    assert "rate limit exceeded" in str(raised.value)
    retries = [r for r in caplog.records if r.getMessage().startswith("Starting retry")]
    assert len(retries) == 2


def test_the_library_gets_through_occasional_429s(monkeypatch, caplog):
    monkeypatch.setattr(deepl.http_client._BackoffTimer, "BACKOFF_INITIAL", 0.05)
    options = ("--auth-scheme", "DeepL-Auth-Key", "--keys", "3", "--days", "30")
    with emulator_server(*options, "--fault-429", "0.7", "--seed", "42") as server:
        client = deepl.Translator(server.admin_key, server_url=server.base_url)
        with caplog.at_level(logging.INFO, logger="deepl"):
            result = client.translate_text("Hello", source_lang="EN", target_lang="DE")
        client.close()
    assert (result.text, result.billed_characters) == ("[DE] Hello", 5)
    assert any(r.getMessage().startswith("Starting retry") for r in caplog.records)
