"""What was delivered: per destination, each event id, the highest level sent and when.

Kept as JSON beside the history store (``SERVICE_HISTORY_PATH``) and changed only through
`analytics.storage.files.update` (a lock around read-modify-write, an atomic replace), so two
commands notifying at the same time (budgets and anomalies) never lose each other's records.

Exactly once across crashes: a message's intent is recorded before it is sent and its outcome
after. A run killed between the two leaves the intent behind; the next run sends that message
again, marked as possibly repeated, so a message is never lost and at most the one in flight
is repeated. Records older than `HORIZON` are pruned on every write: an alert that old is no
longer current, so its record only grows the file. A file that is not a delivery state is moved
aside with a warning (kept), never overwritten.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Literal

from analytics.alerts.events import LEVELS, Event, rank
from analytics.service.settings import Settings, default_history_path
from analytics.storage.files import read_state, update
from analytics.usage.calendar import utc_now

STATE_FILE = "alerts-delivered.json"
HORIZON = timedelta(days=180)
# delivered: sent and confirmed; sending: sent or about to be, outcome unknown (a crash).
Stage = Literal["delivered", "sending"]
STAGES: tuple[Stage, ...] = ("delivered", "sending")
Record = dict[str, str]  # {"level": …, "at": ISO instant}
Records = dict[str, dict[str, Record]]  # destination -> event id -> record
State = dict[Stage, Records]


class StateFileError(ValueError):
    """The state file cannot be read at all; the message names it."""


def state_path(settings: Settings) -> Path:
    """The state file beside the history store (its default folder when the store is off)."""
    return (settings.history_path or default_history_path()) / STATE_FILE


def _record(value: object) -> Record:
    """A stored record; a bare level is how files written before records had a time read."""
    if isinstance(value, str):
        value = {"level": value, "at": utc_now().isoformat()}
    if not (
        isinstance(value, dict)
        and value.get("level") in LEVELS
        and isinstance(value.get("at"), str)
    ):
        raise ValueError(f"not a delivery record: {value!r}")
    datetime.fromisoformat(value["at"])  # a ValueError for anything but a time
    return {"level": value["level"], "at": value["at"]}


def _decode(content: bytes) -> State:
    data = json.loads(content.decode("utf-8"))  # JSONDecodeError, UnicodeDecodeError: ValueErrors
    if not isinstance(data, dict) or not isinstance(data.get("delivered"), dict):
        raise ValueError("no 'delivered' records")
    state: State = {stage: {} for stage in STAGES}
    for stage in STAGES:
        for destination, events in data.get(stage, {}).items():
            if not isinstance(events, dict):
                raise ValueError(f"not the records of a destination: {events!r}")
            state[stage][destination] = {str(k): _record(v) for k, v in events.items()}
    return state


def _encode(state: State) -> bytes:
    return (json.dumps(state, indent=2, sort_keys=True) + "\n").encode()


def _pruned(state: State, now: datetime) -> State:
    oldest = now - HORIZON
    return {
        stage: {
            destination: kept
            for destination, events in records.items()
            if (
                kept := {
                    event: record
                    for event, record in events.items()
                    if datetime.fromisoformat(record["at"]) >= oldest
                }
            )
        }
        for stage, records in state.items()
    }


class DeliveryState:
    """The delivery records of one state file, as last read or written."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.state = self._read(path)

    @staticmethod
    def _read(path: Path) -> State:
        try:
            return read_state(
                path, _decode, {stage: {} for stage in STAGES}, "The alert delivery state"
            )
        except OSError as exc:
            raise StateFileError(
                f"{path}: the alert delivery state cannot be read ({exc})"
            ) from None

    def _level(self, stage: Stage, destination: str, event: Event) -> str | None:
        record = self.state[stage].get(destination, {}).get(event.id)
        return None if record is None else record["level"]

    def is_due(self, destination: str, event: Event) -> bool:
        """True when ``destination`` never got ``event``, or got it at a lower level."""
        sent = self._level("delivered", destination, event)
        return sent is None or rank(event.level) > rank(sent)

    def may_have_been_sent(self, destination: str, event: Event) -> bool:
        """True when an earlier run began sending ``event`` at this level and stopped before
        recording the outcome: the message may already be there."""
        began = self._level("sending", destination, event)
        return began is not None and rank(began) >= rank(event.level)

    def begin(self, destination: str, event: Event, now: datetime | None = None) -> None:
        """Record the intent to send, on disk before the message leaves."""
        self._change(destination, event, "sending", now)

    def record(self, destination: str, event: Event, now: datetime | None = None) -> None:
        """Record that ``destination`` got ``event`` (its intent is then done)."""
        self._change(destination, event, "delivered", now)

    def abandon(self, destination: str, event: Event, now: datetime | None = None) -> None:
        """Forget the intent of a message that certainly did not get through."""
        self._change(destination, event, None, now)

    def _change(
        self, destination: str, event: Event, stage: Stage | None, now: datetime | None
    ) -> None:
        moment = now or utc_now()

        def change(state: State) -> State:
            state["sending"].get(destination, {}).pop(event.id, None)
            if stage is not None:
                events = state[stage].setdefault(destination, {})
                known = events.get(event.id)
                if known is None or rank(event.level) >= rank(known["level"]):
                    events[event.id] = {"level": event.level, "at": moment.isoformat()}
            return _pruned(state, moment)

        self.state = update(self.path, self._read, change, _encode)
