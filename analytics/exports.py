"""Export tables as CSV, Parquet or Excel: written atomically, safe to open in spreadsheets."""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from pathlib import Path
from typing import Literal

import pandas as pd

from analytics import frames
from analytics.pipeline import Usage

Format = Literal["csv", "parquet", "xlsx"]
GroupBy = Literal["key_and_day", "key", "none"]
FORMATS: tuple[Format, ...] = ("csv", "parquet", "xlsx")
GROUPINGS: tuple[GroupBy, ...] = ("key_and_day", "key", "none")

# A spreadsheet reads a cell starting with one of these as a formula (or a command).
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def shape_export(usage: Usage, group_by: GroupBy) -> pd.DataFrame:
    """The rows of an export: key-day rows, per-key totals, or one row of range totals.

    Days are calendar dates (written YYYY-MM-DD), columns exactly the frames' columns.
    """
    if group_by == "key_and_day":
        table = usage.key_day.copy()
        table["usage_date"] = table["usage_date"].dt.date
        return table
    if group_by == "key":
        return frames.key_frame(usage.key_day)
    if group_by == "none":
        row = {"start_date": usage.start, "end_date": usage.end, **frames.totals(usage.key_day)}
        return pd.DataFrame([row])
    raise ValueError(f"unknown grouping {group_by!r}; choose one of {', '.join(GROUPINGS)}")


def format_for(path: Path) -> Format:
    """The format named by the file extension."""
    suffix = path.suffix.lower().lstrip(".")
    if suffix not in FORMATS:
        raise ValueError(
            f"cannot tell the format from {path.name!r}; use .csv, .parquet or .xlsx or --format"
        )
    return suffix  # type: ignore[return-value]


def _defuse(value: object) -> object:
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def spreadsheet_safe(table: pd.DataFrame) -> pd.DataFrame:
    """Text cells that a spreadsheet would run as a formula get a leading apostrophe."""
    safe = table.copy()
    for column in safe.columns:
        values = safe[column]
        if isinstance(values.dtype, pd.CategoricalDtype) or pd.api.types.is_string_dtype(values):
            safe[column] = values.astype(object).map(_defuse)
    return safe


def export_bytes(table: pd.DataFrame, fmt: Format, raw: bool = False) -> bytes:
    """The file content of `table` in `fmt`; `raw` keeps text cells exactly as they are."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt != "parquet" and not raw:
        table = spreadsheet_safe(table)
    buffer = io.BytesIO()
    if fmt == "csv":
        # RFC 4180 line ends: the csv writer then also quotes a bare CR inside a label.
        table.to_csv(buffer, index=False, lineterminator="\r\n", encoding="utf-8")
    elif fmt == "parquet":
        table.to_parquet(buffer, index=False, engine="pyarrow")
    else:
        # Text stays text: no cell is turned into a formula or a link.
        options = {"strings_to_formulas": False, "strings_to_urls": False}
        with pd.ExcelWriter(
            buffer, engine="xlsxwriter", engine_kwargs={"options": options}
        ) as writer:
            table.to_excel(writer, index=False, sheet_name="usage")
    return buffer.getvalue()


def write_export(
    table: pd.DataFrame, path: Path, fmt: Format | None = None, raw: bool = False
) -> Path:
    """Write atomically: a temporary file in the same folder, flushed to disk, then renamed.

    On any failure the temporary file is removed and an earlier file at `path` is untouched.
    """
    path = Path(path)
    content = export_bytes(table, fmt or format_for(path), raw)
    descriptor, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    _fsync_folder(path.parent)
    return path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable (best effort: not every file system allows it)."""
    with contextlib.suppress(OSError):
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
