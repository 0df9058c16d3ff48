"""The guardrails' plan on hand-made situations: which budgets are refused (one line each),
nested organization, team and key budgets worked out by hand, hand-set limits kept and given
back, drift, cost budgets at two prices, and the invariant under random budgets, usage
periods, keys and usage (hypothesis), across usage periods' turns in a contract year."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import NamedTuple

from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace
from support.builders import key_day_rows, price_from, pricing

from analytics.capacity.budgets.billing import BillingPeriod
from analytics.capacity.budgets.definitions import parse_budgets
from analytics.cost.prices import parse_pricing
from analytics.cost.teams import key_teams, parse_teams
from analytics.guardrails.budget_sharing import apportion, capped
from analytics.guardrails.limit_plan import make_plan
from analytics.guardrails.memory import Memory
from analytics.guardrails.plan_inputs import KeyUse, Situation
from analytics.service.models import DeveloperKey, UsageLimits
from analytics.settings.succession import succeeded

PERIOD = BillingPeriod(date(2025, 7, 1), date(2025, 7, 31))
TODAY = date(2025, 7, 11)
MASKS = {"A": "aaaa****0001", "B": "bbbb****0002", "C": "cccc****0003"}
TEAMS = {"A": "Web", "B": "Web", "C": "Data"}


def key(
    name: str, characters: int | None = None, deactivated: bool = False, gone: date = TODAY
) -> DeveloperKey:
    return DeveloperKey(
        key_id=f"id-{name}",
        label=name,
        deactivated_time=datetime.combine(gone, time(9), UTC) if deactivated else None,
        is_deactivated=deactivated,
        usage_limits=UsageLimits(characters=characters),
    )


def situation(
    keys: list[DeveloperKey],
    usage: list[tuple[date, str, int]],
    forecast: dict[str, float],
    *,
    today: date = TODAY,
    period: BillingPeriod = PERIOD,
    hidden: int = 0,
    masks: dict[str, str] = MASKS,
    teams: dict[str, str] = TEAMS,
) -> Situation:
    """Keys named by label, their (day, label, characters) usage and forecasts; each key's
    counted use and the organization's count now are summed here from the rows."""
    closed = [(d, k, n) for d, k, n in usage if period.start <= d < today]
    counted = {k.label: sum(n for _, name, n in closed if name == k.label) for k in keys}
    frame = key_day_rows(
        (d, masks[name], name, {"text_translation_characters": n}) for d, name, n in usage
    )
    return Situation(
        today=today,
        period=period,
        keys=tuple(
            KeyUse(
                key=k,
                api_key=masks[k.label],
                team=teams[k.label],
                counted={"characters": counted[k.label], "speech": 0},
                forecast={"characters": forecast.get(k.label, 0.0), "speech": 0.0},
            )
            for k in keys
        ),
        usage=frame,
        frame_teams={masks[name]: team for name, team in teams.items()},
        live={"characters": sum(n for _, _, n in closed) + hidden, "speech": 0},
        team_names=("Web", "Data"),
    )


GUARDS = "[guardrails]\nreserve_characters = 1_000\nfloor_characters = 2_000\n"


def budget(name: str, limit: int, *lines: str, period: str = "usage") -> str:
    return "\n".join(
        [
            "[[budget]]",
            f'name = "{name}"',
            'metric = "total_characters"',
            f'period = "{period}"',
            f"limit = {limit}",
            "enforce = true",
            *lines,
        ]
    )


def file(*budgets: str, head: str = GUARDS):
    return parse_budgets(head + "\n" + "\n\n".join(budgets))


def limits(plan) -> dict[str, int | None]:
    return {k.key.label: k.new.characters for k in plan.keys}


# Closed days of July so far: A used 1,000, B 3,000, C 2,000; forecasts weigh 1 : 3 : 6.
NESTED_USAGE = [
    (date(2025, 7, 2), "A", 1_000),
    (date(2025, 7, 3), "B", 3_000),
    (date(2025, 7, 4), "C", 2_000),
]
NESTED_FORECAST = {"A": 1_000.0, "B": 3_000.0, "C": 6_000.0}
NESTED = (
    budget("Organization", 100_000),
    budget("Web team", 20_000, 'team = "Web"'),
    budget("B alone", 5_000, 'key = "B"'),
)


