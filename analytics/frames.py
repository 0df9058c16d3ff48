"""Analytics bodies decoded into the tidy frames every page, export and report relies on.

The key-day frame has one row per key and UTC day (columns KEY_DAY_COLUMNS, sorted by
usage_date then api_key); see docs/architecture.md for the dtypes.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence

import msgspec
import numpy as np
import pandas as pd

from analytics.errors import InvalidResponseError
from analytics.models import AdminUsageReport, UsageBreakdown

log = logging.getLogger(__name__)

CHARACTER_METRICS = [
    "total_characters",
    "text_translation_characters",
    "document_translation_characters",
    "text_improvement_characters",
]
METRICS = [*CHARACTER_METRICS, "speech_to_text_minutes"]
KEY_COLUMNS = ["api_key", "api_key_label", *METRICS]
KEY_DAY_COLUMNS = ["usage_date", *KEY_COLUMNS]
DATE_DTYPE = "datetime64[us]"

_report_decoder = msgspec.json.Decoder(AdminUsageReport)


def decode_key_day(body: bytes) -> tuple[pd.DataFrame, UsageBreakdown]:
    """Rows of a key_and_day analytics body (unsorted, plain dtypes) and its total_usage.

    Typed decoding goes straight into one array per column: no per-row dicts.
    """
    try:
        report = _report_decoder.decode(body).usage_report
    except msgspec.DecodeError as exc:
        raise InvalidResponseError(f"analytics body is not the documented shape ({exc})") from None
    items = report.key_and_day_usages
    if items is None:
        raise InvalidResponseError("analytics body has no key_and_day_usages")
    usage = [item.usage for item in items]
    count = len(items)
    try:
        days = np.array([item.usage_date[:10] for item in items], dtype="datetime64[D]")
    except ValueError as exc:
        raise InvalidResponseError(f"analytics body has an invalid usage_date ({exc})") from None
    columns: dict[str, object] = {
        "usage_date": days.astype(DATE_DTYPE),
        "api_key": [item.api_key for item in items],
        "api_key_label": [item.api_key_label for item in items],
    }
    for metric in CHARACTER_METRICS:
        columns[metric] = np.fromiter(
            (getattr(u, metric) for u in usage), dtype=np.int64, count=count
        )
    columns["speech_to_text_minutes"] = np.fromiter(
        (u.speech_to_text_minutes for u in usage), dtype=np.float64, count=count
    )
    return pd.DataFrame(columns, columns=KEY_DAY_COLUMNS), report.total_usage


def reconcile(rows: pd.DataFrame, total: UsageBreakdown, what: str) -> str | None:
    """A readable mismatch when a response's total_usage differs from the sum of its rows."""
    differences = []
    for metric in METRICS:
        reported = getattr(total, metric)
        summed = rows[metric].sum()
        if metric in CHARACTER_METRICS:
            same = int(summed) == int(reported)
        else:
            same = math.isclose(float(summed), float(reported), rel_tol=1e-9, abs_tol=1e-6)
        if not same:
            differences.append(f"{metric} total {reported} but rows sum to {summed}")
    if not differences:
        return None
    message = f"{what}: " + "; ".join(differences)
    log.warning("Usage totals do not reconcile: %s", message)
    return message


def key_day_frame(parts: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """The key-day frame from row parts: sorted, latest label per key, contract dtypes.

    Every path (fresh fetch, history, or both) ends here, so equal rows give identical frames.
    """
    frame = pd.concat([empty_rows(), *parts], ignore_index=True) if parts else empty_rows()
    frame = frame.astype(_plain_dtypes())
    frame = frame.sort_values(["usage_date", "api_key"], kind="stable", ignore_index=True)
    latest = frame.drop_duplicates("api_key", keep="last").set_index("api_key")["api_key_label"]
    frame["api_key_label"] = frame["api_key"].map(latest)
    for column in ("api_key", "api_key_label"):
        categories = sorted(frame[column].unique())
        frame[column] = pd.Categorical(frame[column], categories=categories)
    return frame[KEY_DAY_COLUMNS]


def empty_rows() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=t) for c, t in _plain_dtypes().items()})


def _plain_dtypes() -> dict[str, str]:
    return {
        "usage_date": DATE_DTYPE,
        "api_key": "str",
        "api_key_label": "str",
        **dict.fromkeys(CHARACTER_METRICS, "int64"),
        "speech_to_text_minutes": "float64",
    }


def key_frame(key_day: pd.DataFrame) -> pd.DataFrame:
    """One row per key over the whole frame, biggest total_characters first (ties by key)."""
    sums = key_day.groupby("api_key", observed=True, sort=True)[METRICS].sum()
    labels = key_day.drop_duplicates("api_key").set_index("api_key")["api_key_label"]
    frame = sums.join(labels).reset_index()
    frame = frame.sort_values("total_characters", ascending=False, kind="stable", ignore_index=True)
    for column in ("api_key", "api_key_label"):
        frame[column] = frame[column].astype("category").cat.remove_unused_categories()
    return frame[KEY_COLUMNS]


def totals(key_day: pd.DataFrame) -> pd.Series:
    """The five metrics summed over the frame (characters as int, minutes as float)."""
    values: dict[str, int | float] = {m: int(key_day[m].sum()) for m in CHARACTER_METRICS}
    values["speech_to_text_minutes"] = float(key_day["speech_to_text_minutes"].sum())
    return pd.Series(values, dtype=object)
