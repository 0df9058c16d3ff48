"""Export files: CSV, Parquet or Excel bytes of a table, safe to open in spreadsheets, written
atomically (`analytics.storage.files`)."""

from __future__ import annotations

import csv
import io
import re
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from analytics.exports.vocabulary import FormatUnknown
from analytics.storage import write_atomic
from analytics.usage import MINUTE_DECIMALS

Format = Literal["csv", "parquet", "xlsx"]
FORMATS: tuple[Format, ...] = ("csv", "parquet", "xlsx")

# A spreadsheet reads a cell starting with one of these as a formula (or a command).
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# A lone minus has nothing to compute: it is the service's "no key" and "language not
# recorded", and stays as sent.
_INERT = frozenset({"-"})
CSV_LINE_END = "\r\n"
# What the csv writer may quote a field for: a delimiter, a quote, a line end; and, to be
# safe, space at either end. A field without any is written as it is, without the writer.
_MAY_BE_QUOTED = re.compile(r'[,"\r\n]|^\s|\s$').search
# A part of a file's content, in order: bytes, or a view of Arrow's text of a block of CSV rows.
Piece = bytes | memoryview
# Rows rendered per Arrow join: big enough to be fast, small enough to add little memory.
CSV_BLOCK_ROWS = 65_536
# Blocks rendered ahead of the one being written, on as many threads.
CSV_BLOCKS_AHEAD = 2


def format_for(path: Path) -> Format:
    """The format named by the file extension (`FormatUnknown` when it names none)."""
    suffix = path.suffix.lower().lstrip(".")
    for fmt in FORMATS:
        if fmt == suffix:
            return fmt
    raise FormatUnknown(path.name, ".csv, .parquet or .xlsx")


def _defuse(value: object) -> object:
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS) and value not in _INERT:
        return "'" + value
    return value


def spreadsheet_safe(table: pd.DataFrame) -> pd.DataFrame:
    """Text cells that a spreadsheet would run as a formula get a leading apostrophe. Each
    distinct text is looked at once; a column with none to defuse is left as it is."""
    safe = table.copy(deep=False)  # only replaced columns get new data
    for column in safe.columns:
        values = safe[column]
        if isinstance(values.dtype, pd.CategoricalDtype):
            safe[column] = values.map(_defuse)  # once per category, not once per row
        elif pd.api.types.is_string_dtype(values) and _any_to_defuse(values):
            safe[column] = values.astype(object).map(_defuse)
    return safe


def _any_to_defuse(values: pd.Series) -> bool:
    return any(_defuse(text) is not text for text in pd.unique(values))


def pandas_csv_bytes(table: pd.DataFrame) -> bytes:
    """The documented CSV format as pandas writes it: header, QUOTE_MINIMAL, UTF-8, and
    RFC 4180 line ends (the csv writer then also quotes a bare CR inside a label)."""
    return table.to_csv(index=False, lineterminator=CSV_LINE_END).encode("utf-8")


def csv_bytes(table: pd.DataFrame) -> bytes:
    """Byte for byte what `pandas_csv_bytes` writes, several times faster (`csv_pieces`)."""
    return b"".join(csv_pieces(table))


def csv_pieces(table: pd.DataFrame) -> Iterator[Piece]:
    """`csv_bytes` in pieces, a block of rows each, rendered at most CSV_BLOCKS_AHEAD ahead of
    the one taken: a file written from them never holds more than a few blocks' text (five
    years of a thousand keys are 80 MB).

    Each column is rendered once per distinct value (integers by Arrow), the last one with the
    line end; cells are joined by Arrow a block of rows at a time. A column type without a
    rule here goes through pandas, in one piece.
    """
    if not all(map(_has_csv_rule, table.dtypes)):
        yield pandas_csv_bytes(table)
        return
    width = len(table.columns)
    header = _csv_field_texts(list(map(str, table.columns)), width)
    yield (",".join(header) + CSV_LINE_END).encode("utf-8")
    columns = [
        _csv_column(table[column], width, CSV_LINE_END if i == width - 1 else "")
        for i, column in enumerate(table.columns)
    ]
    comma = pa.scalar(",", pa.large_string())

    def block(rows: slice) -> memoryview:
        lines = pc.binary_join_element_wise(*(cells(rows) for cells in columns), comma)
        offsets, data = lines.buffers()[1:3]
        first, last = np.frombuffer(offsets, np.int64)[[lines.offset, lines.offset + len(lines)]]
        return memoryview(data[first:last])

    # Arrow renders without holding the interpreter, so the next blocks are rendered while
    # this one is written; at most CSV_BLOCKS_AHEAD wait, in order.
    with ThreadPoolExecutor(CSV_BLOCKS_AHEAD) as pool:
        ahead: deque[Future[memoryview]] = deque()
        for start in range(0, len(table), CSV_BLOCK_ROWS):
            ahead.append(pool.submit(block, slice(start, start + CSV_BLOCK_ROWS)))
            if len(ahead) > CSV_BLOCKS_AHEAD:
                yield ahead.popleft().result()
        while ahead:
            yield ahead.popleft().result()


def _has_csv_rule(dtype: np.dtype | pd.api.extensions.ExtensionDtype) -> bool:
    if isinstance(dtype, pd.CategoricalDtype):
        return _has_csv_rule(dtype.categories.dtype)
    return (
        pd.api.types.is_string_dtype(dtype)
        or (isinstance(dtype, np.dtype) and dtype.kind in "iubfO")
        or _arrow_decimals(dtype)
    )


