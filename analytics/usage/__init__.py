"""Usage as the service reports it, in frames: the vocabulary of metrics (`metrics`), days and
ranges (`calendar`), the frames' contract (`frames`, read by `columns`), the fetches for any
range over the history store (`pipeline`, `history`, `windows`), and the small tables shaped
from the frames (`tables`)."""

from analytics.usage.frames import (
    DATE_DTYPE,
    KEY_DAY_COLUMNS,
    key_day_frame,
    key_frame,
    labels,
    totals,
    within,
)
from analytics.usage.history import HistoryStore
from analytics.usage.metrics import METRIC_LABELS, METRICS, TOTAL_CHARACTERS, Metric
from analytics.usage.pipeline import (
    FetchedRange,
    fetch_pair_keys,
    fetch_pairs,
    fetch_tags,
    fetch_usage,
)

__all__ = [
    "DATE_DTYPE",
    "KEY_DAY_COLUMNS",
    "METRICS",
    "METRIC_LABELS",
    "TOTAL_CHARACTERS",
    "FetchedRange",
    "HistoryStore",
    "Metric",
    "fetch_pair_keys",
    "fetch_pairs",
    "fetch_tags",
    "fetch_usage",
    "key_day_frame",
    "key_frame",
    "labels",
    "totals",
    "within",
]
