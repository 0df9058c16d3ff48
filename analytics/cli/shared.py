"""What every command needs: the typer app and the program that runs it (`main`), the options
several commands share, settings and the service client, the range of days asked for, and the
one-line error.

A command runs inside `reported`, which turns any failure into one `error: …` line on stderr
and the documented exit code, so cron mails say what went wrong without a traceback; the app's
`OneLineErrors` does the same for what the command line itself refuses (an unknown option, a
value out of range), before any command runs.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Annotated, Any, Literal

import stamina
import typer
from pydantic import ValidationError
from typer.core import TyperGroup, TyperOption

from analytics.alerts.alerts_file import AlertsFileError
from analytics.connection import service_client
from analytics.cost.prices import PricingFileError
from analytics.cost.teams import TeamFileError
from analytics.exit_codes import (
    CLOSED_PIPE,
    EXIT_CODES,
    FORBIDDEN,
    SERVICE,
    STORE,
    UNEXPECTED,
    USAGE,
    exit_codes_text,
)
from analytics.service.client import ServiceClient
from analytics.service.connection_settings import Settings, setting_problems
from analytics.service.errors import AuthorizationError, BadRequestError, ServiceError
from analytics.settings.parts import SettingsProblem
from analytics.storage.allocator import use_system_allocator
from analytics.storage.state_store import StoreError, StoreUnavailable
from analytics.usage.calendar import Preset, resolve

# `--output -`: standard output rather than a file.
STDOUT = Path("-")


class OneLineErrors(TyperGroup):
    """The commands' group: a usage error is one `error: …` line and exit 2, like every other
    error, instead of the usage box (`--help` still prints the help)."""

    def main(self, args: Sequence[str] | None = None, *extra: Any, **options: Any) -> Any:
        options["standalone_mode"] = False
        try:
            code = super().main(args, *extra, **options)
            sys.stdout.flush()  # a reader that went away is found here, not at exit
        except BrokenPipeError:
            code = _closed_output()
        except typer.TyperException as exc:  # the public base of the parser's errors
            message = " ".join(exc.format_message().replace("Value error, ", "").split())
            typer.echo(f"error: {message}", err=True)
            sys.exit(exc.exit_code)
        except typer.Abort:
            typer.echo("error: aborted", err=True)
            sys.exit(UNEXPECTED.code)
        sys.exit(code if isinstance(code, int) else 0)

    # The context and the command are classes of Typer's own copy of click, which it keeps
    # private: the two overrides name them Any rather than import them.
    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        """A command whose flags show no value placeholder in its help (typer would print
        ``<bool>`` after ``--demo``, as if it took a value)."""
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            _bare_flags([*command.params, command.get_help_option(ctx)])
        return command

    def get_help_option(self, ctx: Any) -> TyperOption | None:
        option = super().get_help_option(ctx)
        _bare_flags([option])
        return option


def _closed_output() -> int:
    """Standard output's reader went away (`… | head`): the command ends quietly. Nothing
    more goes to the closed pipe, since what is still buffered for it would fail again as the
    interpreter exits, with an "Exception ignored" on stderr."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return CLOSED_PIPE.code


def _bare_flags(params: Sequence[object]) -> None:
    """Flags take no value: no placeholder after them in help."""
    for param in params:
        if isinstance(param, TyperOption) and param.is_flag:
            param.metavar = ""


