"""The Keys & limits page headless (Streamlit's AppTest): every key of the emulated
organization with its state and limits, each action (create with the secret shown once,
rename, limits, deactivate with the typed label), the audit log, and who may act."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from contextlib import closing
from urllib.parse import parse_qs

import pytest
from support import kept
from support.builders import BASE, asgi_client, invoke
from support.headless import TODAY, app_test, open_clean_page, open_page
from support.rotation_org import ADMIN, BEGUN, ORG, WEB, traffic
from support.rotation_org import TODAY as DAY_FIVE
from support.servers import file_app
from test_access import AUTH

from analytics.access import rights, role_settings
from analytics.dashboard.access import KEYS, change_refusal
from analytics.keys.join import masked
from analytics.pages import page_at
from analytics.service.client import ServiceClient
from analytics.service.errors import ServiceError
from analytics.usage.calendar import CLOCK_VARIABLE


def listed(ledger) -> list:
    """The emulator's developer keys (admin keys are not developer keys), as it lists them."""
    return [row for row in ledger.store.developer_keys()]


# The page names a key by its label and masked key id ("Web shop (ab12****ef56)").
NAMED = r" \([^()]*\*{4}[^()]*\)$"


def table(at):
    """The key table (the page's first), by each key's label: its Key column without the
    masked key id that follows the label."""
    shown = at.dataframe[0].value
    return shown.set_index(shown["label"].str.replace(NAMED, "", regex=True))


def ident(label: str) -> str:
    """How the page's key choice names the key `label`: its key id, which the page does not
    show; `keys list --format json`, over the same store, gives it, for programs."""
    result = invoke("keys", "list", "--demo", "--all", "--format", "json")
    [key_id] = [r["key_id"] for r in json.loads(result.stdout) if r["label"] == label]
    return key_id


def audit(tmp_path) -> list[dict]:
    return kept.audit_entries(tmp_path / "history")


def test_every_key_is_listed_with_its_state_and_limits(demo_env, demo_ledger):
    at = open_clean_page("limits")
    shown = table(at)
    keys = listed(demo_ledger)
    assert list(shown.index[: len(keys)]) == [k.label for k in keys]
    for key in keys:
        row = shown.loc[key.label]
        assert (row["state"] == "deactivated") == (key.deactivated is not None)
        limit = key.character_limit
        assert row["character limit"] == ("no limit" if limit is None else f"{limit:,}")
    assert "never used" in set(shown["state"])
    # Each key named by its label and masked key id; no raw key id anywhere people read.
    named = at.dataframe[0].value
    assert "key_id" not in named.columns
    for key, name in zip(keys, named["label"], strict=False):
        assert name == f"{key.label} ({key.published_id[:4]}****{key.published_id[-4:]})"
    read = [e.value for kind in ("markdown", "caption", "info", "warning") for e in at.get(kind)]
    read += [df.value.to_csv() for df in at.dataframe]  # the address keeps the chosen key's id
    assert not any(key.published_id in text for key in keys for text in read)
    tiles = {m.label: m.value for m in at.metric}
    active = sum(k.deactivated is None for k in keys)
    assert tiles["Keys listed"] == str(len(keys))
    assert tiles["Active keys"] == str(active)
    assert tiles["Deactivated"] == str(len(keys) - active)
    # The same names count the same keys on the command line, over the same demo store.
    for args, count in ((("--all",), len(keys)), ((), active)):
        result = invoke("keys", "list", "--demo", "--format", "json", *args)
        assert len([r for r in json.loads(result.stdout) if r["key_id"]]) == count


def test_create_shows_the_secret_once(changed_demo, tmp_path):
    at = open_page("limits")
    at.button(key="create_open").click().run()
    at.text_input(key="create_label").set_value("Kiosk app").run()
    at.button(key="create_submit").click().run()
    assert not at.exception
    [code] = at.code
    secret = code.value
    assert len(secret) > 8 and any("shown this once" in w.value for w in at.warning)
    at.button(key="create_done").click().run()
    assert not at.exception
    assert not at.code  # the dialog closed, and the secret left the page with it
    assert "Kiosk app" in table(at).index
    seen = [str(v) for v in at.query_params.values()]
    seen += [
        e.value
        for kind in ("markdown", "caption", "info", "success", "warning")
        for e in at.get(kind)
    ]
    seen += [df.value.to_csv() for df in at.dataframe]
    seen.append(repr(at.session_state))  # every value the session keeps
    assert not any(secret in text for text in seen)
    [entry] = audit(tmp_path)
    assert (entry["action"], entry["outcome"], entry["masked_key"]) == (
        "create",
        "done",
        masked(secret),
    )
    assert secret not in json.dumps(entry)