def test_nested_budgets_give_each_key_the_smallest_limit_worked_out_by_hand():
    # Organization: 100,000 − 6,000 counted = 94,000; 3 reserves of 1,000 → 91,000 shared:
    # 2,000 floor each, the 85,000 left by 1 : 3 : 6 → A 11,500, B 30,500, C 55,000.
    # Web team: 20,000 − 4,000 = 16,000; 2 reserves → 14,000: 2,000 each, 10,000 by 1 : 3
    # → A 1,000 + 4,500 = 5,500, B 3,000 + 9,500 = 12,500.
    # B alone: 5,000 − 3,000 = 2,000; one reserve of 1,000 → 1,000 (its floor, cut to what
    # there is) → 4,000.
    keys = [key("A"), key("B"), key("C")]
    plan = make_plan(file(*NESTED), situation(keys, NESTED_USAGE, NESTED_FORECAST), {})
    shares = {s.budget.title: dict(s.limits) for s in plan.shares}
    assert shares == {
        "Organization": {"id-A": 11_500, "id-B": 30_500, "id-C": 55_000},
        "Web team": {"id-A": 5_500, "id-B": 12_500},
        "B alone": {"id-B": 4_000},
    }
    assert limits(plan) == {"A": 5_500, "B": 4_000, "C": 55_000}
    assert {k.key.label: k.by for k in plan.keys} == {
        "A": "Web team",
        "B": "B alone",
        "C": "Organization",
    }
    assert len(plan.changes) == 3 and not plan.refusals


def test_a_room_too_small_for_every_reserve_goes_to_the_busiest_keys_each_with_a_whole_one():
    # 8,500 − 6,000 counted = 2,500: a reserve of 1,000 and as much again to share fits once,
    # not twice. C (the largest forecast) shares the 1,500 left; A and B are stopped at their
    # 1,000 and 3,000. C ends at most a reserve past its limit: 8,500 at most, never more.
    keys = [key("A"), key("B"), key("C")]
    plan = make_plan(
        file(budget("Organization", 8_500)), situation(keys, NESTED_USAGE, NESTED_FORECAST), {}
    )
    [share] = plan.shares
    assert share.reserve == 1_000
    assert limits(plan) == {"A": 1_000, "B": 3_000, "C": 3_500}
    # 10,100 leaves 4,100: two keys share it, C and B (two reserves and 2,100: the floor of
    # 2,000 each, cut to 1,050 by the room); A is stopped.
    plan = make_plan(
        file(budget("Organization", 10_100)), situation(keys, NESTED_USAGE, NESTED_FORECAST), {}
    )
    assert limits(plan) == {"A": 1_000, "B": 4_050, "C": 3_050}


def test_a_smaller_hand_set_limit_is_kept_and_given_back_exactly():
    # B's own 3,500 leaves it 500 above its 3,000: what its shares held beyond that goes to
    # the others. Organization: A and C share 91,000 − 500: 2,000 each, 86,500 by 1 : 6 →
    # A 1,000 + 14,357 = 15,357, C 2,000 + 76,143 = 78,143 (the odd unit to C's larger
    # remainder). Web team: A takes the 14,000 less B's 500 → 14,500.
    keys = [key("A"), key("B", 3_500), key("C", 90_000)]
    plan = make_plan(file(*NESTED), situation(keys, NESTED_USAGE, NESTED_FORECAST), {})
    organization = next(s for s in plan.shares if s.budget.title == "Organization")
    assert dict(organization.limits) == {"id-A": 15_357, "id-B": 3_500, "id-C": 78_143}
    assert limits(plan) == {"A": 14_500, "B": 3_500, "C": 78_143}
    b = next(k for k in plan.keys if k.key.label == "B")
    assert not b.changes and "its smaller hand-set limit is kept" in "; ".join(b.notes)
    # As the apply run remembers them, then with every budget left out (restore):
    remembered = {k.key.key_id: Memory(hand=k.hand, applied=k.new, by=k.by) for k in plan.keys}
    guarded = [key("A", 14_500), key("B", 3_500), key("C", 78_143)]
    given_back = make_plan(
        file(*NESTED),
        situation(guarded, NESTED_USAGE, NESTED_FORECAST),
        remembered,
        leave_out={"Organization", "Web team", "B alone"},
    )
    assert limits(given_back) == {"A": None, "B": 3_500, "C": 90_000}
    assert all(k.forget for k in given_back.keys)


