"""Key rotations' reminders as alert events: a rotation whose old key is still used long after
it began, and a key older than the organization's maximum age, each delivered once per level
through the alerts file's destinations like any other alert."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, timedelta

from analytics.alerts.events import Event
from analytics.keys import Watch, key_name, masked
from analytics.pages import page_at
from analytics.service import DeveloperKey

LINK = page_at("limits").link()  # Keys & limits: the rotation's panel, and Rotate


def rotation_events(watches: Iterable[Watch], after_days: int) -> list[Event]:
    """A warning for each rotation under way whose old key was used `after_days` (the alert
    routes' ``[rotations] remind_after_days``) or more days after the rotation began:
    something still sends it traffic."""
    events = []
    for watch in watches:
        rotation = watch.rotation
        start = rotation.started.date()
        if rotation.state != "watching" or watch.last_used is None:
            continue
        if watch.last_used < start + timedelta(days=after_days):
            continue
        events.append(
            Event(
                id=f"rotation:{rotation.old_key_id}:in-use-after:{after_days}",
                level="warning",
                subject=(
                    f"Key rotation {rotation.id}: {rotation.old_label} still in use "
                    f"{after_days} days after it began"
                ),
                text=(
                    f"{watch.remaining} Move what still uses it to {rotation.new_label}, then "
                    f"finish the rotation on Keys & limits or with keys rotation finish "
                    f"{rotation.id}."
                ),
                link=LINK,
            )
        )
    return events


def key_age_events(keys: Iterable[DeveloperKey], today: date, max_age_days: int) -> list[Event]:
    """An info alert for each active key created more than `max_age_days` days before
    `today`: time to rotate it."""
    oldest = today - timedelta(days=max_age_days)
    return [
        Event(
            id=f"key-age:{key.key_id}:{max_age_days}",
            level="info",
            subject=f"Key {key.label} is older than {max_age_days} days",
            text=(
                f"{key_name(key.label, key.key_id)} was created on "
                f"{key.creation_time:%Y-%m-%d}, more than {max_age_days} days ago. Rotate it "
                f"on Keys & limits or with keys rotate {masked(key.key_id)}."
            ),
            link=LINK,
        )
        for key in keys
        if not key.is_deactivated
        and key.creation_time is not None
        and key.creation_time.date() < oldest
    ]
