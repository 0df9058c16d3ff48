"""The range of days a command is asked for: --start and --end, or --period."""

from __future__ import annotations

from datetime import date

from analytics.cli.connecting import service_connection
from analytics.cli.failures import UsageProblem
from analytics.usage import Preset, resolve


def _day(value: str | None, name: str) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        pass
    if len(value) == 10 and value[4] == value[7] == "-" and value.replace("-", "").isdigit():
        raise UsageProblem(f"{name}: {value} is not a day")
    raise UsageProblem(f"{name} must be a day as YYYY-MM-DD, not {value!r}")


def day_range(
    start: str | None, end: str | None, period: Preset | None, today: date, demo: bool
) -> tuple[date, date]:
    """The inclusive days asked for; `today` is read once per command, so a run that crosses
    UTC midnight never mixes two days' views of "yesterday". ``all-history`` is the demo
    organization's span with ``demo``, as on the dashboard."""
    if period is not None:
        if start or end:
            raise UsageProblem("give either --period or --start/--end, not both")
        return resolve(period, today, service_connection().demo_days if demo else None)
    first, last = _day(start, "--start"), _day(end, "--end")
    if first is None or last is None:
        raise UsageProblem("give --start and --end (inclusive UTC days) or --period")
    if last < first:
        raise UsageProblem(f"--end {last} is before --start {first}")
    if last > today:
        raise UsageProblem(f"--end {last} is in the future; usage is known through {today} (UTC)")
    return first, last