def test_a_limit_changed_elsewhere_is_reported_and_kept_as_hand_set():
    remembered = {
        "id-A": Memory(hand=UsageLimits(), applied=UsageLimits(characters=5_500), by="Web team")
    }
    # Someone raised A to 50,000 elsewhere: the guardrail's 5,500 stays (never raised back up
    # past the budget), and 50,000 is what restoring gives back.
    raised = make_plan(
        file(*NESTED),
        situation([key("A", 50_000), key("B"), key("C")], NESTED_USAGE, NESTED_FORECAST),
        remembered,
    )
    a = next(k for k in raised.keys if k.key.label == "A")
    assert (a.hand.characters, a.new.characters) == (50_000, 5_500)
    assert "changed elsewhere since the last run (characters 5,500 → 50,000)" in a.notes[0]
    # Someone lowered it to 700: kept, never overwritten upward.
    lowered = make_plan(
        file(*NESTED),
        situation([key("A", 700), key("B"), key("C")], NESTED_USAGE, NESTED_FORECAST),
        remembered,
    )
    a = next(k for k in lowered.keys if k.key.label == "A")
    assert (a.hand.characters, a.new.characters, a.changes) == (700, 700, False)
    # The limits a killed run was sending are its own, not drift.
    sending = Memory(
        hand=UsageLimits(),
        applied=UsageLimits(characters=9),
        pending=(UsageLimits(characters=5_500),),
    )
    resumed = make_plan(
        file(*NESTED),
        situation([key("A", 5_500), key("B"), key("C")], NESTED_USAGE, NESTED_FORECAST),
        {"id-A": sending},
    )
    a = next(k for k in resumed.keys if k.key.label == "A")
    assert a.hand == UsageLimits() and not a.notes[0].startswith("changed elsewhere")


def test_unenforceable_budgets_are_refused_with_one_line_each():
    refused = file(
        budget("Calendar month", 1_000, period="month"),
        budget("Quarter", 1_000, period="quarter"),
        '[[budget]]\nname = "Text only"\nmetric = "text_translation_characters"\n'
        'period = "usage"\nlimit = 5\nenforce = true',
        budget("Nobody", 1_000, 'key = "Z"'),
        budget("No such team", 1_000, 'team = "Sales"'),
        budget("Cut year", 1_000, period="year"),
        '[[budget]]\nname = "Plan"\nmetric = "plan"\nenforce = true',
        head='contract_year_start = "04-02"\n' + GUARDS,
    )
    plan = make_plan(refused, situation([key("A")], [], {}), {})
    assert plan.refusals == (
        "Calendar month: not enforced: a calendar month cuts the usage periods (which start on "
        'day 1) and cannot be held across the cut: use period = "usage" or a contract year '
        "starting on a billing day (day 1)",
        "Quarter: not enforced: a calendar quarter cuts the usage periods (which start on day "
        '1) and cannot be held across the cut: use period = "usage" or a contract year '
        "starting on a billing day (day 1)",
        "Text only: not enforced: key limits count text, document and improvement characters "
        "together and no speech-to-speech: budget total_characters (or cost) instead",
        "Nobody: not enforced: no active listed key has the label or masked key 'Z'",
        "No such team: not enforced: the teams file has no team 'Sales'",
        "Cut year: not enforced: the contract year starts on 04-02 (contract_year_start), not "
        'on a billing day: it cuts the usage periods; set contract_year_start = "04-01" or '
        'use period = "usage"',
        "Plan: not enforced: the plan's own limit is the service's; a plan budget warns, it is "
        "not shared out",
    )
    assert not plan.shares and not plan.changes


