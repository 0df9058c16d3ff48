"""The measured targets: each returns result lines `{"name", "ratio", "target", "ok", ...}`.

`ratio` is always "ours / reference" (or a figure over its limit, or a goal over what was
reached), and `ok` means `ratio <= target` with every side condition (identical output, figure
sizes) met.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache, partial
from pathlib import Path
from typing import Any

import httpx
import msgspec
import numpy as np
import orjson
import pandas as pd
from pydantic import SecretStr

from analytics.anomalies.detect import LOOKBACK_DAYS, Anomaly, find_anomalies
from analytics.anomalies.marks import Marks
from analytics.anomalies.tables import new_anomalies
from analytics.cost.chargeback import chargeback
from analytics.cost.prices import parse_pricing
from analytics.cost.teams import load_teams
from analytics.exports.files import export_bytes, pandas_csv_bytes, spreadsheet_safe, write_export
from analytics.exports.tables import shape_export
from analytics.service.client import Policy, ServiceClient
from analytics.service.demo import DEMO_BASE_URL
from analytics.service.models import AdminUsageReport, KeyAndDayUsage
from analytics.usage import frames
from analytics.usage.bundle import bundle_folder
from analytics.usage.calendar import utc_today
from analytics.usage.history import HistoryStore
from analytics.usage.metrics import (
    CHARACTER_METRICS,
    METRICS,
    MINUTE_METRICS,
    SERVICE_CHARACTERS,
    TOTAL_CHARACTERS,
)
from analytics.usage.pipeline import (
    Usage,
    fetch_pair_keys,
    fetch_pairs,
    fetch_tags,
    fetch_usage,
    last_closed_day,
)
from bench import browser, org, tags
from bench.fetches import against_key_days, tags_within_text
from bench.lines import MAX_FIGURE_BYTES, Result, keep, result
from bench.timing import medians, rounded, timed
from emulator import EmulatorConfig, Injected, create_app
from emulator.synthetic import INJECT_DAYS, STARTS_WITHIN

GIB = 1024**3
SMALL_KEYS = 10
LATENCY_MS = 200
LATENCY_BOUND_KEYS = EmulatorConfig().keys


# --- 1. decoding -----------------------------------------------------------------------------


def naive_key_day(body: bytes) -> pd.DataFrame:
    """The obvious way to the same frame: dicts first, then flatten, rename and fix dtypes."""
    items = json.loads(body)["usage_report"]["key_and_day_usages"]
    frame = pd.json_normalize(items).rename(columns=lambda c: c.removeprefix("usage."))
    days = pd.to_datetime(frame["usage_date"]).dt.tz_localize(None)
    frame["usage_date"] = days.astype(frames.DATE_DTYPE)
    frame = frame.astype(
        {**dict.fromkeys(CHARACTER_METRICS, "int64"), **dict.fromkeys(MINUTE_METRICS, "float64")}
    )
    frame = frame.sort_values(["usage_date", "api_key"], kind="stable", ignore_index=True)
    latest = frame.drop_duplicates("api_key", keep="last").set_index("api_key")["api_key_label"]
    frame["api_key_label"] = frame["api_key"].map(latest)
    for column in ("api_key", "api_key_label"):
        categories = sorted(frame[column].unique())
        frame[column] = pd.Categorical(frame[column], categories=categories)
    return frame[frames.KEY_DAY_COLUMNS]


class _StrictUsage(msgspec.Struct, frozen=True, gc=False):
    """The analytics answer as the spec reads it, every field required: what tolerant decoding
    (absent counts are 0, absent labels empty, two names for the rows) is measured against."""

    total_characters: int
    text_translation_characters: int
    document_translation_characters: int
    text_improvement_characters: int
    speech_to_text_minutes: float
    speech_to_speech_minutes: float


class _StrictRow(msgspec.Struct, frozen=True, gc=False):
    api_key: str
    api_key_label: str
    usage: _StrictUsage
    usage_date: str


class _StrictReport(msgspec.Struct, frozen=True):
    total_usage: _StrictUsage
    start_date: str
    end_date: str
    key_and_day_usages: list[_StrictRow]
    group_by: str | None = None


class _StrictAnswer(msgspec.Struct, frozen=True):
    usage_report: _StrictReport


def tidy_key_day(body: bytes) -> pd.DataFrame:
    return frames.key_day_frame([frames.decode_key_day(body)[0]])


def same_frame(left: pd.DataFrame, right: pd.DataFrame) -> bool:
    try:
        pd.testing.assert_frame_equal(left, right)
    except AssertionError:
        return False
    return True


def decoding(scale: org.Scale) -> list[Result]:
    body = org.key_and_day_body(scale.keys, 366)
    identical = same_frame(naive_key_day(body), tidy_key_day(body))
    times = medians(
        {
            "naive": lambda: naive_key_day(body),
            "frames": lambda: tidy_key_day(body),
            "orjson_loads": lambda: orjson.loads(body),
        },
        scale.repeat,
    )
    tolerant, strict = (
        msgspec.json.Decoder(AdminUsageReport[KeyAndDayUsage]),
        msgspec.json.Decoder(_StrictAnswer),
    )
    typed = medians(
        {"tolerant": lambda: tolerant.decode(body), "strict": lambda: strict.decode(body)},
        scale.repeat,
    )
    raw = {"seconds": rounded(times), "body_mb": round(len(body) / 1e6, 1)}
    return [
        result(
            "decode_vs_naive",
            times["frames"] / times["naive"],
            0.2,
            {"identical": identical},
            **raw,
        ),
        result("decode_vs_orjson", times["frames"] / times["orjson_loads"], 0.5, {}, **raw),
        result(
            "decode_tolerance",
            typed["tolerant"] / typed["strict"],
            1.1,
            {},
            seconds=rounded(typed),
            body_mb=raw["body_mb"],
        ),
    ]


# --- 2. concurrent windows -------------------------------------------------------------------


def concurrent_windows(scale: org.Scale) -> list[Result]:
    """Five years (five windows) from the emulator process answering after 200 ms: the same
    client one window at a time against its default concurrency.

    Gated on the emulator's default organization, where the answers are small enough that
    waiting dominates; the full organization's figure is reported alongside, where decoding
    150,000 rows per window (one core per process) dominates instead.
    """
    latency_bound = _fetch_times(LATENCY_BOUND_KEYS, max(3, scale.repeat - 2))
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
    with org.emulator_process(keys, latency_ms=LATENCY_MS) as served:
        start, end = org.five_years(utc_today())
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


def _fetcher(client: ServiceClient, start: dt.date, end: dt.date) -> Callable[[], Usage]:
    return lambda: fetch_usage(client, start, end)


# --- 3. incremental refresh ------------------------------------------------------------------


def incremental_refresh(scale: org.Scale) -> list[Result]:
    """The same five-year CSV export twice against one history store: the second run fetches
    only the days that can still change."""
    with org.emulator_process(scale.keys) as served, tempfile.TemporaryDirectory() as folder:
        start, end = org.five_years(utc_today())
        key = SecretStr(served.admin_key)
        first_runs, second_runs, outcomes = [], [], []
        with ServiceClient(served.base_url, key) as client:
            for attempt in range(max(2, scale.repeat - 2)):
                store = HistoryStore(Path(folder) / f"history-{attempt}.duckdb")
                first = Path(folder) / f"first-{attempt}.csv"
                second = Path(folder) / f"second-{attempt}.csv"
                first_runs.append(timed(partial(_export, client, start, end, store, first))[0])
                took, again = timed(partial(_export, client, start, end, store, second))
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


def _export(
    client: ServiceClient, start: dt.date, end: dt.date, store: HistoryStore, path: Path
) -> Usage:
    """What `python -m analytics export` does for a configured service."""
    usage = fetch_usage(client, start, end, history=store)
    write_export(shape_export(usage.frame, start, end, "key_and_day"), path)
    return usage


def _open_days(end: dt.date) -> int:
    return (end - last_closed_day(utc_today())).days


# --- 4. scale-invariant pages ----------------------------------------------------------------

PAGES = ("trends", "keys")


def pages(scale: org.Scale) -> list[Result]:
    """Trends and Keys over the whole five years, warm cache, big organization against small."""
    from streamlit.testing.v1 import AppTest

    from analytics.dashboard.navigation import page_at

    def render(keys: int, figures: list[int]) -> Callable[[], None]:
        def run() -> None:
            os.environ["SERVICE_DEMO_KEYS"] = str(keys)
            for page in PAGES:
                at = AppTest.from_string(org.APP_LAUNCHER, default_timeout=600)
                at.query_params["period"] = "All history"
                at.run()
                at.switch_page(str(page_at(page).file)).run()
                if at.exception:
                    raise RuntimeError(f"{page} failed: {at.exception[0].message}")
                figures.extend(len(chart.proto.spec.encode()) for chart in at.get("plotly_chart"))

        return run

    sizes: dict[str, list[int]] = {"big": [], "small": []}
    with tempfile.TemporaryDirectory() as folder, org.demo_environment(folder):
        times = medians(
            {
                "big": render(scale.keys, sizes["big"]),
                "small": render(SMALL_KEYS, sizes["small"]),
            },
            scale.repeat,
        )
    largest = max(sizes["big"] + sizes["small"])
    return [
        result(
            "pages_scale",
            times["big"] / times["small"],
            2.0,
            {"figures_under_1mb": largest <= MAX_FIGURE_BYTES},
            seconds=rounded(times),
            keys={"big": scale.keys, "small": SMALL_KEYS},
            largest_figure_bytes=largest,
        )
    ]


# --- 5. memory -------------------------------------------------------------------------------


def memory(scale: org.Scale) -> list[Result]:
    """Peak resident memory of the five-year key-day export in its own process (its own
    high-water mark: see `bench.peak`)."""
    start, end = org.five_years(utc_today())
    with tempfile.TemporaryDirectory() as folder:
        output, peak_file = Path(folder) / "usage.csv", Path(folder) / "peak-kb"
        command = [sys.executable, "-m", "bench.peak", str(peak_file), "analytics", "export"]
        command += ["--demo", "--output", str(output)]
        command += ["--start", start.isoformat(), "--end", end.isoformat()]
        environment = {
            **os.environ,
            "PYTHONPATH": str(org.ROOT),
            "SERVICE_DEMO_KEYS": str(scale.keys),
            "SERVICE_DEMO_DAYS": str(org.DAYS),
            "SERVICE_DEMO_SEED": str(org.SEED),
        }
        returncode = subprocess.run(command, cwd=org.ROOT, env=environment).returncode
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


# --- 6. CSV export throughput ----------------------------------------------------------------


@cache
def five_year_usage(keys: int) -> Usage:
    """The whole five years of the in-process organization, fetched like demo mode does."""
    app = org.app(keys)
    transport = httpx.ASGITransport(app=app)
    with ServiceClient(
        DEMO_BASE_URL, SecretStr(app.state.emulator.admin_key), transport=transport
    ) as client:
        return fetch_usage(client, *org.five_years(app.state.emulator.today()))


def csv_export(scale: org.Scale) -> list[Result]:
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


# --- 7. capacity page rerun ------------------------------------------------------------------


def capacity_rerun(scale: org.Scale) -> list[Result]:
    """The Capacity page over all history: a rerun that changes neither the range nor the
    budgets (any widget) against the first run of a fresh session with empty caches."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from analytics.dashboard.navigation import page_at

    page = str(page_at("capacity").file)
    runs: dict[str, list[float]] = {"cold": [], "warm": []}
    with tempfile.TemporaryDirectory() as folder, org.demo_environment(folder):
        os.environ["SERVICE_DEMO_KEYS"] = str(scale.keys)
        for _ in range(scale.repeat + 1):  # the first round builds the organization: dropped
            st.cache_data.clear()
            st.cache_resource.clear()
            at = AppTest.from_string(org.APP_LAUNCHER, default_timeout=900)
            at.query_params["period"] = "All history"
            at.run()
            cold, _ = timed(lambda at=at: at.switch_page(page).run())
            warm, _ = timed(at.run)
            if at.exception:
                raise RuntimeError(f"capacity failed: {at.exception[0].message}")
            runs["cold"].append(cold)
            runs["warm"].append(warm)
    times = {name: statistics.median(values[1:]) for name, values in runs.items()}
    return [
        result(
            "capacity_rerun",
            times["warm"] / times["cold"],
            0.2,
            {},
            seconds=rounded(times),
            keys=scale.keys,
        )
    ]


