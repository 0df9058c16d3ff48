"""Splitting ranges into ≤365-day windows and merging them exactly under both readings of a
date-only end_date (exclusive end, or one more inclusive day)."""

from __future__ import annotations

import datetime as dt
import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from support.builders import METRICS, asgi_client, assert_matches_ledger
from support.servers import FIXED_TODAY, small_config

from analytics.service.errors import BadRequestError
from analytics.usage.pipeline import fetch_usage
from analytics.usage.windows import MAX_WINDOW_DAYS, Window, runs, split
from emulator import create_app

DAY = dt.timedelta(days=1)

pytestmark = pytest.mark.usefixtures("instant_retries")


def test_one_day_is_one_window():
    assert split(dt.date(2024, 2, 29), dt.date(2024, 2, 29)) == [
        Window(dt.date(2024, 2, 29), dt.date(2024, 2, 29))
    ]
    (window,) = split(dt.date(2024, 2, 29), dt.date(2024, 2, 29))
    assert window.days == 1 and window.end_date == dt.date(2024, 3, 1)


def test_365_days_fit_one_window_whose_request_covers_at_most_366_days_either_way():
    (year,) = split(dt.date(2025, 1, 1), dt.date(2025, 12, 31))
    assert year.days == 365 and year.end_date == dt.date(2026, 1, 1)
    # Exclusive reading: 2025-01-01 up to 2026-01-01 is 365 days; inclusive: 366.
    assert (year.end_date - year.first).days == 365


def test_a_leap_year_needs_two_windows():
    first, second = split(dt.date(2024, 1, 1), dt.date(2024, 12, 31))
    assert (first.first, first.last) == (dt.date(2024, 1, 1), dt.date(2024, 12, 30))
    assert (second.first, second.last) == (dt.date(2024, 12, 31), dt.date(2024, 12, 31))


def test_1200_days():
    start = dt.date(2022, 1, 1)
    windows = split(start, start + dt.timedelta(days=1199))
    assert [w.days for w in windows] == [365, 365, 365, 105]


def test_empty_range_has_no_windows():
    assert split(dt.date(2025, 1, 2), dt.date(2025, 1, 1)) == []


