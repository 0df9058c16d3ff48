"""Hostile input, generated: any date range, any period, any body or header the service sends.

Hypothesis searches for inputs that break the rules; the only failures allowed are the
documented ones (ValueError for an impossible range, ServiceError subclasses for answers).
"""

from __future__ import annotations

import itertools
import json
import string
from datetime import UTC, date, datetime, timedelta

import httpx
import msgspec
import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from analytics.service.errors import InvalidResponseError, ServiceError
from analytics.service.models import AdminUsageReport, KeyAndDayUsage
from analytics.service.transport import decode, error_from_response, retry_after_seconds
from analytics.usage import calendar
from analytics.usage.frames import (
    KEY_DAY_COLUMNS,
    TAG_DAY_COLUMNS,
    TAG_DAY_DTYPES,
    decode_key_day,
    decode_tag_day,
    page_rows,
)
from analytics.usage.windows import MAX_WINDOW_DAYS, split

DAY = timedelta(days=1)
# Every day from year 1 to 9998 (the command refuses ends after today, so the last day Python
# can name, whose exclusive end_date does not exist, never reaches the windows), with the edges
# and leap days weighted in.
LAST = date(9998, 12, 31)
EDGES = [date.min, date(1, 1, 2), LAST - DAY, LAST, date(2000, 2, 29), date(2024, 2, 29)]
any_day = st.one_of(st.dates(max_value=LAST), st.sampled_from(EDGES))
near_leap_day = st.builds(
    lambda year, offset: date(year, 2, 28) + timedelta(days=offset),
    st.sampled_from([1900, 2000, 2023, 2024, 2100, 2400]),
    st.integers(-400, 400),
)
FUZZ = settings(max_examples=300)


