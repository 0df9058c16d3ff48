"""Anomalies in daily usage: what one is (`model`), the days each day is judged from
(`baseline`), a spike's usual day and bound (`usual`), their detection against each key's own
habit (`detect`), a range's anomalies read with the weeks before it (`lookback`), the marks
people give them (`marks`), their tables (`listing`), and how well spikes are found
(`measured`).

The face offers the answers (`anomalies_in`, `anomaly_days`) and what callers show of them; the
steps an answer is made of (the detection and its look-back, one anomaly's window) stay in
their modules, for the answers alone to compose (tests/product/test_questions_once.py)."""

from analytics.anomalies.listing import (
    TABLE_COLUMNS,
    anomaly_counts,
    anomaly_name,
    anomaly_table,
    named_series,
    new_anomalies,
    shown_anomalies,
)
from analytics.anomalies.lookback import anomalies_in, anomaly_days, judged_days
from analytics.anomalies.marks import (
    MARKS,
    STATUSES,
    Mark,
    Marks,
    Status,
    check_id,
    status,
)
from analytics.anomalies.measured import method_caption
from analytics.anomalies.model import (
    KIND_TITLES,
    KINDS,
    ORGANIZATION,
    Anomaly,
    Kind,
    Severity,
    Whole,
)

__all__ = [
    "KINDS",
    "KIND_TITLES",
    "MARKS",
    "ORGANIZATION",
    "STATUSES",
    "TABLE_COLUMNS",
    "Anomaly",
    "Kind",
    "Mark",
    "Marks",
    "Severity",
    "Status",
    "Whole",
    "anomalies_in",
    "anomaly_counts",
    "anomaly_days",
    "anomaly_name",
    "anomaly_table",
    "check_id",
    "judged_days",
    "method_caption",
    "named_series",
    "new_anomalies",
    "shown_anomalies",
    "status",
]
