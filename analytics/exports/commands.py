"""The command line and crontab line that write the same file as a dashboard download, and
the table of what the command line's exit codes say (`EXIT_CODES`), which the command line
exits with and prints in its help, and the Export page shows under its crontab line.

The command line names the command as this installation calls it. Installed as a package (the
deployment recipe, and so every cron job and systemd timer) the command is `usage-dashboard`,
the name `[project.scripts]` gives it; a checkout installs only the dependencies (`make run`),
so there it is `python -m analytics`, run from the checkout. A line that names a command the
machine does not have would fail where it is pasted.
"""

from __future__ import annotations

import shlex
import signal
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from functools import cache
from importlib.metadata import entry_points
from typing import Final, get_args

from analytics.exports.requests import ExportRequest
from analytics.usage.calendar import Preset

CRON_SCHEDULE = "15 6 * * *"  # daily at 06:15 (with CRON_TZ=UTC), after the UTC day has closed
PROGRAM = "usage-dashboard"  # the installed command ([project.scripts] in pyproject.toml)
ENTRY_POINT = "analytics.cli:main"
CHECKOUT = "python -m analytics"
# A scheduled job runs the installed command of the deployment recipe (docs/deployment.md),
# after loading the service's address and key from its protected environment file.
INSTALLED = (
    "cd /opt/usage-dashboard && set -a && . /etc/usage-dashboard.env && set +a && "
    f"venv/bin/{PROGRAM}"
)


@dataclass(frozen=True)
class ExitCode:
    """What an exit status says: in a few words (``--help``, the Export page), in full (the
    table of the manual's Command line page), and which commands end with it."""

    code: int
    brief: str
    meaning: str
    commands: str


DONE = ExitCode(0, "done", "done", "all")
UNEXPECTED = ExitCode(
    1, "unexpected", "anything unexpected (e.g. the disk is full); an earlier file is kept", "all"
)
USAGE = ExitCode(
    2,
    "bad arguments or configuration",
    "bad arguments or configuration (settings, a budgets, pricing, teams or alerts file), the "
    "service refused an argument (400), or a KEY names no key or several (the candidates are "
    "listed)",
    "all",
)
FORBIDDEN = ExitCode(
    3, "key refused (403)", "the service refused the key (403)", "all that ask the service"
)
SERVICE = ExitCode(
    4,
    "service unreachable",
    "the service or the network failed after retries, or answered with an invalid body",
    "all that ask the service",
)
STORE = ExitCode(
    5,
    "state store unavailable",
    "the state store (SERVICE_STATE_URL, or the embedded file in the history folder) could not "
    "be reached or failed after retries: what was being recorded was not recorded, and nothing "
    "was sent or changed without its record",
    "all that keep or read marks, alert deliveries, the key audit log or the guardrails' state",
)
BUDGET_WARNING = ExitCode(
    10,
    "a budget's warning (check-budgets)",
    "a budget's or a key limit's warning threshold is reached (used or projected), or a budget "
    "names an unknown key",
    "check-budgets",
)
BUDGET_EXCEEDED = ExitCode(
    11,
    "a budget exceeded (check-budgets)",
    "a budget (or, for a plan budget, the plan's character limit; for a key, its own limit) is "
    "exceeded",
    "check-budgets",
)
CHANGES_PENDING = ExitCode(
    10,
    "limit changes pending (guardrails plan)",
    "the guardrails' plan has key limit changes to send (guardrails apply sends them)",
    "guardrails plan",
)
STILL_IN_USE = ExitCode(
    10,
    "old key still in use (keys rotation finish)",
    "the rotation's old key was used within the quiet days a finish needs: nothing was "
    "deactivated (--force finishes anyway, recorded as forced)",
    "keys rotation finish",
)
NEW_ANOMALIES = ExitCode(
    12,
    "new anomalies (check-anomalies)",
    "there are anomalies nobody has marked yet",
    "check-anomalies",
)
DELIVERY = ExitCode(
    13,
    "a message not delivered (--notify, report --mail-to)",
    "a message could not be delivered (it is sent again by the next run)",
    "--notify, report --mail-to",
)
# Standard output's reader went away (`… | head`): the status a shell shows for a writer that
# SIGPIPE stopped, as `cat` or `seq` end there.
CLOSED_PIPE = ExitCode(
    128 + signal.SIGPIPE,
    "standard output closed (… | head)",
    "standard output's reader went away (… | head): the command stops writing, quietly, with "
    "the status a shell shows for cat there (128 + SIGPIPE)",
    "all that write to standard output",
)
EXIT_CODES: Final = (
    DONE,
    UNEXPECTED,
    USAGE,
    FORBIDDEN,
    SERVICE,
    STORE,
    BUDGET_WARNING,
    CHANGES_PENDING,
    STILL_IN_USE,
    BUDGET_EXCEEDED,
    NEW_ANOMALIES,
    DELIVERY,
    CLOSED_PIPE,
)
# The statuses of a scheduled export, which writes a file and sends nothing.
EXPORT_EXIT_CODES: Final = (DONE, UNEXPECTED, USAGE, FORBIDDEN, SERVICE)
# The line `guardrails plan` ends with, for each status it ends with after planning: what the
# status says and what to do next ({changes}: "1 limit change", "22 limit changes"). Its
# other statuses end with the one-line error, which says what stopped it.
PLAN_ENDINGS: Final = {
    DONE: "Nothing to change (exit 0): the keys' limits in force hold the enforced budgets.",
    CHANGES_PENDING: "{changes} pending (exit 10): `guardrails apply --yes` sends them.",
}


def plan_ending(changes: int) -> tuple[ExitCode, str]:
    """The status `guardrails plan` ends with for ``changes`` pending, and its last line."""
    code = CHANGES_PENDING if changes else DONE
    counted = f"{changes:,} limit change{'' if changes == 1 else 's'}"
    return code, PLAN_ENDINGS[code].format(changes=counted)


def exit_codes_text(codes: Iterable[ExitCode]) -> str:
    """``Exit codes: 0 done; 1 unexpected; …``: each code with its few words."""
    return "Exit codes: " + "; ".join(f"{c.code} {c.brief}" for c in codes) + "."


@cache
def program() -> str:
    """`usage-dashboard` where the package is installed, else (a checkout) `python -m
    analytics`; read once, from the installed packages' metadata."""
    scripts = entry_points(group="console_scripts", name=PROGRAM)
    return PROGRAM if any(script.value == ENTRY_POINT for script in scripts) else CHECKOUT


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
