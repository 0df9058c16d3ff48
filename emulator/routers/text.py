"""Text translation (a pseudo-translation that meters characters) and language detection."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from emulator.bodies import TRANSLATE_BODIES, read_params, texts_of
from emulator.detection import detect
from emulator.errors import ServiceError, json_response
from emulator.routers.dependencies import Caller, Metered, Served
from emulator.schemas import (
    DETECT_PARAMETERS,
    TRANSLATE_PARAMETERS,
    DetectionResponse,
    TranslationResponse,
    errors,
)
from emulator.translation import translate

router = APIRouter(responses=errors(400, 413, 415))


@router.post(
    "/v3/detect/language",
    tags=["language detection (beta)"],
    summary="Detect the language of each text",
    response_model=DetectionResponse,
    openapi_extra=DETECT_PARAMETERS,
)
async def detect_language(request: Request, key: Caller) -> Response:
    if not key.detect_beta:
        raise ServiceError(403, "Forbidden", "feature_not_enabled")
    texts = texts_of(await read_params(request))
    return json_response({"results": [detect(text).as_result() for text in texts]})


@router.post(
    "/v2/translate",
    tags=["text translation"],
    summary="Translate text (pseudo-translation)",
    response_model=TranslationResponse,
    openapi_extra=TRANSLATE_PARAMETERS,
)
async def translate_text(request: Request, emulator: Served, key: Metered) -> Response:
    params = await read_params(request, TRANSLATE_BODIES)
    texts = texts_of(params)
    translations = translate(params, texts)
    characters = sum(len(text) for text in texts)
    emulator.store.record_usage(key, emulator.today(), text=characters)
    return json_response({"translations": translations})
