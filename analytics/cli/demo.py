"""`reset-demo`: the demo organization as it was generated, for the dashboard and every
`--demo` command (they share one, in the history folder, until it is made again)."""

from __future__ import annotations

import typer

from analytics import connection
from analytics.cli import connecting, failures
from analytics.cli.failures import UsageProblem
from analytics.cli.options import DebugOption
from analytics.cli.program import app


@app.command("reset-demo")
def reset_demo(debug: DebugOption = False) -> None:
    """Load the demo organization afresh: every change made to its keys (on the dashboard or
    with --demo) is undone, at once for a running dashboard too, and the demo's key audit log
    and guardrail state start empty. Only the demo's files change; never a service's
    organization."""
    with failures.reported(debug):
        given = connecting.service_connection()
        reset = connection.reset_demo(given)
        if reset is None:
            raise UsageProblem(
                "no history folder: the demo organization is kept in memory by each process "
                "alone, so there is nothing to reset"
            )
        files, dropped = reset
        typer.echo(
            f"{given.demo_name}: made afresh in {files.store}; key audit entries dropped: {dropped}"
        )
