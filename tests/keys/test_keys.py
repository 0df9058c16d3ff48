"""Developer keys on the client side: the join of the key list to usage (each branch of its
rule, on hand-made lists), the audit log, changes audited whatever their outcome, and each
key against its own limits over an emulated organization."""

from __future__ import annotations

import datetime as dt
import json
import threading

import pytest
from pydantic import SecretStr
from sqlalchemy import create_engine, select, text
from support.builders import asgi_client
from support.faultserver import FaultServer, Reply
from support.orgfiles import KEYS_ADMIN as ADMIN
from support.orgfiles import KEYS_ORG as ORG
from support.orgfiles import KEYS_TODAY as TODAY
from support.orgfiles import KEYS_WEB as WEB
from support.servers import file_app

from analytics.capacity.budgets.billing import BillingPeriod, billing_period
from analytics.keys import changes
from analytics.keys.audit import AuditLog, audit_table, entry, read_file, take
from analytics.keys.join import JoinedKey, join, masked
from analytics.keys.limits import key_rows, key_view_table, limit_evaluations, usage_start
from analytics.keys.preview import limit_preview, rename_preview
from analytics.service.client import Policy, ServiceClient
from analytics.service.errors import AuthorizationError, NotFoundError
from analytics.service.models import DeveloperKey, UsageLimits
from analytics.settings.field_changes import differences
from analytics.storage.schema import audit as audit_rows
from analytics.storage.state_store import Store, StoreUnavailable, embedded_store
from analytics.usage.frames import labels
from analytics.usage.pipeline import fetch_usage
from analytics.usage.records import Records
from bench.processes import free_port
from emulator import EmulatorConfig, create_app

# --- the join ------------------------------------------------------------------------------


def listed(key_id: str, label: str) -> DeveloperKey:
    return DeveloperKey(key_id=key_id, label=label)


def hows(rows: list[JoinedKey]) -> list[tuple[str, str | None, str]]:
    return [(row.label, row.api_key, row.how) for row in rows]


def test_masks_keep_four_characters_each_side():
    assert masked("abcd1234efgh5678") == "abcd****5678"
    assert masked("short") == "****"


def test_a_key_joins_by_its_recorded_mask_then_its_key_id_then_a_unique_label():
    keys = [
        listed("1111aaaa-x:y-bbbb2222", "Made here"),  # created here: joined by its secret
        listed("c0de0000-1:2-0000beef", "Paid"),  # its key id's mask is an analytics mask
        listed("guid-one:guid-two", "Free web"),  # joined by label alone
    ]
    usage = {"sec1****ret1": "Made here", "c0de****beef": "Paid", "free****:fx1": "Free web"}
    rows = join(keys, usage, recorded={"1111aaaa-x:y-bbbb2222": "sec1****ret1"})
    assert hows(rows) == [
        ("Made here", "sec1****ret1", "recorded"),
        ("Paid", "c0de****beef", "key id"),
        ("Free web", "free****:fx1", "label"),
    ]


def test_two_keys_with_one_label_match_neither():
    """Two listed keys share a label and so do two analytics keys: which is which cannot be
    told, so both are not matched and both analytics keys stay unattributed."""
    keys = [listed("guid-a:guid-a", "Batch"), listed("guid-b:guid-b", "Batch")]
    usage = {"aaaa****1111": "Batch", "bbbb****2222": "Batch"}
    assert hows(join(keys, usage)) == [
        ("Batch", None, "not matched"),
        ("Batch", None, "not matched"),
        ("Batch", "aaaa****1111", "unattributed"),
        ("Batch", "bbbb****2222", "unattributed"),
    ]


def test_a_label_unique_in_the_list_but_shared_in_usage_matches_nothing():
    keys = [listed("guid-a:guid-a", "Batch")]
    usage = {"aaaa****1111": "Batch", "bbbb****2222": "Batch", "cccc****3333": "Other"}
    assert hows(join(keys, usage))[0] == ("Batch", None, "not matched")


def test_a_key_id_mask_claimed_by_two_keys_joins_neither():
    keys = [listed("abcd-1:1-wxyz", "One"), listed("abcd-2:2-wxyz", "Two")]
    assert hows(join(keys, {"abcd****wxyz": "Three"})) == [
        ("One", None, "no usage found"),
        ("Two", None, "no usage found"),
        ("Three", "abcd****wxyz", "unattributed"),
    ]


