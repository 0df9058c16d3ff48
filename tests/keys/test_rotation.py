"""Key rotation against the emulator, whose key store and usage ledger are the oracle: a
replacement made beside the old key with its limits, both watched day by day as traffic moves
from one to the other, the old key deactivated once quiet (or by force, recorded so), the
leak path with its replacement made to fail, no room at 25 active keys, and one rotation of
a key at a time."""

from __future__ import annotations

import datetime as dt
from functools import partial

import pytest
from pydantic import SecretStr
from support.builders import asgi_client
from support.faultserver import PASS, FaultServer, Reply
from support.orgfiles import org_key, org_usage, organization
from support.rotation_org import ADMIN, BEGUN, ORG, SPEECH, TODAY, WEB, traffic
from support.servers import file_app

from analytics.capacity.budgets.billing import billing_period
from analytics.guardrails import memory as guardrail_state
from analytics.guardrails.memory import GuardrailState, Memory
from analytics.keys import changes
from analytics.keys.audit import AuditLog
from analytics.keys.join import join, masked
from analytics.keys.limits import KeyRow, key_rows, usage_start
from analytics.keys.rotation import (
    NoRoom,
    ReplacementFailed,
    RotationLog,
    RotationRefused,
    StillInUse,
    default_label,
    finish,
    leaked,
    rotate,
    watched,
)
from analytics.service.client import Policy, ServiceClient
from analytics.service.models import UsageLimits
from analytics.storage.state_store import embedded_store
from analytics.usage.calendar import CLOCK_VARIABLE
from analytics.usage.frames import labels
from analytics.usage.pipeline import fetch_usage
from analytics.usage.records import Records


@pytest.fixture
def org(tmp_path, monkeypatch):
    """The emulator on TODAY, a client of it, the rotation log and audit log of one account,
    and the clock at day 0 of the rotation while it begins."""
    monkeypatch.setenv(CLOCK_VARIABLE, f"{BEGUN}T09:30:00+00:00")
    app = file_app(tmp_path, ORG, today=TODAY)
    client, _ = asgi_client(app, ADMIN)
    records = Records(embedded_store(tmp_path), "acct")
    audit = AuditLog(records)
    with client:
        yield (
            app,
            client,
            changes.Actor(client, "ops@example.org", audit, changes.every_key),
            RotationLog(records),
        )
    app.state.emulator.store.close()


def rows_of(client, log: RotationLog) -> list[KeyRow]:
    keys = client.developer_keys()
    period = billing_period(client.usage())
    first = usage_start(keys, period, TODAY)
    read = fetch_usage(client, first, TODAY - dt.timedelta(days=1), today=TODAY)
    return key_rows(join(keys, labels(read.frame)), read.frame, period, TODAY, read.start)


def row_named(rows: list[KeyRow], label: str) -> KeyRow:
    [row] = [r for r in rows if r.key is not None and r.key.label == label]
    return row


class Reader:
    """The usage reader the questions read, over the emulator's analytics."""

    def __init__(self, client) -> None:
        self.client = client

    def usage(self, first, last):
        return fetch_usage(self.client, first, last, today=TODAY)


