"""New anomalies as alert events: one event per anomaly, linked to its chart.

An anomaly's severity is its alert's level (low → ``info``, medium → ``warning``, high →
``exceeded``, the one escalation order of every alert), so a spike that grows while it lasts
(same id: same first day) is sent again when it becomes more severe, and never twice at one.
"""

from __future__ import annotations

from collections.abc import Iterable

from analytics.alerts.events import Event
from analytics.anomalies import Anomaly, anomaly_name
from analytics.pages import page_at

PAGE = page_at("anomalies")  # the dashboard page with the table, the chart and the marks
SEVERITY_LEVELS = {"low": "info", "medium": "warning", "high": "exceeded"}


def anomaly_events(anomalies: Iterable[Anomaly]) -> list[Event]:
    """Events of the anomalies (the new ones: marked ones are not news): each named in words,
    as the page names it; its id in the event's id, its link and the mark command only."""
    return [
        Event(
            id=f"anomaly:{anomaly.id}",
            level=SEVERITY_LEVELS[anomaly.severity],
            subject=f"Usage anomaly ({anomaly.severity}): {anomaly_name(anomaly)}",
            text=(
                f"{anomaly.sentence} Mark it expected or acknowledged on the Anomalies page, "
                f"or with mark-anomaly '{anomaly.id}' acknowledged, once it is understood."
            ),
            link=PAGE.link(anomaly=anomaly.id),
        )
        for anomaly in anomalies
    ]
