"""Data out: the FOCUS export against the plain export with cost (both Parquet), a nightly
`export-dataset` run against the first full one into the same folder, and the HTTP API's
`/api/v1/usage` against `export` of the same range."""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import io
import json
import statistics
import tempfile
from collections.abc import Callable, Iterator
from decimal import Decimal
from functools import partial
from pathlib import Path

import pandas as pd

from analytics.access.tokens import Tokens
from analytics.api.http_app import PREFIX, ApiSettings, create_app
from analytics.cli import connecting
from analytics.cli.datasets import export_dataset
from analytics.cli.exports import export
from analytics.cost.prices import parse_pricing
from analytics.cost.teams import load_teams
from analytics.exports.dataset import MANIFEST, PART
from analytics.exports.focus import BillingAccount, focus_file_table, focus_table
from analytics.exports.formats import Format, export_bytes
from analytics.exports.shaping import Costing, shape_export
from analytics.storage.bundle import bundle_folder
from analytics.usage.calendar import CLOCK_VARIABLE, utc_now, utc_today
from analytics.usage.pipeline import last_closed_day
from analytics.usage.records import records_of
from bench import synthetic_orgs
from bench.exports import five_year_usage
from bench.pricing import BENCH_PRICING
from bench.result_lines import Result, keep, result
from bench.timing import medians, rounded, timed

CENT = Decimal("0.01")
TEAMS_FILE = bundle_folder() / "teams.example.toml"


def focus_export(scale: synthetic_orgs.Scale) -> list[Result]:
    """The five-year FOCUS file of the benchmark organization against the plain key-day
    export with cost of the same range, both in Parquet (the format FinOps tools read FOCUS
    in) from the fetched frame to the file's bytes, with the benchmark's prices (a change
    halfway, a base fee, included volumes) and teams.example.toml; both in CSV beside it,
    reported, not scored (a FOCUS row has 36 columns, the export's 15). The FOCUS rows'
    BilledCost must add up to the export's total cost."""
    usage = five_year_usage(scale.keys)
    frame, start, end = usage.frame, usage.start, usage.end
    pricing = parse_pricing(BENCH_PRICING.format(first=start, change=start + (end - start) / 2))
    costing = Costing(pricing, load_teams(TEAMS_FILE))
    account = BillingAccount("bench", "Benchmark organization")

    def plain(fmt: Format) -> bytes:
        return export_bytes(shape_export(frame, start, end, "key_and_day", costing, True), fmt)

    def focus(fmt: Format) -> bytes:
        rows = focus_table(frame, pricing, costing.teams, start, end, account)
        return export_bytes(focus_file_table(rows, csv=fmt == "csv"), fmt)

    ours, reference = focus("csv"), plain("csv")
    keep("focus_export", "focus.csv", ours)
    keep("focus_export", "export_with_cost.csv", reference)
    billed = _column_total(ours, "BilledCost")
    total = _column_total(reference, f"total_cost_{pricing.currency.lower()}")
    in_parquet = pd.read_parquet(io.BytesIO(focus("parquet")), columns=["BilledCost"])
    contenders = {
        f"{name}_{fmt}": partial(make, fmt)
        for fmt in ("parquet", "csv")
        for name, make in (("export_with_cost", plain), ("focus", focus))
    }
    times = medians(contenders, scale.repeat, warmup=scale.warmup)
    parquet = times["focus_parquet"] / times["export_with_cost_parquet"]
    return [
        result(
            "focus_export",
            parquet,
            1.5,
            {
                "billed_cost_is_total_cost": billed.quantize(CENT) == total.quantize(CENT),
                "parquet_billed_cost_is_csvs": sum(in_parquet["BilledCost"]) == billed,
            },
            seconds=rounded(times),
            csv_ratio=round(times["focus_csv"] / times["export_with_cost_csv"], 4),
            billed_cost=str(billed),
            total_cost=str(total),
            key_days=len(frame),
        )
    ]


def _column_total(csv: bytes, column: str) -> Decimal:
    """The exact sum of a CSV column of decimal amounts (empty cells left out)."""
    cells = pd.read_csv(io.BytesIO(csv), usecols=[column], dtype=str, keep_default_na=False)
    return sum((Decimal(cell) for cell in cells[column] if cell), Decimal(0))


