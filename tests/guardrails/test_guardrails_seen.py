"""The guardrails' plan as a team's scope sees it, on a hand-made plan: the team's enforced
budgets and keys only, no other team's key or budget named anywhere (not in "set by", nor in
a "why"), and neither the plan's limits nor the organization's use; the organization's scope
sees the plan whole."""

from __future__ import annotations

from datetime import date

from test_guardrails_plan import GUARDS, MASKS, budget, key, situation

from analytics.access import Scope, Visible
from analytics.capacity.budgets.definitions import parse_budgets
from analytics.cost.teams import parse_teams
from analytics.guardrails.limit_plan import make_plan
from analytics.guardrails.plan_tables import (
    beside_plan,
    blocked_table,
    changes_table,
    headroom_table,
    share_table,
)
from analytics.guardrails.seen import UNSEEN_BUDGET, seen_plan

BUDGETS = parse_budgets(
    "\n\n".join(
        [
            GUARDS,
            budget("Org", 30_000),
            budget("Web team", 20_000, 'team = "Web"'),
            budget("Data key", 5_000, 'key = "C"'),
            budget("Gone key", 5_000, 'key = "Gone"'),
        ]
    )
)
# A and B are Web's, C is Data's (test_guardrails_plan.TEAMS), here by their masked keys.
TEAMS = parse_teams(
    f'[[team]]\nname = "Web"\nkeys = ["{MASKS["A"]}", "{MASKS["B"]}"]\n\n'
    f'[[team]]\nname = "Data"\nkeys = ["{MASKS["C"]}"]\n'
)
WEB = Visible(Scope(frozenset({"Web"})), TEAMS)


def organizations_plan():
    used = [(date(2025, 7, 5), "A", 1_000), (date(2025, 7, 5), "C", 500)]
    found = situation([key("A"), key("B"), key("C")], used, {"A": 10.0, "B": 5.0, "C": 5.0})
    return make_plan(BUDGETS, found, {})


def test_the_organizations_scope_sees_the_plan_whole():
    plan = organizations_plan()
    assert seen_plan(plan, Visible(Scope(), TEAMS), BUDGETS) is plan
    assert [s.title for s in plan.shares] == [
        "Org (characters)", "Web team (characters)", "Data key (characters)",
    ]  # fmt: skip
    assert plan.refusals == (
        "Gone key: not enforced: no active listed key has the label or masked key 'Gone'",
    )


def test_a_team_sees_its_own_budgets_and_keys_and_nothing_of_the_organizations():
    seen = seen_plan(organizations_plan(), WEB, BUDGETS)
    assert [s.title for s in seen.shares] == ["Web team (characters)"]
    assert [k.key.label for k in seen.keys] == ["A", "B"]
    assert seen.refusals == ()
    # The Web team budget (20,000) is tighter than each key's share of the organization's.
    assert {k.setters["characters"] for k in seen.keys} <= {"Web team", UNSEEN_BUDGET}
    assert all(note.startswith("Web team (characters): ") for k in seen.keys for note in k.notes)
    shares = share_table(seen)
    assert shares.columns.tolist() == [
        "budget", "measure", "allowance", "used before", "reserve", "keys",
    ]  # fmt: skip
    assert shares.values.tolist() == [["Web team", "characters", 20_000.0, 0.0, 1_000.0, 2]]
    assert beside_plan(seen) == []
    tables = [
        shares, headroom_table(seen), blocked_table(seen, "now"), blocked_table(seen, "planned"),
        changes_table(seen.changes),
    ]  # fmt: skip
    text = "\n".join(table.astype(str).to_csv() for table in tables)
    for other in ("Org", "Data key", "Gone", "id-C", MASKS["C"], ",C,"):
        assert other not in text


def test_a_limit_set_by_a_budget_the_team_does_not_see_says_so_without_its_name():
    only_org = parse_budgets(f"{GUARDS}\n\n{budget('Org', 30_000)}")
    found = situation([key("A"), key("B"), key("C")], [], {"A": 10.0, "B": 5.0, "C": 5.0})
    seen = seen_plan(make_plan(only_org, found, {}), WEB, only_org)
    assert seen.shares == () and [k.key.label for k in seen.keys] == ["A", "B"]
    assert [k.by for k in seen.keys] == [UNSEEN_BUDGET, UNSEEN_BUDGET]
    assert [k.notes for k in seen.keys] == [(), ()]
    assert changes_table(seen.changes)["set by"].tolist() == [UNSEEN_BUDGET, UNSEEN_BUDGET]
