"""`fetch_usage` (the key-day frame), `fetch_tags` (the tag-day frame), `fetch_pairs` (the
pair-day frame) and `fetch_pair_keys` (the pair-key-day frame) for any range, from the service
and the history store.

Each is one daily report fetched the same way (`_fetch_days`): closed days from history, the
rest in concurrent windows (see `windows`), each window in one request or, for a paged report,
page after page; fetched closed days are then stored.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import TypeVar

import httpx
import pandas as pd

from analytics.service import AsyncServiceClient, InvalidResponseError, blocking, invalid_response
from analytics.usage import calendar, frames, windows
from analytics.usage.history import (
    KEY_DAYS,
    PAIR_DAYS,
    PAIR_KEY_DAYS,
    TAG_DAYS,
    HistoryStore,
    Stored,
)

# The service's data runs to the previous UTC day and may still change for a few days after:
# the last OPEN_DAYS days before today are always fetched again, never taken from history.
OPEN_DAYS = 3
# Windows arrived so far, and windows planned.
Progress = Callable[[int, int], None]
T = TypeVar("T")
# The rows of one window, clipped to its days, and a reconciliation mismatch (None: none).
WindowRows = tuple[pd.DataFrame, str | None]
# One page's rows and the number of the page that follows (None on the last page).
PageRows = tuple[frames.Columns, int | None]


@dataclass
class FetchedRange:
    """A daily report's frame for start..end (inclusive UTC days), and how it was gathered:
    the key-day, tag-day or pair-day frame, whichever report was fetched."""

    frame: pd.DataFrame
    start: date
    end: date
    mismatches: list[str] = field(default_factory=list)
    windows_fetched: int = 0
    days_from_history: int = 0


@dataclass(frozen=True)
class DailyReport:
    """A report the pipeline reads day by day: how one window's rows are fetched, how row
    parts become its frame, and where its closed days are kept."""

    fetch: Callable[[AsyncServiceClient, windows.Window], Awaitable[WindowRows]]
    frame: Callable[[Sequence[pd.DataFrame]], pd.DataFrame]
    stored: Stored

    async def fetch_days(
        self,
        client: AsyncServiceClient,
        start: date,
        end: date,
        *,
        history: HistoryStore | None = None,
        today: date | None = None,
        progress: Progress | None = None,
    ) -> FetchedRange:
        """The report's frame for start..end: closed days from history when stored, the rest
        from the service in concurrent windows; fetched closed days that reconciled are then
        stored. `progress` hears of each window as it arrives."""
        if end < start:
            raise ValueError(f"the range ends ({end}) before it starts ({start})")
        closed_through = last_closed_day(today or calendar.utc_today())
        stored = history.read(self.stored, start, min(end, closed_through)) if history else None
        stored_rows, covered = stored if stored else (frames.empty_rows(self.stored.dtypes), set())
        missing = [
            day
            for offset in range((end - start).days + 1)
            if (day := start + timedelta(days=offset)) not in covered
        ]
        plan = [w for first, last in windows.runs(missing) for w in windows.split(first, last)]
        arrived = 0

        async def fetch(window: windows.Window) -> WindowRows:
            nonlocal arrived
            answer = await self.fetch(client, window)
            arrived += 1
            if progress:
                progress(arrived, len(plan))
            return answer

        fetched = await asyncio.gather(*map(fetch, plan))
        if history:
            # Only days that reconciled and can no longer change are kept.
            closed = [
                (w.first, min(w.last, closed_through))
                for w, (_, m) in zip(plan, fetched, strict=True)
                if m is None and w.first <= closed_through
            ]
            if closed:
                rows = pd.concat([rows for rows, _ in fetched], ignore_index=True)
                history.write(self.stored, rows, closed)
        return FetchedRange(
            frame=self.frame([stored_rows, *(rows for rows, _ in fetched)]),
            start=start,
            end=end,
            mismatches=[m for _, m in fetched if m],
            windows_fetched=len(plan),
            days_from_history=len(covered),
        )


def last_closed_day(today: date) -> date:
    """The newest day whose usage can no longer change."""
    return today - timedelta(days=OPEN_DAYS + 1)


def _decoded(response: httpx.Response, decode: Callable[[bytes], T]) -> T:
    """`decode` of the body; a body it refuses names the response's status and trace id."""
    try:
        return decode(response.content)
    except InvalidResponseError as exc:
        raise invalid_response(response, exc.message) from None


