"""A report's rows read into columns, a block at a time: the one reader of every analytics
body (`frames` turns what it reads into the frames).

Rows are decoded a block at a time (`RowDecoder`) and each block's columns read while it is
still in the processor's cache: each text as a code into its column's distinct texts (so no
row keeps a string of its own), each distinct usage_date parsed once, and every metric of a
block filled into one structured array in one pass.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, Final, TypeVar

import msgspec
import numpy as np

from analytics.service import NOT_DOCUMENTED, InvalidResponseError, RowDecoder, UsageBreakdown
from analytics.usage.metrics import METRICS, MINUTE_METRICS

# The dtype of usage_date, as read here and in every frame (naive midnight of the UTC day).
DATE_DTYPE = "datetime64[us]"
# The service's precision of minutes: six decimals, kept by every file written.
MINUTE_DECIMALS: Final = 6

Item = TypeVar("Item")
# Codes of a text column and the distinct texts they point to (-1: a missing text).
Codes = tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class Columns:
    """One page of a paged report, column by column: its texts as codes into the page's
    distinct texts (`_Distinct`), its days and counts in the dtypes of decoded rows. A window's
    pages become one frame (`frames.page_rows`), since building a frame costs more than
    decoding a page's rows."""

    texts: dict[str, Codes]
    numbers: dict[str, np.ndarray]


@contextmanager
def documented(what: str) -> Iterator[None]:
    """Decoding errors inside become InvalidResponseError naming `what`."""
    try:
        yield
    except NOT_DOCUMENTED as exc:
        raise InvalidResponseError(f"{what} is not the documented shape ({exc})") from None


def listed(items: list[Item] | None, what: str, field: str) -> list[Item]:
    """The report's rows; a body without its row list is not an answer to read as empty."""
    if items is None:
        raise InvalidResponseError(f"{what} has no {field}")
    return items


# A breakdown as one record, its fields in the struct's order: numpy fills a structured array
# from the structs' tuples, every metric of a block in one pass.
_BREAKDOWN: Final = np.dtype(
    [
        (field.name, np.float64 if field.name in MINUTE_METRICS else np.int64)
        for field in msgspec.structs.fields(UsageBreakdown)
    ]
)


def read_columns(
    decoder: RowDecoder[Any, Any],
    rows: Sequence[msgspec.Raw],
    what: str,
    texts: Sequence[str],
    breakdown: str,
) -> Columns:
    """The `texts` fields of `rows`, their usage_date as days and every metric of their
    `breakdown`, the rows decoded a block at a time and each block read while in cache.

    Minutes are kept at the service's precision, read so once here for every frame, export
    and page.
    """
    distinct = {name: _Distinct() for name in [*texts, "usage_date"]}
    codes = {name: np.empty(len(rows), np.int32) for name in distinct}
    records = np.empty(len(rows), _BREAKDOWN)
    start = 0
    with documented(what):
        for block in decoder.blocks(rows):
            size = len(block)
            stop = start + size
            for name, known in distinct.items():
                read = map(known.__getitem__, map(attrgetter(name), block))
                codes[name][start:stop] = np.fromiter(read, np.int32, size)
            usages = map(msgspec.structs.astuple, map(attrgetter(breakdown), block))
            records[start:stop] = np.fromiter(usages, _BREAKDOWN, size)
            start = stop
    days = _usage_days(codes.pop("usage_date"), distinct.pop("usage_date").texts, what)
    numbers = {"usage_date": days}
    numbers |= {metric: np.ascontiguousarray(records[metric]) for metric in METRICS}
    for metric in MINUTE_METRICS:
        numbers[metric] = numbers[metric].round(MINUTE_DECIMALS)
    texts_read = {name: (codes[name], known.texts) for name, known in distinct.items()}
    return Columns(texts_read, numbers)


class _Distinct(dict[str | None, int]):
    """The codes of a text column's distinct texts in order of appearance, a missing text
    (None) -1: rows are read as codes a block at a time, so each row's text is looked up once
    while in cache and no text is kept per row (a window names a thousand keys 180,000
    times)."""

    def __init__(self) -> None:
        super().__init__({None: -1})

    def __missing__(self, text: str | None) -> int:
        code = self[text] = len(self) - 1
        return code

    @property
    def texts(self) -> np.ndarray:
        """The distinct texts, in the order of their codes (None, listed first, is not one)."""
        return np.array(list(self)[1:], dtype=object)


def _usage_days(codes: np.ndarray, texts: np.ndarray, what: str) -> np.ndarray:
    """Each row's usage_date (its code into the distinct `texts`) as a day
    (`YYYY-MM-DDT00:00:00Z`): every distinct text is parsed once, and a row without one makes
    the body invalid."""
    if (codes < 0).any():  # an absent usage_date
        raise InvalidResponseError(f"{what} has an item without a usage_date")
    try:
        days = np.array([text[:10] for text in texts if text], dtype="datetime64[D]")
    except ValueError as exc:
        raise InvalidResponseError(f"{what} has an invalid usage_date ({exc})") from None
    if len(days) < len(texts) or np.isnat(days).any():  # an empty or "NaT" text
        raise InvalidResponseError(f"{what} has an item without a usage_date")
    return np.take(days.astype(DATE_DTYPE), codes)
