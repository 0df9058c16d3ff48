"""Inputs and oracles shared by the tests: hand-made key-day frames, budget files, the emulator's
ledger as the expected frame, and service clients that reach an ASGI app in-process (no port).

Expected values come from here only when they are independent of the code under test: the
emulator's ledger, or frames whose every number the test wrote down.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

import httpx
import numpy as np
import pandas as pd
import pytest
from pydantic import SecretStr
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from typer.testing import CliRunner, Result

from analytics.capacity.forecasting.projections import projection_path
from analytics.cli import app as cli_app
from analytics.cost.teams import parse_teams
from analytics.service.client import AsyncServiceClient, Policy, ServiceClient
from analytics.service.errors import InvalidResponseError
from analytics.usage import calendar
from analytics.usage.frames import key_day_frame, tag_day_frame
from analytics.usage.history import HistoryStore
from analytics.usage.pipeline import FetchedRange, fetch_usage
from emulator import EmulatorConfig, create_app

BASE = "http://service.test"
SCHEME = "Service-Auth-Key"
# The frame contract's columns, written out here rather than taken from the code under test.
SERVICE_CHARACTERS = [
    "text_translation_characters",
    "document_translation_characters",
    "text_improvement_characters",
]
MINUTE_METRICS = ["speech_to_text_minutes", "speech_to_speech_minutes"]
METRICS = ["total_characters", *SERVICE_CHARACTERS, *MINUTE_METRICS]
KEY_DAY_COLUMNS = ["usage_date", "api_key", "api_key_label", *METRICS]
TAG_METRICS = ["total_characters", "text_translation_characters", "text_improvement_characters"]
TAG_DAY_COLUMNS = ["usage_date", "custom_tag", *TAG_METRICS]
PAIR_DAY_COLUMNS = ["usage_date", "source_language", "target_language", *METRICS]
PAIR_KEY_DAY_COLUMNS = [*PAIR_DAY_COLUMNS[:3], "api_key", "api_key_label", *METRICS]

# --- hand-made key-day frames ----------------------------------------------------------------

FIRST = date(2025, 1, 1)  # a Wednesday
TEXT, DOCS, MINUTES = (
    "text_translation_characters",
    "document_translation_characters",
    "speech_to_text_minutes",
)
# Two teams over the keys' labels (web-* and ios; the rest Unassigned), as the chargeback and
# the exports' reconciliation with it read them.
TEAMS = parse_teams(
    '[[team]]\nname = "Web"\nlabel_patterns = ["web-*"]\n'
    '[[team]]\nname = "Apps"\nlabels = ["ios"]\n'
)


def usage_frame(
    per_key: Mapping[str, Sequence[float]],
    first: date = FIRST,
    labels: Mapping[str, str] | None = None,
    minutes: Mapping[str, Sequence[float]] | None = None,
    improvement: Mapping[str, Sequence[int]] | None = None,
    documents: Mapping[str, Sequence[int]] | None = None,
) -> pd.DataFrame:
    """A key-day frame: text translation characters per key and day from ``first`` on.

    Zero days get no row, as the service sends none; minutes, text improvement and document
    characters are optional per key.
    """
    rows = []
    for api_key, values in per_key.items():
        zeros = [0] * len(values)
        spoken = (minutes or {}).get(api_key, zeros)
        improved = (improvement or {}).get(api_key, zeros)
        document = (documents or {}).get(api_key, zeros)
        days = zip(values, spoken, improved, document, strict=True)
        for offset, (chars, mins, imp, doc) in enumerate(days):
            if chars == imp == doc == mins == 0:
                continue
            rows.append(
                {
                    "usage_date": pd.Timestamp(first + timedelta(days=offset)),
                    "api_key": api_key,
                    "api_key_label": (labels or {}).get(api_key, f"Label {api_key[:4]}"),
                    "total_characters": int(chars + imp + doc),
                    "text_translation_characters": int(chars),
                    "document_translation_characters": int(doc),
                    "text_improvement_characters": int(imp),
                    "speech_to_text_minutes": float(mins),
                    "speech_to_speech_minutes": 0.0,
                }
            )
    return key_day_frame([pd.DataFrame(rows, columns=KEY_DAY_COLUMNS)])


def tag_usage_frame(
    per_tag: Mapping[str, Sequence[int]],
    first: date = FIRST,
    improvement: Mapping[str, Sequence[int]] | None = None,
) -> pd.DataFrame:
    """A tag-day frame: text translation (and improvement) characters per tag and day from
    ``first`` on; zero days get no row, as the service sends none."""
    rows = []
    for tag, values in per_tag.items():
        improved = (improvement or {}).get(tag, [0] * len(values))
        for offset, (text, imp) in enumerate(zip(values, improved, strict=True)):
            if text or imp:
                day = pd.Timestamp(first + timedelta(days=offset))
                rows.append([day, tag, text + imp, text, imp])
    return tag_day_frame([pd.DataFrame(rows, columns=TAG_DAY_COLUMNS)])


def pattern(days: int, first: date, value: Callable[[date, int], float]) -> list[float]:
    """``value(day, index)`` for each of ``days`` days from ``first``."""
    return [value(first + timedelta(days=i), i) for i in range(days)]


def make_key_day(keys: int, days: int, start: date = date(2026, 1, 1), seed: int = 1):
    """A frame in the documented key-day shape with random, reproducible usage.

    Key ``i`` is ``k{i:03d}****z{i:03d}`` labelled ``Team {i}``; later keys use more.
    """
    rng = np.random.default_rng(seed)
    dates = pd.date_range(start, periods=days, freq="D")
    api_keys = [f"k{i:03d}****z{i:03d}" for i in range(keys)]
    frame = pd.DataFrame(
        {
            "usage_date": np.repeat(dates, keys),
            "api_key": np.tile(api_keys, days),
            "api_key_label": np.tile([f"Team {i}" for i in range(keys)], days),
        }
    )
    n = len(frame)
    scale = np.tile(np.linspace(1, 50, keys), days)
    frame["text_translation_characters"] = (rng.integers(0, 1000, n) * scale).astype("int64")
    frame["document_translation_characters"] = (rng.integers(0, 500, n) * scale).astype("int64")
    frame["text_improvement_characters"] = rng.integers(0, 200, n).astype("int64")
    frame["total_characters"] = frame[SERVICE_CHARACTERS].sum(axis=1)
    frame["speech_to_text_minutes"] = rng.integers(0, 1000, n) / 100
    # Speech-to-speech for every third key only: a service some keys never use.
    spoken = np.tile(np.arange(keys) % 3 == 0, days)
    frame["speech_to_speech_minutes"] = np.where(spoken, rng.integers(0, 400, n) / 100, 0.0)
    frame["api_key"] = frame["api_key"].astype("category")
    frame["api_key_label"] = frame["api_key_label"].astype("category")
    return frame[KEY_DAY_COLUMNS]


def budgets(*entries: str, head: str = "") -> str:
    """A budgets file: ``head`` (top-level settings), then one ``[[budget]]`` per entry."""
    return head + "".join(f"\n[[budget]]\n{entry}\n" for entry in entries)


def enforced(name: str, limit: int, *lines: str) -> str:
    """A budget of characters over the usage period marked ``enforce = true``, an entry of
    ``guarded``: its own lines (the key or team it covers) after its limit."""
    fields = [f'name = "{name}"', 'metric = "total_characters"', 'period = "usage"']
    return "\n".join([*fields, f"limit = {limit:_}", *lines, "enforce = true"])


def guarded(reserve: int, floor: int, *entries: str) -> str:
    """A budgets file of ``enforced`` budgets, after the guardrails' reserve and floor (in
    characters)."""
    head = f"[guardrails]\nreserve_characters = {reserve}\nfloor_characters = {floor}\n"
    return budgets(*entries, head=head)


def assert_unreadable_files_refused(load: Callable, error: type[Exception], folder: Path) -> None:
    """`load` of a settings file that is not there, and of one that is no text, raises one
    clear `error` naming the file: a scheduled job's log then says what to fix."""
    with pytest.raises(error, match=r"absent\.toml: no such file"):
        load(folder / "absent.toml")
    binary = folder / "binary.toml"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(error, match=r"binary\.toml: cannot be read"):
        load(binary)


