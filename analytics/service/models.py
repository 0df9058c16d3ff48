"""Typed shapes of the service's responses (msgspec): unknown extra fields are ignored.

The published interface marks no field of the analytics answer as required, so an absent count
is 0, an absent label is empty and an absent usage object is all zeros; the structure itself (a
row's `api_key`, types of values) stays strict, and nothing else is invented. The usage-and-limits
answer (`PlanUsage`) follows the same rules, and an absent limit or paid-only field is None.

Row structs skip garbage-collector tracking (gc=False): they hold no cycles, and a three-year
report has tens of thousands of them. The analytics reports are generic in their row type:
their typed form (`AdminUsageReport[KeyAndDayUsage]`) decodes every row, and the form with
`msgspec.Raw` rows keeps each row's JSON for decoding a block of rows at a time
(`analytics.service.decoding`).
"""

from __future__ import annotations

import sys
from datetime import datetime
from typing import Annotated, Any, Generic, Literal, TypeVar

import msgspec

# Usage is never negative, and characters must fit the frames' int64 columns.
Characters = Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)]
Minutes = Annotated[float, msgspec.Meta(ge=0, le=sys.float_info.max)]  # finite
# Whole units of a plan's counts and limits: characters, or minutes the service rounded up.
Units = Characters


class UsageBreakdown(msgspec.Struct, frozen=True, gc=False):
    total_characters: Characters = 0
    text_translation_characters: Characters = 0
    document_translation_characters: Characters = 0
    text_improvement_characters: Characters = 0
    # The interface's first revision had no speech field: no minutes were reported then.
    speech_to_text_minutes: Minutes = 0.0
    speech_to_speech_minutes: Minutes = 0.0


NO_USAGE = UsageBreakdown()

# The row type of an analytics report: its row struct, or `msgspec.Raw` for the rows' JSON.
Row = TypeVar("Row")


class KeyUsage(msgspec.Struct, frozen=True, gc=False):
    api_key: str
    api_key_label: str = ""
    usage: UsageBreakdown = NO_USAGE


class KeyAndDayUsage(msgspec.Struct, frozen=True, gc=False):
    """A row of a key-and-day report; also the shape of `grouped_usage` rows, whose
    `usage_date` is absent when they are grouped by key only."""

    api_key: str
    api_key_label: str = ""
    usage: UsageBreakdown = NO_USAGE
    # `YYYY-MM-DDT00:00:00Z`; kept as text so frames can convert a whole column at once.
    usage_date: str | None = None


class UsageReport(msgspec.Struct, Generic[Row], frozen=True):
    # None when the service leaves it out: nothing to reconcile the rows with.
    total_usage: UsageBreakdown | None = None
    start_date: str = ""
    end_date: str = ""
    group_by: str | None = None
    key_usages: list[KeyUsage] | None = None
    key_and_day_usages: list[Row] | None = None
    # Where the interface's first revision put the rows of either grouping (`KeyAndDayUsage`).
    grouped_usage: list[Row] | None = None

    @property
    def day_rows(self) -> list[Row] | None:
        """The key-and-day rows, under either name."""
        if self.key_and_day_usages is not None:
            return self.key_and_day_usages
        return self.grouped_usage


class AdminUsageReport(msgspec.Struct, Generic[Row], frozen=True):
    usage_report: UsageReport[Row]


class ProductUsage(msgspec.Struct, frozen=True):
    """One product's units in the current billing period (a `products` entry)."""

    # Text, not a closed set, so that a product or unit added by the service still decodes.
    product_type: str
    billing_unit: str  # characters or minutes
    api_key_unit_count: Units = 0
    account_unit_count: Units = 0


class PlanUsage(msgspec.Struct, frozen=True):
    """Usage and limits of the current billing period (`GET /v2/usage`).

    A limit of None means the service reported none. Every field but the two character fields
    is sent to paid (Pro) plans only: None is "not reported". The deprecated millisecond counts
    (always 0) and per-product character counts (repeating the unit counts) are not read.
    """

    character_count: Units = 0
    character_limit: Units | None = None
    products: list[ProductUsage] | None = None
    api_key_character_count: Units | None = None
    api_key_character_limit: Units | None = None
    speech_to_text_minutes_count: Units | None = None
    speech_to_text_minutes_limit: Units | None = None
    speech_to_speech_minutes_count: Units | None = None
    speech_to_speech_minutes_limit: Units | None = None
    # The period's bounds; a time without an offset is read as UTC.
    start_time: datetime | None = None
    end_time: datetime | None = None


