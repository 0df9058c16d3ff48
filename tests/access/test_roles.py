"""Roles and their rights: the table of the deployment guide, written out here row by row, and
the settings that hand grants out (the e-mail lists, [roles.emails], [roles.groups])."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.access import (
    AccessSettingsError,
    Grant,
    Reach,
    Rights,
    Role,
    parse_grant,
    rights,
    role_settings,
)

TEAMS = ["Web shop", "Apps", "Data"]
# A team no grant below names: a right reaches it only through the whole organization.
ELSEWHERE = "Elsewhere"
RIGHTS = ("see", "change_keys", "change_settings")

# The deployment guide's table: which rights each role holds, over the grant's reach.
HOLDS: dict[Role, frozenset[str]] = {
    Role.VIEWER: frozenset({"see"}),
    Role.FINANCE: frozenset({"see"}),
    Role.TEAM_LEAD: frozenset({"see"}),
    Role.KEY_ADMIN: frozenset({"see", "change_keys"}),
    Role.SETTINGS_ADMIN: frozenset({"see", "change_settings"}),
}

ORGANIZATION = Reach(whole=True)
NOWHERE = Reach()


def team_reach(*teams: str) -> Reach:
    return Reach(teams=frozenset(teams))


# --- the table, row by row ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("grant", "expected"),
    [
        (Grant(Role.VIEWER), Rights(see=ORGANIZATION)),
        (Grant(Role.FINANCE), Rights(see=ORGANIZATION)),
        (Grant(Role.TEAM_LEAD, "Apps"), Rights(see=team_reach("Apps"))),
        (Grant(Role.KEY_ADMIN), Rights(see=ORGANIZATION, change_keys=ORGANIZATION)),
        (
            Grant(Role.KEY_ADMIN, "Apps"),
            Rights(see=team_reach("Apps"), change_keys=team_reach("Apps")),
        ),
        (Grant(Role.SETTINGS_ADMIN), Rights(see=ORGANIZATION, change_settings=ORGANIZATION)),
    ],
    ids=str,
)
def test_each_role_holds_the_rights_of_its_row_in_the_table(grant, expected):
    assert rights([grant]) == expected


def test_a_team_lead_sees_their_team_and_nothing_else():
    held = rights([Grant(Role.TEAM_LEAD, "Apps")])
    assert held.see.covers("Apps")
    assert not held.see.covers("Web shop")
    assert not held.change_keys and not held.change_settings


def test_a_key_administrator_of_a_team_changes_that_teams_keys_only():
    held = rights([Grant(Role.KEY_ADMIN, "Apps")])
    assert held.change_keys.covers("Apps")
    assert not held.change_keys.covers("Web shop")
    assert not held.change_keys.whole
    assert not held.change_settings


def test_nobody_without_a_grant_reaches_anything():
    held = rights([])
    for right in RIGHTS:
        reach = getattr(held, right)
        assert not reach
        assert not reach.whole
        assert not any(reach.covers(team) for team in [*TEAMS, ELSEWHERE])


# --- any set of grants: the union of the grants' rights, never more ------------------------------

grants = st.one_of(
    st.sampled_from([Grant(Role.VIEWER), Grant(Role.FINANCE), Grant(Role.SETTINGS_ADMIN)]),
    st.builds(Grant, st.just(Role.TEAM_LEAD), st.sampled_from(TEAMS)),
    st.builds(Grant, st.just(Role.KEY_ADMIN), st.sampled_from([None, *TEAMS])),
)
grant_sets = st.lists(grants, max_size=6)


def reaches(grants: list[Grant], right: str, team: str) -> bool:
    """Whether some grant holds ``right`` (by the table above) over ``team``."""
    return any(right in HOLDS[grant.role] and grant.team in (None, team) for grant in grants)


@settings(max_examples=60)
@given(grant_sets)
def test_the_rights_of_grants_are_exactly_what_some_grant_reaches(held):
    union = rights(held)
    for right in RIGHTS:
        reach = getattr(union, right)
        whole = any(right in HOLDS[g.role] and g.team is None for g in held)
        assert reach.whole == whole, right
        for team in [*TEAMS, ELSEWHERE]:
            assert reach.covers(team) == reaches(held, right, team), (right, team)
        assert bool(reach) == any(right in HOLDS[g.role] for g in held), right


@settings(max_examples=60)
@given(grant_sets, grants)
def test_adding_a_grant_never_narrows_a_right(held, more):
    before, after = rights(held), rights([*held, more])
    for right in RIGHTS:
        was, now = getattr(before, right), getattr(after, right)
        assert now.whole or not was.whole, right
        for team in [*TEAMS, ELSEWHERE]:
            assert now.covers(team) or not was.covers(team), (right, team)


@settings(max_examples=30)
@given(grant_sets.flatmap(lambda held: st.permutations(held).map(lambda p: (held, p))))
def test_the_order_of_grants_changes_nothing(pair):
    held, shuffled = pair
    assert rights(held) == rights(shuffled)


# --- a grant as the settings write it ---------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("organization viewer", Grant(Role.VIEWER)),
        ("finance", Grant(Role.FINANCE)),
        ("  settings administrator ", Grant(Role.SETTINGS_ADMIN)),
        ("key administrator", Grant(Role.KEY_ADMIN)),
        ("key administrator of Apps", Grant(Role.KEY_ADMIN, "Apps")),
        ("team lead of Web shop", Grant(Role.TEAM_LEAD, "Web shop")),
        ("team lead of  Web shop ", Grant(Role.TEAM_LEAD, "Web shop")),
        ("team lead of Bank of Europe", Grant(Role.TEAM_LEAD, "Bank of Europe")),
    ],
)
def test_a_grant_is_read_as_written(text, expected):
    assert parse_grant(text) == expected


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("owner", "is no role"),
        ("Finance", "is no role"),
        ("", "is no role"),
        ("team lead", "name the team"),
        ("team lead of", "is no role"),
        ("finance of Apps", "never limited to a team"),
        ("organization viewer of Apps", "never limited to a team"),
        ("settings administrator of Apps", "never limited to a team"),
        ("team lead of Unassigned", "Unassigned is no team"),
        ("key administrator of unassigned", "Unassigned is no team"),
    ],
)
def test_a_mistyped_grant_is_refused_naming_it(text, why):
    with pytest.raises(AccessSettingsError) as refused:
        parse_grant(text)
    assert f"{text!r}" in str(refused.value)
    assert why in str(refused.value)


# --- the settings: who holds which grants ---------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "named"),
    [
        ({"ADMIN_EMAILS": "ann@example.org"}, "ADMIN_EMAILS must be a list"),
        ({"KEY_ADMIN_EMAILS": ["ann@example.org", 7]}, "KEY_ADMIN_EMAILS must be a list"),
        ({"roles": ["finance"]}, "[roles] must be a table"),
        ({"roles": {"claim": "groups", "group": {}}}, "[roles] has no group"),
        ({"roles": {"claim": ""}}, "[roles] claim must name a claim"),
        ({"roles": {"groups": {"fin": ["finance"]}}}, "[roles.groups] needs [roles] claim"),
        ({"roles": {"emails": ["ann@example.org"]}}, "[roles.emails] must be a table"),
        (
            {"roles": {"emails": {"ann@example.org": "finance"}}},
            "[roles.emails] 'ann@example.org' must be a list of roles",
        ),
        (
            {"roles": {"emails": {"ann@example.org": ["owner"]}}},
            "[roles.emails] 'ann@example.org': 'owner' is no role",
        ),
        (
            {"roles": {"claim": "groups", "groups": {"leads": ["team lead"]}}},
            "[roles.groups] 'leads': 'team lead': name the team",
        ),
        (
            {"roles": {"claim": "groups", "groups": {"money": ["finance of Apps"]}}},
            "[roles.groups] 'money': 'finance of Apps': the finance role is never limited",
        ),
    ],
)
def test_mistyped_role_settings_are_refused_naming_the_entry(given, named):
    with pytest.raises(AccessSettingsError) as refused:
        role_settings(given)
    assert named in str(refused.value)
    assert "\n" not in str(refused.value)


SETTINGS = {
    "ADMIN_EMAILS": ["Ann@Example.org"],
    "KEY_ADMIN_EMAILS": ["keys@example.org", "  "],
    "roles": {
        "claim": "groups",
        "groups": {"finance-team": ["finance"], "web-leads": ["team lead of Web shop"]},
        "emails": {
            "ANN@example.org": ["key administrator of Apps"],
            "Lead@Example.org": ["team lead of Data"],
        },
    },
}


@pytest.mark.parametrize(
    ("email", "expected"),
    [
        ("ann@example.org", {Grant(Role.VIEWER), Grant(Role.KEY_ADMIN, "Apps")}),
        (" ANN@EXAMPLE.ORG ", {Grant(Role.VIEWER), Grant(Role.KEY_ADMIN, "Apps")}),
        ("KEYS@example.ORG", {Grant(Role.KEY_ADMIN)}),
        ("lead@example.org", {Grant(Role.TEAM_LEAD, "Data")}),
    ],
)
def test_email_addresses_compare_without_case(email, expected):
    assert role_settings(SETTINGS).grants(email, {}) == expected


@settings(max_examples=30)
@given(st.lists(st.booleans(), min_size=16, max_size=16))
def test_any_casing_of_a_listed_address_holds_its_grants(upper):
    address = "".join(
        c.upper() if up else c for c, up in zip("lead@example.org", upper, strict=True)
    )
    assert role_settings(SETTINGS).grants(address, {}) == {Grant(Role.TEAM_LEAD, "Data")}


@pytest.mark.parametrize(
    ("claims", "expected"),
    [
        ({"groups": "finance-team"}, {Grant(Role.FINANCE)}),
        ({"groups": ["web-leads"]}, {Grant(Role.TEAM_LEAD, "Web shop")}),
        (
            {"groups": ["finance-team", "web-leads", "unknown"]},
            {Grant(Role.FINANCE), Grant(Role.TEAM_LEAD, "Web shop")},
        ),
        ({"groups": [7, "web-leads"]}, {Grant(Role.TEAM_LEAD, "Web shop")}),
        ({"groups": ["Finance-Team"]}, set()),  # group names compare exactly
        ({"groups": 7}, set()),
        ({"roles": ["finance-team"]}, set()),  # another claim than the one configured
        ({}, set()),
    ],
)
def test_the_claim_names_groups_as_one_text_or_a_list(claims, expected):
    assert role_settings(SETTINGS).grants("nobody@example.org", claims) == expected


def test_email_and_groups_add_up():
    held = role_settings(SETTINGS).grants("lead@example.org", {"groups": "finance-team"})
    assert held == {Grant(Role.TEAM_LEAD, "Data"), Grant(Role.FINANCE)}


@pytest.mark.parametrize("given", [{}, SETTINGS, {"roles": {}}])
@pytest.mark.parametrize("email", [None, "", "stranger@example.org", "example.org"])
def test_an_address_without_a_grant_gets_nothing(given, email):
    held = role_settings(given).grants(email, {"email": email or ""})
    assert held == set()
    assert rights(held) == Rights()