# --- an organization file with a plan ----------------------------------------------------------

PLAN_TODAY = date(2025, 3, 20)  # billed from the 13th: the period is 2025-03-13 – 2025-04-12
PLAN_ADMIN = "plan-admin-0001-aaaa:adm"


def plan_org(plan: str = "billing_day = 13\ncharacter_limit = 2000") -> str:
    """An organization file: one admin key that used 100 text characters and half a minute of
    speech-to-text every day from 2024-12-01 to the day before PLAN_TODAY, and on PLAN_TODAY so
    far 50 characters, half a minute of speech-to-text and a minute of speech-to-speech;
    `plan` is the body of its [plan] table."""
    lines = [
        f'[[keys]]\nkey = "{PLAN_ADMIN}"\nlabel = "Admin"\nadmin = true\n',
        f"[plan]\n{plan}\n",
    ]
    day = date(2024, 12, 1)
    while day < PLAN_TODAY:
        lines.append(
            f'[[usage]]\nkey = "{PLAN_ADMIN}"\ndate = "{day}"\n'
            "text_translation_characters = 100\nspeech_to_text_minutes = 0.5\n"
        )
        day += timedelta(days=1)
    lines.append(
        f'[[usage]]\nkey = "{PLAN_ADMIN}"\ndate = "{PLAN_TODAY}"\n'
        "text_translation_characters = 50\nspeech_to_text_minutes = 0.5\n"
        "speech_to_speech_minutes = 1.0\n"
    )
    return "\n".join(lines)


