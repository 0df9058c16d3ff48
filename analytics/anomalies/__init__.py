"""Anomalies in daily usage: what one is (`model`), the days each day is judged from
(`baseline`), a spike's usual day and bound (`usual`), their detection against each key's own
habit (`detect`), the marks people give them (`marks`), their tables (`listing`), and how well
spikes are found (`measured`)."""

from analytics.anomalies.baseline import LOOKBACK_DAYS
from analytics.anomalies.detect import find_anomalies
from analytics.anomalies.listing import (
    anomaly_counts,
    anomaly_name,
    anomaly_table,
    anomaly_window,
    new_anomalies,
    shown_anomalies,
)
from analytics.anomalies.marks import (
    MARKS,
    STATUSES,
    Mark,
    Marks,
    Status,
    check_id,
    status,
)
from analytics.anomalies.model import KIND_TITLES, KINDS, ORGANIZATION, Anomaly, Kind, Severity
from analytics.anomalies.usual import baseline

__all__ = [
    "KINDS",
    "KIND_TITLES",
    "LOOKBACK_DAYS",
    "MARKS",
    "ORGANIZATION",
    "STATUSES",
    "Anomaly",
    "Kind",
    "Mark",
    "Marks",
    "Severity",
    "Status",
    "anomaly_counts",
    "anomaly_name",
    "anomaly_table",
    "anomaly_window",
    "baseline",
    "check_id",
    "find_anomalies",
    "new_anomalies",
    "shown_anomalies",
    "status",
]
