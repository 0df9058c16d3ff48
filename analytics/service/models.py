"""Typed shapes of the service's responses (msgspec): unknown extra fields are ignored.

Row structs skip garbage-collector tracking (gc=False): they hold no cycles, and a three-year
report has tens of thousands of them.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any

import msgspec

# Usage is never negative, and characters must fit the frames' int64 columns.
Characters = Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)]
Minutes = Annotated[float, msgspec.Meta(ge=0, le=sys.float_info.max)]  # finite


class UsageBreakdown(msgspec.Struct, frozen=True, gc=False):
    total_characters: Characters
    text_translation_characters: Characters
    document_translation_characters: Characters
    text_improvement_characters: Characters
    speech_to_text_minutes: Minutes


class KeyUsage(msgspec.Struct, frozen=True, gc=False):
    api_key: str
    api_key_label: str
    usage: UsageBreakdown


class KeyAndDayUsage(msgspec.Struct, frozen=True, gc=False):
    api_key: str
    api_key_label: str
    usage: UsageBreakdown
    # `YYYY-MM-DDT00:00:00Z`; kept as text so frames can convert a whole column at once.
    usage_date: str


class UsageReport(msgspec.Struct, frozen=True):
    total_usage: UsageBreakdown
    start_date: str
    end_date: str
    group_by: str | None = None
    key_usages: list[KeyUsage] | None = None
    key_and_day_usages: list[KeyAndDayUsage] | None = None


class AdminUsageReport(msgspec.Struct, frozen=True):
    usage_report: UsageReport


class DetectionResult(msgspec.Struct, frozen=True):
    # One of success, insufficient_confidence, unsupported_language, no_language_detected;
    # kept as text so a new status from the beta does not break decoding.
    detection_status: str
    detected_language: str | None = None


class DetectionResponse(msgspec.Struct, frozen=True):
    results: list[DetectionResult]


class Translation(msgspec.Struct, frozen=True):
    detected_source_language: str
    text: str


class TranslationResponse(msgspec.Struct, frozen=True):
    translations: list[Translation]


class DocumentHandle(msgspec.Struct, frozen=True):
    document_id: str
    document_key: str

    def __repr__(self) -> str:
        # The document key decrypts the document: keep it out of logs.
        return f"DocumentHandle(document_id={self.document_id!r}, document_key='****')"


class LanguageEntry(msgspec.Struct, frozen=True):
    lang: str
    name: str
    status: str | None = None
    features: dict[str, Any] = msgspec.field(default_factory=dict)
    usable_as_source: bool = False
    usable_as_target: bool = False


class LanguageList(msgspec.Struct, frozen=True):
    """The v3 envelope is not specified: a bare array and `{"languages": [...]}` both decode."""

    languages: list[LanguageEntry]


class V2Language(msgspec.Struct, frozen=True):
    language: str
    name: str
    supports_formality: bool | None = None


class ErrorBody(msgspec.Struct, frozen=True):
    message: str | None = None
    code: str | None = None