def test_a_key_without_usage_and_usage_without_a_listed_key():
    rows = join([listed("guid-a:guid-a", "Planned")], {"adm1****:adm": "Organization admin"})
    assert hows(rows) == [
        ("Planned", None, "no usage found"),
        ("Organization admin", "adm1****:adm", "unattributed"),
    ]
    assert [row.joined for row in rows] == [False, False]


# --- the audit log -------------------------------------------------------------------------

NOW = dt.datetime(2025, 7, 10, 8, 30, tzinfo=dt.UTC)


def kept_entries(store) -> list[str]:
    """The audit rows as the store holds them, read past the code that writes them."""
    return store.run(lambda c: c.execute(select(audit_rows.c.entry)).scalars().all())


def test_the_audit_log_appends_and_reads_back(state_store):
    log = AuditLog(Records(state_store, "acct"))
    assert log.read() == []
    before = listed("guid-a:guid-a", "Old")
    after = DeveloperKey(key_id="guid-a:guid-a", label="New")
    log.append(entry("rename", "ana@example.org", before, "done", after=after, now=NOW))
    log.append(entry("create", "cli:ops", None, "refused", label="X", message="403", now=NOW))
    rows = kept_entries(state_store)
    assert len(rows) == 2
    first = json.loads(rows[0])
    assert (first["who"], first["action"], first["outcome"]) == (
        "ana@example.org",
        "rename",
        "done",
    )
    assert (first["before"]["label"], first["after"]["label"]) == ("Old", "New")
    assert first["time"] == "2025-07-10T08:30:00Z"
    assert [e.outcome for e in log.read()] == ["done", "refused"]
    assert AuditLog(Records(state_store, "another")).read() == []


def test_before_and_after_read_as_fields_people_read():
    portal = DeveloperKey(key_id="guid-p:guid-p", label="Partner portal")
    capped = DeveloperKey(
        key_id="guid-p:guid-p",
        label="Partner portal",
        usage_limits=UsageLimits(characters=2_500_000, speech_to_text_milliseconds=1_830_000),
    )
    gone = DeveloperKey(key_id="guid-p:guid-p", label="Partner portal", is_deactivated=True)
    table = audit_table(
        [
            entry("create", "ana@example.org", None, "done", after=portal, now=NOW),
            entry("limit", "ana@example.org", portal, "done", after=capped, now=NOW),
            entry("deactivate", "ana@example.org", portal, "done", after=gone, now=NOW),
        ]
    )
    assert table[["before", "after"]].values.tolist() == [
        [
            "-",
            "label: Partner portal; characters: no limit; speech-to-text minutes: no limit",
        ],
        [
            "label: Partner portal; characters: no limit; speech-to-text minutes: no limit",
            "label: Partner portal; characters: 2,500,000; speech-to-text minutes: 30.50",
        ],
        [
            "label: Partner portal; characters: no limit; speech-to-text minutes: no limit",
            "label: Partner portal; characters: no limit; speech-to-text minutes: no limit; "
            "deactivated",
        ],
    ]


