"""Quick look-ups for a person or a script: `languages` of a resource, the `plan`'s billing
period against its limits, and `detect` of a text's language."""

from __future__ import annotations

import sys
from typing import Annotated, Literal

import typer

from analytics.capacity import current_plan
from analytics.cli import command_output, connecting, failures, fetching
from analytics.cli.json_output import json_text
from analytics.cli.options import DebugOption, DemoOption, TableOrJsonOption
from analytics.cli.program import app
from analytics.languages import language_table
from analytics.service import Resource
from analytics.usage import calendar

ListFormat = Literal["table", "csv"]


@app.command()
def languages(
    resource: Annotated[Resource, typer.Option(help="The resource whose languages to list.")],
    fmt: Annotated[
        ListFormat,
        typer.Option(
            "--format",
            help="table (features by name) or csv (feature keys as the service sends them).",
        ),
    ] = "table",
    beta: Annotated[
        bool,
        typer.Option("--beta", help="Include beta and early-access languages and features."),
    ] = False,
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """List the languages of one resource with their source/target flags and features (the
    service lists only stable ones unless --beta asks for the rest)."""
    with (
        failures.reported(debug),
        connecting.client(connecting.service_connection(), demo) as client,
    ):
        entries = client.languages(resource, include_beta=beta)
        table = language_table(entries).drop(columns="status")
        for flag in ("source", "target"):
            table[flag] = table[flag].map({True: "yes", False: "no"})
        if fmt == "csv":
            # A script's: the service's feature keys, space-separated, as scripts split them;
            # a person's table names them as the page does.
            table["features"] = [" ".join(sorted(e.features)) for e in entries]
            table.to_csv(sys.stdout, index=False, lineterminator="\n")
        else:
            rows = [list(table.columns), *table.astype(str).to_numpy().tolist()]
            for line in command_output.aligned(rows):
                typer.echo(line)


@app.command()
def plan(
    fmt: TableOrJsonOption = "table",
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Usage and limits of the current billing period, and the day each limit is reached as
    forecast."""
    with failures.reported(debug):
        reader = fetching.Fetches(connecting.service_connection(), demo)
        snapshot = current_plan(reader, calendar.utc_today())
        if fmt == "json":
            typer.echo(json_text(snapshot.as_json()))
            return
        typer.echo(f"Billing period: {snapshot.period_text}")
        rows = [["metric", "used", "limit", "used %", "limit reached"]]
        rows += [
            [a.label, a.used_text, a.limit_text, a.share_text, a.reach_text]
            for a in snapshot.allowances
        ]
        for line in command_output.aligned(rows):
            typer.echo(line)


@app.command()
def detect(
    texts: Annotated[list[str], typer.Argument(help="Texts whose language to detect.")],
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Detect the language of each text (one line per text, in order)."""
    with (
        failures.reported(debug),
        connecting.client(connecting.service_connection(), demo) as client,
    ):
        for text, result in zip(texts, client.detect(texts), strict=True):
            found = result.detected_language or "-"
            typer.echo(f"{found}\t{result.detection_status}\t{text}")
