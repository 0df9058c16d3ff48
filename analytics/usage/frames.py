"""Analytics bodies decoded into the tidy frames every page, export and report relies on.

The key-day frame has one row per key and UTC day (columns KEY_DAY_COLUMNS, sorted by
usage_date then api_key); the tag-day frame one row per custom tag and UTC day (TAG_DAY_COLUMNS,
sorted by usage_date then custom_tag); the pair-day frame one row per language pair and UTC day
(PAIR_DAY_COLUMNS, sorted by usage_date, source, target), and the pair-key-day frame one row
per pair, key and UTC day (PAIR_KEY_DAY_COLUMNS, sorted by usage_date, source, target,
api_key); see docs/architecture.md for the dtypes. A body's rows are read by `columns`; here
they become the frames, and the frames the per-key, per-tag and per-pair sums.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any, Final

import numpy as np
import pandas as pd

from analytics.service import (
    InvalidResponseError,
    UsageBreakdown,
    key_day_rows,
    pair_rows,
    tag_day_rows,
)
from analytics.usage.columns import (
    DATE_DTYPE,
    MINUTE_DECIMALS,
    Codes,
    Columns,
    documented,
    listed,
    read_columns,
)
from analytics.usage.metrics import (
    CHARACTER_METRICS,
    METRIC_LABELS,
    METRICS,
    MINUTE_METRICS,
    TAG_METRICS,
)

log = logging.getLogger(__name__)

# The frames' contract and what is made of it; the reader's dtypes and pages (`columns`) are
# part of the contract.
__all__ = [
    "DATE_DTYPE",
    "KEY_DAY_COLUMNS",
    "KEY_DAY_DTYPES",
    "KEY_FRAME_COLUMNS",
    "MINUTE_DECIMALS",
    "PAIR_COLUMNS",
    "PAIR_DAY_COLUMNS",
    "PAIR_DAY_DTYPES",
    "PAIR_KEY_DAY_COLUMNS",
    "PAIR_KEY_DAY_DTYPES",
    "TAG_DAY_COLUMNS",
    "TAG_DAY_DTYPES",
    "UNATTRIBUTED_KEY",
    "Columns",
    "decode_key_day",
    "decode_pair_day",
    "decode_pair_key_day",
    "decode_tag_day",
    "empty_rows",
    "key_day_frame",
    "key_frame",
    "labels",
    "page_rows",
    "pair_day_frame",
    "pair_frame",
    "pair_key_day_frame",
    "reconcile",
    "tag_day_frame",
    "tag_frame",
    "totals",
    "within",
]

# The plain dtypes of decoded rows, in column order; decoded texts ("str") are categorical in
# order of appearance (`columns`), and the frames sort them.
_METRIC_DTYPES: Final[Mapping[str, str]] = {
    **dict.fromkeys(CHARACTER_METRICS, "int64"),
    **dict.fromkeys(MINUTE_METRICS, "float64"),
}
_KEY_DTYPES: Final[Mapping[str, str]] = {"api_key": "str", "api_key_label": "str"}
PAIR_COLUMNS: Final = ["source_language", "target_language"]
_PAIR_DTYPES: Final[Mapping[str, str]] = dict.fromkeys(PAIR_COLUMNS, "str")
KEY_DAY_DTYPES: Final[Mapping[str, str]] = {
    "usage_date": DATE_DTYPE,
    **_KEY_DTYPES,
    **_METRIC_DTYPES,
}
TAG_DAY_DTYPES: Final[Mapping[str, str]] = {
    "usage_date": DATE_DTYPE,
    "custom_tag": "str",
    **dict.fromkeys(TAG_METRICS, "int64"),
}
PAIR_DAY_DTYPES: Final[Mapping[str, str]] = {
    "usage_date": DATE_DTYPE,
    **_PAIR_DTYPES,
    **_METRIC_DTYPES,
}
PAIR_KEY_DAY_DTYPES: Final[Mapping[str, str]] = {
    "usage_date": DATE_DTYPE,
    **_PAIR_DTYPES,
    **_KEY_DTYPES,
    **_METRIC_DTYPES,
}
# Usage the service attributes to no key: its own row under this key, never merged into one.
UNATTRIBUTED_KEY: Final = "-"
KEY_FRAME_COLUMNS = ["api_key", "api_key_label", *METRICS]
KEY_DAY_COLUMNS = list(KEY_DAY_DTYPES)
TAG_DAY_COLUMNS = list(TAG_DAY_DTYPES)
PAIR_DAY_COLUMNS = list(PAIR_DAY_DTYPES)
PAIR_KEY_DAY_COLUMNS = list(PAIR_KEY_DAY_DTYPES)


def decode_key_day(body: bytes) -> tuple[pd.DataFrame, UsageBreakdown | None]:
    """Rows of a key_and_day analytics body (unsorted, plain dtypes) and its total_usage
    (None when the body has none).

    Typed decoding (no per-row dicts) a block of rows at a time, each block's columns read
    while it is in cache (`RowDecoder`); each distinct usage_date is parsed once, not once
    per row.
    """
    what = "analytics body"
    with documented(what):
        report = key_day_rows.decode(body).usage_report
    items = listed(report.day_rows, what, "key_and_day_usages")
    rows = read_columns(key_day_rows, items, what, list(_KEY_DTYPES), "usage")
    columns = {name: _categorical(*codes) for name, codes in rows.texts.items()} | rows.numbers
    return _frame(columns, KEY_DAY_COLUMNS), report.total_usage


def decode_pair_day(body: bytes) -> tuple[Columns, int | None]:
    """Rows of one page of the language-pair report by day (unsorted, page columns) and the
    number of the page that follows (None on the last page); decoded like `decode_key_day`."""
    return _pair_page(body, PAIR_COLUMNS)


def decode_pair_key_day(body: bytes) -> tuple[Columns, int | None]:
    """`decode_pair_day` of the report by key and day, with each row's key and label. A row
    without a key is invalid: the report is asked for by key."""
    page, following = _pair_page(body, [*PAIR_COLUMNS, *_KEY_DTYPES])
    if (page.texts["api_key"][0] < 0).any():
        raise InvalidResponseError("language-pair body has an item without an api_key")
    return page, following


def _pair_page(body: bytes, texts: Sequence[str]) -> tuple[Columns, int | None]:
    what = "language-pair body"
    with documented(what):
        report = pair_rows.decode(body).language_pair_usage_report
    items = listed(report.language_pair_usages, what, "language_pair_usages")
    return read_columns(pair_rows, items, what, texts, "usage"), report.next_page


def decode_tag_day(body: bytes) -> tuple[Columns, int | None]:
    """Rows of one page of the custom-tag report by day (unsorted, page columns) and the
    number of the page that follows (None on the last page); decoded like `decode_key_day`."""
    what = "custom-tag body"
    with documented(what):
        report = tag_day_rows.decode(body).custom_tag_usage_report
    items = listed(report.usage, what, "usage")
    page = read_columns(tag_day_rows, items, what, ["custom_tag"], "breakdown")
    return page, report.next_page


def page_rows(pages: Sequence[Columns], dtypes: Mapping[str, str]) -> pd.DataFrame:
    """The rows of decoded pages as one frame of plain dtypes (`dtypes`, in column order),
    texts categorical as in `decode_key_day`."""
    columns: dict[str, object] = {}
    for column, dtype in dtypes.items():
        if dtype == "str":
            columns[column] = _categorical(*_merged([page.texts[column] for page in pages]))
        else:
            columns[column] = np.concatenate([page.numbers[column] for page in pages])
    return _frame(columns, list(dtypes))


def _frame(columns: Mapping[str, object], names: list[str]) -> pd.DataFrame:
    """A frame of `columns` (new arrays nothing else holds), in the order of `names`, over the
    arrays as they are: neither copied nor stacked into one block per dtype, which copied every
    count column of five years once more for nothing."""
    return pd.DataFrame(columns, columns=names, copy=False)


def reconcile(rows: pd.DataFrame, total: UsageBreakdown | None, what: str) -> str | None:
    """A readable mismatch when a response's total_usage differs from the sum of its rows
    (absent counts in it are 0, as in the rows; no total_usage, nothing to compare)."""
    if total is None:
        return None
    differences = []
    for metric in METRICS:
        reported = getattr(total, metric)
        summed = rows[metric].sum()
        if metric in CHARACTER_METRICS:
            same = int(summed) == int(reported)
        else:
            same = math.isclose(float(summed), float(reported), rel_tol=1e-9, abs_tol=1e-6)
        if not same:
            differences.append(f"{METRIC_LABELS[metric]}: total {reported}, rows sum to {summed}")
    if not differences:
        return None
    message = f"{what}: " + "; ".join(differences)
    log.warning("Usage totals do not reconcile: %s", message)
    return message


def key_day_frame(parts: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """The key-day frame from row parts: sorted, latest label per key, contract dtypes.

    Every path (fresh fetch, history, or both) ends here, so equal rows give identical frames.
    Keys and labels are handled as integer codes: sorting and the latest-label lookup never
    compare strings row by row, and parts are never concatenated as text.
    """
    parts = [part for part in parts if len(part)] or [empty_rows()]
    days, ((key_codes, keys),), order = _by_day_then(parts, "api_key")
    columns: dict[str, object] = {
        "usage_date": days,
        "api_key": _categorical(key_codes, keys),
        "api_key_label": _latest_labels(parts, key_codes, len(keys), order),
        **_numbers(parts, KEY_DAY_DTYPES, order),
    }
    return _frame(columns, KEY_DAY_COLUMNS)


def pair_day_frame(parts: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """The pair-day frame from row parts (pages, windows, history): sorted, contract dtypes;
    like the tag-day frame, rows are ordered and never summed."""
    return _pairs_frame(parts, PAIR_DAY_DTYPES)


def pair_key_day_frame(parts: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """The pair-key-day frame from row parts, as the pair-day frame, each key with its
    latest label."""
    return _pairs_frame(parts, PAIR_KEY_DAY_DTYPES)


def _pairs_frame(parts: Sequence[pd.DataFrame], dtypes: Mapping[str, str]) -> pd.DataFrame:
    texts = [*PAIR_COLUMNS, *(["api_key"] if "api_key" in dtypes else [])]
    parts = [part for part in parts if len(part)] or [empty_rows(dtypes)]
    days, coded, order = _by_day_then(parts, *texts)
    columns: dict[str, object] = {"usage_date": days}
    for column, (codes, names) in zip(texts, coded, strict=True):
        columns[column] = _categorical(codes, names)
    if "api_key" in dtypes:
        key_codes, keys = coded[-1]
        columns["api_key_label"] = _latest_labels(parts, key_codes, len(keys), order)
    return _frame(columns | _numbers(parts, dtypes, order), list(dtypes))


def _latest_labels(
    parts: Sequence[pd.DataFrame], key_codes: np.ndarray, keys: int, order: np.ndarray
) -> pd.Categorical:
    """Each row's key's label on the key's last row in `order` (the latest day), as codes."""
    label_codes, labels = _codes(parts, "api_key_label")
    label_codes = label_codes[order]
    last_row = np.zeros(keys, dtype=np.int64)
    np.maximum.at(last_row, key_codes, np.arange(len(order)))
    latest_label, label_names = _sorted_codes(_codes_of_used(label_codes[last_row], labels))
    return _categorical(latest_label[key_codes], label_names)