def dataset_incremental(scale: synthetic_orgs.Scale) -> list[Result]:
    """`export-dataset` of the five years into an empty folder on one day, then again the
    next day, with one new day of usage, into the same folder: the nightly run against the
    first, each against the emulator process through a history store of its own, as a timer
    runs it (in this process, so neither pays Python's start). The second run must write the
    new day's month (whose base-fee shares a new day moves) and the open days alone, and leave
    a manifest listing every partition the folder holds."""
    with (
        synthetic_orgs.emulator_process(scale.keys) as served,
        tempfile.TemporaryDirectory() as tmp,
    ):
        folder = Path(tmp)
        today = utc_today()
        start, new_day = synthetic_orgs.five_years(today)
        pricing = folder / "pricing.toml"
        pricing.write_text(BENCH_PRICING.format(first=start, change=start + (new_day - start) / 2))
        service = {"SERVICE_BASE_URL": served.base_url, "SERVICE_AUTH_KEY": served.admin_key}
        firsts, seconds, outcomes = [], [], []
        for attempt in range(max(2, scale.repeat - 2)):
            history, dataset = folder / f"history-{attempt}", folder / f"dataset-{attempt}"
            run = _dataset_run(dataset, pricing, start)
            with synthetic_orgs.environment({**service, "SERVICE_HISTORY_PATH": str(history)}):
                with _clock(today - dt.timedelta(days=1)):
                    firsts.append(timed(partial(run, new_day - dt.timedelta(days=1)))[0])
                before = _partitions(dataset)
                with _clock(today):
                    seconds.append(timed(partial(run, new_day))[0])
            after = _partitions(dataset)
            rewritten = {path for path, file in after.items() if before.get(path) != file}
            outcomes.append((rewritten, set(after), _manifest_lists(dataset, set(after))))
    since = min(new_day.replace(day=1), last_closed_day(today) + dt.timedelta(days=1))
    rewritten, partitions, _ = outcomes[-1]
    times = {"first": statistics.median(firsts), "second": statistics.median(seconds)}
    return [
        result(
            "dataset_incremental",
            times["second"] / times["first"],
            0.05,
            {
                "only_new_month_and_open_days_written": all(
                    _as_expected(done, held, new_day, since) for done, held, _ in outcomes
                ),
                "manifest_lists_every_partition": all(listed for _, _, listed in outcomes),
            },
            seconds=rounded(times),
            partitions=len(partitions),
            second_run_written=len(rewritten),
            written_from=since.isoformat(),
        )
    ]


def _dataset_run(dataset: Path, pricing: Path, start: dt.date) -> Callable[[dt.date], None]:
    """`export-dataset --to DATASET` of start..last, its line on stderr left unread."""

    def run(last: dt.date) -> None:
        with contextlib.redirect_stderr(io.StringIO()):
            export_dataset(
                to=str(dataset),
                start=start.isoformat(),
                end=last.isoformat(),
                pricing=pricing,
                teams=TEAMS_FILE,
            )

    return run


@contextlib.contextmanager
def _clock(day: dt.date) -> Iterator[None]:
    """Noon UTC of ``day`` as the clock of the block (the run's pinned clock after it)."""
    with synthetic_orgs.environment({CLOCK_VARIABLE: f"{day.isoformat()}T12:00:00+00:00"}):
        yield


def _partitions(dataset: Path) -> dict[str, tuple[int, int]]:
    """Each partition's file under the dataset, by its path, as the file system knows it (a
    file written again, renamed over the old one, is another file)."""
    found = {}
    for file in dataset.rglob(PART):
        status = file.stat()
        found[file.relative_to(dataset).as_posix()] = (status.st_ino, status.st_mtime_ns)
    return found


def _day(path: str) -> dt.date:
    """The day of a partition's path (``usage/date=YYYY-MM-DD/part.parquet``)."""
    return dt.date.fromisoformat(path.split("/")[1].removeprefix("date="))


def _as_expected(written: set[str], held: set[str], new_day: dt.date, since: dt.date) -> bool:
    """The second run wrote the new day's partitions and none before ``since``."""
    new = {path for path in held if _day(path) == new_day}
    return bool(new) and new <= written and all(_day(path) >= since for path in written)


def _manifest_lists(dataset: Path, held: set[str]) -> bool:
    """The manifest lists exactly the partitions the folder holds, each with its file's hash."""
    listed = json.loads((dataset / MANIFEST).read_bytes())["partitions"]
    hashes = {entry["path"]: entry["sha256"] for entry in listed}
    return set(hashes) == held and all(
        hashlib.sha256((dataset / path).read_bytes()).hexdigest() == digest
        for path, digest in hashes.items()
    )


def api_usage(scale: synthetic_orgs.Scale) -> list[Result]:
    """`/api/v1/usage` of a year of key-and-day as CSV, asked with an organization's token of
    the API in this process (through FastAPI's test client), against `export` of the same range
    in this process, both of the demo organization of the benchmark's size; the same bytes."""
    with (
        tempfile.TemporaryDirectory() as folder,
        synthetic_orgs.demo_environment(folder),
        synthetic_orgs.environment({"SERVICE_DEMO_KEYS": str(scale.keys)}),
    ):
        first, last = synthetic_orgs.last_days(utc_today(), 365)
        days = {"start": first.isoformat(), "end": last.isoformat()}
        records = records_of(connecting.service_connection(), demo=True)
        assert records is not None  # the history folder holds the demo's store
        _, token = Tokens(records).create(None, "benchmark", utc_now())
        written = Path(folder) / "usage.csv"
        app = create_app(ApiSettings(demo=True, rate=1000.0, burst=1000))
        # Imported here: starlette's test client warns of its httpx on import, which every
        # run of the benchmark would otherwise print, whether it asks the API or not.
        from fastapi.testclient import TestClient

        with TestClient(app) as client:

            def served() -> bytes:
                response = client.get(
                    f"{PREFIX}/usage",
                    params={**days, "group_by": "key_and_day", "format": "csv"},
                    headers={"Authorization": f"Bearer {token}"},
                )
                response.raise_for_status()
                content: bytes = response.content
                return content

            def exported() -> bytes:
                export(written, days["start"], days["end"], group_by="key_and_day", demo=True)
                return written.read_bytes()

            ours, reference = served(), exported()
            keep("api_usage", "api_usage.csv", ours)
            keep("api_usage", "export.csv", reference)
            times = medians({"export": exported, "api": served}, scale.repeat, warmup=scale.warmup)
    return [
        result(
            "api_usage",
            times["api"] / times["export"],
            1.2,
            {"same_rows": ours == reference},
            seconds=rounded(times),
            rows=ours.count(b"\n") - 1,
            days=365,
        )
    ]
