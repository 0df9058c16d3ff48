"""`/usage` and `/focus`: the export's rows of a range (its sources, groupings and cost columns,
shaped by ``exports.requests``) as JSON, CSV or Parquet, and the FOCUS 1.2 rows as JSON lines;
a team's rows and its share of the money, as its lead sees them on the Export page."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime
from typing import Annotated, Literal

import msgspec
import pandas as pd
from fastapi import APIRouter, HTTPException, Query, Response
from fastapi.responses import StreamingResponse

from analytics.api.caller import Caller, CallerDep
from analytics.cli import fetching, ranges, table_json
from analytics.exports import (
    ExportRequest,
    ExportSource,
    Grouping,
    billing_account,
    export_bytes,
    focus_table,
)
from analytics.usage import Preset, calendar

router = APIRouter(tags=["data"])

ApiFormat = Literal["json", "csv", "parquet"]
MEDIA_TYPES: dict[ApiFormat, str] = {
    "json": "application/json",
    "csv": "text/csv; charset=utf-8",
    "parquet": "application/vnd.apache.parquet",
}
Start = Annotated[str | None, Query(description="First UTC day, YYYY-MM-DD.")]
End = Annotated[str | None, Query(description="Last UTC day (inclusive), YYYY-MM-DD.")]
Period = Annotated[Preset | None, Query(description="Named range ending yesterday (UTC).")]
Team = Annotated[
    str | None, Query(description="One team's rows (of the token's scope); default: all of it.")
]


def days(
    caller: Caller, start: str | None, end: str | None, period: Preset | None
) -> tuple[date, date]:
    """The inclusive UTC days asked for, as the command line reads ``--start``/``--end`` or
    ``--period`` (400 for a bad range)."""
    return ranges.day_range(start, end, period, calendar.utc_today(), caller.demo)


@router.get("/usage", summary="Usage rows of a range, as the export writes them")
def usage(
    caller: CallerDep,
    start: Start = None,
    end: End = None,
    period: Period = None,
    source: ExportSource = "usage",
    group_by: Grouping | None = None,
    with_cost: bool = False,
    team: Team = None,
    fmt: Annotated[ApiFormat, Query(alias="format")] = "json",
) -> Response:
    """The rows `export` writes for the same choices, of the token's scope (or one ``team``
    of it): JSON (a list of objects), CSV or Parquet."""
    first, last = days(caller, start, end, period)
    request = ExportRequest(source, group_by, with_cost)
    request.check(caller.costing)
    read = fetching.reader(caller.connection, caller.demo, first, last, True)
    table = request.rows(read, caller.narrowed(team), (first, last), caller.costing).table
    if fmt == "json":
        return Response(table_json(table), media_type=MEDIA_TYPES["json"])
    name = request.file_name(first, last, fmt)
    return Response(
        export_bytes(table, fmt),
        media_type=MEDIA_TYPES[fmt],
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@router.get("/focus", summary="FOCUS 1.2 cost and usage rows, as JSON lines")
def focus(
    caller: CallerDep,
    start: Start = None,
    end: End = None,
    period: Period = None,
    team: Team = None,
) -> StreamingResponse:
    """The FOCUS 1.2 rows of `export --focus`, one JSON object a line: the token's scope's
    usage rows and its share of the base fee. Amounts are decimal strings, exact to the cent;
    instants ISO 8601 in UTC. Needs prices (409 without)."""
    first, last = days(caller, start, end, period)
    pricing = caller.costing.pricing
    if pricing is None:
        raise HTTPException(409, "FOCUS rows need prices: no pricing settings are in force")
    visible = caller.narrowed(team)
    read = fetching.fetched("usage", caller.connection, caller.demo, first, last, True, visible)
    account = billing_account(caller.connection, caller.demo)
    table = focus_table(
        read.organization.frame,
        pricing,
        caller.costing.teams,
        first,
        last,
        account,
        visible.scope.teams,
    )
    return StreamingResponse(json_lines(table), media_type="application/x-ndjson")


def _plain(value: object) -> object:
    """What msgspec cannot encode by itself: instants (pandas') as ISO text, the rest as text."""
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


_encoder = msgspec.json.Encoder(enc_hook=_plain, decimal_format="string")


def json_lines(table: pd.DataFrame) -> Iterator[bytes]:
    """One JSON object per row, missing values as null."""
    for row in table.astype(object).where(table.notna(), None).to_dict("records"):
        yield _encoder.encode(row) + b"\n"
