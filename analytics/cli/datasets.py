"""`export-dataset`: the key-and-day usage with cost and the FOCUS rows of a range as an
incremental, Hive-partitioned Parquet dataset in a folder or an object store, which a
warehouse reads where it lies (`analytics.exports.dataset`), on a timer like the exports."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

import pandas as pd
import typer

from analytics.cli import connecting, failures, ranges, settings_in_force
from analytics.cli.exports import NoHistoryOption, focus_rows, shaped_export
from analytics.cli.failures import UsageProblem
from analytics.cli.options import (
    DebugOption,
    DemoOption,
    EndOption,
    PeriodOption,
    PricingOption,
    StartOption,
    TeamOption,
    TeamsOption,
)
from analytics.cli.program import app
from analytics.exports import (
    Days,
    Destination,
    ExportRequest,
    billing_account,
    dataset,
    focus_file_table,
)
from analytics.usage import calendar, last_closed_day

ToOption = Annotated[
    str,
    typer.Option(
        "--to",
        help="The dataset's folder, or an object-storage URL (s3://bucket/prefix; credentials "
        "and endpoint from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_ENDPOINT_URL).",
    ),
]


@app.command("export-dataset")
def export_dataset(
    to: ToOption,
    start: StartOption = None,
    end: EndOption = None,
    period: PeriodOption = None,
    team: TeamOption = None,
    pricing: PricingOption = None,
    teams: TeamsOption = None,
    demo: DemoOption = False,
    no_history: NoHistoryOption = False,
    debug: DebugOption = False,
) -> None:
    """Write the key-and-day usage with cost (as `export --group-by key_and_day --with-cost`)
    and the FOCUS 1.2 rows of a range of UTC days as Parquet partitioned by day
    (usage/date=YYYY-MM-DD/part.parquet, focus/date=…/part.parquet) with a manifest.json
    written last; only the days that changed since the last run, and the days the service may
    still revise, are written again."""
    with failures.reported(debug):
        today = calendar.utc_today()
        first, last = ranges.day_range(start, end, period, today, demo)
        files = (pricing, teams, team)
        how = (demo, not no_history)
        days = Days(first, last, last_closed_day(today) + timedelta(days=1))
        destination = _destination(to)
        outcome = dataset.export_dataset(
            destination,
            partial(_tables, files, how),
            days,
            _inputs(files, demo),
            datetime.now(UTC),
        )
        typer.echo(
            f"Wrote {len(outcome.written)} partitions to {to}, {outcome.unchanged} unchanged, "
            f"{len(outcome.removed)} removed",
            err=True,
        )


def _tables(
    files: tuple[Path | None, Path | None, str | None],
    how: tuple[bool, bool],
    first: date,
    last: date,
) -> dict[str, pd.DataFrame]:
    """The dataset's tables of ``first``–``last``: the key-and-day usage with cost, and the
    FOCUS rows."""
    request = ExportRequest("usage", "key_and_day", True, files[2])
    usage, _ = shaped_export(request, files, (first, last), how)
    focus = focus_file_table(focus_rows(files, (first, last), how), csv=False)
    return {"usage": usage, "focus": focus}


def _inputs(files: tuple[Path | None, Path | None, str | None], demo: bool) -> str:
    """The digest of what every row depends on: the prices (not the file they were read
    from), the teams, the billed account and the team asked for."""
    pricing, teams, team = files
    costing = settings_in_force.costing(settings_in_force.command_settings(demo, pricing, teams))
    prices = costing.pricing
    priced = None if prices is None else (prices.currency, prices.periods)
    account = billing_account(connecting.service_connection(), demo)
    return dataset.input_digest(priced, costing.teams, account.id, account.name, team)


def _destination(to: str) -> Destination:
    """The dataset's folder or bucket; a URL carrying credentials (``s3://key:secret@…``) is
    refused before anything is read, since the URL is printed, logged and kept in the timer's
    unit: the credentials belong in the environment."""
    if "@" in urlsplit(to).netloc:
        raise UsageProblem(
            "--to takes no credentials: give them in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
        )
    return Destination(to)
