"""The analytics operations: their shared parameter rules, paging and report bodies.

Dates are instants (date-only means 00:00:00 UTC) and the range is half-open [start, end):
a usage day belongs to a report when its 00:00:00 UTC instant lies in that range. With the
"inclusive" end-date reading a date-only `end_date` names the last day of the range instead,
for clients that send inclusive windows; the range is then [start, end + 1 day).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import orjson

from emulator.config import EndDateReading, SpeechUnit
from emulator.errors import bad_request
from emulator.ledger import UsageAmounts
from emulator.store import UsageLedger

MAX_RANGE = dt.timedelta(days=366)
GROUPINGS = ("", "key", "key_and_day")
PAIR_GROUPINGS = ("", "key")
AGGREGATIONS = ("", "period", "day")
INSTANT = re.compile(r"\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2})?")
PAGE = re.compile(r"[1-9]\d{0,8}")  # bounded, so an offset always fits SQLite's integers
RENDER = "%Y-%m-%dT%H:%M:%S"
# The custom-tag breakdown is the usage breakdown of text translation and improvement alone.
TAG_BREAKDOWN = ("total_characters", "text_translation_characters", "text_improvement_characters")
MILLISECONDS_PER_MINUTE = 60_000
Row = TypeVar("Row")


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


@dataclass(frozen=True)
class Window:
    """The requested range and the usage days [first, stop) whose midnight lies in it.

    `start` and `end` are the instants as given (and echoed); `until` is the exclusive end of
    the covered range, which differs from `end` only for a date-only end read inclusively.
    """

    start: dt.datetime
    end: dt.datetime
    until: dt.datetime

    @classmethod
    def parse(
        cls, start_raw: str, end_raw: str, end_date_reading: str = EndDateReading.EXCLUSIVE
    ) -> Window:
        """The range rules every analytics operation shares; a 400 for any violation.

        The 366-day limit applies to the covered range, so with the inclusive reading it
        counts covered days: D..D+365 is accepted, D..D+366 is not.
        """
        start = parse_instant("start_date", start_raw)
        end = parse_instant("end_date", end_raw)
        until = end
        if end_date_reading == EndDateReading.INCLUSIVE and "T" not in end_raw:
            until = end + dt.timedelta(days=1)
        if until <= start:
            raise bad_request("Bad request. Reason: end_date must be after start_date.")
        if until - start > MAX_RANGE:
            raise bad_request("Bad request. Reason: Date range cannot exceed 366 days")
        return cls(start, end, until)

    @property
    def first(self) -> dt.date:
        return _first_midnight_at_or_after(self.start)

    @property
    def stop(self) -> dt.date:
        return _first_midnight_at_or_after(self.until)

    def echo(self) -> dict[str, str]:
        return {"start_date": self.start.strftime(RENDER), "end_date": self.end.strftime(RENDER)}


def _first_midnight_at_or_after(instant: dt.datetime) -> dt.date:
    midnight = instant.time() == dt.time(0)
    return instant.date() if midnight else instant.date() + dt.timedelta(days=1)


def choice(name: str, value: str, allowed: tuple[str, ...]) -> str:
    """`value` when it is one of `allowed` (where '' means the parameter's default).

    Otherwise the published 400 text, e.g. "Value for 'group_by' not supported. Allowed: '',
    'key', 'key_and_day'.", in the same form for every listed parameter (`aggregate_by` too).
    """
    if value not in allowed:
        listed = ", ".join(f"'{option}'" for option in allowed)
        raise bad_request(f"Value for '{name}' not supported. Allowed: {listed}.")
    return value


@dataclass(frozen=True)
class Page:
    """One page of a paged report: pages are numbered from 1 and hold `size` rows each."""

    number: int
    size: int

    @classmethod
    def parse(cls, raw: str | None, size: int) -> Page:
        """Page `raw` (absent: the first) of `size` rows; a 400 unless a positive integer."""
        if raw is None:
            return cls(1, size)
        if not PAGE.fullmatch(raw):
            raise bad_request(
                "Bad request. Reason: page must be a positive integer (a next_page value), "
                f"got {raw[:40]!r}."
            )
        return cls(int(raw), size)

    @property
    def limit(self) -> int:
        """Rows to fetch: one beyond the page tells whether another page follows."""
        return self.size + 1

    @property
    def offset(self) -> int:
        return (self.number - 1) * self.size

    def split(self, rows: list[Row]) -> tuple[list[Row], int | None]:
        """The page's rows and `next_page` (None on the last page) from `limit` fetched rows."""
        more = len(rows) > self.size
        return rows[: self.size], self.number + 1 if more else None


def breakdown(usage: UsageAmounts) -> dict[str, Any]:
    """The UsageBreakdown every analytics answer shares; minutes never count as characters.

    Most rows have no minutes, and skipping round() for them keeps large answers fast.
    """
    text, document, improvement, speech_to_text, speech_to_speech = usage
    return {
        "total_characters": text + document + improvement,
        "text_translation_characters": text,
        "document_translation_characters": document,
        "text_improvement_characters": improvement,
        "speech_to_text_minutes": round(speech_to_text, 6) if speech_to_text else 0.0,
        "speech_to_speech_minutes": round(speech_to_speech, 6) if speech_to_speech else 0.0,
    }


def _breakdown_in_milliseconds(usage: UsageAmounts) -> dict[str, Any]:
    """`breakdown` with speech-to-text as other revisions of the interface give it:
    `speech_to_text_milliseconds`, whole milliseconds, instead of the minutes."""
    fields = breakdown(usage)
    minutes = fields.pop("speech_to_text_minutes")
    fields["speech_to_text_milliseconds"] = round(minutes * MILLISECONDS_PER_MINUTE)
    return fields


def breakdown_in(speech_unit: str) -> Callable[[UsageAmounts], dict[str, Any]]:
    """How a report with speech-to-text in `speech_unit` (a `SpeechUnit`) writes its
    breakdowns: chosen once per report, so the usual minutes cost no row a check."""
    if speech_unit == SpeechUnit.MILLISECONDS:
        return _breakdown_in_milliseconds
    return breakdown


def _day(iso_day: str) -> str:
    return iso_day + "T00:00:00Z"


def build_report(
    store: UsageLedger,
    start_raw: str,
    end_raw: str,
    group_by: str,
    *,
    end_date_reading: str = EndDateReading.EXCLUSIVE,
    speech_unit: str = SpeechUnit.MINUTES,
) -> dict[str, Any]:
    """The AdminUsageReport body; raises a 400 ServiceError for any rule violation. Its
    `key_and_day_usages` are chunks of items already serialized (orjson Fragments): it is
    meant for orjson.dumps, as every answer is.

    `start_date` and `end_date` are echoed as given; only the covered range depends on the
    end-date reading. Speech-to-text is given in `speech_unit`.
    """
    window = Window.parse(start_raw, end_raw, end_date_reading)
    choice("group_by", group_by, GROUPINGS)
    first, stop = window.first, window.stop
    usage_of = breakdown_in(speech_unit)
    report: dict[str, Any] = {"total_usage": usage_of(store.total(first, stop)), **window.echo()}
    if group_by == "key":
        report["group_by"] = group_by
        report["key_usages"] = [
            {"api_key": masked, "api_key_label": label, "usage": usage_of(sums)}
            for masked, label, *sums, _last_day in store.by_key(first, stop)
        ]
    elif group_by == "key_and_day":
        report["group_by"] = group_by
        report["key_and_day_usages"] = store.by_key_and_day(first, stop, _serialized(usage_of))
    return {"usage_report": report}


def _serialized(
    usage_of: Callable[[UsageAmounts], dict[str, Any]],
) -> Callable[[list[tuple]], orjson.Fragment]:
    """How `build_report` writes a chunk of key-day rows: as the JSON of its items, which
    orjson puts in the body as it is (between its neighbours' items, comma-separated), so the
    rows of a year are never all Python dicts at once."""

    def serialized(rows: list[tuple]) -> orjson.Fragment:
        items = [
            {
                "api_key": masked,
                "api_key_label": label,
                "usage": usage_of(sums),
                "usage_date": _day(day),
            }
            for day, masked, label, *sums in rows
        ]
        return orjson.Fragment(orjson.dumps(items)[1:-1])

    return serialized


@dataclass(frozen=True)
class PagedQuery:
    """What the paged reports (custom tags, language pairs) share: the window, the grouping
    by key (language pairs only), the day or period aggregation and the page asked for."""

    window: Window
    by_key: bool
    by_day: bool
    page: Page

    @classmethod
    def parse(
        cls,
        start_raw: str,
        end_raw: str,
        group_by: str | None,
        aggregate_by: str,
        page_raw: str | None,
        page_size: int,
        end_date_reading: str = EndDateReading.EXCLUSIVE,
    ) -> PagedQuery:
        """The shared rules, checked in the service's order: range, grouping, aggregation, page.

        `group_by` None: the report has no grouping parameter (custom tags)."""
        window = Window.parse(start_raw, end_raw, end_date_reading)
        by_key = group_by is not None and choice("group_by", group_by, PAIR_GROUPINGS) == "key"
        by_day = choice("aggregate_by", aggregate_by, AGGREGATIONS) == "day"
        return cls(window, by_key, by_day, Page.parse(page_raw, page_size))

    def echo(self) -> dict[str, str]:
        """The aggregation and the range as the report states them."""
        return {"aggregate_by": "day" if self.by_day else "period", **self.window.echo()}


def build_tag_report(store: UsageLedger, query: PagedQuery) -> dict[str, Any]:
    """The CustomTagUsageReport body: one page of characters per tag (and day)."""
    page, window = query.page, query.window
    rows = store.tag_usage(
        window.first, window.stop, by_day=query.by_day, limit=page.limit, offset=page.offset
    )
    rows, next_page = page.split(rows)
    usage = []
    for day, tag, text, improvement in rows:
        full = breakdown((text, 0, improvement, 0.0, 0.0))
        item: dict[str, Any] = {"custom_tag": tag}
        if query.by_day:
            item["usage_date"] = _day(day)
        item["breakdown"] = {name: full[name] for name in TAG_BREAKDOWN}
        usage.append(item)
    return {"custom_tag_usage_report": query.echo() | {"next_page": next_page, "usage": usage}}


def build_pair_report(
    store: UsageLedger, query: PagedQuery, speech_unit: str = SpeechUnit.MINUTES
) -> dict[str, Any]:
    """The language-pair report body: one page of usage per pair (and key, and day), its
    speech-to-text in `speech_unit`."""
    page, window, by_key, by_day = query.page, query.window, query.by_key, query.by_day
    rows = store.pair_usage(
        window.first,
        window.stop,
        by_key=by_key,
        by_day=by_day,
        limit=page.limit,
        offset=page.offset,
    )
    rows, next_page = page.split(rows)
    usage_of = breakdown_in(speech_unit)
    usages = []
    for day, source, target, api_key, label, *sums in rows:
        # Items are set in place, field by field: a page is 500 of them.
        item: dict[str, Any] = {"source_language": source, "target_language": target}
        if by_key:
            item["api_key"] = api_key
            item["api_key_label"] = label
        if by_day:
            item["usage_date"] = _day(day)
        item["usage"] = usage_of(sums)
        usages.append(item)
    report = {
        "group_by": ["key"] if by_key else [],
        **query.echo(),
        "next_page": next_page,
        "language_pair_usages": usages,
    }
    return {"language_pair_usage_report": report}
