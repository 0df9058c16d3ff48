"""Export shapes, spreadsheet safety, round trips, atomic writes, and the command line and
crontab line the Export page shows."""

from __future__ import annotations

import datetime as dt
import io
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import openpyxl
import pandas as pd
import pytest
from support.builders import (
    KEY_DAY_COLUMNS,
    METRICS,
    MONEY_END,
    MONEY_START,
    money_organization,
)

from analytics.cost.prices import parse_pricing
from analytics.cost.teams import parse_teams
from analytics.exports.commands import (
    CRON_SCHEDULE,
    export_command,
    export_crontab,
    program,
)
from analytics.exports.formats import export_bytes, format_for, write_export
from analytics.exports.requests import ExportRequest
from analytics.exports.shaping import Costing, shape_export
from analytics.exports.vocabulary import SOURCES, ExportProblem
from analytics.usage.frames import key_day_frame

KEY_COLUMNS = KEY_DAY_COLUMNS[1:]
START, END = dt.date(2024, 2, 29), dt.date(2024, 3, 1)

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

# The command a checkout names: its interpreter, the checkout on PYTHONPATH, from any folder.
CHECKOUT = f"PYTHONPATH={Path(__file__).resolve().parents[2]} {sys.executable} -m analytics"


def frame_with_labels(labels: list[str]) -> pd.DataFrame:
    """Key ``i`` labelled ``labels[i]`` uses 10·(i+1) characters on 29 February 2024; key 0
    also uses 5 on 1 March."""
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
            "speech_to_speech_minutes": 0.0,
        }
    )
    return key_day_frame([rows])


def read_csv(data: bytes) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(data), keep_default_na=False)


def test_shapes_of_the_three_groupings():
    key_day = frame_with_labels(["Web", "App"])
    by_day = shape_export(key_day, START, END, "key_and_day")
    assert list(by_day.columns) == KEY_DAY_COLUMNS
    assert by_day["usage_date"].tolist() == [dt.date(2024, 2, 29)] * 2 + [dt.date(2024, 3, 1)]
    by_key = shape_export(key_day, START, END, "key")
    assert list(by_key.columns) == KEY_COLUMNS
    assert by_key["total_characters"].tolist() == [20, 15]
    (total,) = shape_export(key_day, START, END, "none").to_dict("records")
    assert list(total) == ["start_date", "end_date", *METRICS]
    assert (total["start_date"], total["end_date"]) == (dt.date(2024, 2, 29), dt.date(2024, 3, 1))
    assert total["total_characters"] == 35
    with pytest.raises(ValueError, match="grouping"):
        shape_export(key_day, START, END, "month")


def test_csv_is_guarded_against_formulas_and_round_trips_everything_else():
    key_day = frame_with_labels(TRICKY)
    table = shape_export(key_day, START, END, "key_and_day")
    text = export_bytes(table, "csv").decode("utf-8")
    assert text.splitlines()[0] == ",".join(KEY_DAY_COLUMNS)
    assert text.startswith("usage_date,api_key,") and "\r\n2024-02-29," in text
    back = read_csv(text.encode())
    labels = set(back["api_key_label"])
    for label in TRICKY:
        guarded = "'" + label if label[0] in "=+-@\t\r" else label
        assert guarded in labels
    assert back["total_characters"].tolist() == table["total_characters"].tolist()
    # The minutes (0.1 · i, float noise and all) as the decimals they are, at six places.
    decimals = [float(f"{minutes:.6f}") for minutes in table["speech_to_text_minutes"]]
    assert back["speech_to_text_minutes"].tolist() == decimals
    assert "0.30000000000000004" not in text


def test_raw_csv_keeps_text_exactly():
    key_day = frame_with_labels(TRICKY)
    back = read_csv(export_bytes(shape_export(key_day, START, END, "key"), "csv", raw=True))
    assert set(back["api_key_label"]) == set(TRICKY)


def test_xlsx_cells_are_text_never_formulas(tmp_path):
    key_day = frame_with_labels(TRICKY)
    table = shape_export(key_day, START, END, "key_and_day")
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
    key_day = frame_with_labels(TRICKY)
    path = write_export(
        shape_export(key_day, START, END, "key_and_day"), tmp_path / "usage.parquet"
    )
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
    table = shape_export(frame_with_labels(["Web"]), START, END, "key_and_day")
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
    table = shape_export(frame_with_labels(["Web"]), START, END, "key_and_day")
    target = tmp_path / "usage.csv"
    target.write_text("yesterday's export")

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, failing, broken)
    with pytest.raises(OSError, match="No space"):
        write_export(table, target)
    monkeypatch.undo()
    assert target.read_text() == "yesterday's export"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["usage.csv"]


