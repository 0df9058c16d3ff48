"""Fetching in windows: five years' windows in flight at once against one at a time, and a
second export against the same history store fetching only the window that can still change."""

from __future__ import annotations

import datetime as dt
import statistics
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from analytics.service.client import Policy, ServiceClient
from analytics.usage.calendar import utc_today
from analytics.usage.history import HistoryStore
from analytics.usage.pipeline import FetchedRange, fetch_usage, last_closed_day
from bench import synthetic_orgs
from bench.decoding import same_frame
from bench.exports import run_export
from bench.result_lines import Result, keep, result
from bench.timing import medians, rounded, timed
from emulator import EmulatorConfig

LATENCY_MS = 200
LATENCY_BOUND_KEYS = EmulatorConfig().keys


def concurrent_windows(scale: synthetic_orgs.Scale) -> list[Result]:
    """Five years (five windows) from the emulator process answering after 200 ms: the same
    client one window at a time against its default concurrency.

    Gated on the emulator's default organization, where the answers are small enough that
    waiting dominates; the full organization's figure is reported alongside, where decoding
    150,000 rows per window (one core per process) dominates instead.
    """
    latency_bound = _fetch_times(LATENCY_BOUND_KEYS, scale.latency_rounds)
    full = _fetch_times(scale.keys, 1)
    identical = latency_bound.pop("identical")
    return [
        result(
            "concurrent_windows",
            latency_bound.pop("ratio"),
            0.35,
            {"identical": identical},
            **latency_bound,
            latency_ms=LATENCY_MS,
            full_organization=full,
        )
    ]


def _fetch_times(keys: int, repeat: int) -> dict[str, Any]:
    """Seconds to fetch five years one window at a time and with the client's default
    concurrency."""
    with synthetic_orgs.emulator_process(keys, latency_ms=LATENCY_MS) as served:
        start, end = synthetic_orgs.five_years(utc_today())
        key = SecretStr(served.admin_key)
        with (
            ServiceClient(served.base_url, key, policy=Policy(concurrency=1)) as one_by_one,
            ServiceClient(served.base_url, key) as default,
        ):
            clients = {"sequential": one_by_one, "concurrent": default}
            fetched = {name: fetch_usage(client, start, end) for name, client in clients.items()}
            times = medians(
                {name: _fetcher(client, start, end) for name, client in clients.items()},
                repeat,
                warmup=0,
            )
    frames_fetched = [usage.frame for usage in fetched.values()]
    return {
        "keys": keys,
        "ratio": round(times["concurrent"] / times["sequential"], 4),
        "identical": all(same_frame(frames_fetched[0], other) for other in frames_fetched[1:]),
        "seconds": rounded(times),
        "windows": fetched["concurrent"].windows_fetched,
    }


def _fetcher(client: ServiceClient, start: dt.date, end: dt.date) -> Callable[[], FetchedRange]:
    return lambda: fetch_usage(client, start, end)


def incremental_refresh(scale: synthetic_orgs.Scale) -> list[Result]:
    """The same five-year CSV export twice against one history store: the second run fetches
    only the days that can still change."""
    with (
        synthetic_orgs.emulator_process(scale.keys) as served,
        tempfile.TemporaryDirectory() as folder,
    ):
        start, end = synthetic_orgs.five_years(utc_today())
        key = SecretStr(served.admin_key)
        first_runs, second_runs, outcomes = [], [], []
        with ServiceClient(served.base_url, key) as client:
            for attempt in range(max(2, scale.repeat - 2)):
                store = HistoryStore(Path(folder) / f"history-{attempt}.duckdb")
                first = Path(folder) / f"first-{attempt}.csv"
                second = Path(folder) / f"second-{attempt}.csv"
                first_runs.append(timed(partial(run_export, client, start, end, store, first))[0])
                took, again = timed(partial(run_export, client, start, end, store, second))
                second_runs.append(took)
                outcomes.append((first.read_bytes() == second.read_bytes(), again))
                keep("incremental_refresh", first.name, first)
                keep("incremental_refresh", second.name, second)
    times = {"first": statistics.median(first_runs), "second": statistics.median(second_runs)}
    again = outcomes[-1][1]
    return [
        result(
            "incremental_refresh",
            times["second"] / times["first"],
            0.08,
            {
                "identical": all(same for same, _ in outcomes),
                "only_open_days_fetched": again.windows_fetched == 1
                and again.days_from_history == (end - start).days + 1 - _open_days(end),
            },
            seconds=rounded(times),
            second_run_windows=again.windows_fetched,
            second_run_days_from_history=again.days_from_history,
        )
    ]


def _open_days(end: dt.date) -> int:
    return (end - last_closed_day(utc_today())).days