app = typer.Typer(
    cls=OneLineErrors,
    help="Usage exports and look-ups for the Language Service.",
    epilog=exit_codes_text(EXIT_CODES),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def command_group(parent: typer.Typer, name: str, help: str) -> typer.Typer:
    """A group of commands under `parent` (`keys rotation …`): its errors one line each, as
    every command's, and its help shown when it is called alone."""
    group = typer.Typer(cls=OneLineErrors, help=help, no_args_is_help=True)
    parent.add_typer(group, name=name)
    return group


def main() -> None:
    """The program (`usage-dashboard`, `python -m analytics`): the commands, with Arrow's
    buffers from the C library's allocator, as every program of ours starts."""
    use_system_allocator()
    app()


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


class UsageProblem(Exception):
    """Bad arguments or configuration: reported with exit code 2."""


def fail(code: int, message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


@contextmanager
def reported(debug: bool) -> Iterator[None]:
    """Turn failures into one readable stderr line and the documented exit code.

    Log lines go to stderr while the command runs; the handler is removed afterwards so a
    caller that runs several commands in one process (tests) never logs to a closed stream.
    """
    with _logged(debug):
        try:
            yield
        except typer.Exit:
            raise
        except BrokenPipeError:
            raise typer.Exit(_closed_output()) from None
        except (
            UsageProblem,
            PricingFileError,
            TeamFileError,
            AlertsFileError,
            SettingsProblem,
        ) as exc:
            fail(USAGE.code, str(exc))
        except Exception as exc:
            if debug:
                raise
            fail(*_failure(exc))


@contextmanager
def _logged(debug: bool) -> Iterator[None]:
    """Log lines on stderr while a command runs (every level with --debug), and a person at a
    terminal told of each retry; the logging as it was afterwards."""
    root = logging.getLogger()
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
    previous_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if debug else logging.WARNING)
    # Retries are routine; their log lines carry no detail worth a cron mail. A person at a
    # terminal sees each wait, so a slow answer never looks like a hang.
    logging.getLogger("stamina").setLevel(logging.DEBUG if debug else logging.ERROR)
    hooks = stamina.instrumentation.get_on_retry_hooks()
    if sys.stderr.isatty():
        stamina.instrumentation.set_on_retry_hooks([*hooks, _say_retrying])
    try:
        yield
    finally:
        stamina.instrumentation.set_on_retry_hooks(hooks)
        root.removeHandler(handler)
        root.setLevel(previous_level)


def _failure(exc: Exception) -> tuple[int, str]:
    """The exit code and the line a failure is reported with (--debug raises it instead): the
    first of these classes it is an instance of decides."""
    if isinstance(exc, StoreUnavailable):
        return STORE.code, str(exc)
    if isinstance(exc, StoreError):  # configured wrongly: a password, a database, a newer schema
        return USAGE.code, str(exc)
    if isinstance(exc, AuthorizationError):
        return FORBIDDEN.code, str(exc)
    if isinstance(exc, BadRequestError):  # the service refused an argument the user gave
        return USAGE.code, str(exc)
    if isinstance(exc, ServiceError):
        return SERVICE.code, str(exc)
    if isinstance(exc, OSError):
        place = f"{exc.filename}: " if exc.filename else ""
        return UNEXPECTED.code, f"{place}{exc.strerror or exc}"
    return UNEXPECTED.code, f"unexpected {type(exc).__name__}: {exc} (rerun with --debug)"


def _say_retrying(details: stamina.instrumentation.RetryDetails) -> None:
    cause = details.caused_by
    reason = cause.status if isinstance(cause, ServiceError) and cause.status else None
    typer.echo(f"retrying in {details.wait_for:.0f} s ({reason or type(cause).__name__})", err=True)


def settings() -> Settings:
    try:
        return Settings()
    except ValidationError as exc:
        raise UsageProblem(f"invalid setting: {setting_problems(exc)}") from None


def configured(given: Settings, demo: bool) -> None:
    """A command without --demo needs a service: it never silently falls back to demo data."""
    if not demo and not given.is_configured:
        raise UsageProblem(
            "SERVICE_AUTH_KEY and SERVICE_BASE_URL must be set (or pass --demo for demo data)"
        )


def client(given: Settings, demo: bool) -> ServiceClient:
    configured(given, demo)
    return service_client(given, demo)


def _day(value: str | None, name: str) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        pass
    if len(value) == 10 and value[4] == value[7] == "-" and value.replace("-", "").isdigit():
        raise UsageProblem(f"{name}: {value} is not a day")
    raise UsageProblem(f"{name} must be a day as YYYY-MM-DD, not {value!r}")


def day_range(
    start: str | None, end: str | None, period: Preset | None, today: date, demo: bool
) -> tuple[date, date]:
    """The inclusive days asked for; `today` is read once per command, so a run that crosses
    UTC midnight never mixes two days' views of "yesterday". ``all-history`` is the demo
    organization's span with ``demo``, as on the dashboard."""
    if period is not None:
        if start or end:
            raise UsageProblem("give either --period or --start/--end, not both")
        return resolve(period, today, settings().demo_days if demo else None)
    first, last = _day(start, "--start"), _day(end, "--end")
    if first is None or last is None:
        raise UsageProblem("give --start and --end (inclusive UTC days) or --period")
    if last < first:
        raise UsageProblem(f"--end {last} is before --start {first}")
    if last > today:
        raise UsageProblem(f"--end {last} is in the future; usage is known through {today} (UTC)")
    return first, last


def check_output(output: Path) -> None:
    """Refuse a path that cannot be written before anything is fetched (`-` is standard
    output)."""
    if output == STDOUT:
        return
    if output.is_dir():
        raise UsageProblem(f"--output {output} is a folder; give a file path")
    if not output.parent.is_dir():
        raise UsageProblem(
            f"the folder of --output {output} does not exist; give a file in an existing folder"
        )


def aligned(rows: list[list[str]]) -> list[str]:
    """Left-aligned columns two spaces apart and no trailing spaces: lines people and scripts
    read."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
