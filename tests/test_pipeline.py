"""fetch_usage against the emulator: exact key-days for any range, reconciliation reported."""

from __future__ import annotations

import datetime as dt
import json

import httpx
import pandas as pd
import pytest
import stamina
from conftest import FIXED_TODAY, small_config
from pydantic import SecretStr
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from test_client import Counting

from analytics.client import ServiceClient
from analytics.frames import CHARACTER_METRICS, KEY_DAY_COLUMNS, METRICS
from analytics.pipeline import fetch_usage, fetch_usage_async
from emulator import create_app

BASE = "http://service.test"


@pytest.fixture(autouse=True)
def no_waits():
    with stamina.set_testing(True, attempts=1000, cap=True):
        yield


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
        }
    )
    frame["total_characters"] = frame[CHARACTER_METRICS[1:]].sum(axis=1).astype("int64")
    latest = frame.drop_duplicates("api_key", keep="last").set_index("api_key")["api_key_label"]
    frame["api_key_label"] = frame["api_key"].map(latest)
    return frame[KEY_DAY_COLUMNS]


def assert_matches_ledger(key_day: pd.DataFrame, rows) -> None:
    """Key-day for key-day equality with the ledger, all columns, in contract order."""
    actual = key_day.astype({"api_key": str, "api_key_label": str, "usage_date": "datetime64[us]"})
    expected = ledger_frame(rows).astype(
        {"api_key": str, "api_key_label": str, "usage_date": "datetime64[us]"}
    )
    pd.testing.assert_frame_equal(actual, expected)


def client_for(app, key: str) -> tuple[ServiceClient, Counting]:
    transport = Counting(httpx.ASGITransport(app=app))
    return ServiceClient(BASE, SecretStr(key), transport=transport), transport


def test_frame_contract_dtypes_and_order(emulator_app):
    emu = emulator_app.state.emulator
    client, _ = client_for(emulator_app, emu.admin_key)
    with client:
        usage = fetch_usage(client, dt.date(2025, 4, 1), dt.date(2025, 5, 31), today=FIXED_TODAY)
    frame = usage.key_day
    assert list(frame.columns) == KEY_DAY_COLUMNS
    assert str(frame["usage_date"].dtype) == "datetime64[us]"
    assert isinstance(frame["api_key"].dtype, pd.CategoricalDtype)
    assert isinstance(frame["api_key_label"].dtype, pd.CategoricalDtype)
    assert all(str(frame[m].dtype) == "int64" for m in CHARACTER_METRICS)
    assert str(frame["speech_to_text_minutes"].dtype) == "float64"
    ordered = frame.sort_values(["usage_date", "api_key"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(frame, ordered)
    assert (frame["usage_date"] == frame["usage_date"].dt.normalize()).all()
    assert frame.groupby("api_key", observed=True)["api_key_label"].nunique().max() == 1
    assert_matches_ledger(frame, emu.ledger(dt.date(2025, 4, 1), dt.date(2025, 5, 31)))
    assert usage.mismatches == [] and usage.windows_fetched == 1


def test_latest_label_is_applied_to_every_row():
    app = create_app(small_config(days=120))
    emu = app.state.emulator
    start, end = dt.date(2025, 2, 1), dt.date(2025, 5, 31)
    raw_labels = {(r.api_key, r.api_key_label) for r in emu.ledger(start, end)}
    relabelled = {key for key, _ in raw_labels if sum(k == key for k, _ in raw_labels) > 1}
    assert relabelled, "the synthetic organization renames one key part-way"
    client, _ = client_for(app, emu.admin_key)
    with client:
        frame = fetch_usage(client, start, end, today=FIXED_TODAY).key_day
    for key in relabelled:
        labels = frame.loc[frame["api_key"] == key, "api_key_label"].unique()
        newest = [r for r in emu.ledger(start, end) if r.api_key == key][-1].api_key_label
        assert list(labels) == [newest]


def test_key_frame_and_totals_agree_with_the_service(emulator_app):
    emu = emulator_app.state.emulator
    client, _ = client_for(emulator_app, emu.admin_key)
    start, end = dt.date(2025, 4, 2), dt.date(2025, 5, 30)
    with client:
        usage = fetch_usage(client, start, end, today=FIXED_TODAY)
        by_key = client.usage_report(start, end + dt.timedelta(days=1), "key")
        total = client.usage_report(start, end + dt.timedelta(days=1)).total_usage
    keys = usage.key
    assert keys["total_characters"].is_monotonic_decreasing
    service = {k.api_key: k.usage.total_characters for k in by_key.key_usages}
    assert dict(zip(keys["api_key"].astype(str), keys["total_characters"], strict=True)) == service
    totals = usage.totals
    assert list(totals.index) == METRICS
    assert totals["total_characters"] == total.total_characters
    assert totals["speech_to_text_minutes"] == pytest.approx(total.speech_to_text_minutes)


async def test_async_variant_and_empty_range(emulator_app):
    from analytics.client import AsyncServiceClient

    emu = emulator_app.state.emulator
    transport = httpx.ASGITransport(app=emulator_app)
    async with AsyncServiceClient(BASE, SecretStr(emu.admin_key), transport=transport) as client:
        future = await fetch_usage_async(client, dt.date(2030, 1, 1), dt.date(2030, 1, 31))
        with pytest.raises(ValueError, match="before it starts"):
            await fetch_usage_async(client, dt.date(2025, 2, 1), dt.date(2025, 1, 1))
    assert future.key_day.empty and list(future.key_day.columns) == KEY_DAY_COLUMNS
    assert str(future.key_day["usage_date"].dtype) == "datetime64[us]"
    assert future.totals["total_characters"] == 0


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
        start = dt.date.fromisoformat(request.query_params["start_date"])
        end = dt.date.fromisoformat(request.query_params["end_date"])
        if start <= dt.date(2025, 5, 10) < end:
            body["usage_report"]["total_usage"]["text_translation_characters"] += 7
        return JSONResponse(body)

    return Starlette(routes=[Route("/v2/admin/analytics", analytics)])


def test_reconciliation_mismatch_is_reported_not_hidden(emulator_app, caplog):
    emu = emulator_app.state.emulator
    client, _ = client_for(miscounting_app(emulator_app), emu.admin_key)
    with client:
        usage = fetch_usage(client, dt.date(2025, 4, 1), dt.date(2025, 5, 31), today=FIXED_TODAY)
    assert len(usage.mismatches) == 1
    assert "2025-04-01..2025-05-31" in usage.mismatches[0]
    assert "text_translation_characters" in usage.mismatches[0]
    assert "do not reconcile" in caplog.text
    # The rows themselves are still the ledger's.
    assert_matches_ledger(usage.key_day, emu.ledger(dt.date(2025, 4, 1), dt.date(2025, 5, 31)))
