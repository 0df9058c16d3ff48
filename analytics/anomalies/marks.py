"""What people said about anomalies: an anomaly id marked "expected" (planned activity) or
"acknowledged" (seen, being handled). Marked anomalies are still found and shown, as marked;
only unmarked ones are new.

Marks are records of the account in the state store (`analytics.usage.records`): one row per
marked id, replaced in one transaction, so the dashboard's sessions and the commands of every
host share them and concurrent marks are all kept. Unlike the history store they cannot be
rebuilt from the service: back the store up.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Final, Literal

import msgspec
from sqlalchemy import Connection, delete, select

from analytics.anomalies.model import KINDS, ORGANIZATION
from analytics.service import ServiceConnection
from analytics.storage import marks as table
from analytics.storage import upsert
from analytics.usage import METRICS, Records, records_of, utc_now

Mark = Literal["expected", "acknowledged"]
MARKS: Final[tuple[Mark, ...]] = ("expected", "acknowledged")
# An anomaly's status: new until someone marks it.
Status = Literal["new", "expected", "acknowledged"]
STATUSES: Final[tuple[Status, ...]] = ("new", "expected", "acknowledged")
# An anomaly's id as `model.anomaly_id` writes it; its `key` is the series' masked key.
ID_FORM: Final = re.compile(
    r"(?P<kind>[a-z]+):(?P<key>.+):(?P<metric>[a-z_]+):(?P<day>\d{4}-\d{2}-\d{2})"
)


def check_id(text: str) -> str:
    """An anomaly id as `kind:key:metric:YYYY-MM-DD`, or ValueError saying what is wrong; a mark
    may be given before the anomaly is found (planned activity)."""
    found = ID_FORM.fullmatch(text.strip())
    problem = None
    if found is None:
        problem = "is not kind:key:metric:YYYY-MM-DD"
    elif found["kind"] not in KINDS:
        problem = f"has unknown kind {found['kind']!r} (one of {', '.join(KINDS)})"
    elif found["metric"] not in METRICS:
        problem = f"has unknown metric {found['metric']!r}"
    elif found["key"] != ORGANIZATION and "****" not in found["key"]:
        problem = f"names {found['key']!r}, not a masked key (abcd****wxyz) or {ORGANIZATION}"
    else:
        try:
            date.fromisoformat(found["day"])
        except ValueError:
            problem = f"has no valid day ({found['day']})"
    if problem:
        raise ValueError(f"anomaly id {text!r} {problem}")
    return text.strip()


@dataclass(frozen=True)
class Marks:
    """The marks of one account (none yet: nothing is marked)."""

    records: Records

    @classmethod
    def for_connection(cls, connection: ServiceConnection, demo: bool) -> Marks | None:
        """The account's marks (the demo organization's own for the demo); None when no store
        is configured."""
        records = records_of(connection, demo)
        return None if records is None else cls(records)

    def read(self) -> dict[str, Mark]:
        """Each marked id's mark."""
        return {anomaly: mark for anomaly, (mark, _) in self.read_times().items()}

    def read_times(self) -> dict[str, tuple[Mark, datetime]]:
        """Each marked id's mark and when it was given (UTC)."""
        query = select(table.c.anomaly, table.c.mark, table.c.marked_at).where(
            table.c.account == self.records.account
        )
        rows = self.records.store.run(lambda connection: connection.execute(query).all())
        return {row.anomaly: (row.mark, row.marked_at) for row in rows}

    def set(self, anomaly: str, mark: Mark | None, now: datetime | None = None) -> None:
        """Mark an anomaly id (None removes its mark, making it new again); the last mark
        given wins."""
        anomaly = check_id(anomaly)
        account = self.records.account

        def change(connection: Connection) -> None:
            if mark is None:
                connection.execute(
                    delete(table).where(table.c.account == account, table.c.anomaly == anomaly)
                )
                return
            values = {"account": account, "anomaly": anomaly, "mark": mark}
            upsert(connection, table, {**values, "marked_at": now or utc_now()}, 2)

        self.records.store.run(change)


class _Marked(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    mark: Mark
    marked_at: datetime


class _MarksFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    marks: dict[str, _Marked] = {}


LEGACY_SUFFIX: Final = "anomaly-marks.json"  # `<account>-anomaly-marks.json` of the history folder


def read_file(content: bytes) -> dict[str, tuple[Mark, datetime]]:
    """The marks of an account's file (as kept before the store); ValueError when it is not a
    marks file."""
    given = msgspec.json.decode(content, type=_MarksFile).marks
    return {anomaly: (marked.mark, marked.marked_at) for anomaly, marked in given.items()}


def take(marks: Marks, given: Mapping[str, tuple[Mark, datetime]]) -> int:
    """Bring marks from elsewhere (a file, another store) into `marks`: a mark held already
    is kept when it was given later, as the last mark given wins. The number taken."""
    held = marks.read_times()
    taken = {a: m for a, m in given.items() if a not in held or held[a][1] < m[1]}
    for anomaly, (mark, at) in taken.items():
        marks.set(anomaly, mark, at)
    return len(taken)


def status(anomaly_id: str, marks: Mapping[str, Mark]) -> Status:
    return marks.get(anomaly_id, "new")
