"""The emulator's HTTP interface: one FastAPI app per organization, routes on the spec's paths."""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Query, Request, Security
from fastapi.security import APIKeyHeader
from starlette.responses import Response

from emulator import documents, orgfile, synthetic
from emulator.bodies import read_fields, texts_of
from emulator.config import EmulatorConfig
from emulator.detection import detect
from emulator.errors import (
    ServiceError,
    TraceIdMiddleware,
    bad_request,
    install_error_handlers,
    json_response,
)
from emulator.faults import FaultMiddleware, Faults
from emulator.languages_data import RESOURCES, language_entries, v2_languages
from emulator.org import KeySpec, LedgerRow, Organization, PairLedgerRow, TagLedgerRow
from emulator.plan import Plan, usage_body
from emulator.schemas import (
    DETECT_BODY,
    DOCUMENT_BODY,
    TRANSLATE_BODY,
    AdminUsageReport,
    CustomTagUsageReport,
    DetectionResponse,
    DocumentHandle,
    LanguageEntry,
    LanguagePairUsageReport,
    TranslationResponse,
    UsageResponse,
    V2Language,
    errors,
)
from emulator.store import Store, StoredKey
from emulator.translation import translate
from emulator.usage_report import (
    AGGREGATIONS,
    GROUPINGS,
    PAIR_GROUPINGS,
    build_pair_report,
    build_report,
    build_tag_report,
)

API_VERSION = "3.12.0"
INSTANT_DOC = "YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS, UTC"
INSTANT_SCHEMA = {
    "pattern": r"^[1-9]\d{3}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])"
    r"(T([01]\d|2[0-3]):[0-5]\d:[0-5]\d)?$"
}
BOOLEAN_SCHEMA = {"enum": ["true", "false"]}
PAGE_DOC = "Page number from 1 (absent: 1); the next_page of the previous answer"
AUTH_FAILED = "Authorization failed: supply a valid key in the Authorization header."


class Emulator:
    """One organization served over HTTP: its ledger, keys and live fault settings."""

    def __init__(self, config: EmulatorConfig) -> None:
        self.config = config
        self.faults = Faults(
            latency_ms=config.latency_ms,
            fault_429_rate=config.fault_429_rate,
            fault_503_rate=config.fault_503_rate,
            retry_after_s=config.retry_after_s,
            seed=config.seed,
        )
        org, fingerprint = _organization(config)
        self.keys: list[KeySpec] = org.keys
        self.admin_key: str | None = org.admin_key
        self.plan: Plan = org.plan
        if config.page_size < 1:
            raise ValueError("page_size must be at least 1")
        self.page_size = config.page_size
        self.synthetic = config.org_file is None
        self.store = Store(config.db)
        self.store.ensure(fingerprint, org)

    def today(self) -> dt.date:
        """The day translations and uploads book usage on (pinned by `EmulatorConfig.today`)."""
        return self.config.current_day()

    def ledger(self, start: dt.date, end: dt.date) -> list[LedgerRow]:
        """Stored key-days of the inclusive UTC day range, sorted by (usage_date, api_key)."""
        return self.store.ledger(start, end)

    def usage_and_limits(self, key: StoredKey) -> dict[str, object]:
        """The `GET /v2/usage` body: the billing period holding today, up to and with today."""
        today = self.today()
        period = self.plan.period(today)
        first, stop = period[0], today + dt.timedelta(days=1)
        account, own = self.store.total(first, stop), self.store.total(first, stop, key.key_id)
        return usage_body(self.plan, period, account, own)

    def tag_ledger(self, start: dt.date, end: dt.date) -> list[TagLedgerRow]:
        """Tagged characters per key-day and tag of the inclusive UTC day range, sorted by
        (usage_date, api_key, custom_tag); the custom-tag report sums these."""
        return self.store.tag_ledger(start, end)

    def pair_ledger(self, start: dt.date, end: dt.date) -> list[PairLedgerRow]:
        """Usage per key-day and language pair of the inclusive UTC day range, sorted by
        (usage_date, api_key, source, target, attributed); the language-pair report sums
        these, with unattributed rows under key '-'."""
        return self.store.pair_ledger(start, end)

    def authenticate(self, authorization: str | None) -> StoredKey:
        """The calling key, or 403 when the header is missing, malformed or unknown."""
        scheme, _, key = (authorization or "").strip().partition(" ")
        found = None
        if scheme.lower() == self.config.auth_scheme.lower() and key.strip():
            found = self.store.find_key(key.strip())
        if found is None:
            raise ServiceError(403, AUTH_FAILED, "authorization_failed")
        return found


