"""Settings of one emulator instance, shared by the Python interface and the command line."""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path


class EndDateReading(StrEnum):
    """How the analytics operations read a date-only `end_date`.

    `exclusive` (the default): the range ends at that day's 00:00:00 UTC, so the day itself is
    left out. `inclusive`: the day is the last one of the range, for clients whose windows
    name their last day.
    """

    EXCLUSIVE = "exclusive"
    INCLUSIVE = "inclusive"


class SpeechUnit(StrEnum):
    """How every analytics usage breakdown gives speech-to-text.

    `minutes` (the default): `speech_to_text_minutes`, as the interface this emulator follows.
    `milliseconds`: `speech_to_text_milliseconds` in whole milliseconds instead, as other
    revisions of the interface (and clients generated from them) do, so that a client's reading
    of that form can be tried over HTTP.
    """

    MINUTES = "minutes"
    MILLISECONDS = "milliseconds"


@dataclass
class EmulatorConfig:
    """How to build the organization and how the service should misbehave.

    `org_file` replaces the synthetic organization; `today` pins the emulator's notion of the
    current UTC day so histories and recorded usage are reproducible; `page_size` is the number
    of rows per page of the paged analytics operations (small values make paging easy to test);
    `end_date_reading` is one of `EndDateReading`'s values and `speech_to_text_unit` one of
    `SpeechUnit`'s; `anomalies` puts a few known anomalies into the synthetic organization
    (`Emulator.injected` lists them), False keeps it clean; `tags` gives the synthetic
    organization that many distinct custom tags with a long tail (customers used daily,
    documents seldom) instead of its dozen shared ones, over the same usage; `seasons` gives its
    usage a yearly season, holiday dips and a team's onboarding (`synthetic.seasons`). `db`
    keeps the ledger in that SQLite file, reused when it already holds the same organization;
    `fresh` loads the organization into it again all the same (a reset: every change made since
    is undone).
    """

    seed: int = 42
    keys: int = 25
    days: int = 1095
    org_file: Path | str | None = None
    db: Path | str | None = None
    latency_ms: int = 0
    fault_429_rate: float = 0.0
    fault_503_rate: float = 0.0
    retry_after_s: int = 1
    auth_scheme: str = "Service-Auth-Key"
    today: dt.date | None = None
    page_size: int = 500
    end_date_reading: str = EndDateReading.EXCLUSIVE
    speech_to_text_unit: str = SpeechUnit.MINUTES
    anomalies: bool = True
    tags: int | None = None
    seasons: bool = False
    fresh: bool = False

    def __post_init__(self) -> None:
        """Refuse an unknown reading or unit here, before a server starts with it."""
        for name, values in (
            ("end_date_reading", EndDateReading),
            ("speech_to_text_unit", SpeechUnit),
        ):
            value = getattr(self, name)
            if value not in tuple(values):
                raise ValueError(f"{name} must be one of {', '.join(values)}, not {value!r}")

    def current_day(self) -> dt.date:
        """The UTC day that recorded usage is booked on: `today`, else the day of the instant
        USAGE_DASHBOARD_CLOCK pins (so the dashboard's demo and the tests share one clock),
        else the clock's."""
        if self.today is not None:
            return self.today
        pinned = os.environ.get("USAGE_DASHBOARD_CLOCK")
        if pinned:
            instant = dt.datetime.fromisoformat(pinned)
            return (instant.astimezone(dt.UTC) if instant.tzinfo else instant).date()
        return dt.datetime.now(dt.UTC).date()
