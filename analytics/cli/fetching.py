"""Fetching for a command: a range through the history store of a configured service, with a
progress bar when a person watches (a terminal), quiet under cron; and `Fetches`, the reader
through which the library's answers (the plan, budgets, key limits, anomalies) ask for what
they read."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from analytics.cli import shared
from analytics.keys.audit import AuditLog
from analytics.keys.listed import LimitStatus, limit_status
from analytics.service.errors import AuthorizationError
from analytics.service.models import DeveloperKey, PlanUsage
from analytics.service.settings import Settings
from analytics.usage.history import HistoryStore
from analytics.usage.pipeline import FetchedRange, fetch_usage

T = TypeVar("T")


def fetched(
    fetch: Callable[..., T],
    what: str,
    settings: Settings,
    demo: bool,
    first: date,
    last: date,
    use_history: bool,
) -> T:
    """`fetch(client, first, last, history=..., progress=...)` (fetch_usage, fetch_tags,
    fetch_pairs) with the history store of a configured service, and a progress bar on a
    terminal."""
    with shared.client(settings, demo) as client:
        history = HistoryStore.from_settings(settings) if use_history and not demo else None
        if not sys.stderr.isatty():  # cron: quiet unless something needs saying
            return fetch(client, first, last, history=history)
        console = Console(stderr=True)
        columns = (
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("windows"),
            TimeElapsedColumn(),
        )
        with Progress(*columns, console=console, transient=True) as bar:
            task = bar.add_task(f"Fetching {what} {first}..{last}", total=None)

            def arrived(done: int, planned: int) -> None:
                bar.update(task, completed=done, total=planned)

            return fetch(client, first, last, history=history, progress=arrived)


def usage(
    settings: Settings, demo: bool, first: date, last: date, use_history: bool
) -> FetchedRange:
    """Usage of first..last (history store only for a configured service).

    A reconciliation mismatch is logged as one WARNING line on stderr; the run still succeeds.
    """
    return fetched(fetch_usage, "usage", settings, demo, first, last, use_history)


@dataclass(frozen=True)
class Fetches:
    """The command line's reader of what a question asks for (``analytics.keys.listed``
    ``KeyReader``): each asked of the service when the question needs it, usage through the
    history store of a configured service."""

    settings: Settings
    demo: bool

    def usage(self, first: date, last: date) -> FetchedRange:
        return usage(self.settings, self.demo, first, last, use_history=True)

    def plan(self) -> PlanUsage:
        with shared.client(self.settings, self.demo) as client:
            return client.usage()

    def developer_keys(self) -> list[DeveloperKey]:
        with shared.client(self.settings, self.demo) as client:
            return client.developer_keys()

    def recorded_masks(self) -> dict[str, str]:
        audit = AuditLog.for_settings(self.settings, self.demo)
        return audit.recorded_masks() if audit else {}


def key_limits(
    settings: Settings, demo: bool, today: date, warning_at: float
) -> LimitStatus | None:
    """Every active key's own limits as budgets of the billing period (``limit_status``);
    None (said on stderr) when the key may not list keys."""
    try:
        return limit_status(Fetches(settings, demo), today, warning_at)
    except AuthorizationError:
        typer.echo("note: key limits not checked: only an admin key can list keys", err=True)
        return None