def _organization(config: EmulatorConfig) -> tuple[Organization, str]:
    """The organization and a fingerprint telling whether a database file already holds it."""
    if config.org_file is not None:
        path = Path(config.org_file)
        org = orgfile.load(path)
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        return org, f"file:{digest}"
    today = config.current_day()
    org = synthetic.generate(config.seed, config.keys, config.days, today)
    return org, f"synthetic:{config.seed}:{config.keys}:{config.days}:{today}"


AUTH_HEADER = APIKeyHeader(
    name="Authorization",
    auto_error=False,
    description="`Service-Auth-Key <API_KEY>`",
)


def caller(request: Request, authorization: str | None = Security(AUTH_HEADER)) -> StoredKey:
    """Every operation's dependency: the spec answers 403 before looking at anything else."""
    emulator: Emulator = request.app.state.emulator
    return emulator.authenticate(authorization)


Caller = Annotated[StoredKey, Depends(caller)]


def admin(key: Caller) -> StoredKey:
    """The analytics operations belong to the administrator API."""
    if not key.admin:
        raise ServiceError(
            403, "Forbidden: usage analytics need an administrator key.", "admin_required"
        )
    return key


def _page_schema(schema: dict[str, Any]) -> None:
    """Declare `page` as the integer it is; the handler reads the text itself (see Page)."""
    schema.clear()
    schema.update(type="integer", minimum=1, maximum=999_999_999)


Admin = Annotated[StoredKey, Depends(admin)]
StartDate = Annotated[str, Query(description=INSTANT_DOC, json_schema_extra=INSTANT_SCHEMA)]
EndDate = Annotated[str, Query(description=INSTANT_DOC, json_schema_extra=INSTANT_SCHEMA)]
PageNumber = Annotated[str | None, Query(description=PAGE_DOC, json_schema_extra=_page_schema)]


def _flag(name: str, value: str | None) -> bool | None:
    """A language-list filter: absent means no filtering, so None is kept apart from False."""
    if value is None:
        return None
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise bad_request(f"Bad request. Parameter {name} must be 'true' or 'false'.")