@given(
    start=st.dates(min_value=dt.date(2000, 1, 1), max_value=dt.date(2040, 1, 1)),
    length=st.integers(min_value=1, max_value=2500),
)
def test_windows_cover_the_range_contiguously(start, length):
    end = start + dt.timedelta(days=length - 1)
    windows = split(start, end)
    assert windows[0].first == start and windows[-1].last == end
    assert all(1 <= w.days <= MAX_WINDOW_DAYS for w in windows)
    assert all(a.last + DAY == b.first for a, b in itertools.pairwise(windows))
    assert sum(w.days for w in windows) == length
    assert len(windows) == -(-length // MAX_WINDOW_DAYS)


def test_runs_of_consecutive_days():
    days = [dt.date(2024, 2, 28), dt.date(2024, 3, 1), dt.date(2024, 2, 29), dt.date(2024, 3, 5)]
    assert runs(days) == [
        (dt.date(2024, 2, 28), dt.date(2024, 3, 1)),
        (dt.date(2024, 3, 5), dt.date(2024, 3, 5)),
    ]
    assert runs([]) == []


def ledger_server(emu, extra_before: int, extra_after: int) -> Starlette:
    """An analytics server on the emulator's ledger with its own reading of end_date.

    extra_after=1 reads a date-only end_date as an inclusive day (the other convention) and
    counts the 366-day limit in the days so covered; extra_before/extra_after > 0 also model a
    sloppy server that returns neighbouring days. Its total_usage always covers exactly the
    rows it returns.
    """

    async def analytics(request: Request) -> Response:
        start = dt.date.fromisoformat(request.query_params["start_date"])
        end = dt.date.fromisoformat(request.query_params["end_date"])
        if (end - start).days + min(extra_after, 1) > 366:
            return JSONResponse({"message": "date range cannot exceed 366 days"}, 400)
        rows = emu.ledger(start - dt.timedelta(days=extra_before), end - DAY * (1 - extra_after))
        items = []
        for row in rows:
            usage = {
                "text_translation_characters": row.text_translation_characters,
                "document_translation_characters": row.document_translation_characters,
                "text_improvement_characters": row.text_improvement_characters,
                "speech_to_text_minutes": row.speech_to_text_minutes,
                "speech_to_speech_minutes": row.speech_to_speech_minutes,
            }
            usage["total_characters"] = sum(v for k, v in usage.items() if "characters" in k)
            items.append(
                {
                    "api_key": row.api_key,
                    "api_key_label": row.api_key_label,
                    "usage_date": f"{row.usage_date.isoformat()}T00:00:00Z",
                    "usage": usage,
                }
            )
        total = {m: sum(item["usage"][m] for item in items) for m in METRICS}
        report = {
            "total_usage": total,
            "start_date": f"{start.isoformat()}T00:00:00",
            "end_date": f"{end.isoformat()}T00:00:00",
            "group_by": "key_and_day",
            "key_and_day_usages": items,
        }
        return JSONResponse({"usage_report": report})

    return Starlette(routes=[Route("/v2/admin/analytics", analytics)])


@pytest.fixture(scope="module")
def long_app():
    """Three keys over 1,300 days ending 2025-05-31: long enough for four windows."""
    app = create_app(small_config(keys=3, days=1300))
    yield app
    app.state.emulator.store.close()


@pytest.fixture(scope="module")
def inclusive_app():
    """The same organization from an emulator that reads a date-only end_date inclusively."""
    app = create_app(small_config(keys=3, days=1300, end_date_reading="inclusive"))
    yield app
    app.state.emulator.store.close()


def test_the_inclusive_server_refuses_what_a_366_day_window_would_ask(inclusive_app):
    """The windows of earlier releases (start_date=D, end_date=D+366) fail against it, once:
    a 400 about the range is never retried."""
    emu = inclusive_app.state.emulator
    client, transport = asgi_client(inclusive_app, emu.admin_key)
    first = dt.date(2024, 1, 1)
    with client:
        with pytest.raises(BadRequestError, match="cannot exceed 366 days"):
            client.usage_report_raw(first, first + dt.timedelta(days=366))
        assert len(transport.requests) == 1
        assert client.usage_report_raw(first, first + dt.timedelta(days=365)).is_success


@pytest.mark.parametrize(
    ("server", "start", "end"),
    [
        ("emulator", dt.date(2022, 1, 1), dt.date(2025, 4, 15)),  # 1,201 days, 4 windows
        ("inclusive", dt.date(2022, 1, 1), dt.date(2025, 4, 15)),
        ("sloppy", dt.date(2022, 1, 1), dt.date(2025, 4, 15)),
        ("inclusive", dt.date(2023, 12, 1), dt.date(2024, 11, 30)),  # 366 days over 29 Feb
        ("inclusive emulator", dt.date(2022, 1, 1), dt.date(2025, 4, 15)),
        ("inclusive emulator", dt.date(2024, 1, 1), dt.date(2024, 12, 31)),  # a leap year
        ("inclusive", dt.date(2024, 2, 29), dt.date(2024, 2, 29)),  # the leap day alone
        ("emulator", dt.date(2024, 1, 1), dt.date(2025, 1, 1)),  # 367 days
    ],
)
def test_merge_is_exact_whatever_the_end_date_convention(
    long_app, inclusive_app, server, start, end
):
    emu = long_app.state.emulator
    app = {
        "emulator": long_app,
        "inclusive": ledger_server(emu, 0, 1),
        "sloppy": ledger_server(emu, 2, 2),
        "inclusive emulator": inclusive_app,
    }[server]
    client, transport = asgi_client(app, emu.admin_key)
    with client:
        usage = fetch_usage(client, start, end, today=FIXED_TODAY)
    ledger = emu.ledger(start, end)
    assert ledger, "the organization has usage in the range"
    assert_matches_ledger(usage.frame, ledger)
    assert usage.mismatches == []
    assert usage.windows_fetched == len(split(start, end)) == len(transport.requests)
    assert not usage.frame.duplicated(["usage_date", "api_key"]).any()
    for request in transport.requests:
        first = dt.date.fromisoformat(request.url.params["start_date"])
        stop = dt.date.fromisoformat(request.url.params["end_date"])
        assert 1 <= (stop - first).days <= 365
