"""Document translation: the upload, which meters the document's characters."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from emulator import documents
from emulator.errors import json_response
from emulator.routers.dependencies import Metered, Served
from emulator.schemas import DOCUMENT_PARAMETERS, DocumentHandle, errors

router = APIRouter(tags=["document translation"])


@router.post(
    "/v2/document",
    summary="Upload a document for translation",
    response_model=DocumentHandle,
    responses=errors(400, 413, 415),
    openapi_extra=DOCUMENT_PARAMETERS,
)
async def upload_document(request: Request, emulator: Served, key: Metered) -> Response:
    handle = await documents.accept_upload(request, emulator.store, key, emulator.today())
    return json_response(handle)
