"""The guardrails' tables on hand-made plans: the changes in the order a person confirms them
(the largest reductions first) with the ones to look at named with their team, the keys
blocked by the limits in force apart from those the plan would block, one way of writing "no
limit", each budget beside the plan's own limit, and what every column means."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import given
from hypothesis import strategies as st
from test_guardrails_plan import PERIOD, TODAY, key, situation

from analytics.capacity.budgets.definitions import parse_budgets
from analytics.exit_codes import plan_ending
from analytics.guardrails.limit_plan import KeyPlan, Plan, make_plan
from analytics.guardrails.plan_inputs import KeyUse
from analytics.guardrails.plan_tables import (
    COLUMN_HELP,
    beside_plan,
    blocked_table,
    changes_table,
    headroom_table,
    largest_cuts_first,
    share_table,
    shown,
    stopping,
    warnings,
)
from analytics.service.models import UsageLimits
from analytics.usage.metrics import counted


def planned(
    name: str, now: int | None, new: int | None, counted: int = 0, team: str | None = None,
    hand: int | None = None, applied_by: str = "",
) -> KeyPlan:  # fmt: skip
    """One key's characters: its limit now, planned, its use so far and its team."""
    use = KeyUse(
        key=key(name, now),
        api_key=None,
        team=team,
        counted={"characters": counted, "speech": 0},
        forecast={"characters": 0.0, "speech": 0.0},
    )
    setters = {"characters": "Org" if new != hand else "", "speech": ""}
    return KeyPlan(
        use, UsageLimits(characters=hand), UsageLimits(characters=new), setters,
        applied_by=applied_by,
    )  # fmt: skip


CHANGES = [
    planned("Raised", 10_000, 20_000),
    planned("Unlimited again", 30_000, None),
    planned("Small cut", 200_000, 190_000, counted=1_000),
    planned("Planned app", None, 0, team="Mobile"),
    planned("Big cut", 1_000_000, 100_000, counted=50_000, team="Documents"),
    planned("Capped", None, 50_000, counted=10_000),
    planned("Busy", None, 5_000, counted=6_000, team="Unassigned"),
]


def test_the_largest_reductions_come_first_and_the_blocking_ones_are_named_with_their_team():
    ordered = [k.key.label for k in largest_cuts_first(CHANGES)]
    # No limit → a limit first (the smaller the new limit, the larger the cut), then the
    # finite cuts by what they take off, then raises, to no limit last.
    assert ordered == [
        "Planned app", "Busy", "Capped", "Big cut", "Small cut", "Raised", "Unlimited again",
    ]  # fmt: skip
    # Each key named by its label and masked key id (the test keys' ids are "id-<label>").
    assert warnings(CHANGES) == [
        "Planned app (id-P**** app) (team Mobile): characters limit 0: every request refused",
        "Busy (****): characters limit 5,000, at or below its use so far (6,000): refused at once",
    ]
    table = changes_table(CHANGES)
    assert [name.split(" (")[0] for name in table["key"]] == ordered
    assert "key_id" not in table.columns  # the key id only in the plan's JSON record
    assert table.loc[table["key"] == "Big cut (id-B**** cut)", "change"].item() == (
        "characters 1,000,000 → 100,000"
    )
    assert table["note"].tolist()[2:] == [""] * 5


@given(st.permutations(CHANGES))
def test_the_order_does_not_depend_on_the_order_the_plan_lists_them(changes):
    assert largest_cuts_first(changes) == largest_cuts_first(CHANGES)


def plan_of(keys: list[KeyPlan], **limits: int | None) -> Plan:
    return Plan(TODAY, PERIOD, (), tuple(keys), plan_limits={"speech": None, **limits})


def test_blocked_now_is_apart_from_what_the_plan_would_block():
    keys = [
        # its own limit of 100 reached now, kept by the plan
        planned("Own", 100, 100, counted=100, hand=100),
        # no limit now: blocked only once the plan's 50 is applied
        planned("Soon", None, 50, counted=60),
        # the last run's limit of 70 (the Org budget's) reached now; the plan raises it
        planned("Raised", 70, 90, counted=80, applied_by="Org"),
    ]
    plan = plan_of(keys, characters=None)
    now = blocked_table(plan, "now")
    assert now[["key", "used", "limit", "set by"]].values.tolist() == [
        ["Own (****)", 100, 100, "hand-set"],
        ["Raised (id-R****ised)", 80, 70, "Org"],
    ]
    after = blocked_table(plan, "planned")
    assert after[["key", "used", "limit", "set by"]].values.tolist() == [
        ["Own (****)", 100, 100, "hand-set"],
        ["Soon (****)", 60, 50, "Org"],
    ]


