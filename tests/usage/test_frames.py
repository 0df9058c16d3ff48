"""Decoding analytics bodies into frames, key frames, labels, totals and reconciliation."""

from __future__ import annotations

import json
from datetime import date

import pandas as pd
import pytest
from support.builders import KEY_DAY_COLUMNS, METRICS, make_key_day

from analytics.service.decoding import BLOCK_ROWS
from analytics.service.errors import InvalidResponseError
from analytics.usage.frames import (
    decode_key_day,
    key_day_frame,
    key_frame,
    labels,
    reconcile,
    totals,
    within,
)

KEY_COLUMNS = KEY_DAY_COLUMNS[1:]


def item(
    day: str, key: str, label: str, text: int, doc: int = 0, minutes: float = 0.0, s2s: float = 0.0
) -> dict:
    return {
        "api_key": key,
        "api_key_label": label,
        "usage_date": f"{day}T00:00:00Z",
        "usage": {
            "total_characters": text + doc,
            "text_translation_characters": text,
            "document_translation_characters": doc,
            "text_improvement_characters": 0,
            "speech_to_text_minutes": minutes,
            "speech_to_speech_minutes": s2s,
        },
        "future_field": {"ignored": True},
    }


def body(items: list[dict], **total_overrides: float) -> bytes:
    total = {m: sum(i["usage"][m] for i in items) for m in METRICS}
    total.update(total_overrides)
    report = {
        "total_usage": total,
        "start_date": "2024-02-28T00:00:00",
        "end_date": "2024-03-02T00:00:00",
        "group_by": "key_and_day",
        "key_and_day_usages": items,
    }
    return json.dumps({"usage_report": report}).encode()


ITEMS = [
    item("2024-03-01", "bbbb****2222", "Old name", 5, minutes=1.25),
    item("2024-02-29", "aaaa****1111", "Web shop", 10, 3),
    item("2024-02-29", "bbbb****2222", "Old name", 7),
    item("2024-03-01", "aaaa****1111", "Web shop", 1),
    item("2024-03-02", "bbbb****2222", "New name", 2, minutes=0.5, s2s=2.25),
]


def test_decode_keeps_every_row_with_typed_columns():
    rows, total = decode_key_day(body(ITEMS))
    assert len(rows) == 5 and list(rows.columns) == KEY_DAY_COLUMNS
    assert rows["usage_date"].dt.strftime("%Y-%m-%d").tolist()[:2] == ["2024-03-01", "2024-02-29"]
    assert rows["total_characters"].tolist() == [5, 13, 7, 1, 2]
    assert total.speech_to_text_minutes == 1.75
    assert total.speech_to_speech_minutes == 2.25
    assert rows["speech_to_speech_minutes"].tolist() == [0.0, 0.0, 0.0, 0.0, 2.25]


def test_rows_of_many_blocks_are_read_in_order_and_a_bad_row_is_named():
    count = 2 * BLOCK_ROWS + 500  # three blocks, the last one short
    answer = json.loads(
        body([item("2024-03-01", f"k{n:05d}****zzzz", f"Key {n}", n) for n in range(count)])
    )
    rows_given = answer["usage_report"]["key_and_day_usages"]
    speech = rows_given[2 * BLOCK_ROWS + 3]["usage"]  # in the last block, given in milliseconds
    del speech["speech_to_text_minutes"]
    speech["speech_to_text_milliseconds"] = 90_000
    rows, _ = decode_key_day(json.dumps(answer).encode())
    assert rows["text_translation_characters"].tolist() == list(range(count))
    assert rows["api_key_label"].tolist() == [f"Key {n}" for n in range(count)]
    assert rows["speech_to_text_minutes"].sum() == 1.5
    assert rows["speech_to_text_minutes"].iloc[2 * BLOCK_ROWS + 3] == 1.5
    rows_given[BLOCK_ROWS + 7]["usage"]["document_translation_characters"] = -1
    with pytest.raises(InvalidResponseError, match=f"row {BLOCK_ROWS + 7}: Expected `int` >= 0"):
        decode_key_day(json.dumps(answer).encode())