async def _key_day_window(client: AsyncServiceClient, window: windows.Window) -> WindowRows:
    response = await client.usage_report_raw(window.first, window.end_date, "key_and_day")
    rows, total = _decoded(response, frames.decode_key_day)
    # Reconcile on the whole answer: its total covers every row it returned, in-window or not.
    mismatch = frames.reconcile(rows, total, f"window {window}")
    return windows.clip(rows, window), mismatch


def paged_window(
    request: Callable[[AsyncServiceClient, windows.Window, int | None], Awaitable[httpx.Response]],
    decode: Callable[[bytes], PageRows],
    dtypes: Mapping[str, str],
) -> Callable[[AsyncServiceClient, windows.Window], Awaitable[WindowRows]]:
    """How a paged analytics report's window is fetched: `request` a page (None: the first),
    `decode` its rows and next_page, follow next_page until the last page, and make the
    pages' rows one frame of `dtypes`.

    Pages of one window are fetched in order (each names the next); windows still run
    concurrently. A next_page that does not move forward makes the answer invalid rather
    than a loop.
    """

    async def fetch(client: AsyncServiceClient, window: windows.Window) -> WindowRows:
        pages: list[frames.Columns] = []
        page: int | None = None
        while True:
            response = await request(client, window, page)
            rows, following = _decoded(response, decode)
            pages.append(rows)
            if following is None:
                return windows.clip(frames.page_rows(pages, dtypes), window), None
            if following <= (page or 1):
                raise invalid_response(
                    response, f"next_page {following} does not follow page {page or 1}"
                )
            page = following

    return fetch


def _tag_page(
    client: AsyncServiceClient, window: windows.Window, page: int | None
) -> Awaitable[httpx.Response]:
    return client.custom_tag_report_raw(window.first, window.end_date, "day", page)


def _pair_page(
    client: AsyncServiceClient, window: windows.Window, page: int | None
) -> Awaitable[httpx.Response]:
    return client.language_pair_report_raw(window.first, window.end_date, "day", page)


def _pair_key_page(
    client: AsyncServiceClient, window: windows.Window, page: int | None
) -> Awaitable[httpx.Response]:
    return client.language_pair_report_raw(window.first, window.end_date, "day", page, "key")


KEY_DAY_REPORT = DailyReport(_key_day_window, frames.key_day_frame, KEY_DAYS)
TAG_DAY_REPORT = DailyReport(
    paged_window(_tag_page, frames.decode_tag_day, frames.TAG_DAY_DTYPES),
    frames.tag_day_frame,
    TAG_DAYS,
)
PAIR_DAY_REPORT = DailyReport(
    paged_window(_pair_page, frames.decode_pair_day, frames.PAIR_DAY_DTYPES),
    frames.pair_day_frame,
    PAIR_DAYS,
)
PAIR_KEY_DAY_REPORT = DailyReport(
    paged_window(_pair_key_page, frames.decode_pair_key_day, frames.PAIR_KEY_DAY_DTYPES),
    frames.pair_key_day_frame,
    PAIR_KEY_DAYS,
)


# Usage of every key; characters of every custom tag; usage of every language pair, and of
# every pair per key (`-` for unattributed, several times the rows) — each per day, and each
# in the blocking form for the dashboard and the CLI. Only the key-day report has totals to
# reconcile.
fetch_usage_async = KEY_DAY_REPORT.fetch_days
fetch_tags_async = TAG_DAY_REPORT.fetch_days
fetch_pairs_async = PAIR_DAY_REPORT.fetch_days
fetch_pair_keys_async = PAIR_KEY_DAY_REPORT.fetch_days
fetch_usage = blocking(fetch_usage_async)
fetch_tags = blocking(fetch_tags_async)
fetch_pairs = blocking(fetch_pairs_async)
fetch_pair_keys = blocking(fetch_pair_keys_async)
