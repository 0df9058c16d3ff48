"""The plan: `GET /v2/usage` decoded as published, and the snapshot of the billing period (used,
limits, the day a limit is reached) against hand-made series and the emulator's plan and ledger.
"""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, timedelta

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from support.builders import (
    FIRST,
    PLAN_ADMIN,
    PLAN_TODAY,
    asgi_client,
    ledger_totals,
    plan_org,
    usage_frame,
)
from support.servers import FIXED_TODAY, file_app, small_config

from analytics.capacity.budgets.billing import (
    Allowance,
    BillingPeriod,
    PlanSnapshot,
    plan_snapshot,
    usage_range,
)
from analytics.cost.priced import PricesInForce
from analytics.cost.prices import parse_pricing
from analytics.service.client import Policy
from analytics.service.errors import InvalidResponseError, ServerError
from analytics.service.models import PlanUsage, ProductUsage
from analytics.usage.metrics import MINUTES, share_text
from analytics.usage.pipeline import fetch_usage
from analytics.usage.tables import Kpi
from emulator import create_app

pytestmark = pytest.mark.usefixtures("instant_retries")

# The published interface's two examples of the answer, written out as they are published.
PUBLISHED_PRO = b"""{
  "character_count": 5947223,
  "character_limit": 1000000000000,
  "products": [
    {"product_type": "write", "billing_unit": "characters", "api_key_unit_count": 0,
     "account_unit_count": 5643, "api_key_character_count": 0, "character_count": 5643},
    {"product_type": "translate", "billing_unit": "characters", "api_key_unit_count": 636,
     "account_unit_count": 5941580, "api_key_character_count": 636, "character_count": 5941580},
    {"product_type": "speechToText", "billing_unit": "minutes", "api_key_unit_count": 30,
     "account_unit_count": 30, "api_key_character_count": 0, "character_count": 0},
    {"product_type": "speechToSpeech", "billing_unit": "minutes", "api_key_unit_count": 12,
     "account_unit_count": 12, "api_key_character_count": 0, "character_count": 0}
  ],
  "api_key_character_count": 636,
  "api_key_character_limit": 1000000000000,
  "speech_to_text_milliseconds_count": 0,
  "speech_to_text_milliseconds_limit": 0,
  "speech_to_text_minutes_count": 30,
  "speech_to_text_minutes_limit": 600,
  "speech_to_speech_minutes_count": 12,
  "speech_to_speech_minutes_limit": 600,
  "start_time": "2025-05-13T09:18:42Z",
  "end_time": "2025-06-13T09:18:42Z"
}"""
PUBLISHED_FREE = b'{"character_count": 180118, "character_limit": 1250000}'


def serving(body: bytes, status: int = 200) -> Starlette:
    """A service answering every `GET /v2/usage` with `body`, trace id t-7."""

    async def handler(request: Request) -> Response:
        return Response(body, status, media_type="application/json", headers={"X-Trace-ID": "t-7"})

    return Starlette(routes=[Route("/v2/usage", handler)])


def answer_of(body: bytes) -> PlanUsage:
    client, transport = asgi_client(serving(body), "any-key")
    with client:
        answer = client.usage()
    assert [(r.method, r.url.path) for r in transport.requests] == [("GET", "/v2/usage")]
    return answer


# -- the answer -----------------------------------------------------------------------------------


def test_the_published_pro_example_decodes_exactly():
    assert answer_of(PUBLISHED_PRO) == PlanUsage(
        character_count=5947223,
        character_limit=1000000000000,
        products=[
            ProductUsage("write", "characters", api_key_unit_count=0, account_unit_count=5643),
            ProductUsage("translate", "characters", 636, 5941580),
            ProductUsage("speechToText", "minutes", 30, 30),
            ProductUsage("speechToSpeech", "minutes", 12, 12),
        ],
        api_key_character_count=636,
        api_key_character_limit=1000000000000,
        speech_to_text_minutes_count=30,
        speech_to_text_minutes_limit=600,
        speech_to_speech_minutes_count=12,
        speech_to_speech_minutes_limit=600,
        start_time=datetime(2025, 5, 13, 9, 18, 42, tzinfo=UTC),
        end_time=datetime(2025, 6, 13, 9, 18, 42, tzinfo=UTC),
    )


def test_the_published_free_example_has_no_paid_only_fields():
    answer = answer_of(PUBLISHED_FREE)
    assert answer == PlanUsage(character_count=180118, character_limit=1250000)
    assert answer.products is None and answer.speech_to_text_minutes_count is None
    assert answer.start_time is None and answer.end_time is None


