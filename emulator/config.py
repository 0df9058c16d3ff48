"""Settings of one emulator instance, shared by the Python interface and the command line."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path


@dataclass
class EmulatorConfig:
    """How to build the organization and how the service should misbehave.

    `org_file` replaces the synthetic organization; `today` pins the emulator's notion of the
    current UTC day so histories and recorded usage are reproducible; `page_size` is the number
    of rows per page of the paged analytics operations (small values make paging easy to test).
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

    def current_day(self) -> dt.date:
        """The UTC day that recorded usage is booked on."""
        return self.today or dt.datetime.now(dt.UTC).date()
