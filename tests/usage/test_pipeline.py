"""fetch_usage against the emulator: exact key-days for any range, reconciliation reported."""

from __future__ import annotations

import datetime as dt

import pandas as pd
import pytest
from support.builders import (
    KEY_DAY_COLUMNS,
    METRICS,
    asgi_client,
    assert_matches_ledger,
    fetched_without_usage,
    miscounting_app,
)
from support.servers import FIXED_TODAY, small_config

from analytics.usage.frames import key_frame, totals
from analytics.usage.pipeline import fetch_usage, fetch_usage_async
from emulator import create_app

CHARACTER_METRICS = METRICS[:4]

pytestmark = pytest.mark.usefixtures("instant_retries")


def test_frame_contract_dtypes_and_order(emulator_app):
    emu = emulator_app.state.emulator
    client, _ = asgi_client(emulator_app)
    with client:
        usage = fetch_usage(client, dt.date(2025, 4, 1), dt.date(2025, 5, 31), today=FIXED_TODAY)
    frame = usage.frame
    assert list(frame.columns) == KEY_DAY_COLUMNS
    assert str(frame["usage_date"].dtype) == "datetime64[us]"
    assert isinstance(frame["api_key"].dtype, pd.CategoricalDtype)
    assert isinstance(frame["api_key_label"].dtype, pd.CategoricalDtype)
    assert all(str(frame[m].dtype) == "int64" for m in CHARACTER_METRICS)
    assert str(frame["speech_to_text_minutes"].dtype) == "float64"
    assert str(frame["speech_to_speech_minutes"].dtype) == "float64"
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
    client, _ = asgi_client(app)
    with client:
        frame = fetch_usage(client, start, end, today=FIXED_TODAY).frame
    for key in relabelled:
        labels = frame.loc[frame["api_key"] == key, "api_key_label"].unique()
        newest = [r for r in emu.ledger(start, end) if r.api_key == key][-1].api_key_label
        assert list(labels) == [newest]


def test_key_frame_and_totals_agree_with_the_service(emulator_app):
    client, _ = asgi_client(emulator_app)
    start, end = dt.date(2025, 4, 2), dt.date(2025, 5, 30)
    with client:
        usage = fetch_usage(client, start, end, today=FIXED_TODAY)
        by_key = client.usage_report(start, end + dt.timedelta(days=1), "key")
        total = client.usage_report(start, end + dt.timedelta(days=1)).total_usage
    keys = key_frame(usage.frame)
    assert keys["total_characters"].is_monotonic_decreasing
    service = {k.api_key: k.usage.total_characters for k in by_key.key_usages}
    assert dict(zip(keys["api_key"].astype(str), keys["total_characters"], strict=True)) == service
    sums = totals(usage.frame)
    assert list(sums) == METRICS
    assert sums["total_characters"] == total.total_characters
    assert isinstance(sums["total_characters"], int)
    assert sums["speech_to_text_minutes"] == pytest.approx(total.speech_to_text_minutes)
    assert sums["speech_to_speech_minutes"] == pytest.approx(total.speech_to_speech_minutes)


async def test_async_variant_and_empty_range(emulator_app):
    future = await fetched_without_usage(
        fetch_usage_async, emulator_app, dt.date(2030, 1, 1), dt.date(2030, 1, 31), KEY_DAY_COLUMNS
    )
    assert totals(future.frame) == {
        **dict.fromkeys(METRICS[:4], 0),
        **dict.fromkeys(METRICS[4:], 0.0),
    }


def test_reconciliation_mismatch_is_reported_not_hidden(emulator_app, caplog):
    emu = emulator_app.state.emulator
    client, _ = asgi_client(miscounting_app(emulator_app), emu.admin_key)
    with client:
        usage = fetch_usage(client, dt.date(2025, 4, 1), dt.date(2025, 5, 31), today=FIXED_TODAY)
    assert len(usage.mismatches) == 1
    assert "2025-04-01..2025-05-31" in usage.mismatches[0]
    assert "Text translation characters" in usage.mismatches[0]  # named by its label
    assert "do not reconcile" in caplog.text
    # The rows themselves are still the ledger's.
    assert_matches_ledger(usage.frame, emu.ledger(dt.date(2025, 4, 1), dt.date(2025, 5, 31)))
