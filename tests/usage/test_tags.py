"""Custom-tag usage from the service: the published examples, tolerant and strict decoding,
paging across pages and windows under both end_date readings, and the history store.

Expected frames are the published examples written out here, or the emulator's tag ledger
summed per tag and day (`builders.tag_ledger_frame`), never anything the client computed.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

import pandas as pd
import pytest
from support.builders import (
    TAG_DAY_COLUMNS,
    answering,
    asgi_client,
    assert_matches_ledger,
    assert_matches_tag_ledger,
    async_asgi_client,
    fetch_answered,
    fetched_without_usage,
    invalid_answer,
    runs_with_history,
)
from support.servers import FIXED_TODAY, emulator_of, small_config

from analytics.service.decoding import BLOCK_ROWS
from analytics.service.errors import InvalidResponseError
from analytics.service.models import CustomTagReport, CustomTagUsage, UsageBreakdown
from analytics.usage.history import HistoryStore
from analytics.usage.pipeline import fetch_tags, fetch_tags_async, fetch_usage
from analytics.usage.windows import split

TAGS = "/v2/admin/analytics/custom-tags"
SECRET = "sk-tags-test-key"
MAY_3_TO_14 = (dt.date(2026, 5, 3), dt.date(2026, 5, 14))  # one window, end_date=2026-05-15

pytestmark = pytest.mark.usefixtures("instant_retries")

# The published interface's two example answers of the custom-tag operation, as published.
PUBLISHED_BY_PERIOD = """{
  "custom_tag_usage_report": {
    "aggregate_by": "period",
    "start_date": "2026-05-03T00:00:00",
    "end_date": "2026-05-05T00:00:00",
    "next_page": null,
    "usage": [
      {
        "custom_tag": "example-custom-tag",
        "breakdown": {
          "total_characters": 380,
          "text_translation_characters": 380,
          "text_improvement_characters": 0
        }
      },
      {
        "custom_tag": "example-custom-tag-2",
        "breakdown": {
          "total_characters": 475,
          "text_translation_characters": 475,
          "text_improvement_characters": 0
        }
      }
    ]
  }
}"""
PUBLISHED_BY_DAY = """{
  "custom_tag_usage_report": {
    "aggregate_by": "day",
    "start_date": "2026-05-03T00:00:00",
    "end_date": "2026-05-15T00:00:00",
    "next_page": null,
    "usage": [
      {
        "custom_tag": "example-custom-tag",
        "usage_date": "2026-05-04T00:00:00Z",
        "breakdown": {
          "total_characters": 380,
          "text_translation_characters": 380,
          "text_improvement_characters": 0
        }
      },
      {
        "custom_tag": "example-custom-tag",
        "usage_date": "2026-05-11T00:00:00Z",
        "breakdown": {
          "total_characters": 595,
          "text_translation_characters": 595,
          "text_improvement_characters": 0
        }
      }
    ]
  }
}"""


def frame(*rows: tuple[str, str, int, int, int]) -> pd.DataFrame:
    """A tag-day frame written out: (day, tag, total, text translation, text improvement)."""
    table = pd.DataFrame(list(rows), columns=TAG_DAY_COLUMNS)
    table["usage_date"] = pd.to_datetime(table["usage_date"]).astype("datetime64[us]")
    return table.astype({"custom_tag": "category"}).astype(
        {c: "int64" for c in TAG_DAY_COLUMNS[2:]}
    )


def assert_frame(tag_day: pd.DataFrame, expected: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(tag_day, expected, check_categorical=False)


# --- the published examples ------------------------------------------------------------------


async def test_the_published_period_example_decodes_exactly():
    app, seen = answering(TAGS, PUBLISHED_BY_PERIOD)
    client, _ = async_asgi_client(app, SECRET)
    async with client:
        report = await client.custom_tag_report(dt.date(2026, 5, 3), dt.date(2026, 5, 5))
    assert seen == [
        {"start_date": "2026-05-03", "end_date": "2026-05-05", "aggregate_by": "period"}
    ]
    assert report == CustomTagReport(
        next_page=None,
        aggregate_by="period",
        start_date="2026-05-03T00:00:00",
        end_date="2026-05-05T00:00:00",
        usage=[
            CustomTagUsage(
                "example-custom-tag",
                UsageBreakdown(total_characters=380, text_translation_characters=380),
            ),
            CustomTagUsage(
                "example-custom-tag-2",
                UsageBreakdown(total_characters=475, text_translation_characters=475),
            ),
        ],
    )


def test_the_published_day_example_is_the_tag_day_frame():
    """Days 3–14 May are one window asking end_date=2026-05-15: the published answer."""
    tags, seen = fetch_answered(fetch_tags, TAGS, [PUBLISHED_BY_DAY], *MAY_3_TO_14, FIXED_TODAY)
    assert seen == [{"start_date": "2026-05-03", "end_date": "2026-05-15", "aggregate_by": "day"}]
    assert_frame(
        tags.frame,
        frame(
            ("2026-05-04", "example-custom-tag", 380, 380, 0),
            ("2026-05-11", "example-custom-tag", 595, 595, 0),
        ),
    )
    assert str(tags.frame["usage_date"].dtype) == "datetime64[us]"
    assert isinstance(tags.frame["custom_tag"].dtype, pd.CategoricalDtype)
    assert tags.windows_fetched == 1


# --- tolerant where the interface allows, strict where it does not ------------------------------


def day_row(day: str, tag: str, **breakdown: object) -> dict:
    return {"custom_tag": tag, "usage_date": f"{day}T00:00:00Z", "breakdown": breakdown}


def page(rows, next_page: int | None = None, **extra: object) -> dict:
    return {"custom_tag_usage_report": {"next_page": next_page, "usage": rows, **extra}}


def test_absent_counts_are_zero_and_unknown_fields_are_ignored():
    rows = [
        day_row("2026-05-04", "no-total", text_translation_characters=7),
        day_row("2026-05-04", "nothing"),
        {"custom_tag": "no-breakdown", "usage_date": "2026-05-05T00:00:00Z", "region": "eu"},
        day_row("2026-05-05", "future", total_characters=9, text_improvement_characters=9, x=1),
    ]
    body = {"custom_tag_usage_report": {"usage": rows, "currency_hint": {"unknown": True}}}
    # No next_page at all: the last page.
    tags, seen = fetch_answered(fetch_tags, TAGS, [body], *MAY_3_TO_14, FIXED_TODAY)
    assert len(seen) == 1
    assert_frame(
        tags.frame,
        frame(
            ("2026-05-04", "no-total", 0, 7, 0),
            ("2026-05-04", "nothing", 0, 0, 0),
            ("2026-05-05", "future", 9, 0, 9),
            ("2026-05-05", "no-breakdown", 0, 0, 0),
        ),
    )


def test_a_page_of_many_blocks_keeps_every_row():
    count = 2 * BLOCK_ROWS + 500
    rows = [
        day_row("2026-05-04", f"t{n:04d}", total_characters=n, text_translation_characters=n)
        for n in range(count)
    ]
    tags, _ = fetch_answered(fetch_tags, TAGS, [page(rows)], *MAY_3_TO_14, FIXED_TODAY)
    assert_frame(tags.frame, frame(*(("2026-05-04", f"t{n:04d}", n, n, 0) for n in range(count))))


STRICT = {
    "a string where a count belongs": (
        page([day_row("2026-05-04", "a", total_characters="many")]),
        "documented shape",
    ),
    "a negative count": (page([day_row("2026-05-04", "a", total_characters=-1)]), "documented"),
    "a row without custom_tag": (
        page([{"usage_date": "2026-05-04T00:00:00Z", "breakdown": {}}]),
        "documented shape",
    ),
    "a day row without usage_date": (
        page([{"custom_tag": "a", "breakdown": {}}]),
        "without a usage_date",
    ),
    "an invalid usage_date": (
        page([{"custom_tag": "a", "usage_date": "yesterday", "breakdown": {}}]),
        "invalid usage_date",
    ),
    "usage that is not a list": (page({"rows": 1}), "documented shape"),
    "no usage at all": ({"custom_tag_usage_report": {"next_page": None}}, "has no usage"),
    "a next_page of 0": (page([], next_page=0), "documented shape"),
    "not JSON": ("<html>Gateway login</html>", "documented shape"),
}


@pytest.mark.parametrize("problem", STRICT)
def test_what_is_not_the_documented_structure_is_an_invalid_answer(problem):
    body, message = STRICT[problem]
    assert message in invalid_answer(fetch_tags, TAGS, body, FIXED_TODAY)


@pytest.mark.parametrize("following", [1, 2])
def test_a_next_page_that_does_not_move_forward_is_invalid_not_a_loop(following):
    app, seen = answering(TAGS, page([], next_page=2), page([], next_page=following))
    client, _ = asgi_client(app, SECRET)
    with client, pytest.raises(InvalidResponseError, match=f"next_page {following} does not"):
        fetch_tags(client, *MAY_3_TO_14, today=FIXED_TODAY)
    assert [query.get("page") for query in seen] == [None, "2"]


def test_a_failed_page_is_asked_for_again_and_the_window_completes():
    bodies = [
        page([day_row("2026-05-04", "a", total_characters=1)], next_page=2),
        503,
        page([day_row("2026-05-05", "b", total_characters=2)]),
    ]
    tags, seen = fetch_answered(fetch_tags, TAGS, bodies, *MAY_3_TO_14, FIXED_TODAY)
    assert [query.get("page") for query in seen] == [None, "2", "2"]
    assert_frame(tags.frame, frame(("2026-05-04", "a", 1, 0, 0), ("2026-05-05", "b", 2, 0, 0)))


# --- every page of every window, exactly ----------------------------------------------------

START, END = dt.date(2022, 1, 1), dt.date(2025, 4, 15)  # 1,201 days: four windows
PAGED = {"keys": 4, "days": 1300, "page_size": 40}  # for the paged_app fixture


def test_pages_and_windows_merge_into_the_tag_ledger(paged_app):
    emu = paged_app.state.emulator
    client, transport = asgi_client(paged_app)
    with client:
        tags = fetch_tags(client, START, END, today=FIXED_TODAY)
    ledger = emu.tag_ledger(START, END)
    assert ledger, "the organization has tagged characters in the range"
    assert_matches_tag_ledger(tags.frame, ledger)
    assert not tags.frame.duplicated(["usage_date", "custom_tag"]).any()
    assert tags.windows_fetched == len(split(START, END)) == 4
    # Each window asked for its pages in order, from the first (no page parameter) on.
    pages_by_window = defaultdict(list)
    for sent in transport.paths(TAGS):
        params = sent.url.params
        first = dt.date.fromisoformat(params["start_date"])
        stop = dt.date.fromisoformat(params["end_date"])
        assert 1 <= (stop - first).days <= 365 and params["aggregate_by"] == "day"
        pages_by_window[first].append(params.get("page"))
    assert len(pages_by_window) == 4
    for pages in pages_by_window.values():
        assert len(pages) > 2, "several pages per window"
        assert pages == [None, *map(str, range(2, len(pages) + 1))]


async def test_async_variant_and_a_range_without_tags(paged_app):
    start, end = dt.date(2015, 1, 1), dt.date(2015, 3, 1)
    await fetched_without_usage(fetch_tags_async, paged_app, start, end, TAG_DAY_COLUMNS)


# --- the history store ------------------------------------------------------------------------

HISTORY_START, HISTORY_END = dt.date(2023, 6, 2), dt.date(2025, 5, 31)  # two windows


@pytest.fixture(scope="module")
def app():
    with emulator_of(small_config(keys=4, days=800, page_size=60)) as app:
        yield app


def test_second_run_fetches_only_open_days(app, tmp_path):
    emu = app.state.emulator
    plain, first, second = runs_with_history(
        app, fetch_tags, HISTORY_START, HISTORY_END, tmp_path / "history.duckdb", FIXED_TODAY
    )
    first_requests = len([r for r in first.sent if r.url.path == TAGS])
    assert first.result.windows_fetched == 2 and first_requests > 2  # every page of both windows
    # Closed through 2025-05-28: only the last three days are fetched again, in one page.
    assert second.result.windows_fetched == 1
    (only,) = second.sent
    assert (only.url.path, only.url.params["start_date"], only.url.params["end_date"]) == (
        TAGS,
        "2025-05-29",
        "2025-06-01",
    )
    assert second.result.days_from_history == (dt.date(2025, 5, 28) - HISTORY_START).days + 1
    for tags in (first.result, second.result):
        pd.testing.assert_frame_equal(tags.frame, plain.frame)
    assert_matches_tag_ledger(second.result.frame, emu.tag_ledger(HISTORY_START, HISTORY_END))


def test_tag_days_and_key_days_share_the_file_but_not_their_days(app, tmp_path, caplog):
    """A file that so far holds key-days (an earlier release's) serves them still, and tag-days
    start empty there without a warning."""
    emu = app.state.emulator
    store = HistoryStore(tmp_path / "history.duckdb")
    client, transport = asgi_client(app)
    with client:
        fetch_usage(client, HISTORY_START, HISTORY_END, history=store, today=FIXED_TODAY)
        transport.requests.clear()
        tags = fetch_tags(client, HISTORY_START, HISTORY_END, history=store, today=FIXED_TODAY)
        assert tags.days_from_history == 0 and tags.windows_fetched == 2
        transport.requests.clear()
        usage = fetch_usage(client, HISTORY_START, HISTORY_END, history=store, today=FIXED_TODAY)
        again = fetch_tags(client, HISTORY_START, HISTORY_END, history=store, today=FIXED_TODAY)
    assert usage.windows_fetched == again.windows_fetched == 1
    assert {r.url.params["start_date"] for r in transport.requests} == {"2025-05-29"}
    assert "History store" not in caplog.text
    assert_matches_ledger(usage.frame, emu.ledger(HISTORY_START, HISTORY_END))
    assert_matches_tag_ledger(again.frame, emu.tag_ledger(HISTORY_START, HISTORY_END))
