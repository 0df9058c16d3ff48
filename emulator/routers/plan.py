"""Usage and limits of the current billing period (`GET /v2/usage`), for any key."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from emulator.bodies import read_params
from emulator.errors import json_response
from emulator.routers.dependencies import Caller, Served
from emulator.schemas import UsageResponse, errors

router = APIRouter(tags=["usage and limits"])


@router.get(
    "/v2/usage",
    summary="Usage and limits of the current billing period",
    response_model=UsageResponse,
    responses=errors(413, 415),
)
async def usage(request: Request, emulator: Served, key: Caller) -> Response:
    await read_params(request)  # no parameters, but a body obeys the common rules
    return json_response(emulator.usage_and_limits(key))