def tag_day_frame(parts: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """The tag-day frame from row parts (pages, windows, history): sorted, contract dtypes.

    The parts hold distinct days (clipped windows, stored days), so rows are only ordered,
    never summed: equal rows give identical frames whichever way they arrived.
    """
    parts = [part for part in parts if len(part)] or [empty_rows(TAG_DAY_DTYPES)]
    days, ((tag_codes, tags),), order = _by_day_then(parts, "custom_tag")
    columns: dict[str, object] = {
        "usage_date": days,
        "custom_tag": _categorical(tag_codes, tags),
        **_numbers(parts, TAG_DAY_DTYPES, order),
    }
    return _frame(columns, TAG_DAY_COLUMNS)


def _by_day_then(
    parts: Sequence[pd.DataFrame], *columns: str
) -> tuple[np.ndarray, list[Codes], np.ndarray]:
    """The rows ordered by day, then by the texts of `columns` in turn: the days in that
    order, each column's codes in that order with the sorted texts they point to, and the
    order itself."""
    days = np.concatenate([part["usage_date"].to_numpy(DATE_DTYPE) for part in parts])
    rank, _ = pd.factorize(days, sort=True)
    texts = [_sorted_codes(_codes(parts, column)) for column in columns]
    for codes, names in texts:
        rank = rank * max(len(names), 1) + codes
    # Stable, so rows of equal rank keep their order (timsort: sorted runs are cheap).
    order = np.argsort(rank, kind="stable")
    return days[order], [(codes[order], names) for codes, names in texts], order


def _numbers(
    parts: Sequence[pd.DataFrame], dtypes: Mapping[str, str], order: np.ndarray
) -> dict[str, np.ndarray]:
    """Every count column of the parts as one array, in `order`."""
    return {
        column: np.concatenate([part[column].to_numpy(dtype) for part in parts])[order]
        for column, dtype in dtypes.items()
        if dtype in ("int64", "float64")
    }


def _categorical(codes: np.ndarray, names: np.ndarray) -> pd.Categorical:
    """Texts as codes into `names` (-1 missing) as a categorical of text categories."""
    return pd.Categorical.from_codes(codes, categories=pd.Index(names.tolist(), dtype="str"))


def _codes(parts: Sequence[pd.DataFrame], column: str) -> Codes:
    """Integer codes of a text column over all parts and the distinct texts they point to.

    Each part is factorized on its own (a categorical part from history costs nothing), then
    only the distinct texts are merged.
    """
    return _merged([pd.factorize(part[column]) for part in parts])


def _merged(pieces: Sequence[tuple[np.ndarray, Any]]) -> Codes:
    """Codes into each piece's own distinct texts as codes into the distinct texts of all
    pieces, in order of appearance; only the distinct texts are compared, never the rows, and
    a missing text (-1) stays missing."""
    merged, names = pd.factorize(np.concatenate([np.asarray(n, dtype=object) for _, n in pieces]))
    starts = np.cumsum([0, *(len(n) for _, n in pieces)])
    codes = [
        # Each piece's codes into its slice of `merged`, whose appended -1 reads a missing text.
        np.append(merged[start:stop], -1)[piece_codes]
        for (piece_codes, _), start, stop in zip(pieces, starts[:-1], starts[1:], strict=True)
    ]
    return np.concatenate(codes), np.asarray(names, dtype=object)


def _codes_of_used(codes: np.ndarray, names: np.ndarray) -> Codes:
    used, codes = np.unique(codes, return_inverse=True)
    return codes, names[used]


def _sorted_codes(codes_and_names: Codes) -> Codes:
    """The same codes renumbered so that the texts are in sorted order."""
    codes, names = codes_and_names
    by_name = np.argsort(names, kind="stable")
    rank = np.empty_like(by_name)
    rank[by_name] = np.arange(len(by_name))
    return rank[codes], names[by_name]


def empty_rows(dtypes: Mapping[str, str] = KEY_DAY_DTYPES) -> pd.DataFrame:
    """No rows, in the plain dtypes of decoded rows (key-day unless `dtypes` says otherwise)."""
    return pd.DataFrame({c: pd.Series(dtype=t) for c, t in dtypes.items()})


def labels(key_day: pd.DataFrame) -> dict[str, str]:
    """Each key's label (masked key -> label, in the order keys first appear).

    The key-day frame carries every key's latest label on all of its rows, so any row names it.
    """
    first = key_day.drop_duplicates("api_key")
    return dict(zip(map(str, first["api_key"]), map(str, first["api_key_label"]), strict=True))


def key_frame(key_day: pd.DataFrame) -> pd.DataFrame:
    """One row per key over the whole frame, biggest total_characters first (ties by key)."""
    sums = key_day.groupby("api_key", observed=True, sort=True)[list(METRICS)].sum()
    names = key_day.drop_duplicates("api_key").set_index("api_key")["api_key_label"]
    frame = sums.join(names).reset_index()
    frame = frame.sort_values("total_characters", ascending=False, kind="stable", ignore_index=True)
    for column in ("api_key", "api_key_label"):
        frame[column] = frame[column].astype("category").cat.remove_unused_categories()
    return frame[KEY_FRAME_COLUMNS]


def tag_frame(tag_day: pd.DataFrame) -> pd.DataFrame:
    """One row per custom tag over the whole frame, biggest total_characters first (ties by
    tag), the tag as text."""
    sums = tag_day.groupby("custom_tag", observed=True, sort=True)[list(TAG_METRICS)].sum()
    frame = sums.reset_index()
    frame["custom_tag"] = frame["custom_tag"].astype(str)
    return frame.sort_values("total_characters", ascending=False, kind="stable", ignore_index=True)


def pair_frame(pairs: pd.DataFrame, *, by_key: bool = False, by_day: bool = False) -> pd.DataFrame:
    """The pair-day (or pair-key-day) frame summed per pair, and per key (of a pair-key-day
    frame: `-` stays a key of its own) and day when asked; texts as text. Per day in the
    frame's order, else biggest total_characters first (ties by pair, then key), the order of
    every per-pair table."""
    groups = [
        *(["usage_date"] if by_day else []),
        *PAIR_COLUMNS,
        *(["api_key", "api_key_label"] if by_key else []),
    ]
    frame = pairs.groupby(groups, observed=True, sort=True)[list(METRICS)].sum().reset_index()
    for column in groups[by_day:]:
        frame[column] = frame[column].astype(str)
    if by_day:
        return frame
    return frame.sort_values("total_characters", ascending=False, kind="stable", ignore_index=True)


def totals(key_day: pd.DataFrame) -> dict[str, int | float]:
    """The five metrics summed over the frame (characters as int, minutes as float; 0 when
    the frame is empty)."""
    values: dict[str, int | float] = {m: int(key_day[m].sum()) for m in CHARACTER_METRICS}
    values |= {m: float(key_day[m].sum()) for m in MINUTE_METRICS}
    return values


def within(key_day: pd.DataFrame, first: date, last: date) -> pd.DataFrame:
    """Rows of the days `first`–`last` (inclusive)."""
    days = key_day["usage_date"]
    inside = (days >= pd.Timestamp(first)) & (days <= pd.Timestamp(last))
    return key_day if bool(inside.all()) else key_day.loc[inside]