# --- 8. custom-tag fetch --------------------------------------------------------------------


def tag_fetch(scale: org.Scale) -> list[Result]:
    """Five years of the tag-day frame (every page of six windows) against five years of the
    key-day frame; the tags of each day must fit in that day's text characters."""
    tags, usage, times, _ = against_key_days(scale, fetch_tags, "tag_day")
    return [
        result(
            "tag_fetch",
            times["tag_day"] / times["key_day"],
            1.5,
            {"tags_within_text": tags_within_text(tags.frame, usage.frame)},
            seconds=rounded(times),
            rows=len(tags.frame),
            key_day_rows=len(usage.frame),
            windows=tags.windows_fetched,
        )
    ]


# --- 9. anomalies ----------------------------------------------------------------------------

RECALL_GOAL = 0.9  # of injected spikes, each at least three times its key's usual level
FALSE_ALARM_LIMIT = 1.0  # per key and year, on the organization without injected anomalies
FACTOR_BANDS = ((3.0, 4.0), (4.0, 6.0), (6.0, math.inf))


@dataclass(frozen=True)
class Quality:
    """Anomaly detection against the emulator's ground truth: the injected spikes found (per
    band of factors), whether each injected drop, new key and dormant key was found, and the
    anomalies found on the clean organization where it has none (false alarms)."""

    spikes: int
    spikes_found: int
    by_factor: dict[str, tuple[int, int]]
    events_found: dict[str, bool]
    false_alarms: int
    false_alarm_kinds: dict[str, int]
    key_years: float

    @property
    def recall(self) -> float:
        return self.spikes_found / self.spikes

    @property
    def false_alarms_per_key_year(self) -> float:
        return self.false_alarms / self.key_years


