"""One clock for the whole test run, imported first by conftest.

Every "today" of the product is read from `analytics.usage.calendar.utc_now`, which
`USAGE_DASHBOARD_CLOCK` pins. Pinned here at the run's start (unless the caller pinned it, as
`make test-clocks` does at a leap February's last second), it holds in this process and in
every process the tests start (dashboards, commands, emulators), so a run across UTC midnight
sees one "today" and one "yesterday" everywhere.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime

from analytics.usage.calendar import CLOCK_VARIABLE

os.environ.setdefault(CLOCK_VARIABLE, datetime.now(UTC).isoformat())