def test_key_day_frame_sorts_and_applies_the_latest_label():
    rows, _ = decode_key_day(body(ITEMS))
    frame = key_day_frame([rows])
    assert frame["usage_date"].dt.strftime("%m-%d").tolist() == [
        "02-29",
        "02-29",
        "03-01",
        "03-01",
        "03-02",
    ]
    assert frame["api_key"].astype(str).tolist()[:2] == ["aaaa****1111", "bbbb****2222"]
    labels = frame.loc[frame["api_key"] == "bbbb****2222", "api_key_label"]
    assert set(labels) == {"New name"}
    assert list(frame["api_key_label"].cat.categories) == ["New name", "Web shop"]


def test_key_frame_and_totals():
    rows, _ = decode_key_day(body(ITEMS))
    frame = key_day_frame([rows])
    keys = key_frame(frame)
    assert list(keys.columns) == KEY_COLUMNS
    assert keys["api_key"].astype(str).tolist() == ["aaaa****1111", "bbbb****2222"]
    assert keys["total_characters"].tolist() == [14, 14]  # a tie: ordered by key
    assert keys["speech_to_text_minutes"].tolist() == [0.0, 1.75]
    assert totals(frame) == {
        "total_characters": 28,
        "text_translation_characters": 25,
        "document_translation_characters": 3,
        "text_improvement_characters": 0,
        "speech_to_text_minutes": 1.75,
        "speech_to_speech_minutes": 2.25,
    }
    assert isinstance(totals(frame)["total_characters"], int)


def test_totals_match_frame_sums():
    kd = make_key_day(5, 10)
    sums = totals(kd)
    assert list(sums) == METRICS
    assert sums["total_characters"] == kd["total_characters"].sum()
    assert sums["speech_to_text_minutes"] == pytest.approx(kd["speech_to_text_minutes"].sum())
    assert sums["speech_to_speech_minutes"] == pytest.approx(kd["speech_to_speech_minutes"].sum())
    assert totals(kd.iloc[0:0]) == dict.fromkeys(METRICS, 0)


def test_an_answer_without_speech_to_speech_reads_it_as_zero_and_never_adds_it():
    plain = [item("2024-02-29", "aaaa****1111", "Web shop", 10, minutes=1.5)]
    answer = json.loads(body(plain))
    for usage in (answer["usage_report"]["total_usage"], plain[0]["usage"]):
        del usage["speech_to_speech_minutes"]
    rows, total = decode_key_day(json.dumps(answer).encode())
    assert rows["speech_to_speech_minutes"].tolist() == [0.0]
    assert rows["speech_to_text_minutes"].tolist() == [1.5]
    assert rows["total_characters"].tolist() == [10]
    assert total is not None and total.speech_to_speech_minutes == 0.0


def test_labels_name_each_key_by_its_latest_label():
    rows, _ = decode_key_day(body(ITEMS))
    named = labels(key_day_frame([rows]))
    assert dict(named) == {"aaaa****1111": "Web shop", "bbbb****2222": "New name"}
    assert len(labels(key_day_frame([rows]).iloc[0:0])) == 0


def test_within_keeps_the_inclusive_days():
    rows, _ = decode_key_day(body(ITEMS))
    frame = key_day_frame([rows])
    leap_day = within(frame, date(2024, 2, 29), date(2024, 2, 29))
    assert leap_day["total_characters"].tolist() == [13, 7]
    assert len(within(frame, date(2024, 2, 29), date(2024, 3, 2))) == 5
    assert within(frame, date(2024, 3, 3), date(2024, 3, 31)).empty


def test_reconcile_reports_each_differing_metric():
    rows, total = decode_key_day(body(ITEMS))
    assert reconcile(rows, total, "window A") is None
    rows, total = decode_key_day(body(ITEMS, total_characters=29, speech_to_text_minutes=2.0))
    message = reconcile(rows, total, "window A")
    assert message.startswith("window A: ")
    assert "Total characters: total 29, rows sum to 28" in message
    assert "Speech-to-text minutes: total 2.0" in message
    assert "Text translation characters" not in message
    assert "_" not in message  # metrics by their labels: the overview shows this message