def anomaly_quality(keys: int, days: int, today: dt.date) -> Quality:
    """Detection on two organizations of the same seed, fetched like demo mode does: with
    injected anomalies, over their last INJECT_DAYS days; and clean, over its days after the
    last key started (and eight weeks more), where every anomaly found is a false alarm."""
    end = today - dt.timedelta(days=1)
    config = EmulatorConfig(seed=org.SEED, keys=keys, days=days, today=today)
    injected_app = create_app(config)
    truth = injected_app.state.emulator.injected
    start = end - dt.timedelta(days=INJECT_DAYS - 1)
    usage = _checked(injected_app, start, end)
    found = find_anomalies(usage.frame, usage.start, start, end)
    spikes = [i for i in truth if i.kind == "spike"]
    hit = [any(_finds(a, i) for a in found) for i in spikes]
    bands = {
        f"{low:g}-{high:g}x" if high < math.inf else f"{low:g}x+": (
            sum(h for h, i in zip(hit, spikes, strict=True) if low <= i.factor < high),
            sum(1 for i in spikes if low <= i.factor < high),
        )
        for low, high in FACTOR_BANDS
    }
    events = {i.kind: any(_finds(a, i) for a in found) for i in truth if i.kind != "spike"}
    clean_app = create_app(replace(config, anomalies=False))
    first_day = today - dt.timedelta(days=days)
    quiet = first_day + dt.timedelta(days=int(days * STARTS_WITHIN) + LOOKBACK_DAYS)
    usage = _checked(clean_app, quiet, end)
    alarms = find_anomalies(usage.frame, usage.start, quiet, end)
    active_keys = frames.within(usage.frame, quiet, end)["api_key"].nunique()
    return Quality(
        spikes=len(spikes),
        spikes_found=sum(hit),
        by_factor=bands,
        events_found=events,
        false_alarms=len(alarms),
        false_alarm_kinds=dict(Counter(a.kind for a in alarms)),
        key_years=active_keys * ((end - quiet).days + 1) / 365,
    )


