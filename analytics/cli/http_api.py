"""`serve-api` and `api tokens create|list|revoke`: the read-only HTTP API for dashboards
elsewhere (`analytics.api`), and the bearer tokens that open it, each of one team's scope or
the whole organization's.

A token is printed once, alone on standard output (so a script can take it), and kept nowhere:
the state store holds its digest, who made it and when. The API is started through uvicorn by
the app factory's name, with its settings in ``USAGE_API_*`` variables: the command line, below
the API in the layers, starts it without importing it.
"""

from __future__ import annotations

import os
import sys
from datetime import UTC, datetime
from typing import Annotated, Literal

import typer

from analytics.access import TokenNotFound, Tokens
from analytics.cli import command_output, connecting, failures, program, settings_in_force
from analytics.cli.failures import UsageProblem
from analytics.cli.json_output import json_text
from analytics.cli.keys import who
from analytics.cli.options import DebugOption, DemoOption
from analytics.cli.program import app
from analytics.usage import records_of

api_app = program.command_group(app, "api", "The HTTP API's bearer tokens (see serve-api).")
tokens_app = program.command_group(
    api_app, "tokens", "Tokens of the HTTP API: each sees one team's scope or the organization."
)
FACTORY = "analytics.api.http_app:from_environment"


def _tokens(demo: bool) -> Tokens:
    """The account's tokens; a usage problem where no state store can keep them."""
    given = connecting.service_connection()
    connecting.configured(given, demo)
    records = records_of(given, demo)
    if records is None:
        raise UsageProblem(
            "API tokens are kept in the state store: set SERVICE_HISTORY_PATH or SERVICE_STATE_URL"
        )
    return Tokens(records)


@tokens_app.command("create")
def create(
    team: Annotated[str | None, typer.Option(help="The team whose scope the token sees.")] = None,
    organization: Annotated[
        bool, typer.Option("--organization", help="The token sees the whole organization.")
    ] = False,
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Make a token of one team's scope (--team NAME) or the organization's (--organization),
    printed once on standard output: keep it where the dashboard elsewhere keeps secrets."""
    with failures.reported(debug):
        if (team is None) == (not organization):
            raise UsageProblem("give either --team NAME or --organization")
        # A team the teams settings in force do not have is refused, naming those they do.
        settings_in_force.visible(
            team, settings_in_force.costing(settings_in_force.command_settings(demo))
        )
        made, secret = _tokens(demo).create(team, who(), datetime.now(UTC))
        typer.echo(f"API token {made.id} of {made.scope.name}: shown once, keep it now", err=True)
        typer.echo(secret)


@tokens_app.command("list")
def list_tokens(
    fmt: Annotated[
        Literal["table", "json"], typer.Option("--format", help="table or json.")
    ] = "table",
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Every token: its id, scope, who made it and when, and when it was revoked."""
    with failures.reported(debug):
        found = _tokens(demo).listed()
        if fmt == "json":
            typer.echo(json_text(found))
            return
        rows = [["id", "scope", "made by", "made", "revoked"]]
        rows += [
            [
                t.id,
                t.scope.name,
                t.made_by,
                f"{t.made_at:%Y-%m-%d %H:%M} UTC",
                "-" if t.revoked is None else f"{t.revoked:%Y-%m-%d %H:%M} UTC",
            ]
            for t in found
        ]
        for line in command_output.aligned(rows):
            typer.echo(line)


@tokens_app.command("revoke")
def revoke(
    token_id: Annotated[str, typer.Argument(help="The token's id (api tokens list).")],
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Stop a token working at once; its row stays in the list."""
    with failures.reported(debug):
        try:
            revoked = _tokens(demo).revoke(token_id, datetime.now(UTC))
        except TokenNotFound as exc:
            raise UsageProblem(str(exc)) from None
        typer.echo(f"Revoked API token {revoked.id} of {revoked.scope.name}", err=True)


@app.command("serve-api")
def serve_api(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8600,
    rate: Annotated[float, typer.Option(help="Calls a second each token may make.")] = 5.0,
    burst: Annotated[int, typer.Option(help="Calls each token may make at once.")] = 20,
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Start the read-only HTTP API (/api/v1/..., OpenAPI at /api/v1/openapi.json) on
    loopback by default; callers need a token of `api tokens create`."""
    with failures.reported(debug):
        connecting.configured(connecting.service_connection(), demo)
        os.environ["USAGE_API_DEMO"] = "1" if demo else "0"
        os.environ["USAGE_API_RATE"] = str(rate)
        os.environ["USAGE_API_BURST"] = str(burst)
        command = [sys.executable, "-m", "uvicorn", "--factory", FACTORY, "--no-access-log"]
        # The process becomes uvicorn, so systemd's signals and exit status reach it directly.
        os.execv(sys.executable, [*command, "--host", host, "--port", str(port)])  # noqa: S606
