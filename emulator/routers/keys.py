"""The administrator API's developer keys: list, create, deactivate, rename, set limits."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from emulator import developer_keys
from emulator.bodies import JSON, BodyRule, read_params, required
from emulator.errors import json_response
from emulator.routers.dependencies import KeysAdmin, Served
from emulator.schemas import ApiKey, CreatedApiKey, errors

router = APIRouter(
    prefix="/v2/admin/developer-keys",
    tags=["administrator API"],
    responses=errors(400, 404, 413, 415),
)
JSON_BODIES = BodyRule(media_types=(JSON,))


@router.get("", summary="Every developer key of the organization", response_model=list[ApiKey])
async def list_keys(emulator: Served, _: KeysAdmin) -> Response:
    return json_response([developer_keys.key_body(row) for row in emulator.store.developer_keys()])


@router.post("", summary="Create a developer key", response_model=CreatedApiKey)
async def create_key(request: Request, emulator: Served, _: KeysAdmin) -> Response:
    params = await read_params(request, JSON_BODIES)
    label = params.text("label")
    return json_response(
        developer_keys.create(emulator.store, label, emulator.plan.pro, emulator.now())
    )


@router.put("/deactivate", summary="Deactivate a developer key, permanently", response_model=ApiKey)
async def deactivate_key(request: Request, emulator: Served, _: KeysAdmin) -> Response:
    params = await read_params(request, JSON_BODIES)
    key_id = required(params, "key_id")
    return json_response(developer_keys.deactivate(emulator.store, key_id, emulator.now()))


@router.put("/label", summary="Rename a developer key", response_model=ApiKey)
async def rename_key(request: Request, emulator: Served, _: KeysAdmin) -> Response:
    params = await read_params(request, JSON_BODIES)
    key_id, label = required(params, "key_id"), required(params, "label")
    return json_response(developer_keys.rename(emulator.store, key_id, label))


@router.put(
    "/limits", summary="Set or remove a developer key's usage limits", response_model=ApiKey
)
async def set_limits(request: Request, emulator: Served, _: KeysAdmin) -> Response:
    params = await read_params(request, JSON_BODIES)
    key_id = required(params, "key_id")
    limits = {
        name: developer_keys.limit_value(params.body, name)
        for name in developer_keys.LIMIT_FIELDS
        if name in params.body
    }
    return json_response(developer_keys.set_limits(emulator.store, key_id, limits))
