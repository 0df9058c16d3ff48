"""`fetch_usage`: the key-day frame for any range, from the service and the history store."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import TYPE_CHECKING

import pandas as pd

from analytics.service.client import AsyncServiceClient, blocking, invalid_response
from analytics.service.errors import InvalidResponseError
from analytics.usage import frames, windows
from analytics.usage.calendar import utc_today

if TYPE_CHECKING:
    from analytics.usage.history import HistoryStore

# The service's data runs to the previous UTC day and may still change for a few days after:
# the last OPEN_DAYS days before today are always fetched again, never taken from history.
OPEN_DAYS = 3
# Windows arrived so far, and windows planned.
Progress = Callable[[int, int], None]


@dataclass
class Usage:
    """Usage of every key on every day of start..end (inclusive UTC days)."""

    key_day: pd.DataFrame
    start: date
    end: date
    mismatches: list[str] = field(default_factory=list)
    windows_fetched: int = 0
    days_from_history: int = 0


def last_closed_day(today: date) -> date:
    """The newest day whose usage can no longer change."""
    return today - timedelta(days=OPEN_DAYS + 1)


async def _fetch_window(
    client: AsyncServiceClient, window: windows.Window
) -> tuple[pd.DataFrame, str | None]:
    response = await client.usage_report_raw(window.first, window.end_date, "key_and_day")
    try:
        rows, total = frames.decode_key_day(response.content)
    except InvalidResponseError as exc:
        raise invalid_response(response, exc.message) from None
    # Reconcile on the whole answer: its total covers every row it returned, in-window or not.
    mismatch = frames.reconcile(rows, total, f"window {window}")
    return windows.clip(rows, window), mismatch


async def fetch_usage_async(
    client: AsyncServiceClient,
    start: date,
    end: date,
    *,
    history: HistoryStore | None = None,
    today: date | None = None,
    progress: Progress | None = None,
) -> Usage:
    """Usage for start..end: closed days from history when stored, the rest from the service
    in concurrent windows (see `windows`); fetched closed days are then stored. `progress`
    hears of each window as it arrives."""
    if end < start:
        raise ValueError(f"the range ends ({end}) before it starts ({start})")
    closed_through = last_closed_day(today or utc_today())
    stored = history.read(start, min(end, closed_through)) if history else None
    stored_rows, covered = stored if stored else (frames.empty_rows(), set())
    missing = [
        day
        for offset in range((end - start).days + 1)
        if (day := start + timedelta(days=offset)) not in covered
    ]
    plan = [w for first, last in windows.runs(missing) for w in windows.split(first, last)]
    arrived = 0

    async def fetch(window: windows.Window) -> tuple[pd.DataFrame, str | None]:
        nonlocal arrived
        answer = await _fetch_window(client, window)
        arrived += 1
        if progress:
            progress(arrived, len(plan))
        return answer

    fetched = await asyncio.gather(*map(fetch, plan))
    mismatches = [m for _, m in fetched if m]
    if history:
        # Only days that reconciled and can no longer change are kept.
        closed = [
            (w.first, min(w.last, closed_through))
            for w, (_, m) in zip(plan, fetched, strict=True)
            if m is None and w.first <= closed_through
        ]
        if closed:
            history.write(pd.concat([rows for rows, _ in fetched], ignore_index=True), closed)
    return Usage(
        key_day=frames.key_day_frame([stored_rows, *(rows for rows, _ in fetched)]),
        start=start,
        end=end,
        mismatches=mismatches,
        windows_fetched=len(plan),
        days_from_history=len(covered),
    )


# The blocking form, for the dashboard and the CLI.
fetch_usage = blocking(fetch_usage_async)