# --- developer keys (administrator API) --------------------------------------------------------


class UsageLimits(msgspec.Struct, frozen=True):
    """A developer key's limits per one-month usage period: characters across text,
    document and improvement, and speech-to-text milliseconds. None (or absent) is no limit;
    0 allows nothing."""

    characters: Characters | None = None
    speech_to_text_milliseconds: Characters | None = None


NO_LIMITS = UsageLimits()


class DeveloperKey(msgspec.Struct, frozen=True):
    """One developer key as the key list names it. `key_id` is not the secret and not the
    masked key analytics reports; `analytics.keys` joins the two. Times are UTC."""

    key_id: str
    label: str = ""
    creation_time: datetime | None = None
    deactivated_time: datetime | None = None
    is_deactivated: bool = False
    usage_limits: UsageLimits = NO_LIMITS


class CreatedKey(DeveloperKey, frozen=True):
    """The answer to creating a key: the key, and its secret in `key`, given this once."""

    key: str | None = None

    def __repr__(self) -> str:
        # The secret authorizes requests billed to the organization: never in a log.
        return f"CreatedKey(key_id={self.key_id!r}, label={self.label!r}, key='****')"

    @property
    def listed(self) -> DeveloperKey:
        """The key as the list shows it, without its secret."""
        return DeveloperKey(
            self.key_id,
            self.label,
            self.creation_time,
            self.deactivated_time,
            self.is_deactivated,
            self.usage_limits,
        )


# --- paged analytics reports -------------------------------------------------------------------

# Pages are numbered from 1; a next_page of 0 or below could only send a reader back.
PageNumber = Annotated[int, msgspec.Meta(ge=1)]


class PagedReport(msgspec.Struct, frozen=True):
    """What every paged analytics answer shares: the number of the page that follows, None
    (or absent) on the last page, and the range and aggregation it answers (kept as sent)."""

    next_page: PageNumber | None = None
    aggregate_by: str | None = None
    start_date: str = ""
    end_date: str = ""


class CustomTagUsage(msgspec.Struct, frozen=True, gc=False):
    custom_tag: str
    # Only text is tagged (translation and improvement): the breakdown's other counts are 0.
    breakdown: UsageBreakdown = NO_USAGE
    # Only when aggregated by day; `YYYY-MM-DDT00:00:00Z`, kept as text like KeyAndDayUsage's.
    usage_date: str | None = None


class CustomTagReport(PagedReport, Generic[Row], frozen=True):
    # `CustomTagUsage` rows; None when the service leaves them out: a page without its rows
    # is not an empty page.
    usage: list[Row] | None = None


class AdminCustomTagReport(msgspec.Struct, Generic[Row], frozen=True):
    custom_tag_usage_report: CustomTagReport[Row]


class LanguagePairUsage(msgspec.Struct, frozen=True, gc=False):
    """A row of the language-pair report: a source → target pair, with `group_by=key` its
    masked key (`-`, labelled `unknown`, for usage the service attributes to no key), by day
    its `usage_date` (`YYYY-MM-DDT00:00:00Z`, kept as text like KeyAndDayUsage's)."""

    source_language: str
    target_language: str
    api_key: str | None = None
    api_key_label: str = ""
    usage_date: str | None = None
    usage: UsageBreakdown = NO_USAGE


class LanguagePairReport(PagedReport, Generic[Row], frozen=True):
    group_by: list[str] | None = None
    # `LanguagePairUsage` rows; None when the service leaves them out: a page without its rows
    # is not an empty page.
    language_pair_usages: list[Row] | None = None


class AdminLanguagePairReport(msgspec.Struct, Generic[Row], frozen=True):
    language_pair_usage_report: LanguagePairReport[Row]


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


# The resources the language lists are published for (`GET /v3/languages?resource=`): the
# spec's five, and the style rule lists and translation memories of the published interface's
# later revision (3.12.0).
Resource = Literal[
    "translate_text",
    "translate_document",
    "glossary",
    "voice",
    "write",
    "style_rules",
    "translation_memory",
]


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


class ResourceFeature(msgspec.Struct, frozen=True):
    """A feature of a resource and which language(s) of a pair must carry its key for the
    pair to use it; an absent flag means that side need not."""

    name: str
    needs_source_support: bool = False
    needs_target_support: bool = False


class LanguageResource(msgspec.Struct, frozen=True):
    """One entry of `/v3/languages/resources`: a resource and its features."""

    name: str
    features: list[ResourceFeature]
