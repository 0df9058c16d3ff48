"""A failure as people read it: one `error: …` line on stderr and the documented exit code, so
cron mails say what went wrong without a traceback. A command runs inside `reported`;
`UsageProblem` is bad arguments or configuration (exit 2)."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import stamina
import typer

from analytics.alerts import AlertSettingsError
from analytics.cost import PricingSettingsError, TeamSettingsError
from analytics.exit_codes import CLOSED_PIPE, FORBIDDEN, SERVICE, STORE, UNEXPECTED, USAGE
from analytics.service import AuthorizationError, BadRequestError, ServiceError
from analytics.settings import SettingsProblem
from analytics.storage import StoreError, StoreUnavailable


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
            raise typer.Exit(closed_output()) from None
        except (
            UsageProblem,
            PricingSettingsError,
            TeamSettingsError,
            AlertSettingsError,
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


def closed_output() -> int:
    """Standard output's reader went away (`… | head`): the command ends quietly. Nothing
    more goes to the closed pipe, since what is still buffered for it would fail again as the
    interpreter exits, with an "Exception ignored" on stderr."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return CLOSED_PIPE.code
