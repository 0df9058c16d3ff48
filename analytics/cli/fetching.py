"""Fetching a range for a command: the history store of a configured service, and a progress
bar when a person watches (a terminal); quiet under cron."""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import date
from typing import TypeVar

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from analytics.cli import shared
from analytics.service.models import PlanUsage
from analytics.service.settings import Settings
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


def plan_usage(settings: Settings, demo: bool) -> PlanUsage:
    with shared.client(settings, demo) as client:
        return client.usage()