def test_minutes_reconcile_despite_float_rounding():
    many = [item("2024-02-29", f"k{i:03d}****zzzz", "x", 1, minutes=0.1) for i in range(30)]
    rows, total = decode_key_day(body(many, speech_to_text_minutes=3.0))
    assert reconcile(rows, total, "w") is None


def test_empty_frames_keep_the_contract():
    rows, _ = decode_key_day(body([]))
    frame = key_day_frame([rows])
    assert frame.empty and list(frame.columns) == KEY_DAY_COLUMNS
    assert str(frame["usage_date"].dtype) == "datetime64[us]"
    assert isinstance(frame["api_key"].dtype, pd.CategoricalDtype)
    assert key_frame(frame).empty
    assert totals(frame)["total_characters"] == 0


@pytest.mark.parametrize(
    "broken",
    [
        b"not json",
        json.dumps({"usage_report": {"total_usage": {}}}).encode(),
        body([item("2024-02-30", "aaaa****1111", "x", 1)]),  # no such day
        body([item("2024-02-29", "aaaa****1111", "x", 1)]).replace(
            b'"text_translation_characters": 1', b'"text_translation_characters": "1"'
        ),  # a number as text
        body([]).replace(b', "key_and_day_usages": []', b""),  # grouping array missing
        body([item("2024-02-29", "aaaa****1111", "x", 1)]).replace(
            b'"speech_to_text_minutes": 0.0', b'"speech_to_text_milliseconds": -1'
        ),  # milliseconds below 0
    ],
)
def test_bodies_of_the_wrong_shape_raise_invalid_response(broken):
    with pytest.raises(InvalidResponseError):
        decode_key_day(broken)


def test_unicode_labels_survive_decoding():
    label = 'שלום, "team" 👋\nline two'
    rows, _ = decode_key_day(body([item("2024-02-29", "aaaa****1111", label, 1)]))
    assert key_day_frame([rows])["api_key_label"].tolist() == [label]


@pytest.mark.parametrize(("given", "read"), [(0.1234567, 0.123457), (1.25, 1.25), (0.0, 0.0)])
def test_minutes_are_read_at_the_services_six_decimals(given, read):
    rows, _ = decode_key_day(body([item("2024-03-01", "cccc****3333", "Speech", 1, minutes=given)]))
    assert rows["speech_to_text_minutes"].tolist() == [read]


# Each row's speech-to-text fields as given, and the minutes they are read as.
SPEECH = [
    ({"speech_to_text_milliseconds": 90_000}, 1.5),  # minutes absent: milliseconds ÷ 60,000
    ({"speech_to_text_milliseconds": 1}, 0.000017),  # at the service's six decimals
    ({"speech_to_text_milliseconds": 90_000, "speech_to_text_minutes": 2.0}, 2.0),  # minutes win
    ({}, 0.0),  # neither: no minutes
]


def test_speech_to_text_is_read_in_minutes_or_milliseconds():
    keys = [f"k{n:03d}****zzzz" for n in range(len(SPEECH))]
    answer = json.loads(body([item("2024-03-01", key, "Speech", 1) for key in keys]))
    report = answer["usage_report"]
    usages = [row["usage"] for row in report["key_and_day_usages"]] + [report["total_usage"]]
    total = {"speech_to_text_milliseconds": 210_001}  # 90,000 + 1 + 2 minutes' 120,000
    for usage, fields in zip(usages, [*(fields for fields, _ in SPEECH), total], strict=True):
        del usage["speech_to_text_minutes"]
        usage.update(fields)
    rows, read_total = decode_key_day(json.dumps(answer).encode())
    assert rows["speech_to_text_minutes"].tolist() == [minutes for _, minutes in SPEECH]
    # The total is read by the same rule (3.500017 minutes): it reconciles with the rows.
    assert reconcile(rows, read_total, "body") is None
