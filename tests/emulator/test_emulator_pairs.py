"""Language pairs: `GET /v2/admin/analytics/language-pairs` against literal figures and ledgers."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

import httpx
import pytest
from support.answers import answer_of, ask, assert_refused, assert_window_limit, book_translation
from support.orgfiles import (
    SPLIT_PAIRS,
    USAGE_FIELDS,
    load_org,
    org_key,
    org_usage,
    organization,
)
from support.servers import FIXED_TODAY, all_pages, auth, client_for, file_app, small_config

from emulator import EmulatorConfig, create_app, mask_key
from emulator.store.window_cache import WINDOWS_KEPT

PAIRS = "/v2/admin/analytics/language-pairs"
ADMIN, WEB, LEGACY = "pair-admin-0001-aaaa:adm", "pair-plain-0002-bbbb", "pair-older-0003-cccc"
A, B, C = mask_key(ADMIN), mask_key(WEB), mask_key(LEGACY)
# The admin key splits translation 3 : 1 : 1 over en→ja, en→de and unattributed en→ja, and
# improves English; the website translates de→en-GB only (its improvement has no pair: '-');
# the legacy key declares no pairs at all.
ORG = organization(
    org_key(ADMIN, "Admin", f"pairs = {SPLIT_PAIRS}", admin=True),
    org_key(WEB, "Website", "[[keys.pairs]]", 'source = "de"', 'target = "en-GB"'),
    org_key(LEGACY, "Legacy"),
    org_usage(ADMIN, "2025-03-01", text=1000, document=500, improvement=30, stt=2.5, sts=1.0),
    org_usage(WEB, "2025-03-01", text=70, improvement=9),
    org_usage(ADMIN, "2025-03-02", text=7),
    org_usage(LEGACY, "2025-03-02", text=11, stt=0.5),
)
WINDOW = {"start_date": "2025-03-01", "end_date": "2025-03-03"}
METRICS = tuple(USAGE_FIELDS.values())


def usage(text=0, document=0, improvement=0, stt=0.0, sts=0.0) -> dict:
    return {
        "total_characters": text + document + improvement,
        "text_translation_characters": text,
        "document_translation_characters": document,
        "text_improvement_characters": improvement,
        "speech_to_text_minutes": stt,
        "speech_to_speech_minutes": sts,
    }


def row(source, target, figures, key=None, label=None, day=None) -> dict:
    item = {"source_language": source, "target_language": target}
    if key:
        item |= {"api_key": key, "api_key_label": label}
    if day:
        item["usage_date"] = f"{day}T00:00:00Z"
    return item | {"usage": figures}


# 1000 characters split 3 : 1 : 1 → 600, 200, 200; on the 2nd, 7 → 4, 1, 2 (cumulative floors).
BY_KEY_AND_DAY = [
    row("-", "-", usage(improvement=9), B, "Website", "2025-03-01"),
    row("de", "en-GB", usage(text=70), B, "Website", "2025-03-01"),
    row("en", "de", usage(text=200, document=100, sts=0.2), A, "Admin", "2025-03-01"),
    row("en", "en", usage(improvement=30, stt=2.5), A, "Admin", "2025-03-01"),
    row("en", "ja", usage(text=600, document=300, sts=0.6), A, "Admin", "2025-03-01"),
    row("en", "ja", usage(text=200, document=100, sts=0.2), "-", "unknown", "2025-03-01"),
    row("-", "-", usage(text=11, stt=0.5), C, "Legacy", "2025-03-02"),
    row("en", "de", usage(text=1), A, "Admin", "2025-03-02"),
    row("en", "ja", usage(text=4), A, "Admin", "2025-03-02"),
    row("en", "ja", usage(text=2), "-", "unknown", "2025-03-02"),
]


async def pair_report(app, key=ADMIN, **params) -> dict:
    return (await answer_of(app, key, PAIRS, **params))["language_pair_usage_report"]


async def test_by_key_and_day_answer_is_literal(tmp_path):
    app = file_app(tmp_path, ORG)
    assert await pair_report(app, **WINDOW, group_by="key", aggregate_by="day") == {
        "group_by": ["key"],
        "aggregate_by": "day",
        "start_date": "2025-03-01T00:00:00",
        "end_date": "2025-03-03T00:00:00",
        "next_page": None,
        "language_pair_usages": BY_KEY_AND_DAY,
    }


@pytest.mark.parametrize("params", [{}, {"group_by": "", "aggregate_by": "period"}])
async def test_period_answer_without_keys_is_literal(tmp_path, params):
    assert await pair_report(file_app(tmp_path, ORG), **WINDOW, **params) == {
        "group_by": [],
        "aggregate_by": "period",
        "start_date": "2025-03-01T00:00:00",
        "end_date": "2025-03-03T00:00:00",
        "next_page": None,
        "language_pair_usages": [
            row("-", "-", usage(text=11, improvement=9, stt=0.5)),
            row("de", "en-GB", usage(text=70)),
            row("en", "de", usage(text=201, document=100, sts=0.2)),
            row("en", "en", usage(improvement=30, stt=2.5)),
            row("en", "ja", usage(text=806, document=400, sts=0.8)),
        ],
    }


async def test_period_by_key_and_day_without_keys(tmp_path):
    app = file_app(tmp_path, ORG)
    by_key = await pair_report(app, **WINDOW, group_by="key")
    rows = by_key["language_pair_usages"]
    assert [(r["source_language"], r["target_language"], r["api_key"]) for r in rows] == [
        ("-", "-", B),
        ("-", "-", C),
        ("de", "en-GB", B),
        ("en", "de", A),
        ("en", "en", A),
        ("en", "ja", A),
        ("en", "ja", "-"),
    ]
    unknown = rows[-1]
    assert (unknown["api_key_label"], unknown["usage"]) == (
        "unknown",
        usage(text=202, document=100, sts=0.2),
    )
    by_day = await pair_report(app, **WINDOW, aggregate_by="day")
    assert by_day["group_by"] == [] and by_day["aggregate_by"] == "day"
    assert by_day["language_pair_usages"][-1] == row("en", "ja", usage(text=6), day="2025-03-02")


async def test_pages_hold_page_size_rows_and_link_on(tmp_path):
    app = file_app(tmp_path, ORG, page_size=4)
    params = {**WINDOW, "group_by": "key", "aggregate_by": "day"}
    pages = [await pair_report(app, **params, page=str(n)) for n in (1, 2, 3, 4)]
    assert [p["next_page"] for p in pages] == [2, 3, None, None]
    assert [r for p in pages for r in p["language_pair_usages"]] == BY_KEY_AND_DAY
    assert pages[3]["language_pair_usages"] == []


async def test_a_translation_booked_after_a_read_shows_when_read_again(tmp_path):
    """A window's rows are kept for its pages, never past a change to the ledger."""
    app = file_app(tmp_path, ORG, today=dt.date(2025, 3, 2))
    params = {**WINDOW, "group_by": "key", "aggregate_by": "day"}
    assert (await pair_report(app, **params))["language_pair_usages"] == BY_KEY_AND_DAY
    await book_translation(app, WEB, "Guten Morgen")
    website = row("de", "en-GB", usage(text=12), B, "Website", "2025-03-02")
    expected = [*BY_KEY_AND_DAY[:7], website, *BY_KEY_AND_DAY[7:]]
    assert (await pair_report(app, **params))["language_pair_usages"] == expected