def test_absent_counts_are_zero_absent_limits_none_and_unknown_fields_ignored():
    assert answer_of(b"{}") == PlanUsage(character_count=0, character_limit=None)
    answer = answer_of(
        b'{"character_count": 5, "currency": "EUR", "products": [{"product_type": "voice",'
        b' "billing_unit": "sessions", "future": 1}], "start_time": "2025-05-13T00:00:00"}'
    )
    assert answer.character_count == 5 and answer.character_limit is None
    assert answer.products == [ProductUsage("voice", "sessions", 0, 0)]
    assert answer.start_time == datetime(2025, 5, 13)  # no offset: read as UTC by the snapshot


@pytest.mark.parametrize(
    "body",
    [
        b'{"character_count": "lots"}',
        b'{"character_count": -1}',
        b'{"character_limit": 1.5}',
        b'{"start_time": "the 13th"}',
        b'{"products": [{"billing_unit": "characters"}]}',
        b"[]",
        b"<html>Gateway login</html>",
    ],
)
def test_wrong_shapes_are_invalid_responses_naming_status_and_trace_id(body):
    with pytest.raises(InvalidResponseError) as caught:
        answer_of(body)
    assert caught.value.trace_id == "t-7"
    assert str(caught.value).startswith("Invalid response: GET /v2/usage answered 200: ")
    assert "(trace id t-7)" in str(caught.value)


def test_usage_is_retried_like_every_get(emulator_app):
    emulator_app.state.emulator.faults.fault_503_rate = 1.0
    client, transport = asgi_client(emulator_app, policy=Policy(max_attempts=3))
    with client, pytest.raises(ServerError):
        client.usage()
    assert len(transport.paths("/v2/usage")) == 3


# -- the projection on hand-made series ----------------------------------------------------------

MARCH = PlanUsage(
    start_time=datetime(2025, 3, 1, tzinfo=UTC), end_time=datetime(2025, 4, 1, tzinfo=UTC)
)
ELEVENTH = date(2025, 3, 11)  # ten closed days of March, and today


@pytest.fixture(scope="module")
def flat():
    """100 characters and half a minute every day from 1 January to 10 March 2025."""
    days = 31 + 28 + 10
    return usage_frame({"aaaa****0001": [100.0] * days}, minutes={"aaaa****0001": [0.5] * days})


@pytest.mark.parametrize(
    ("used", "limit", "reached", "projected", "outlook"),
    [
        # Closed days 1,000; today is at least 1,100 (100 expected): 2,000 on the 20th.
        (1050, 2000, date(2025, 3, 20), 3100, "projected"),
        # The service already counts more than today's run rate: the path starts there.
        (1500, 2000, date(2025, 3, 16), 3500, "projected"),
        (1050, 5000, None, 3100, "not within this billing period"),
        (1050, 3100, date(2025, 3, 31), 3100, "projected"),  # on the period's last day
        (2500, 2000, ELEVENTH, 4500, "reached"),  # reached today, per the service's count
        (1050, None, None, 3100, "no limit"),
    ],
)
def test_the_day_the_limit_is_reached(flat, used, limit, reached, projected, outlook):
    answer = PlanUsage(
        character_count=used,
        character_limit=limit,
        start_time=MARCH.start_time,
        end_time=MARCH.end_time,
    )
    snapshot = plan_snapshot(answer, flat, ELEVENTH, FIRST)
    assert snapshot.period == BillingPeriod(date(2025, 3, 1), date(2025, 3, 31))
    [characters] = snapshot.allowances
    assert (characters.reached, characters.outlook) == (reached, outlook)
    assert characters.projected == pytest.approx(projected)


def test_minutes_are_projected_from_their_own_series(flat):
    answer = PlanUsage(
        speech_to_text_minutes_count=6,  # 5 closed minutes, and 0.5 rounded up today
        speech_to_text_minutes_limit=14,
        start_time=MARCH.start_time,
        end_time=MARCH.end_time,
    )
    minutes = plan_snapshot(answer, flat, ELEVENTH, FIRST).allowances[1]
    # 6 today, then half a minute a day: 14 on the 27th; 16 by the 31st.
    assert (minutes.measure, minutes.reached, minutes.projected) == (
        "speech_to_text_minutes",
        date(2025, 3, 27),
        16,
    )


