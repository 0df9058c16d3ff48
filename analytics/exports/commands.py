"""The command line and crontab line that write the same file as a dashboard download, and the
statuses such a scheduled export ends with (`EXPORT_EXIT_CODES`, from the one table of exit
codes, `analytics.exit_codes`), which the Export page shows under its crontab line.

The command line names the command as this installation calls it. Installed as a package (the
deployment recipe, and so every cron job and systemd timer) the command is `usage-dashboard`,
the name `[project.scripts]` gives it; a checkout installs only the dependencies (`make run`),
so there it is `python -m analytics` by the checkout's interpreter, the checkout on
``PYTHONPATH``: pasted in any folder, it runs and writes its file there (a bare `python -m
analytics` answers "No module named analytics" outside the checkout). A line that names a command
the machine does not have would fail where it is pasted.
"""

from __future__ import annotations

import shlex
import sys
from datetime import date
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path
from typing import Final, get_args

from analytics.exit_codes import DONE, FORBIDDEN, SERVICE, UNEXPECTED, USAGE
from analytics.exports.requests import ExportRequest
from analytics.usage import Preset

CRON_SCHEDULE = "15 6 * * *"  # daily at 06:15 (with CRON_TZ=UTC), after the UTC day has closed
PROGRAM = "usage-dashboard"  # the installed command ([project.scripts] in pyproject.toml)
ENTRY_POINT = "analytics.cli:main"
# The folder holding the `analytics` package: the checkout, where the package is not installed.
CHECKOUT_ROOT = Path(__file__).resolve().parents[2]
# A scheduled job runs the installed command of the deployment recipe (docs/deployment.md),
# after loading the service's address and key from its protected environment file.
INSTALLED = (
    "cd /opt/usage-dashboard && set -a && . /etc/usage-dashboard.env && set +a && "
    f"venv/bin/{PROGRAM}"
)

# The statuses of a scheduled export, which writes a file and sends nothing.
EXPORT_EXIT_CODES: Final = (DONE, UNEXPECTED, USAGE, FORBIDDEN, SERVICE)


@cache
def program() -> str:
    """`usage-dashboard` where the package is installed, else (a checkout) `python -m
    analytics` by this interpreter with the checkout on ``PYTHONPATH``, which runs from any
    folder; read once, from the installed packages' metadata."""
    scripts = entry_points(group="console_scripts", name=PROGRAM)
    if any(script.value == ENTRY_POINT for script in scripts):
        return PROGRAM
    root, python = shlex.quote(str(CHECKOUT_ROOT)), shlex.quote(sys.executable)
    return f"PYTHONPATH={root} {python} -m analytics"


def export_command(
    request: ExportRequest, start: date, end: date, fmt: str, demo: bool = False
) -> str:
    """The CLI call that writes the same file as the page's download button (the demo's data
    with ``demo``), named as this installation calls it (`program`)."""
    demo_flag = " --demo" if demo else ""
    return f"{program()} {_days_export(request, start, end, fmt)}{demo_flag}"


def _days_export(request: ExportRequest, start: date, end: date, fmt: str) -> str:
    output = request.file_name(start, end, fmt)
    return (
        f"export --start {start:%Y-%m-%d} --end {end:%Y-%m-%d} {_options(request)} "
        f"--output {output}"
    )


def _options(request: ExportRequest) -> str:
    """The command line's options for the request's choices (defaults left out)."""
    words = []
    if request.source != "usage":
        words.append(f"--source {request.source}")
    words.append(f"--group-by {request.group_by}")
    if request.with_cost:
        words.append("--with-cost")
    if request.team is not None:
        words.append(f"--team {shlex.quote(request.team)}")
    return " ".join(words)


def export_crontab(request: ExportRequest, start: date, end: date, fmt: str, preset: str) -> str:
    """A crontab line producing the file on a schedule, of the organization the environment
    file names: never the demo's (copied as is, a demo line would export demo data every
    night), and loading that file as the documented lines do.

    A named preset is passed as `--period`, so each run covers the range as of that day and
    the file is named after it; any other range is exported as the same fixed days.
    """
    if preset in get_args(Preset):
        output = f"{request.source}_{request.group_by}_{preset}_$(date -u +\\%Y-\\%m-\\%d).{fmt}"
        arguments = f"export --period {preset} {_options(request)} --output {output}"
    else:
        arguments = _days_export(request, start, end, fmt)
    return f"{CRON_SCHEDULE} {INSTALLED} {arguments}"
