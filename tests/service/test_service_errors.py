"""The client's one-line errors name the HTTP reason once: the service's own messages often
start with it ("Forbidden: …", "Not found: …"), and an error line never reads "Forbidden:
Forbidden: …"."""

from __future__ import annotations

from http import HTTPStatus

import httpx
import orjson
from hypothesis import example, given
from hypothesis import strategies as st

from analytics.service.errors import one_line
from analytics.service.transport import error_from_response

# Every error status with a reason of its own: the standard phrases, and the service's 456.
REASONS = {s.value: s.phrase for s in HTTPStatus if 400 <= s.value < 600} | {456: "Quota exceeded"}
statuses = st.sampled_from(sorted(REASONS))


def error_line(status: int, body: bytes) -> str:
    """The error line of a service answer with this status and body (no code, no trace id)."""
    request = httpx.Request("GET", "http://service.test/v2/admin/developer-keys")
    return str(error_from_response(httpx.Response(status, content=body, request=request)))


def answered(status: int, message: str) -> str:
    return error_line(status, orjson.dumps({"message": message}))


@st.composite
def reason_in_any_case(draw: st.DrawFn) -> tuple[int, str]:
    """A status and its reason with each letter in either case."""
    status = draw(statuses)
    return status, "".join(c.upper() if draw(st.booleans()) else c.lower() for c in REASONS[status])


@given(
    status_lead=reason_in_any_case(),
    after=st.sampled_from([":", ".", " ", "!", " -", ","]),
    rest=st.text(max_size=80),
)
@example(status_lead=(403, "Forbidden"), after=":", rest=" at most 25 developer keys are active")
@example(status_lead=(404, "Not found"), after=":", rest=" no developer key has this key_id.")
@example(status_lead=(456, "Quota exceeded"), after=".", rest=" The character limit…")
@example(status_lead=(403, "Forbidden"), after=" ", rest="")
def test_a_message_that_starts_with_its_reason_is_not_led_by_it_again(status_lead, after, rest):
    status, lead = status_lead
    message = lead + after + rest
    assert answered(status, message) == f"{status} {one_line(message)}"


@given(
    status=statuses,
    first=st.sampled_from("0123456789([#*'\"«"),
    rest=st.text(max_size=80),
)
def test_any_other_message_is_led_by_its_reason(status, first, rest):
    message = first + rest
    assert answered(status, message) == f"{status} {REASONS[status]}: {one_line(message)}"


@given(status=statuses, tail=st.sampled_from(["ness", "s", "2", "é"]))
def test_a_reason_that_begins_a_longer_word_is_no_reason(status, tail):
    message = REASONS[status] + tail
    assert answered(status, message) == f"{status} {REASONS[status]}: {message}"


@given(status=statuses)
def test_an_answer_without_a_message_reads_as_its_reason_once(status):
    """The reason phrase (in httpx's case) stands in for a missing message, and is named once,
    not twice; a status without a phrase (456) says there was no message."""
    alone = f"{status} {REASONS[status]}" + (": no message" if status == 456 else "")
    assert error_line(status, b"").lower() == alone.lower()