def expected_rows(ledger, by_key: bool, by_day: bool) -> dict:
    """The report computed from the pair ledger: unattributed rows of every key under '-'."""
    sums: dict = defaultdict(lambda: [0, 0, 0, 0.0, 0.0])
    for r in ledger:
        index = (
            r.usage_date.isoformat() if by_day else None,
            r.source_language,
            r.target_language,
            (r.api_key if r.attributed else "-") if by_key else None,
        )
        for i, metric in enumerate(METRICS):
            sums[index][i] += getattr(r, metric)
    return {index: figures for index, figures in sums.items() if any(figures)}


def answer_rows(rows: list[dict]) -> dict:
    return {
        (
            r["usage_date"][:10] if "usage_date" in r else None,
            r["source_language"],
            r["target_language"],
            r.get("api_key"),
        ): [r["usage"][metric] for metric in METRICS]
        for r in rows
    }


def assert_same(answer: dict, expected: dict) -> None:
    assert answer.keys() == expected.keys()
    for index, figures in expected.items():
        assert answer[index][:3] == figures[:3], index  # characters exactly
        assert answer[index][3:] == pytest.approx(figures[3:], abs=1e-6), index


@pytest.mark.parametrize(("group_by", "aggregate_by"), [("key", "day"), ("", "day"), ("key", "")])
async def test_pages_together_equal_the_pair_ledger(group_by, aggregate_by):
    app = create_app(small_config(page_size=20))
    params = {"start_date": "2025-04-01", "end_date": "2025-06-01"}
    rows, pages = await all_pages(
        app, PAIRS, "language_pair_usages", **params, group_by=group_by, aggregate_by=aggregate_by
    )
    by_key, by_day = group_by == "key", aggregate_by == "day"
    ledger = app.state.emulator.pair_ledger(dt.date(2025, 4, 1), dt.date(2025, 5, 31))
    expected = expected_rows(ledger, by_key, by_day)
    assert_same(answer_rows(rows), expected)
    assert len(rows) == len(expected)  # no row repeated across pages
    assert pages == -(-len(rows) // 20) > 2
    order = [
        (r.get("usage_date", ""), r["source_language"], r["target_language"], *key_order(r))
        for r in rows
    ]
    assert order == sorted(order)
    assert (
        all(r["api_key_label"] == "unknown" for r in rows if r.get("api_key") == "-")
        and any(r.get("api_key") == "-" for r in rows) is by_key
    )


async def test_more_windows_read_in_turn_than_are_kept_each_equal_the_ledger():
    """Windows read a page at a time in turn, more of them than the emulator keeps, so each
    window's rows are computed again for its next page: every window still pages alike."""
    app = create_app(small_config(page_size=20))
    emu = app.state.emulator
    starts = [dt.date(2025, 4, 1) + dt.timedelta(days=n) for n in range(WINDOWS_KEPT + 2)]
    rows: dict = {start: [] for start in starts}
    following: dict = dict.fromkeys(starts)  # the page each window reads next (None: first)
    async with client_for(app, emu.admin_key) as client:
        while following:
            for start, page in list(following.items()):
                end = start + dt.timedelta(days=30)
                params = {"start_date": start.isoformat(), "end_date": end.isoformat()}
                params |= {"group_by": "key", "aggregate_by": "day"} | (
                    {"page": page} if page else {}
                )
                response = await client.get(PAIRS, params=params)
                report = response.json()["language_pair_usage_report"]
                rows[start] += report["language_pair_usages"]
                following[start] = report["next_page"]
                if report["next_page"] is None:
                    del following[start]
    for start in starts:
        ledger = emu.pair_ledger(start, start + dt.timedelta(days=29))
        expected = expected_rows(ledger, by_key=True, by_day=True)
        assert_same(answer_rows(rows[start]), expected)
        assert len(rows[start]) == len(expected) > 40


def key_order(row: dict) -> tuple[bool, str]:
    """Keys in masked order, the unattributed '-' last."""
    return row.get("api_key") == "-", row.get("api_key", "")


def per_day(rows, metric_of) -> dict:
    sums: dict = defaultdict(lambda: [0, 0, 0, 0.0, 0.0])
    for day, figures in rows:
        for i, metric in enumerate(METRICS):
            sums[day][i] += metric_of(figures, metric)
    return sums


async def test_pairs_add_up_to_the_organization_per_day():
    """Every day of a year of the demo organization: all pairs together are the ledger's
    figures, characters exactly; and per key, its attributed and unattributed parts are its
    ledger row."""
    app = create_app(EmulatorConfig(today=FIXED_TODAY))
    emu = app.state.emulator
    start, end = dt.date(2024, 6, 1), dt.date(2025, 5, 31)
    year = {"start_date": "2024-06-01", "end_date": "2025-06-01", "aggregate_by": "day"}
    rows, _ = await all_pages(app, PAIRS, "language_pair_usages", **year)
    pairs = per_day(((r["usage_date"][:10], r["usage"]) for r in rows), dict.__getitem__)
    ledger = emu.ledger(start, end)
    org = per_day(((r.usage_date.isoformat(), r) for r in ledger), getattr)
    assert pairs.keys() == org.keys()
    for day, figures in org.items():
        assert pairs[day][:3] == figures[:3], day
        assert pairs[day][3:] == pytest.approx(figures[3:], abs=1e-6), day
    parts = per_day((((r.usage_date, r.api_key), r) for r in emu.pair_ledger(start, end)), getattr)
    for r in ledger:
        figures = [getattr(r, metric) for metric in METRICS]
        assert parts[(r.usage_date, r.api_key)][:3] == figures[:3]
        assert parts[(r.usage_date, r.api_key)][3:] == pytest.approx(figures[3:], abs=1e-6)


def test_synthetic_pairs_have_dominant_pairs_a_tail_and_unattributed_usage():
    emu = create_app(EmulatorConfig(today=FIXED_TODAY)).state.emulator
    ledger = emu.pair_ledger(dt.date(2024, 6, 1), dt.date(2025, 5, 31))
    translated: dict = defaultdict(lambda: defaultdict(int))
    for r in ledger:
        if r.source_language == r.target_language:  # improvement and speech-to-text only
            assert r.text_translation_characters == r.document_translation_characters == 0
            assert r.speech_to_speech_minutes == 0
        else:
            assert r.text_improvement_characters == 0 and r.speech_to_text_minutes == 0
            translated[r.api_key][(r.source_language, r.target_language)] += (
                r.text_translation_characters + r.document_translation_characters
            )
    for key, per_pair in translated.items():
        shares = sorted((v / sum(per_pair.values()) for v in per_pair.values()), reverse=True)
        assert shares[0] >= 0.25, key  # a dominant pair
        assert len(shares) >= 3 and shares[-1] <= 0.1, key  # and a tail
    unattributed = sum(r.text_translation_characters for r in ledger if not r.attributed)
    total = sum(r.text_translation_characters for r in ledger)
    assert 0 < unattributed / total < 0.1
    assert any(r.speech_to_speech_minutes > 0 for r in ledger)
    assert {r.source_language for r in ledger} >= {"en", "de"}


async def test_366_days_accepted_367_rejected_as_in_analytics(tmp_path):
    app = file_app(tmp_path, ORG)
    await assert_window_limit(
        app, ADMIN, PAIRS, "2024-01-01", "2025-01-01", "2025-01-02", group_by="key"
    )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"json": {**WINDOW, "group_by": "key", "aggregate_by": "day", "page": 2}},
        {
            "data": {**WINDOW, "group_by": "key", "aggregate_by": "day", "page": "2"},
            "params": {"group_by": ""},  # the body's value wins
        },
        {"params": WINDOW, "json": {"group_by": "key", "aggregate_by": "day", "page": 2}},
    ],
    ids=["json", "form-over-query", "query-and-json"],
)
async def test_parameters_from_the_query_or_the_body(tmp_path, kwargs):
    response = await ask(file_app(tmp_path, ORG, page_size=4), ADMIN, PAIRS, **kwargs)
    assert response.status_code == 200, response.text
    report = response.json()["language_pair_usage_report"]
    assert (report["group_by"], report["aggregate_by"], report["next_page"]) == (["key"], "day", 3)
    assert report["language_pair_usages"] == BY_KEY_AND_DAY[4:8]