def test_rotate_watch_and_finish_as_traffic_moves(org):
    app, client, actor, log = org
    rows = rows_of(client, log)
    label = default_label("Web shop", BEGUN)
    assert label == "Web shop (2026-03)"
    begun = rotate(actor, log, rows, row_named(rows, "Web shop"), label, BEGUN)
    new = {k.key_id: k for k in client.developer_keys()}[begun.rotation.new_key_id]
    assert (new.label, new.usage_limits.characters) == ("Web shop (2026-03)", 50_000)
    assert not new.is_deactivated and begun.rotation.new_api_key == masked(begun.secret)
    # The old key carries traffic on days 0 and 1, then it has moved to the new key.
    traffic(app, WEB, range(2), 700)
    traffic(app, begun.secret, range(5), 300)
    [kept] = log.read()
    assert kept == begun.rotation and kept.state == "watching"
    seen = watched(Reader(client), kept, TODAY)
    assert seen.days["day"].tolist() == [BEGUN + dt.timedelta(days=n) for n in range(5)]
    assert seen.days["old characters"].tolist() == [700, 700, 0, 0, 0]
    assert seen.days["new characters"].tolist() == [300] * 5
    assert (seen.last_used, seen.quiet_days) == (BEGUN + dt.timedelta(days=1), 3)
    assert seen.remaining == (
        "The old key was used on 2026-03-03: 700 characters (analytics through 2026-03-06)."
    )
    with pytest.raises(StillInUse, match="needs 4 quiet days, it has 3"):
        finish(actor, log, seen, row_named(rows, "Web shop").key, quiet_needed=4)
    assert not {k.key_id: k for k in client.developer_keys()}[kept.old_key_id].is_deactivated
    done = finish(actor, log, seen, row_named(rows, "Web shop").key, quiet_needed=3)
    assert (done.state, done.forced) == ("finished", False)
    assert {k.key_id: k for k in client.developer_keys()}[kept.old_key_id].is_deactivated
    assert [(e.action, e.outcome) for e in actor.audit.read()] == [
        ("create", "done"),
        ("limit", "done"),
        ("deactivate", "done"),
    ]


def test_finish_is_refused_while_the_old_key_is_used_and_forced_is_recorded(org):
    app, client, actor, log = org
    rows = rows_of(client, log)
    begun = rotate(actor, log, rows, row_named(rows, "Speech"), "Speech (new)", BEGUN)
    traffic(app, SPEECH, range(5), 12_400)  # used every day, yesterday too
    seen = watched(Reader(client), begun.rotation, TODAY)
    assert seen.remaining.startswith("The old key was used yesterday: 12,400 characters")
    with pytest.raises(StillInUse):
        finish(actor, log, seen, row_named(rows, "Speech").key, quiet_needed=1)
    assert [r.state for r in log.read()] == ["watching"]
    done = finish(actor, log, seen, row_named(rows, "Speech").key, quiet_needed=1, force=True)
    assert (
        [(r.state, r.forced) for r in log.read()]
        == [("finished", True)]
        == [(done.state, done.forced)]
    )


def test_two_rotations_of_one_key_at_once_one_is_refused(org):
    _app, client, actor, log = org
    rows = rows_of(client, log)
    old = row_named(rows, "Web shop")
    rotate(actor, log, rows, old, "Web shop (A)", BEGUN)
    before = client.developer_keys()
    with pytest.raises(RotationRefused, match="already being rotated"):
        rotate(actor, log, rows, old, "Web shop (B)", BEGUN)
    assert client.developer_keys() == before and len(log.read()) == 1


def test_no_room_at_25_active_keys_names_the_unused_ones_and_changes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv(CLOCK_VARIABLE, f"{BEGUN}T09:30:00+00:00")
    many = [
        org_key(f"busy{n:04d}-key-zzzz-{n:04d}", f"Busy {n}", 'created = "2025-01-05T00:00:00Z"')
        for n in range(23)
    ]
    text = organization(
        ORG,
        *many,
        *(org_usage(f"busy{n:04d}-key-zzzz-{n:04d}", "2026-02-27", text=5) for n in range(22)),
    )
    app = file_app(tmp_path, text, today=TODAY)
    client, _ = asgi_client(app, ADMIN)
    with client:
        log = RotationLog(Records(embedded_store(tmp_path), "acct"))
        actor = changes.Actor(client, "ops", AuditLog(log.records), changes.every_key)
        rows = rows_of(client, log)
        before = client.developer_keys()
        [busy_22] = [k.key_id for k in before if k.label == "Busy 22"]
        with pytest.raises(NoRoom) as refused:
            rotate(actor, log, rows, row_named(rows, "Web shop"), "Web shop (new)", BEGUN)
        assert client.developer_keys() == before
    app.state.emulator.store.close()
    # Busy 22 never used; the others used within 90 days.
    said = str(refused.value)
    assert said.startswith("25 keys are active, the most the service allows")
    # Named by label and masked key id, never the two-UUID key id itself.
    assert said.endswith(
        f"Active keys unused for 90 days: Busy 22 ({busy_22[:4]}****{busy_22[-4:]})"
    )
    assert busy_22 not in said
    assert log.read() == [] and actor.audit.read() == []


