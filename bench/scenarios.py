"""The measured targets: each returns result lines `{"name", "ratio", "target", "ok", ...}`.

`ratio` is always "ours / reference" (or a peak over its limit), and `ok` means `ratio <=
target` with every side condition (identical output, figure sizes) met.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from functools import cache, partial
from pathlib import Path
from typing import Any

import httpx
import msgspec
import orjson
import pandas as pd
from pydantic import SecretStr

from analytics.exports.files import export_bytes, pandas_csv_bytes, spreadsheet_safe, write_export
from analytics.exports.tables import shape_export
from analytics.service.client import Policy, ServiceClient
from analytics.service.demo import DEMO_BASE_URL
from analytics.service.models import AdminUsageReport
from analytics.usage import frames
from analytics.usage.calendar import utc_today
from analytics.usage.history import HistoryStore
from analytics.usage.metrics import CHARACTER_METRICS, MINUTE_METRICS, TEXT_CHARACTERS
from analytics.usage.pipeline import Usage, fetch_pairs, fetch_tags, fetch_usage, last_closed_day
from bench import org
from bench.timing import medians, timed
from emulator import EmulatorConfig

Result = dict[str, Any]
GIB = 1024**3
MAX_FIGURE_BYTES = 1024**2
SMALL_KEYS = 10
LATENCY_MS = 200
LATENCY_BOUND_KEYS = EmulatorConfig().keys


# Where scenarios leave the outputs they call identical (`python -m bench --keep FOLDER`), so
# that a reader can compare the files themselves; None keeps nothing.
KEPT: Path | None = None


def keep(scenario: str, name: str, data: bytes | Path) -> None:
    """Leave `data` (bytes, or a file to copy) as KEPT/<scenario>/<name>."""
    if KEPT is None:
        return
    folder = KEPT / scenario
    folder.mkdir(parents=True, exist_ok=True)
    if isinstance(data, Path):
        shutil.copyfile(data, folder / name)
    else:
        (folder / name).write_bytes(data)


def result(name: str, ratio: float, target: float, checks: dict[str, bool], **raw: Any) -> Result:
    ok = ratio <= target and all(checks.values())
    return {"name": name, "ratio": round(ratio, 4), "target": target, "ok": ok, **checks, **raw}


def _rounded(times: dict[str, float]) -> dict[str, float]:
    return {name: round(value, 4) for name, value in times.items()}


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
    tolerant, strict = msgspec.json.Decoder(AdminUsageReport), msgspec.json.Decoder(_StrictAnswer)
    typed = medians(
        {"tolerant": lambda: tolerant.decode(body), "strict": lambda: strict.decode(body)},
        scale.repeat,
    )
    raw = {"seconds": _rounded(times), "body_mb": round(len(body) / 1e6, 1)}
    return [
        result(
            "decode_vs_naive",
            times["frames"] / times["naive"],
            0.2,
            {"identical": identical},
            **raw,
        ),
        result("decode_vs_orjson", times["frames"] / times["orjson_loads"], 1.0, {}, **raw),
        result(
            "decode_tolerance",
            typed["tolerant"] / typed["strict"],
            1.1,
            {},
            seconds=_rounded(typed),
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
    frames_fetched = [usage.key_day for usage in fetched.values()]
    return {
        "keys": keys,
        "ratio": round(times["concurrent"] / times["sequential"], 4),
        "identical": all(same_frame(frames_fetched[0], other) for other in frames_fetched[1:]),
        "seconds": _rounded(times),
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
            0.1,
            {
                "identical": all(same for same, _ in outcomes),
                "only_open_days_fetched": again.windows_fetched == 1
                and again.days_from_history == (end - start).days + 1 - _open_days(end),
            },
            seconds=_rounded(times),
            second_run_windows=again.windows_fetched,
            second_run_days_from_history=again.days_from_history,
        )
    ]


def _export(
    client: ServiceClient, start: dt.date, end: dt.date, store: HistoryStore, path: Path
) -> Usage:
    """What `python -m analytics export` does for a configured service."""
    usage = fetch_usage(client, start, end, history=store)
    write_export(shape_export(usage.key_day, start, end, "key_and_day"), path)
    return usage


def _open_days(end: dt.date) -> int:
    return (end - last_closed_day(utc_today())).days


# --- 4. scale-invariant pages ----------------------------------------------------------------

PAGES = ("trends", "keys")


def pages(scale: org.Scale) -> list[Result]:
    """Trends and Keys over the whole five years, warm cache, big organization against small."""
    from streamlit.testing.v1 import AppTest

    launcher = f"import runpy; runpy.run_path({str(org.ROOT / 'app.py')!r})"

    def render(keys: int, figures: list[int]) -> Callable[[], None]:
        def run() -> None:
            os.environ["SERVICE_DEMO_KEYS"] = str(keys)
            for page in PAGES:
                at = AppTest.from_string(launcher, default_timeout=600)
                at.query_params["period"] = "All history"
                at.run()
                at.switch_page(str(org.ROOT / "pages" / f"{page}.py")).run()
                if at.exception:
                    raise RuntimeError(f"{page} failed: {at.exception[0].message}")
                figures.extend(len(chart.proto.spec.encode()) for chart in at.get("plotly_chart"))

        return run

    sizes: dict[str, list[int]] = {"big": [], "small": []}
    with tempfile.TemporaryDirectory() as folder, _environment(folder):
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
            seconds=_rounded(times),
            keys={"big": scale.keys, "small": SMALL_KEYS},
            largest_figure_bytes=largest,
        )
    ]


class _environment:
    """Demo mode with a private history folder for the pages; the environment restored after."""

    def __init__(self, folder: str) -> None:
        self.values = {
            "SERVICE_DEMO_DAYS": str(org.DAYS),
            "SERVICE_DEMO_SEED": str(org.SEED),
            "SERVICE_HISTORY_PATH": folder,
            "SERVICE_AUTH_KEY": "",
            "SERVICE_BASE_URL": "",
        }

    def __enter__(self) -> None:
        self.saved = {name: os.environ.get(name) for name in [*self.values, "SERVICE_DEMO_KEYS"]}
        os.environ.update(self.values)

    def __exit__(self, *exc_info: object) -> None:
        for name, value in self.saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


# --- 5. memory -------------------------------------------------------------------------------


def memory(scale: org.Scale) -> list[Result]:
    """Peak resident memory of the five-year key-day export in its own process."""
    start, end = org.five_years(utc_today())
    with tempfile.TemporaryDirectory() as folder:
        output = Path(folder) / "usage.csv"
        command = [sys.executable, "-m", "analytics", "export", "--demo", "--output", str(output)]
        command += ["--start", start.isoformat(), "--end", end.isoformat()]
        environment = {
            **os.environ,
            "PYTHONPATH": str(org.ROOT),
            "SERVICE_DEMO_KEYS": str(scale.keys),
            "SERVICE_DEMO_DAYS": str(org.DAYS),
            "SERVICE_DEMO_SEED": str(org.SEED),
        }
        process = subprocess.Popen(command, cwd=org.ROOT, env=environment)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        rows = sum(1 for _ in output.open("rb")) - 1 if output.exists() else 0
    peak = usage.ru_maxrss * 1024  # kilobytes on Linux
    return [
        result(
            "memory_export",
            peak / GIB,
            1.0,
            {"export_succeeded": process.returncode == 0},
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
    table = shape_export(usage.key_day, usage.start, usage.end, "key_and_day")
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
            seconds=_rounded(times),
            rows=len(table),
        )
    ]


# --- 7. capacity page rerun ------------------------------------------------------------------


def capacity_rerun(scale: org.Scale) -> list[Result]:
    """The Capacity page over all history: a rerun that changes neither the range nor the
    budgets (any widget) against the first run of a fresh session with empty caches."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    launcher = f"import runpy; runpy.run_path({str(org.ROOT / 'app.py')!r})"
    page = str(org.ROOT / "pages" / "capacity.py")
    runs: dict[str, list[float]] = {"cold": [], "warm": []}
    with tempfile.TemporaryDirectory() as folder, _environment(folder):
        os.environ["SERVICE_DEMO_KEYS"] = str(scale.keys)
        for _ in range(scale.repeat + 1):  # the first round builds the organization: dropped
            st.cache_data.clear()
            st.cache_resource.clear()
            at = AppTest.from_string(launcher, default_timeout=900)
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
            seconds=_rounded(times),
            keys=scale.keys,
        )
    ]