def key_day_rows(rows: Iterable[tuple[date, str, str, Mapping[str, float]]]) -> pd.DataFrame:
    """A key-day frame from ``(day, masked key, label, {metric: value})`` rows.

    Metrics not named are 0; total characters is the three services' sum.
    """
    records = []
    for day, api_key, label, values in rows:
        record = {"usage_date": pd.Timestamp(day), "api_key": api_key, "api_key_label": label}
        record |= {metric: values.get(metric, 0) for metric in METRICS[1:]}
        record["total_characters"] = sum(int(values.get(m, 0)) for m in SERVICE_CHARACTERS)
        records.append(record)
    frame = pd.DataFrame(records, columns=KEY_DAY_COLUMNS).astype(
        {**dict.fromkeys(METRICS[:4], "int64"), **dict.fromkeys(MINUTE_METRICS, "float64")}
    )
    return key_day_frame([frame])


# Unit prices per million characters and per minute, in the pricing file's TOML.
UNIT_PRICES = (
    "unit_prices = { text_translation_characters = 20, document_translation_characters = 25, "
    "text_improvement_characters = 10, speech_to_text_minutes = 0.03 }"
)


def pricing(*periods: str, currency: str = "EUR") -> str:
    """A pricing file: the currency, then one ``[[price]]`` per entry."""
    return f'currency = "{currency}"\n' + "".join(f"\n[[price]]\n{p}\n" for p in periods)


def price_from(day: str, *lines: str, prices: str = UNIT_PRICES) -> str:
    """One ``[[price]]`` entry from ``day`` with the unit prices and any further lines."""
    return "\n".join([f'from = "{day}"', prices, *lines])