def test_no_limit_is_written_one_way():
    plan = plan_of([planned("Capped", None, 50_000, counted=10_000)], characters=None)
    table = shown(headroom_table(plan))
    row = table.iloc[0]
    assert (row["character limit"], row["planned character limit"]) == ("no limit", "50,000")
    assert row["character headroom"] == "40,000"
    assert (row["minute limit"], row["planned minute limit"], row["minute headroom"]) == (
        ("no limit",) * 3
    )


BUDGETS = """
[[budget]]
name = "Org"
metric = "total_characters"
period = "usage"
limit = 30_000
enforce = true
"""


def test_each_budget_is_named_beside_the_plans_limit_with_why_they_differ():
    found = situation([key("A"), key("B")], [(TODAY, "A", 1_000)], {"A": 10.0})
    plan = make_plan(parse_budgets(BUDGETS), found, {})
    tighter = Plan(TODAY, PERIOD, plan.shares, plan.keys, plan_limits={"characters": 50_000})
    [line] = beside_plan(tighter)
    assert line.startswith("Org (characters): 30,000 this usage period, the plan's limit 50,000")
    assert "the budget is the tighter of the two and is what the guardrails share out" in line
    looser = Plan(TODAY, PERIOD, plan.shares, plan.keys, plan_limits={"characters": 20_000})
    [line] = beside_plan(looser)
    assert "the plan's limit 20,000: the plan's limit is the tighter" in line
    [line] = beside_plan(Plan(TODAY, PERIOD, plan.shares, plan.keys))
    assert "the plan has no characters limit: the budget is the only cap" in line


def test_every_column_of_every_guardrails_table_is_explained():
    found = situation([key("A"), key("B")], [(TODAY, "A", 1_000)], {"A": 10.0})
    plan = make_plan(parse_budgets(BUDGETS), found, {})
    tables = [
        share_table(plan), headroom_table(plan), blocked_table(plan, "now"),
        blocked_table(plan, "planned"), changes_table(plan.changes),
    ]  # fmt: skip
    columns = {c for table in tables for c in table.columns}
    assert columns - set(COLUMN_HELP) == set()


def test_the_plans_last_line_says_what_its_status_means():
    assert plan_ending(0)[0].code == 0
    assert plan_ending(0)[1].startswith("Nothing to change (exit 0)")
    assert plan_ending(1)[1] == (
        "1 limit change pending (exit 10): `guardrails apply --yes` sends them."
    )
    code, line = plan_ending(22)
    assert code.code == 10
    assert line == "22 limit changes pending (exit 10): `guardrails apply --yes` sends them."


def test_a_budget_that_stops_its_keys_says_how_many_in_words():
    yesterday = TODAY - timedelta(days=1)  # a closed day of the usage period
    one = situation([key("A")], [(yesterday, "A", 40_000)], {"A": 10.0})
    assert stopping(make_plan(parse_budgets(BUDGETS), one, {})) == [
        "Org (characters): its one key will be stopped: nothing is left this usage period. "
        "Raise the budget's limit to let it on."
    ]
    two = situation([key("A"), key("B")], [(yesterday, "A", 40_000)], {"A": 10.0, "B": 1.0})
    assert stopping(make_plan(parse_budgets(BUDGETS), two, {})) == [
        "Org (characters): every one of its 2 keys will be stopped: nothing is left this usage "
        "period. Raise the budget's limit to let them on."
    ]


def test_a_number_of_things_is_written_singular_or_plural():
    assert [counted(n, "key") for n in (0, 1, 2, 1_200)] == [
        "0 keys",
        "1 key",
        "2 keys",
        "1,200 keys",
    ]
    assert counted(1, "limit change") == "1 limit change"
    assert counted(3, "entry", "entries") == "3 entries"
