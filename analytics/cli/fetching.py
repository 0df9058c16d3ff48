"""Fetching a range for a command: the history store of a configured service, and a progress
bar when a person watches (a terminal); quiet under cron."""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import date
from typing import TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from analytics.capacity.budgets import Evaluation
from analytics.capacity.plan import billing_period, usage_range
from analytics.cli import shared
from analytics.keys.audit import AuditLog
from analytics.keys.limits import limit_evaluations, overview
from analytics.service.errors import AuthorizationError
from analytics.service.models import DeveloperKey, PlanUsage
from analytics.service.settings import Settings
from analytics.usage.frames import labels
from analytics.usage.history import HistoryStore
from analytics.usage.pipeline import Usage, fetch_usage

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


def usage(settings: Settings, demo: bool, first: date, last: date, use_history: bool) -> Usage:
    """Usage of first..last (history store only for a configured service).

    A reconciliation mismatch is logged as one WARNING line on stderr; the run still succeeds.
    """
    return fetched(fetch_usage, "usage", settings, demo, first, last, use_history)


def developer_keys(settings: Settings, demo: bool) -> list[DeveloperKey] | None:
    """Every developer key, or None (said on stderr) when the key may not list them."""
    with shared.client(settings, demo) as client:
        try:
            return client.developer_keys()
        except AuthorizationError:
            typer.echo("note: key limits not checked: only an admin key can list keys", err=True)
            return None


def plan_usage(settings: Settings, demo: bool) -> PlanUsage:
    with shared.client(settings, demo) as client:
        return client.usage()


def key_limits(
    settings: Settings, demo: bool, today: date, warning_at: float
) -> tuple[list[Evaluation], dict[str, str]] | None:
    """Every active key's own limits as budgets of the billing period (warning at
    `warning_at`), and the labels of the masked keys they cover; None when the key may not
    list keys."""
    keys = developer_keys(settings, demo)
    if keys is None:
        return None
    plan = plan_usage(settings, demo)
    period = billing_period(plan)
    first, last = usage_range(plan, today)
    read = usage(settings, demo, first, last, use_history=True)
    audit = AuditLog.for_settings(settings, demo)
    recorded = audit.recorded_masks() if audit else {}
    rows = overview(keys, period, read.frame, read.start, today, recorded)
    return limit_evaluations(rows, period, warning_at), labels(read.frame)