# A hand-made organization over 30 January – 1 February 2025: a web key and another key.
# 20.00 EUR per million text characters, 1,000,000 included per month, a 250.00 monthly fee.
# January's line: 1,600,000 characters, of which 2/31 of the included volume is free:
# 32.00 × (1 − 64,516.13/1,600,000) = 30.709… → 30.71, shared 19.19 / 11.52 (largest
# remainder; per day 19.19 / 5.76 / 5.76); February: 10.00 × (1 − 35,714.29/500,000) =
# 9.2857… → 9.29. Fees: 250 × 2/31 = 16.13 (shared 20:12 by list price → 10.08 / 6.05) and
# 250/28 = 8.93 (all the web team's). The web key's team is "Web"; the other is Unassigned.
MONEY_START, MONEY_END = date(2025, 1, 30), date(2025, 2, 1)
MONEY_WEB, MONEY_OTHER = "aaaa****0001", "bbbb****0002"
MONEY_PRICES = (
    "unit_prices = { text_translation_characters = 20.00, document_translation_characters = 25, "
    "text_improvement_characters = 20, speech_to_text_minutes = 0.024 }"
)


def money_organization() -> tuple[pd.DataFrame, str, str]:
    """The hand-made organization above: its key-day frame, pricing file and teams file."""
    text = "text_translation_characters"
    frame = key_day_rows(
        [
            (date(2025, 1, 30), MONEY_WEB, "web-shop", {text: 1_000_000}),
            (date(2025, 1, 30), MONEY_OTHER, "=other", {text: 300_000}),
            (date(2025, 1, 31), MONEY_OTHER, "=other", {text: 300_000}),
            (date(2025, 2, 1), MONEY_WEB, "web-shop", {text: 500_000}),
        ]
    )
    prices = pricing(
        price_from(
            "2025-01-01",
            "monthly_fee = 250.00",
            "included_per_month = { text_translation_characters = 1_000_000 }",
            prices=MONEY_PRICES,
        )
    )
    return frame, prices, '[[team]]\nname = "Web"\nlabel_patterns = ["web-*"]\n'


# --- the emulator's ledger as the oracle -------------------------------------------------------


def ledger_frame(rows) -> pd.DataFrame:
    """The emulator's ledger in the frame contract's shape (labels: each key's latest)."""
    frame = pd.DataFrame(
        {
            "usage_date": pd.to_datetime([r.usage_date for r in rows]),
            "api_key": [r.api_key for r in rows],
            "api_key_label": [r.api_key_label for r in rows],
            "text_translation_characters": [r.text_translation_characters for r in rows],
            "document_translation_characters": [r.document_translation_characters for r in rows],
            "text_improvement_characters": [r.text_improvement_characters for r in rows],
            "speech_to_text_minutes": [float(r.speech_to_text_minutes) for r in rows],
            "speech_to_speech_minutes": [float(r.speech_to_speech_minutes) for r in rows],
        }
    )
    frame["total_characters"] = frame[SERVICE_CHARACTERS].sum(axis=1).astype("int64")
    latest = frame.drop_duplicates("api_key", keep="last").set_index("api_key")["api_key_label"]
    frame["api_key_label"] = frame["api_key"].map(latest)
    return frame[KEY_DAY_COLUMNS]


def assert_matches_ledger(key_day: pd.DataFrame, rows) -> None:
    """Key-day for key-day equality with the ledger, all columns, in contract order."""
    kinds = {"api_key": str, "api_key_label": str, "usage_date": "datetime64[us]"}
    pd.testing.assert_frame_equal(key_day.astype(kinds), ledger_frame(rows).astype(kinds))


def tag_ledger_frame(rows) -> pd.DataFrame:
    """The emulator's tag ledger (per key-day and tag) summed per day and tag, in the tag-day
    frame's order: what the custom-tag report by day must add up to."""
    sums: dict[tuple[date, str], list[int]] = {}
    for row in rows:
        counts = sums.setdefault((row.usage_date, row.custom_tag), [0, 0])
        counts[0] += row.text_translation_characters
        counts[1] += row.text_improvement_characters
    return pd.DataFrame(
        [
            [pd.Timestamp(day), tag, text + improvement, text, improvement]
            for (day, tag), (text, improvement) in sorted(sums.items())
        ],
        columns=TAG_DAY_COLUMNS,
    ).astype({m: "int64" for m in TAG_METRICS})


