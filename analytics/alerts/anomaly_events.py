"""New anomalies as alert events: one event per anomaly, linked to its chart.

An anomaly's severity is its alert's level (low → ``info``, medium → ``warning``, high →
``exceeded``, the one escalation order of every alert), so a spike that grows while it lasts
(same id: same first day) is sent again when it becomes more severe, and never twice at one.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlencode

from analytics.alerts.events import Event
from analytics.anomalies import KIND_TITLES, ORGANIZATION, Anomaly
from analytics.usage.metrics import METRIC_LABELS

LINK = "/anomalies"  # the dashboard page with the table, the chart and the marks
SEVERITY_LEVELS = {"low": "info", "medium": "warning", "high": "exceeded"}


def _who(anomaly: Anomaly) -> str:
    if anomaly.api_key == ORGANIZATION:
        return "the whole organization"
    return f"{anomaly.label} ({anomaly.api_key})" if anomaly.label else anomaly.api_key


def anomaly_events(anomalies: Iterable[Anomaly]) -> list[Event]:
    """Events of the anomalies (the new ones: marked ones are not news)."""
    return [
        Event(
            id=f"anomaly:{anomaly.id}",
            level=SEVERITY_LEVELS[anomaly.severity],
            subject=(
                f"Usage anomaly ({anomaly.severity}): {KIND_TITLES[anomaly.kind].lower()}, "
                f"{_who(anomaly)}, {METRIC_LABELS[anomaly.metric].lower()}"
            ),
            text=(
                f"{anomaly.sentence} Key: {_who(anomaly)}. Mark it expected or acknowledged "
                "on the Anomalies page, or with mark-anomaly, once it is understood."
            ),
            link=f"{LINK}?{urlencode({'anomaly': anomaly.id})}",
        )
        for anomaly in anomalies
    ]