def _checked(app: Any, start: dt.date, end: dt.date) -> Usage:
    """The app's usage of start..end and the eight weeks before, fetched like demo mode does;
    the app's ledger is closed afterwards."""
    transport = httpx.ASGITransport(app=app)
    key = SecretStr(app.state.emulator.admin_key)
    with ServiceClient(DEMO_BASE_URL, key, transport=transport) as client:
        usage = fetch_usage(client, start - dt.timedelta(days=LOOKBACK_DAYS), end)
    app.state.emulator.store.close()
    return usage


def _finds(anomaly: Anomaly, injected: Injected) -> bool:
    """Whether a found anomaly is the injected one: same kind and key, on its days; a spike on
    its metric, or on total characters, which a service's spike raises."""
    metric_ok = anomaly.metric == injected.metric or (
        anomaly.metric == TOTAL_CHARACTERS and injected.metric in SERVICE_CHARACTERS
    )
    return (
        anomaly.kind == injected.kind
        and anomaly.api_key == injected.api_key
        and anomaly.first <= injected.last
        and anomaly.last >= injected.first
        and (injected.kind != "spike" or metric_ok)
    )


def anomaly_detection(scale: org.Scale) -> list[Result]:
    """Recall on injected spikes and false alarms on the clean organization, over the
    benchmark's five years."""
    quality = anomaly_quality(scale.keys, org.DAYS, utc_today())
    return [
        result(
            "anomaly_recall",
            RECALL_GOAL / max(quality.recall, 1e-9),
            1.0,
            {"every_event_found": all(quality.events_found.values())},
            recall=round(quality.recall, 4),
            spikes=quality.spikes,
            spikes_found=quality.spikes_found,
            by_factor=quality.by_factor,
            events_found=quality.events_found,
        ),
        result(
            "anomaly_false_alarms",
            quality.false_alarms_per_key_year / FALSE_ALARM_LIMIT,
            1.0,
            {},
            false_alarms=quality.false_alarms,
            by_kind=quality.false_alarm_kinds,
            key_years=round(quality.key_years, 1),
        ),
    ]


