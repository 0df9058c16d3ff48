"""Custom tags: `GET /v2/admin/analytics/custom-tags` against literal figures and the ledgers."""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict

import pytest
from support.answers import answer_of, ask, assert_refused, assert_window_limit, book_translation
from support.orgfiles import load_org, org_key, org_usage, organization
from support.servers import FIXED_TODAY, all_pages, file_app, small_config
from typer.testing import CliRunner

from emulator import EmulatorConfig, create_app
from emulator.__main__ import cli
from emulator.synthetic import generate

TAGS = "/v2/admin/analytics/custom-tags"
ADMIN, PLAIN = "tags-admin-0001-aaaa:adm", "tags-plain-0002-bbbb"
ADMIN_TAGS = """tags = [
    { tag = "checkout", share = 0.25 },
    { tag = "spring", share = 0.5, first = 2025-03-02, last = "2025-03-03" },
]"""
ORG = organization(
    org_key(ADMIN, "Admin", ADMIN_TAGS, admin=True),
    org_key(PLAIN, "Website", "[[keys.tags]]", 'tag = "checkout"', "share = 0.1"),
    org_usage(ADMIN, "2025-03-01", text=1000, improvement=40),
    org_usage(ADMIN, "2025-03-02", text=333, improvement=7),
    org_usage(PLAIN, "2025-03-02", text=2000, document=500),
    org_usage(ADMIN, "2025-03-04", text=10),
    org_usage(PLAIN, "2025-03-05", improvement=9),
)
WINDOW = {"start_date": "2025-03-01", "end_date": "2025-03-06"}


def tag(name: str, text: int, improvement: int, day: str | None = None) -> dict:
    item: dict = {"custom_tag": name}
    if day:
        item["usage_date"] = f"{day}T00:00:00Z"
    item["breakdown"] = {
        "total_characters": text + improvement,
        "text_translation_characters": text,
        "text_improvement_characters": improvement,
    }
    return item


# Per key-day and tag: floor(characters × share); the 5th's 9 × 0.1 rounds down to nothing.
BY_DAY = [
    tag("checkout", 250, 10, "2025-03-01"),
    tag("checkout", 83 + 200, 1, "2025-03-02"),  # 333 × 0.25 and 2000 × 0.1; documents untagged
    tag("spring", 166, 3, "2025-03-02"),
    tag("checkout", 2, 0, "2025-03-04"),  # spring ended on the 3rd
]


async def tag_report(app, key=ADMIN, **params) -> dict:
    return (await answer_of(app, key, TAGS, **params))["custom_tag_usage_report"]


async def tag_pages(app, **params) -> tuple[list[dict], int]:
    return await all_pages(app, TAGS, "usage", **params)


@pytest.mark.parametrize("aggregate_by", [None, "", "period"])
async def test_period_answer_is_literal(tmp_path, aggregate_by):
    params = WINDOW if aggregate_by is None else {**WINDOW, "aggregate_by": aggregate_by}
    assert await tag_report(file_app(tmp_path, ORG), **params) == {
        "aggregate_by": "period",
        "start_date": "2025-03-01T00:00:00",
        "end_date": "2025-03-06T00:00:00",
        "next_page": None,
        "usage": [tag("checkout", 535, 11), tag("spring", 166, 3)],
    }


async def test_day_answer_is_literal(tmp_path):
    body = await tag_report(file_app(tmp_path, ORG), **WINDOW, aggregate_by="day")
    assert body == {
        "aggregate_by": "day",
        "start_date": "2025-03-01T00:00:00",
        "end_date": "2025-03-06T00:00:00",
        "next_page": None,
        "usage": BY_DAY,
    }


async def test_pages_hold_page_size_rows_and_link_on(tmp_path):
    app = file_app(tmp_path, ORG, page_size=3)
    first = await tag_report(app, **WINDOW, aggregate_by="day")
    second = await tag_report(app, **WINDOW, aggregate_by="day", page="2")
    assert (first["usage"], first["next_page"]) == (BY_DAY[:3], 2)
    assert (second["usage"], second["next_page"]) == (BY_DAY[3:], None)
    beyond = await tag_report(app, **WINDOW, aggregate_by="day", page="3")
    assert (beyond["usage"], beyond["next_page"]) == ([], None)