@FUZZ
@given(start=st.one_of(any_day, near_leap_day), end=st.one_of(any_day, near_leap_day))
@example(start=date(2023, 12, 31), end=date(2024, 12, 31))
@example(start=date(2024, 1, 1), end=date(2024, 12, 31))
@example(start=LAST - timedelta(days=400), end=LAST)
def test_windows_cover_any_range_exactly(start, end):
    windows = split(start, end)
    if end < start:
        assert windows == []
        return
    assert windows[0].first == start and windows[-1].last == end
    assert all(w.first <= w.last and w.days <= MAX_WINDOW_DAYS for w in windows)
    assert all(a.last + DAY == b.first for a, b in itertools.pairwise(windows))
    days = (end - start).days + 1
    assert sum(w.days for w in windows) == days
    assert len(windows) == -(-days // MAX_WINDOW_DAYS)
    # What each request sends: end_date is the exclusive end, one day after the window.
    for window in windows:
        assert (window.end_date - window.first).days == window.days


@FUZZ
@given(preset=st.sampled_from(sorted(calendar.PRESETS)), today=st.dates(date(1971, 1, 1)))
def test_every_preset_is_a_closed_range_before_today(preset, today):
    start, end = calendar.resolve(preset, today)
    assert start <= end < today


# -- bodies ------------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def to_json(value: object) -> bytes:
    return json.dumps(value).encode()  # unlike orjson, takes integers beyond 64 bits


METRIC_NAMES = [
    "total_characters",
    "text_translation_characters",
    "document_translation_characters",
    "text_improvement_characters",
    "speech_to_text_minutes",
]
# Values a hostile or broken service might put where a number or a day belongs.
odd_numbers = st.one_of(
    st.integers(),
    st.integers(min_value=2**63 - 10, max_value=2**70),
    st.integers(max_value=-1),
    st.floats(allow_nan=False),
    st.text(max_size=5),
    st.none(),
)
odd_days = st.one_of(
    st.dates().map(lambda d: f"{d.isoformat()}T00:00:00Z"),
    st.sampled_from(["", "NaT", "nat", "2024-02-30T00:00:00Z", "today", "2024-13-01", "0"]),
    st.text(max_size=12),
    st.integers(),
)


def usage_item(day: object, numbers: list[object]) -> dict[str, object]:
    return {
        "api_key": "abcd****wxyz",
        "api_key_label": "label",
        "usage_date": day,
        "usage": dict(zip(METRIC_NAMES, numbers, strict=True)),
    }


shaped_bodies = st.builds(
    lambda items: {
        "usage_report": {
            "total_usage": dict.fromkeys(METRIC_NAMES, 0),
            "start_date": "2025-01-01T00:00:00",
            "end_date": "2025-01-02T00:00:00",
            "group_by": "key_and_day",
            "key_and_day_usages": items,
        }
    },
    st.lists(
        st.builds(usage_item, odd_days, st.lists(odd_numbers, min_size=5, max_size=5)),
        max_size=4,
    ),
)


def decodes_or_is_invalid(body: bytes) -> None:
    try:
        rows, _ = decode_key_day(body)
    except InvalidResponseError:
        return
    # Accepted: every row is a real day with whole, in-range, non-negative numbers.
    assert list(rows.columns) == KEY_DAY_COLUMNS
    assert not rows["usage_date"].isna().any()
    assert (rows[METRIC_NAMES] >= 0).all().all()


# JSON nested deeper than the interpreter's recursion limit, with and without the milliseconds
# that make the decoder read the answer as plain JSON first.
DEEP = b'{"usage_report": {"x": ' + b"[" * 5_000 + b"]" * 5_000 + b"}}"
DEEP_MILLISECONDS = DEEP.replace(b'"x"', b'"speech_to_text_milliseconds": 1, "x"')


@FUZZ
@given(st.binary(max_size=200) | json_values.map(to_json))
@example(DEEP)
@example(DEEP_MILLISECONDS)
def test_any_body_decodes_or_is_invalid(body):
    decodes_or_is_invalid(body)


@FUZZ
@given(shaped_bodies)
@example({"usage_report": {"total_usage": {}}})
@example(  # fits uint64 but not the frames' int64 columns
    {"usage_report": {"total_usage": dict.fromkeys(METRIC_NAMES, 2**63), "start_date": "",
     "end_date": "", "key_and_day_usages": [usage_item("2025-01-01", [2**63] * 5)]}}
)  # fmt: skip
@example(
    {"usage_report": {"total_usage": dict.fromkeys(METRIC_NAMES, -1), "start_date": "",
     "end_date": "", "key_and_day_usages": [usage_item("2025-01-01", [-1] * 5)]}}
)  # fmt: skip
def test_bodies_of_the_right_shape_with_wrong_values(data):
    decodes_or_is_invalid(json.dumps(data).encode())


@FUZZ
@given(odd_numbers)
@example(1)
def test_speech_in_milliseconds_is_read_as_minutes_or_is_invalid(milliseconds):
    item = usage_item("2025-01-01T00:00:00Z", [0] * len(METRIC_NAMES))
    spoken = {**item, "usage": {"speech_to_text_milliseconds": milliseconds}}
    body = to_json({"usage_report": {"key_and_day_usages": [spoken]}})
    whole = isinstance(milliseconds, int) and milliseconds >= 0
    try:
        rows, _ = decode_key_day(body)
    except InvalidResponseError:
        assert not whole  # only what is not whole milliseconds ≥ 0 is refused
        return
    assert whole
    [minutes] = rows["speech_to_text_minutes"]
    # At six decimals, as far as a float holds them.
    assert minutes == pytest.approx(milliseconds / 60_000, rel=1e-15, abs=5e-7)


tag_bodies = st.builds(
    lambda items, next_page: {"custom_tag_usage_report": {"next_page": next_page, "usage": items}},
    st.lists(
        st.builds(
            lambda tag, day, numbers: {
                "custom_tag": tag,
                "usage_date": day,
                "breakdown": dict(zip(METRIC_NAMES[:2] + METRIC_NAMES[3:4], numbers, strict=True)),
            },
            st.one_of(st.text(max_size=8), st.integers(), st.none()),
            odd_days,
            st.lists(odd_numbers, min_size=3, max_size=3),
        ),
        max_size=4,
    ),
    odd_numbers,
)


@FUZZ
@given(tag_bodies | json_values)
def test_any_custom_tag_page_decodes_or_is_invalid(data):
    try:
        page, next_page = decode_tag_day(to_json(data))
    except InvalidResponseError:
        return
    rows = page_rows([page], TAG_DAY_DTYPES)
    # Accepted: real days, whole non-negative counts, and a page number that can follow.
    assert list(rows.columns) == TAG_DAY_COLUMNS
    assert not rows["usage_date"].isna().any()
    assert (rows[TAG_DAY_COLUMNS[2:]] >= 0).all().all()
    assert next_page is None or (isinstance(next_page, int) and next_page >= 1)


def response(status: int, body: bytes, headers: dict[str, str] | None = None) -> httpx.Response:
    request = httpx.Request("GET", "http://service.test/v2/admin/analytics")
    return httpx.Response(status, content=body, headers=headers or {}, request=request)


@FUZZ
@given(status=st.integers(200, 299), body=st.binary(max_size=100) | json_values.map(to_json))
@example(status=200, body=DEEP)
@example(status=200, body=DEEP_MILLISECONDS)
def test_client_decoding_raises_only_invalid_response(status, body):
    try:
        decode(msgspec.json.Decoder(AdminUsageReport[KeyAndDayUsage]), response(status, body))
    except InvalidResponseError as exc:
        assert exc.status == status


printable_header = st.text(
    alphabet=string.printable.strip() + " ", max_size=40
)  # what an HTTP header can carry


@FUZZ
@given(
    status=st.integers(400, 599),
    body=st.binary(max_size=100) | json_values.map(to_json),
    message=st.text(max_size=300),
    trace=printable_header,
)
@example(status=502, body=DEEP, message="", trace="")
def test_error_answers_become_one_line_errors(status, body, message, trace):
    for content in (body, orjson.dumps({"message": message, "code": "x"})):
        error = error_from_response(response(status, content, {"X-Trace-ID": trace}))
        assert isinstance(error, ServiceError)
        assert error.status == status
        text = str(error)
        # One line, whatever the service put in its message: nothing can forge more output.
        assert text.isprintable() and len(text) <= 1000


@FUZZ
@given(st.text(max_size=60) | st.sampled_from(["1e400", "-5", "nan", "inf", "Wed, 99 Foo 2025"]))
@example("Sun, 06 Nov 1994 08:49:37 GMT")
def test_retry_after_never_raises(value):
    seconds = retry_after_seconds(value, now=datetime(2025, 1, 1, tzinfo=UTC))
    assert seconds is None or seconds >= 0


@pytest.mark.parametrize("bad", ["nan", "-1", "NaN", "-inf"])
def test_retry_after_is_never_negative_or_nan(bad):
    seconds = retry_after_seconds(bad)
    assert seconds is None or seconds >= 0
