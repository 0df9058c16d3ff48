"""What people said about anomalies: an anomaly id marked "expected" (planned activity) or
"acknowledged" (seen, being handled). Marked anomalies are still found and shown, as marked;
only unmarked ones are new.

Marks live in one small JSON file per account beside the history store (the
`SERVICE_HISTORY_PATH` folder), changed only under its lock and replaced atomically, so the
dashboard's sessions and the command line share them and concurrent marks are all kept. Unlike
the history store they cannot be rebuilt from the service: keep the folder. A file that is not
a marks file is moved aside (kept, with a warning), never overwritten.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Final, Literal

import msgspec

from analytics.anomalies.model import KINDS, ORGANIZATION
from analytics.service.settings import Settings
from analytics.storage.files import read_state, update
from analytics.usage.calendar import utc_now
from analytics.usage.history import account_file
from analytics.usage.metrics import METRICS

Mark = Literal["expected", "acknowledged"]
MARKS: Final[tuple[Mark, ...]] = ("expected", "acknowledged")
# An anomaly's status: new until someone marks it.
Status = Literal["new", "expected", "acknowledged"]
STATUSES: Final[tuple[Status, ...]] = ("new", "expected", "acknowledged")
_ID = re.compile(r"(?P<kind>[a-z]+):(?P<key>.+):(?P<metric>[a-z_]+):(?P<day>\d{4}-\d{2}-\d{2})")


class MarksFileError(ValueError):
    """The marks file cannot be read; the message names it."""


class _Marked(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    mark: Mark
    marked_at: datetime


class _MarksFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    marks: dict[str, _Marked] = {}


def check_id(text: str) -> str:
    """An anomaly id as `kind:key:metric:YYYY-MM-DD`, or ValueError saying what is wrong; a mark
    may be given before the anomaly is found (planned activity)."""
    found = _ID.fullmatch(text.strip())
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
    """The marks file at `path` (absent: nothing is marked)."""

    path: Path

    @classmethod
    def for_settings(cls, settings: Settings, demo: bool) -> Marks | None:
        """The account's marks beside its history store (the demo organization's own for the
        demo); None when no history folder is configured."""
        path = account_file(settings, demo, "anomaly-marks.json")
        return None if path is None else cls(path)

    def read(self) -> dict[str, Mark]:
        """Each marked id's mark."""
        return {anomaly: marked.mark for anomaly, marked in self._read().marks.items()}

    def set(self, anomaly: str, mark: Mark | None, now: datetime | None = None) -> None:
        """Mark an anomaly id (None removes its mark, making it new again)."""
        anomaly = check_id(anomaly)
        marked = None if mark is None else _Marked(mark, now or utc_now())

        def change(current: _MarksFile) -> _MarksFile:
            marks = {other: given for other, given in current.marks.items() if other != anomaly}
            if marked is not None:
                marks[anomaly] = marked
            return _MarksFile(dict(sorted(marks.items())))

        update(self.path, self._read_from, change, _encode)

    def _read(self) -> _MarksFile:
        return self._read_from(self.path)

    @staticmethod
    def _read_from(path: Path) -> _MarksFile:
        try:
            return read_state(path, _decode, _MarksFile(), "The anomaly marks file")
        except OSError as exc:
            raise MarksFileError(f"{path}: cannot be read ({exc})") from None


def _decode(content: bytes) -> _MarksFile:
    return msgspec.json.decode(content, type=_MarksFile)  # DecodeError is a ValueError


def _encode(marks: _MarksFile) -> bytes:
    return msgspec.json.format(msgspec.json.encode(marks)) + b"\n"


def status(anomaly_id: str, marks: Mapping[str, Mark]) -> Status:
    return marks.get(anomaly_id, "new")