async def test_range_is_half_open_over_day_midnights(tmp_path):
    app = file_app(tmp_path, ORG)
    body = await tag_report(
        app, start_date="2025-03-01T00:00:01", end_date="2025-03-04", aggregate_by="day"
    )
    assert body["usage"] == BY_DAY[1:3]
    assert body["start_date"] == "2025-03-01T00:00:01"


def ledger_sums(rows, by_day: bool) -> dict:
    sums: dict = defaultdict(lambda: [0, 0])
    for r in rows:
        index = (r.usage_date.isoformat(), r.custom_tag) if by_day else r.custom_tag
        sums[index][0] += r.text_translation_characters
        sums[index][1] += r.text_improvement_characters
    return {index: tuple(pair) for index, pair in sums.items()}


def answer_sums(rows: list[dict], by_day: bool) -> dict:
    def index(row):
        return (row["usage_date"][:10], row["custom_tag"]) if by_day else row["custom_tag"]

    return {
        index(r): (
            r["breakdown"]["text_translation_characters"],
            r["breakdown"]["text_improvement_characters"],
        )
        for r in rows
    }


@pytest.mark.parametrize("aggregate_by", ["day", "period"])
async def test_pages_together_equal_the_tag_ledger(aggregate_by):
    app = create_app(small_config(page_size=25))
    rows, pages = await tag_pages(
        app, start_date="2025-04-01", end_date="2025-06-01", aggregate_by=aggregate_by
    )
    ledger = app.state.emulator.tag_ledger(dt.date(2025, 4, 1), dt.date(2025, 5, 31))
    by_day = aggregate_by == "day"
    assert answer_sums(rows, by_day) == ledger_sums(ledger, by_day)
    assert len(answer_sums(rows, by_day)) == len(rows)  # no row repeated across pages
    assert pages == -(-len(rows) // 25) and (pages > 3 or not by_day)
    order = [(r.get("usage_date", ""), r["custom_tag"]) for r in rows]
    assert order == sorted(order)
    assert all(r["breakdown"]["total_characters"] > 0 for r in rows)


async def test_a_year_by_day_of_the_demo_organization_takes_several_pages():
    app = create_app(EmulatorConfig(today=FIXED_TODAY))
    rows, pages = await tag_pages(
        app, start_date="2024-06-01", end_date="2025-06-01", aggregate_by="day"
    )
    assert pages >= 4
    ledger = app.state.emulator.tag_ledger(dt.date(2024, 6, 1), dt.date(2025, 5, 31))
    assert answer_sums(rows, True) == ledger_sums(ledger, True)


async def test_tags_never_exceed_the_organization_s_text_characters():
    """Per day and kind, all tags together stay within the organization's text characters, and
    per key-day within the key's; a good part of the text is tagged, not all of it."""
    app = create_app(EmulatorConfig(today=FIXED_TODAY))
    emu = app.state.emulator
    start, end = dt.date(2024, 6, 1), dt.date(2025, 5, 31)
    rows, _ = await tag_pages(
        app, start_date=start.isoformat(), end_date="2025-06-01", aggregate_by="day"
    )
    tagged: dict = defaultdict(lambda: [0, 0])
    for row in rows:
        tagged[row["usage_date"][:10]][0] += row["breakdown"]["text_translation_characters"]
        tagged[row["usage_date"][:10]][1] += row["breakdown"]["text_improvement_characters"]
    ledger = emu.ledger(start, end)
    text: dict = defaultdict(lambda: [0, 0])
    for r in ledger:
        text[r.usage_date.isoformat()][0] += r.text_translation_characters
        text[r.usage_date.isoformat()][1] += r.text_improvement_characters
    assert set(tagged) <= set(text)
    for day, (translation, improvement) in tagged.items():
        assert translation <= text[day][0] and improvement <= text[day][1], day
    per_key_day = ledger_by_key_day(emu.tag_ledger(start, end))
    for r in ledger:
        translation, improvement = per_key_day.get((r.usage_date, r.api_key), (0, 0))
        assert translation <= r.text_translation_characters
        assert improvement <= r.text_improvement_characters
    share = sum(sum(v) for v in tagged.values()) / sum(sum(v) for v in text.values())
    assert 0.2 < share < 0.6


def ledger_by_key_day(rows) -> dict:
    sums: dict = defaultdict(lambda: (0, 0))
    for r in rows:
        text, improvement = sums[(r.usage_date, r.api_key)]
        sums[(r.usage_date, r.api_key)] = (
            text + r.text_translation_characters,
            improvement + r.text_improvement_characters,
        )
    return sums


def test_synthetic_tags_span_keys_and_leave_keys_untagged():
    emu = create_app(EmulatorConfig(today=FIXED_TODAY)).state.emulator
    rows = emu.tag_ledger(dt.date(2022, 6, 1), dt.date(2025, 5, 31))
    keys_per_tag = Counter(tag for tag, _key in {(r.custom_tag, r.api_key) for r in rows})
    assert len(keys_per_tag) >= 8
    assert sum(count > 1 for count in keys_per_tag.values()) >= 3
    tagged_keys = {r.api_key for r in rows}
    assert 0 < len(tagged_keys) < len(emu.keys)
    tags_per_key = Counter(key for _tag, key in {(r.custom_tag, r.api_key) for r in rows})
    assert max(tags_per_key.values()) >= 2
    # The launch campaign's tag runs for its 90 days from the launch, half-way through.
    launch = {r.usage_date for r in rows if r.custom_tag == "launch-campaign"}
    assert dt.date(2023, 12, 1) <= min(launch) and max(launch) <= dt.date(2024, 3, 31)
    assert (max(launch) - min(launch)).days <= 89


async def test_a_translation_booked_today_carries_the_key_s_tags(tmp_path):
    app = file_app(tmp_path, ORG, today=dt.date(2025, 3, 10))
    await book_translation(app, ADMIN, "Guten Morgen")
    [row] = app.state.emulator.tag_ledger(dt.date(2025, 3, 10), dt.date(2025, 3, 10))
    assert (row.custom_tag, row.text_translation_characters) == ("checkout", 3)  # 12 × 0.25


async def test_a_translation_booked_after_a_read_shows_when_read_again(tmp_path):
    """A window's rows are kept for its pages, never past a change to the ledger."""
    app = file_app(tmp_path, ORG, today=dt.date(2025, 3, 4))
    params = {**WINDOW, "aggregate_by": "day"}
    assert (await tag_report(app, **params))["usage"] == BY_DAY
    await book_translation(app, ADMIN, "Guten Morgen")
    # The 4th's 10 + 12 characters: floor(22 × 0.25) for checkout.
    assert (await tag_report(app, **params))["usage"] == [
        *BY_DAY[:3],
        tag("checkout", 5, 0, "2025-03-04"),
    ]


async def test_366_days_accepted_367_rejected_as_in_analytics(tmp_path):
    app = file_app(tmp_path, ORG)
    await assert_window_limit(app, ADMIN, TAGS, "2024-01-01", "2025-01-01", "2025-01-01T00:00:01")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"params": {**WINDOW, "aggregate_by": "day", "page": "2"}},
        {"json": {**WINDOW, "aggregate_by": "day", "page": 2}},
        {
            "content": b"start_date=2025-03-01&end_date=2025-03-06&aggregate_by=day&page=2",
            "headers": {"Content-Type": "application/x-www-form-urlencoded"},
        },
        {  # the body's page wins over the query's
            "params": {"start_date": "2025-03-01", "page": "1"},
            "json": {"end_date": "2025-03-06", "aggregate_by": "day", "page": 2},
        },
    ],
    ids=["query", "json", "form", "query-and-body"],
)
async def test_parameters_from_the_query_or_the_body(tmp_path, kwargs):
    response = await ask(file_app(tmp_path, ORG, page_size=3), ADMIN, TAGS, **kwargs)
    assert response.status_code == 200, response.text
    report = response.json()["custom_tag_usage_report"]
    assert (report["usage"], report["next_page"]) == (BY_DAY[3:], None)


