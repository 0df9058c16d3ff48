"""Fetching for a command: a range through the history store of a configured service, with a
progress bar when a person watches (a terminal), quiet under cron; and `Fetches`, the reader
through which the library's answers (the plan, budgets, key limits, anomalies) ask for what
they read.

Every daily report a command reads passes through one ``Visible`` (``analytics.access``): the
whole organization by default, one team with ``--team``; so what a command writes under a
team is what that team's lead sees, and no command filters on its own."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import cast

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from analytics.access import EVERYTHING, Read, Visible
from analytics.cli import connecting
from analytics.exports import REPORTS, Report
from analytics.keys import AuditLog, LimitStatus, limit_status
from analytics.service import AuthorizationError, DeveloperKey, PlanUsage, ServiceConnection
from analytics.usage import FetchedRange, HistoryStore


def _fetch(
    fetch: Callable[..., FetchedRange],
    what: str,
    connection: ServiceConnection,
    demo: bool,
    first: date,
    last: date,
    use_history: bool,
) -> FetchedRange:
    """`fetch(client, first, last, history=..., progress=...)` (fetch_usage, fetch_tags,
    fetch_pairs, fetch_pair_keys) with the history store of a configured service, and a
    progress bar on a terminal."""
    with connecting.client(connection, demo) as client:
        history = HistoryStore.from_connection(connection) if use_history and not demo else None
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


def reader(
    connection: ServiceConnection, demo: bool, first: date, last: date, use_history: bool
) -> Callable[[str], FetchedRange]:
    """The organization's daily reports of first..last by name (``usage``, ``tags``, ``pairs``,
    ``pair_keys``), through the history store of a configured service only.

    A reconciliation mismatch is logged as one WARNING line on stderr; the run still succeeds.
    """

    def read(name: str) -> FetchedRange:
        how = REPORTS[cast(Report, name)]
        return _fetch(how.fetch, how.what, connection, demo, first, last, use_history)

    return read


def fetched(
    report: Report,
    connection: ServiceConnection,
    demo: bool,
    first: date,
    last: date,
    use_history: bool,
    visible: Visible = EVERYTHING,
) -> Read:
    """The daily report ``report`` of first..last through ``visible`` (``Visible.read``); a
    team's pairs come from the pair-key-day report, fetched once."""
    return visible.read(report, reader(connection, demo, first, last, use_history))


@dataclass(frozen=True)
class Fetches:
    """The command line's reader of what a question asks for (``analytics.keys.listed``
    ``KeyReader``): each asked of the service when the question needs it, usage through the
    history store of a configured service, usage and keys as ``visible`` shows them."""

    connection: ServiceConnection
    demo: bool
    visible: Visible = field(default=EVERYTHING, kw_only=True)

    def usage(self, first: date, last: date) -> FetchedRange:
        read = fetched("usage", self.connection, self.demo, first, last, True, self.visible)
        return read.shown

    def plan(self) -> PlanUsage:
        with connecting.client(self.connection, self.demo) as client:
            return client.usage()

    def developer_keys(self) -> list[DeveloperKey]:
        """The listed keys ``visible`` shows, each matched to its team by the mask recorded
        for it, its key id's mask or its label in the key list."""
        with connecting.client(self.connection, self.demo) as client:
            keys = client.developer_keys()
        if self.visible.scope.whole:  # no audit log to open
            return keys
        return self.visible.developer_keys(keys, {}, self.recorded_masks())

    def recorded_masks(self) -> dict[str, str]:
        audit = AuditLog.for_connection(self.connection, self.demo)
        return audit.recorded_masks() if audit else {}


def key_limits(
    connection: ServiceConnection,
    demo: bool,
    today: date,
    warning_at: float,
    visible: Visible = EVERYTHING,
) -> LimitStatus | None:
    """Every active key's own limits (of the keys ``visible`` shows) as budgets of the billing
    period (``limit_status``); None (said on stderr) when the key may not list keys."""
    try:
        return limit_status(Fetches(connection, demo, visible=visible), today, warning_at)
    except AuthorizationError:
        typer.echo("note: key limits not checked: only an admin key can list keys", err=True)
        return None