def assert_matches_tag_ledger(tag_day: pd.DataFrame, rows) -> None:
    """Tag-day for tag-day equality with the summed tag ledger, all columns, in order."""
    kinds = {"custom_tag": str, "usage_date": "datetime64[us]"}
    expected = tag_ledger_frame(rows).astype(kinds)
    pd.testing.assert_frame_equal(tag_day.astype(kinds), expected)


def pair_ledger_frame(rows, by_key: bool) -> pd.DataFrame:
    """The emulator's pair ledger (per key-day and pair) summed per day and pair, and per key
    when `by_key` (the unattributed parts of every key under key `-` labelled `unknown`, each
    key's label its latest one), in the frame's order."""
    sums: dict[tuple, list[float]] = {}
    latest: dict[str, str] = {}
    for row in sorted(rows, key=lambda r: r.usage_date):
        key = row.api_key if row.attributed else "-"
        latest[key] = row.api_key_label if row.attributed else "unknown"
        group = (row.usage_date, row.source_language, row.target_language)
        if by_key:
            group += (key,)
        counts = sums.setdefault(group, [0, 0, 0, 0.0, 0.0])
        for i, metric in enumerate([*SERVICE_CHARACTERS, *MINUTE_METRICS]):
            counts[i] += getattr(row, metric)
    frame = pd.DataFrame(
        [
            [pd.Timestamp(day), source, target, *keyed, *[latest[k] for k in keyed], sum(c[:3]), *c]
            for (day, source, target, *keyed), c in sorted(sums.items())
        ],
        columns=PAIR_KEY_DAY_COLUMNS if by_key else PAIR_DAY_COLUMNS,
    )
    return frame.astype({m: "int64" for m in ["total_characters", *SERVICE_CHARACTERS]})


def assert_matches_pair_ledger(frame: pd.DataFrame, rows) -> None:
    """Row for row equality of a pair-day or pair-key-day frame with the summed pair ledger,
    all columns, in order (minutes to the six decimals the service sends)."""
    by_key = "api_key" in frame.columns
    texts = ["source_language", "target_language"]
    if by_key:
        texts += ["api_key", "api_key_label"]
    kinds = {**dict.fromkeys(texts, str), "usage_date": "datetime64[us]"}
    expected = pair_ledger_frame(rows, by_key).astype(kinds)
    pd.testing.assert_frame_equal(frame.astype(kinds), expected, atol=1e-6, rtol=0)


def ledger_totals(rows: Iterable) -> dict[str, float]:
    """Each metric summed over ledger rows; total characters is the three services' sum."""
    sums = dict.fromkeys(METRICS, 0)
    for row in rows:
        for metric in SERVICE_CHARACTERS:
            sums[metric] += getattr(row, metric)
            sums["total_characters"] += getattr(row, metric)
        for metric in MINUTE_METRICS:
            sums[metric] += getattr(row, metric)
    return sums


# --- service clients of an ASGI app --------------------------------------------------------------


class Counting(httpx.AsyncBaseTransport):
    """Passes requests on and remembers each one, so tests can count attempts."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.requests: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await request.aread()  # keep the body for assertions (multipart streams included)
        self.requests.append(request)
        return await self.inner.handle_async_request(request)

    def paths(self, path: str) -> list[httpx.Request]:
        return [r for r in self.requests if r.url.path == path]


def _key(app, key: str | None) -> SecretStr:
    return SecretStr(key if key is not None else app.state.emulator.admin_key)


def asgi_client(
    app, key: str | None = None, *, policy: Policy | None = None, auth_scheme: str = SCHEME
) -> tuple[ServiceClient, Counting]:
    """A ServiceClient of `app` in-process, and the transport that records its requests.

    The key is the emulator's admin key unless `key` is given (an app that only relays the
    emulator, or a stand-in server, has none of its own).
    """
    transport = Counting(httpx.ASGITransport(app=app))
    options = {"auth_scheme": auth_scheme, "transport": transport, "policy": policy or Policy()}
    return ServiceClient(BASE, _key(app, key), **options), transport


def async_asgi_client(
    app, key: str | None = None, *, policy: Policy | None = None, auth_scheme: str = SCHEME
) -> tuple[AsyncServiceClient, Counting]:
    """The AsyncServiceClient form of `asgi_client`."""
    transport = Counting(httpx.ASGITransport(app=app))
    options = {"auth_scheme": auth_scheme, "transport": transport, "policy": policy or Policy()}
    return AsyncServiceClient(BASE, _key(app, key), **options), transport


def answering(path: str, *bodies: str | dict | int) -> tuple[Starlette, list[dict[str, str]]]:
    """A stand-in server of the report at `path` answering each request with the next body (the
    last one repeats; a status stands for an error), always with trace id t-42; and the query
    of every request it saw. Tests write the service's answers out by hand with it."""
    seen: list[dict[str, str]] = []

    async def report(request: Request) -> Response:
        seen.append(dict(request.query_params))
        body = bodies[min(len(seen), len(bodies)) - 1]
        status = body if isinstance(body, int) else 200
        text = (
            body
            if isinstance(body, str)
            else json.dumps({"message": "busy"} if status != 200 else body)
        )
        headers = {"X-Trace-ID": "t-42"}
        return Response(text, status, media_type="application/json", headers=headers)

    return Starlette(routes=[Route(path, report)]), seen