async def test_an_empty_page_is_the_first_page(tmp_path):
    app = file_app(tmp_path, ORG, page_size=3)
    empty = await tag_report(app, **WINDOW, aggregate_by="day", page="")
    assert (empty["usage"], empty["next_page"]) == (BY_DAY[:3], 2)


@pytest.mark.parametrize(
    ("kwargs", "status", "message"),
    [
        (
            {"json": {**WINDOW, "page": True}},
            400,
            "Bad request. Parameter page must be an integer.",
        ),
        ({"json": {**WINDOW, "page": 0}}, 400, "page must be a positive integer"),
        ({"json": {"start_date": "2025-03-01"}}, 400, "Parameter end_date is missing."),
        (
            {"content": b"start_date: 2025-03-01", "headers": {"Content-Type": "text/yaml"}},
            415,
            "Unsupported media type",
        ),
    ],
)
async def test_body_parameters_obey_the_common_rules(tmp_path, kwargs, status, message):
    response = await ask(file_app(tmp_path, ORG), ADMIN, TAGS, **kwargs)
    assert response.status_code == status
    assert message in response.json()["message"]


async def test_inclusive_reading_as_in_analytics(tmp_path):
    app = file_app(tmp_path, ORG, end_date_reading="inclusive")
    one_day = await tag_report(app, start_date="2025-03-04", end_date="2025-03-04")
    assert one_day["usage"] == [tag("checkout", 2, 0)]
    assert (one_day["start_date"], one_day["end_date"]) == (
        "2025-03-04T00:00:00",
        "2025-03-04T00:00:00",
    )
    instant = await tag_report(app, start_date="2025-03-01", end_date="2025-03-04T00:00:00")
    assert instant["usage"] == [tag("checkout", 250 + 283, 11), tag("spring", 166, 3)]
    # 366 covered days answered, 367 refused
    await assert_window_limit(app, ADMIN, TAGS, "2024-03-01", "2025-03-01", "2025-03-02")


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (
            {**WINDOW, "aggregate_by": "week"},
            "Value for 'aggregate_by' not supported. Allowed: '', 'period', 'day'.",
        ),
        ({**WINDOW, "page": "0"}, None),
        ({**WINDOW, "page": "-1"}, None),
        ({**WINDOW, "page": "two"}, None),
        ({**WINDOW, "page": "1.5"}, None),
        ({**WINDOW, "page": "12345678901234567890"}, None),
        ({"start_date": "2025-03-06", "end_date": "2025-03-01"}, None),
        ({"start_date": "2025-03-01"}, None),
        ({"start_date": "03/01/2025", "end_date": "2025-03-06"}, None),
    ],
)
async def test_bad_parameters_are_400(tmp_path, params, message):
    response = await ask(file_app(tmp_path, ORG), ADMIN, TAGS, params=params)
    assert response.status_code == 400
    if message:
        assert response.json()["message"] == message
    else:
        assert response.json()["message"].startswith("Bad request")
    if "page" in params:
        assert "page must be a positive integer" in response.json()["message"]


