"""Document upload: every rule of the upload table, AES-GCM encryption on receipt, usage.

The emulator keeps only ciphertext and nonce; the per-document key goes back to the client
and is never stored. Glossaries and style rule lists come from a small fixed registry.
"""

from __future__ import annotations

import datetime as dt
import os
import uuid
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from starlette.requests import Request

from emulator.bodies import MULTIPART, BodyRule, Params, read_params
from emulator.errors import ServiceError, bad_request
from emulator.languages_data import base_code
from emulator.store import Store, StoredKey
from emulator.translation import resolve_source, resolve_target

MAX_DOCUMENT_BYTES = 10 * 1024 * 1024
MULTIPART_OVERHEAD = 64 * 1024
TOO_LARGE = f"Document too large: the limit is 10 MiB ({MAX_DOCUMENT_BYTES} bytes)."
# The request may carry the file plus its multipart framing and the other parts.
UPLOAD_BODY = BodyRule(
    media_types=(MULTIPART,),
    max_bytes=MAX_DOCUMENT_BYTES + MULTIPART_OVERHEAD,
    too_large=TOO_LARGE,
    too_large_code="document_too_large",
)
EXTENSIONS = [
    "docx",
    "pptx",
    "xlsx",
    "pdf",
    "htm",
    "html",
    "txt",
    "xlf",
    "xliff",
    "srt",
    "idml",
    "xml",
    "json",
    "dita",
    "mif",
    "jpeg",
    "jpg",
    "png",
]
TEXT_FORMATS = frozenset(
    ["htm", "html", "txt", "xlf", "xliff", "srt", "xml", "json", "dita", "mif"]
)
BINARY_BYTES_PER_CHARACTER = 4  # estimate for zipped, binary and image formats
FORMALITIES = ("default", "more", "less", "prefer_more", "prefer_less")
MAX_GLOSSARIES = 5
RESOURCE = "translate_document"


@dataclass(frozen=True)
class Glossary:
    name: str
    dictionaries: frozenset[tuple[str, str]]  # (source, target) base codes


GLOSSARIES = {
    "3f1b6c2e-6b1a-4c55-9a0e-1d2f3a4b5c6d": Glossary(
        "Product terminology", frozenset({("en", "de"), ("en", "fr"), ("en", "ja"), ("de", "en")})
    ),
    "8a7d4e21-2c3b-4f6a-8e9d-0b1c2d3e4f50": Glossary(
        "Legal terms", frozenset({("de", "en"), ("fr", "en")})
    ),
    "c0ffee00-1234-4abc-8def-001122334455": Glossary(
        "Marketing claims", frozenset({("en", "es"), ("en", "it"), ("en", "pt")})
    ),
}
STYLE_RULE_LISTS = {
    "5b6c7d8e-9f01-4a23-b456-789abcdef012": ("House style (English)", "en"),
    "6c7d8e9f-0123-4b45-a678-9abcdef01234": ("Hausstil (Deutsch)", "de"),
}


async def accept_upload(
    request: Request, store: Store, key: StoredKey, today: dt.date
) -> dict[str, str]:
    """Validate, encrypt and store one upload; book its characters on `today`."""
    params = await read_params(request, UPLOAD_BODY)
    upload = params.file("file")
    content = upload.content
    if len(content) > MAX_DOCUMENT_BYTES:
        raise ServiceError(413, TOO_LARGE, "document_too_large")
    if not content:
        raise bad_request("Bad request. The uploaded file is empty.")
    filename = params.text("filename") or upload.filename or ""
    extension = filename.rsplit(".", 1)[-1].lower() if "." in filename else ""
    if not filename:
        raise bad_request(
            "Bad request. File name missing: give it in the file part's content disposition "
            "or in the filename parameter."
        )
    if extension not in EXTENSIONS:
        raise bad_request(
            f"Bad request. File extension {extension or '(none)'!r} is not supported. "
            f"Supported: {', '.join(EXTENSIONS)}."
        )
    target = resolve_target(RESOURCE, params.text("target_lang"))
    source = resolve_source(RESOURCE, params.text("source_lang"))
    output_format = (params.text("output_format") or extension).lower().lstrip(".")
    if output_format not in EXTENSIONS:
        raise bad_request(
            f"Bad request. Value for output_format not supported: {output_format[:20]!r}. "
            f"Supported: {', '.join(EXTENSIONS)}."
        )
    _check_formality(params.text("formality"), target)
    _check_glossaries(params, source, target)
    _check_style(params.text("style_id"), target)
    _check_memory(params)
    for name in ("enable_watermark", "enable_beta_languages"):
        params.flag(name)

    document_id = uuid.uuid4().hex.upper()
    document_key = AESGCM.generate_key(bit_length=256)
    nonce = os.urandom(12)
    ciphertext = AESGCM(document_key).encrypt(nonce, content, document_id.encode())
    characters = _characters(content, extension)
    store.save_document(
        document_id,
        key,
        filename=filename,
        source_lang=source["lang"] if source else None,
        target_lang=target["lang"],
        output_format=output_format,
        characters=characters,
        nonce=nonce,
        ciphertext=ciphertext,
    )
    store.record_usage(key, today, document=characters)
    return {"document_id": document_id, "document_key": document_key.hex().upper()}


