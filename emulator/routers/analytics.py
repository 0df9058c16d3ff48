"""The administrator API's usage analytics: per key and day, per custom tag, per language pair."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from emulator.bodies import Params, read_params, required
from emulator.errors import json_response
from emulator.routers.dependencies import AnalyticsAdmin, Served
from emulator.schemas import (
    ANALYTICS_PARAMETERS,
    CUSTOM_TAGS_PARAMETERS,
    LANGUAGE_PAIRS_PARAMETERS,
    AdminUsageReport,
    CustomTagUsageReport,
    LanguagePairUsageReport,
    errors,
)
from emulator.served import Emulator
from emulator.usage_report import PagedQuery, build_pair_report, build_report, build_tag_report

router = APIRouter(tags=["administrator API"], responses=errors(400, 413, 415))


def _paged(params: Params, emulator: Emulator, group_by: str | None) -> PagedQuery:
    """The paged reports' query; `group_by` None for the report that has no grouping."""
    return PagedQuery.parse(
        required(params, "start_date"),
        required(params, "end_date"),
        group_by,
        params.text("aggregate_by") or "",
        params.integer("page"),
        emulator.page_size,
        emulator.config.end_date_reading,
    )


@router.get(
    "/v2/admin/analytics",
    summary="Get usage analytics",
    response_model=AdminUsageReport,
    openapi_extra=ANALYTICS_PARAMETERS,
)
async def analytics(request: Request, emulator: Served, _: AnalyticsAdmin) -> Response:
    params = await read_params(request)
    report = build_report(
        emulator.store,
        required(params, "start_date"),
        required(params, "end_date"),
        params.text("group_by") or "",
        end_date_reading=emulator.config.end_date_reading,
        speech_unit=emulator.config.speech_to_text_unit,
    )
    return json_response(report)


@router.get(
    "/v2/admin/analytics/custom-tags",
    summary="Get usage per custom tag",
    response_model=CustomTagUsageReport,
    openapi_extra=CUSTOM_TAGS_PARAMETERS,
)
async def custom_tags(request: Request, emulator: Served, _: AnalyticsAdmin) -> Response:
    query = _paged(await read_params(request), emulator, None)
    return json_response(build_tag_report(emulator.store, query))


@router.get(
    "/v2/admin/analytics/language-pairs",
    summary="Get usage per language pair",
    response_model=LanguagePairUsageReport,
    openapi_extra=LANGUAGE_PAIRS_PARAMETERS,
)
async def language_pairs(request: Request, emulator: Served, _: AnalyticsAdmin) -> Response:
    params = await read_params(request)
    query = _paged(params, emulator, params.text("group_by") or "")
    speech_unit = emulator.config.speech_to_text_unit
    return json_response(build_pair_report(emulator.store, query, speech_unit))