def fetch_answered(fetch: Callable, path: str, bodies: Sequence, start: date, end: date, today):
    """`fetch` of `start`..`end` from a stand-in server of `path` answering `bodies` in turn
    (see `answering`): the result, and the query of every request the server saw."""
    app, seen = answering(path, *bodies)
    client, _ = asgi_client(app, "sk-stand-in-test-key")
    with client:
        return fetch(client, start, end, today=today), seen


def invalid_answer(fetch: Callable, path: str, body: str | dict, today: date) -> str:
    """The message of the InvalidResponseError that `fetch` of 3–14 May 2026 raises when the
    report at `path` answers `body` with a 200: it must quote the status, the trace id and the
    request, so that whoever reads it can find the answer again."""
    client, _ = asgi_client(answering(path, body)[0], "sk-invalid-answer-test-key")
    with client, pytest.raises(InvalidResponseError) as caught:
        fetch(client, date(2026, 5, 3), date(2026, 5, 14), today=today)
    assert (caught.value.status, caught.value.trace_id) == (200, "t-42")
    assert f"GET {path} answered 200" in str(caught.value)
    return str(caught.value)


class Run(NamedTuple):
    """One fetch's result and the requests it sent."""

    result: Any
    sent: list[httpx.Request]


def runs_with_history(app, fetch: Callable, start: date, end: date, path: Path, today: date):
    """`fetch` of `start`..`end` from `app` without a history store, then twice with the store
    at `path`, as a daily job runs: the result without the store, and the two runs with it
    (what the store must spare the service shows in their requests)."""
    store = HistoryStore(path)
    client, transport = asgi_client(app)
    runs = []
    with client:
        plain = fetch(client, start, end, today=today)
        for _ in range(2):
            transport.requests.clear()
            result = fetch(client, start, end, history=store, today=today)
            runs.append(Run(result, list(transport.requests)))
    return plain, *runs


async def fetched_without_usage(fetch, app, start: date, end: date, columns: list[str]):
    """The async `fetch` of a range without usage from `app`: an empty frame that still has
    its columns and day type (the pages and exports read both before they look at a row); a
    range that ends before it starts is refused before anything is asked."""
    client, _ = async_asgi_client(app)
    async with client:
        empty = await fetch(client, start, end)
        with pytest.raises(ValueError, match="before it starts"):
            await fetch(client, date(2025, 2, 1), date(2025, 1, 1))
    assert empty.frame.empty and list(empty.frame.columns) == columns
    assert str(empty.frame["usage_date"].dtype) == "datetime64[us]"
    return empty


