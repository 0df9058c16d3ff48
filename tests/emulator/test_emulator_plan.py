"""The plan and `GET /v2/usage`: billing periods, counts from the ledger, free versus paid."""

from __future__ import annotations

import datetime as dt

import httpx
import pytest
from support.answers import answer_of, ask, assert_refused
from support.orgfiles import load_org, org_file_error, org_key, org_usage, organization
from support.servers import auth, client_for, file_app

from emulator import EmulatorConfig, create_app
from emulator.plan import Plan

USAGE = "/v2/usage"
FORM = "application/x-www-form-urlencoded"
ADMIN, PLAIN = "plan-admin-0001-aaaa:adm", "plan-plain-0002-bbbb"
KEYS = organization(org_key(ADMIN, "Admin", admin=True), org_key(PLAIN, "Website"))
PAID = """
[plan]
billing_day = 13
character_limit = 2000000
speech_to_text_minutes_limit = 300
speech_to_speech_minutes_limit = 120
"""
# The period holding 2025-03-20 is [2025-03-13, 2025-04-13): the 12th and the 25th are outside
# it (before the period, after today), the 20th is today.
USAGE_ROWS = organization(
    org_usage(ADMIN, "2025-03-12", text=999, stt=9),
    org_usage(ADMIN, "2025-03-13", text=100, document=20, improvement=5, stt=1.2, sts=0.5),
    org_usage(PLAIN, "2025-03-19", text=1000, improvement=300, stt=2.0),
    org_usage(ADMIN, "2025-03-20", text=7, sts=1.0),
    org_usage(PLAIN, "2025-03-25", text=5000),
)
TODAY = dt.date(2025, 3, 20)


def org_app(tmp_path, text: str):
    return file_app(tmp_path, text, today=TODAY)


async def usage_of(app, key: str) -> dict:
    return await answer_of(app, key, USAGE)


async def test_paid_plan_answer_counts_the_period_up_to_today(tmp_path):
    app = org_app(tmp_path, KEYS + PAID + USAGE_ROWS)
    assert await usage_of(app, ADMIN) == {
        "character_count": 1107 + 20 + 305,
        "character_limit": 2_000_000,
        "products": [
            {
                "product_type": "write",
                "billing_unit": "characters",
                "api_key_unit_count": 5,
                "account_unit_count": 305,
                "api_key_character_count": 5,
                "character_count": 305,
            },
            {
                "product_type": "translate",
                "billing_unit": "characters",
                "api_key_unit_count": 127,
                "account_unit_count": 1127,
                "api_key_character_count": 127,
                "character_count": 1127,
            },
            {
                "product_type": "speechToText",
                "billing_unit": "minutes",
                "api_key_unit_count": 2,  # 1.2 minutes, billed whole
                "account_unit_count": 4,  # 3.2
                "api_key_character_count": 0,
                "character_count": 0,
            },
            {
                "product_type": "speechToSpeech",
                "billing_unit": "minutes",
                "api_key_unit_count": 2,  # 1.5
                "account_unit_count": 2,
                "api_key_character_count": 0,
                "character_count": 0,
            },
        ],
        "api_key_character_count": 132,
        "api_key_character_limit": 2_000_000,
        "speech_to_text_milliseconds_count": 0,
        "speech_to_text_milliseconds_limit": 0,
        "speech_to_text_minutes_count": 4,
        "speech_to_text_minutes_limit": 300,
        "speech_to_speech_minutes_count": 2,
        "speech_to_speech_minutes_limit": 120,
        "start_time": "2025-03-13T00:00:00Z",
        "end_time": "2025-04-13T00:00:00Z",
    }


async def test_every_key_reads_its_own_counts_and_the_account_s(tmp_path):
    app = org_app(tmp_path, KEYS + PAID + USAGE_ROWS)
    body = await usage_of(app, PLAIN)  # not an administrator: the operation is for every key
    assert body["character_count"] == 1432
    assert body["api_key_character_count"] == 1300
    assert [p["api_key_unit_count"] for p in body["products"]] == [300, 1000, 2, 0]


async def test_a_translation_booked_today_counts_at_once(tmp_path):
    app = org_app(tmp_path, KEYS + PAID + USAGE_ROWS)
    async with client_for(app, PLAIN) as client:
        before = (await client.get(USAGE)).json()
        booked = await client.post(
            "/v2/translate", json={"text": ["Hallo"], "target_lang": "EN-GB"}
        )
        assert booked.status_code == 200
        after = (await client.get(USAGE)).json()
    assert after["character_count"] == before["character_count"] + 5
    assert after["api_key_character_count"] == before["api_key_character_count"] + 5


async def test_free_plan_answers_only_the_character_fields(tmp_path):
    app = org_app(tmp_path, KEYS + "[plan]\npro = false\nbilling_day = 13\n" + USAGE_ROWS)
    assert await usage_of(app, ADMIN) == {"character_count": 1432, "character_limit": 500_000}


async def test_free_plan_with_its_own_limit(tmp_path):
    app = org_app(tmp_path, KEYS + "[plan]\npro = false\ncharacter_limit = 100000\n")
    assert await usage_of(app, ADMIN) == {"character_count": 0, "character_limit": 100_000}


async def test_file_without_a_plan_is_paid_from_the_first_without_cost_control(tmp_path):
    body = await usage_of(org_app(tmp_path, KEYS + USAGE_ROWS), ADMIN)
    assert body["character_limit"] == body["api_key_character_limit"] == 1_000_000_000_000
    assert (body["start_time"], body["end_time"]) == (
        "2025-03-01T00:00:00Z",
        "2025-04-01T00:00:00Z",
    )
    assert body["character_count"] == 999 + 1432
    assert (body["speech_to_text_minutes_limit"], body["speech_to_speech_minutes_limit"]) == (
        600,
        600,
    )


