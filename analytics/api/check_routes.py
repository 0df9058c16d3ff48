"""`/anomalies` and `/budgets`: the anomalies of a range (``anomalies.anomalies_in``) and every
budget's status (``capacity.budgets.budget_status``, priced as `check-budgets` prices it), of
the token's scope: a team's anomalies are judged against its own keys' usual days, its budgets
are those of its teams and keys."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated

from fastapi import APIRouter, Query, Response

from analytics.anomalies import anomalies_in, anomaly_name
from analytics.api.caller import CallerDep
from analytics.api.usage_routes import End, Start, days
from analytics.capacity import evaluation_frame
from analytics.cli import json_text, settings_in_force, table_json
from analytics.usage import DEFAULT_PRESET, Preset, calendar

router = APIRouter(tags=["checks"])


@router.get("/anomalies", summary="The anomalies of a range, most severe first")
def anomalies(
    caller: CallerDep,
    start: Start = None,
    end: End = None,
    period: Annotated[
        Preset | None, Query(description="Named range (default last-30-days).")
    ] = None,
) -> Response:
    """Each anomaly with its id (the dashboard's link takes it), its name in words, its kind,
    key, metric, days and figures, and the sentence the pages show."""
    if start is None and end is None and period is None:
        period = DEFAULT_PRESET
    first, last = days(caller, start, end, period)
    found = anomalies_in(
        caller.fetches(caller.visible), first, last, caller.visible.scope.whole_series
    )
    records = [{"id": a.id, "name": anomaly_name(a), **asdict(a)} for a in found]
    return Response(json_text(records), media_type="application/json")


@router.get("/budgets", summary="Every budget's status in the token's scope")
def budgets(caller: CallerDep) -> Response:
    """The budgets in force that the token's scope sees, each with its period, use, limit,
    projection and status, as `check-budgets` prints them."""
    found = settings_in_force.budget_settings(caller.settings)
    shown = None if found is None else caller.visible.budgets(found)
    if shown is None:
        return Response("[]", media_type="application/json")
    reader = caller.fetches(caller.visible)
    evaluations, _ = settings_in_force.priced_status(
        reader, shown, caller.costing, calendar.utc_today()
    )
    currency = caller.costing.pricing.currency if caller.costing.pricing else ""
    return Response(
        table_json(evaluation_frame(evaluations, currency)), media_type="application/json"
    )