def test_a_contract_year_is_held_across_its_usage_periods_turns():
    # Contract year from 1 April; June's usage period used 60,000 of its 100,000. On the
    # first day of July (the turn) and ten days later, what the keys may have is what the
    # year has left: 40,000, less July's own use and the reserves.
    head = 'contract_year_start = "04-01"\n' + GUARDS
    year = file(budget("Year", 100_000, period="year"), head=head)
    usage = [(date(2025, 3, 31), "A", 99_999), (date(2025, 6, 10), "A", 60_000)]
    at_turn = make_plan(year, situation([key("A"), key("C")], usage, {}, today=PERIOD.start), {})
    [share] = at_turn.shares
    assert (share.prior, share.allowance, share.counted) == (60_000, 40_000, 0)
    assert sum(share.limits.values()) == 40_000 - 2 * 1_000
    later = [*usage, (date(2025, 7, 5), "C", 10_000)]
    after = make_plan(year, situation([key("A"), key("C")], later, {}), {})
    [share] = after.shares
    assert (share.allowance, share.counted) == (40_000, 10_000)
    assert sum(share.limits.values()) == 40_000 - 2 * 1_000
    assert limits(after)["C"] >= 10_000  # what C used is within its limit


def test_on_a_usage_periods_last_day_the_limits_hold_after_the_turn_too():
    # The same year on 31 July, July's last day: 40,000 left after June. Each key may reach
    # its limit before the turn and use it again after it, so half of what the counts leave
    # is shared. C used 10,000: (40,000 − 10,000 − 10,000) / 2 = 10,000, less two reserves
    # of 1,000, is 8,000: 2,000 floor each and the 4,000 left halved (no forecast) → A 4,000,
    # C 10,000 + 4,000 = 14,000; at worst 4,000 + 4,000 + 14,000 + 14,000 = 36,000 ≤ 40,000.
    head = 'contract_year_start = "04-01"\n' + GUARDS
    year = file(budget("Year", 100_000, period="year"), head=head)
    last_day = PERIOD.end
    june = [(date(2025, 6, 10), "A", 60_000)]
    calm = [*june, (date(2025, 7, 5), "C", 10_000)]
    plan = make_plan(year, situation([key("A"), key("C")], calm, {}, today=last_day), {})
    assert limits(plan) == {"A": 4_000, "C": 14_000}
    # C used 25,000: the counts take more than half of the 40,000, so the 15,000 left, less
    # C's reserve of 1,000, is shared by use: A (none used) 0, C 14,000, below what C used,
    # so C stops until the turn; at worst 25,000 + 14,000 + its reserve = 40,000.
    busy = [*june, (date(2025, 7, 5), "C", 25_000)]
    plan = make_plan(year, situation([key("A"), key("C")], busy, {}, today=last_day), {})
    assert limits(plan) == {"A": 0, "C": 14_000}
    # A usage-period budget has the whole limit again after the turn: nothing held back.
    month = file(budget("Month", 40_000), head=head)
    plan = make_plan(month, situation([key("A"), key("C")], calm, {}, today=last_day), {})
    assert sum(limits(plan).values()) == 40_000 - 2 * 1_000


def test_the_near_real_time_count_only_tightens():
    keys = [key("A"), key("B"), key("C")]
    calm = make_plan(file(*NESTED), situation(keys, NESTED_USAGE, NESTED_FORECAST), {})
    busy = make_plan(
        file(*NESTED), situation(keys, NESTED_USAGE, NESTED_FORECAST, hidden=30_000), {}
    )
    assert all(busy.keys[i].new.characters <= k.new.characters for i, k in enumerate(calm.keys))
    assert limits(busy) != limits(calm)
    organization = next(s for s in busy.shares if s.budget.title == "Organization")
    assert organization.hidden == 30_000