def test_concurrent_appends_are_all_kept(state_store):
    log = AuditLog(Records(state_store, "acct"))

    def append(n: int) -> None:
        log.append(entry("create", f"writer-{n}", None, "failed", label=str(n), now=NOW))

    threads = [threading.Thread(target=append, args=(n,)) for n in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(e.who for e in log.read()) == sorted(f"writer-{n}" for n in range(12))


def test_a_log_file_from_before_the_store_is_taken_once(state_store):
    log = AuditLog(Records(state_store, "acct"))
    log.append(entry("create", "cli:ops", None, "failed", label="Kept", now=NOW))
    lines = [
        '{"time":"2025-07-09T08:30:00Z","who":"ana","action":"rename","key_id":"k1",'
        '"label":"L","outcome":"done"}',
        kept_entries(state_store)[0],  # already in the store
    ]
    content = "\n".join(lines).encode()
    assert take(log, read_file(content)) == 1
    assert take(log, read_file(content)) == 0
    assert [e.label for e in log.read()] == ["Kept", "L"]
    with pytest.raises(ValueError):
        read_file(b"not json\n")


# --- changes, audited ----------------------------------------------------------------------


@pytest.fixture
def app(tmp_path):
    return file_app(tmp_path, ORG, today=TODAY)


def test_every_change_is_audited_with_its_outcome_and_never_the_secret(app, tmp_path):
    store = embedded_store(tmp_path)
    log = AuditLog(Records(store, "acct"))
    client, _ = asgi_client(app, ADMIN)
    with client:
        actor = changes.Actor(client, "ana@example.org", log, changes.every_key)
        made = changes.create(actor, "Mobile app").key
        assert made.key is not None
        renamed = changes.rename(actor, rename_preview(made.listed, "Mobile (iOS)"))
        assert renamed is not None
        limited_now = changes.limit(actor, limit_preview(renamed.key, 5000, 180_000))
        assert limited_now is not None
        # The same values again change nothing: no request, no entry.
        assert changes.limit(actor, limit_preview(limited_now.key, 5000, 180_000)) is None
        with pytest.raises(NotFoundError):
            changes.deactivate(actor, DeveloperKey(key_id="no-such:key", label="Ghost"))
        [limited] = [k for k in client.developer_keys() if k.key_id == made.key_id]
    assert limited.usage_limits.speech_to_text_milliseconds == 180_000
    entries = log.read()
    assert [(e.action, e.outcome) for e in entries] == [
        ("create", "done"),
        ("rename", "done"),
        ("limit", "done"),
        ("deactivate", "refused"),
    ]
    assert entries[0].masked_key == masked(made.key) and entries[0].key_id == made.key_id
    assert (entries[1].before.label, entries[1].after.label) == ("Mobile app", "Mobile (iOS)")
    assert (entries[2].before.characters, entries[2].after.characters) == (None, 5000)
    assert all(e.trace_id for e in entries)
    assert entries[3].label == "Ghost" and "404" in entries[3].message
    assert not [row for row in kept_entries(store) if made.key in row]
    assert log.recorded_masks() == {made.key_id: masked(made.key)}


def test_a_refusal_for_a_non_admin_key_is_audited(app, tmp_path):
    log = AuditLog(Records(embedded_store(tmp_path), "acct"))
    client, _ = asgi_client(app, WEB)
    with client, pytest.raises(AuthorizationError):
        changes.create(changes.Actor(client, "cli:ops", log, changes.every_key), "Nope")
    [refused] = log.read()
    assert (refused.action, refused.outcome, refused.key_id) == ("create", "refused", None)


def test_a_create_whose_answer_is_lost_is_audited_as_unknown(app, tmp_path):
    log = AuditLog(Records(embedded_store(tmp_path), "acct"))
    with FaultServer(app, [Reply(action="reset"), Reply()]) as server:
        policy = Policy(max_attempts=3, backoff=(0.001, 0.002))
        with ServiceClient(server.base_url, SecretStr(ADMIN), policy=policy) as client:
            with pytest.raises(changes.UnknownOutcome, match="key list"):
                changes.create(changes.Actor(client, "cli:ops", log, changes.every_key), "Lost")
            assert len(server.seen) == 1
    [unknown] = log.read()
    assert (unknown.outcome, unknown.label) == ("unknown", "Lost")


def test_no_change_is_sent_while_the_store_cannot_be_reached(app):
    """The audit entry could not be kept, so the change is not made at all."""
    nowhere = f"postgresql+psycopg://usage:pw-9c1e@127.0.0.1:{free_port()}/state"
    log = AuditLog(Records(Store(create_engine(nowhere), "PostgreSQL at nowhere"), "acct"))
    client, _ = asgi_client(app, ADMIN)
    with client:
        before = client.developer_keys()
        with pytest.raises(StoreUnavailable, match="nowhere") as refused:
            changes.rename(
                changes.Actor(client, "ana", log, changes.every_key),
                rename_preview(before[0], "Moved"),
            )
        assert client.developer_keys() == before
    assert "pw-9c1e" not in str(refused.value)


def test_a_change_whose_entry_cannot_be_written_says_so_and_logs_the_entry(app, tmp_path, caplog):
    store = embedded_store(tmp_path)
    store.run(lambda c: c.execute(text("DROP TABLE key_audit")))  # answers, but cannot append
    client, _ = asgi_client(app, ADMIN)
    with client:
        key = client.developer_keys()[0]
        actor = changes.Actor(client, "ana", AuditLog(Records(store, "acct")), changes.every_key)
        with pytest.raises(changes.AuditNotKept, match="rename was done at the service"):
            changes.rename(actor, rename_preview(key, "Renamed"))
        assert [k.label for k in client.developer_keys() if k.key_id == key.key_id] == ["Renamed"]
    [logged] = [r.getMessage() for r in caplog.records if "not kept" in r.getMessage()]
    assert '"action":"rename"' in logged and '"label":"Renamed"' in logged


# --- keys against their limits --------------------------------------------------------------


def test_each_key_against_its_own_limits(app):
    client, _ = asgi_client(app, ADMIN)
    period = BillingPeriod(dt.date(2025, 7, 1), dt.date(2025, 7, 31))
    with client:
        keys = client.developer_keys()
        first = usage_start(keys, period, TODAY)
        usage = fetch_usage(client, first, TODAY - dt.timedelta(days=1), today=TODAY)
    assert first == dt.date(2020, 7, 10)  # the forecast's five years, before any key's creation
    joined = join(keys, labels(usage.frame))
    rows = {row.joined.label: row for row in key_rows(joined, usage.frame, period, TODAY, first)}
    web, speech, planned = rows["Web shop"], rows["Speech"], rows["Planned"]
    assert (web.joined.how, web.state, web.last_used) == ("key id", "active", dt.date(2025, 7, 9))
    assert (web.characters.used, web.characters.limit) == (900, 1000)
    # 100 a day, every weekday alike: 1,000 is reached today, 3,100 by the period's end
    assert web.characters.reached == dt.date(2025, 7, 10)
    assert web.characters.projected == pytest.approx(3100, rel=1e-3)  # fitted to a flat line
    assert (speech.joined.how, speech.speech.used, speech.speech.limit) == ("label", 2.5, 10.0)
    assert (planned.state, planned.joined.how, planned.characters.used) == (
        "never used",
        "no usage found",
        0,
    )
    assert rows["Admin"].state == "not in the key list"
    table = key_view_table(list(rows.values())).set_index("label")
    assert table.at["Web shop", "character limit"] == 1000
    assert table.at["Web shop", "created"] == dt.date(2025, 4, 1)
    evaluations = {e.budget.title: e for e in limit_evaluations(list(rows.values()), period, 0.8)}
    web_limit = next(e for title, e in evaluations.items() if title.startswith("Web shop"))
    assert (web_limit.status, web_limit.used, web_limit.limit) == ("warning", 900, 1000)
    speech_limit = next(e for title, e in evaluations.items() if title.startswith("Speech"))
    # Its first use, 2.5 minutes on Wednesday 2 July, is a Wednesday's rhythm over the 8 days
    # since: 0.3125 a day times 7 on the period's three Wednesdays left, 9.0625 of 10 in all.
    assert speech_limit.projected == pytest.approx(2.5 + 3 * 0.3125 * 7)
    assert speech_limit.status == "warning" and speech_limit.unit() == "minutes"


def test_a_large_organization_s_keys_add_up_to_its_period(tmp_path):
    """Two hundred keys, most unused in the billing period so far: every listed key has its
    row, and the period's characters add up to the emulator's ledger."""
    today = dt.date(2026, 3, 20)
    app = create_app(EmulatorConfig(seed=7, keys=200, days=90, today=today))
    client, _ = asgi_client(app)
    with client:
        keys = client.developer_keys()
        period = billing_period(client.usage())
        first = usage_start(keys, period, today)
        usage = fetch_usage(client, first, today - dt.timedelta(days=1), today=today)
    assert period is not None
    rows = key_rows(join(keys, labels(usage.frame)), usage.frame, period, today, usage.start)
    assert len([row for row in rows if row.key is not None]) == len(keys)
    ledger = app.state.emulator.ledger(period.start, today - dt.timedelta(days=1))
    expected = sum(
        r.text_translation_characters
        + r.document_translation_characters
        + r.text_improvement_characters
        for r in ledger
    )
    assert sum(row.characters.used for row in rows if row.characters) == expected


@pytest.mark.parametrize(
    ("before", "after", "shown"),
    [
        ("Web shop", "Web store", ('"Web shop"', '"Web store"')),
        ("Ana's app", 'The "new" app', ('"Ana\'s app"', '"The \\"new\\" app"')),
    ],
)
def test_a_rename_preview_quotes_both_labels_as_a_settings_preview_quotes_a_value(
    before, after, shown
):
    # One way whatever quotes a label holds: Python's repr wrote 'Web shop' but "Ana's app".
    [shift] = rename_preview(listed("k1", before), after).shifts
    assert (shift.before, shift.after) == shown
    assert differences(f"name = {shown[0]}\n", f"name = {shown[1]}\n") == [
        f"name: {shown[0]} → {shown[1]}"
    ]
