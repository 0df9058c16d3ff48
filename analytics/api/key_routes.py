"""`/keys`: the key view of the token's scope (state, usage against each key's own limits,
the day each is reached, owner and purpose), as `keys list --format json` writes it; and one
key by its id, refused (403) when it is another team's."""

from __future__ import annotations

import pandas as pd
from fastapi import APIRouter, HTTPException, Response

from analytics.access import EVERYTHING
from analytics.api.caller import Caller, CallerDep
from analytics.cli import table_json
from analytics.keys import key_view, key_view_table, with_owners
from analytics.usage import calendar

router = APIRouter(tags=["keys"])


def key_table(caller: Caller) -> pd.DataFrame:
    """The key view of the token's scope, with each key's owner and purpose."""
    rows = key_view(caller.fetches(caller.visible), calendar.utc_today())
    return with_owners(key_view_table(rows), caller.costing.teams)


@router.get("/keys", summary="The keys of the token's scope")
def keys(caller: CallerDep) -> Response:
    """Every key of the token's scope with this usage period's figures and limits."""
    return Response(table_json(key_table(caller)), media_type="application/json")


@router.get("/keys/{key_id}", summary="One key of the token's scope")
def key(caller: CallerDep, key_id: str) -> Response:
    """The key ``key_id``: 404 when the organization has no such key, 403 when the key is
    outside the token's scope (said without its label)."""
    listed = caller.fetches(EVERYTHING).developer_keys()
    if key_id not in {found.key_id for found in listed}:
        raise HTTPException(404, f"no key has the id {key_id!r}")
    if key_id not in {found.key_id for found in caller.fetches(caller.visible).developer_keys()}:
        raise caller.visible.scope.refusal(f"key {key_id!r}")
    table = key_table(caller)
    shown = table[table["key_id"] == key_id].reset_index(drop=True)
    return Response(table_json(shown), media_type="application/json")