def test_todays_use_the_keys_limits_already_bound_is_not_held_back_twice():
    # A and B counted 10,000 each on closed days and had at most 15,000 as limits all day, so
    # each used at most 15,000 + 1,000 (a request crossing it) − 10,000 = 6,000 today. Taking
    # the 8,000 used today off the room: 100,000 − 8,000 − 20,000 − two reserves = 70,000,
    # 35,000 each. Neither can pass 35,000 + its reserve, so the 8,000 is no use held back
    # twice: 4,000 more each. Limits 10,000 + 39,000.
    keys = [key("A", 15_000), key("B", 15_000)]
    usage = [(date(2025, 7, 2), "A", 10_000), (date(2025, 7, 3), "B", 10_000)]
    forecast = {"A": 5_000.0, "B": 5_000.0}
    found = situation(keys, usage, forecast, hidden=8_000)

    def remembered(highest: int) -> dict[str, Memory]:
        seen = UsageLimits(characters=15_000)
        return {
            k.key_id: Memory(hand=UsageLimits(), applied=seen, day=TODAY, highest=seen)
            for k in keys
        } | {"id-A": Memory(hand=UsageLimits(), applied=seen, day=TODAY,
                            highest=UsageLimits(characters=highest))}  # fmt: skip

    organization = file(budget("Organization", 100_000))
    plan = make_plan(organization, found, remembered(15_000))
    assert limits(plan) == {"A": 49_000, "B": 49_000}
    assert plan.shares[0].in_limits == 8_000
    # Had A 60,000 as its limit earlier today, it may have used 51,000 today: beyond its share
    # by more than the 8,000, so none is given back. Nor when no run remembers the keys.
    unguarded = situation([key("A"), key("B")], usage, forecast, hidden=8_000)
    for earlier in (make_plan(organization, found, remembered(60_000)),
                    make_plan(organization, unguarded, {})):  # fmt: skip
        assert limits(earlier) == {"A": 45_000, "B": 45_000}
        assert earlier.shares[0].in_limits == 0


def cost_budget(limit: str) -> str:
    return "\n".join(
        [
            "[[budget]]",
            'name = "Web spend"',
            'metric = "cost"',
            'period = "usage"',
            f"limit = {limit}",
            'team = "Web"',
            "enforce = true",
        ]
    )


def test_cost_budgets_turn_money_into_characters_at_the_dearest_price_in_force():
    # 10.00 EUR for the Web team: at 25 per million characters (the dearest character price
    # in force) 400,000 characters, at 50 per million 200,000; speech costs 0.03 a minute,
    # but no key of the team is forecast to use any, so all the money goes to characters.
    def prices(document: str) -> str:
        return (
            "unit_prices = { text_translation_characters = 20, document_translation_characters"
            f" = {document}, text_improvement_characters = 10, speech_to_text_minutes = 0.03 }}"
        )

    keys = [key("A"), key("B"), key("C")]
    found = situation(keys, NESTED_USAGE, NESTED_FORECAST)
    budgets = file(cost_budget("10.00"))
    allowances = {}
    for document in ("25", "50"):
        costed = parse_pricing(pricing(price_from("2025-01-01", prices=prices(document))))
        plan = make_plan(budgets, found, {}, costed)
        by_measure = {s.measure: s for s in plan.shares}
        allowances[document] = by_measure["characters"].allowance
        cost = sum(k.new.characters for k in plan.keys if k.by) * Decimal(document) / 10**6
        assert cost <= Decimal("10.00")
        assert by_measure["speech"].allowance == 0
    assert allowances == {"25": 400_000, "50": 200_000}
    fee = parse_pricing(pricing(price_from("2025-01-01", "monthly_fee = 100")))
    organization = file(cost_budget("10.00").replace('team = "Web"\n', ""))
    [line] = make_plan(organization, found, {}, fee).refusals
    assert line.startswith("Web spend: not enforced: the organization's cost includes the base fee")