@pytest.mark.parametrize(
    ("key", "code"),
    [
        (None, "authorization_failed"),
        ("no-such-key", "authorization_failed"),
        (PLAIN, "admin_required"),
    ],
)
async def test_403_without_a_valid_administrator_key(tmp_path, key, code):
    assert_refused(await ask(file_app(tmp_path, ORG), key, TAGS, params=WINDOW), 403, code)


def test_org_file_tags_load(tmp_path):
    keys = load_org(tmp_path, ORG).keys
    assert [(t.tag, t.share, t.first, t.last) for t in keys[0].tags] == [
        ("checkout", 0.25, None, None),
        ("spring", 0.5, dt.date(2025, 3, 2), dt.date(2025, 3, 3)),
    ]
    assert [t.tag for t in keys[1].tags] == ["checkout"]


# --- many tags (`EmulatorConfig.tags`): every tag used, a long tail, the same key-day ledger
# whatever the number of tags, and tags within each key-day's text.

MANY_TODAY = dt.date(2025, 6, 1)
KEYS, DAYS = 10, 400
FIRST, LAST = MANY_TODAY - dt.timedelta(days=DAYS), MANY_TODAY - dt.timedelta(days=1)


def emulator(tags: int | None, keys: int = KEYS, days: int = DAYS):
    return create_app(
        EmulatorConfig(keys=keys, days=days, today=MANY_TODAY, tags=tags)
    ).state.emulator


@pytest.fixture(scope="module")
def many():
    served = emulator(2_000)
    yield served
    served.store.close()


@pytest.fixture(scope="module")
def few():
    served = emulator(100)
    yield served
    served.store.close()