# --- 8. custom-tag fetch --------------------------------------------------------------------


def tag_fetch(scale: org.Scale) -> list[Result]:
    """Five years of the tag-day frame (every page of six windows) against five years of the
    key-day frame, both fetched and merged from the same in-process organization without
    history; the tags of each day must fit in that day's text characters."""
    app = org.app(scale.keys)
    emulator = app.state.emulator
    start, end = org.five_years(emulator.today())
    transport = httpx.ASGITransport(app=app)
    with ServiceClient(DEMO_BASE_URL, SecretStr(emulator.admin_key), transport=transport) as client:
        tags, usage = fetch_tags(client, start, end), fetch_usage(client, start, end)
        times = medians(
            {
                "key_day": lambda: fetch_usage(client, start, end),
                "tag_day": lambda: fetch_tags(client, start, end),
            },
            scale.repeat,
        )
    tagged = tags.tag_day.groupby("usage_date")["total_characters"].sum()
    text = usage.key_day.groupby("usage_date")[list(TEXT_CHARACTERS)].sum().sum(axis=1)
    return [
        result(
            "tag_fetch",
            times["tag_day"] / times["key_day"],
            1.5,
            {"tags_within_text": bool((tagged <= text.reindex(tagged.index)).all())},
            seconds=_rounded(times),
            rows=len(tags.tag_day),
            key_day_rows=len(usage.key_day),
            windows=tags.windows_fetched,
        )
    ]


# --- 9. language-pair fetch ------------------------------------------------------------------


def pair_fetch(scale: org.Scale) -> list[Result]:
    """Five years of the pair-day frame (every page of six windows, by key and day) against
    five years of the key-day frame, both fetched and merged from the same in-process
    organization without history; each day's pairs must add up to its characters."""
    app = org.app(scale.keys)
    emulator = app.state.emulator
    start, end = org.five_years(emulator.today())
    transport = httpx.ASGITransport(app=app)
    with ServiceClient(DEMO_BASE_URL, SecretStr(emulator.admin_key), transport=transport) as client:
        pairs, usage = fetch_pairs(client, start, end), fetch_usage(client, start, end)
        times = medians(
            {
                "key_day": lambda: fetch_usage(client, start, end),
                "pair_day": lambda: fetch_pairs(client, start, end),
            },
            scale.repeat,
        )
    paired = pairs.pair_day.groupby("usage_date")["total_characters"].sum()
    organization = usage.key_day.groupby("usage_date")["total_characters"].sum()
    return [
        result(
            "pair_fetch",
            times["pair_day"] / times["key_day"],
            2.0,
            {"pairs_add_up": bool(paired[paired > 0].equals(organization[organization > 0]))},
            seconds=_rounded(times),
            rows=len(pairs.pair_day),
            key_day_rows=len(usage.key_day),
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
    "pair_fetch": pair_fetch,
}
