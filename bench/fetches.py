"""Paged daily reports fetched and merged from an in-process organization, timed against the
key-day frame of the same days."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pandas as pd

from analytics.connection import in_process_client
from analytics.usage.metrics import TEXT_CHARACTERS
from analytics.usage.pipeline import FetchedRange, fetch_usage
from bench import synthetic_orgs
from bench.timing import medians


def cold(emulator: Any, fetch: Callable[..., FetchedRange], *args: Any) -> FetchedRange:
    """A paged report's fetch as a new request meets it: the emulator keeps each window's
    rows between pages, and from an earlier fetch too; here every window is computed again."""
    emulator.store.forget_windows()
    return fetch(*args)


def against_key_days(
    scale: synthetic_orgs.Scale,
    fetch: Callable[..., FetchedRange],
    name: str,
    also: tuple[str, Callable[..., FetchedRange]] | None = None,
    *,
    app: Any = None,
    days: int = synthetic_orgs.DAYS,
) -> tuple[FetchedRange, FetchedRange, dict[str, float], FetchedRange | None]:
    """A paged daily report (`fetch`) and the key-day frame, five years (or the last `days`
    days) of each fetched and merged from the same in-process organization (the benchmark's,
    or `app`'s) without history, and their timings: the report's fetches cold (see `cold`),
    the key-day fetches as they are. `also` names one more report, fetched and timed cold just
    once (a figure to read, not a median)."""
    app = app or synthetic_orgs.app(scale.keys)
    emulator = app.state.emulator
    start, end = synthetic_orgs.last_days(emulator.today(), days)
    other = None
    with in_process_client(app) as client:
        report, usage = fetch(client, start, end), fetch_usage(client, start, end)
        times = medians(
            {
                "key_day": lambda: fetch_usage(client, start, end),
                name: lambda: cold(emulator, fetch, client, start, end),
            },
            scale.repeat,
            warmup=scale.warmup,
        )
        if also is not None:
            began = time.perf_counter()
            other = cold(emulator, also[1], client, start, end)
            times[f"{also[0]}_once"] = time.perf_counter() - began
    return report, usage, times, other


def tags_within_text(tag_day: pd.DataFrame, key_day: pd.DataFrame) -> bool:
    """Whether each day's tagged characters fit in that day's text characters."""
    tagged = tag_day.groupby("usage_date")["total_characters"].sum()
    text = key_day.groupby("usage_date")[list(TEXT_CHARACTERS)].sum().sum(axis=1)
    return bool((tagged <= text.reindex(tagged.index)).all())
