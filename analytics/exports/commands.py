"""The command line and crontab line that write the same file as a dashboard download."""

from __future__ import annotations

from datetime import date
from typing import get_args

from analytics.exports.requests import ExportRequest
from analytics.usage.calendar import Preset

CRON_SCHEDULE = "15 6 * * *"  # daily at 06:15 (with CRON_TZ=UTC), after the UTC day has closed
# A scheduled job runs the installed command of the deployment recipe (docs/deployment.md),
# after loading the service's address and key from its protected environment file.
INSTALLED = (
    "cd /opt/usage-dashboard && set -a && . /etc/usage-dashboard.env && set +a && "
    "venv/bin/usage-dashboard"
)


def export_command(
    request: ExportRequest, start: date, end: date, fmt: str, demo: bool = False
) -> str:
    """The CLI call that writes the same file as the page's download button (the demo's data
    with ``demo``)."""
    demo_flag = " --demo" if demo else ""
    return f"python -m analytics {_days_export(request, start, end, fmt)}{demo_flag}"


def _days_export(request: ExportRequest, start: date, end: date, fmt: str) -> str:
    output = request.file_name(start, end, fmt)
    return (
        f"export --start {start:%Y-%m-%d} --end {end:%Y-%m-%d} {request.options()} "
        f"--output {output}"
    )


def export_crontab(request: ExportRequest, start: date, end: date, fmt: str, preset: str) -> str:
    """A crontab line producing the file on a schedule, of the organization the environment
    file names: never the demo's (copied as is, a demo line would export demo data every
    night), and loading that file as the documented lines do.

    A named preset is passed as `--period`, so each run covers the range as of that day and
    the file is named after it; any other range is exported as the same fixed days.
    """
    if preset in get_args(Preset):
        output = f"{request.source}_{request.group_by}_{preset}_$(date -u +\\%Y-\\%m-\\%d).{fmt}"
        arguments = f"export --period {preset} {request.options()} --output {output}"
    else:
        arguments = _days_export(request, start, end, fmt)
    return f"{CRON_SCHEDULE} {INSTALLED} {arguments}"