def miscounting_app(emulator_app) -> Starlette:
    """Relays the emulator but inflates total_usage of any window holding 2025-05-10."""
    inner = httpx.AsyncClient(transport=httpx.ASGITransport(app=emulator_app), base_url=BASE)

    async def analytics(request: Request) -> Response:
        answer = await inner.get(
            "/v2/admin/analytics",
            params=dict(request.query_params),
            headers={"Authorization": request.headers["authorization"]},
        )
        body = json.loads(answer.content)
        start = date.fromisoformat(request.query_params["start_date"])
        end = date.fromisoformat(request.query_params["end_date"])
        if start <= date(2025, 5, 10) < end:
            body["usage_report"]["total_usage"]["text_translation_characters"] += 7
        return JSONResponse(body)

    return Starlette(routes=[Route("/v2/admin/analytics", analytics)])


def serve_to_cli(monkeypatch, app, key: str, today: date, history) -> None:
    """Point the CLI's configured service at `app` in-process (a fresh client each time the
    command opens one), its clock at `today` and its history store at the folder `history`."""
    monkeypatch.setattr(
        ServiceClient, "from_connection", lambda connection: asgi_client(app, key)[0]
    )
    monkeypatch.setattr(calendar, "utc_today", lambda: today)
    monkeypatch.setenv("SERVICE_BASE_URL", BASE)
    monkeypatch.setenv("SERVICE_AUTH_KEY", key)
    monkeypatch.setenv("SERVICE_HISTORY_PATH", str(history))


# --- the demo organization -------------------------------------------------------------------

DEMO_TODAY = date(2026, 6, 15)


@lru_cache(maxsize=1)
def demo_usage(days: int = 800) -> FetchedRange:
    """The demo organization's (25 keys, three years) last ``days`` closed days before
    DEMO_TODAY, fetched through the pipeline."""
    app = create_app(EmulatorConfig(seed=42, keys=25, days=1095, today=DEMO_TODAY))
    client, _ = asgi_client(app)
    with client:
        last = DEMO_TODAY - timedelta(days=1)
        return fetch_usage(client, last - timedelta(days=days - 1), last, today=DEMO_TODAY)


def invoke(*args: str, env: dict[str, str] | None = None) -> Result:
    """`python -m analytics ARGS` in-process; stdout and stderr apart."""
    return CliRunner().invoke(cli_app, list(args), env=env, catch_exceptions=False)


def shown_arguments(command: str) -> list[str]:
    """The arguments of a command line a page shows, after its program (``… -m analytics``
    in a checkout, ``usage-dashboard`` installed): what ``invoke`` runs in-process."""
    words = shlex.split(command)
    start = words.index("analytics") + 1 if "analytics" in words else 1
    return words[start:]


def export_command(base_url: str, key: str, *args: str) -> Result:
    """`python -m analytics export ARGS` in-process against the service at `base_url` with
    `key`: the two settings a scheduled export's environment gives it."""
    return invoke("export", *args, env={"SERVICE_BASE_URL": base_url, "SERVICE_AUTH_KEY": key})


def export_file(base_url: str, key: str, out: Path, *args: str) -> bytes:
    """The file that `export ARGS -o OUT` writes (see `export_command`): the command must
    succeed without a word on either stream, so that a scheduled job's log stays empty."""
    result = export_command(base_url, key, *args, "-o", str(out))
    assert result.exit_code == 0, result.stderr
    assert (result.stdout, result.stderr) == ("", "")
    return out.read_bytes()


def csv_file(lines: Iterable[str]) -> bytes:
    """The bytes of a CSV export of these lines, each ended by CRLF as the exports write them:
    tests compare whole files, byte for byte."""
    return "".join(f"{line}\r\n" for line in lines).encode()


def month_projection(key_day: pd.DataFrame, start: date) -> pd.DataFrame:
    """The total characters of `key_day` (from `start`, at least 14 months of it, so the
    backtest measures the errors a band is drawn from) projected over the month holding its
    last day, from that day on, as the Capacity page's forecast chart draws one."""
    as_of = key_day["usage_date"].max().date()
    month = (as_of.replace(day=1), (as_of.replace(day=28) + timedelta(days=4)).replace(day=1))
    span = (month[0], month[1] - timedelta(days=1))
    return projection_path(key_day, "total_characters", span, as_of, start)
