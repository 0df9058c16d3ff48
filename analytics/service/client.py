"""Every service operation, each once, in one async client; the sync face is generated from it.

An operation only says what it sends and how its answer is read: the transport (`transport`)
sends, retries and maps errors for all of them, and the sync bridge (`sync`) runs them for
callers without an event loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from enum import Enum
from typing import TYPE_CHECKING, Any, Concatenate, Generic, Literal, ParamSpec, Self, TypeVar

import httpx
import msgspec
from pydantic import SecretStr

from analytics.service.decoding import (
    Decoder,
    custom_tag_decoder,
    language_pair_decoder,
    usage_report_decoder,
)
from analytics.service.models import (
    CreatedKey,
    DetectionResponse,
    DetectionResult,
    DeveloperKey,
    DocumentHandle,
    KeyAndDayUsage,
    LanguageEntry,
    LanguageList,
    LanguageResource,
    PlanUsage,
    Translation,
    TranslationResponse,
    UsageReport,
    V2Language,
)
from analytics.service.sync import Blocking, blocking
from analytics.service.transport import (
    DEFAULT_POLICY,
    Policy,
    Request,
    Transport,
    decode,
    invalid_response,
)

if TYPE_CHECKING:
    from analytics.service.service_connection import ServiceConnection

# The clients, and what a caller makes one with or hands to an operation.
__all__ = [
    "DEFAULT_POLICY",
    "KEEP",
    "AsyncServiceClient",
    "Keep",
    "KeyChange",
    "Limit",
    "Policy",
    "ServiceClient",
]

T = TypeVar("T")
K = TypeVar("K", DeveloperKey, CreatedKey)
Body = TypeVar("Body")
P = ParamSpec("P")
# How the usage report groups its rows: per key, per key and day, or (None) not at all.
UsageReportGroupBy = Literal["key", "key_and_day"] | None
# How a paged analytics report sums its rows: over the whole range, or per day.
AggregateBy = Literal["period", "day"]
# The language-pair report's one grouping: by key (absent: every key's usage together).
PairReportGroupBy = Literal["key"]
Formality = Literal["default", "more", "less", "prefer_more", "prefer_less"]

DETECT_BATCH = 50
ANALYTICS_PATH = "/v2/admin/analytics"
PLAN_PATH = "/v2/usage"
CUSTOM_TAGS_PATH = f"{ANALYTICS_PATH}/custom-tags"
LANGUAGE_PAIRS_PATH = f"{ANALYTICS_PATH}/language-pairs"
KEYS_PATH = "/v2/admin/developer-keys"

_detection_decoder = msgspec.json.Decoder(DetectionResponse)
_translation_decoder = msgspec.json.Decoder(TranslationResponse)
_document_decoder = msgspec.json.Decoder(DocumentHandle)
_v3_languages_decoder = msgspec.json.Decoder(list[LanguageEntry] | LanguageList)
_v2_languages_decoder = msgspec.json.Decoder(list[V2Language])
_resources_decoder = msgspec.json.Decoder(list[LanguageResource])
_plan_decoder = msgspec.json.Decoder(PlanUsage)
_keys_decoder = msgspec.json.Decoder(list[DeveloperKey])
_key_decoder = msgspec.json.Decoder(DeveloperKey)
_created_decoder = msgspec.json.Decoder(CreatedKey)


class Keep(Enum):
    """A limit left as it is (None removes a limit)."""

    KEEP = "keep"


KEEP = Keep.KEEP
Limit = int | None | Keep


@dataclass(frozen=True)
class KeyChange(Generic[K]):
    """A key operation's answer: the key as it now is, and the trace id the service gave
    the request (for the audit log and for support)."""

    key: K
    trace_id: str


def _changed(decoder: Decoder[K], response: httpx.Response) -> KeyChange[K]:
    return KeyChange(decode(decoder, response), response.headers.get("X-Trace-ID", ""))


def _form_value(value: object) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def _texts(texts: str | Sequence[str]) -> list[str]:
    """A single string is one text, not a sequence of characters."""
    return [texts] if isinstance(texts, str) else list(texts)


def _typed(
    raw: Callable[Concatenate[AsyncServiceClient, P], Coroutine[Any, Any, httpx.Response]],
    decoder: Decoder[Body],
    report: Callable[[Body], T],
) -> Callable[Concatenate[AsyncServiceClient, P], Coroutine[Any, Any, T]]:
    """The typed form of a `<name>_raw` report method, named `<name>`: the same arguments,
    the answer decoded and its report taken out, so the two forms cannot drift apart."""

    async def call(self: AsyncServiceClient, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return report(decode(decoder, await raw(self, *args, **kwargs)))

    call.__name__ = raw.__name__.removesuffix("_raw")
    call.__qualname__ = raw.__qualname__.removesuffix("_raw")
    call.__doc__ = f"The decoded report of `{raw.__name__}`."
    return call


class AsyncServiceClient(Transport):
    """Every service operation over one connection pool (`Transport`).

    Safe requests (GETs and language detection) are retried on 429, 5xx, timeouts and network
    errors; translation and upload only when the service certainly did not process them (429 or
    a connection that was never established).
    """

    async def usage_report_raw(
        self, start: date, end: date, group_by: UsageReportGroupBy = "key_and_day"
    ) -> httpx.Response:
        """The undecoded analytics answer (its trace id names it in errors); `start` and `end`
        are sent as the start_date/end_date values."""
        params = {"start_date": start.isoformat(), "end_date": end.isoformat()}
        if group_by:
            params["group_by"] = group_by
        return await self.request("GET", ANALYTICS_PATH, idempotent=True, request=Request(params))

    async def usage_report(
        self, start: date, end: date, group_by: UsageReportGroupBy = None
    ) -> UsageReport[KeyAndDayUsage]:
        response = await self.usage_report_raw(start, end, group_by)
        return decode(usage_report_decoder, response).usage_report

    async def _analytics_page(
        self, path: str, start: date, end: date, page: int | None, **params: str
    ) -> httpx.Response:
        """One undecoded page of a paged analytics report (the first when `page` is None);
        `start` and `end` are sent as the start_date/end_date values. Retried like any GET."""
        query = {"start_date": start.isoformat(), "end_date": end.isoformat(), **params}
        if page is not None:
            query["page"] = str(page)
        return await self.request("GET", path, idempotent=True, request=Request(query))

    async def custom_tag_report_raw(
        self,
        start: date,
        end: date,
        aggregate_by: AggregateBy = "period",
        page: int | None = None,
    ) -> httpx.Response:
        """One undecoded page of characters per custom tag (and day); the service's default
        sums the whole range."""
        return await self._analytics_page(
            CUSTOM_TAGS_PATH, start, end, page, aggregate_by=aggregate_by
        )

    custom_tag_report = _typed(
        custom_tag_report_raw, custom_tag_decoder, lambda body: body.custom_tag_usage_report
    )

    async def language_pair_report_raw(
        self,
        start: date,
        end: date,
        aggregate_by: AggregateBy = "day",
        page: int | None = None,
        group_by: PairReportGroupBy | None = None,
    ) -> httpx.Response:
        """One undecoded page of usage per language pair (and day); by key, each pair's keys
        are known and unattributed usage stays apart under key `-`, in several times the
        rows."""
        grouping = {"group_by": group_by} if group_by else {}
        return await self._analytics_page(
            LANGUAGE_PAIRS_PATH, start, end, page, **grouping, aggregate_by=aggregate_by
        )

    language_pair_report = _typed(
        language_pair_report_raw,
        language_pair_decoder,
        lambda body: body.language_pair_usage_report,
    )

    async def detect(self, texts: str | Sequence[str]) -> list[DetectionResult]:
        """Language of each text, in input order; any number of texts (sent in batches of 50)."""
        items = _texts(texts)
        batches = [items[i : i + DETECT_BATCH] for i in range(0, len(items), DETECT_BATCH)]
        answers = await asyncio.gather(*(self._detect_batch(batch) for batch in batches))
        return [result for answer in answers for result in answer]

    async def _detect_batch(self, batch: list[str]) -> list[DetectionResult]:
        # Detection only reads, so it is retried like a GET.
        path = "/v3/detect/language"
        request = Request(json={"text": batch})
        response = await self.request("POST", path, idempotent=True, request=request)
        results = decode(_detection_decoder, response).results
        if len(results) != len(batch):
            raise invalid_response(response, f"{len(results)} results for {len(batch)} texts")
        return results

    async def translate(
        self, texts: str | Sequence[str], target_lang: str, source_lang: str | None = None
    ) -> list[Translation]:
        body: dict[str, object] = {"text": _texts(texts), "target_lang": target_lang}
        if source_lang:
            body["source_lang"] = source_lang
        request = Request(json=body)
        response = await self.request("POST", "/v2/translate", idempotent=False, request=request)
        return decode(_translation_decoder, response).translations

    async def upload_document(
        self,
        file_bytes: bytes,
        filename: str,
        target_lang: str,
        *,
        source_lang: str | None = None,
        output_format: str | None = None,
        formality: Formality | None = None,
        glossary_id: str | None = None,
        glossary_ids: Sequence[str] | None = None,
        style_id: str | None = None,
        translation_memory_id: str | None = None,
        translation_memory_threshold: int | None = None,
        enable_watermark: bool | None = None,
    ) -> DocumentHandle:
        """Upload a document (multipart) with the spec's optional parts; `glossary_ids` is
        sent as repeated parts."""
        options: dict[str, object] = {
            "source_lang": source_lang,
            "output_format": output_format,
            "formality": formality,
            "glossary_id": glossary_id,
            "style_id": style_id,
            "translation_memory_id": translation_memory_id,
            "translation_memory_threshold": translation_memory_threshold,
            "enable_watermark": enable_watermark,
        }
        data: dict[str, str | list[str]] = {"target_lang": target_lang}
        data |= {name: _form_value(v) for name, v in options.items() if v is not None}
        if glossary_ids is not None:
            data["glossary_ids"] = list(glossary_ids)
        request = Request(data=data, files={"file": (filename, file_bytes)})
        response = await self.request("POST", "/v2/document", idempotent=False, request=request)
        return decode(_document_decoder, response)

    async def languages(
        self,
        resource: str,
        usable_as_source: bool | None = None,
        usable_as_target: bool | None = None,
        *,
        include_beta: bool = False,
    ) -> list[LanguageEntry]:
        """The v3 list of one resource: stable languages and features only, unless
        `include_beta` also asks for those not yet stable (beta and early access)."""
        params = {"resource": resource}
        if include_beta:
            params["include"] = "beta"
        for name, flag in (
            ("usable_as_source", usable_as_source),
            ("usable_as_target", usable_as_target),
        ):
            if flag is not None:
                params[name] = _form_value(flag)
        response = await self.request(
            "GET", "/v3/languages", idempotent=True, request=Request(params)
        )
        answer = decode(_v3_languages_decoder, response)
        return answer.languages if isinstance(answer, LanguageList) else answer

    async def language_resources(self) -> list[LanguageResource]:
        """Each resource's features and which language of a pair must support each one."""
        path = "/v3/languages/resources"
        return decode(_resources_decoder, await self.request("GET", path, idempotent=True))

    async def languages_v2(self, type: Literal["source", "target"] = "source") -> list[V2Language]:
        request = Request({"type": type})
        response = await self.request("GET", "/v2/languages", idempotent=True, request=request)
        return decode(_v2_languages_decoder, response)

    async def usage(self) -> PlanUsage:
        """Usage and limits of the current billing period, counted up to now (today included)."""
        return decode(_plan_decoder, await self.request("GET", PLAN_PATH, idempotent=True))

    # -- developer keys (administrator API) -----------------------------------------------------

    async def developer_keys(self) -> list[DeveloperKey]:
        """Every developer key of the organization, active and deactivated."""
        return decode(_keys_decoder, await self.request("GET", KEYS_PATH, idempotent=True))

    async def create_developer_key(self, label: str | None = None) -> KeyChange[CreatedKey]:
        """A new key; its secret is in the answer's `key` only. Never resent after the request
        may have reached the service: a lost answer raises, and the caller must look at the
        list rather than create a second key."""
        request = Request(json={"label": label} if label else {})
        response = await self.request("POST", KEYS_PATH, idempotent=False, request=request)
        return _changed(_created_decoder, response)

    async def deactivate_developer_key(self, key_id: str) -> KeyChange[DeveloperKey]:
        """Deactivate a key, at once and for good (sending it twice changes nothing more)."""
        return await self._change_key("deactivate", {"key_id": key_id})

    async def rename_developer_key(self, key_id: str, label: str) -> KeyChange[DeveloperKey]:
        return await self._change_key("label", {"key_id": key_id, "label": label})

    async def set_developer_key_limits(
        self, key_id: str, characters: Limit = KEEP, speech_to_text_milliseconds: Limit = KEEP
    ) -> KeyChange[DeveloperKey]:
        """Set a key's limits per usage period: a number (0 allows nothing), None to remove
        the limit, KEEP to leave it as it is."""
        limits = {
            "characters": characters,
            "speech_to_text_milliseconds": speech_to_text_milliseconds,
        }
        body = {"key_id": key_id} | {n: v for n, v in limits.items() if v is not KEEP}
        return await self._change_key("limits", body)

    async def _change_key(self, what: str, body: Mapping[str, object]) -> KeyChange[DeveloperKey]:
        """A PUT that sets a key's state: sending it again sets the same, so it is retried."""
        request = Request(json=body)
        response = await self.request(
            "PUT", f"{KEYS_PATH}/{what}", idempotent=True, request=request
        )
        return _changed(_key_decoder, response)