async def test_inclusive_reading_as_in_analytics(tmp_path):
    app = file_app(tmp_path, ORG, end_date_reading="inclusive")
    second = await pair_report(
        app, start_date="2025-03-02", end_date="2025-03-02", group_by="key", aggregate_by="day"
    )
    assert second["language_pair_usages"] == BY_KEY_AND_DAY[6:]
    assert second["end_date"] == "2025-03-02T00:00:00"
    instant = await pair_report(
        app, start_date="2025-03-01", end_date="2025-03-02T00:00:00", group_by="key"
    )
    text = [r["usage"]["text_translation_characters"] for r in instant["language_pair_usages"]]
    assert sum(text) == 1000 + 70  # an end with a time stays an instant: the 1st only
    # 366 covered days answered, 367 refused
    await assert_window_limit(app, ADMIN, PAIRS, "2024-03-01", "2025-03-01", "2025-03-02")


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (
            {"group_by": "key_and_day"},
            "Value for 'group_by' not supported. Allowed: '', 'key'.",
        ),
        (
            {"aggregate_by": "month"},
            "Value for 'aggregate_by' not supported. Allowed: '', 'period', 'day'.",
        ),
        ({"page": "0"}, "page must be a positive integer"),
        ({"page": "x"}, "page must be a positive integer"),
        ({"end_date": "2025-02-28"}, "end_date must be after start_date"),
        ({"start_date": "2025-03-01Z"}, "start_date must be a date"),
        ({"start_date": ""}, "Bad request. Parameter start_date is missing."),
    ],
)
async def test_bad_parameters_are_400(tmp_path, params, message):
    response = await ask(file_app(tmp_path, ORG), ADMIN, PAIRS, params={**WINDOW, **params})
    assert response.status_code == 400
    assert message in response.json()["message"]