def test_unknown_format_writes_nothing(tmp_path):
    table = shape_export(frame_with_labels(["Web"]), START, END, "key")
    with pytest.raises(ValueError, match="format"):
        write_export(table, tmp_path / "usage.csv", fmt="json")
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def installed(monkeypatch, tmp_path):
    """The package installed as pip installs it: its metadata declares the command."""
    info = tmp_path / "usage_dashboard-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: usage-dashboard\nVersion: 0.1.0\n")
    scripts = "[console_scripts]\nusage-dashboard = analytics.cli:main\n"
    (info / "entry_points.txt").write_text(scripts)
    monkeypatch.syspath_prepend(str(tmp_path))
    program.cache_clear()
    yield
    program.cache_clear()


@pytest.fixture
def checkout(monkeypatch):
    """A checkout's environment: the dependencies installed, not the package."""
    monkeypatch.setattr(
        sys, "path", [p for p in sys.path if not list(Path(p).glob("usage_dashboard-*.dist-info"))]
    )
    program.cache_clear()
    yield
    program.cache_clear()


def test_the_installed_command_is_named_as_installed(installed):
    """Installed, as cron runs it, the page's command line is `usage-dashboard`, the command
    the crontab line runs too."""
    start, end = dt.date(2026, 10, 1), dt.date(2026, 10, 31)
    command = export_command(ExportRequest("usage", "key"), start, end, "csv")
    assert command == (
        "usage-dashboard export --start 2026-10-01 --end 2026-10-31 --group-by key "
        "--output usage_key_2026-10-01_2026-10-31.csv"
    )
    crontab = export_crontab(ExportRequest("usage", "key"), start, end, "csv", "custom")
    assert crontab.endswith(f"venv/bin/{command}")


# Every grouping's file of October 2026, named by the grouping's name in words.
FILE_NAMES = {
    ("usage", "key_and_day"): "usage_key_and_day_2026-10-01_2026-10-31.csv",
    ("usage", "key"): "usage_key_2026-10-01_2026-10-31.csv",
    ("usage", "team"): "usage_team_2026-10-01_2026-10-31.csv",
    ("usage", "team_and_day"): "usage_team_and_day_2026-10-01_2026-10-31.csv",
    ("usage", "none"): "usage_total_2026-10-01_2026-10-31.csv",
    ("tags", "tag_and_day"): "tags_tag_and_day_2026-10-01_2026-10-31.csv",
    ("tags", "tag"): "tags_tag_2026-10-01_2026-10-31.csv",
    ("language-pairs", "pair"): "language-pairs_pair_2026-10-01_2026-10-31.csv",
    ("language-pairs", "pair_and_day"): "language-pairs_pair_and_day_2026-10-01_2026-10-31.csv",
    ("language-pairs", "pair_and_key"): "language-pairs_pair_and_key_2026-10-01_2026-10-31.csv",
    ("language-pairs", "pair_key_and_day"): (
        "language-pairs_pair_key_and_day_2026-10-01_2026-10-31.csv"
    ),
}


def test_every_grouping_names_its_file_in_words():
    start, end = dt.date(2026, 10, 1), dt.date(2026, 10, 31)
    named = {
        (source, grouping): ExportRequest(source, grouping).file_name(start, end, "csv")
        for source, choice in SOURCES.items()
        for grouping in choice.groupings
    }
    assert named == FILE_NAMES


@pytest.mark.usefixtures("checkout")
def test_export_file_name_and_cli_command():
    start, end = dt.date(2026, 10, 1), dt.date(2026, 10, 31)
    assert export_command(ExportRequest("usage", "none"), start, end, "csv") == (
        f"{CHECKOUT} export --start 2026-10-01 --end 2026-10-31 "
        "--group-by none --output usage_total_2026-10-01_2026-10-31.csv"
    )
    assert export_command(ExportRequest("usage", "key_and_day"), start, end, "csv") == (
        f"{CHECKOUT} export --start 2026-10-01 --end 2026-10-31 "
        "--group-by key_and_day --output usage_key_and_day_2026-10-01_2026-10-31.csv"
    )
    assert export_command(ExportRequest(), start, end, "csv", demo=True).endswith(" --demo")
    tags = ExportRequest("tags", "tag", with_cost=True)
    assert export_command(tags, start, end, "xlsx") == (
        f"{CHECKOUT} export --start 2026-10-01 --end 2026-10-31 "
        "--source tags --group-by tag --with-cost --output tags_tag_2026-10-01_2026-10-31.xlsx"
    )


