"""What was delivered: per destination, each event id and the highest level sent.

Kept as JSON beside the history store (``SERVICE_HISTORY_PATH``), written atomically. Each
delivery is recorded as soon as it succeeds, under a lock and merged with what is on disk,
so two commands notifying at the same time (budgets and anomalies) never lose each other's
records, and a run that stops half way never sends again what it already sent.
"""

from __future__ import annotations

import fcntl
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from analytics.alerts.events import LEVELS, Event, rank
from analytics.service.settings import Settings, default_history_path
from analytics.usage.files import write_atomic

STATE_FILE = "alerts-delivered.json"
Delivered = dict[str, dict[str, str]]  # destination -> event id -> level


class StateFileError(ValueError):
    """The state file is not what this module writes; the message names it."""


def state_path(settings: Settings) -> Path:
    """The state file beside the history store (its default folder when the store is off)."""
    return (settings.history_path or default_history_path()) / STATE_FILE


class DeliveryState:
    """The delivered events of one state file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.delivered = self._read()

    def _read(self) -> Delivered:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise StateFileError(
                f"{self.path}: the alert delivery state cannot be read ({exc}); remove it to "
                "start afresh (every current alert is then sent again)"
            ) from None
        delivered = data.get("delivered") if isinstance(data, dict) else None
        if not isinstance(delivered, dict) or not all(
            isinstance(events, dict)
            and all(isinstance(k, str) and v in LEVELS for k, v in events.items())
            for events in delivered.values()
        ):
            raise StateFileError(
                f"{self.path}: not an alert delivery state; remove it to start afresh (every "
                "current alert is then sent again)"
            )
        return delivered

    def is_due(self, destination: str, event: Event) -> bool:
        """True when ``destination`` never got ``event``, or got it at a lower level."""
        sent = self.delivered.get(destination, {}).get(event.id)
        return sent is None or rank(event.level) > rank(sent)

    def record(self, destination: str, event: Event) -> None:
        """Remember that ``destination`` got ``event``, on disk at once."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._locked():
            self.delivered = self._read()
            events = self.delivered.setdefault(destination, {})
            sent = events.get(event.id)
            if sent is None or rank(event.level) > rank(sent):
                events[event.id] = event.level
            text = json.dumps({"delivered": self.delivered}, indent=2, sort_keys=True)
            write_atomic((text + "\n").encode(), self.path)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        lock = self.path.with_name(f".{self.path.name}.lock")
        with lock.open("a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