def create_app(config: EmulatorConfig | None = None) -> FastAPI:
    """The ASGI app; usable in-process (httpx.ASGITransport) from any thread or event loop."""
    emulator = Emulator(config or EmulatorConfig())
    app = FastAPI(
        title="Language Service (local emulator)",
        version=API_VERSION,
        description="Spec-faithful emulator of the Language Service API; see emulator/README.md.",
        redoc_url=None,
    )
    app.state.emulator = emulator
    install_error_handlers(app)
    app.add_middleware(FaultMiddleware, faults=emulator.faults)
    app.add_middleware(TraceIdMiddleware)

    @app.get("/healthz", tags=["emulator"], summary="Readiness probe (no authentication)")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get(
        "/v2/admin/analytics",
        tags=["administrator API"],
        summary="Get usage analytics",
        response_model=AdminUsageReport,
        responses=errors(400),
    )
    def analytics(
        _: Admin,
        start_date: StartDate,
        end_date: EndDate,
        group_by: Annotated[str, Query(json_schema_extra={"enum": list(GROUPINGS)})] = "",
    ) -> Response:
        return json_response(build_report(emulator.store, start_date, end_date, group_by))

    @app.get(
        "/v2/admin/analytics/custom-tags",
        tags=["administrator API"],
        summary="Get usage per custom tag",
        response_model=CustomTagUsageReport,
        responses=errors(400),
    )
    def custom_tags(
        _: Admin,
        start_date: StartDate,
        end_date: EndDate,
        aggregate_by: Annotated[str, Query(json_schema_extra={"enum": list(AGGREGATIONS)})] = "",
        page: PageNumber = None,
    ) -> Response:
        return json_response(
            build_tag_report(
                emulator.store, start_date, end_date, aggregate_by, page, emulator.page_size
            )
        )

    @app.get(
        "/v2/admin/analytics/language-pairs",
        tags=["administrator API"],
        summary="Get usage per language pair",
        response_model=LanguagePairUsageReport,
        responses=errors(400),
    )
    def language_pairs(
        _: Admin,
        start_date: StartDate,
        end_date: EndDate,
        group_by: Annotated[str, Query(json_schema_extra={"enum": list(PAIR_GROUPINGS)})] = "",
        aggregate_by: Annotated[str, Query(json_schema_extra={"enum": list(AGGREGATIONS)})] = "",
        page: PageNumber = None,
    ) -> Response:
        return json_response(
            build_pair_report(
                emulator.store,
                start_date,
                end_date,
                group_by,
                aggregate_by,
                page,
                emulator.page_size,
            )
        )

    @app.get(
        "/v2/usage",
        tags=["usage and limits"],
        summary="Usage and limits of the current billing period",
        response_model=UsageResponse,
        responses=errors(),
    )
    def usage(key: Caller) -> Response:
        return json_response(emulator.usage_and_limits(key))

    @app.post(
        "/v3/detect/language",
        tags=["language detection (beta)"],
        summary="Detect the language of each text",
        response_model=DetectionResponse,
        responses=errors(400, 413, 415),
        openapi_extra=DETECT_BODY,
    )
    async def detect_language(request: Request, key: Caller) -> Response:
        if not key.detect_beta:
            raise ServiceError(403, "Forbidden", "feature_not_enabled")
        texts = texts_of(await read_fields(request))
        return json_response({"results": [detect(text).as_result() for text in texts]})

    @app.post(
        "/v2/translate",
        tags=["text translation"],
        summary="Translate text (pseudo-translation)",
        response_model=TranslationResponse,
        responses=errors(400, 413, 415),
        openapi_extra=TRANSLATE_BODY,
    )
    async def translate_text(request: Request, key: Caller) -> Response:
        fields = await read_fields(request)
        texts = texts_of(fields)
        translations = translate(fields, texts)
        characters = sum(len(text) for text in texts)
        emulator.store.record_usage(key, emulator.today(), text=characters)
        return json_response({"translations": translations})

    @app.post(
        "/v2/document",
        tags=["document translation"],
        summary="Upload a document for translation",
        response_model=DocumentHandle,
        responses=errors(400, 413, 415),
        openapi_extra=DOCUMENT_BODY,
    )
    async def upload_document(request: Request, key: Caller) -> Response:
        handle = await documents.accept_upload(request, emulator.store, key, emulator.today())
        return json_response(handle)

    @app.get(
        "/v3/languages",
        tags=["language lists"],
        summary="List the languages of one resource",
        response_model=list[LanguageEntry],
        responses=errors(400, 405),
    )
    def languages_v3(
        _: Caller,
        resource: Annotated[str, Query(json_schema_extra={"enum": list(RESOURCES)})],
        usable_as_source: Annotated[str | None, Query(json_schema_extra=BOOLEAN_SCHEMA)] = None,
        usable_as_target: Annotated[str | None, Query(json_schema_extra=BOOLEAN_SCHEMA)] = None,
    ) -> Response:
        if resource not in RESOURCES:
            raise bad_request(
                f"Bad request. Value for resource not supported: {resource[:40]!r}. "
                f"Allowed values: {', '.join(RESOURCES)}."
            )
        wanted = {
            "usable_as_source": _flag("usable_as_source", usable_as_source),
            "usable_as_target": _flag("usable_as_target", usable_as_target),
        }
        entries = [
            entry
            for entry in language_entries(resource)
            if all(flag is None or entry[name] is flag for name, flag in wanted.items())
        ]
        return json_response(entries)

    def languages_v2(
        _: Caller,
        type: Annotated[str, Query(json_schema_extra={"enum": ["source", "target"]})] = "source",
    ) -> Response:
        if type not in ("source", "target"):
            raise bad_request("Bad request. Parameter type must be 'source' or 'target'.")
        return json_response(v2_languages(type))

    for method in ("GET", "POST"):
        app.add_api_route(
            "/v2/languages",
            languages_v2,
            methods=[method],
            operation_id=f"languages_v2_{method.lower()}",
            tags=["language lists"],
            summary="List source or target languages (v2)",
            response_model=list[V2Language],
            responses=errors(400),
        )
    return app
