"""The command line and crontab line that write the same file as a dashboard download."""

from __future__ import annotations

from datetime import date
from typing import get_args

from analytics.usage.calendar import Preset

CRON_SCHEDULE = "15 6 * * *"  # daily at 06:15 (with CRON_TZ=UTC), after the UTC day has closed


def export_file_name(group_by: str, start: date, end: date, fmt: str) -> str:
    return f"usage_{group_by}_{start:%Y-%m-%d}_{end:%Y-%m-%d}.{fmt}"


def export_command(group_by: str, start: date, end: date, fmt: str, demo: bool) -> str:
    """The CLI call that writes the same file as the page's download button."""
    output = export_file_name(group_by, start, end, fmt)
    demo_flag = " --demo" if demo else ""
    return (
        f"python -m analytics export --start {start:%Y-%m-%d} --end {end:%Y-%m-%d} "
        f"--group-by {group_by} --output {output}{demo_flag}"
    )


def export_crontab(group_by: str, start: date, end: date, fmt: str, preset: str, demo: bool) -> str:
    """A crontab line producing the file on a schedule.

    A named preset is passed as `--period`, so each run covers the range as of that day and
    the file is named after it; any other range is exported as the same fixed days.
    """
    demo_flag = " --demo" if demo else ""
    if preset in get_args(Preset):
        output = f"usage_{group_by}_{preset}_$(date -u +\\%Y-\\%m-\\%d).{fmt}"
        command = (
            f"python -m analytics export --period {preset} --group-by {group_by} "
            f"--output {output}{demo_flag}"
        )
    else:
        command = export_command(group_by, start, end, fmt, demo)
    environment = "" if demo else "set -a && . /etc/usage-dashboard.env && set +a && "
    return f"{CRON_SCHEDULE} cd /opt/usage-dashboard && {environment}.venv/bin/{command}"