def decrypt(nonce: bytes, ciphertext: bytes, document_id: str, document_key: str) -> bytes:
    """The original upload, given the key only the client holds."""
    return AESGCM(bytes.fromhex(document_key)).decrypt(nonce, ciphertext, document_id.encode())


def _check_formality(formality: str | None, target: dict[str, Any]) -> None:
    if formality is None:
        return
    if formality not in FORMALITIES:
        raise bad_request(
            f"Bad request. Value for formality not supported. Allowed: {', '.join(FORMALITIES)}."
        )
    if formality in ("more", "less") and "formality" not in target["features"]:
        raise bad_request(
            f"Bad request. Target language {target['lang']} does not support formality; "
            "use prefer_more or prefer_less to fall back to the default."
        )


def _glossary_ids(params: Params) -> list[str]:
    """`glossary_id`, or `glossary_ids` comma-separated and/or repeated."""
    single = params.text("glossary_id")
    many = [
        part.strip()
        for value in params.texts("glossary_ids")
        for part in value.split(",")
        if part.strip()
    ]
    if single and many:
        raise bad_request("Bad request. glossary_id cannot be combined with glossary_ids.")
    if len(many) > MAX_GLOSSARIES:
        raise bad_request(f"Bad request. glossary_ids holds more than {MAX_GLOSSARIES} glossaries.")
    return [single] if single else many


def _check_glossaries(
    params: Params, source: dict[str, Any] | None, target: dict[str, Any]
) -> None:
    ids = _glossary_ids(params)
    if not ids:
        return
    if source is None:
        raise bad_request("Bad request. source_lang is required when glossaries are used.")
    if "glossary" not in source["features"] or "glossary" not in target["features"]:
        raise bad_request(
            f"Bad request. Glossaries are not supported for {source['lang']} to {target['lang']}."
        )
    pair = (base_code(source["lang"]), base_code(target["lang"]))
    for glossary_id in ids:
        glossary = GLOSSARIES.get(glossary_id)
        if glossary is None:
            raise bad_request(f"Bad request. Glossary {glossary_id[:40]!r} not found.")
        if pair not in glossary.dictionaries:
            raise bad_request(
                f"Bad request. Glossary {glossary_id} has no dictionary for {pair[0]} to {pair[1]}."
            )


def _check_style(style_id: str | None, target: dict[str, Any]) -> None:
    if style_id is None:
        return
    style = STYLE_RULE_LISTS.get(style_id)
    if style is None:
        raise bad_request(f"Bad request. Style rule list {style_id[:40]!r} not found.")
    if style[1] != base_code(target["lang"]):
        raise bad_request(
            f"Bad request. Style rule list {style_id} is for {style[1]}, "
            f"not for target language {target['lang']}."
        )


def _check_memory(params: Params) -> None:
    memory_id = params.text("translation_memory_id")
    if memory_id is not None:
        try:
            uuid.UUID(memory_id)
        except ValueError:
            raise bad_request("Bad request. translation_memory_id must be a UUID.") from None
    threshold = params.text("translation_memory_threshold")
    if threshold is not None and not (threshold.isdigit() and 0 <= int(threshold) <= 100):
        raise bad_request(
            "Bad request. translation_memory_threshold must be an integer from 0 to 100."
        )


def _characters(content: bytes, extension: str) -> int:
    """Decoded characters for text formats; a size-based estimate for the others."""
    if extension in TEXT_FORMATS:
        return len(content.decode("utf-8", errors="replace"))
    return max(1, len(content) // BINARY_BYTES_PER_CHARACTER)
