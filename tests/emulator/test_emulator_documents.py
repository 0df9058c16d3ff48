"""Document upload: the upload table's rules, encryption on receipt and booked characters."""

from __future__ import annotations

import re

import pytest
from support.servers import FIXED_TODAY

from emulator.documents import GLOSSARIES, MAX_DOCUMENT_BYTES, STYLE_RULE_LISTS, decrypt

UPLOAD = "/v2/document"
PRODUCT = next(g for g, v in GLOSSARIES.items() if v.name == "Product terminology")  # en→de/fr/ja
LEGAL = next(g for g, v in GLOSSARIES.items() if v.name == "Legal terms")  # de→en, fr→en
ENGLISH_STYLE = next(s for s, (_, lang) in STYLE_RULE_LISTS.items() if lang == "en")
TEXT = "Hello world, ünïcödé text.\n"
TEXT_BYTES = TEXT.encode()


async def upload(client, data=None, files=None, name="notes.txt", content=TEXT_BYTES):
    parts = {"target_lang": "DE", **(data or {})}
    if files is None:
        files = {"file": (name, content, "application/octet-stream")}
    return await client.post(UPLOAD, data=parts, files=files)


async def test_upload_returns_handle_and_stores_only_ciphertext(emulator_app, emulator_client):
    response = await upload(emulator_client)
    assert response.status_code == 200, response.text
    handle = response.json()
    assert set(handle) == {"document_id", "document_key"}
    assert re.fullmatch(r"[0-9A-F]{32}", handle["document_id"])
    assert re.fullmatch(r"[0-9A-F]{64}", handle["document_key"])
    store = emulator_app.state.emulator.store
    nonce, ciphertext = store.document(handle["document_id"])
    assert TEXT.encode() not in ciphertext
    assert handle["document_key"].encode() not in ciphertext
    assert (
        decrypt(nonce, ciphertext, handle["document_id"], handle["document_key"]) == TEXT.encode()
    )


async def test_each_upload_gets_its_own_key(emulator_client):
    first = (await upload(emulator_client)).json()
    second = (await upload(emulator_client)).json()
    assert first["document_id"] != second["document_id"]
    assert first["document_key"] != second["document_key"]


async def test_document_characters_are_booked(emulator_app, emulator_client):
    assert (await upload(emulator_client)).status_code == 200
    [row] = emulator_app.state.emulator.ledger(FIXED_TODAY, FIXED_TODAY)
    assert row.document_translation_characters == len(TEXT)
    assert row.text_translation_characters == 0


async def test_binary_formats_book_an_estimate(emulator_app, emulator_client):
    response = await upload(emulator_client, name="deck.pdf", content=b"%PDF" + bytes(4000))
    assert response.status_code == 200
    [row] = emulator_app.state.emulator.ledger(FIXED_TODAY, FIXED_TODAY)
    assert row.document_translation_characters == 4004 // 4


async def test_filename_part_names_the_file(emulator_client):
    files = {"file": ("blob", TEXT.encode(), "application/octet-stream")}
    ok = await upload(emulator_client, data={"filename": "page.html"}, files=files)
    assert ok.status_code == 200
    bad = await upload(emulator_client, files=files)
    assert bad.status_code == 400
    assert "not supported" in bad.json()["message"]


