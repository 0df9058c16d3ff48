"""Exports: the five-year CSV against pandas' own writer, and the peak memory of the five-year
key-day export in a process of its own."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

from analytics.connection import in_process_client
from analytics.exports.formats import export_bytes, pandas_csv_bytes, spreadsheet_safe, write_export
from analytics.exports.shaping import shape_export
from analytics.service.client import ServiceClient
from analytics.usage.calendar import utc_today
from analytics.usage.history import HistoryStore
from analytics.usage.pipeline import FetchedRange, fetch_usage
from bench import synthetic_orgs
from bench.result_lines import Result, keep, result
from bench.timing import medians, rounded

GIB = 1024**3


def run_export(
    client: ServiceClient, start: dt.date, end: dt.date, store: HistoryStore, path: Path
) -> FetchedRange:
    """What `python -m analytics export` does for a configured service."""
    usage = fetch_usage(client, start, end, history=store)
    write_export(shape_export(usage.frame, start, end, "key_and_day"), path)
    return usage


def memory(scale: synthetic_orgs.Scale) -> list[Result]:
    """Peak resident memory of the five-year key-day export in its own process (its own
    high-water mark: see `bench.peak`)."""
    start, end = synthetic_orgs.five_years(utc_today())
    with tempfile.TemporaryDirectory() as folder:
        output, peak_file = Path(folder) / "usage.csv", Path(folder) / "peak-kb"
        command = [sys.executable, "-m", "bench.peak", str(peak_file), "analytics", "export"]
        command += ["--demo", "--output", str(output)]
        command += ["--start", start.isoformat(), "--end", end.isoformat()]
        environment = {
            **os.environ,
            "PYTHONPATH": str(synthetic_orgs.ROOT),
            "SERVICE_DEMO_KEYS": str(scale.keys),
            "SERVICE_DEMO_DAYS": str(synthetic_orgs.DAYS),
            "SERVICE_DEMO_SEED": str(synthetic_orgs.SEED),
        }
        returncode = subprocess.run(command, cwd=synthetic_orgs.ROOT, env=environment).returncode
        rows = sum(1 for _ in output.open("rb")) - 1 if output.exists() else 0
        peak = int(peak_file.read_text()) * 1024
    return [
        result(
            "memory_export",
            peak / GIB,
            0.5,
            {"export_succeeded": returncode == 0},
            peak_rss_mb=round(peak / 1024**2),
            rows=rows,
        )
    ]


@cache
def five_year_usage(keys: int) -> FetchedRange:
    """The whole five years of the in-process organization, fetched like demo mode does."""
    app = synthetic_orgs.app(keys)
    with in_process_client(app) as client:
        return fetch_usage(client, *synthetic_orgs.five_years(app.state.emulator.today()))


def csv_export(scale: synthetic_orgs.Scale) -> list[Result]:
    usage = five_year_usage(scale.keys)
    table = shape_export(usage.frame, usage.start, usage.end, "key_and_day")
    safe = spreadsheet_safe(table)
    ours, reference = export_bytes(table, "csv"), pandas_csv_bytes(safe)
    keep("csv_export", "exports.csv", ours)
    keep("csv_export", "pandas_to_csv.csv", reference)
    times = medians(
        {
            "pandas_to_csv": lambda: pandas_csv_bytes(safe),
            "exports": lambda: export_bytes(table, "csv"),
        },
        scale.repeat,
        warmup=scale.warmup,
    )
    return [
        result(
            "csv_export",
            times["exports"] / times["pandas_to_csv"],
            0.5,
            {"identical": ours == reference},
            seconds=rounded(times),
            rows=len(table),
        )
    ]