def test_apportion_shares_exactly_floor_first_then_by_weight():
    assert apportion(10, {"a": 1.0, "b": 1.0, "c": 1.0}, 0) == {"a": 4, "b": 3, "c": 3}
    assert capped(100, {"a": 1.0, "b": 1.0, "c": 2.0}, 0, {"c": 10}) == {"a": 45, "b": 45, "c": 10}
    assert apportion(100, {"a": 0.0, "b": 9.0}, 20) == {"a": 20, "b": 80}
    assert apportion(5, {"a": 0.0, "b": 9.0}, 20) == {"a": 2, "b": 3}
    assert apportion(0, {"a": 3.0}, 20) == {"a": 0}


# --- the invariant -----------------------------------------------------------------------------


def usage_period(today: date, billing_day: int) -> BillingPeriod:
    """The monthly usage period holding ``today`` that starts on ``billing_day`` (≤ 28)."""
    start = today.replace(day=billing_day)
    if start > today:
        start = (start.replace(day=1) - timedelta(days=1)).replace(day=billing_day)
    following = (start.replace(day=1) + timedelta(days=32)).replace(day=billing_day)
    return BillingPeriod(start, following - timedelta(days=1))


def contract_year(today: date, month: int, billing_day: int) -> tuple[date, date]:
    start = date(today.year, month, billing_day)
    if start > today:
        start = date(today.year - 1, month, billing_day)
    return start, date(start.year + 1, month, billing_day) - timedelta(days=1)


NAMES = ("A", "B", "C", "D")
SCOPES = ("", 'team = "Web"', 'team = "Data"', 'key = "A"', 'key = "C"')


class Case(NamedTuple):
    """One drawn case: its calendar (the billing day, today, the usage period, the contract
    year's first month), the organization (keys, usage rows, each key's forecast, what the runs
    remember and today's use) and the guardrails (the budgets, the reserve and the floor)."""

    calendar: tuple
    organization: tuple
    guardrails: tuple


@st.composite
def cases(draw) -> Case:
    billing_day = draw(st.integers(1, 28))
    today = date(2026, 1, 1) + timedelta(days=draw(st.integers(0, 500)))
    period = usage_period(today, billing_day)
    # Often the first or the last day of a usage period: either side of its turn.
    today = draw(st.sampled_from([today, period.start, period.end]))
    year_month = draw(st.integers(1, 12))
    count = draw(st.integers(1, 4))
    names = NAMES[:count]
    keys = [
        key(
            name,
            draw(st.integers(0, 30_000)) if draw(st.integers(0, 4)) else None,
            deactivated=draw(st.integers(0, 5)) == 0,
            gone=today - timedelta(days=draw(st.integers(0, 1))),
        )
        for name in names
    ]
    # What the runs remember of each key: nothing, or the limits a run left it at and the
    # highest it saw today (or on an earlier day).
    remembered = {
        k.key_id: Memory(
            hand=UsageLimits(),
            applied=k.usage_limits,
            day=today - timedelta(days=draw(st.integers(0, 1))),
            highest=UsageLimits(
                characters=draw(st.integers(0, 40_000)) if draw(st.integers(0, 9)) else None
            ),
        )
        for k in keys
        if draw(st.integers(0, 4)) > 0
    }
    usage = draw(
        st.lists(
            st.tuples(st.integers(1, 420), st.sampled_from(names), st.integers(0, 9_000)),
            max_size=25,
        )
    )
    rows = [(today - timedelta(days=back), name, n) for back, name, n in usage]
    forecast = {n: draw(st.floats(0, 50_000)) for n in names}
    budgets = draw(
        st.lists(
            st.tuples(st.sampled_from(SCOPES), st.sampled_from(["usage", "year"]),
                      st.integers(0, 60_000)),
            min_size=1,
            max_size=3,
        )
    )  # fmt: skip
    reserve, floor = draw(st.integers(0, 3_000)), draw(st.integers(0, 5_000))
    # Each key's use today, not in analytics yet: at most what the highest limit it had today
    # lets it reach (one request of at most the reserve crossing it); a key deactivated before
    # today used nothing; a key no run remembers, anything. Plus a key outside the plan's list.
    today_use = {}
    for k in keys:
        before = sum(
            n
            for back, name, n in usage
            if name == k.label and back > 0 and today - timedelta(days=back) >= period.start
        )
        most = 60_000
        if k.key_id in remembered:
            top = remembered[k.key_id].highest_on(today, k.usage_limits).characters
            most = most if top is None else max(0, min(most, top + reserve - before - 1))
        if k.deactivated_time is not None and k.deactivated_time.date() < today:
            most = 0
        today_use[k.label] = draw(st.sampled_from([0, most]) | st.integers(0, most))
    calendar = (billing_day, today, period, year_month)
    return Case(calendar, (keys, rows, forecast, remembered, today_use), (budgets, reserve, floor))


