"""Language-pair usage from the service: the published example, strict decoding, paging across
pages and windows, the organization's characters per day, and the history store.

Expected frames are the published example written out here, or the emulator's pair ledger
summed per day and pair, and key (`builders.pair_ledger_frame`), never anything the client
computed.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

import pandas as pd
import pytest
from support.builders import (
    PAIR_DAY_COLUMNS,
    PAIR_KEY_DAY_COLUMNS,
    answering,
    asgi_client,
    assert_matches_pair_ledger,
    async_asgi_client,
    fetch_answered,
    fetched_without_usage,
    invalid_answer,
    runs_with_history,
)
from support.servers import FIXED_TODAY, small_config

from analytics.service.models import LanguagePairReport, LanguagePairUsage, UsageBreakdown
from analytics.usage.pipeline import (
    fetch_pair_keys,
    fetch_pair_keys_async,
    fetch_pairs,
    fetch_pairs_async,
)
from analytics.usage.windows import split
from emulator import create_app

PAIRS = "/v2/admin/analytics/language-pairs"
SECRET = "sk-pairs-test-key"
OCTOBER_1_TO_13 = (dt.date(2026, 10, 1), dt.date(2026, 10, 13))  # one window, end_date=10-14

pytestmark = pytest.mark.usefixtures("instant_retries")

# The published interface's example answer of the language-pair operation, as published.
PUBLISHED = """{"language_pair_usage_report": {"group_by": ["key"], "aggregate_by": "day",
  "start_date": "2026-10-01T00:00:00", "end_date": "2026-10-14T00:00:00", "next_page": null,
  "language_pair_usages": [
    {"source_language": "en", "target_language": "ja", "api_key": "6909****92c8",
     "api_key_label": "Production key", "usage_date": "2026-10-02T00:00:00Z",
     "usage": {"total_characters": 120400, "text_translation_characters": 100000,
               "document_translation_characters": 20400, "text_improvement_characters": 0,
               "speech_to_text_minutes": 0, "speech_to_speech_minutes": 0}},
    {"source_language": "en", "target_language": "ja", "api_key": "-", "api_key_label": "unknown", "usage_date": "2026-10-02T00:00:00Z", "usage": {"total_characters": 500, "text_translation_characters": 500}}]}}"""  # noqa: E501


# --- the published example --------------------------------------------------------------------


async def test_the_published_example_decodes_exactly():
    app, seen = answering(PAIRS, PUBLISHED)
    client, _ = async_asgi_client(app, SECRET)
    async with client:
        report = await client.language_pair_report(
            dt.date(2026, 10, 1), dt.date(2026, 10, 14), group_by="key"
        )
    assert seen == [
        {
            "start_date": "2026-10-01",
            "end_date": "2026-10-14",
            "group_by": "key",
            "aggregate_by": "day",
        }
    ]
    assert report == LanguagePairReport(
        next_page=None,
        group_by=["key"],
        aggregate_by="day",
        start_date="2026-10-01T00:00:00",
        end_date="2026-10-14T00:00:00",
        language_pair_usages=[
            LanguagePairUsage(
                source_language="en",
                target_language="ja",
                api_key="6909****92c8",
                api_key_label="Production key",
                usage_date="2026-10-02T00:00:00Z",
                usage=UsageBreakdown(120400, 100000, 20400, 0, 0.0, 0.0),
            ),
            LanguagePairUsage(
                source_language="en",
                target_language="ja",
                api_key="-",
                api_key_label="unknown",
                usage_date="2026-10-02T00:00:00Z",
                usage=UsageBreakdown(total_characters=500, text_translation_characters=500),
            ),
        ],
    )


PRODUCTION = ("2026-10-02", "en", "ja", "6909****92c8", "Production key")


def test_the_published_example_is_the_pair_key_day_frame_with_the_unattributed_row_apart():
    """Days 1–13 October are one window asking end_date=2026-10-14: the published answer."""
    pairs, seen = fetch_answered(fetch_pair_keys, PAIRS, [PUBLISHED], *OCTOBER_1_TO_13, FIXED_TODAY)
    assert [(q["end_date"], q["group_by"]) for q in seen] == [("2026-10-14", "key")]
    expected = pd.DataFrame(
        [
            ["2026-10-02", "en", "ja", "-", "unknown", 500, 500, 0, 0, 0.0, 0.0],
            [*PRODUCTION, 120400, 100000, 20400, 0, 0.0, 0.0],
        ],
        columns=PAIR_KEY_DAY_COLUMNS,
    )
    expected["usage_date"] = pd.to_datetime(expected["usage_date"]).astype("datetime64[us]")
    texts = PAIR_KEY_DAY_COLUMNS[1:5]
    pd.testing.assert_frame_equal(
        pairs.frame,
        expected.astype(dict.fromkeys(texts, "category")),
        check_categorical=False,
    )
    assert all(isinstance(pairs.frame[c].dtype, pd.CategoricalDtype) for c in texts)


# The published example's usage as the service answers it without group_by: no key per row.
WITHOUT_KEYS = """{"language_pair_usage_report": {"group_by": [], "aggregate_by": "day",
  "start_date": "2026-10-01T00:00:00", "end_date": "2026-10-14T00:00:00", "next_page": null,
  "language_pair_usages": [
    {"source_language": "en", "target_language": "ja", "usage_date": "2026-10-02T00:00:00Z",
     "usage": {"total_characters": 120900, "text_translation_characters": 100500,
               "document_translation_characters": 20400, "speech_to_speech_minutes": 1.5}}]}}"""


def test_without_group_by_the_pair_day_frame_has_one_row_per_pair_and_day():
    pairs, seen = fetch_answered(fetch_pairs, PAIRS, [WITHOUT_KEYS], *OCTOBER_1_TO_13, FIXED_TODAY)
    assert seen == [{"start_date": "2026-10-01", "end_date": "2026-10-14", "aggregate_by": "day"}]
    expected = pd.DataFrame(
        [[pd.Timestamp("2026-10-02"), "en", "ja", 120900, 100500, 20400, 0, 0.0, 1.5]],
        columns=PAIR_DAY_COLUMNS,
    )
    expected["usage_date"] = expected["usage_date"].astype("datetime64[us]")
    pd.testing.assert_frame_equal(
        pairs.frame,
        expected.astype(dict.fromkeys(PAIR_DAY_COLUMNS[1:3], "category")),
        check_categorical=False,
    )


def pair_row(day: str, key: str | None = "k", **usage: object) -> dict:
    row = {"source_language": "en", "target_language": "de", "usage_date": f"{day}T00:00:00Z"}
    return row | ({"api_key": key} if key is not None else {}) | {"usage": usage}


def page(rows, next_page: int | None = None) -> dict:
    return {"language_pair_usage_report": {"next_page": next_page, "language_pair_usages": rows}}


STRICT = {
    "a row without api_key": (page([pair_row("2026-05-04", None)]), "without an api_key"),
    "a row without target": (
        page([{"source_language": "en", "api_key": "k", "usage_date": "2026-05-04"}]),
        "documented shape",
    ),
    "a negative count": (page([pair_row("2026-05-04", total_characters=-1)]), "documented"),
    "a row without usage_date": (
        page([{"source_language": "en", "target_language": "de", "api_key": "k"}]),
        "without a usage_date",
    ),
    "no rows at all": ({"language_pair_usage_report": {}}, "has no language_pair_usages"),
}


@pytest.mark.parametrize("problem", STRICT)
def test_what_is_not_the_documented_structure_is_an_invalid_answer(problem):
    body, message = STRICT[problem]
    assert message in invalid_answer(fetch_pair_keys, PAIRS, body, FIXED_TODAY)


# --- every page of every window, exactly ----------------------------------------------------

START, END = dt.date(2023, 1, 1), dt.date(2025, 4, 15)  # 836 days: three windows
PAGED = {"keys": 3, "days": 900, "page_size": 200}  # for the paged_app fixture


@pytest.mark.parametrize("fetch", [fetch_pairs, fetch_pair_keys])
def test_pages_and_windows_merge_into_the_pair_ledger(paged_app, fetch):
    emu = paged_app.state.emulator
    by_key = fetch is fetch_pair_keys
    client, transport = asgi_client(paged_app)
    with client:
        pairs = fetch(client, START, END, today=FIXED_TODAY)
    ledger = emu.pair_ledger(START, END)
    assert any(not row.attributed for row in ledger), "some usage is unattributed"
    assert_matches_pair_ledger(pairs.frame, ledger)
    if by_key:
        assert (pairs.frame["api_key"] == "-").any()
        assert set(pairs.frame.loc[pairs.frame["api_key"] == "-", "api_key_label"]) == {"unknown"}
    assert pairs.windows_fetched == len(split(START, END)) == 3
    pages_by_window = defaultdict(list)
    for sent in transport.paths(PAIRS):
        params = sent.url.params
        assert (params.get("group_by"), params["aggregate_by"]) == (
            "key" if by_key else None,
            "day",
        )
        pages_by_window[params["start_date"]].append(params.get("page"))
    assert len(pages_by_window) == 3
    for pages in pages_by_window.values():
        assert len(pages) > 1, "several pages per window"
        assert pages == [None, *map(str, range(2, len(pages) + 1))]


def test_each_days_pairs_add_up_to_the_organizations_characters(paged_app):
    """Every character belongs to one pair: per day, the pairs' characters are the
    organization's key-day characters in the emulator's ledger."""
    emu = paged_app.state.emulator
    client, _ = asgi_client(paged_app)
    with client:
        pair_day = fetch_pairs(client, START, END, today=FIXED_TODAY).frame
    metrics = [
        "text_translation_characters",
        "document_translation_characters",
        "text_improvement_characters",
    ]
    organization: dict[pd.Timestamp, list[int]] = defaultdict(lambda: [0, 0, 0])
    for row in emu.ledger(START, END):
        for i, metric in enumerate(metrics):
            organization[pd.Timestamp(row.usage_date)][i] += getattr(row, metric)
    per_day = pair_day.groupby("usage_date")[metrics].sum()
    per_day = per_day[per_day.sum(axis=1) > 0]
    expected = {day: counts for day, counts in organization.items() if sum(counts)}
    assert {day: list(map(int, counts)) for day, counts in per_day.iterrows()} == expected


@pytest.mark.parametrize(
    ("fetch", "columns"),
    [(fetch_pairs_async, PAIR_DAY_COLUMNS), (fetch_pair_keys_async, PAIR_KEY_DAY_COLUMNS)],
)
async def test_async_variant_and_a_range_without_usage(paged_app, fetch, columns):
    start, end = dt.date(2015, 1, 1), dt.date(2015, 3, 1)
    await fetched_without_usage(fetch, paged_app, start, end, columns)


# --- the history store ------------------------------------------------------------------------

HISTORY_START, HISTORY_END = dt.date(2024, 1, 2), dt.date(2025, 5, 31)  # two windows


@pytest.mark.parametrize("fetch", [fetch_pairs, fetch_pair_keys])
def test_second_run_fetches_only_open_days(tmp_path, fetch):
    app = create_app(small_config(keys=3, days=530, page_size=300))
    emu = app.state.emulator
    plain, first, second = runs_with_history(
        app, fetch, HISTORY_START, HISTORY_END, tmp_path / "history.duckdb", FIXED_TODAY
    )
    assert first.result.windows_fetched == 2
    # Closed through 2025-05-28: only the last three days are fetched again.
    assert second.result.windows_fetched == 1
    assert {(r.url.params["start_date"], r.url.params["end_date"]) for r in second.sent} == {
        ("2025-05-29", "2025-06-01")
    }
    assert second.result.days_from_history == (dt.date(2025, 5, 28) - HISTORY_START).days + 1
    for pairs in (first.result, second.result):
        pd.testing.assert_frame_equal(pairs.frame, plain.frame)
    assert_matches_pair_ledger(second.result.frame, emu.pair_ledger(HISTORY_START, HISTORY_END))
    app.state.emulator.store.close()
