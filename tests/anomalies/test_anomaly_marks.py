"""Marks on anomalies (records of the state store, on either backend) and the tables the page
and the command line show."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pandas as pd
import pytest
from pydantic import SecretStr
from support.builders import FIRST, usage_frame

from analytics.anomalies import Anomaly
from analytics.anomalies.listing import (
    TABLE_COLUMNS,
    anomaly_counts,
    anomaly_name,
    anomaly_table,
    anomaly_window,
    new_anomalies,
)
from analytics.anomalies.marks import Marks, check_id, read_file, take
from analytics.service.service_connection import ServiceConnection
from analytics.storage.state_store import embedded_store
from analytics.usage.records import Records

SPIKE = "spike:k001****z001:total_characters:2025-03-05"
DROP = "drop:2416****2:fx:text_translation_characters:2025-02-27"  # a masked key with :fx
AT = datetime(2025, 3, 6, 8, 30, tzinfo=UTC)


def anomaly(kind="spike", api_key="k001****z001", first=date(2025, 3, 5), **values) -> Anomaly:
    fields = {
        "label": "Finance reporting",
        "metric": "total_characters",
        "last": first,
        "observed": 90_000.0,
        "expected": 10_000.0,
        "bound": 29_688.0,
        "severity": "medium",
        "sentence": "Finance reporting used 90,000 characters on Wed 2025-03-05, …",
    } | values
    return Anomaly(kind=kind, api_key=api_key, first=first, **fields)


def test_marks_are_written_read_and_removed(state_store):
    marks = Marks(Records(state_store, "acct"))
    other = Marks(Records(state_store, "another"))
    assert marks.read() == {}
    marks.set(SPIKE, "expected", now=AT)
    marks.set(DROP, "acknowledged", now=AT)
    marks.set(SPIKE, "acknowledged", now=AT + timedelta(hours=1))  # the last mark given wins
    assert marks.read_times() == {
        SPIKE: ("acknowledged", AT + timedelta(hours=1)),
        DROP: ("acknowledged", AT),
    }
    assert other.read() == {}  # an account's marks are its own
    marks.set(SPIKE, None)
    assert marks.read() == {DROP: "acknowledged"}


def test_a_marks_file_from_before_the_store_is_taken_once_and_later_marks_win(state_store):
    marks = Marks(Records(state_store, "acct"))
    marks.set(DROP, "expected", now=AT + timedelta(days=1))  # given after the file's
    content = (
        f'{{"marks": {{"{SPIKE}": {{"mark": "expected", "marked_at": "2025-03-06T08:30:00Z"}},'
        f' "{DROP}": {{"mark": "acknowledged", "marked_at": "2025-03-06T08:30:00Z"}}}}}}'
    ).encode()
    assert take(marks, read_file(content)) == 1
    assert take(marks, read_file(content)) == 0
    assert marks.read() == {SPIKE: "expected", DROP: "expected"}
    with pytest.raises(ValueError):
        read_file(b'{"marks": 3}')


def test_where_marks_live(tmp_path):
    demo = ServiceConnection(history_path=tmp_path, demo_keys=8, demo_days=120, demo_seed=7)
    assert Marks.for_connection(demo, demo=True) == Marks(
        Records(embedded_store(tmp_path), "demo-7-8-120")
    )
    key = SecretStr("a-secret-admin-key-0001")
    account = ServiceConnection(history_path=tmp_path, auth_key=key, base_url="https://api.example")
    marks = Marks.for_connection(account, demo=False)
    assert marks is not None and marks.records.store.path == tmp_path / "state.sqlite"
    assert len(marks.records.account) == 29 and key.get_secret_value() not in marks.records.account
    assert Marks.for_connection(ServiceConnection(history_path=tmp_path), demo=False) is None
    assert Marks.for_connection(ServiceConnection(history_path=None), demo=True) is None


@pytest.mark.parametrize(
    "text", [SPIKE, DROP, "new:organization:speech_to_text_minutes:2026-01-31"]
)
def test_ids_are_checked(text):
    assert check_id(f" {text} ") == text


def test_the_table_shows_each_anomalys_status_and_new_ones_are_the_unmarked():
    spike, drop = anomaly(), anomaly("drop", "2416****2:fx", date(2025, 2, 27), severity="high")
    table = anomaly_table([drop, spike], {SPIKE: "acknowledged"})
    assert list(table.columns) == TABLE_COLUMNS
    assert table[["id", "status", "kind", "metric"]].values.tolist() == [
        ["drop:2416****2:fx:total_characters:2025-02-27", "new", "Drop", "Total characters"],
        [SPIKE, "acknowledged", "Spike", "Total characters"],
    ]
    assert new_anomalies([drop, spike], {SPIKE: "acknowledged"}) == [drop]
    assert list(anomaly_table([], {}).columns) == TABLE_COLUMNS


@pytest.mark.parametrize(
    ("found", "name"),
    [
        (
            anomaly("new", "3909****a:fx", date(2026, 11, 8), last=date(2026, 11, 11), label="Bot"),
            "New key · Bot (3909****a:fx) · characters · from Sun 2026-11-08 to Wed 2026-11-11",
        ),
        (anomaly(), "Spike · Finance reporting (k001****z001) · characters · on Wed 2025-03-05"),
        (
            anomaly("drop", "2416****2:fx", metric="document_translation_characters", label=""),
            "Drop · 2416****2:fx · document translation characters · on Wed 2025-03-05",
        ),
        (
            anomaly(
                "dormant", "organization", metric="speech_to_text_minutes", label="Organization"
            ),
            "Dormant key used · Organization · speech-to-text minutes · on Wed 2025-03-05",
        ),
    ],
)
def test_an_anomaly_is_named_in_words_and_found_by_its_id(found, name):
    assert anomaly_name(found) == name
    assert check_id(found.id) == found.id  # the id stays what links and marks take
    assert found.id not in name


def test_an_anomalys_window_for_its_chart():
    days = 70
    values = [10_000] * days
    values[63] = values[64] = 90_000
    frame = usage_frame({"k001****z001": values, "k002****z002": [200_000] * days})
    last = FIRST + timedelta(days=days - 1)
    spike = anomaly(first=FIRST + timedelta(days=63), last=FIRST + timedelta(days=64))
    window = anomaly_window(frame, FIRST, last, spike)
    assert window["usage_date"].iloc[0] == datetime(2025, 2, 5)  # 28 days before
    assert window["usage_date"].iloc[-1] == datetime(2025, 3, 11)  # the frame's last day
    assert window.loc[window["anomalous"], "observed"].tolist() == [90_000, 90_000]
    assert window["expected"].eq(10_000).all()


def test_the_pages_tiles_count_statuses_and_high_severity():
    table = pd.DataFrame(
        {
            "status": ["new", "new", "expected", "acknowledged", "new"],
            "severity": ["high", "low", "high", "medium", "medium"],
        }
    )
    assert anomaly_counts(table) == {
        "New": 3,
        "Expected": 1,
        "Acknowledged": 1,
        "High severity": 2,
    }
