"""OpenAPI declarations: response models and the parameters the handlers read by hand.

Handlers encode answers with orjson, so these models only describe the interface. Every
operation reads its parameters through `bodies.read_params`, from the query string or a
body, and `parameters` declares them both ways from one set of property schemas.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from emulator.bodies import BOOLEANS, FORM, JSON, MAX_TEXTS, MULTIPART
from emulator.documents import FORMALITIES
from emulator.languages_data import INCLUDE_VALUES, RESOURCES, language_entries
from emulator.usage_report import AGGREGATIONS, GROUPINGS, PAIR_GROUPINGS


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


class UsageLimits(BaseModel):
    characters: int | None = Field(
        None, description="Characters per usage period (text, documents, improvement)"
    )
    speech_to_text_milliseconds: int | None = None


class ApiKey(BaseModel):
    key_id: str = Field(description="Two GUIDs joined by a colon; not the secret")
    label: str
    creation_time: str
    deactivated_time: str | None = None
    is_deactivated: bool
    usage_limits: UsageLimits


class CreatedApiKey(ApiKey):
    key: str = Field(description="The secret, given in this answer only")


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
    billed_characters: int | None = Field(
        None, description="Only when show_billed_characters is true"
    )


class TranslationResponse(BaseModel):
    translations: list[Translation]


class DocumentHandle(BaseModel):
    document_id: str
    document_key: str


Status = Literal["stable", "beta", "early_access"]


class FeatureStatus(BaseModel):
    status: Status


class LanguageEntry(BaseModel):
    lang: str
    name: str
    usable_as_source: bool
    usable_as_target: bool
    status: Status
    features: dict[str, FeatureStatus]


class ResourceFeature(BaseModel):
    name: str
    needs_source_support: bool | None = None
    needs_target_support: bool | None = None


class LanguageResource(BaseModel):
    name: str = Field(json_schema_extra={"enum": list(RESOURCES)})
    features: list[ResourceFeature]


class V2Language(BaseModel):
    language: str
    name: str
    supports_formality: bool | None = None


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """Response declarations for error statuses (429/503 come from fault injection)."""
    return {status: {"model": ErrorResponse} for status in (*statuses, 403, 429, 503)}


def parameters(
    properties: dict[str, dict[str, Any]],
    *,
    required: Sequence[str] = (),
    body_types: Sequence[str] = (JSON, FORM),
    body_required: bool = False,
) -> dict[str, Any]:
    """`openapi_extra` for an operation reading `properties` from the query string or a body.

    When the body is required it carries the required names and the query parameters are
    all optional; otherwise the query parameters carry them and the body is optional. File
    parts exist only in the body.
    """
    query = [
        {
            "name": name,
            "in": "query",
            "required": name in required and not body_required,
            "schema": schema,
            **({"style": "form", "explode": True} if schema.get("type") == "array" else {}),
        }
        for name, schema in properties.items()
        if schema.get("format") != "binary"
    ]
    body: dict[str, Any] = {"type": "object", "properties": properties}
    if body_required:
        body["required"] = list(required)
    content = {media_type: {"schema": body} for media_type in body_types}
    return {"parameters": query, "requestBody": {"required": body_required, "content": content}}


def _codes(resource: str, flag: str) -> dict[str, Any]:
    """Schema of a language parameter: the listed codes (input is case-insensitive)."""
    return {"type": "string", "enum": [e["lang"] for e in language_entries(resource) if e[flag]]}


TEXTS = {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": MAX_TEXTS}
FORM_BOOLEAN = {"type": "string", "enum": list(BOOLEANS)}
INSTANT = {
    "type": "string",
    "description": "YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS, UTC",
    "pattern": r"^[1-9]\d{3}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])"
    r"(T([01]\d|2[0-3]):[0-5]\d:[0-5]\d)?$",
}
FILTER = {"type": "string", "enum": ["true", "false"]}
PAGE = {
    "type": "integer",
    "minimum": 1,
    "maximum": 999_999_999,
    "description": "Page number from 1 (absent: 1); the next_page of the previous answer",
}

ANALYTICS_PARAMETERS = parameters(
    {
        "start_date": INSTANT,
        "end_date": INSTANT,
        "group_by": {"type": "string", "enum": list(GROUPINGS)},
    },
    required=["start_date", "end_date"],
)
CUSTOM_TAGS_PARAMETERS = parameters(
    {
        "start_date": INSTANT,
        "end_date": INSTANT,
        "aggregate_by": {"type": "string", "enum": list(AGGREGATIONS)},
        "page": PAGE,
    },
    required=["start_date", "end_date"],
)
LANGUAGE_PAIRS_PARAMETERS = parameters(
    {
        "start_date": INSTANT,
        "end_date": INSTANT,
        "group_by": {"type": "string", "enum": list(PAIR_GROUPINGS)},
        "aggregate_by": {"type": "string", "enum": list(AGGREGATIONS)},
        "page": PAGE,
    },
    required=["start_date", "end_date"],
)
DETECT_PARAMETERS = parameters({"text": TEXTS}, required=["text"], body_required=True)
TRANSLATE_PARAMETERS = parameters(
    {
        "text": TEXTS,
        "target_lang": _codes("translate_text", "usable_as_target"),
        "source_lang": _codes("translate_text", "usable_as_source"),
        "show_billed_characters": {"type": "boolean"},
    },
    required=["text", "target_lang"],
    body_required=True,
)
DOCUMENT_PARAMETERS = parameters(
    {
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
        "translation_memory_threshold": {"type": "integer", "minimum": 0, "maximum": 100},
        "enable_watermark": FORM_BOOLEAN,
        "enable_beta_languages": FORM_BOOLEAN,
    },
    required=["target_lang", "file"],
    body_types=[MULTIPART],
    body_required=True,
)
V3_LANGUAGES_PARAMETERS = parameters(
    {
        "resource": {"type": "string", "enum": list(RESOURCES)},
        "usable_as_source": FILTER,
        "usable_as_target": FILTER,
        "include": {"type": "array", "items": {"type": "string", "enum": list(INCLUDE_VALUES)}},
    },
    required=["resource"],
)
V2_LANGUAGES_PARAMETERS = parameters(
    {"type": {"type": "string", "enum": ["source", "target"], "default": "source"}}
)
