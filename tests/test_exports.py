"""Export shapes, spreadsheet safety, round trips and atomic writes."""

from __future__ import annotations

import datetime as dt
import io
import os
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from analytics import exports
from analytics.exports import export_bytes, format_for, shape_export, write_export
from analytics.frames import KEY_COLUMNS, KEY_DAY_COLUMNS, METRICS, key_day_frame
from analytics.pipeline import Usage

TRICKY = [
    '=HYPERLINK("http://x","y")',
    "+1 (555) 010",
    "-team",
    "@mention",
    "\tindented",
    "\rreturn",
    'Café, "quoted", comma',
    "שלום עולם",
    "emoji 🚀 label",
    "two\nlines",
]


def usage_with_labels(labels: list[str]) -> Usage:
    rows = pd.DataFrame(
        {
            "usage_date": pd.to_datetime(["2024-02-29"] * len(labels) + ["2024-03-01"]),
            "api_key": [f"k{i:03d}****abcd" for i in range(len(labels))] + ["k000****abcd"],
            "api_key_label": [*labels, labels[0]],
            "total_characters": [10 * (i + 1) for i in range(len(labels))] + [5],
            "text_translation_characters": [10 * (i + 1) for i in range(len(labels))] + [5],
            "document_translation_characters": 0,
            "text_improvement_characters": 0,
            "speech_to_text_minutes": [0.1 * i for i in range(len(labels))] + [2.5],
        }
    )
    return Usage(key_day_frame([rows]), dt.date(2024, 2, 29), dt.date(2024, 3, 1))


def read_csv(data: bytes) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(data), keep_default_na=False)


def test_shapes_of_the_three_groupings():
    usage = usage_with_labels(["Web", "App"])
    by_day = shape_export(usage, "key_and_day")
    assert list(by_day.columns) == KEY_DAY_COLUMNS
    assert by_day["usage_date"].tolist() == [dt.date(2024, 2, 29)] * 2 + [dt.date(2024, 3, 1)]
    by_key = shape_export(usage, "key")
    assert list(by_key.columns) == KEY_COLUMNS
    assert by_key["total_characters"].tolist() == [20, 15]
    (total,) = shape_export(usage, "none").to_dict("records")
    assert list(total) == ["start_date", "end_date", *METRICS]
    assert (total["start_date"], total["end_date"]) == (dt.date(2024, 2, 29), dt.date(2024, 3, 1))
    assert total["total_characters"] == 35
    with pytest.raises(ValueError, match="grouping"):
        shape_export(usage, "month")


def test_csv_is_guarded_against_formulas_and_round_trips_everything_else():
    usage = usage_with_labels(TRICKY)
    table = shape_export(usage, "key_and_day")
    text = export_bytes(table, "csv").decode("utf-8")
    assert text.splitlines()[0] == ",".join(KEY_DAY_COLUMNS)
    assert text.startswith("usage_date,api_key,") and "\r\n2024-02-29," in text
    back = read_csv(text.encode())
    labels = set(back["api_key_label"])
    for label in TRICKY:
        guarded = "'" + label if label[0] in "=+-@\t\r" else label
        assert guarded in labels
    assert back["total_characters"].tolist() == table["total_characters"].tolist()
    assert back["speech_to_text_minutes"].tolist() == table["speech_to_text_minutes"].tolist()


def test_raw_csv_keeps_text_exactly():
    usage = usage_with_labels(TRICKY)
    back = read_csv(export_bytes(shape_export(usage, "key"), "csv", raw=True))
    assert set(back["api_key_label"]) == set(TRICKY)


def test_xlsx_cells_are_text_never_formulas(tmp_path):
    usage = usage_with_labels(TRICKY)
    table = shape_export(usage, "key_and_day")
    for raw in (False, True):
        path = write_export(table, tmp_path / f"usage-{raw}.xlsx", raw=raw)
        sheet = openpyxl.load_workbook(path).active
        header = [cell.value for cell in sheet[1]]
        assert header == KEY_DAY_COLUMNS
        label_cells = [row[2] for row in sheet.iter_rows(min_row=2)]
        assert all(cell.data_type == "s" for cell in label_cells)
        values = {cell.value for cell in label_cells}
        assert ('=HYPERLINK("http://x","y")' in values) is raw
        assert ('\'=HYPERLINK("http://x","y")' in values) is not raw


def test_parquet_keeps_types_and_text(tmp_path):
    usage = usage_with_labels(TRICKY)
    path = write_export(shape_export(usage, "key_and_day"), tmp_path / "usage.parquet")
    back = pd.read_parquet(path)
    assert list(back.columns) == KEY_DAY_COLUMNS
    assert set(back["api_key_label"].astype(str)) == set(TRICKY)  # not a spreadsheet: no guard
    assert back["usage_date"].tolist()[0] == dt.date(2024, 2, 29)
    assert str(back["total_characters"].dtype) == "int64"


def test_format_from_extension():
    assert format_for(Path("a/b.CSV")) == "csv"
    assert format_for(Path("x.parquet")) == "parquet"
    with pytest.raises(ValueError, match=r"\.csv"):
        format_for(Path("report.txt"))


def test_write_export_replaces_the_file_and_leaves_no_temporaries(tmp_path):
    table = shape_export(usage_with_labels(["Web"]), "key_and_day")
    target = tmp_path / "usage.csv"
    target.write_text("old content")
    assert write_export(table, target) == target
    assert target.read_bytes() == export_bytes(table, "csv")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["usage.csv"]
    mask = os.umask(0)
    os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask  # like any new file, not 0600


@pytest.mark.parametrize("failing", ["fsync", "replace"])
def test_a_failed_write_leaves_the_earlier_file_untouched(tmp_path, monkeypatch, failing):
    table = shape_export(usage_with_labels(["Web"]), "key_and_day")
    target = tmp_path / "usage.csv"
    target.write_text("yesterday's export")

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(exports.os, failing, broken)
    with pytest.raises(OSError, match="No space"):
        write_export(table, target)
    monkeypatch.undo()
    assert target.read_text() == "yesterday's export"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["usage.csv"]


def test_unknown_format_writes_nothing(tmp_path):
    table = shape_export(usage_with_labels(["Web"]), "key")
    with pytest.raises(ValueError, match="format"):
        write_export(table, tmp_path / "usage.csv", fmt="json")
    assert list(tmp_path.iterdir()) == []