def check_anomalies(scale: org.Scale) -> list[Result]:
    """`check-anomalies` over five years (and the eight weeks before them) against the
    five-year export, both with a warm history store: each fetches only the days that can
    still change."""
    with org.emulator_process(scale.keys) as served, tempfile.TemporaryDirectory() as folder:
        start, end = org.five_years(utc_today())
        store = HistoryStore(Path(folder) / "history.duckdb")
        marks = Marks(Path(folder) / "marks.json")
        output = Path(folder) / "usage.csv"
        with ServiceClient(served.base_url, SecretStr(served.admin_key)) as client:
            _export(client, start, end, store, output)  # the first runs fill the store
            _check(client, start, end, store, marks)
            times = medians(
                {
                    "export": partial(_export, client, start, end, store, output),
                    "check_anomalies": partial(_check, client, start, end, store, marks),
                },
                scale.repeat,
            )
            exported = _export(client, start, end, store, output)
            checked, lines = _check(client, start, end, store, marks)
    warm = all(u.windows_fetched == 1 for u in (exported, checked))
    return [
        result(
            "check_anomalies",
            times["check_anomalies"] / times["export"],
            1.5,
            {"only_open_days_fetched": warm},
            seconds=rounded(times),
            anomalies=len(lines),
            days=(end - start).days + 1,
        )
    ]


def _check(
    client: ServiceClient, start: dt.date, end: dt.date, store: HistoryStore, marks: Marks
) -> tuple[Usage, list[str]]:
    """What `python -m analytics check-anomalies` does for a configured service."""
    usage = fetch_usage(client, start - dt.timedelta(days=LOOKBACK_DAYS), end, history=store)
    found = find_anomalies(usage.frame, usage.start, start, end)
    return usage, [
        f"{a.severity}  {a.id}  {a.sentence}" for a in new_anomalies(found, marks.read())
    ]


# --- 10. pricing and team grouping ----------------------------------------------------------

# Prices over the whole five years: a change halfway, a base fee and included volumes, so that
# every rule of the money layer runs.
BENCH_PRICING = """
currency = "EUR"

[[price]]
from = "{first}"
monthly_fee = 250.00
[price.unit_prices]
text_translation_characters = 20.00
document_translation_characters = 25.00
text_improvement_characters = 20.00
speech_to_text_minutes = 0.024
[price.included_per_month]
text_translation_characters = 1_000_000
speech_to_text_minutes = 60

[[price]]
from = "{change}"
monthly_fee = 300.00
[price.unit_prices]
text_translation_characters = 20.00
document_translation_characters = 22.50
text_improvement_characters = 20.00
speech_to_text_minutes = 0.024
speech_to_speech_minutes = 0.06
[price.included_per_month]
text_translation_characters = 2_000_000
"""


