"""The options several commands share, declared once: the demo, the range of days, the debug
flag, the settings given as files (prices, teams, alert routes), a team's scope and the table or
JSON format."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from analytics.usage import Preset

DemoOption = Annotated[
    bool, typer.Option("--demo", help="Use the embedded demo organization instead of a service.")
]
StartOption = Annotated[str | None, typer.Option(help="First UTC day, YYYY-MM-DD.")]
EndOption = Annotated[str | None, typer.Option(help="Last UTC day (inclusive), YYYY-MM-DD.")]
PeriodOption = Annotated[Preset | None, typer.Option(help="Named range ending yesterday (UTC).")]
DebugOption = Annotated[
    bool, typer.Option("--debug", help="Log every step and show tracebacks on errors.")
]
PricingOption = Annotated[
    Path | None,
    typer.Option(
        "--pricing",
        help="Prices TOML file (default: pricing.toml here when present; the example with --demo).",
    ),
]
TeamsOption = Annotated[
    Path | None,
    typer.Option(
        "--teams",
        help="Teams TOML file (default: teams.toml here when present; the example with --demo).",
    ),
]
TeamOption = Annotated[
    str | None,
    typer.Option(
        "--team",
        metavar="NAME",
        help="Only this team of the teams settings in force: its keys, tags, usage and "
        "budgets, as the team's lead sees them in the dashboard.",
    ),
]
AlertsOption = Annotated[
    Path | None,
    typer.Option("--alerts", help="Alerts TOML file (default: alerts.toml here when present)."),
]
TableOrJsonOption = Annotated[
    Literal["table", "json"], typer.Option("--format", help="table or json.")
]
