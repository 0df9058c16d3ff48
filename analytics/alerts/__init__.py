"""Alerts: what needs someone's attention, as `events` (`Event`), sent to the destinations of
`alerts.toml` (`alerts_file`) in the forms of `message_forms`, each once per level
(`delivery`, which remembers what was sent in `delivery_state`). Budgets (`budget_events`),
anomalies (`anomaly_events`) and key rotations (`rotation_events`) become events here, each by
the function its module is named after."""

from analytics.alerts.alerts_file import (
    AlertsConfig,
    AlertsFileError,
    Rotations,
    load_alerts,
    parse_alerts,
    rotation_settings,
)
from analytics.alerts.budget_events import budget_amount, guardrail_events
from analytics.alerts.delivery import DeliveryError, deliver, send_mail
from analytics.alerts.delivery_state import DeliveryState, delivery_store
from analytics.alerts.events import Event
from analytics.alerts.rotation_events import key_age_events

__all__ = [
    "AlertsConfig",
    "AlertsFileError",
    "DeliveryError",
    "DeliveryState",
    "Event",
    "Rotations",
    "budget_amount",
    "deliver",
    "delivery_store",
    "guardrail_events",
    "key_age_events",
    "load_alerts",
    "parse_alerts",
    "rotation_settings",
    "send_mail",
]
