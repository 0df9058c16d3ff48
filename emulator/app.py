"""The emulator's HTTP interface: one FastAPI app per organization, routes on the spec's paths."""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path
from typing import Annotated

from fastapi import Depends, FastAPI, Request, Security
from fastapi.security import APIKeyHeader
from starlette.responses import Response

from emulator import documents, orgfile, synthetic
from emulator.bodies import TRANSLATE_BODIES, Params, read_params, required, texts_of
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
from emulator.languages_data import (
    INCLUDE_VALUES,
    RESOURCES,
    listed_entries,
    resource_list,
    v2_languages,
)
from emulator.org import (
    Injected,
    KeySpec,
    LedgerRow,
    Organization,
    PairLedgerRow,
    TagLedgerRow,
)
from emulator.plan import Plan, usage_body
from emulator.schemas import (
    ANALYTICS_PARAMETERS,
    CUSTOM_TAGS_PARAMETERS,
    DETECT_PARAMETERS,
    DOCUMENT_PARAMETERS,
    LANGUAGE_PAIRS_PARAMETERS,
    TRANSLATE_PARAMETERS,
    V2_LANGUAGES_PARAMETERS,
    V3_LANGUAGES_PARAMETERS,
    AdminUsageReport,
    CustomTagUsageReport,
    DetectionResponse,
    DocumentHandle,
    LanguageEntry,
    LanguagePairUsageReport,
    LanguageResource,
    TranslationResponse,
    UsageResponse,
    V2Language,
    errors,
)
from emulator.store import Store, StoredKey
from emulator.translation import translate
from emulator.usage_report import build_pair_report, build_report, build_tag_report

API_VERSION = "3.12.0"
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
        # The anomalies put into a synthetic organization: what detection should find.
        self.injected: list[Injected] = org.injected
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
    org = synthetic.generate(config.seed, config.keys, config.days, today, config.anomalies)
    # A clean organization keeps the name it had before anomalies were injected.
    kind = "synthetic+anomalies" if config.anomalies else "synthetic"
    return org, f"{kind}:{config.seed}:{config.keys}:{config.days}:{today}"


AUTH_HEADER = APIKeyHeader(
    name="Authorization",
    auto_error=False,
    description="`Service-Auth-Key <API_KEY>`",
)


async def caller(request: Request, authorization: str | None = Security(AUTH_HEADER)) -> StoredKey:
    """Every operation's dependency: the spec answers 403 before looking at anything else.

    Async like the operations, so the key look-up runs on the event loop rather than costing
    each request a trip through the thread pool."""
    emulator: Emulator = request.app.state.emulator
    return emulator.authenticate(authorization)


Caller = Annotated[StoredKey, Depends(caller)]


async def admin(key: Caller) -> StoredKey:
    """The analytics operations belong to the administrator API: 403 before any parameter."""
    if not key.admin:
        raise ServiceError(
            403, "Forbidden: usage analytics need an administrator key.", "admin_required"
        )
    return key


Admin = Annotated[StoredKey, Depends(admin)]


def _filter(params: Params, name: str) -> bool | None:
    """A language-list filter: absent means no filtering, so None is kept apart from False."""
    value = params.text(name)
    if value is None:
        return None
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise bad_request(f"Bad request. Parameter {name} must be 'true' or 'false'.")


def _includes_beta(params: Params) -> bool:
    """`include` is repeatable (empty values count as absent); only `beta` changes the list."""
    values = [value for value in params.texts("include") if value]
    unknown = [value for value in values if value not in INCLUDE_VALUES]
    if unknown:
        raise bad_request(
            f"Value for 'include' not supported: {unknown[0][:40]!r}. "
            f"Allowed: {', '.join(repr(value) for value in INCLUDE_VALUES)}."
        )
    return "beta" in values