def confirm(at):
    """The deactivation dialog's field for the typed label."""
    return next(t for t in at.text_input if t.label == "Type the key's label to confirm")


def test_deactivation_needs_the_typed_label(changed_demo):
    at = open_page("limits")
    name = "Marketing launch"
    at.selectbox(key="key").set_value(ident(name)).run()
    at.button(key="deactivate_open").click().run()
    confirm(at).set_value(name[:-1])
    at.button(key="deactivate_confirm").click().run()
    assert any("does not match" in e.value for e in at.error)
    assert table(at).loc[name, "state"] != "deactivated"
    confirm(at).set_value(name)
    at.button(key="deactivate_confirm").click().run()
    assert not at.exception
    assert table(at).loc[name, "state"] == "deactivated"
    assert at.button(key="deactivate_open").disabled


def test_a_link_chooses_a_key_by_its_mask_and_changes_nothing(demo_env, tmp_path):
    shown = table(open_page("limits"))
    mask = shown.loc["Marketing launch", "api_key"]
    key_id = ident("Marketing launch")
    at = open_clean_page("limits", key=mask)  # as the Anomalies page links a key
    assert at.selectbox(key="key").value == key_id
    assert kept.audit_entries(tmp_path / "history") == []


@pytest.mark.parametrize(
    ("demo", "configured", "email", "admins", "allowed", "expected"),
    [
        (True, False, None, [], False, None),  # the demo's emulator: anyone may try
        (False, True, "ops@example.org", ["ops@example.org"], False, None),
        (False, True, "OPS@example.org ", ["ops@example.org"], False, None),
        (False, True, "viewer@example.org", ["ops@example.org"], False, "KEY_ADMIN_EMAILS"),
        (False, True, "ops@example.org", [], False, "KEY_ADMIN_EMAILS"),
        (False, True, "ops@example.org", ["ops@example.org"], True, None),
        (False, True, "viewer@example.org", [], True, "KEY_ADMIN_EMAILS"),  # sign-in decides
        (False, False, None, [], False, "SERVICE_ALLOW_KEY_CHANGES"),
        (False, False, None, [], True, None),
    ],
)
def test_who_may_change_keys(demo, configured, email, admins, allowed, expected):
    reach = rights(role_settings({"KEY_ADMIN_EMAILS": admins}).grants(email, {})).change_keys
    refusal = change_refusal(KEYS, demo, configured, email, reach, allowed)
    assert (refusal is None) == (expected is None)
    if expected:
        assert expected in refusal


def action_buttons(at) -> dict[str, bool]:
    keys = ("create_open", "deactivate_open")
    return {key: not at.button(key=key).disabled for key in keys}


@pytest.fixture
def configured(monkeypatch, tmp_path, emulator_process):
    monkeypatch.setenv("SERVICE_AUTH_KEY", emulator_process.admin_key)
    monkeypatch.setenv("SERVICE_BASE_URL", emulator_process.base_url)
    monkeypatch.setenv("SERVICE_HISTORY_PATH", str(tmp_path))
    return monkeypatch


def signed_in(email: str) -> object:
    at = app_test()
    at.secrets.update(
        AUTH
        | {"ADMIN_EMAILS": ["ops@example.org", "viewer@example.org"]}
        | {"KEY_ADMIN_EMAILS": ["ops@example.org"]}
    )
    at.user = {"is_logged_in": True, "email": email}
    at.switch_page(str(page_at("limits").file))
    return at.run()


def test_a_viewer_sees_the_keys_read_only_and_a_key_admin_may_act(configured):
    viewer = signed_in("viewer@example.org")
    assert not viewer.exception
    assert action_buttons(viewer) == {"create_open": False, "deactivate_open": False}
    assert any("KEY_ADMIN_EMAILS" in i.value for i in viewer.info)
    admin = signed_in("ops@example.org")
    assert action_buttons(admin) == {"create_open": True, "deactivate_open": True}


