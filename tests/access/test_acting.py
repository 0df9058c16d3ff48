"""Who may change which key, asked below every page: the change functions themselves refuse a
call the person's roles do not allow, whichever front end (or none) makes it, and each attempt
names the person.

The rule is built as a dashboard session builds it (`access.acting.session_rule` over
`dashboard.access.change_refusal`), for a person signed in to the demo (where anyone without
sign-in may change keys); the oracle is the roles table of the deployment guide, written out
below, and the emulator's own key list: a refused call leaves it as it was.
"""

from __future__ import annotations

from functools import partial

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.builders import asgi_client
from support.orgfiles import KEYS_ADMIN as ADMIN
from support.orgfiles import KEYS_ORG as ORG
from support.orgfiles import KEYS_TODAY as TODAY
from support.servers import file_app

from analytics.access import parse_grant, rights
from analytics.access.acting import session_rule
from analytics.cost.teams import parse_teams
from analytics.dashboard.access import KEYS, change_refusal
from analytics.guardrails import apply
from analytics.keys import changes
from analytics.keys.audit import AuditLog
from analytics.keys.preview import limit_preview, rename_preview
from analytics.storage.state_store import embedded_store
from analytics.usage.records import Records

# The keys organization's listed keys by team: "Web shop" is Web's, "Speech" and "Planned"
# are Voice's.
TEAMS = parse_teams(
    '[[team]]\nname = "Web"\nlabels = ["Web shop"]\n\n'
    '[[team]]\nname = "Voice"\nlabels = ["Speech", "Planned"]\n'
)
TEAM_OF = {"Web shop": "Web", "Speech": "Voice", "Planned": "Voice"}
EMAIL = "person@example.org"

# Who may rename, limit or deactivate a key of a team, and create a key or run the
# guardrails (the organization's): the deployment guide's table, per grant.
GRANTS = [
    "organization viewer",
    "finance",
    "team lead of Web",
    "key administrator of Web",
    "key administrator",
    "settings administrator",
]


def may_change(grant: str, team: str | None) -> bool:
    """The table: a key administrator of the organization changes everything, one of a team
    that team's keys (never a change of the organization's, `team` None); nobody else any."""
    if grant == "key administrator":
        return True
    return grant == f"key administrator of {team}" if team is not None else False


@pytest.fixture(scope="module")
def org(tmp_path_factory):
    folder = tmp_path_factory.mktemp("acting")
    app = file_app(folder, ORG, today=TODAY)
    client, _ = asgi_client(app, ADMIN)
    log = AuditLog(Records(embedded_store(folder), "acct"))
    with client:
        yield client, log
    app.state.emulator.store.close()


def actor_of(client, log, grant: str) -> changes.Actor:
    """The actor of a person holding ``grant``, signed in to the demo dashboard."""
    reach = rights([parse_grant(grant)]).change_keys
    refused = change_refusal(KEYS, True, True, EMAIL, reach, False)
    rule = session_rule(refused, True, reach, lambda: (TEAMS, log.recorded_masks()))
    return changes.Actor(client, EMAIL, log, rule)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    grant=st.sampled_from(GRANTS),
    label=st.sampled_from(sorted(TEAM_OF)),
    action=st.sampled_from(["rename", "limit"]),
)
def test_a_key_change_is_made_only_where_the_roles_allow_it(org, grant, label, action):
    client, log = org
    [key] = [k for k in client.developer_keys() if k.label == label]
    actor = actor_of(client, log, grant)
    allowed = may_change(grant, TEAM_OF[label])
    before = len(log.read())
    limits = key.usage_limits
    if action == "rename":
        change = partial(changes.rename, actor, rename_preview(key, f"{label} v2"))
    else:
        more = (limits.characters or 0) + 1_000
        preview = limit_preview(key, more, limits.speech_to_text_milliseconds)
        change = partial(changes.limit, actor, preview)
    if allowed:
        assert change() is not None
        [after] = [k for k in client.developer_keys() if k.key_id == key.key_id]
        assert after != key
        # Put back, so the next example meets the organization as written.
        back = changes.Actor(client, "test", None, changes.every_key)
        if action == "rename":
            changes.rename(back, rename_preview(after, label))
        else:
            undo = limit_preview(after, limits.characters, limits.speech_to_text_milliseconds)
            changes.limit(back, undo)
    else:
        with pytest.raises(changes.NotAllowed):
            change()
        assert [k for k in client.developer_keys() if k.key_id == key.key_id] == [key]
    [attempt] = log.read()[before:]
    assert (attempt.who, attempt.action) == (EMAIL, action)
    assert attempt.outcome == ("done" if allowed else "refused")


@pytest.mark.parametrize("grant", GRANTS)
def test_creating_a_key_and_the_guardrails_are_the_organizations(org, grant):
    client, log = org
    actor = actor_of(client, log, grant)
    keys = client.developer_keys()
    if may_change(grant, None):
        made = changes.create(actor, f"Made by {grant}").key
        changes.deactivate(actor, made.listed)
        return
    with pytest.raises(changes.NotAllowed, match=r"organization's|may look but not change"):
        changes.create(actor, "Not made")
    assert client.developer_keys() == keys
    assert (log.read()[-1].who, log.read()[-1].outcome) == (EMAIL, "refused")

    def never_planned(memory):
        raise AssertionError("a refused run read the plan")

    with pytest.raises(changes.NotAllowed):
        apply.run(log.records, never_planned, actor, "restore")
    assert client.developer_keys() == keys


def test_a_lead_signed_in_to_the_demo_is_refused_in_words_and_the_demos_visitor_is_not():
    lead = rights([parse_grant("team lead of Web")]).change_keys
    refused = change_refusal(KEYS, True, True, "lead@example.org", lead, False)
    assert refused == (
        "lead@example.org may look but not change keys: ask an administrator to add the "
        "address to KEY_ADMIN_EMAILS."
    )
    # Nobody signed in to a demo without sign-in: the anonymous visitor may try changes.
    assert change_refusal(KEYS, True, False, None, rights([]).change_keys, False) is None