class ServiceClient(Blocking[AsyncServiceClient]):
    """The sync face of AsyncServiceClient: every operation below is the async method run on
    the client's own event loop (`Blocking`), so the two faces cannot drift apart."""

    def __init__(
        self,
        base_url: str,
        auth_key: SecretStr,
        *,
        auth_scheme: str = "Service-Auth-Key",
        transport: httpx.AsyncBaseTransport | None = None,
        policy: Policy = DEFAULT_POLICY,
    ) -> None:
        super().__init__(
            AsyncServiceClient(
                base_url, auth_key, auth_scheme=auth_scheme, transport=transport, policy=policy
            )
        )

    @classmethod
    def from_connection(
        cls, connection: ServiceConnection, policy: Policy = DEFAULT_POLICY
    ) -> Self:
        if not (connection.is_configured and connection.auth_key and connection.base_url):
            raise ValueError("SERVICE_AUTH_KEY and SERVICE_BASE_URL must both be set")
        return cls(
            connection.base_url,
            connection.auth_key,
            auth_scheme=connection.auth_scheme,
            policy=policy,
        )

    def __repr__(self) -> str:
        return f"ServiceClient({self.async_client!r})"

    usage_report_raw = blocking(AsyncServiceClient.usage_report_raw)
    usage_report = blocking(AsyncServiceClient.usage_report)
    detect = blocking(AsyncServiceClient.detect)
    translate = blocking(AsyncServiceClient.translate)
    upload_document = blocking(AsyncServiceClient.upload_document)
    languages = blocking(AsyncServiceClient.languages)
    language_resources = blocking(AsyncServiceClient.language_resources)
    languages_v2 = blocking(AsyncServiceClient.languages_v2)
    usage = blocking(AsyncServiceClient.usage)
    developer_keys = blocking(AsyncServiceClient.developer_keys)
    create_developer_key = blocking(AsyncServiceClient.create_developer_key)
    deactivate_developer_key = blocking(AsyncServiceClient.deactivate_developer_key)
    rename_developer_key = blocking(AsyncServiceClient.rename_developer_key)
    set_developer_key_limits = blocking(AsyncServiceClient.set_developer_key_limits)
    custom_tag_report = blocking(AsyncServiceClient.custom_tag_report)
    language_pair_report = blocking(AsyncServiceClient.language_pair_report)
