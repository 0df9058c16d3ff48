"""The analytics operation: parameter rules and the report body.

Dates are instants (date-only means 00:00:00 UTC) and the range is half-open [start, end):
a usage day belongs to the report when its 00:00:00 UTC instant lies in that range. With the
"inclusive" end-date reading a date-only `end_date` names the last day of the range instead,
for clients that send inclusive windows; the range is then [start, end + 1 day).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from emulator.config import EndDateReading
from emulator.errors import bad_request
from emulator.store import Store, Usage

MAX_RANGE = dt.timedelta(days=366)
GROUPINGS = ("", "key", "key_and_day")
INSTANT = re.compile(r"\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2})?")
RENDER = "%Y-%m-%dT%H:%M:%S"


def parse_instant(name: str, value: str) -> dt.datetime:
    """`YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SS`, read as UTC (naive)."""
    try:
        if INSTANT.fullmatch(value):
            return dt.datetime.fromisoformat(value)
    except ValueError:
        pass
    raise bad_request(
        f"Bad request. Reason: {name} must be a date formatted as YYYY-MM-DD "
        f"or YYYY-MM-DDTHH:MM:SS (UTC), got {value[:40]!r}."
    )


def days_of(start: dt.datetime, end: dt.datetime) -> tuple[dt.date, dt.date]:
    """[first, stop) of the usage days whose midnight lies in [start, end)."""

    def first_midnight_at_or_after(instant: dt.datetime) -> dt.date:
        midnight = instant.time() == dt.time(0)
        return instant.date() if midnight else instant.date() + dt.timedelta(days=1)

    return first_midnight_at_or_after(start), first_midnight_at_or_after(end)


def range_end(end_raw: str, end: dt.datetime, end_date_reading: str) -> dt.datetime:
    """The exclusive end instant: a date-only end read inclusively is the next midnight."""
    if end_date_reading == EndDateReading.INCLUSIVE and "T" not in end_raw:
        return end + dt.timedelta(days=1)
    return end


def check_range(start: dt.datetime, end: dt.datetime, group_by: str) -> None:
    """The published rules on [start, end): at most 366 days, and a known grouping."""
    if end <= start:
        raise bad_request("Bad request. Reason: end_date must be after start_date.")
    if end - start > MAX_RANGE:
        raise bad_request("Bad request. Reason: Date range cannot exceed 366 days")
    if group_by not in GROUPINGS:
        raise bad_request("Value for 'group_by' not supported. Allowed: '', 'key', 'key_and_day'.")


def breakdown(usage: Usage) -> dict[str, Any]:
    text, document, improvement, minutes = usage
    return {
        "total_characters": text + document + improvement,
        "text_translation_characters": text,
        "document_translation_characters": document,
        "text_improvement_characters": improvement,
        "speech_to_text_minutes": round(minutes, 6),
    }


def build_report(
    store: Store,
    start_raw: str,
    end_raw: str,
    group_by: str,
    *,
    end_date_reading: str = EndDateReading.EXCLUSIVE,
) -> dict[str, Any]:
    """The AdminUsageReport body; raises a 400 ServiceError for any rule violation.

    `start_date` and `end_date` are echoed as given; only the covered range depends on the
    end-date reading.
    """
    start = parse_instant("start_date", start_raw)
    end = parse_instant("end_date", end_raw)
    stop_instant = range_end(end_raw, end, end_date_reading)
    check_range(start, stop_instant, group_by)
    first, stop = days_of(start, stop_instant)
    report: dict[str, Any] = {
        "total_usage": breakdown(store.total(first, stop)),
        "start_date": start.strftime(RENDER),
        "end_date": end.strftime(RENDER),
    }
    if group_by == "key":
        report["group_by"] = group_by
        report["key_usages"] = [
            {"api_key": masked, "api_key_label": label, "usage": breakdown(sums)}
            for masked, label, *sums, _last_day in store.by_key(first, stop)
        ]
    elif group_by == "key_and_day":
        report["group_by"] = group_by
        report["key_and_day_usages"] = [
            {
                "api_key": masked,
                "api_key_label": label,
                "usage": breakdown((text, document, improvement, minutes)),
                "usage_date": day + "T00:00:00Z",
            }
            for day, masked, label, text, document, improvement, minutes in store.by_key_and_day(
                first, stop
            )
        ]
    return {"usage_report": report}