async def test_usage_reads_its_request_like_every_operation(tmp_path):
    """No parameters, so none changes the answer; a body still obeys the common rules."""
    app = org_app(tmp_path, KEYS + PAID + USAGE_ROWS)
    expected = await usage_of(app, ADMIN)
    async with client_for(app, ADMIN) as client:
        with_query = await client.get(USAGE, params={"start_date": "2025-01-01"})
        with_json = await client.request("GET", USAGE, json={"anything": ["ignored"]})
        with_form = await client.request("GET", USAGE, data={"type": "target"})
        with_yaml = await client.request(
            "GET", USAGE, content=b"a: 1", headers={"Content-Type": "text/yaml"}
        )
        too_large = await client.request(
            "GET", USAGE, content=b"a=" + b"x" * 1024 * 1024, headers={"Content-Type": FORM}
        )
        not_json = await client.request(
            "GET", USAGE, content=b"[", headers={"Content-Type": "application/json"}
        )
    assert [r.json() for r in (with_query, with_json, with_form)] == [expected] * 3
    assert (with_yaml.status_code, with_yaml.json()["code"]) == (415, "unsupported_media_type")
    assert (too_large.status_code, too_large.json()["code"]) == (413, "payload_too_large")
    assert not_json.status_code == 400


@pytest.mark.parametrize(
    "headers", [{}, {"Authorization": "Service-Auth-Key nope"}, {"Authorization": "Bearer x"}]
)
async def test_usage_needs_a_valid_key(tmp_path, headers):
    response = await ask(org_app(tmp_path, KEYS), None, USAGE, headers=headers)
    assert_refused(response, 403, "authorization_failed")


@pytest.mark.parametrize(
    ("billing_day", "today", "period"),
    [
        (13, "2025-06-01", ("2025-05-13", "2025-06-13")),
        (13, "2025-06-13", ("2025-06-13", "2025-07-13")),
        (13, "2025-06-12", ("2025-05-13", "2025-06-13")),
        (15, "2025-01-10", ("2024-12-15", "2025-01-15")),
        (1, "2025-12-31", ("2025-12-01", "2026-01-01")),
        (31, "2025-02-28", ("2025-02-28", "2025-03-31")),  # short months start on their last day
        (31, "2025-03-15", ("2025-02-28", "2025-03-31")),
        (31, "2025-04-30", ("2025-04-30", "2025-05-31")),
        (30, "2024-02-29", ("2024-02-29", "2024-03-30")),
    ],
)
def test_billing_periods(billing_day, today, period):
    start, end = Plan(billing_day=billing_day).period(dt.date.fromisoformat(today))
    assert (start.isoformat(), end.isoformat()) == period


def test_plan_file_defaults_and_fields(tmp_path):
    assert load_org(tmp_path, KEYS + PAID).plan == Plan(
        pro=True,
        billing_day=13,
        character_limit=2_000_000,
        speech_to_text_minutes_limit=300,
        speech_to_speech_minutes_limit=120,
    )
    assert load_org(tmp_path, KEYS).plan == Plan()


@pytest.mark.parametrize(
    ("plan", "fragment"),
    [
        ("[plan]\nbilling_day = 0\n", "billing_day must be an integer from 1 to 31"),
        ("[plan]\nbilling_day = 32\n", "billing_day must be an integer from 1 to 31"),
        ("[plan]\nbilling_day = '5'\n", "billing_day must be an integer"),
        ("[plan]\ncharacter_limit = -1\n", "character_limit must be an integer from 0 or more"),
        ("[plan]\ncharacter_limit = 1.5\n", "character_limit must be an integer"),
        ("[plan]\nspeech_to_text_minutes_limit = true\n", "speech_to_text_minutes_limit"),
        ("[plan]\npro = 'yes'\n", "pro must be true or false"),
        ("[plan]\nseats = 3\n", "unknown field"),
        ("plan = 3\n", "must be a table ([plan])"),
    ],
)
def test_plan_file_errors(tmp_path, plan, fragment):
    message = org_file_error(tmp_path, plan + KEYS)
    assert fragment in message and "plan" in message


async def test_synthetic_org_is_paid_and_part_way_through_its_limit():
    """The default demo organization: counts are the ledger's, the limit leaves headroom."""
    today = dt.date(2025, 6, 20)
    app = create_app(EmulatorConfig(today=today))
    emu = app.state.emulator
    body = await usage_of(app, emu.admin_key)
    # The history began on 2022-06-21, so periods start on the 21st: this one on May 21.
    assert today - dt.timedelta(days=1095) == dt.date(2022, 6, 21)
    start = dt.date(2025, 5, 21)
    assert body["start_time"] == f"{start.isoformat()}T00:00:00Z"
    rows = emu.ledger(start, today)
    characters = sum(
        r.text_translation_characters
        + r.document_translation_characters
        + r.text_improvement_characters
        for r in rows
    )
    assert body["character_count"] == characters > 0
    assert body["speech_to_text_minutes_count"] > 0
    assert body["speech_to_speech_minutes_count"] > 0
    days_in = (today - start).days
    assert 0.2 < body["character_count"] / body["character_limit"] * 30 / days_in < 1
    assert body["speech_to_text_minutes_count"] < body["speech_to_text_minutes_limit"]


def test_usage_over_loopback(emulator_process):
    response = httpx.get(
        f"{emulator_process.base_url}{USAGE}", headers=auth(emulator_process.admin_key)
    )
    assert response.status_code == 200
    assert response.headers["X-Trace-ID"]
    body = response.json()
    assert body["character_count"] <= body["character_limit"]
    assert [p["product_type"] for p in body["products"]] == [
        "write",
        "translate",
        "speechToText",
        "speechToSpeech",
    ]
