"""The anomalies of a range, each day against the weeks before it: the range and its look-back
(``LOOKBACK_DAYS``) are read together, whichever front end asks."""

from __future__ import annotations

from datetime import date, timedelta

import pandas as pd

from analytics.anomalies.detect import LOOKBACK_DAYS, Anomaly, find_anomalies
from analytics.anomalies.listing import anomaly_window
from analytics.usage.pipeline import FetchedRange
from analytics.usage.reader import UsageReader


def _with_lookback(reader: UsageReader, start: date, end: date) -> FetchedRange:
    """The range's usage and the baseline's weeks before it."""
    return reader.usage(start - timedelta(days=LOOKBACK_DAYS), end)


def anomalies_in(reader: UsageReader, start: date, end: date) -> list[Anomaly]:
    """The anomalies of ``start``–``end``, most severe first."""
    read = _with_lookback(reader, start, end)
    return find_anomalies(read.frame, read.start, start, end)


def anomaly_days(reader: UsageReader, start: date, end: date, anomaly: Anomaly) -> pd.DataFrame:
    """One anomaly of ``start``–``end``: its key's days around it with their usual level and
    bound (``tables.anomaly_window``), over the same days as the anomalies were found in."""
    read = _with_lookback(reader, start, end)
    return anomaly_window(read.frame, read.start, end, anomaly)
