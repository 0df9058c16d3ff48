"""The behaviour recording (`support.recording`) records every command's help, and keeps what
varies on its own out of the folders it compares: two Excel files of one table written at
different moments read the same, and their cells are kept."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import typer
import xlsxwriter
from support.recording import COMMAND_PATHS, unzip_workbook

from analytics.cli import app


def command_paths(command: object, path: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    """Every command and group under ``command``, by the words that call it."""
    found = {path}
    for name, sub in getattr(command, "commands", {}).items():
        found |= command_paths(sub, (*path, name))
    return found


def test_every_command_s_help_is_recorded():
    assert set(COMMAND_PATHS) == command_paths(typer.main.get_command(app))
    assert len(COMMAND_PATHS) == len(set(COMMAND_PATHS))


def workbook(path: Path, created: datetime) -> Path:
    book = xlsxwriter.Workbook(str(path))
    book.set_properties({"created": created})
    sheet = book.add_worksheet("usage")
    sheet.write_row(0, 0, ["api_key", "total_characters"])
    sheet.write_row(1, 0, ["Web shop", 1234])
    book.close()
    return path


def files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_workbook_is_kept_without_the_moment_it_was_written(tmp_path):
    first = workbook(tmp_path / "a.xlsx", datetime(2026, 3, 1, 9, 0, 0))
    second = workbook(tmp_path / "b.xlsx", datetime(2026, 3, 2, 17, 30, 5))
    assert first.read_bytes() != second.read_bytes()
    unzip_workbook(first, tmp_path / "a")
    unzip_workbook(second, tmp_path / "b")
    kept = files_of(tmp_path / "a")
    assert kept == files_of(tmp_path / "b")
    assert b"2026-03-01" not in kept["docProps/core.xml"]
    assert b"normalised</dcterms:created>" in kept["docProps/core.xml"]
    assert b"Web shop" in kept["xl/sharedStrings.xml"]