@settings(max_examples=300, deadline=None)
@given(cases())
def test_no_enforced_budget_can_be_passed(case: Case):
    billing_day, today, period, year_month = case.calendar
    keys, rows, forecast, remembered, today_use = case.organization
    budgets, reserve, floor = case.guardrails
    hidden = sum(today_use.values())
    head = (
        f'contract_year_start = "{year_month:02d}-{billing_day:02d}"\n'
        f"[guardrails]\nreserve_characters = {reserve}\nfloor_characters = {floor}\n"
    )
    entries = [
        budget(f"b{i}", limit, scope, period=kind) for i, (scope, kind, limit) in enumerate(budgets)
    ]
    teams = {"A": "Web", "B": "Web", "C": "Data", "D": "Data"}
    masks = {name: f"{name.lower() * 4}****{i:04d}" for i, name in enumerate(NAMES)}
    found = situation(
        keys, rows, forecast, today=today, period=period, hidden=hidden, masks=masks, teams=teams
    )
    plan = make_plan(file(*entries, head=head), found, remembered)
    assert not plan.refusals or all("no active listed key" in r for r in plan.refusals)
    new = {k.key.label: k.new.characters for k in plan.keys}
    for i, (scope, kind, limit) in enumerate(budgets):
        if any(r.startswith(f"b{i}:") for r in plan.refusals):
            continue
        first = (
            period.start if kind == "usage" else contract_year(today, year_month, billing_day)[0]
        )

        def covered(name: str, scope: str = scope) -> bool:
            return scope == "" or scope == f'team = "{teams[name]}"' or scope == f'key = "{name}"'

        earlier = sum(n for d, name, n in rows if first <= d < period.start and covered(name))
        allowance = max(0, limit - earlier)
        members = [k.label for k in keys if not k.is_deactivated and covered(k.label)]
        assert all(new[name] is not None for name in members)
        # Nothing was counted in a key's usage period before the budget's period began: both
        # start on a billing day, the usage period no earlier than the budget's period.
        assert first <= period.start
        assert sum(new[name] for name in members) <= allowance
        # Counting what keys no limit caps any more (deactivated) used in this usage period,
        # and today's use analytics does not show yet, the keys' use stays inside it too.
        spent = sum(
            n
            for d, name, n in rows
            if period.start <= d < today and covered(name) and name not in members
        )
        counted = {
            name: sum(n for d, k, n in rows if k == name and period.start <= d < today)
            for name in members
        }
        # Today: the keys' use so far, and the most it can end at. A key below its limit may
        # reach it and cross it by one request no larger than the reserve; a key at or over it
        # is refused. Use outside the plan (deactivated keys) is spent already.
        other = sum(today_use[k.label] for k in keys if covered(k.label) and k.label not in members)
        now = {name: counted[name] + today_use[name] for name in members}
        end = {
            name: now[name] if now[name] >= new[name] else new[name] + reserve for name in members
        }
        if sum(now.values()) + spent + other <= allowance:  # not passed already
            assert sum(end.values()) + spent + other <= allowance
        # On a usage period's last day inside a contract year that goes on, the limits hold
        # across the turn too: each key may reach its limit (or keep its count) before it,
        # and use its limit again after it, the counts restarted.
        year_end = contract_year(today, year_month, billing_day)[1]
        if kind == "year" and today == period.end < year_end:
            across = sum(max(new[n], counted[n]) + new[n] for n in members)
            if sum(counted.values()) + spent + hidden <= allowance:  # not passed already
                assert across + spent + hidden <= allowance


