"""The language lists: v3 per resource, the resources themselves, and the v2 lists."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from emulator.bodies import Params, read_params, required
from emulator.errors import bad_request, json_response
from emulator.languages_data import (
    INCLUDE_VALUES,
    RESOURCES,
    listed_entries,
    resource_list,
    v2_languages,
)
from emulator.routers.dependencies import Caller
from emulator.schemas import (
    V2_LANGUAGES_PARAMETERS,
    V3_LANGUAGES_PARAMETERS,
    LanguageEntry,
    LanguageResource,
    V2Language,
    errors,
)

router = APIRouter(tags=["language lists"])


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


@router.get(
    "/v3/languages",
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


@router.get(
    "/v3/languages/resources",
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


# One route per method, so that each has its own operation in the published description.
for method in ("GET", "POST"):
    router.add_api_route(
        "/v2/languages",
        languages_v2,
        methods=[method],
        operation_id=f"languages_v2_{method.lower()}",
        summary="List source or target languages (v2)",
        response_model=list[V2Language],
        responses=errors(400, 413, 415),
        openapi_extra=V2_LANGUAGES_PARAMETERS,
    )