def test_without_sign_in_changes_need_the_setting(configured):
    closed = open_clean_page("limits")
    assert action_buttons(closed) == {"create_open": False, "deactivate_open": False}
    assert any("SERVICE_ALLOW_KEY_CHANGES" in i.value for i in closed.info)
    configured.setenv("SERVICE_ALLOW_KEY_CHANGES", "true")
    opened = open_clean_page("limits")
    assert action_buttons(opened) == {"create_open": True, "deactivate_open": True}


def test_an_anomaly_links_to_its_key_with_the_actions_at_hand(demo_env, demo_ledger):
    new = next(i for i in demo_ledger.injected if i.kind == "new")
    anomaly = f"new:{new.api_key}:total_characters:{new.first}"
    at = open_page("anomalies", period="Last 30 days", anomaly=anomaly)
    assert at.selectbox(key="anomaly").value == anomaly  # the link's, not the first listed
    [link] = [e.proto for e in at.get("page_link")]
    assert link.page == "limits"
    assert parse_qs(link.query_string) == {"key": [new.api_key]}


def test_capacity_lists_every_limited_key_against_its_limits(demo_env, demo_ledger):
    at = open_clean_page("capacity")
    assert "Keys against their own limits" in [s.value for s in at.subheader]
    [limits] = [
        df.value
        for df in at.dataframe
        if "budget" in df.value.columns and df.value["budget"].str.contains("key limit").all()
    ]
    limited = {
        k.label
        for k in listed(demo_ledger)
        if k.deactivated is None
        and (k.character_limit is not None or k.speech_limit_ms is not None)
    }
    assert {name.split(" (")[0] for name in limits["budget"]} == limited
    near = limits[limits["budget"].str.startswith("Production website")].iloc[0]
    if demo_ledger.plan.period(TODAY)[0] < TODAY:
        assert near["status"] == "warning" and 90 < near["used %"] < 100
    else:  # a usage period that begins today has no closed day of use yet
        assert near["used"] == 0 and near["used %"] == 0


def test_a_failing_state_store_is_a_warning_and_the_keys_still_show(demo_env, tmp_path):
    """The audit log cannot be read (the store answers, but its table is gone): one warning
    says so, and the keys are listed as the service gives them."""
    keys = list(table(open_clean_page("limits")).index)
    with closing(sqlite3.connect(tmp_path / "history" / kept.FILE)) as store:
        store.execute("DROP TABLE key_audit")
    at = open_page("limits")
    assert not at.exception and not at.error
    assert any("state store" in w.value for w in at.warning)
    assert list(table(at).index) == keys


def shown_texts(at) -> list[str]:
    """Everything the page shows or keeps in its session and address, as text."""
    seen = [str(v) for v in at.query_params.values()]
    kinds = ("markdown", "caption", "info", "success", "warning", "error", "code")
    seen += [e.value for kind in kinds for e in at.get(kind)]
    seen += [df.value.to_csv() for df in at.dataframe]
    seen.append(repr(at.session_state))
    return seen


def test_a_rotation_from_the_page_is_watched_and_finished_by_force(changed_demo, tmp_path):
    at = open_page("limits")
    name = "Production website"  # the demo's key near its character limit
    old_id = ident(name)
    limit = table(at).loc[name, "character limit"]
    assert limit != "no limit"
    at.selectbox(key="key").set_value(old_id).run()
    at.button(key="rotate_open").click().run()
    label = f"{name} ({TODAY:%Y-%m})"
    assert at.text_input(key=f"rotate_label:{old_id}").value == label
    at.button(key="rotate_confirm").click().run()
    assert not at.exception
    [code] = at.code
    secret = code.value
    assert any("shown this once" in w.value for w in at.warning)
    at.button(key="rotate_done").click().run()
    assert not at.code
    assert table(at).loc[label, "character limit"] == limit  # the old key's limit
    panel = [m.value for m in at.markdown if m.value.startswith("**Rotation 1: ")]
    assert panel == [f"**Rotation 1: {name} → {label}** · " + panel[0].split("** · ")[1]]
    at.button(key="finish_open_1").click().run()
    assert any("quiet 0 of the 3 whole days" in e.value for e in at.error)
    next(t for t in at.text_input if t.key == f"finish_typed:{old_id}").set_value(name)
    at.button(key="finish_confirm").click().run()
    assert any("It needs 3 quiet days, it has 0" in e.value for e in at.error)
    assert table(at).loc[name, "state"] != "deactivated"
    at.checkbox(key=f"finish_force:{old_id}").check().run()
    at.button(key="finish_confirm").click().run()
    assert not at.exception
    assert table(at).loc[name, "state"] == "deactivated"
    assert [s.value for s in at.success if "Rotation 1 finished (forced)" in s.value]
    assert not at.toast  # said once, where it stays
    assert [(e["action"], e["outcome"]) for e in audit(tmp_path)] == [
        ("create", "done"),
        ("limit", "done"),
        ("deactivate", "done"),
    ]
    [(state,)] = kept.rows(tmp_path / "history", "SELECT rotation FROM key_rotations")
    assert json.loads(state)["forced"] is True and json.loads(state)["state"] == "finished"
    assert not any(secret in text for text in shown_texts(at))
    for path in (tmp_path / "history").rglob("*"):
        assert not path.is_file() or secret.encode() not in path.read_bytes(), path