def tag_days(ledger) -> dict[str, set[dt.date]]:
    used: dict[str, set[dt.date]] = defaultdict(set)
    for row in ledger:
        used[row.custom_tag].add(row.usage_date)
    return used


def test_every_tag_is_used_and_named_by_the_report(many):
    used = tag_days(many.tag_ledger(FIRST, LAST))
    assert len(used) == 2_000
    assert {"customer-0001", "customer-0134", "doc-0135", "doc-2000"} <= set(used)
    # The whole history's report by period: one row per tag, over pages of 500.
    report = many.store.tag_usage(FIRST, MANY_TODAY, by_day=False, limit=10_000, offset=0)
    assert sorted(tag for _, tag, *_ in report) == sorted(used)


def test_a_few_hundred_tags_a_day_most_tags_seldom(many):
    used = tag_days(many.tag_ledger(FIRST, LAST))
    days_used = sorted((len(days) for days in used.values()), reverse=True)
    # Customers (3 × √2,000 = 134) are used on most days, documents on a few.
    assert min(days_used[:100]) > 100
    assert sum(d <= 5 for d in days_used) > 1_500
    per_day = Counter(day for days in used.values() for day in days)
    assert 50 < sorted(per_day.values())[len(per_day) // 2] < 400


def test_the_biggest_tags_carry_most_characters(many):
    totals = Counter()
    for row in many.tag_ledger(FIRST, LAST):
        totals[row.custom_tag] += row.text_translation_characters + row.text_improvement_characters
    ranked = sorted(totals.values(), reverse=True)
    assert sum(ranked[:100]) > 0.7 * sum(ranked)  # 5% of the tags


def test_usage_is_the_same_whatever_the_number_of_tags(many, few):
    dozen = emulator(None)
    try:
        assert many.ledger(FIRST, LAST) == few.ledger(FIRST, LAST) == dozen.ledger(FIRST, LAST)
    finally:
        dozen.store.close()
    assert len(tag_days(few.tag_ledger(FIRST, LAST))) == 100


@pytest.mark.parametrize("served", ["many", "few"])
def test_tags_of_a_key_day_stay_within_its_text(served, request):
    served = request.getfixturevalue(served)
    text = {
        (row.usage_date, row.api_key): (
            row.text_translation_characters,
            row.text_improvement_characters,
        )
        for row in served.ledger(FIRST, LAST)
    }
    tagged: Counter = Counter()
    improved: Counter = Counter()
    for row in served.tag_ledger(FIRST, LAST):
        tagged[row.usage_date, row.api_key] += row.text_translation_characters
        improved[row.usage_date, row.api_key] += row.text_improvement_characters
    assert tagged and all(tagged[day] <= text[day][0] for day in tagged)
    assert all(improved[day] <= text[day][1] for day in improved)


def test_the_dozen_tags_stay_the_default():
    keys = generate(42, KEYS, DAYS, MANY_TODAY).keys
    assert keys == generate(42, KEYS, DAYS, MANY_TODAY, n_tags=None).keys
    assert len({share.tag for key in keys for share in key.tags}) <= 12


def test_too_many_tags_for_the_text_or_the_limit_is_refused():
    with pytest.raises(ValueError, match="1 to 100,000 tags"):
        generate(42, KEYS, DAYS, MANY_TODAY, n_tags=0)
    with pytest.raises(ValueError, match="too little text"):
        generate(42, 3, 2, MANY_TODAY, n_tags=100_000)


def test_a_database_file_is_loaded_again_for_another_number_of_tags(tmp_path):
    counts = []
    for tags in (None, 500, None):
        config = EmulatorConfig(
            keys=KEYS, days=DAYS, today=MANY_TODAY, tags=tags, db=tmp_path / "f"
        )
        served = create_app(config).state.emulator
        counts.append(len({row.custom_tag for row in served.tag_ledger(FIRST, LAST)}))
        served.store.close()
    assert counts[1] == 500 and counts[0] == counts[2] <= 12


def test_the_command_line_refuses_a_bad_number_of_tags():
    result = CliRunner().invoke(cli, ["--tags", "0", "--port", "1"])
    assert result.exit_code == 2
    assert "1 to 100,000 tags" in result.output