def test_a_period_ending_within_a_day_keeps_that_day():
    answer = answer_of(PUBLISHED_PRO)
    snapshot = plan_snapshot(answer, usage_frame({}), date(2025, 6, 1), date(2025, 3, 1))
    assert snapshot.period == BillingPeriod(date(2025, 5, 13), date(2025, 6, 13))
    assert snapshot.period_text == "2025-05-13 – 2025-06-13 (UTC)"
    characters, to_text, to_speech = snapshot.allowances
    assert (characters.limit, characters.outlook) == (None, "no limit")  # 10^12: no cost control
    assert (to_text.used, to_text.limit, to_speech.used, to_speech.limit) == (30, 600, 12, 600)
    # No speech-to-speech on any day: nothing projected beyond what is used.
    assert (to_speech.projected, to_speech.outlook) == (12, "not within this billing period")


# -- how an allowance reads ----------------------------------------------------------------------


def test_allowance_texts():
    projected = Allowance("characters", 1_234_567, 2_000_000, 2.5e6, date(2025, 6, 20))
    assert projected.usage_text == "1,234,567 of 2,000,000 (61.7\u202f%)"
    assert (projected.limit_text, projected.share_text) == ("2,000,000", "61.7\u202f%")
    assert projected.reach_text == "2025-06-20 (projected)"
    assert projected.progress == pytest.approx(0.6172835)
    assert projected.reach_sentence == "Limit reached: 2025-06-20 (projected)"
    over = Allowance("speech_to_text_minutes", 700, 600, 900.0, date(2025, 6, 2))
    assert (over.reach_text, over.progress, over.share_text) == (
        "2025-06-02 (reached)",
        1.0,
        "116.7\u202f%",
    )
    unlimited = Allowance("characters", 5, None, 9.0, None)
    assert (unlimited.usage_text, unlimited.reach_text, unlimited.progress) == (
        "5 (no limit)",
        "-",
        None,
    )
    free = Allowance("characters", 5, 10, None, None)
    assert (free.outlook, free.reach_text) == ("not projected", "not projected")
    assert unlimited.reach_sentence == "No limit"
    within = Allowance("characters", 5, 10, 8.0, None)
    assert within.reach_sentence == "Limit reached: not within this billing period"
    assert Allowance("characters", 0, 0, 0.0, None).share_text == "-"


# -- the snapshot against the emulator ------------------------------------------------------------


def snapshot_of(app, today: date, key: str | None = None, prices=None) -> PlanSnapshot:
    client, _ = asgi_client(app, key)
    with client:
        answer = client.usage()
        usage = fetch_usage(client, *usage_range(answer, today), today=today)
    return plan_snapshot(answer, usage.frame, today, usage.start, prices)


def test_the_snapshot_matches_the_emulators_plan_and_ledger():
    app = create_app(small_config())
    emulator = app.state.emulator
    snapshot = snapshot_of(app, FIXED_TODAY)
    plan = emulator.plan
    start, stop = plan.period(FIXED_TODAY)
    assert snapshot.period == BillingPeriod(start, stop - timedelta(days=1))
    rows = emulator.ledger(start, FIXED_TODAY)
    characters = ledger_totals(rows)["total_characters"]
    speech_to_text = math.ceil(round(sum(r.speech_to_text_minutes for r in rows), 6))
    speech_to_speech = math.ceil(round(sum(r.speech_to_speech_minutes for r in rows), 6))
    assert [(a.measure, a.used, a.limit) for a in snapshot.allowances] == [
        ("characters", characters, plan.character_limit),
        ("speech_to_text_minutes", speech_to_text, plan.speech_to_text_minutes_limit),
        ("speech_to_speech_minutes", speech_to_speech, plan.speech_to_speech_minutes_limit),
    ]
    assert characters > 0
    # The billed counters read in the whole minutes they hold.
    assert [a.used_text for a in snapshot.allowances[1:]] == [
        f"{speech_to_text:,}",
        f"{speech_to_speech:,}",
    ]
    emulator.store.close()


