"""Alerts: what needs someone's attention, as `events` (`Event`), sent to the destinations of
`alerts.toml` (`alert_settings`) in the forms of `message_forms`, each once per level
(`delivery`, which remembers what was sent in `delivery_state`). Budgets (`budget_events`),
anomalies (`anomaly_events`) and key rotations (`rotation_events`) become events here, each by
the function its module is named after."""

from analytics.alerts.alert_settings import (
    AlertsConfig,
    AlertSettings,
    AlertSettingsError,
    Email,
    Rotations,
    load_alerts,
    parse_alert_settings,
    parse_alerts,
    rotation_settings,
    with_secrets,
)
from analytics.alerts.anomaly_events import anomaly_events
from analytics.alerts.budget_events import (
    LINK,
    budget_amount,
    budget_events,
    guardrail_events,
    in_units,
)
from analytics.alerts.delivery import DeliveryError, deliver, send_mail
from analytics.alerts.delivery_state import DeliveryState, delivery_store
from analytics.alerts.events import Event
from analytics.alerts.message_forms import Attachment, mail, with_attachment
from analytics.alerts.rotation_events import key_age_events, rotation_events

__all__ = [
    "LINK",
    "AlertSettings",
    "AlertSettingsError",
    "AlertsConfig",
    "Attachment",
    "DeliveryError",
    "DeliveryState",
    "Email",
    "Event",
    "Rotations",
    "anomaly_events",
    "budget_amount",
    "budget_events",
    "deliver",
    "delivery_store",
    "guardrail_events",
    "in_units",
    "key_age_events",
    "load_alerts",
    "mail",
    "parse_alert_settings",
    "parse_alerts",
    "rotation_events",
    "rotation_settings",
    "send_mail",
    "with_attachment",
    "with_secrets",
]