def test_the_checkouts_command_runs_from_any_folder(checkout, tmp_path):
    """In a checkout the page's command line is the checkout's interpreter with the checkout on
    ``PYTHONPATH``: pasted in another folder, with the environment's bin on PATH, it writes
    the page's file there (a bare `python -m analytics` answers "No module named analytics")."""
    today = dt.date(2026, 11, 15)
    start, end = today - dt.timedelta(days=7), today - dt.timedelta(days=1)
    command = export_command(ExportRequest("usage", "none"), start, end, "csv", demo=True)
    assert command.startswith(f"{CHECKOUT} export ")
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "SERVICE_HISTORY_PATH": str(tmp_path / "history"),
        "SERVICE_DEMO_KEYS": "4",
        "SERVICE_DEMO_DAYS": "60",
        "USAGE_DASHBOARD_CLOCK": f"{today}T12:00:00Z",
    }
    done = subprocess.run(
        command, shell=True, cwd=folder, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    written = folder / f"usage_total_{start}_{end}.csv"
    header, row = written.read_text(encoding="utf-8").splitlines()
    assert header.startswith("start_date,end_date,total_characters,")
    assert row.startswith(f"{start},{end},")


@pytest.mark.usefixtures("checkout")
def test_crontab_follows_a_named_preset_and_fixes_a_custom_range():
    start, end = dt.date(2026, 10, 1), dt.date(2026, 10, 31)
    by_key = ExportRequest("usage", "key")
    named = export_crontab(by_key, start, end, "csv", "last-month")
    schedule, command = named[: len(CRON_SCHEDULE)], named[len(CRON_SCHEDULE) :]
    assert schedule == "15 6 * * *"
    assert "--period last-month" in command
    assert "--start" not in command
    assert "\\%Y" in command  # cron treats a bare % as a newline
    assert ". /etc/usage-dashboard.env" in command  # the key comes from a protected file
    assert "venv/bin/usage-dashboard export" in command  # the deployment's installed command
    custom = export_crontab(by_key, start, end, "csv", "custom")
    assert custom.endswith(export_command(by_key, start, end, "csv").removeprefix(program()))
    # A scheduled job exports the organization of the environment file, never the demo's.
    assert "--demo" not in custom and "/etc/usage-dashboard.env" in custom
    pairs = export_crontab(
        ExportRequest("language-pairs", "pair_and_day"), start, end, "csv", "all-history"
    )
    assert "--period all-history --source language-pairs --group-by pair_and_day" in pairs


# -- cost columns and team groupings -----------------------------------------------------------


@pytest.fixture
def money() -> tuple[pd.DataFrame, Costing]:
    frame, prices, teams = money_organization()
    return frame, Costing(parse_pricing(prices), parse_teams(teams))


def money_csv(money, group_by) -> str:
    frame, costing = money
    table = shape_export(frame, MONEY_START, MONEY_END, group_by, costing, with_cost=True)
    return export_bytes(table, "csv").decode().replace("\r\n", "\n")


USAGE = "total_characters,text_translation_characters,document_translation_characters,"
USAGE += "text_improvement_characters,speech_to_text_minutes,speech_to_speech_minutes"


COST = "usage_cost_eur,base_fee_share_eur,total_cost_eur"


def test_cost_per_key_and_day_and_per_key_in_cents_with_the_base_fee_shared(money):
    # January's fee of 16.13 goes 10.08 to Web, 6.05 to Unassigned (support.builders); the
    # other key's two days used as much, so its 6.05 goes 3.03 / 3.02, the odd cent to the
    # earlier day; February's 8.93 is all the web key's.
    assert money_csv(money, "key_and_day") == (
        f"usage_date,api_key,api_key_label,{USAGE},{COST}\n"
        "2025-01-30,aaaa****0001,web-shop,1000000,1000000,0,0,0.0,0.0,19.19,10.08,29.27\n"
        "2025-01-30,bbbb****0002,'=other,300000,300000,0,0,0.0,0.0,5.76,3.03,8.79\n"
        "2025-01-31,bbbb****0002,'=other,300000,300000,0,0,0.0,0.0,5.76,3.02,8.78\n"
        "2025-02-01,aaaa****0001,web-shop,500000,500000,0,0,0.0,0.0,9.29,8.93,18.22\n"
    )
    assert money_csv(money, "key") == (
        f"api_key,api_key_label,{USAGE},{COST}\n"
        "aaaa****0001,web-shop,1500000,1500000,0,0,0.0,0.0,28.48,19.01,47.49\n"
        "bbbb****0002,'=other,600000,600000,0,0,0.0,0.0,11.52,6.05,17.57\n"
    )


def test_team_groupings_and_their_cost(money):
    assert money_csv(money, "team") == (
        f"team,{USAGE},{COST}\n"
        "Web,1500000,1500000,0,0,0.0,0.0,28.48,19.01,47.49\n"
        "Unassigned,600000,600000,0,0,0.0,0.0,11.52,6.05,17.57\n"
    )
    assert money_csv(money, "team_and_day") == (
        f"usage_date,team,{USAGE},{COST}\n"
        "2025-01-30,Web,1000000,1000000,0,0,0.0,0.0,19.19,10.08,29.27\n"
        "2025-01-30,Unassigned,300000,300000,0,0,0.0,0.0,5.76,3.03,8.79\n"
        "2025-01-31,Unassigned,300000,300000,0,0,0.0,0.0,5.76,3.02,8.78\n"
        "2025-02-01,Web,500000,500000,0,0,0.0,0.0,9.29,8.93,18.22\n"
    )


def test_the_teams_add_up_to_the_organization(money):
    assert money_csv(money, "none") == (
        f"start_date,end_date,{USAGE},usage_cost_eur,base_fee_eur,total_cost_eur\n"
        "2025-01-30,2025-02-01,2100000,2100000,0,0,0.0,0.0,40.00,25.06,65.06\n"
    )  # 47.49 + 17.57, the two teams' costs


def test_the_fee_of_a_month_without_usage_is_a_row_of_its_own(money):
    frame, costing = money
    january = frame[frame["usage_date"] < pd.Timestamp(2025, 2, 1)]
    end = dt.date(2025, 2, 2)  # two days of February, no usage: 250.00 × 2/28 = 17.86

    def csv(group_by: str) -> list[str]:
        table = shape_export(january, MONEY_START, end, group_by, costing, with_cost=True)
        return export_bytes(table, "csv").decode().splitlines()

    assert csv("team_and_day")[-1] == "2025-02-01,Unassigned,0,0,0,0,0.0,0.0,0.00,17.86,17.86"
    assert csv("key_and_day")[-1] == "2025-02-01,-,Unassigned,0,0,0,0,0.0,0.0,0.00,17.86,17.86"
    assert csv("key")[-1] == "-,Unassigned,0,0,0,0,0.0,0.0,0.00,17.86,17.86"
    assert csv("team")[-1] == "Unassigned,600000,600000,0,0,0.0,0.0,11.52,23.91,35.43"


def test_cost_columns_keep_exact_decimals_in_parquet_and_excel(money, tmp_path):
    frame, costing = money
    table = shape_export(frame, MONEY_START, MONEY_END, "team", costing, with_cost=True)
    write_export(table, tmp_path / "t.parquet")
    parquet = pd.read_parquet(tmp_path / "t.parquet")
    assert parquet["total_cost_eur"].tolist() == [Decimal("47.49"), Decimal("17.57")]
    write_export(table, tmp_path / "t.xlsx")
    sheet = openpyxl.load_workbook(tmp_path / "t.xlsx").active
    assert [row[-1] for row in sheet.iter_rows(min_row=2, values_only=True)] == [47.49, 17.57]


@pytest.mark.parametrize(
    ("choices", "files", "field", "message"),
    [
        (
            ("tags", "key"),
            "both",
            "grouping",
            "grouping 'key' does not go with source tags; choose one of tag_and_day, tag",
        ),
        (("usage", "team"), "none", "grouping", "grouping team needs a teams file"),
        (("usage", "key", True), "none", "with_cost", "cost columns need a pricing file"),
        (
            ("language-pairs", "pair", True),
            "both",
            "with_cost",
            "cost columns go with source usage or tags, not language-pairs",
        ),
    ],
)
def test_a_refused_choice_names_its_field_and_no_command_line_option(
    money, choices, files, field, message
):
    costing = money[1] if files == "both" else Costing()
    with pytest.raises(ExportProblem) as refused:
        ExportRequest(*choices).check(costing)
    assert (refused.value.field, str(refused.value)) == (field, message)


def test_groupings_that_need_money_settings_say_so(money):
    frame, costing = money
    with pytest.raises(ValueError, match="needs a teams file"):
        shape_export(frame, MONEY_START, MONEY_END, "team", Costing(pricing=costing.pricing))
    with pytest.raises(ValueError, match="need a pricing file"):
        shape_export(frame, MONEY_START, MONEY_END, "key", Costing(), with_cost=True)
