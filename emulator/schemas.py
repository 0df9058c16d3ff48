"""OpenAPI declarations: response models and request bodies the handlers read by hand.

Handlers encode answers with orjson, so these models only describe the interface.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from emulator.bodies import MAX_TEXTS
from emulator.documents import BOOLEANS, FORMALITIES
from emulator.languages_data import language_entries


class ErrorResponse(BaseModel):
    message: str
    code: str | None = None


class UsageBreakdown(BaseModel):
    total_characters: int
    text_translation_characters: int
    document_translation_characters: int
    text_improvement_characters: int
    speech_to_text_minutes: float
    speech_to_speech_minutes: float = Field(
        description="Interpreted speech; counted neither as characters nor as speech-to-text"
    )


class KeyUsageItem(BaseModel):
    api_key: str = Field(description="Masked key, shape abcd****wxyz")
    api_key_label: str
    usage: UsageBreakdown


class KeyAndDayUsageItem(KeyUsageItem):
    usage_date: str = Field(description="YYYY-MM-DDT00:00:00Z")


class UsageReport(BaseModel):
    total_usage: UsageBreakdown
    start_date: str
    end_date: str
    group_by: Literal["key", "key_and_day"] | None = None
    key_usages: list[KeyUsageItem] | None = None
    key_and_day_usages: list[KeyAndDayUsageItem] | None = None


class AdminUsageReport(BaseModel):
    usage_report: UsageReport


class CustomTagBreakdown(BaseModel):
    total_characters: int
    text_translation_characters: int
    text_improvement_characters: int


class CustomTagUsageItem(BaseModel):
    custom_tag: str
    usage_date: str | None = Field(None, description="YYYY-MM-DDT00:00:00Z; aggregate_by=day")
    breakdown: CustomTagBreakdown


class CustomTagUsageReportData(BaseModel):
    aggregate_by: Literal["period", "day"]
    start_date: str
    end_date: str
    next_page: int | None = Field(description="The page to ask for next; null on the last page")
    usage: list[CustomTagUsageItem]


class CustomTagUsageReport(BaseModel):
    custom_tag_usage_report: CustomTagUsageReportData


class LanguagePairUsageItem(BaseModel):
    source_language: str
    target_language: str = Field(description="Equal to source_language for text improvement")
    api_key: str | None = Field(None, description="Masked key, or '-'; group_by=key only")
    api_key_label: str | None = Field(None, description="'unknown' for key '-'")
    usage_date: str | None = Field(None, description="YYYY-MM-DDT00:00:00Z; aggregate_by=day")
    usage: UsageBreakdown


class LanguagePairUsageReportData(BaseModel):
    group_by: list[Literal["key"]]
    aggregate_by: Literal["period", "day"]
    start_date: str
    end_date: str
    next_page: int | None = Field(description="The page to ask for next; null on the last page")
    language_pair_usages: list[LanguagePairUsageItem]


class LanguagePairUsageReport(BaseModel):
    language_pair_usage_report: LanguagePairUsageReportData


class ProductUsage(BaseModel):
    product_type: Literal["write", "translate", "speechToText", "speechToSpeech"]
    billing_unit: Literal["characters", "minutes"]
    api_key_unit_count: int
    account_unit_count: int
    api_key_character_count: int = Field(deprecated=True)
    character_count: int = Field(deprecated=True)


class UsageResponse(BaseModel):
    """Usage of the current billing period; the optional fields are absent on a free plan."""

    character_count: int
    character_limit: int
    products: list[ProductUsage] | None = None
    api_key_character_count: int | None = None
    api_key_character_limit: int | None = None
    speech_to_text_milliseconds_count: int | None = Field(None, deprecated=True)
    speech_to_text_milliseconds_limit: int | None = Field(None, deprecated=True)
    speech_to_text_minutes_count: int | None = None
    speech_to_text_minutes_limit: int | None = None
    speech_to_speech_minutes_count: int | None = None
    speech_to_speech_minutes_limit: int | None = None
    start_time: str | None = Field(None, description="YYYY-MM-DDT00:00:00Z")
    end_time: str | None = Field(None, description="YYYY-MM-DDT00:00:00Z")


class DetectionResult(BaseModel):
    detection_status: Literal[
        "success", "insufficient_confidence", "unsupported_language", "no_language_detected"
    ]
    detected_language: str | None = None


class DetectionResponse(BaseModel):
    results: list[DetectionResult]


class Translation(BaseModel):
    detected_source_language: str
    text: str


class TranslationResponse(BaseModel):
    translations: list[Translation]


class DocumentHandle(BaseModel):
    document_id: str
    document_key: str


class FeatureStatus(BaseModel):
    status: str


class LanguageEntry(BaseModel):
    lang: str
    name: str
    usable_as_source: bool
    usable_as_target: bool
    status: Literal["stable", "beta", "early_access"]
    features: dict[str, FeatureStatus]


class V2Language(BaseModel):
    language: str
    name: str
    supports_formality: bool | None = None


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """Response declarations for error statuses (429/503 come from fault injection)."""
    return {status: {"model": ErrorResponse} for status in (*statuses, 403, 429, 503)}


def _codes(resource: str, flag: str) -> dict[str, Any]:
    """Schema of a language parameter: the listed codes (input is case-insensitive)."""
    return {"type": "string", "enum": [e["lang"] for e in language_entries(resource) if e[flag]]}


def _text_body(extra: dict[str, Any]) -> dict[str, Any]:
    schema = {
        "type": "object",
        "required": ["text", *extra.get("required", [])],
        "properties": {
            "text": {
                "type": "array",
                "items": {"type": "string"},
                "minItems": 1,
                "maxItems": MAX_TEXTS,
            },
            **extra.get("properties", {}),
        },
    }
    return {
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {"schema": schema},
                "application/x-www-form-urlencoded": {"schema": schema},
            },
        }
    }


DETECT_BODY = _text_body({})
TRANSLATE_BODY = _text_body(
    {
        "required": ["target_lang"],
        "properties": {
            "target_lang": _codes("translate_text", "usable_as_target"),
            "source_lang": _codes("translate_text", "usable_as_source"),
        },
    }
)

FORM_BOOLEAN = {"type": "string", "enum": list(BOOLEANS)}
DOCUMENT_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["target_lang", "file"],
                    "properties": {
                        "target_lang": _codes("translate_document", "usable_as_target"),
                        "file": {"type": "string", "format": "binary"},
                        "source_lang": _codes("translate_document", "usable_as_source"),
                        "filename": {"type": "string"},
                        "output_format": {"type": "string"},
                        "formality": {"type": "string", "enum": list(FORMALITIES)},
                        "glossary_id": {"type": "string"},
                        "glossary_ids": {"type": "array", "items": {"type": "string"}},
                        "style_id": {"type": "string"},
                        "translation_memory_id": {"type": "string", "format": "uuid"},
                        "translation_memory_threshold": {
                            "type": "integer",
                            "minimum": 0,
                            "maximum": 100,
                        },
                        "enable_watermark": FORM_BOOLEAN,
                        "enable_beta_languages": FORM_BOOLEAN,
                    },
                }
            }
        },
    }
}