def test_the_snapshot_of_an_organization_file(tmp_path):
    snapshot = snapshot_of(file_app(tmp_path, plan_org(), today=PLAN_TODAY), PLAN_TODAY, PLAN_ADMIN)
    assert snapshot.as_json() == {
        "as_of": PLAN_TODAY,
        "billing_period": {"start": date(2025, 3, 13), "end": date(2025, 4, 12)},
        "metrics": [
            # 700 on closed days and 50 so far today; 800 by tonight, then 100 a day.
            {
                "metric": "characters",
                "used": 750,
                "limit": 2000,
                "used_share": 0.375,
                "projected": 3100,
                "limit_reached": date(2025, 4, 1),
                "outlook": "projected",
            },
            {
                "metric": "speech_to_text_minutes",
                "used": 4,
                "limit": 600,
                "used_share": 4 / 600,
                "projected": 16,  # 15.5 minutes by the period's end
                "limit_reached": None,
                "outlook": "not within this billing period",
            },
            {
                "metric": "speech_to_speech_minutes",
                "used": 1,
                "limit": 600,
                "used_share": 1 / 600,
                # None on closed days, so a run rate of 0: today's minute is the period's.
                "projected": 1,
                "limit_reached": None,
                "outlook": "not within this billing period",
            },
        ],
    }


def test_a_paid_plan_without_a_cost_control_limit_has_no_character_limit(tmp_path):
    app = file_app(tmp_path, plan_org("billing_day = 13"), today=PLAN_TODAY)
    characters = snapshot_of(app, PLAN_TODAY, PLAN_ADMIN).characters
    assert (characters.limit, characters.outlook, characters.usage_text) == (
        None,
        "no limit",
        "750 (no limit)",
    )


def test_a_free_plan_reports_characters_without_a_period(tmp_path):
    app = file_app(
        tmp_path,
        plan_org("pro = false\nbilling_day = 13\ncharacter_limit = 1000"),
        today=PLAN_TODAY,
    )
    snapshot = snapshot_of(app, PLAN_TODAY, PLAN_ADMIN)
    assert snapshot.period is None
    assert snapshot.period_text == "not reported by the service (free plan): no projection"
    assert [(a.measure, a.used, a.limit, a.outlook) for a in snapshot.allowances] == [
        ("characters", 750, 1000, "not projected")
    ]


# 1 cent a text character, 2.00 a minute of speech-to-text, a 310.00 monthly fee.
PLAN_PRICES = (
    'currency = "EUR"\n[[price]]\nfrom = "2025-01-01"\nmonthly_fee = 310\n'
    "unit_prices = { text_translation_characters = 10_000, document_translation_characters = 0, "
    "text_improvement_characters = 0, speech_to_text_minutes = 2 }\n"
)


def test_the_billing_periods_spend_so_far_and_projected(tmp_path):
    prices = PricesInForce(parse_pricing(PLAN_PRICES))
    app = file_app(tmp_path, plan_org(), today=PLAN_TODAY)
    spend = snapshot_of(app, PLAN_TODAY, PLAN_ADMIN, prices).spend
    assert spend is not None and spend.currency == "EUR"
    # 13–19 March: 7 days of 1.00 in characters and 1.00 in minutes, and 7/31 of 310.00.
    assert spend.used_minor == 7 * 200 + 7000
    # The period's 31 days at that rate (today's 50 characters are not priced per service),
    # and its fee: 19/31 of March's and 12/30 of April's.
    assert spend.projected == pytest.approx(31 * 2.00 + 190.00 + 124.00)
    assert snapshot_of(app, PLAN_TODAY, PLAN_ADMIN).spend is None  # no prices, no spend


def test_no_spend_for_a_period_that_starts_before_the_first_price(tmp_path):
    later = PricesInForce(parse_pricing(PLAN_PRICES.replace("2025-01-01", "2025-03-14")))
    app = file_app(tmp_path, plan_org(), today=PLAN_TODAY)
    assert snapshot_of(app, PLAN_TODAY, PLAN_ADMIN, later).spend is None


@pytest.mark.parametrize(("minutes", "shown"), [(1260.625, "1,260.63"), (1261.0, "1,261.00")])
def test_a_keys_minutes_read_as_the_overview_tile_writes_them(minutes, shown):
    tile = Kpi(MINUTES, "Speech-to-text", minutes, None, None)
    card = Allowance("speech_to_text_minutes", minutes, 5_000, None, None)
    assert tile.value_text == card.used_text == shown
    assert card.usage_text == f"{shown} of 5,000 ({share_text(minutes / 5_000)})"


def test_the_plans_billed_minutes_read_whole_beside_the_tiles_exact_ones():
    """The service bills the period's 1,260.63 minutes as 1,261: the card says 1,261, not the
    1,261.00 that would claim the precision of the tile's 1,260.63."""
    tile = Kpi(MINUTES, "Speech-to-text", 1260.625, None, None)
    card = Allowance("speech_to_text_minutes", 1261, 5_000, None, None, billed=True)
    assert (tile.value_text, card.usage_text) == ("1,260.63", "1,261 of 5,000 (25.2\u202f%)")