def test_a_rotation_is_watched_as_its_traffic_moves_and_finished_once_quiet(monkeypatch, tmp_path):
    """Web shop is rotated on the page on day 0 and its traffic moves to the replacement from
    day 2 (booked in the emulator's ledger). On day 5 the panel shows both keys' days through
    day 4, and Finish deactivates the old key without force: it has been quiet for the 3
    whole days the settings ask."""
    app = file_app(tmp_path, ORG, today=DAY_FIVE)
    monkeypatch.setattr(ServiceClient, "from_connection", lambda *_: asgi_client(app, ADMIN)[0])
    for name, value in {
        "SERVICE_BASE_URL": BASE,
        "SERVICE_AUTH_KEY": ADMIN,
        "SERVICE_HISTORY_PATH": str(tmp_path / "history"),
        "SERVICE_ALLOW_KEY_CHANGES": "true",
        CLOCK_VARIABLE: f"{BEGUN}T09:30:00+00:00",
    }.items():
        monkeypatch.setenv(name, value)
    at = open_clean_page("limits")
    keys = app.state.emulator.store.developer_keys()
    old_id = next(key.published_id for key in keys if key.label == "Web shop")
    at.selectbox(key="key").set_value(old_id).run()
    at.button(key="rotate_open").click().run()
    at.button(key="rotate_confirm").click().run()
    [code] = at.code
    traffic(app, WEB, range(2), 700)
    traffic(app, code.value, range(5), 300)

    monkeypatch.setenv(CLOCK_VARIABLE, f"{DAY_FIVE}T09:30:00+00:00")
    at = open_clean_page("limits")
    [days] = [df.value for df in at.dataframe if "old characters" in df.value.columns]
    assert days["day"].tolist() == [BEGUN + dt.timedelta(days=n) for n in range(5)]
    assert days["old characters"].tolist() == [700, 700, 0, 0, 0]
    assert days["new characters"].tolist() == [300] * 5
    assert any(
        m.value.startswith("The old key was used on 2026-03-03: 700 characters")
        for m in at.markdown
    )
    at.button(key="finish_open_1").click().run()
    next(t for t in at.text_input if t.key == f"finish_typed:{old_id}").set_value("Web shop")
    at.button(key="finish_confirm").click().run()
    assert not at.exception
    assert any("Rotation 1 finished: " in s.value for s in at.success)
    assert table(at).loc["Web shop", "state"] == "deactivated"
    assert table(at).loc["Web shop (2026-03)", "state"] == "active"
    app.state.emulator.store.close()


def test_a_leaked_key_whose_replacement_fails_says_how_to_finish(
    changed_demo, tmp_path, monkeypatch
):
    at = open_page("limits")
    name = "Writing assistant"
    old_id = ident(name)
    at.selectbox(key="key").set_value(old_id).run()

    def refused(self, label=None):
        raise ServiceError("the service answered 503 Service Unavailable", status=503)

    monkeypatch.setattr(ServiceClient, "create_developer_key", refused)
    at.button(key="leak_open").click().run()
    next(t for t in at.text_input if t.key == f"leak_typed:{old_id}").set_value(name)
    at.button(key="rotate_confirm").click().run()
    assert not at.exception and not at.code
    said = [e.value for e in at.error]
    assert any(
        text.startswith(
            f"{name} ({old_id[:4]}****{old_id[-4:]}) is deactivated, but its replacement was not"
        )
        and f"keys create --label '{name} ({TODAY:%Y-%m})'" in text
        for text in said
    ), said
    assert table(at).loc[name, "state"] == "deactivated"
    assert [(e["action"], e["outcome"]) for e in audit(tmp_path)] == [
        ("deactivate", "done"),
        ("create", "failed"),
    ]