def create_app(config: EmulatorConfig | None = None) -> FastAPI:
    """The ASGI app; usable in-process (httpx.ASGITransport) from any thread or event loop."""
    emulator = Emulator(config or EmulatorConfig())
    app = FastAPI(
        title="Language Service (local emulator)",
        version=API_VERSION,
        description=(
            "Spec-faithful emulator of the Language Service API; see emulator/README.md. "
            "Every operation takes its parameters from the query string or from the body."
        ),
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
        responses=errors(400, 413, 415),
        openapi_extra=ANALYTICS_PARAMETERS,
    )
    async def analytics(request: Request, _: Admin) -> Response:
        params = await read_params(request)
        report = build_report(
            emulator.store,
            required(params, "start_date"),
            required(params, "end_date"),
            params.text("group_by") or "",
            end_date_reading=emulator.config.end_date_reading,
        )
        return json_response(report)

    @app.get(
        "/v2/admin/analytics/custom-tags",
        tags=["administrator API"],
        summary="Get usage per custom tag",
        response_model=CustomTagUsageReport,
        responses=errors(400, 413, 415),
        openapi_extra=CUSTOM_TAGS_PARAMETERS,
    )
    async def custom_tags(request: Request, _: Admin) -> Response:
        params = await read_params(request)
        report = build_tag_report(
            emulator.store,
            required(params, "start_date"),
            required(params, "end_date"),
            params.text("aggregate_by") or "",
            params.integer("page"),
            emulator.page_size,
            end_date_reading=emulator.config.end_date_reading,
        )
        return json_response(report)

    @app.get(
        "/v2/admin/analytics/language-pairs",
        tags=["administrator API"],
        summary="Get usage per language pair",
        response_model=LanguagePairUsageReport,
        responses=errors(400, 413, 415),
        openapi_extra=LANGUAGE_PAIRS_PARAMETERS,
    )
    async def language_pairs(request: Request, _: Admin) -> Response:
        params = await read_params(request)
        report = build_pair_report(
            emulator.store,
            required(params, "start_date"),
            required(params, "end_date"),
            params.text("group_by") or "",
            params.text("aggregate_by") or "",
            params.integer("page"),
            emulator.page_size,
            end_date_reading=emulator.config.end_date_reading,
        )
        return json_response(report)

    @app.get(
        "/v2/usage",
        tags=["usage and limits"],
        summary="Usage and limits of the current billing period",
        response_model=UsageResponse,
        responses=errors(413, 415),
    )
    async def usage(request: Request, key: Caller) -> Response:
        await read_params(request)  # no parameters, but a body obeys the common rules
        return json_response(emulator.usage_and_limits(key))

    @app.post(
        "/v3/detect/language",
        tags=["language detection (beta)"],
        summary="Detect the language of each text",
        response_model=DetectionResponse,
        responses=errors(400, 413, 415),
        openapi_extra=DETECT_PARAMETERS,
    )
    async def detect_language(request: Request, key: Caller) -> Response:
        if not key.detect_beta:
            raise ServiceError(403, "Forbidden", "feature_not_enabled")
        texts = texts_of(await read_params(request))
        return json_response({"results": [detect(text).as_result() for text in texts]})

    @app.post(
        "/v2/translate",
        tags=["text translation"],
        summary="Translate text (pseudo-translation)",
        response_model=TranslationResponse,
        responses=errors(400, 413, 415),
        openapi_extra=TRANSLATE_PARAMETERS,
    )
    async def translate_text(request: Request, key: Caller) -> Response:
        params = await read_params(request, TRANSLATE_BODIES)
        texts = texts_of(params)
        translations = translate(params, texts)
        characters = sum(len(text) for text in texts)
        emulator.store.record_usage(key, emulator.today(), text=characters)
        return json_response({"translations": translations})

    @app.post(
        "/v2/document",
        tags=["document translation"],
        summary="Upload a document for translation",
        response_model=DocumentHandle,
        responses=errors(400, 413, 415),
        openapi_extra=DOCUMENT_PARAMETERS,
    )
    async def upload_document(request: Request, key: Caller) -> Response:
        handle = await documents.accept_upload(request, emulator.store, key, emulator.today())
        return json_response(handle)

    @app.get(
        "/v3/languages",
        tags=["language lists"],
        summary="List the languages of one resource",
        response_model=list[LanguageEntry],
        responses=errors(400, 405, 413, 415),
        openapi_extra=V3_LANGUAGES_PARAMETERS,
    )
    async def languages_v3(request: Request, _: Caller) -> Response:
        params = await read_params(request)
        resource = required(params, "resource")
        if resource not in RESOURCES:
            raise bad_request(
                f"Bad request. Value for resource not supported: {resource[:40]!r}. "
                f"Allowed values: {', '.join(RESOURCES)}."
            )
        wanted = {name: _filter(params, name) for name in ("usable_as_source", "usable_as_target")}
        entries = [
            entry
            for entry in listed_entries(resource, _includes_beta(params))
            if all(flag is None or entry[name] is flag for name, flag in wanted.items())
        ]
        return json_response(entries)

    @app.get(
        "/v3/languages/resources",
        tags=["language lists"],
        summary="List the resources and which side of a pair each feature needs",
        response_model=list[LanguageResource],
        responses=errors(405),
    )
    def language_resources(_: Caller) -> Response:
        return json_response(resource_list())

    async def languages_v2(request: Request, _: Caller) -> Response:
        kind = (await read_params(request)).text("type") or "source"
        if kind not in ("source", "target"):
            raise bad_request("Bad request. Parameter type must be 'source' or 'target'.")
        return json_response(v2_languages(kind))

    for method in ("GET", "POST"):
        app.add_api_route(
            "/v2/languages",
            languages_v2,
            methods=[method],
            operation_id=f"languages_v2_{method.lower()}",
            tags=["language lists"],
            summary="List source or target languages (v2)",
            response_model=list[V2Language],
            responses=errors(400, 413, 415),
            openapi_extra=V2_LANGUAGES_PARAMETERS,
        )
    return app