def _arrow_decimals(dtype: np.dtype | pd.api.extensions.ExtensionDtype) -> bool:
    """Amounts held by Arrow as decimals (`money.as_decimal_array`), which Arrow writes as
    ``str`` writes a Decimal of their scale."""
    return isinstance(dtype, pd.ArrowDtype) and pa.types.is_decimal(dtype.pyarrow_dtype)


def _csv_column(values: pd.Series, width: int, end: str) -> Callable[[slice], pa.Array]:
    """The CSV text of a block of cells of one column, as pandas and the csv module write it,
    each followed by `end`."""
    integers = values.dtype.kind in "iu" and isinstance(values.dtype, np.dtype)
    if integers or _arrow_decimals(values.dtype):
        numbers = pa.array(values.to_numpy() if integers else values)
        suffix, nothing = pa.scalar(end, pa.large_string()), pa.scalar("", pa.large_string())

        def written(rows: slice) -> pa.Array:
            cells = pc.cast(numbers[rows], pa.large_string()).fill_null(nothing)
            return pc.binary_join_element_wise(cells, suffix, nothing) if end else cells

        return written
    codes: np.ndarray
    rendered: list[str]
    if values.dtype.kind == "f":
        # Distinct bit patterns, so -0.0 and 0.0 stay apart; texts as pandas makes them.
        floats = values.to_numpy()
        codes, bits = pd.factorize(floats.view(f"u{floats.itemsize}"))
        distinct = bits.view(floats.dtype)
        float_texts = distinct.astype(str).astype(object)
        float_texts[np.isnan(distinct)] = _csv_field_texts([""], width)[0]
        rendered = list(float_texts)
    else:
        uniques: object
        codes, uniques = pd.factorize(values, use_na_sentinel=False)
        if _written_apart(uniques):
            # Equal amounts of another scale (60 characters, 60.000000 minutes) are one value
            # to pandas, but each cell is written as it is.
            missing_cells = pd.isna(values)
            cells = [
                None if gone else str(v) for v, gone in zip(values, missing_cells, strict=True)
            ]
            codes, uniques = pd.factorize(np.array(cells, dtype=object), use_na_sentinel=False)
        missing = pd.isna(uniques)
        texts = ["" if gone else str(value) for value, gone in zip(uniques, missing, strict=True)]
        rendered = _csv_field_texts(texts, width)
    dictionary = pa.array([text + end for text in rendered], pa.large_string())
    return lambda rows: pc.take(dictionary, pa.array(codes[rows]))


def _written_apart(uniques: object) -> bool:
    """Whether distinct Decimals of a column have more than one scale, so that one value may
    stand for cells written differently."""
    scales = {v.as_tuple().exponent for v in np.asarray(uniques) if isinstance(v, Decimal)}
    return len(scales) > 1


def _csv_field_texts(texts: list[str], width: int) -> list[str]:
    """Each text as one CSV field, quoted exactly where Python's csv writer quotes it (in a
    one-column table an empty field is written as `""`)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator=CSV_LINE_END)
    rendered = []
    for text in texts:
        if text and not _MAY_BE_QUOTED(text):  # most texts: written as they are
            rendered.append(text)
            continue
        buffer.seek(0)
        buffer.truncate()
        writer.writerow([text] if width == 1 else [text, ""])
        line = buffer.getvalue()
        rendered.append(
            line[: -len(CSV_LINE_END)] if width == 1 else line[: -1 - len(CSV_LINE_END)]
        )
    return rendered


def exact(table: pd.DataFrame) -> pd.DataFrame:
    """Fractional cells at the service's precision (six decimals): a sum of minutes carries
    binary-float noise (26060.129999999997), which a file would pass on to finance as if it
    were a figure; rounded, every format writes the decimal the page shows (26060.13)."""
    fractions = [column for column, dtype in table.dtypes.items() if dtype.kind == "f"]
    if not fractions:
        return table
    return table.assign(**{str(c): table[c].round(MINUTE_DECIMALS) for c in fractions})


def export_bytes(table: pd.DataFrame, fmt: Format, raw: bool = False) -> bytes:
    """The file content of `table` in `fmt`; `raw` keeps text cells exactly as they are."""
    return b"".join(export_pieces(table, fmt, raw))


def export_pieces(table: pd.DataFrame, fmt: Format, raw: bool = False) -> Iterator[Piece]:
    """`export_bytes` in pieces: a CSV file's a block of rows at a time (`csv_pieces`),
    Parquet and Excel in one piece."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    table = exact(table)
    if fmt != "parquet" and not raw:
        table = spreadsheet_safe(table)
    if fmt == "csv":
        yield from csv_pieces(table)
        return
    buffer = io.BytesIO()
    if fmt == "parquet":
        table.to_parquet(buffer, index=False, engine="pyarrow")
    else:
        # Text stays text: no cell is turned into a formula or a link.
        options = {"strings_to_formulas": False, "strings_to_urls": False}
        with pd.ExcelWriter(
            buffer, engine="xlsxwriter", engine_kwargs={"options": options}
        ) as writer:
            table.to_excel(writer, index=False, sheet_name="usage")
    yield buffer.getvalue()


def write_export(
    table: pd.DataFrame, path: Path, fmt: Format | None = None, raw: bool = False
) -> Path:
    """Write `table` in `fmt` (from the file name when not given), atomically, piece by
    piece as it is rendered."""
    path = Path(path)
    return write_atomic(export_pieces(table, fmt or format_for(path), raw), path)
