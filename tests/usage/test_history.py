"""The DuckDB history of closed days: incremental runs, identical output, busy files."""

from __future__ import annotations

import datetime as dt
import hashlib
import subprocess
import sys

import pandas as pd
import pytest
from pydantic import SecretStr
from support.builders import (
    BASE,
    asgi_client,
    assert_matches_ledger,
    miscounting_app,
    runs_with_history,
)
from support.servers import FIXED_TODAY, emulator_of, small_config

from analytics.exports.formats import export_bytes
from analytics.exports.shaping import shape_export
from analytics.service.service_connection import ServiceConnection
from analytics.usage.history import HistoryStore
from analytics.usage.pipeline import fetch_usage

START, END = dt.date(2023, 6, 2), dt.date(2025, 5, 31)  # 730 days: two windows


pytestmark = pytest.mark.usefixtures("instant_retries")


@pytest.fixture(scope="module")
def app():
    with emulator_of(small_config(keys=4, days=800)) as app:
        yield app


def analytics_requests(requests) -> int:
    return len([r for r in requests if r.url.path == "/v2/admin/analytics"])


def test_second_run_fetches_only_open_days_and_is_byte_identical(app, tmp_path):
    emu = app.state.emulator
    plain, (first, first_sent), (second, second_sent) = runs_with_history(
        app, fetch_usage, START, END, tmp_path / "history.duckdb", FIXED_TODAY
    )
    assert (first.windows_fetched, analytics_requests(first_sent)) == (2, 2)
    # Closed through 2025-05-28; the last three days (29th-31st) are always fetched again.
    assert second.windows_fetched == analytics_requests(second_sent) == 1
    (only,) = second_sent
    assert only.url.params["start_date"] == "2025-05-29"
    assert only.url.params["end_date"] == "2025-06-01"
    assert second.days_from_history == (dt.date(2025, 5, 28) - START).days + 1
    for usage in (first, second):
        pd.testing.assert_frame_equal(usage.frame, plain.frame)
        for column in ("api_key", "api_key_label"):
            assert list(usage.frame[column].cat.categories) == list(
                plain.frame[column].cat.categories
            )
        for grouping in ("key_and_day", "key", "none"):
            assert export_bytes(shape_export(usage.frame, START, END, grouping), "csv") == (
                export_bytes(shape_export(plain.frame, START, END, grouping), "csv")
            )
    assert_matches_ledger(second.frame, emu.ledger(START, END))


def test_sub_range_and_later_days_use_what_is_stored(app, tmp_path):
    emu = app.state.emulator
    store = HistoryStore(tmp_path / "history.duckdb")
    client, transport = asgi_client(app)
    with client:
        fetch_usage(
            client, dt.date(2024, 1, 1), dt.date(2024, 6, 30), history=store, today=FIXED_TODAY
        )
        transport.requests.clear()
        # Stored: Jan-Jun 2024. Asked: Dec 2023-Sep 2024 -> two missing runs, one window each.
        usage = fetch_usage(
            client, dt.date(2023, 12, 1), dt.date(2024, 9, 30), history=store, today=FIXED_TODAY
        )
    asked = sorted(
        (r.url.params["start_date"], r.url.params["end_date"]) for r in transport.requests
    )
    assert asked == [("2023-12-01", "2024-01-01"), ("2024-07-01", "2024-10-01")]
    assert usage.days_from_history == 182
    assert_matches_ledger(usage.frame, emu.ledger(dt.date(2023, 12, 1), dt.date(2024, 9, 30)))


def test_days_without_usage_are_not_fetched_twice(app, tmp_path):
    store = HistoryStore(tmp_path / "history.duckdb")
    client, transport = asgi_client(app)
    quiet = (dt.date(2015, 1, 1), dt.date(2015, 12, 31))  # long before the organization
    with client:
        first = fetch_usage(client, *quiet, history=store, today=FIXED_TODAY)
        second = fetch_usage(client, *quiet, history=store, today=FIXED_TODAY)
    assert first.frame.empty and second.frame.empty
    assert (first.windows_fetched, second.windows_fetched) == (1, 0)
    assert analytics_requests(transport.requests) == 1
    assert second.days_from_history == 365


def test_unreconciled_windows_are_not_stored(app, tmp_path):
    emu = app.state.emulator
    store = HistoryStore(tmp_path / "history.duckdb")
    client, _ = asgi_client(miscounting_app(app), emu.admin_key)
    with client:
        first = fetch_usage(client, START, END, history=store, today=FIXED_TODAY)
        second = fetch_usage(client, START, END, history=store, today=FIXED_TODAY)
    assert len(first.mismatches) == 1 and "2024-06-01..2025-05-31" in first.mismatches[0]
    # The window holding 2025-05-10 did not reconcile: it is fetched again, and warned again.
    assert second.windows_fetched == 1 and len(second.mismatches) == 1


def test_store_file_is_named_by_digests_never_the_key(app, tmp_path):
    key = app.state.emulator.admin_key
    store = HistoryStore.for_account(tmp_path, BASE, SecretStr(key))
    base_digest = hashlib.sha256(BASE.encode()).hexdigest()[:12]
    key_digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    # The layout version ends the name: a store from before speech-to-speech minutes is not
    # read as if it had counted them.
    assert store.path == tmp_path / f"{base_digest}-{key_digest}-v2.duckdb"
    client, _ = asgi_client(app)
    with client:
        fetch_usage(client, START, END, history=store, today=FIXED_TODAY)
    assert store.path.exists()
    assert key.encode() not in store.path.read_bytes()
    assert key not in repr(store)


HOLD_WRITE_LOCK = """
import sys, duckdb
connection = duckdb.connect(sys.argv[1])
connection.execute("CREATE TABLE IF NOT EXISTS held (x INTEGER)")
print("locked", flush=True)
sys.stdin.readline()
connection.close()
"""


def test_a_file_locked_by_another_process_falls_back_to_fetching(app, tmp_path, caplog):
    emu = app.state.emulator
    store = HistoryStore(tmp_path / "history.duckdb")
    client, transport = asgi_client(app)
    with client:
        fetch_usage(client, START, END, history=store, today=FIXED_TODAY)
        holder = subprocess.Popen(
            [sys.executable, "-c", HOLD_WRITE_LOCK, str(store.path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert holder.stdout.readline().strip() == "locked"
            transport.requests.clear()
            usage = fetch_usage(client, START, END, history=store, today=FIXED_TODAY)
        finally:
            holder.communicate("release\n", timeout=30)
        assert usage.windows_fetched == 2 and usage.days_from_history == 0
        assert "busy, fetching instead" in caplog.text and "not written" in caplog.text
        assert_matches_ledger(usage.frame, emu.ledger(START, END))
        # Released: the store serves again.
        transport.requests.clear()
        again = fetch_usage(client, START, END, history=store, today=FIXED_TODAY)
    assert again.windows_fetched == 1


def test_store_from_connection(tmp_path):
    assert (
        HistoryStore.from_connection(ServiceConnection(auth_key=None, base_url="http://x.test"))
        is None
    )
    off = ServiceConnection(auth_key="k", base_url="http://x.test", history_path=None)
    assert HistoryStore.from_connection(off) is None
    store = HistoryStore.from_connection(
        ServiceConnection(auth_key="k", base_url="http://x.test", history_path=tmp_path)
    )
    assert store.path.parent == tmp_path and store.path.name.endswith(".duckdb")
