"""The anomalies of a range, each day against the weeks before it: the range and its look-back
(``LOOKBACK_DAYS``) are read together, whichever front end asks."""

from __future__ import annotations

from datetime import date, timedelta

import pandas as pd

from analytics.anomalies.detect import LOOKBACK_DAYS, Anomaly, find_anomalies
from analytics.anomalies.listing import anomaly_window
from analytics.anomalies.model import WHOLE_ORGANIZATION, Whole
from analytics.usage import FetchedRange, UsageReader


def judged_days(start: date, end: date) -> tuple[date, date]:
    """The days the anomalies of ``start``–``end`` are judged over: the range and the
    baseline's weeks before it (the keys a range's anomalies can be of are those used in
    them: a drop's key may be unused in the range itself)."""
    return start - timedelta(days=LOOKBACK_DAYS), end


def _with_lookback(reader: UsageReader, start: date, end: date) -> FetchedRange:
    """The range's usage and the baseline's weeks before it."""
    return reader.usage(*judged_days(start, end))


def anomalies_in(
    reader: UsageReader, start: date, end: date, whole: Whole = WHOLE_ORGANIZATION
) -> list[Anomaly]:
    """The anomalies of ``start``–``end``, most severe first; ``reader``'s keys add up to
    ``whole`` (a team's scope: ``access.Scope.whole_series``)."""
    read = _with_lookback(reader, start, end)
    return find_anomalies(read.frame, read.start, start, end, whole)


def anomaly_days(reader: UsageReader, start: date, end: date, anomaly: Anomaly) -> pd.DataFrame:
    """One anomaly of ``start``–``end``: its key's days around it with their usual level and
    bound (``tables.anomaly_window``), over the same days as the anomalies were found in."""
    read = _with_lookback(reader, start, end)
    return anomaly_window(read.frame, read.start, end, anomaly)
