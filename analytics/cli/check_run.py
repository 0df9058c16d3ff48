"""A check command's run, the part every check shares: its outbox (`--notify`, `--alerts`,
`--dry-run`: the alerts file's destinations, read before any usage is fetched), the exit code
it ends with, and its alerts sent once per level at its end (DELIVERY.code when one did not get
through)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from analytics.alerts import AlertsConfig, DeliveryState, Event, deliver, delivery_store
from analytics.cli import connecting, failures, settings_in_force
from analytics.cli.failures import UsageProblem
from analytics.exit_codes import DELIVERY
from analytics.service import ServiceConnection

NotifyOption = Annotated[
    bool,
    typer.Option(
        "--notify",
        help="Send each new or escalated alert to the alerts file's destinations, once per level.",
    ),
]
DryRunOption = Annotated[
    bool,
    typer.Option(
        "--dry-run", help="With --notify: print the messages instead; send and record nothing."
    ),
]


@dataclass(frozen=True)
class Outbox:
    """Where a check's alerts go (`--notify`): the alerts file's destinations, what was
    delivered before, and whether to show the messages instead (`--dry-run`)."""

    config: AlertsConfig
    state: DeliveryState
    dry_run: bool


def outbox_for(
    notify: bool, alerts: Path | None, dry_run: bool, connection: ServiceConnection, demo: bool
) -> Outbox | None:
    """The outbox of a check run with `--notify`, read before any usage is fetched so a bad
    alerts file stops the run at once; None without `--notify`."""
    if (dry_run or alerts) and not notify:
        raise UsageProblem("--alerts and --dry-run go with --notify")
    if not notify:
        return None
    config = settings_in_force.alerts(alerts, "--notify")
    return Outbox(config, DeliveryState(delivery_store(connection, demo)), dry_run)


@dataclass
class CheckRun:
    """A check command's run: its connection, its outbox (None without `--notify`), the exit
    code and alerts it ends with, and whether its standard output is one document for a
    script (`--format json`), which what `--notify` did must not break."""

    connection: ServiceConnection
    outbox: Outbox | None
    code: int = 0
    events: Sequence[Event] = ()
    data_out: bool = False


@contextmanager
def check_run(
    notify: bool, alerts: Path | None, dry_run: bool, demo: bool, debug: bool
) -> Iterator[CheckRun]:
    """Run a check as every command runs, its outbox read first; at its end send its alerts
    (with `--notify`) and exit with its code, DELIVERY.code when an alert did not get through."""
    with failures.reported(debug):
        connection = connecting.service_connection()
        check = CheckRun(connection, outbox_for(notify, alerts, dry_run, connection, demo))
        yield check
        if check.outbox is not None and not notify_of(check.events, check.outbox, check.data_out):
            check.code = DELIVERY.code
    raise typer.Exit(check.code)


def notify_of(events: Sequence[Event], outbox: Outbox, data_out: bool) -> bool:
    """Deliver new and escalated events; say what was sent or shown (dry run) on stdout, or
    on stderr where stdout holds a script's document (`data_out`), and what was not delivered
    on stderr. False when a message did not get through."""
    config, state, dry_run = outbox.config, outbox.state, outbox.dry_run
    deliveries = deliver(events, config, state, dry_run)
    for delivery in deliveries:
        subject, destination = delivery.event.subject, delivery.destination
        if delivery.preview:
            typer.echo(f"--- dry run: {destination} ---\n{delivery.preview.rstrip()}", err=data_out)
        elif delivery.error:
            typer.echo(
                f"error: not delivered to {destination}: {subject}: {delivery.error} "
                "(sent again at the next run)",
                err=True,
            )
        else:
            typer.echo(f"notified {destination}: {subject}", err=data_out)
    if dry_run and not deliveries:
        typer.echo(
            "--- dry run: nothing to send (every alert was delivered already) ---", err=data_out
        )
    return not any(delivery.error for delivery in deliveries)