@pytest.mark.parametrize(
    ("key", "code"),
    [(None, "authorization_failed"), ("nope", "authorization_failed"), (WEB, "admin_required")],
)
async def test_403_without_a_valid_administrator_key(tmp_path, key, code):
    assert_refused(await ask(file_app(tmp_path, ORG), key, PAIRS, params=WINDOW), 403, code)


def test_org_file_pairs_load(tmp_path):
    keys = load_org(tmp_path, ORG).keys
    assert [(p.source, p.target, p.weight, p.attributed) for p in keys[0].pairs] == [
        ("en", "ja", 3, True),
        ("en", "de", 1, True),
        ("en", "ja", 1, False),
        ("en", "en", 1, True),
    ]
    assert keys[2].pairs == ()


def test_pages_over_loopback_link_to_the_end(emulator_process):
    """The real command line: a month by key and day, page after page, until next_page is null."""
    end = emulator_process.today
    params = {
        "start_date": (end - dt.timedelta(days=30)).isoformat(),
        "end_date": end.isoformat(),
        "group_by": "key",
        "aggregate_by": "day",
    }
    headers = auth(emulator_process.admin_key)
    rows, page = [], 1
    while page:
        response = httpx.get(
            f"{emulator_process.base_url}{PAIRS}", params={**params, "page": page}, headers=headers
        )
        assert response.status_code == 200
        assert response.headers["X-Trace-ID"]
        report = response.json()["language_pair_usage_report"]
        assert len(report["language_pair_usages"]) == 500 or report["next_page"] is None
        rows += report["language_pair_usages"]
        page = report["next_page"]
    assert len(rows) > 500  # at least two pages
    assert len(
        {(r["usage_date"], r["source_language"], r["target_language"], r["api_key"]) for r in rows}
    ) == len(rows)