@pytest.mark.parametrize(
    ("data", "files", "fragment"),
    [
        ({"target_lang": ""}, None, "target_lang is missing"),
        ({"target_lang": "XX"}, None, "target_lang"),
        ({"source_lang": "PT-BR"}, None, "source_lang"),
        ({}, {"attachment": ("notes.txt", b"x", "text/plain")}, "file is missing"),
        ({}, {"file": ("notes.exe", b"MZ", "application/octet-stream")}, "not supported"),
        ({}, {"file": ("notes.txt", b"", "text/plain")}, "empty"),
        ({"output_format": "exe"}, None, "output_format"),
        ({"formality": "very"}, None, "formality"),
        ({"glossary_id": PRODUCT, "glossary_ids": LEGAL, "source_lang": "en"}, None, "combined"),
        ({"glossary_ids": PRODUCT}, None, "source_lang is required"),
        ({"glossary_id": PRODUCT}, None, "source_lang is required"),
        ({"glossary_ids": "nope", "source_lang": "en"}, None, "not found"),
        ({"glossary_ids": LEGAL, "source_lang": "en"}, None, "no dictionary"),
        ({"glossary_ids": ",".join([PRODUCT] * 6), "source_lang": "en"}, None, "more than 5"),
        ({"target_lang": "TH", "glossary_id": PRODUCT, "source_lang": "en"}, None, "not supported"),
        ({"style_id": "nope"}, None, "not found"),
        ({"style_id": ENGLISH_STYLE}, None, "not for target language"),
        ({"translation_memory_id": "not-a-uuid"}, None, "UUID"),
        ({"translation_memory_threshold": "101"}, None, "0 to 100"),
        ({"translation_memory_threshold": "-1"}, None, "0 to 100"),
        ({"translation_memory_threshold": "7.5"}, None, "0 to 100"),
        ({"enable_watermark": "yes"}, None, "enable_watermark"),
        ({"enable_beta_languages": "maybe"}, None, "enable_beta_languages"),
    ],
)
async def test_upload_rules_reject(emulator_client, data, files, fragment):
    response = await upload(emulator_client, data=data, files=files)
    assert response.status_code == 400, response.text
    assert fragment in response.json()["message"]


@pytest.mark.parametrize(
    "data",
    [
        {"source_lang": "en", "output_format": "docx"},
        {"formality": "more"},
        {"target_lang": "pt-br", "formality": "less"},
        {"target_lang": "EN-GB", "formality": "prefer_more"},
        {"target_lang": "FI", "formality": "prefer_less"},
        {"formality": "default", "target_lang": "FI"},
        {"glossary_id": PRODUCT, "source_lang": "EN"},
        {"glossary_ids": f"{PRODUCT}", "source_lang": "en", "target_lang": "fr"},
        {"glossary_ids": f"{LEGAL},{PRODUCT}", "source_lang": "de", "target_lang": "en-us"},
        {"style_id": ENGLISH_STYLE, "target_lang": "en-US"},
        {"translation_memory_id": "0b1c2d3e-4f50-4a6b-8c9d-0e1f2a3b4c5d"},
        {"translation_memory_threshold": "0"},
        {"translation_memory_threshold": "100"},
        {"enable_watermark": "1", "enable_beta_languages": "false"},
        {"enable_watermark": "TRUE", "enable_beta_languages": "0"},
    ],
)
async def test_upload_rules_accept(emulator_client, data):
    response = await upload(emulator_client, data=data)
    assert response.status_code == 200, response.text


async def test_formality_needs_a_supporting_target(emulator_client):
    response = await upload(emulator_client, data={"target_lang": "FI", "formality": "less"})
    assert response.status_code == 400
    assert "formality" in response.json()["message"]


async def test_repeated_glossary_ids_parts(emulator_client):
    response = await emulator_client.post(
        UPLOAD,
        data={"target_lang": "EN-US", "source_lang": "de", "glossary_ids": [LEGAL, PRODUCT]},
        files={"file": ("a.txt", b"Hallo", "text/plain")},
    )
    assert response.status_code == 200, response.text


async def test_file_as_plain_field_is_rejected(emulator_client):
    response = await emulator_client.post(
        UPLOAD,
        data={"target_lang": "DE", "file": "text"},
        files={"attachment": ("notes.txt", b"x", "text/plain")},
    )
    assert response.status_code == 400


async def test_non_multipart_is_415(emulator_client):
    response = await emulator_client.post(UPLOAD, json={"target_lang": "DE"})
    assert response.status_code == 415
    assert "multipart/form-data" in response.json()["message"]


async def test_oversized_upload_is_413(emulator_client):
    big = b"a" * (MAX_DOCUMENT_BYTES + 1)
    response = await upload(emulator_client, content=big)
    assert response.status_code == 413
    assert "10 MiB" in response.json()["message"]


async def test_limit_itself_is_accepted(emulator_client):
    response = await upload(emulator_client, content=b"a" * MAX_DOCUMENT_BYTES)
    assert response.status_code == 200