def key_months(key_day: pd.DataFrame) -> pd.DataFrame:
    """The usage-only aggregation the chargeback extends: every metric per key and month."""
    month = key_day["usage_date"].to_numpy().astype("datetime64[M]")
    return key_day.groupby(["api_key", month], observed=True)[list(METRICS)].sum()


def chargeback_pricing(scale: org.Scale) -> list[Result]:
    """The five-year key-day frame priced and grouped by team (teams.example.toml assigned,
    every line priced, shared out and the base fee apportioned: the chargeback) against the
    same frame summed per key and month; both must agree on each month's usage."""
    usage = five_year_usage(scale.keys)
    key_day, start, end = usage.frame, usage.start, usage.end
    change = start + (end - start) / 2
    pricing = parse_pricing(BENCH_PRICING.format(first=start, change=change))
    teams = load_teams(bundle_folder() / "teams.example.toml")
    bill = chargeback(key_day, pricing, teams, start, end)
    per_month = key_months(key_day).groupby(level=1).sum()
    billed = bill.total.set_index("month")[list(METRICS)]
    # Each side takes a tenth of a second: three times the usual rounds steady the medians.
    times = medians(
        {
            "key_months": lambda: key_months(key_day),
            "chargeback": lambda: chargeback(key_day, pricing, teams, start, end),
        },
        3 * scale.repeat,
    )
    return [
        result(
            "chargeback_pricing",
            times["chargeback"] / times["key_months"],
            1.5,
            {
                "same_usage": bool(np.allclose(per_month.to_numpy(float), billed.to_numpy(float))),
                "teams_add_up": int(bill.table["amount_minor"].sum()) == bill.total_minor,
            },
            seconds=rounded(times),
            rows=len(key_day),
            teams=len(teams.names),
        )
    ]


# --- 11. language-pair fetch -----------------------------------------------------------------


def pair_fetch(scale: org.Scale) -> list[Result]:
    """Five years of the pair-day frame (every page of six windows) against five years of the
    key-day frame; each day's pairs must add up to its characters. The pair-key-day frame of
    the same range, fetched once, must be the pair-day frame when summed over its keys."""
    pairs, usage, times, by_key = against_key_days(
        scale, fetch_pairs, "pair_day", also=("pair_key_day", fetch_pair_keys)
    )
    assert by_key is not None
    paired = pairs.frame.groupby("usage_date")["total_characters"].sum()
    organization = usage.frame.groupby("usage_date")["total_characters"].sum()
    # Minutes are floats summed in another order: equal to the last few bits.
    over_keys = frames.pair_frame(by_key.frame, by_day=True)
    direct = frames.pair_frame(pairs.frame, by_day=True)
    days = ["usage_date", *frames.PAIR_COLUMNS]
    return [
        result(
            "pair_fetch",
            times["pair_day"] / times["key_day"],
            2.0,
            {
                "pairs_add_up": bool(paired[paired > 0].equals(organization[organization > 0])),
                "keys_add_up": over_keys[days].equals(direct[days])
                and bool(np.allclose(over_keys[list(METRICS)], direct[list(METRICS)])),
            },
            seconds=rounded(times),
            rows=len(pairs.frame),
            pair_key_day_rows=len(by_key.frame),
            key_day_rows=len(usage.frame),
            windows=pairs.windows_fetched,
        )
    ]


SCENARIOS: dict[str, Callable[[org.Scale], list[Result]]] = {
    "decoding": decoding,
    "csv_export": csv_export,
    "memory": memory,
    "pages": pages,
    "incremental_refresh": incremental_refresh,
    "concurrent_windows": concurrent_windows,
    "capacity_rerun": capacity_rerun,
    "tag_fetch": tag_fetch,
    "anomaly_detection": anomaly_detection,
    "check_anomalies": check_anomalies,
    "chargeback_pricing": chargeback_pricing,
    "pair_fetch": pair_fetch,
    "tag_fetch_10k": tags.tag_fetch_10k,
    "tags_scale": tags.tags_scale,
    "browser_pages": browser.browser_pages,
    "session_memory": browser.session_memory,
}