def planned_keys(plan, renamed: dict[str, str]) -> list[tuple]:
    """Each planned key's limits, setters and notes, its key id read through `renamed`."""
    return [
        (renamed.get(k.key.key_id, k.key.key_id), k.hand, k.new, dict(k.setters), k.changes)
        for k in plan.keys
        if not k.key.is_deactivated
    ]


TEAMS_DOCUMENT = (
    '[[team]]\nname = "Web"\nlabels = ["A", "B"]\n\n[[team]]\nname = "Data"\nlabels = ["C"]\n'
)


def test_a_rotated_keys_replacement_is_planned_as_the_old_key_was():
    """A applied its guardrail limits; its replacement A2 (made with those limits, its
    traffic moved over, the old key deactivated) takes the old key's memory
    (`guardrails.memory.inherit`) and its team from the teams document the rotation saved
    (`settings.succession`): the plan is the one before, but for the key id. Without the
    memory, A2's limits would be taken for hand-set ones."""
    masks = {**MASKS, "A2": "aaaa****0009"}
    carried = succeeded(TEAMS_DOCUMENT, "teams.toml", (MASKS["A"], "A"), (masks["A2"], "A2"))
    assert carried.text == TEAMS_DOCUMENT.replace('["A", "B"]', '["A", "B", "A2"]')
    by_mask = key_teams(parse_teams(carried.text), {mask: name for name, mask in masks.items()})
    teams = {name: by_mask[mask] for name, mask in masks.items()}
    assert teams == {**TEAMS, "A2": "Web"}
    budgets = file(*NESTED)
    first = make_plan(
        budgets, situation([key("A"), key("B"), key("C")], NESTED_USAGE, NESTED_FORECAST), {}, None
    )
    applied = [replace(k.key, usage_limits=k.new) for k in first.keys]
    memory = {k.key.key_id: Memory(hand=k.hand, applied=k.new) for k in first.keys}
    before = make_plan(budgets, situation(applied, NESTED_USAGE, NESTED_FORECAST), memory, None)
    old = applied[0]
    new = replace(old, key_id="id-A2", label="A2")
    gone = replace(old, is_deactivated=True, deactivated_time=datetime.combine(TODAY, time(8), UTC))
    moved = [(d, "A2" if name == "A" else name, n) for d, name, n in NESTED_USAGE]
    after_situation = situation(
        [gone, new, *applied[1:]],
        moved,
        {**NESTED_FORECAST, "A2": NESTED_FORECAST["A"], "A": 0.0},
        masks=masks,
        teams=teams,
    )
    inherited = {**memory, "id-A2": memory["id-A"]}
    after = make_plan(budgets, after_situation, inherited, None)
    assert planned_keys(after, {"id-A2": "id-A"}) == planned_keys(before, {})
    assert not after.changes
    forgotten = make_plan(budgets, after_situation, memory, None)
    assert planned_keys(forgotten, {"id-A2": "id-A"}) != planned_keys(before, {})


def test_a_limit_below_what_was_counted_is_written_as_a_subtraction():
    # B alone at 2,000 with 3,000 counted: its limit is under its use, the share taken away.
    keys = [key("A"), key("B"), key("C")]
    spent = budget("B alone", 2_000, 'key = "B"')
    plan = make_plan(file(spent), situation(keys, NESTED_USAGE, NESTED_FORECAST), {})
    b = next(k for k in plan.keys if k.key.label == "B")
    [note] = [n for n in b.notes if n.startswith("B alone")]
    assert " counted − " in note and "+ -" not in note and " counted + " not in note
