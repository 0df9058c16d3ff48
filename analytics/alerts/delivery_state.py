"""What was delivered: per destination, each event id and level sent, and when.

The records are the state store's (`analytics.storage.schema.deliveries`): one row per alert,
destination and level, which the database keeps unique. Delivery runs take turns under the
store's ``alert delivery`` lock (`DeliveryState.exclusive`), held by one notifier on any host,
so two timers on two hosts that find the same alert send it once: the second finds it
delivered.

Exactly once across crashes: a message's intent is recorded before it is sent and its outcome
after, each in its own committed transaction. A run killed between the two leaves the intent
behind; the next run sends that message again, marked as possibly repeated, so a message is
never lost and at most the one in flight is repeated. A record that cannot be written stops the
run before its message leaves (`StoreError`): no message goes out without its intent kept.
Records older than `HORIZON` are pruned on every write: an alert that old is no longer current.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Final, Literal, NamedTuple

from sqlalchemy import Connection, delete, select

from analytics.alerts.events import LEVELS, Event, rank
from analytics.service import ServiceConnection, default_history_path
from analytics.storage import Store, embedded_store, upsert
from analytics.storage import deliveries as table
from analytics.usage import store_of, utc_now

HORIZON = timedelta(days=180)
LOCK: Final = "alert delivery"
# delivered: sent and confirmed; sending: sent or about to be, outcome unknown (a crash).
Stage = Literal["delivered", "sending"]
STAGES: Final[tuple[Stage, ...]] = ("delivered", "sending")


def delivery_store(connection: ServiceConnection, demo: bool) -> Store:
    """Where deliveries are recorded: the account's store, or without a history folder the
    embedded one in the default folder (alerts must never be sent unrecorded)."""
    return store_of(connection, demo) or embedded_store(default_history_path())


LEGACY_FILE: Final = "alerts-delivered.json"  # the history folder's delivery records


class Record(NamedTuple):
    """One delivery record: an alert's level for a destination, at a stage since `at`."""

    destination: str
    event: str
    level: str
    stage: Stage
    at: datetime


def read_file(content: bytes) -> list[Record]:
    """The records of a delivery file (as kept before the store); ValueError when it is no
    delivery file."""
    data = json.loads(content.decode("utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("delivered"), dict):
        raise ValueError("no 'delivered' records")
    found = []
    for stage in STAGES:
        for destination, events in data.get(stage, {}).items():
            for event, record in events.items():
                # Files written before records had a time hold a bare level.
                level, at = (
                    (record, utc_now())
                    if isinstance(record, str)
                    else (record["level"], datetime.fromisoformat(record["at"]))
                )
                found.append(Record(destination, event, level, stage, at))
    return found


def take(state: DeliveryState, records: Sequence[Record]) -> int:
    """Bring records from elsewhere (a file, another store) into `state`, one by one: a
    record the store lacks is taken, and an intent the store holds gives way to a delivery,
    as the writers' own rule says. The number taken."""
    return sum(state.take(*record) for record in records)


class DeliveryState:
    """The delivery records of one store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Be the one notifier, on any host, until the block ends."""
        with self.store.lock(LOCK):
            yield

    def _levels(self, stage: Stage, destination: str, event: Event) -> list[str]:
        query = select(table.c.level).where(
            table.c.destination == destination, table.c.event == event.id, table.c.stage == stage
        )
        return list(self.store.run(lambda connection: connection.execute(query).scalars().all()))

    def is_due(self, destination: str, event: Event) -> bool:
        """True when ``destination`` never got ``event``, or got it at a lower level."""
        return all(
            rank(event.level) > rank(sent) for sent in self._levels("delivered", destination, event)
        )

    def may_have_been_sent(self, destination: str, event: Event) -> bool:
        """True when an earlier run began sending ``event`` at this level and stopped before
        recording the outcome: the message may already be there."""
        return any(
            rank(began) >= rank(event.level)
            for began in self._levels("sending", destination, event)
        )

    def begin(self, destination: str, event: Event, now: datetime | None = None) -> None:
        """Record the intent to send, committed before the message leaves."""
        self._change(destination, event, "sending", now)

    def record(self, destination: str, event: Event, now: datetime | None = None) -> None:
        """Record that ``destination`` got ``event`` (its intent is then done)."""
        self._change(destination, event, "delivered", now)

    def abandon(self, destination: str, event: Event, now: datetime | None = None) -> None:
        """Forget the intent of a message that certainly did not get through."""
        self._change(destination, event, None, now)

    def records(self) -> list[Record]:
        """Every record the store holds."""
        query = select(table.c.destination, table.c.event, table.c.level, table.c.stage, table.c.at)
        rows = self.store.run(lambda connection: connection.execute(query).all())
        return [Record(*row) for row in rows]

    def take(self, destination: str, event: str, level: str, stage: str, at: datetime) -> int:
        """Keep one record unless the store knows better (a delivery over an intent); 1 when
        it was kept."""
        if level not in LEVELS or stage not in STAGES:
            raise ValueError(f"not a delivery record: {level!r} {stage!r}")
        key = (table.c.destination == destination, table.c.event == event, table.c.level == level)

        def keep(connection: Connection) -> int:
            held = connection.execute(select(table.c.stage).where(*key)).scalar()
            if held == stage or held == "delivered":
                return 0
            row = {"destination": destination, "event": event, "level": level}
            upsert(connection, table, {**row, "stage": stage, "at": at}, 3)
            return 1

        return self.store.run(keep)

    def _change(
        self, destination: str, event: Event, stage: Stage | None, now: datetime | None
    ) -> None:
        moment = now or utc_now()

        def change(connection: Connection) -> None:
            connection.execute(
                delete(table).where(
                    table.c.destination == destination,
                    table.c.event == event.id,
                    table.c.stage == "sending",
                )
            )
            if stage is not None:
                values = {"destination": destination, "event": event.id, "level": event.level}
                upsert(connection, table, {**values, "stage": stage, "at": moment}, 3)
            connection.execute(delete(table).where(table.c.at < moment - HORIZON))

        self.store.run(change)