def test_a_leaked_key_is_deactivated_first_and_a_failed_replacement_says_how_to_finish(org):
    app, client, actor, log = org
    rows = rows_of(client, log)
    old = row_named(rows, "Web shop")
    refused = Reply(403, b'{"message": "Too many active keys"}')
    with FaultServer(app, [PASS, refused]) as server:  # the deactivation, then the create
        with ServiceClient(server.base_url, SecretStr(ADMIN), policy=Policy()) as failing:
            failing_actor = changes.Actor(
                failing, "ops@example.org", actor.audit, changes.every_key
            )
            with pytest.raises(ReplacementFailed) as failed:
                leaked(failing_actor, log, rows, old, "Web shop (2026-03)")
        assert [seen.method for seen in server.seen] == ["PUT", "POST"]
    assert str(failed.value).startswith(
        f"Web shop ({old.key.key_id[:4]}****{old.key.key_id[-4:]}) is deactivated, but its "
        "replacement was not made: "
    )
    assert "keys create --label 'Web shop (2026-03)'" in str(failed.value)
    keys = client.developer_keys()
    assert {k.key_id: k for k in keys}[old.key.key_id].is_deactivated
    assert [k.label for k in keys if not k.is_deactivated and k.label.startswith("Web")] == []
    assert [(e.action, e.outcome) for e in actor.audit.read()] == [
        ("deactivate", "done"),
        ("create", "refused"),
    ]
    assert [(r.state, r.leaked) for r in log.read()] == [("replacement failed", True)]


def test_a_leaked_key_replaced_in_one_step_with_its_guardrail_memory(org):
    _app, client, actor, log = org
    rows = rows_of(client, log)
    old = row_named(rows, "Web shop").key
    remembered = Memory(hand=UsageLimits(characters=None), applied=UsageLimits(characters=50_000))
    guardrail_state.write(log.records, GuardrailState(keys={old.key_id: remembered}))
    inherit = partial(guardrail_state.inherit, log.records)
    made = leaked(actor, log, rows, row_named(rows, "Web shop"), "Web shop (2026-03)", inherit)
    assert guardrail_state.read(log.records).keys == {
        old.key_id: remembered,
        made.rotation.new_key_id: remembered,
    }
    keys = {k.key_id: k for k in client.developer_keys()}
    assert keys[made.rotation.old_key_id].is_deactivated
    assert keys[made.rotation.new_key_id].usage_limits.characters == 50_000
    assert [e.action for e in actor.audit.read()] == ["deactivate", "create", "limit"]
    assert [(r.state, r.leaked) for r in log.read()] == [("finished", True)]


def test_an_actor_who_may_not_change_the_key_begins_no_rotation_and_sends_nothing(org):
    """Refused below the page: a rotation by someone whose rule refuses the key leaves no
    rotation, no new key and no deactivated one; its attempt is audited as refused."""
    _, client, actor, log = org
    rows = rows_of(client, log)
    keys = client.developer_keys()
    refusal = "You may change the keys of Voice only: this key is not one of them."
    lead = changes.Actor(client, "lead@example.org", actor.audit, changes.no_key(refusal))
    for begin in (
        lambda row: rotate(lead, log, rows, row, "Web shop (new)", BEGUN),
        lambda row: leaked(lead, log, rows, row, "Web shop (new)"),
    ):
        with pytest.raises(changes.NotAllowed, match="Voice only"):
            begin(row_named(rows, "Web shop"))
    assert log.read() == [] and client.developer_keys() == keys
    attempts = actor.audit.read()
    assert [(e.who, e.action, e.outcome) for e in attempts] == [
        ("lead@example.org", "create", "refused")
    ] * 2
