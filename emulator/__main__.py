"""`python -m emulator`: serve the emulator on a local port (`--port 0` picks a free one)."""

from __future__ import annotations

import datetime as dt
import socket
from pathlib import Path
from typing import Annotated

import typer
import uvicorn
from fastapi import FastAPI

from emulator.app import create_app
from emulator.config import EmulatorConfig, EndDateReading, SpeechUnit
from emulator.orgfile import OrgFileError

cli = typer.Typer(add_completion=False)


@cli.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port; 0 picks a free one.")] = 8765,
    org: Annotated[Path | None, typer.Option(help="Organization TOML file.")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the synthetic organization.")] = 42,
    keys: Annotated[int, typer.Option(help="Keys of the synthetic organization.")] = 25,
    days: Annotated[int, typer.Option(help="Days of synthetic history.")] = 1095,
    tags: Annotated[
        int | None,
        typer.Option(help="Distinct custom tags, a long tail (default: a dozen shared ones)."),
    ] = None,
    db: Annotated[Path | None, typer.Option(help="SQLite file (default: in memory).")] = None,
    latency_ms: Annotated[int, typer.Option(help="Delay before every answer.")] = 0,
    fault_429: Annotated[float, typer.Option(help="Share of requests answered 429.")] = 0.0,
    fault_503: Annotated[float, typer.Option(help="Share of requests answered 503.")] = 0.0,
    retry_after: Annotated[int, typer.Option(help="Retry-After seconds on 429.")] = 1,
    auth_scheme: Annotated[str, typer.Option(help="Authorization scheme.")] = "Service-Auth-Key",
    today: Annotated[
        dt.datetime | None,
        typer.Option(formats=["%Y-%m-%d"], help="Pin the current UTC day (default: the clock)."),
    ] = None,
    end_date_reading: Annotated[
        EndDateReading,
        typer.Option(help="Analytics: whether a date-only end_date is the range's last day."),
    ] = EndDateReading.EXCLUSIVE,
    speech_to_text_unit: Annotated[
        SpeechUnit,
        typer.Option(help="Analytics: speech-to-text in minutes or, as other revisions, in ms."),
    ] = SpeechUnit.MINUTES,
    anomalies: Annotated[
        bool,
        typer.Option(help="Put a few known anomalies into the synthetic organization."),
    ] = True,
) -> None:
    """Start the Language Service emulator."""
    config = EmulatorConfig(
        seed=seed,
        keys=keys,
        days=days,
        tags=tags,
        org_file=org,
        db=db,
        latency_ms=latency_ms,
        fault_429_rate=fault_429,
        fault_503_rate=fault_503,
        retry_after_s=retry_after,
        auth_scheme=auth_scheme,
        today=today.date() if today else None,
        end_date_reading=end_date_reading,
        speech_to_text_unit=speech_to_text_unit,
        anomalies=anomalies,
    )
    _run(_app(config), host, port)


def _app(config: EmulatorConfig) -> FastAPI:
    """The emulator's app; an organization file or a setting it cannot use is a one-line
    error and exit 2, before anything listens."""
    try:
        return create_app(config)
    except (OrgFileError, ValueError) as exc:
        typer.echo(f"Cannot start the emulator: {exc}", err=True)
        raise typer.Exit(2) from None


def _run(app: FastAPI, host: str, port: int) -> None:
    """Listen on `host`:`port` and serve `app` until stopped. The socket is bound before
    the address is printed, so `--port 0` prints the port it picked, and a caller reading the
    first line knows where to connect (and, for a synthetic organization, its admin key)."""
    try:
        listener = socket.create_server((host, port))
    except OSError as exc:
        typer.echo(f"Cannot listen on {host}:{port}: {exc.strerror}", err=True)
        raise typer.Exit(2) from None
    bound_port = listener.getsockname()[1]
    print(f"Emulator listening on http://{host}:{bound_port}", flush=True)
    emulator = app.state.emulator
    if emulator.synthetic and emulator.admin_key:
        print(f"Admin key: {emulator.admin_key}", flush=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    server.run(sockets=[listener])


if __name__ == "__main__":
    cli()
