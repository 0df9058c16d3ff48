"""The analytics operation: parameter rules and the report body.

Dates are instants (date-only means 00:00:00 UTC) and the range is half-open [start, end):
a usage day belongs to the report when its 00:00:00 UTC instant lies in that range.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

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


def check_range(start: dt.datetime, end: dt.datetime, group_by: str) -> None:
    if end <= start:
        raise bad_request("Bad request. Reason: end_date must be after start_date.")
    if end - start > MAX_RANGE:
        raise bad_request("Bad request. Reason: date range cannot exceed 366 days.")
    if group_by not in GROUPINGS:
        raise bad_request(
            f"Bad request. Reason: the value {group_by[:40]!r} for group_by is not supported. "
            "Allowed values: '' (empty, no grouping), 'key', 'key_and_day'."
        )


def breakdown(usage: Usage) -> dict[str, Any]:
    """The UsageBreakdown every analytics answer shares; minutes never count as characters."""
    text, document, improvement, speech_to_text, speech_to_speech = usage
    return {
        "total_characters": text + document + improvement,
        "text_translation_characters": text,
        "document_translation_characters": document,
        "text_improvement_characters": improvement,
        "speech_to_text_minutes": round(speech_to_text, 6),
        "speech_to_speech_minutes": round(speech_to_speech, 6),
    }


def build_report(store: Store, start_raw: str, end_raw: str, group_by: str) -> dict[str, Any]:
    """The AdminUsageReport body; raises a 400 ServiceError for any rule violation."""
    start = parse_instant("start_date", start_raw)
    end = parse_instant("end_date", end_raw)
    check_range(start, end, group_by)
    first, stop = days_of(start, end)
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
                "usage": breakdown(sums),
                "usage_date": day + "T00:00:00Z",
            }
            for day, masked, label, *sums in store.by_key_and_day(first, stop)
        ]
    return {"usage_report": report}
